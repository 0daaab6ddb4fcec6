"""Channels: global rules a channel does not get (RF401), per-channel startup rules that are
discarded (RF402), channels admitting the same tables (RF403; with the sources' schemas, and
RF404 for unfiltered channels, in :mod:`.checks_schema`). mysql-filter-statements.md sections
5.1-5.2 say how channels get rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from ..core.filters import ConfiguredBy, FilterType, Rule, display_rules
from ..replica.state import ReplicaState, is_group_replication_channel
from .context import View, table_db
from .findings import Finding, Fix
from .patterns import literal_db

FT = FilterType
_OWN = (ConfiguredBy.STARTUP_OPTIONS_FOR_CHANNEL, ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL)


def _rule_key(view: View, rule: Rule) -> object:
    if isinstance(rule, tuple):
        return tuple(view.key(part) for part in rule)
    return view.key(rule)


def check_global_not_inherited(state: ReplicaState, views: Sequence[View]) -> Iterator[Finding]:
    """RF401: a configured channel with its own rules of a type keeps them instead of the global
    ones of that type (replace per type)."""
    for view in views:
        channel = state.channel(view.channel)
        if channel is None or not channel.configured:
            continue
        for ftype in FilterType:
            global_rules = state.global_filters.rules(ftype)
            slot = channel.filters[ftype]
            if not global_rules or not slot.rules or slot.configured_by not in _OWN:
                continue
            own = {_rule_key(view, r) for r in slot.rules}
            missing = tuple(r for r in global_rules if _rule_key(view, r) not in own)
            if not missing:
                continue
            yield Finding(
                view.channel, "RF401",
                f"channel '{view.channel}' has its own {ftype.keyword} ({display_rules(ftype, slot.rules)}), so "
                f"the global {ftype.keyword} rules {display_rules(ftype, missing)} do not apply to it",
                ftype, None, Fix(view.channel, ((ftype, (*slot.rules, *missing)),)),
            )


@dataclass(frozen=True)
class StartupRuleRef:
    """A per-channel startup rule, as the lint needs it (channel, type, rule)."""

    channel: str
    ftype: FilterType
    rule: Rule


def check_discarded_channel_rules(state: ReplicaState, rules: Iterable[StartupRuleRef]) -> Iterator[Finding]:
    """RF402: per-channel startup rules for a channel that does not exist, is not configured,
    or is a group replication channel: mysqld discards them with a warning."""
    configured = [c.name for c in state.configured_channels()]
    for ref in rules:
        channel = state.channel(ref.channel)
        if is_group_replication_channel(ref.channel):
            why = f"'{ref.channel}' is a group replication channel, which may not have filters"
        elif channel is None:
            why = f"channel '{ref.channel}' does not exist"
        elif not channel.configured:
            why = f"channel '{ref.channel}' is not configured (no CHANGE REPLICATION SOURCE TO)"
        else:
            continue
        near = [name for name in configured if name.lower() == ref.channel.lower() and name != ref.channel]
        fix = None
        message = f"--{ref.ftype.option}={ref.channel}:... is discarded at start-up: {why}"
        if near:
            target = state.channel(near[0])
            assert target is not None
            message += f"; channel '{near[0]}' was probably meant (channel names are case-sensitive)"
            fix = Fix(near[0], ((ref.ftype, (*target.filters.rules(ref.ftype), ref.rule)),))
        yield Finding(ref.channel, "RF402", message + ".", ref.ftype, ref.rule, fix)


def _admitted_names(view: View) -> tuple[set[str], set[str], list[str]]:
    """(do-db keys, do-table keys, wild-do patterns) a channel admits by name."""
    return set(view.keys(FT.DO_DB)), set(view.keys(FT.DO_TABLE)), [str(r) for r in view.rules(FT.WILD_DO_TABLE)]


def _overlap(a: View, b: View) -> tuple[str, ...]:
    """Every name both channels admit, described (all of them: a finding names each shared
    database, not the first); empty when their do rules name nothing in common."""
    a_db, a_tab, a_wild = _admitted_names(a)
    b_db, b_tab, b_wild = _admitted_names(b)
    found: list[str] = []
    common = sorted(a_db & b_db)
    if common:
        found.append(f"database{'s' if len(common) > 1 else ''} {', '.join(repr(c) for c in common)} (REPLICATE_DO_DB on each)")
    common = sorted(a_tab & b_tab)
    if common:
        found.append(f"table{'s' if len(common) > 1 else ''} {', '.join(repr(c) for c in common)} (REPLICATE_DO_TABLE on each)")
    for tables, patterns, which, owner in ((a_tab, b_wild, b.channel, b), (b_tab, a_wild, a.channel, a)):
        if tables and patterns:
            index = owner.wild_index(FT.WILD_DO_TABLE)
            for table in sorted(tables):
                hit = index.first_match(table)
                if hit is not None:
                    found.append(f"table '{table}' (REPLICATE_DO_TABLE on one, REPLICATE_WILD_DO_TABLE '{hit}' on '{which}')")
    if a_wild and b_wild:
        for owner, patterns in ((a, b_wild), (b, a_wild)):
            index = owner.wild_index(FT.WILD_DO_TABLE)
            for pattern in patterns:
                hit = index.first_cover(pattern)
                if hit is not None:
                    found.append(f"the tables of '{pattern}' (REPLICATE_WILD_DO_TABLE on both: '{hit}' covers it)")
    for dbs, tables, patterns in ((a_db, b_tab, b_wild), (b_db, a_tab, a_wild)):
        for table in sorted(tables):
            if a.key(table_db(table)[0]) in dbs:
                found.append(f"table '{table}' (its database is in REPLICATE_DO_DB of the other channel)")
        for pattern in patterns:
            db = literal_db(pattern)
            if db is not None and a.key(db) in dbs:
                found.append(f"the tables of '{pattern}' (its database is in REPLICATE_DO_DB of the other channel)")
    return tuple(dict.fromkeys(found))


def check_shared_tables(views: Sequence[View]) -> Iterator[Finding]:
    """RF403: configured channels whose do rules admit the same names. Without a schema only
    what the rules name is compared (a channel without do rules admits whatever its source
    sends, which is not known here). Channels that share the same names (as every channel does
    under a global REPLICATE_DO_DB) are one finding naming them all, not one per pair."""
    configured = [v for v in views if v.configured]
    groups: dict[tuple[str, ...], list[str]] = {}
    for i, later in enumerate(configured):
        for earlier in configured[:i]:
            what = _overlap(earlier, later)
            if what:
                members = groups.setdefault(what, [])
                members.extend(c for c in (earlier.channel, later.channel) if c not in members)
    for what, channels in groups.items():
        names = " and ".join(repr(c) for c in channels) if len(channels) == 2 else (
            ", ".join(repr(c) for c in channels[:-1]) + f" and {channels[-1]!r}")
        yield Finding(
            channels[-1], "RF403",
            f"channels {names} {'both' if len(channels) == 2 else 'all'} admit {'; '.join(what)}: "
            f"if more than one of their sources sends them, two sources write them",
        )


__all__ = ["StartupRuleRef", "check_discarded_channel_rules", "check_global_not_inherited", "check_shared_tables"]
