"""Row events decided by Spark column expressions compiled from each channel's filters.

Why: deciding a row event needs only its ``(channel, db, table)`` (mysql-filter-evaluation.md,
section 3.4), and a replica pays one hash probe per event whatever its table count. Deciding
every distinct key in Python (:mod:`.key_decisions`) costs two passes over the input and ~4 µs
a key; the same rules as column expressions cost about a tenth of a read (measured in the
README), in one pass.

What is compiled, from the same :class:`~replfilter.evaluation.rule_checks.CompiledFilters`
the reference evaluator decides with (so rule spellings, duplicate policy and the first
rewrite rule are its own), for one row event (``decide_row``):

* rewrite-db: the first rule whose ``from`` equals the database, no chaining;
* Table A: do-db, else ignore-db;
* Table C for the one table, in the evaluator's order: do-table, ignore-table, wild-do-table,
  wild-ignore-table; then the defaults and ``table_rules_on``;
* the COUNTER moves, as a small *counter class* per row (:func:`increments_of`), none for a
  channel that is not configured (it decides with the global rules, as
  :func:`~replfilter.evaluation.evaluator.channel_filters` says).

How, against the earlier design's findings (a CASE per rule overflows code generation, a LIKE
per rule is slow): each exact rule set is one ``isin`` (an ``InSet`` hash probe beyond ten
rules), or above :data:`MAX_SET_RULES` rules one broadcast hash join of the rule keys
(:mod:`.rule_sets`): one hash probe a row either way, no literal per rule in the plan. A wild
rule is cheap string tests, a branch per rule, so the outcome code names the rule that matched
first (:mod:`.compiled_like`). Each channel's branch is its own generated method (see
:meth:`CompiledRules.with_code`): HotSpot does not compile a method of more than 8,000 bytes of
bytecode, and one CASE over every channel's rules exceeded that. The Rule column of a wild
match is a constant per code. Rule spellings that differ from their collation key (``DB1.T1``
under ``lower_case_table_names`` 1) come from a small lookup, all others are the matched key
itself. The database after rewrite is one column of an inner projection, so it is computed once
per row. Each row gets one outcome code (:class:`Outcome`: verdict, filter type, counter class,
rule); the decision columns are ``element_at`` on small literal arrays. Query events of at most
one table are compiled too (:mod:`.compiled_queries`), with the row events' Table A and Table C.

Where Spark and the evaluator could disagree, the rows go to the exact path (the reference
evaluator, :mod:`.transform`): names that are not plain ASCII (Java's and Python's lower-casing
differ on some letters — ß, ſ, K, İ, ı — and ``_`` is one byte under
``lower_case_table_names`` 0 but one UTF-16 unit in Java), channels the replica does not have,
NULL names, the query events :mod:`.compiled_queries` leaves out, and transaction events of an
unknown kind or channel. A channel whose rules the compiler
declines (:data:`MAX_JOINED_RULES`, :data:`MAX_LOOKUP`, :data:`MAX_WILD_RULES`, a rewrite to a
name that is not ASCII) goes there whole; :attr:`CompiledRules.declined` says why.

ASCII names are exact here: for them ``lower`` in Spark, ``str.lower`` and the server's
``my_casedn_str`` agree; rule keys are the evaluator's own (``NameCollation.key``, computed in
Python), and a pattern is the evaluator's own regular expression (``like_to_regex``), whose
syntax means the same in Java: it escapes with a backslash only characters that are not
letters, and ``(?s)`` makes ``.`` match every character as ``re.DOTALL`` does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Mapping

from pyspark.sql import Column
from pyspark.sql import functions as F

from ..core.filters import FilterType
from ..evaluation.evaluator import channel_filters, compile_filters
from ..evaluation.events import TransactionKind
from ..evaluation.rule_checks import CompiledFilters, rules_key
from ..replica.state import ReplicaState
from . import compiled_queries, literals
from .compiled_like import first_match, is_ascii
from .own_method import own_method
from .rule_sets import MAX_SET_RULES, JoinedSets, members
from .schema import UPDATING_UNKNOWN

FT = FilterType

MAX_JOINED_RULES = 1_000_000
"""Rules of one exact type a channel may have to be compiled at all: the join's build side
(~100 bytes a key in the JVM, as a local relation and a hash relation) is held by the driver
and each executor, within a default 1 GB driver. Up to 3,000,000 rules (an 8 GB driver) the
join still cost less than the exact path (README, "Large rule sets"); above this size the
memory, not the time, decides."""
MAX_LOOKUP = 64
"""Entries of a value lookup (rewrite rules, rule spellings unlike their key): Spark looks a
map literal up by a linear scan."""
MAX_WILD_RULES = 64
"""Patterns of one wild type: the Rule column tests them one by one on the rows that matched."""

CODE_COLUMN = "_rf_cc"
"""Per row: the compiled outcome code (1-based), NULL when the row takes the exact path."""
RULE_COLUMN = "_rf_crule"
REWRITTEN_COLUMN = "_rf_crw"
COUNTED_REWRITE_COLUMN = "_rf_ccrw"
"""Per row: whether it moves the REWRITE_DB COUNTER (a row event: any rewrite rule matched; a
query event: see :func:`.compiled_queries.rewrite_counted`; false for every other row)."""
_DB_KEY = "_rf_cdb"
_INDEX = "_rf_cix"
_REWRITE = "_rf_crw0"
_STAGE = "_rf_cqs"
_SUBJECT = "_rf_csub"
_CHANNEL = "_rf_cch"

_TABLE_TYPES = (None, FT.DO_TABLE, FT.IGNORE_TABLE, FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE)


def increments_of(counter_class: int) -> dict[FilterType, int]:
    """The COUNTER moves a counter class stands for: bit 0 rewrite-db, bits 1-2 the database
    type (1 do-db, 2 ignore-db), bits 3-5 the table type (index into the four table types)."""
    out: dict[FilterType, int] = {}
    if counter_class & 1:
        out[FT.REWRITE_DB] = 1
    db_type = (counter_class >> 1) & 3
    if db_type:
        out[FT.DO_DB if db_type == 1 else FT.IGNORE_DB] = 1
    table_type = _TABLE_TYPES[(counter_class >> 3) & 7]
    if table_type is not None:
        out[table_type] = 1
    return out


def _class_of(db_type: FT | None, table_type: FT | None) -> int:
    db_bits = {None: 0, FT.DO_DB: 1, FT.IGNORE_DB: 2}[db_type]
    return (db_bits << 1) | (_TABLE_TYPES.index(table_type) << 3)


@dataclass(frozen=True)
class Outcome:
    """One code's constant part: the verdict, the deciding filter type, the counter class
    (without rewrite-db, which the row adds) and the channel."""

    decision: str
    filter_type: str | None
    counter_class: int
    channel: str
    rule: str | None = None
    """The deciding rule when it is constant (a wild pattern)."""
    rule_from: str | None = None
    """Else where its text comes from: ``db`` (the database's key) or ``table`` (the
    ``db.table`` key), spelt as configured (:func:`_spellings`)."""


@dataclass
class CompiledRules:
    """The row-event decisions of one replica state as column expressions.

    ``channels`` are the channels compiled (their rows are decided here when their names are
    ASCII), ``declined`` the others with the reason. ``outcomes[code - 1]`` is each code's
    constant part."""

    channels: tuple[str, ...]
    declined: dict[str, str]
    all_channels: tuple[str, ...] = ()
    outcomes: list[Outcome] = field(default_factory=list)
    ci: bool = False
    """The names are compared case-insensitively (``lower_case_table_names`` 1 or 2)."""
    _first_code: dict[str, int] = field(default_factory=dict, repr=False)
    _spellings: dict[str, dict[tuple[int, str], str]] = field(default_factory=dict, repr=False)
    """Per rule source (``db``, ``table``): (code, key) -> the rule's spelling, for the
    spellings that differ from their key."""
    _compiled: dict[str, tuple[CompiledFilters, bool]] = field(default_factory=dict, repr=False)
    _joined: JoinedSets = field(default_factory=JoinedSets, repr=False)
    signature: tuple = ()
    """What the expressions depend on: each compiled channel's rules (``rules_key``) and
    whether it is configured, the declined and all channels, the collation."""
    """The exact sets above :data:`MAX_SET_RULES`, looked up by a join (:mod:`.rule_sets`)."""

    def covered_rows(self) -> Column:
        """True for the row events this decides: of a compiled channel, both names ASCII."""
        if not self.channels:
            return F.lit(False)
        db, table = F.col("db"), F.col("table")
        test = (F.col("type") == "row") & F.col("channel").isin(list(self.channels)) & is_ascii(db) & is_ascii(table)
        return F.coalesce(test, F.lit(False))

    def covered_transactions(self) -> Column:
        """True for transaction events of a known kind on a channel the replica has: never
        filtered (mysql-filter-evaluation.md, section 3.6), whatever the rules."""
        test = (
            (F.col("type") == "transaction")
            & F.col("kind").isin([k.value for k in TransactionKind])
            & F.col("channel").isin(list(self.all_channels))
        )
        return F.coalesce(test, F.lit(False))

    def database_channels(self) -> tuple[str, ...]:
        """The compiled channels whose database statements are compiled too
        (:func:`.compiled_queries.database_statements_compiled`): with :attr:`channels`, what
        decides which rows the exact path takes (the key cache's key says so too)."""
        return tuple(name for name in self.channels if compiled_queries.database_statements_compiled(self._compiled[name][0]))

    def covered(self, df) -> Column:
        """True for every row of ``df`` this decides (:meth:`covered_rows`,
        :meth:`covered_transactions`, :func:`.compiled_queries.covered_queries`); built once per rule set and Spark
        context, as :meth:`with_code`'s expressions (~150 py4j calls, ~0.1 s)."""
        return _expressions(self, df.sparkSession, _has_unknown_field(df))[4]

    @property
    def transaction_code(self) -> int:
        return len(self.outcomes)  # the last outcome, added by compile_rules

    def with_code(self, df) -> "object":
        """``df`` with :data:`CODE_COLUMN`, :data:`RULE_COLUMN`, :data:`REWRITTEN_COLUMN` and
        :data:`COUNTED_REWRITE_COLUMN` (NULL on rows not :meth:`covered`). Four projections:
        the channel's index and the rewrite, the names' keys, the outcome code, the rule text;
        each computed once per row. The expressions are built once per rule set and Spark context
        (:func:`_expressions`): built, they cost ~6,900 py4j calls, 1.4-1.9 s a call."""
        keys, first_columns, code, rule, _covered = _expressions(self, df.sparkSession, _has_unknown_field(df))
        first = df.withColumns(keys).withColumns(first_columns)
        if self._joined:
            first = self._joined.attach(first, F.col(_CHANNEL), {"db": F.col(_DB_KEY), "table": F.col(_SUBJECT)})
        coded = first.withColumn(CODE_COLUMN, code)
        dropped = (_INDEX, _REWRITE, _CHANNEL, _STAGE, _DB_KEY, _SUBJECT, *(JoinedSets.bits_columns.values() if self._joined else ()))
        return coded.withColumn(RULE_COLUMN, rule).drop(*dropped)

    def build_expressions(self, unknown_field: bool) -> tuple[dict[str, Column], dict[str, Column], Column, Column, Column]:
        """The four projections' expressions of :meth:`with_code` (the first two's columns,
        the outcome code and the rule text) and :meth:`covered`'s test. A query event's database is its default database,
        its subject its one table (qualified by that database when the statement did not
        qualify it). ``unknown_field``: the table entries have ``updating_unknown``."""
        ci = self.ci
        query = F.col("type") == "query"
        db = F.when(query, F.coalesce(F.col("default_db"), F.lit(""))).otherwise(F.col("db"))
        db_pre = F.lower(db) if ci else db
        table_db, table = compiled_queries.table_field("db"), F.when(query, compiled_queries.table_field("table")).otherwise(F.col("table"))
        table_key = F.lower(table) if ci else table
        # per channel, looked up by its index in constant arrays: code of one size whatever the
        # number of channels (a CASE over them grew the generated code by ~720 bytes a channel)
        channel_index = F.array_position(F.array(*[F.lit(name) for name in self.channels]), F.col("channel")) - 1
        rewrites = [self._compiled[name][0]._first_rewrite for name in self.channels]
        if any(rewrites):
            rewritten = F.get(_maps([{k: d for k, (_s, d) in r.items()} for r in rewrites]), channel_index)[db_pre]
            dst_key = F.get(_maps([{k: self._compiled[n][0].key(d) for k, (_s, d) in r.items()} for n, r in zip(self.channels, rewrites)]), channel_index)[db_pre]
            db_key: Column = F.coalesce(dst_key, db_pre)
        else:
            rewritten, db_key = F.lit(None).cast("string"), db_pre
        keys = {_INDEX: channel_index, _REWRITE: rewritten, _DB_KEY: db_key}
        channel_index, rewritten, db_key = F.col(_INDEX), F.col(_REWRITE), F.col(_DB_KEY)
        rows, transactions = self.covered_rows(), self.covered_transactions()
        queries = compiled_queries.covered_queries(self.channels, self.database_channels(), unknown_field)
        subject_db = F.when(query, F.coalesce(F.lower(table_db) if ci else table_db, db_key)).otherwise(db_key)
        # each its own method (:mod:`.own_method`): inline, they made the write's one method too
        # large for HotSpot to compile
        first = {
            name: own_method(value)
            for name, value in {
                _CHANNEL: F.when(rows | queries, channel_index).when(transactions, F.lit(-1)),
                _STAGE: compiled_queries.stage(queries),
                REWRITTEN_COLUMN: F.when(rows | queries, rewritten),  # a transaction event is never rewritten
                COUNTED_REWRITE_COLUMN: F.when(rows, rewritten.isNotNull()).when(
                    queries, compiled_queries.rewrite_counted(rewritten, db_pre)
                ).otherwise(F.lit(False)),
                _SUBJECT: F.concat(subject_db, F.lit("."), table_key),
            }.items()
        }
        # each channel's branch in a method of its own (:mod:`.own_method`), in a GREATEST (each
        # branch is NULL except on its channel's rows, so the one non-NULL part wins): one CASE
        # over the four channels of the bench input made a 9,959-byte method that ran
        # interpreted (17.9 JVM CPU s per 4 M events against 3.7 for a pass-through)
        channel = F.col(_CHANNEL)
        db_key_col, subject = F.col(_DB_KEY), F.col(_SUBJECT)
        parts = [F.when(channel == -1, F.lit(self.transaction_code))]
        for i, name in enumerate(self.channels):
            c, _ = self._compiled[name]
            first_code = self._first_code[name]
            sets = members(c, db_key_col, subject, self._joined)
            before, after = compiled_queries.conditions(c, F.col(_STAGE), first_code, first_code + len(_layout(c)))
            conditions = before + _database_conditions(c, sets, first_code) + after + _table_conditions(c, sets, first_code)
            parts.append(own_method(F.when(channel == i, _case(conditions, _table_tail(c, subject, first_code)))))
        covered = rows | transactions | queries
        return keys, first, _greatest(parts), own_method(self._rule()), covered

    def _rule(self) -> Column:
        """The deciding rule's text of a coded row: a constant per code (wild patterns), or
        the key the row matched, spelt as configured."""
        code = F.col(CODE_COLUMN)
        kinds = F.element_at(F.array(*[F.lit({None: 0, "db": 1, "table": 2}[o.rule_from]) for o in self.outcomes]), code)
        constants = F.element_at(F.array(*[F.lit(o.rule).cast("string") for o in self.outcomes]), code)
        spelt = {
            kind: _spelt(self._spellings.get(kind, {}), F.col(column))
            for kind, column in (("db", _DB_KEY), ("table", _SUBJECT))
        }
        return F.when(kinds == 1, spelt["db"]).when(kinds == 2, spelt["table"]).otherwise(constants)

    def counter_class(self) -> Column:
        """Per coded row: its COUNTER moves as one int (:func:`increments_of`)."""
        classes = [o.counter_class for o in self.outcomes]
        base = F.element_at(F.array(*[F.lit(k) for k in classes]), F.col(CODE_COLUMN))
        counted = F.element_at(
            F.array(*[F.lit(o.channel in self._compiled and self._compiled[o.channel][1]) for o in self.outcomes]),
            F.col(CODE_COLUMN),
        )
        rewrite = F.when(F.col(COUNTED_REWRITE_COLUMN), 1).otherwise(0)
        return F.when(counted, base + rewrite).otherwise(F.lit(0))

    def tally(self, df) -> Tally:
        """Count ``df``'s covered rows per outcome and counter class: one aggregate reading
        only the key columns, exact under task retries (a retried task's partial result
        replaces the failed one's), whose few rows are decoded here."""
        coded = self.with_code(df.where(self.covered(df)))
        grouped = coded.groupBy(CODE_COLUMN, self.counter_class().alias("cls")).count()
        result = Tally()
        for code, cls, n in grouped.collect():
            outcome = self.outcomes[code - 1]
            result.events += n
            if outcome.decision == "APPLY":
                result.applied += n
            else:
                result.skipped += n
            if cls:
                per_channel = result.counts.setdefault(outcome.channel, {})
                for ftype, k in increments_of(cls).items():
                    per_channel[ftype] = per_channel.get(ftype, 0) + k * n
        return result

    def decision_columns(self, spark=None) -> dict[str, Column]:
        """The four decision columns of a coded row (:meth:`with_code`). With ``spark`` (a
        classic session) the two constant arrays are one literal each, built in the JVM (a
        ``F.array`` of literals costs a py4j call an outcome)."""
        decisions = literals.string_array(spark, [o.decision for o in self.outcomes]) if spark is not None else None
        types = literals.string_array(spark, [o.filter_type for o in self.outcomes]) if spark is not None else None
        if decisions is None or types is None:
            decisions = F.array(*[F.lit(o.decision) for o in self.outcomes])
            types = F.array(*[F.lit(o.filter_type).cast("string") for o in self.outcomes])
        return {
            "decision": F.element_at(decisions, F.col(CODE_COLUMN)),
            "filter_type": F.element_at(types, F.col(CODE_COLUMN)),
            "filter_rule": F.col(RULE_COLUMN),
            "rewritten_db": F.col(REWRITTEN_COLUMN),
        }


@dataclass
class Tally:
    """What the covered rows of a frame add to a batch's statistics: rows, applied and skipped
    rows, and the COUNTER moves per channel and filter type."""

    events: int = 0
    applied: int = 0
    skipped: int = 0
    counts: dict[str, dict[FilterType, int]] = field(default_factory=dict)

    def add_to(self, decisions) -> None:
        """Add to a :class:`.transform.BatchDecisions` (its ``events``, ``applied``,
        ``skipped`` and ``counts``)."""
        decisions.events += self.events
        decisions.applied += self.applied
        decisions.skipped += self.skipped
        for channel, increments in self.counts.items():
            per_channel = decisions.counts.setdefault(channel, {})
            for ftype, n in increments.items():
                per_channel[ftype] = per_channel.get(ftype, 0) + n


def _map(mapping: Mapping[str, str]) -> Column:
    """A map literal: Spark looks a key up by a linear scan, so it is kept small
    (:data:`MAX_LOOKUP`)."""
    return F.create_map(*[F.lit(x) for pair in mapping.items() for x in pair])


def _lookup(mapping: Mapping[str, str], key: Column) -> Column:
    """``mapping[key]``, NULL when absent."""
    if not mapping:
        return F.lit(None).cast("string")
    return F.element_at(_map(mapping), key)


def _maps(mappings: list[Mapping[str, str]]) -> Column:
    """One small map per channel (:func:`_map`), as one constant array; an empty one is NULL."""
    return F.array(*[_map(m) if m else F.lit(None).cast("map<string,string>") for m in mappings])


def _spelt(irregular: Mapping[tuple[int, str], str], key: Column) -> Column:
    """A matched key as its rule is spelt: the key itself, unless a rule of that code is
    spelt otherwise (``DB1.T1`` under ``lower_case_table_names`` 1; few, :data:`MAX_LOOKUP`)."""
    if not irregular:
        return key
    joined = {f"{code}\u0000{k}": spelling for (code, k), spelling in irregular.items()}
    return F.coalesce(_lookup(joined, F.concat(F.col(CODE_COLUMN).cast("string"), F.lit("\u0000"), key)), key)


def _layout(c: CompiledFilters) -> list[tuple[str, FT | None, FT | None, FT | None, str | None, str | None]]:
    """One channel's row-event outcomes in the order decide_row reaches them: (verdict,
    deciding type, database type counted, table type counted, constant rule, where the rule
    text comes from). The codes of :func:`_database_conditions`, :func:`_table_conditions` and
    :func:`_table_tail` are ``first + index``; the query events' own follow
    (:func:`.compiled_queries.layout`)."""
    do = FT.DO_DB if c.do_db else None
    applied_db = (FT.DO_DB, "db") if do else (None, None)
    out = [
        ("SKIP", None, None, None, None, None),  # do-db rules, the database is not among them
        ("SKIP", FT.IGNORE_DB, FT.IGNORE_DB, None, None, "db"),  # an ignore-db hit
        ("APPLY", applied_db[0], do, None, None, applied_db[1]),  # no table rules
        ("APPLY", FT.DO_TABLE, do, FT.DO_TABLE, None, "table"),
        ("SKIP", FT.IGNORE_TABLE, do, FT.IGNORE_TABLE, None, "table"),
    ]
    out += [("APPLY", FT.WILD_DO_TABLE, do, FT.WILD_DO_TABLE, rule, None) for rule in c.wild_do.rules]
    out += [("SKIP", FT.WILD_IGNORE_TABLE, do, FT.WILD_IGNORE_TABLE, rule, None) for rule in c.wild_ignore.rules]
    out += [
        ("SKIP", None, do, None, None, None),  # no table rule matched, do-table rules exist
        ("APPLY", applied_db[0], do, None, None, applied_db[1]),  # no table rule matched, none exist
    ]
    return out


def _database_conditions(c: CompiledFilters, sets: Mapping[FT, Column], first: int) -> list[tuple[Column, int]]:
    """Table A's failing cases as (test, code): do-db hides ignore-db. ``sets``: each exact
    type's membership (:func:`.rule_sets.members`)."""
    if c.do_db:
        return [(~sets[FT.DO_DB], first)]
    if c.ignore_db:
        return [(sets[FT.IGNORE_DB], first + 1)]
    return []


def _table_conditions(c: CompiledFilters, sets: Mapping[FT, Column], first: int) -> list[tuple[Column, int]]:
    """Table C's exact hits as (test, code), do-table first; none when table rules are off."""
    if not c.table_rules_on:
        return []
    out = []
    if c.do_table:
        out.append((sets[FT.DO_TABLE], first + 3))
    if c.ignore_table:
        out.append((sets[FT.IGNORE_TABLE], first + 4))
    return out


def _table_tail(c: CompiledFilters, subject: Column, first: int) -> Column:
    """Table C after the exact sets: the wild rules (one combined test, which rule matched only
    on the rows it matched), then the defaults; ``first + 2`` when table rules are off."""
    if not c.table_rules_on:
        return F.lit(first + 2)
    wild_do, wild_ignore = len(c.wild_do.rules), len(c.wild_ignore.rules)
    tail: Column = F.lit(first + 5 + wild_do + wild_ignore + (0 if c.has_do_tables else 1))
    if wild_ignore:
        tail = first_match(c.wild_ignore.rules, c, subject, first + 5 + wild_do, tail)
    if wild_do:
        tail = first_match(c.wild_do.rules, c, subject, first + 5, tail)
    return tail


def _greatest(parts: list[Column], group: int = 8) -> Column:
    """``GREATEST(*parts)``, grouped by ``group`` into methods of their own: the code to
    compare each part with the others then grows with the groups, not the channels."""
    if len(parts) == 1:
        return parts[0]
    if len(parts) <= group:
        return F.greatest(*parts)
    groups = [parts[i : i + group] for i in range(0, len(parts), group)]
    return _greatest([own_method(F.greatest(*g)) if len(g) > 1 else g[0] for g in groups], group)


def _case(conditions: list[tuple[Column, int]], otherwise: Column) -> Column:
    """The code of the first condition that holds, else ``otherwise``."""
    if not conditions:
        return otherwise
    out = F.when(conditions[0][0], F.lit(conditions[0][1]))
    for condition, number in conditions[1:]:
        out = out.when(condition, F.lit(number))
    return out.otherwise(otherwise)


_EXPRESSIONS: OrderedDict = OrderedDict()
"""Built expressions (:meth:`CompiledRules.build_expressions`) of the last few rule sets, by
Spark context, signature and schema flag. Keyed by the context, not the session: a stream's
micro-batches each come in a session of their own (a clone), and column expressions are JVM
objects of the context's gateway, valid in any of its sessions (keyed by session, a stream
built them again every batch: ~0.55 s a batch). Each entry holds its context, so its identity
is not reused while the entry lives."""
_MAX_EXPRESSIONS = 8
_LOCK = threading.Lock()  # streams may decide batches from several threads


def _expressions(rules: CompiledRules, spark, unknown_field: bool) -> tuple[dict[str, Column], dict[str, Column], Column, Column, Column]:
    """``rules.build_expressions(unknown_field)``, built once per Spark context and signature."""
    context = getattr(spark, "_sc", None) or spark
    key = (id(context), rules.signature, unknown_field)
    with _LOCK:
        found = _EXPRESSIONS.get(key)
        if found is not None and found[0] is context:
            _EXPRESSIONS.move_to_end(key)
            return found[1]
    built = rules.build_expressions(unknown_field)
    with _LOCK:
        _EXPRESSIONS[key] = (context, built)
        while len(_EXPRESSIONS) > _MAX_EXPRESSIONS:
            _EXPRESSIONS.popitem(last=False)
    return built


def _has_unknown_field(df) -> bool:
    """Whether ``df``'s table entries have ``updating_unknown`` (schema.py: older frames do not)."""
    field = df.schema["tables"].dataType.elementType if "tables" in df.columns else None
    return field is not None and UPDATING_UNKNOWN in field.names


def _declines(c: CompiledFilters) -> str | None:
    """Why a channel's rules are left to the exact path, or None."""
    for ftype, rules in ((FT.DO_DB, c.do_db), (FT.IGNORE_DB, c.ignore_db), (FT.DO_TABLE, c.do_table), (FT.IGNORE_TABLE, c.ignore_table)):
        if len(rules) > MAX_JOINED_RULES:
            return f"{len(rules):,} {ftype.keyword} rules (more than {MAX_JOINED_RULES:,})"
        irregular = sum(1 for k, spelling in rules.items() if k != spelling)
        if irregular > MAX_LOOKUP:
            return f"{irregular:,} {ftype.keyword} rules spelt unlike their key (more than {MAX_LOOKUP})"
    for ftype, wild in ((FT.WILD_DO_TABLE, c.wild_do), (FT.WILD_IGNORE_TABLE, c.wild_ignore)):
        if len(wild.rules) > MAX_WILD_RULES:
            return f"{len(wild.rules):,} {ftype.keyword} rules (more than {MAX_WILD_RULES})"
    if len(c._first_rewrite) > MAX_LOOKUP:
        return f"{len(c._first_rewrite):,} {FT.REWRITE_DB.keyword} rules (more than {MAX_LOOKUP})"
    if any(not dst.isascii() for _src, dst in c._first_rewrite.values()):
        return f"a {FT.REWRITE_DB.keyword} rule rewrites to a name that is not ASCII"
    return None


def compile_rules(state: ReplicaState) -> CompiledRules:
    """Compile every channel of ``state`` (each with the filters the evaluator decides its
    events with); channels the compiler declines are listed with the reason."""
    channels: list[str] = []
    declined: dict[str, str] = {}
    compiled: dict[str, tuple[CompiledFilters, bool]] = {}
    outcomes: list[Outcome] = []
    first_code: dict[str, int] = {}
    spellings: dict[str, dict[tuple[int, str], str]] = {}
    joined = JoinedSets()
    signature: list = []
    for name in state.channel_names:
        c = compile_filters(channel_filters(state, name), state.collation)
        reason = _declines(c)
        if reason is not None:
            declined[name] = reason
            continue
        channel = state.channel(name)
        compiled[name] = (c, channel is not None and channel.configured)
        signature.append((name, rules_key(channel_filters(state, name), state.collation), compiled[name][1]))
        joined = joined.with_channel(c, len(channels))
        channels.append(name)
        first_code[name] = len(outcomes) + 1
        for verdict, ftype, db_type, table_type, rule, rule_from in _layout(c) + compiled_queries.layout(c):
            code = len(outcomes) + 1
            outcomes.append(
                Outcome(verdict, ftype.keyword if ftype else None, _class_of(db_type, table_type), name, rule, rule_from)
            )
            names = {"db": c.do_db if ftype is FT.DO_DB else c.ignore_db, "table": c.do_table if ftype is FT.DO_TABLE else c.ignore_table}
            if rule_from is not None:
                for key, spelling in names[rule_from].items():
                    if key != spelling:
                        spellings.setdefault(rule_from, {})[(code, key)] = spelling
    outcomes.append(Outcome("APPLY", None, 0, ""))  # transaction events (transaction_code)
    return CompiledRules(
        tuple(channels), declined, state.channel_names, outcomes, state.collation.case_insensitive, first_code,
        spellings, compiled, joined, (tuple(signature), tuple(declined), state.channel_names, state.collation.lower_case_table_names),
    )


__all__ = [
    "CODE_COLUMN", "COUNTED_REWRITE_COLUMN", "CompiledRules", "MAX_JOINED_RULES", "MAX_LOOKUP", "MAX_SET_RULES", "MAX_WILD_RULES",
    "compile_rules", "increments_of", "is_ascii",
]
