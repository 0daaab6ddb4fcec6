"""One replication filter object: the seven rule types, each with its rules and statistics.

This mirrors MySQL's ``Rpl_filter``: a fixed order of types used for setting, showing and
counting, rules stored per type with that type's duplicate policy, and per-type statistics
(CONFIGURED_BY, ACTIVE_SINCE, COUNTER). Everything here is immutable: a change makes a new
object, which is what lets a failing statement leave the replica exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Iterable, Iterator


class FilterType(Enum):
    """The seven types in MySQL's fixed order (P_S rows, setters and display all use it)."""

    DO_DB = "REPLICATE_DO_DB"
    IGNORE_DB = "REPLICATE_IGNORE_DB"
    DO_TABLE = "REPLICATE_DO_TABLE"
    IGNORE_TABLE = "REPLICATE_IGNORE_TABLE"
    WILD_DO_TABLE = "REPLICATE_WILD_DO_TABLE"
    WILD_IGNORE_TABLE = "REPLICATE_WILD_IGNORE_TABLE"
    REWRITE_DB = "REPLICATE_REWRITE_DB"

    @property
    def keyword(self) -> str:
        """The statement keyword and P_S FILTER_NAME, e.g. ``REPLICATE_DO_DB``."""
        return self.value

    @property
    def option(self) -> str:
        """The startup option name, e.g. ``replicate-do-db``."""
        return self.value.lower().replace("_", "-")

    @property
    def status_column(self) -> str:
        """The SHOW REPLICA STATUS column, e.g. ``Replicate_Do_DB``."""
        return {
            FilterType.DO_DB: "Replicate_Do_DB",
            FilterType.IGNORE_DB: "Replicate_Ignore_DB",
            FilterType.DO_TABLE: "Replicate_Do_Table",
            FilterType.IGNORE_TABLE: "Replicate_Ignore_Table",
            FilterType.WILD_DO_TABLE: "Replicate_Wild_Do_Table",
            FilterType.WILD_IGNORE_TABLE: "Replicate_Wild_Ignore_Table",
            FilterType.REWRITE_DB: "Replicate_Rewrite_DB",
        }[self]

    @property
    def is_table_type(self) -> bool:
        """Exact or wild table rules: adding one turns on MySQL's ``is_on()`` table-rule flag."""
        return self in (
            FilterType.DO_TABLE,
            FilterType.IGNORE_TABLE,
            FilterType.WILD_DO_TABLE,
            FilterType.WILD_IGNORE_TABLE,
        )

    @classmethod
    def from_keyword(cls, word: str) -> "FilterType":
        return cls(word.upper())


FILTER_TYPES: tuple[FilterType, ...] = tuple(FilterType)


class ConfiguredBy(Enum):
    """P_S CONFIGURED_BY: how the rules of a type were last set."""

    STARTUP_OPTIONS = "STARTUP_OPTIONS"
    CHANGE_REPLICATION_FILTER = "CHANGE_REPLICATION_FILTER"
    STARTUP_OPTIONS_FOR_CHANNEL = "STARTUP_OPTIONS_FOR_CHANNEL"
    CHANGE_REPLICATION_FILTER_FOR_CHANNEL = "CHANGE_REPLICATION_FILTER_FOR_CHANNEL"


Rule = str | tuple[str, str]
"""A database name, a ``db.table`` key, a wild pattern, or a rewrite ``(from, to)`` pair."""


_CONTEXT_FREE = str.maketrans({"\u0130": "i", "\u03a3": "\u03c3"})


def fold_case(name: str) -> str:
    """Lower-case ``name`` one character for one character, as the server's ``my_casedn_str``
    (utf8mb3) does. That is ``str.lower`` except for its two special cases: ``İ`` (U+0130)
    becomes two characters there (``i`` + U+0307) and ``i`` on the server, and a word-final
    ``Σ`` becomes ``ς`` there and ``σ`` on the server (which has no context rules)."""
    if "\u0130" in name or "\u03a3" in name:
        name = name.translate(_CONTEXT_FREE)
    return name.lower()


@dataclass(frozen=True)
class NameCollation:
    """The table-alias collation of ``lower_case_table_names``.

    0 compares byte-exactly; 1 and 2 compare case-insensitively (MySQL: "case insensitive but
    accent sensitive"). Folding is :func:`fold_case`, a per-character lower-casing like the server's
    (``casefold`` would merge ``ß`` with ``ss`` and ``ς`` with ``σ``, which MySQL keeps apart);
    the evaluator, the wildcard matcher and the Spark runtime fold the same way.
    """

    lower_case_table_names: int = 0

    @property
    def case_insensitive(self) -> bool:
        return self.lower_case_table_names != 0

    def key(self, name: str) -> str:
        return fold_case(name) if self.case_insensitive else name

    def equal(self, a: str, b: str) -> bool:
        return self.key(a) == self.key(b)


