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
rule is compiled to cheap string tests (:func:`_like`: ``startsWith``,
``endsWith``, a fixed-position ``substring``, one ``locate``; a regular expression only when a
pattern needs one), a branch per rule, so the outcome code names the rule that matched first;
a type with more than :data:`MAX_CASE_RULES` patterns is one combined regular expression, and
on the rows it matched one more run of it with a group around each rule says which
(:func:`_which`). On the bench input (4 M events) each regular expression cost ~0.35 JVM CPU s,
and the outcome code alone fell from 8.8 to 5.1 JVM CPU s with string tests (a pass-through
3.7-4.0; one run each, load 13-17). Each channel's branch is its own generated method
(see :meth:`CompiledRules.with_code`): HotSpot does not compile a method of more than 8,000
bytes of bytecode, and one CASE over every channel's rules exceeded that. The Rule column of
a wild match is a constant per code. Rule
spellings that differ from their collation key (``DB1.T1`` under ``lower_case_table_names`` 1)
come from a small lookup, all others are the matched key itself. The database after rewrite is
one column of an inner projection, so it is computed once per row. Each row gets one outcome
code (:class:`Outcome`: verdict, filter type, counter class, rule); the decision columns are
``element_at`` on small literal arrays.

Where Spark and the evaluator could disagree, the rows go to the exact path (the reference
evaluator, :mod:`.transform`): names that are not plain ASCII (Java's and Python's lower-casing
differ on some letters — ß, ſ, K, İ, ı — and ``_`` is one byte under
``lower_case_table_names`` 0 but one UTF-16 unit in Java), channels the replica does not have,
NULL names and every event that is not a row event. A channel whose rules the compiler
declines (:data:`MAX_JOINED_RULES`, :data:`MAX_LOOKUP`, :data:`MAX_WILD_RULES`, a rewrite to a
name that is not ASCII) goes there whole; :attr:`CompiledRules.declined` says why.

