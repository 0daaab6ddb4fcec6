"""The filter rules prepared for lookups, and the three checks MySQL runs with them.

mysql-filter-evaluation.md, sections 3.1 and 3.3: Table A (``DB_OK``: do-db, else ignore-db),
Table B (``DB_OK_WITH_WILD``: a database statement against the wild rules, Bug #46110) and
Table C (``TABLES_OK``: the first updating table that hits a rule decides). Each check reports
its outcome, the deciding filter type and rule, and a reason, and records the COUNTER moves in
a :class:`Trace`; :mod:`.evaluator` composes them into decisions per event.
"""

from __future__ import annotations

from dataclasses import replace
from enum import Enum
from functools import lru_cache
from typing import Any, Iterable

from ..core.filters import FilterSet, FilterType, NameCollation, fold_case
from ..core.wildcard import WildList

FT = FilterType


class Verdict(str, Enum):
    """APPLY or SKIP; a ``str`` so ``decision == "APPLY"`` reads naturally."""

    APPLY = "APPLY"
    SKIP = "SKIP"

    def __str__(self) -> str:
        return self.value


APPLY = Verdict.APPLY
SKIP = Verdict.SKIP


# --- compiled rules ------------------------------------------------------------------------


class CompiledFilters:
    """One filter set prepared for fast lookups under one collation.

    Exact table rules become a dict keyed by the collation key of the whole ``db.table``
    string (as MySQL's hash is), wild rules one alternation regex per type, db rules a dict of
    collation key -> first configured spelling.
    """

    __slots__ = (
        "collation", "ci", "key", "do_db", "ignore_db", "do_table", "ignore_table",
        "wild_do", "wild_ignore", "rewrite", "table_rules_on", "has_db_rules", "has_do_tables",
        "_first_rewrite",
    )

    def __init__(self, filters: FilterSet, collation: NameCollation):
        self.collation = collation
        self.ci = collation.case_insensitive
        # ``key`` is NameCollation.key; the hot paths inline it as ``fold_case(x) if ci else x``.
        self.key = collation.key
        self.do_db = self._names(filters.rules(FT.DO_DB))
        self.ignore_db = self._names(filters.rules(FT.IGNORE_DB))
        self.do_table = self._names(filters.rules(FT.DO_TABLE))
        self.ignore_table = self._names(filters.rules(FT.IGNORE_TABLE))
        self.wild_do = WildList(filters.rules(FT.WILD_DO_TABLE), collation)  # type: ignore[arg-type]
        self.wild_ignore = WildList(filters.rules(FT.WILD_IGNORE_TABLE), collation)  # type: ignore[arg-type]
        self.rewrite: tuple[tuple[str, str, str], ...] = tuple(
            (self.key(src), src, dst) for src, dst in filters.rules(FT.REWRITE_DB)  # type: ignore[misc]
        )
        self._first_rewrite: dict[str, tuple[str, str]] = {}  # from key -> the first rule naming it
        for src_key, src, dst in self.rewrite:
            self._first_rewrite.setdefault(src_key, (src, dst))
        self.table_rules_on = filters.table_rules_on
        self.has_db_rules = bool(self.do_db or self.ignore_db)
        self.has_do_tables = bool(self.do_table or self.wild_do)

    def with_wild_lists(self, wild_do: Any, wild_ignore: Any) -> "CompiledFilters":
        """The same filters deciding with other wild lists (anything with ``first_match`` and
        truth as :class:`WildList` has): a caller that already knows which patterns match a
        name -- the lint, deciding 50,000 schema tables -- decides it without the alternation."""
        other = object.__new__(CompiledFilters)
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        other.wild_do, other.wild_ignore = wild_do, wild_ignore
        other.has_do_tables = bool(self.do_table or wild_do)
        return other

    def _names(self, rules: Iterable[Any]) -> dict[str, str]:
        names: dict[str, str] = {}
        for rule in rules:
            names.setdefault(self.key(rule), rule)
        return names

    def rewrite_db(self, db: str) -> tuple[str, str] | None:
        """First rule whose ``from`` equals ``db`` under the collation -> (from, to); no chaining."""
        if self.rewrite:
            return self._first_rewrite.get(fold_case(db) if self.ci else db)
        return None


def rules_key(filters: FilterSet, collation: NameCollation) -> tuple:
    """What compilation depends on: the rules, the is_on flag, the collation (not counters)."""
    return (tuple(slot.rules for slot in filters.slots), filters.table_rules_on, collation.lower_case_table_names)


@lru_cache(maxsize=512)
def _compile_cached(key: tuple) -> CompiledFilters:
    rules, on, lctn = key
    filters = FilterSet()
    slots = tuple(replace(slot, rules=r) for slot, r in zip(filters.slots, rules))
    return CompiledFilters(replace(filters, slots=slots, table_rules_on=on), NameCollation(lctn))


def compile_filters(filters: FilterSet, collation: NameCollation) -> CompiledFilters:
    """Compile (cached by rules, not by counters, so moving counters does not recompile)."""
    return _compile_cached(rules_key(filters, collation))


