"""Helpers shared by the Spark tests: hypothesis strategies for filter states and events, and
conversions between events and rows of the published schema."""

from __future__ import annotations

from hypothesis import strategies as st

from replfilter.evaluation.evaluator import apply_events
from replfilter.evaluation.events import (
    CommandKind,
    QueryEvent,
    RowEvent,
    TableRef,
    TransactionEvent,
    TransactionKind,
)
from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType
from replfilter.replica.state import Channel, ReplicaState, SourceSettings

CHANNELS = ("", "c1", "c2")
DBS = ("db1", "DB1", "db2", "d_b", "dxb", "rw", "Éb", "éb", "")
TABLES = ("t1", "T1", "t_1", "tx1", "t%", "a.b", "straße", "STRASSE")
FT = FilterType


def event_row(event, **extra) -> dict:
    """An event as a row dict of the published schema (plus ``extra`` columns)."""
    d = event.to_dict()
    row = {name: None for name in (
        "v", "type", "channel", "default_db", "command", "tables", "sql", "temporary", "if_exists",
        "db", "table", "kind", "gtid")}
    row.update(d)
    if row.get("tables"):  # a table whose updating flag is not known: the row form's own field
        row["tables"] = [{**t, "updating_unknown": True} if t["updating"] is None else t for t in row["tables"]]
    row.update(extra)
    return row


def takes_compiled_path(state, channels, event) -> bool:
    """Whether the compiled expressions decide ``event`` (spark_runtime/compiled_rules.py and
    compiled_queries.py say which events; ``channels``: the compiled ones), else the exact path."""
    from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent, TransactionEvent

    if isinstance(event, TransactionEvent):
        return event.channel in state.channel_names
    if event.channel not in channels:
        return False
    if isinstance(event, QueryEvent):
        from replfilter.evaluation.evaluator import channel_filters, compile_filters
        from replfilter.evaluation.events import DATABASE_COMMANDS

        c = compile_filters(channel_filters(state, event.channel), state.collation)
        if event.command in DATABASE_COMMANDS and not c.has_db_rules and (c.wild_do or c.wild_ignore):
            return False  # Table B's own tests: the exact path
        return (
            event.command is not CommandKind.DROP_TRIGGER
            and event.default_db.isascii()
            and len(event.tables) <= 1
            and all(t.updating is not None and t.table != "" and t.table.isascii() and (t.db is None or t.db.isascii()) for t in event.tables)
        )
    return isinstance(event, RowEvent) and event.db.isascii() and event.table.isascii()


# --- strategies ------------------------------------------------------------------------------

_db = st.sampled_from(DBS[:-1])
_table = st.sampled_from(TABLES)
_wild_db = st.sampled_from(("db%", "DB_", "d\\_b", "%", "db1", "d_b", "rw"))
_wild_table = st.sampled_from(("t%", "t\\_1", "%", "T1", "t_", "tx1", ""))
_rules = {
    FT.DO_DB: st.lists(_db, max_size=2),
    FT.IGNORE_DB: st.lists(_db, max_size=2),
    FT.DO_TABLE: st.lists(st.builds(lambda d, t: f"{d}.{t}", _db, _table), max_size=3),
    FT.IGNORE_TABLE: st.lists(st.builds(lambda d, t: f"{d}.{t}", _db, _table), max_size=3),
    FT.WILD_DO_TABLE: st.lists(st.builds(lambda d, t: f"{d}.{t}", _wild_db, _wild_table), max_size=3),
    FT.WILD_IGNORE_TABLE: st.lists(st.builds(lambda d, t: f"{d}.{t}", _wild_db, _wild_table), max_size=3),
    FT.REWRITE_DB: st.lists(st.tuples(_db, st.sampled_from(("rw", "db2", "RW", "db1"))), max_size=2),
}


@st.composite
def filter_sets(draw, lctn: int) -> FilterSet:
    from replfilter.core.filters import NameCollation

    collation = NameCollation(lctn)
    filters = FilterSet()
    for ftype in FT:
        if draw(st.booleans()):
            rules = draw(_rules[ftype])
            filters = filters.set_type(ftype, rules, ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL, 1, collation)
    return filters


@st.composite
def states(draw) -> ReplicaState:
    lctn = draw(st.sampled_from((0, 1)))
    state = ReplicaState.fresh(lctn).with_global_filters(draw(filter_sets(lctn)))
    for name in CHANNELS:
        if draw(st.integers(0, 3)) == 0:  # unconfigured: decided with the global rules
            channel = Channel(name)
        else:
            channel = Channel(name, source=SourceSettings(host="src"), filters=draw(filter_sets(lctn)))
        state = state.with_channel(channel)
    return state


_commands = st.sampled_from(list(CommandKind))
_table_refs = st.lists(
    st.builds(TableRef, st.none() | _db, _table, st.booleans()), max_size=3
).map(tuple)

events = st.one_of(
    st.builds(RowEvent, st.sampled_from(CHANNELS), _db, _table),
    st.builds(
        QueryEvent,
        channel=st.sampled_from(CHANNELS),
        default_db=st.sampled_from(DBS),
        command=_commands,
        tables=_table_refs,
        temporary=st.booleans(),
        if_exists=st.booleans(),
    ),
    st.builds(TransactionEvent, st.sampled_from(CHANNELS), st.sampled_from(list(TransactionKind)), st.none() | st.just("uuid:1")),
)

_maybe_updating_refs = st.lists(
    st.builds(TableRef, st.none() | _db, _table, st.none() | st.booleans()), max_size=3
).map(tuple)

events_maybe_updating = st.one_of(
    events,
    st.builds(
        QueryEvent,
        channel=st.sampled_from(CHANNELS),
        default_db=st.sampled_from(DBS),
        command=st.just(CommandKind.UPDATE_MULTI),
        tables=_maybe_updating_refs,
    ),
)
""":data:`events`, and multi-table UPDATEs some of whose tables may or may not be updating
(``updating=None``: an unqualified SET column's owner read without the source's schema)."""


def expected(state: ReplicaState, evs):
    """The reference: decision columns per event and the state with counters moved."""
    decisions, new_state = apply_events(state, evs)
    cols = [
        (d.decision.value, d.filter_type.keyword if d.filter_type else None, d.rule, d.rewritten_db)
        for d in decisions
    ]
    return cols, new_state
