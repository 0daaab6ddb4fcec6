"""What every check reads: one channel's effective filters, and the helpers that build fixes
and try examples against them.

A check never decides an event itself: it asks the reference evaluator (via :meth:`View.outcome`)
how the configuration and the fixed configuration treat the example it quotes, so a message
never claims a verdict the evaluator would not give.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..core.filters import FilterSet, FilterType, NameCollation, Rule
from ..evaluation.evaluator import Decision, decide
from ..evaluation.events import Event
from .findings import Fix

FT = FilterType


@dataclass(frozen=True)
class View:
    """One channel as the lint sees it. ``fix_channel`` is what a fix's FOR CHANNEL names:
    None for a channel that is not configured (its rules are the global ones)."""

    channel: str
    filters: FilterSet
    collation: NameCollation
    fix_channel: str | None
    configured: bool = True
    _keys: dict = field(default_factory=dict, compare=False, repr=False)

    def rules(self, ftype: FilterType) -> tuple[Rule, ...]:
        return self.filters.rules(ftype)

    def key(self, name: str) -> str:
        return self.collation.key(name)

    def keys(self, ftype: FilterType) -> frozenset[str]:
        """Collation keys of a name or table type's rules (cached: checks ask often)."""
        found = self._keys.get(ftype)
        if found is None:
            found = self._keys[ftype] = frozenset(self.key(str(r)) for r in self.rules(ftype))
        return found

    # --- fixes -----------------------------------------------------------------------------

    def fix(self, changes: dict[FilterType, Iterable[Rule]]) -> Fix:
        """A fix setting each given type to the given list (duplicates dropped, order kept)."""
        types = []
        for ftype in FilterType:  # MySQL's type order, so fixes print the same way every time
            if ftype in changes:
                types.append((ftype, _unique(changes[ftype], self.collation)))
        return Fix(self.fix_channel, tuple(types))

    def replaced(self, ftype: FilterType, old: Rule, new: Iterable[Rule]) -> tuple[Rule, ...]:
        """The type's list with ``old`` replaced, in place, by ``new``."""
        out: list[Rule] = []
        for rule in self.rules(ftype):
            if rule == old:
                out.extend(new)
            else:
                out.append(rule)
        return tuple(out)

    def without(self, ftype: FilterType, old: Rule) -> tuple[Rule, ...]:
        return self.replaced(ftype, old, ())

    def fixed_filters(self, fix: Fix) -> FilterSet:
        filters = self.filters
        for ftype, rules in fix.types:
            filters = filters.with_slot(ftype, type(filters[ftype])(rules=tuple(rules)))
        return filters

    # --- examples ----------------------------------------------------------------------------

    def outcome(self, event: Event, filters: FilterSet | None = None) -> Decision:
        return decide(self.filters if filters is None else filters, self.collation, event)


def _unique(rules: Iterable[Rule], collation: NameCollation) -> tuple[Rule, ...]:
    seen: set = set()
    out: list[Rule] = []
    for rule in rules:
        key = tuple(collation.key(part) for part in rule) if isinstance(rule, tuple) else collation.key(rule)
        if key not in seen:
            seen.add(key)
            out.append(rule)
    return tuple(out)


def verdict_text(decision: Decision) -> str:
    """``applied``, ``skipped``, or ``applied to b`` when a rewrite moved it."""
    text = "applied" if decision.applied else "skipped"
    if decision.rewritten_db is not None and decision.applied:
        text += f" to database {decision.rewritten_db!r}"
    return text


def table_db(rule: str) -> tuple[str, str]:
    """``db.t`` -> (``db``, ``t``): the text before the first dot is the database part, as the
    server records it (mysql-filter-evaluation.md, section 1)."""
    db, _, table = rule.partition(".")
    return db, table