def normalise_rules(ftype: FilterType, rules: Iterable[Rule], collation: NameCollation) -> tuple[Rule, ...]:
    """Apply the type's duplicate policy: tables collapse under the collation (first spelling
    kept, as MySQL's hash keeps the first insert); every other type keeps order and duplicates."""
    if ftype in (FilterType.DO_TABLE, FilterType.IGNORE_TABLE):
        seen: dict[str, str] = {}
        for rule in rules:
            assert isinstance(rule, str)
            seen.setdefault(collation.key(rule), rule)
        return tuple(seen.values())
    return tuple(rules)


def display_rules(ftype: FilterType, rules: tuple[Rule, ...]) -> str:
    """The SHOW REPLICA STATUS / P_S FILTER_RULE text (mysql-filter-statements.md, section 7.2): comma-joined, no
    escaping; table rules sorted by plain byte comparison; rewrite pairs as ``(from,to)``."""
    if ftype is FilterType.REWRITE_DB:
        return ",".join(f"({src},{dst})" for src, dst in rules)  # type: ignore[misc]
    if ftype in (FilterType.DO_TABLE, FilterType.IGNORE_TABLE):
        return ",".join(sorted(rules, key=lambda r: r.encode("utf-8")))  # type: ignore[union-attr]
    return ",".join(rules)  # type: ignore[arg-type]


@dataclass(frozen=True)
class TypeSlot:
    """The rules of one type plus the statistics P_S shows for it.

    ``active_since == 0`` means "never set": such a type has no P_S row.
    """

    rules: tuple[Rule, ...] = ()
    configured_by: ConfiguredBy | None = None
    active_since: int = 0  # microseconds since the epoch
    counter: int = 0

    @property
    def is_set(self) -> bool:
        return self.active_since != 0


@dataclass(frozen=True)
class FilterSet:
    """A filter object: one :class:`TypeSlot` per type, plus MySQL's table-rules-on flag.

    ``table_rules_on`` is ``Rpl_filter::is_on()``'s table part: it turns on the first time a
    table or wild rule is added and only a full reset (a brand-new filter object) clears it;
    emptying a type with ``()`` leaves it on. The evaluator's "no updating table" rule reads it.
    """

    slots: tuple[TypeSlot, ...] = field(default_factory=lambda: tuple(TypeSlot() for _ in FILTER_TYPES))
    table_rules_on: bool = False

    def __getitem__(self, ftype: FilterType) -> TypeSlot:
        return self.slots[FILTER_TYPES.index(ftype)]

    def rules(self, ftype: FilterType) -> tuple[Rule, ...]:
        return self[ftype].rules

    def items(self) -> Iterator[tuple[FilterType, TypeSlot]]:
        return zip(FILTER_TYPES, self.slots)

    @property
    def is_empty(self) -> bool:
        """No rule of any type (statistics may still be set)."""
        return not any(slot.rules for slot in self.slots)

    def with_slot(self, ftype: FilterType, slot: TypeSlot) -> "FilterSet":
        slots = list(self.slots)
        slots[FILTER_TYPES.index(ftype)] = slot
        turns_on = ftype.is_table_type and bool(slot.rules)
        return replace(self, slots=tuple(slots), table_rules_on=self.table_rules_on or turns_on)

    def set_type(
        self,
        ftype: FilterType,
        rules: Iterable[Rule],
        configured_by: ConfiguredBy,
        now_us: int,
        collation: NameCollation,
    ) -> "FilterSet":
        """Replace one type's rules and reset its statistics (MySQL ``set_*`` + ``set_all``)."""
        return self.with_slot(
            ftype, TypeSlot(normalise_rules(ftype, rules, collation), configured_by, now_us, 0)
        )

    def add_rule(
        self,
        ftype: FilterType,
        rule: Rule,
        configured_by: ConfiguredBy,
        now_us: int,
        collation: NameCollation,
    ) -> "FilterSet":
        """Append one rule, as each ``--replicate-*`` occurrence does; statistics reset."""
        return self.set_type(ftype, self.rules(ftype) + (rule,), configured_by, now_us, collation)

    def with_global_copy(self, global_filters: "FilterSet", now_us: int) -> "FilterSet":
        """MySQL ``copy_global_replication_filters``: each type this set has no rules of and the
        global set has rules of is copied, keeping the global CONFIGURED_BY; others untouched."""
        result = self
        for ftype, global_slot in global_filters.items():
            if global_slot.rules and not result.rules(ftype):
                result = result.with_slot(
                    ftype, TypeSlot(global_slot.rules, global_slot.configured_by, now_us, 0)
                )
        return result

    def with_counts(self, increments: dict[FilterType, int]) -> "FilterSet":
        """Counters moved by the applier (the evaluator); other statistics unchanged."""
        result = self
        for ftype, amount in increments.items():
            if amount:
                slot = result[ftype]
                result = result.with_slot(ftype, replace(slot, counter=slot.counter + amount))
        return result

    def display(self, ftype: FilterType) -> str:
        return display_rules(ftype, self.rules(ftype))


EMPTY_FILTERS = FilterSet()