# --- the primitive predicates (mysql-filter-evaluation.md, section 3.1) ----------------------


class Trace:
    """Mutable scratch for one evaluation: counters moved and the db-level do match."""

    __slots__ = ("counts", "do_db_rule")

    def __init__(self) -> None:
        self.counts: dict[FilterType, int] = {}
        self.do_db_rule: str | None = None

    def bump(self, ftype: FilterType) -> None:
        self.counts[ftype] = self.counts.get(ftype, 0) + 1


def db_ok(c: CompiledFilters, db: str, trace: Trace) -> tuple[bool, FilterType | None, str | None, str]:
    """Table A: (passes, filter type, rule, reason). do-db, when present, hides ignore-db."""
    if c.do_db:
        rule = c.do_db.get(fold_case(db) if c.ci else db)
        if rule is not None:
            trace.bump(FT.DO_DB)
            trace.do_db_rule = rule
            return True, FT.DO_DB, rule, f"database {db!r} is in replicate-do-db"
        return False, None, None, f"database {db!r} is not in replicate-do-db"
    if c.ignore_db:
        rule = c.ignore_db.get(fold_case(db) if c.ci else db)
        if rule is not None:
            trace.bump(FT.IGNORE_DB)
            return False, FT.IGNORE_DB, rule, f"database {db!r} is in replicate-ignore-db"
    return True, None, None, "no do-db rules and no matching ignore-db rule"


def db_ok_with_wild(c: CompiledFilters, db: str, trace: Trace) -> tuple[Verdict, FilterType | None, str | None, str]:
    """Table B (Bug #46110): a database statement against wild rules, subject ``db + "."``."""
    subject = db + "."
    rule = c.wild_do.first_match(subject)
    if rule is not None:
        trace.bump(FT.WILD_DO_TABLE)
        return APPLY, FT.WILD_DO_TABLE, rule, f"{subject!r} matches replicate-wild-do-table"
    rule = c.wild_ignore.first_match(subject)
    if rule is not None:
        trace.bump(FT.WILD_IGNORE_TABLE)
        return SKIP, FT.WILD_IGNORE_TABLE, rule, f"{subject!r} matches replicate-wild-ignore-table"
    if c.wild_do:
        return SKIP, None, None, f"database statement: {subject!r} matches no replicate-wild-do-table rule"
    return APPLY, None, None, "database statement: no wild-do-table rules and no matching wild-ignore-table rule"


def tables_ok(
    c: CompiledFilters, tables: Iterable[tuple[str, str, bool | None]], trace: Trace
) -> tuple[Verdict | None, FilterType | None, str | None, str]:
    """Table C: the first updating table that hits a rule decides; then the defaults.

    A table whose updating flag is ``None`` (not known: it may own an unqualified SET column)
    is answered for both cases: if it would hit a rule, whether it decides depends on what is
    not known, and the verdict is ``None`` (undecided); if it would hit none, it decides nothing
    either way and only counts as "some table is updating" (one of a column's candidates is)."""
    saw_updating = False
    ci = c.ci
    for db, name, updating in tables:
        if updating is False:
            continue
        subject = f"{db}.{name}"
        hit = _table_hit(c, subject, fold_case(subject) if ci else subject)
        if hit is not None:
            if updating is None:
                return None, None, None, (
                    f"undecided: whether {subject!r} is updating is not known, and it decides "
                    f"the statement if it is ({hit[3]}): give the source's schema with `--schema`, "
                    "or qualify the SET columns"
                )
            trace.bump(hit[1])
            return hit
        saw_updating = True  # (an unknown one too: one of a column's candidates owns it)
    if not saw_updating:
        return SKIP, None, None, "the statement's table list has no updating table"
    if c.has_do_tables:
        return SKIP, None, None, "no table rule matched and do-table or wild-do-table rules exist"
    return APPLY, None, None, "no table rule matched and there are no do-table or wild-do-table rules"


def _table_hit(
    c: CompiledFilters, subject: str, key: str
) -> tuple[Verdict, FilterType, str, str] | None:
    """The rule one table would hit in Table C's order, without counting it."""
    rule = c.do_table.get(key) if c.do_table else None
    if rule is not None:
        return APPLY, FT.DO_TABLE, rule, f"table {subject!r} is in replicate-do-table"
    rule = c.ignore_table.get(key) if c.ignore_table else None
    if rule is not None:
        return SKIP, FT.IGNORE_TABLE, rule, f"table {subject!r} is in replicate-ignore-table"
    rule = c.wild_do.first_match(subject)
    if rule is not None:
        return APPLY, FT.WILD_DO_TABLE, rule, f"table {subject!r} matches replicate-wild-do-table"
    rule = c.wild_ignore.first_match(subject)
    if rule is not None:
        return SKIP, FT.WILD_IGNORE_TABLE, rule, f"table {subject!r} matches replicate-wild-ignore-table"
    return None