ASCII names are exact here: for them ``lower`` in Spark, ``str.lower`` and the server's
``my_casedn_str`` agree; rule keys are the evaluator's own (``NameCollation.key``, computed in
Python), and a pattern is the evaluator's own regular expression (``like_to_regex``), whose
syntax means the same in Java: it escapes with a backslash only characters that are not
letters, and ``(?s)`` makes ``.`` match every character as ``re.DOTALL`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from pyspark.sql import Column
from pyspark.sql import functions as F

from ..core.filters import FilterType
from ..core.wildcard import like_to_regex
from ..evaluation.evaluator import channel_filters, compile_filters
from ..evaluation.events import TransactionKind
from ..evaluation.rule_checks import CompiledFilters
from ..replica.state import ReplicaState
from .rule_sets import MAX_SET_RULES, JoinedSets, members

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
_DB_KEY = "_rf_cdb"
_MARK = "\u00ff"
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


def is_ascii(name: Column) -> Column:
    """Whether a name is plain ASCII: one byte a character (cheap; NULL stays NULL)."""
    return F.length(name) == F.octet_length(name)


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

    def covered(self) -> Column:
        """True for every row this decides (:meth:`covered_rows`, :meth:`covered_transactions`)."""
        return self.covered_rows() | self.covered_transactions()

    @property
    def transaction_code(self) -> int:
        return len(self.outcomes)  # the last outcome, added by compile_rules

    def with_code(self, df) -> "object":
        """``df`` with :data:`CODE_COLUMN`, :data:`RULE_COLUMN` and :data:`REWRITTEN_COLUMN`
        (NULL on rows not :meth:`covered`). Three projections: the names' keys and the rewrite,
        then the outcome code, then the rule text; each computed once per row."""
        ci = self.ci
        db, table = F.col("db"), F.col("table")
        db_pre = F.lower(db) if ci else db
        table_key = F.lower(table) if ci else table
        channel_index = F.lit(None).cast("int")
        rewritten: Column = F.lit(None).cast("string")
        db_key: Column = db_pre
        for i, name in reversed(list(enumerate(self.channels))):
            c, _ = self._compiled[name]
            channel_index = F.when(F.col("channel") == name, F.lit(i)).otherwise(channel_index)
            if c.rewrite:
                dst = _lookup({k: d for k, (_s, d) in c._first_rewrite.items()}, db_pre)
                dst_key = _lookup({k: c.key(d) for k, (_s, d) in c._first_rewrite.items()}, db_pre)
                rewritten = F.when(F.col("channel") == name, dst).otherwise(rewritten)
                db_key = F.when(F.col("channel") == name, F.coalesce(dst_key, db_pre)).otherwise(db_key)
        first = df.withColumns(
            {
                _CHANNEL: F.when(self.covered_rows(), channel_index).when(self.covered_transactions(), F.lit(-1)),
                REWRITTEN_COLUMN: F.when(self.covered_rows(), rewritten),  # a transaction event is never rewritten
                _DB_KEY: db_key,
                _SUBJECT: F.concat(db_key, F.lit("."), table_key),
            }
        )
        if self._joined:
            first = self._joined.attach(first, F.col(_CHANNEL), {"db": F.col(_DB_KEY), "table": F.col(_SUBJECT)})
        # each channel's branch twice in a GREATEST (NULL except on its channel's rows, so the
        # one non-NULL part wins): subexpression elimination then evaluates it once, in a
        # method of its own. Whole-stage code generation does not split a CASE, and HotSpot
        # does not compile a method above 8,000 bytes of bytecode: one CASE over the four
        # channels of the bench input made a 9,959-byte method that ran interpreted (17.9 JVM
        # CPU s per 4 M events against 3.7 for a pass-through); split, the largest is 5,665.
        channel = F.col(_CHANNEL)
        parts = [F.when(channel == -1, F.lit(self.transaction_code))]
        for i, name in enumerate(self.channels):
            c, _ = self._compiled[name]
            sets = members(c, F.col(_DB_KEY), F.col(_SUBJECT), self._joined)
            branch = F.when(channel == i, _branch(c, sets, F.col(_SUBJECT), self._first_code[name]))
            parts += [branch, branch]
        coded = first.withColumn(CODE_COLUMN, F.greatest(*parts) if len(parts) > 1 else parts[0])
        dropped = (_CHANNEL, _DB_KEY, _SUBJECT, *(JoinedSets.bits_columns.values() if self._joined else ()))
        return coded.withColumn(RULE_COLUMN, self._rule()).drop(*dropped)

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
        rewrite = F.when(F.col(REWRITTEN_COLUMN).isNotNull(), 1).otherwise(0)
        return F.when(counted, base + rewrite).otherwise(F.lit(0))

    def tally(self, df) -> Tally:
        """Count ``df``'s covered rows per outcome and counter class: one aggregate reading
        only the key columns, exact under task retries (a retried task's partial result
        replaces the failed one's), whose few rows are decoded here."""
        coded = self.with_code(df.where(self.covered()))
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

    def decision_columns(self) -> dict[str, Column]:
        """The four decision columns of a coded row (:meth:`with_code`)."""
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


def _lookup(mapping: Mapping[str, str], key: Column) -> Column:
    """``mapping[key]`` (NULL when absent): a map literal, scanned linearly by Spark, so kept
    small (:data:`MAX_LOOKUP`)."""
    if not mapping:
        return F.lit(None).cast("string")
    items = [F.lit(x) for pair in mapping.items() for x in pair]
    return F.element_at(F.create_map(*items), key)


def _spelt(irregular: Mapping[tuple[int, str], str], key: Column) -> Column:
    """A matched key as its rule is spelt: the key itself, unless a rule of that code is
    spelt otherwise (``DB1.T1`` under ``lower_case_table_names`` 1; few, :data:`MAX_LOOKUP`)."""
    if not irregular:
        return key
    joined = {f"{code}\u0000{k}": spelling for (code, k), spelling in irregular.items()}
    return F.coalesce(_lookup(joined, F.concat(F.col(CODE_COLUMN).cast("string"), F.lit("\u0000"), key)), key)


MAX_CASE_RULES = 16
"""Patterns of one wild type tested one by one (:func:`_like`, a branch per rule); beyond, one
combined regular expression tests the row and :func:`_which` finds the rule."""


def _tokens(pattern: str) -> list[str | None]:
    """A LIKE pattern (its collation key) as characters, ``None`` for ``%`` and ``""`` for
    ``_``, with the escapes of :func:`~replfilter.core.wildcard.like_to_regex` (``\\x`` is a
    literal ``x``, a trailing lone ``\\`` itself) and runs of ``%`` collapsed."""
    out: list[str | None] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            out.append(pattern[i + 1])
            i += 2
            continue
        if ch == "%":
            if not out or out[-1] is not None:
                out.append(None)
        else:
            out.append("" if ch == "_" else ch)
        i += 1
    return out


def _runs(segment: list[str]) -> list[tuple[int, str]]:
    """A segment's literal runs as (offset, text); ``_`` (``""``) separates them."""
    runs: list[tuple[int, str]] = []
    for offset, ch in enumerate(segment):
        if ch == "":
            continue
        if runs and runs[-1][0] + len(runs[-1][1]) == offset:
            runs[-1] = (runs[-1][0], runs[-1][1] + ch)
        else:
            runs.append((offset, ch))
    return runs


def _like(pattern: str, subject: Column) -> Column | None:
    """``subject LIKE pattern`` for an ASCII subject as cheap string tests (``startsWith``,
    ``endsWith``, a fixed-position ``substring``, one ``locate``) instead of a regular
    expression, or None when the pattern needs one (two ``%``-free middle parts, or a ``_``
    between two ``%``). The subject is ASCII, so a character is a byte and ``_`` means the
    same under every collation; a pattern with a literal that is not ASCII matches nothing.

    The middle part is found at its leftmost place after the prefix: any later match would
    leave less room, so the leftmost one decides."""
    tokens = _tokens(pattern)
    if any(t and not t.isascii() for t in tokens):
        return F.lit(False)
    segments: list[list[str]] = [[]]
    for t in tokens:
        if t is None:
            segments.append([])
        else:
            segments[-1].append(t)
    length = F.length(subject)
    total = sum(len(seg) for seg in segments)
    if len(segments) == 1:
        tests = [length == total] + [F.substring(subject, o + 1, len(text)) == text for o, text in _runs(segments[0])]
        return _all(tests)
    first, middles, last = segments[0], segments[1:-1], segments[-1]
    if len(middles) > 1 or any("" in m for m in middles):
        return None
    tests = [length >= total] if total else []
    if first:
        if "" not in first:
            tests.append(subject.startswith("".join(first)))
        else:
            tests += [F.substring(subject, o + 1, len(text)) == text for o, text in _runs(first)]
    if last:
        if "" not in last:
            tests.append(subject.endswith("".join(last)))
        else:
            tests += [F.substring(subject, length - F.lit(len(last) - o - 1), len(text)) == text for o, text in _runs(last)]
    if middles:
        middle = "".join(middles[0])
        found = F.locate(middle, subject, len(first) + 1)
        tests += [found > 0, found + F.lit(len(middle) + len(last)) <= length + 1]
    return _all(tests)


def _all(tests: list[Column]) -> Column:
    if not tests:
        return F.lit(True)
    out = tests[0]
    for t in tests[1:]:
        out = out & t
    return out


def _combined(rules: tuple[str, ...], c: CompiledFilters) -> str:
    """One anchored Java regular expression matching what any of ``rules`` matches."""
    sources = "|".join(f"(?:{like_to_regex(c.key(rule))})" for rule in rules)
    return f"(?s)^(?:{sources})\\z"


def _first_match(rules: tuple[str, ...], c: CompiledFilters, subject: Column, code: int, otherwise: Column) -> Column:
    """``code + k`` for the first of ``rules`` (k from 0) that ``subject`` matches, else
    ``otherwise``: a branch per rule of cheap string tests (:func:`_like`) when the rules are
    few (:data:`MAX_CASE_RULES`), else one combined regular expression and :func:`_which`."""
    if len(rules) > MAX_CASE_RULES:
        test = subject.rlike(_combined(rules, c))
        return F.when(test, _which(rules, c, subject) + F.lit(code - 1)).otherwise(otherwise)
    out: Column | None = None
    for k, rule in enumerate(rules):
        key = c.key(rule)
        test = _like(key, subject)
        if test is None:
            test = subject.rlike(f"(?s)^(?:{like_to_regex(key)})\\z")
        out = F.when(test, F.lit(code + k)) if out is None else out.when(test, F.lit(code + k))
    return otherwise if out is None else out.otherwise(otherwise)


def _which(rules: tuple[str, ...], c: CompiledFilters, subject: Column) -> Column:
    """The 1-based number of the first of ``rules`` that ``subject`` matches, 0 for none: one
    run of the combined expression with a group around each rule, replaced by a marker that is
    not ASCII (never in a covered name) before each group, so the subject lands after as many
    markers as the matching rule's number (an unmatched subject is left as it is)."""
    grouped = "|".join(f"({like_to_regex(c.key(rule))})" for rule in rules)
    replacement = "".join(f"{_MARK}${k}" for k in range(1, len(rules) + 1))
    marked = F.regexp_replace(subject, f"(?s)^(?:{grouped})\\z", replacement)
    return F.position(subject, marked) - F.lit(1)


def _layout(c: CompiledFilters) -> list[tuple[str, FT | None, FT | None, str | None, str | None]]:
    """One channel's outcomes in the order decide_row reaches them: (verdict, deciding type,
    table type counted, constant rule, where the rule text comes from). The codes of
    :func:`_branch` are ``first + index``."""
    do = bool(c.do_db)
    applied_db = (FT.DO_DB, "db") if do else (None, None)
    out = [
        ("SKIP", None, None, None, None),  # do-db rules, the database is not among them
        ("SKIP", FT.IGNORE_DB, None, None, "db"),  # an ignore-db hit
        ("APPLY", applied_db[0], None, None, applied_db[1]),  # no table rules
        ("APPLY", FT.DO_TABLE, FT.DO_TABLE, None, "table"),
        ("SKIP", FT.IGNORE_TABLE, FT.IGNORE_TABLE, None, "table"),
    ]
    out += [("APPLY", FT.WILD_DO_TABLE, FT.WILD_DO_TABLE, rule, None) for rule in c.wild_do.rules]
    out += [("SKIP", FT.WILD_IGNORE_TABLE, FT.WILD_IGNORE_TABLE, rule, None) for rule in c.wild_ignore.rules]
    out += [
        ("SKIP", None, None, None, None),  # no table rule matched, do-table rules exist
        ("APPLY", applied_db[0], None, None, applied_db[1]),  # no table rule matched, none exist
    ]
    return out


def _branch(c: CompiledFilters, sets: Mapping[FT, Column], subject: Column, first: int) -> Column:
    """One channel's outcome code (see :func:`_layout`) as a column: Table A, then Table C;
    ``sets`` is the membership of each exact type (:func:`.rule_sets.members`)."""
    wild_do, wild_ignore = len(c.wild_do.rules), len(c.wild_ignore.rules)
    default = first + 5 + wild_do + wild_ignore + (0 if c.has_do_tables else 1)
    if not c.table_rules_on:
        tail: Column = F.lit(first + 2)
    else:
        tail = F.lit(default)
        # one combined expression tests every row that gets this far; which rule matched is
        # worked out only on the rows it matched
        if wild_ignore:
            tail = _first_match(c.wild_ignore.rules, c, subject, first + 5 + wild_do, tail)
        if wild_do:
            tail = _first_match(c.wild_do.rules, c, subject, first + 5, tail)
    conditions: list[tuple[Column, int]] = []
    if c.do_db:
        conditions.append((~sets[FT.DO_DB], first))
    elif c.ignore_db:
        conditions.append((sets[FT.IGNORE_DB], first + 1))
    if c.table_rules_on:
        if c.do_table:
            conditions.append((sets[FT.DO_TABLE], first + 3))
        if c.ignore_table:
            conditions.append((sets[FT.IGNORE_TABLE], first + 4))
    if not conditions:
        return tail
    branch = F.when(conditions[0][0], F.lit(conditions[0][1]))
    for condition, number in conditions[1:]:
        branch = branch.when(condition, F.lit(number))
    return branch.otherwise(tail)


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
    for name in state.channel_names:
        c = compile_filters(channel_filters(state, name), state.collation)
        reason = _declines(c)
        if reason is not None:
            declined[name] = reason
            continue
        channel = state.channel(name)
        compiled[name] = (c, channel is not None and channel.configured)
        joined.add_channel(c, len(channels))
        channels.append(name)
        first_code[name] = len(outcomes) + 1
        for index, (verdict, ftype, table_type, rule, rule_from) in enumerate(_layout(c)):
            do_matched = bool(c.do_db) and index != 0
            db_type = FT.DO_DB if do_matched else (FT.IGNORE_DB if index == 1 else None)
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
        spellings, compiled, joined,
    )


__all__ = ["CODE_COLUMN", "CompiledRules", "MAX_JOINED_RULES", "MAX_LOOKUP", "MAX_SET_RULES", "MAX_WILD_RULES", "compile_rules", "increments_of", "is_ascii"]
