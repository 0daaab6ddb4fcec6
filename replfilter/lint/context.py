"""What every check reads: one channel's effective filters, and the helpers that build fixes
and try examples against them.

A check never decides an event itself: it asks the reference evaluator (via :meth:`View.outcome`)
how the configuration and the fixed configuration treat the example it quotes, so a message
never claims a verdict the evaluator would not give.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
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

    def wild_index(self, ftype: FilterType):
        """The type's patterns indexed for matching (cached per view)."""
        from .patterns import WildIndex

        found = self._keys.get(("index", ftype))
        if found is None:
            found = self._keys[("index", ftype)] = WildIndex(tuple(map(str, self.rules(ftype))), self.collation)
        return found

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
                types.append((ftype, self._unique(changes[ftype])))
        return Fix(self.fix_channel, tuple(types))

    def _unique(self, rules: Iterable[Rule]) -> tuple[Rule, ...]:
        """Duplicates (under the collation) dropped, first kept; linear, keys memoised per view
        (a 10,000-rule configuration builds thousands of fixes of long lists)."""
        if not self.collation.case_insensitive:
            return tuple(dict.fromkeys(rules))
        memo: dict = self._keys.setdefault("rule-keys", {})
        seen: set = set()
        out: list[Rule] = []
        for rule in rules:
            key = memo.get(rule)
            if key is None:
                key = memo[rule] = tuple(map(self.key, rule)) if isinstance(rule, tuple) else self.key(rule)
            if key not in seen:
                seen.add(key)
                out.append(rule)
        return tuple(out)

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

    def fixed_view(self, fix: Fix) -> "View":
        """The channel as it would be with ``fix`` applied: what a fix is checked on before it
        is offered (:mod:`.checks_reach`)."""
        return View(self.channel, self.fixed_filters(fix), self.collation, self.fix_channel, self.configured)

    # --- examples ----------------------------------------------------------------------------

    def outcome(self, event: Event, filters: FilterSet | None = None) -> Decision:
        """The evaluator's decision for ``event``, on the channel's filters or on ``filters``
        (a fixed variant), with the wild lists cut to what can matter (:func:`reduced`)."""
        chosen = self.filters if filters is None else filters
        return decide(reduced(chosen, event, self.collation), self.collation, event)


def _subjects(filters: FilterSet, event: Event, collation: NameCollation) -> list[str]:
    """Every ``db.table`` (and ``db.``) string a wild rule could be matched against while
    deciding ``event``: its databases before and after any rewrite."""
    from ..evaluation.events import QueryEvent, RowEvent

    def dbs(db: str) -> list[str]:
        out = [db]
        for source, target in filters.rules(FT.REWRITE_DB):  # type: ignore[misc]
            if collation.key(source) == collation.key(db):
                out.append(target)
        return out

    if isinstance(event, RowEvent):
        return [f"{db}.{event.table}" for db in dbs(event.db)]
    if isinstance(event, QueryEvent):
        defaults = dbs(event.default_db)
        subjects = [f"{db}." for db in defaults]
        for table in event.tables:
            for db in (defaults if table.db is None else [table.db]):
                subjects.append(f"{db}.{table.table}")
        return subjects
    return []


@lru_cache(maxsize=32)
def _index(patterns: tuple[str, ...], lower_case_table_names: int):
    from .patterns import WildIndex

    return WildIndex(patterns, NameCollation(lower_case_table_names))


def reduced(filters: FilterSet, event: Event, collation: NameCollation) -> FilterSet:
    """``filters`` with each wild list cut to the patterns that match one of the event's
    subjects (order kept) plus one that matches none, if any: a decision reads a wild list only
    through its first match and whether it is empty (mysql-filter-evaluation.md, section 3.1), so
    the decision is the same, and the evaluator compiles a handful of patterns, not thousands."""
    from ..core.filters import TypeSlot

    subjects = _subjects(filters, event, collation)
    result = filters
    for ftype in (FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE):
        rules = filters.rules(ftype)
        if len(rules) <= 8:
            continue
        index = _index(tuple(map(str, rules)), collation.lower_case_table_names)
        hits = {i for subject in subjects for i in index.match_indices(subject)}
        matched = sorted(hits)
        spare = next((i for i in range(len(rules)) if i not in hits), None)
        kept: list[Rule] = [rules[i] for i in matched] + ([rules[spare]] if spare is not None else [])
        result = result.with_slot(ftype, TypeSlot(tuple(kept)))
    return result




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
