"""What each channel would do with a statement: the rows of EXPLAIN REPLICATION.

The statement is turned into the events the source would log under each binlog format
(:mod:`.sql.logged_events`, with the channel's source schema when one was given), each event is
completed with what the replica's own objects say (the table of a DROP TRIGGER,
mysql-filter-evaluation.md, section 3.2, step 4) and decided by the reference evaluator without
moving any counter, so the answer is the one the applier (and the Spark runtime) gives. Where a
verdict needs what is not known, the row says so instead of guessing (``decision`` None).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from ..replica.state import ReplicaState
from .applier_errors import error_text
from .drop_trigger import decide_drop_trigger
from .evaluator import CompiledFilters, Decision, channel_filters, compile_filters, decide_compiled
from .undecided import unless_tables_matter
from .events import CommandKind, Event, QueryEvent, RowEvent, TransactionEvent
from .catalog.follow import CatalogFollower

_CREATES = frozenset({CommandKind.CREATE_TABLE, CommandKind.CREATE_VIEW, CommandKind.CREATE_TRIGGER,
                      CommandKind.CREATE_DB, CommandKind.CREATE_PROCEDURE, CommandKind.CREATE_FUNCTION,
                      CommandKind.CREATE_EVENT, CommandKind.CREATE_USER, CommandKind.CREATE_ROLE})


def describe_event(event: Event) -> str:
    """A short human-readable rendering, e.g. ``query INSERT db=d tables=[t*, e.s]``,
    ``rows d.t``, ``GTID u:1`` (``*`` marks an updating table, ``?`` one that may be)."""
    if isinstance(event, RowEvent):
        return f"rows {event.db}.{event.table}"
    if isinstance(event, QueryEvent):
        tables = ", ".join(
            f"{t.db + '.' if t.db is not None else ''}{t.table}{_MARK[t.updating]}" for t in event.tables
        )
        exists = " IF NOT EXISTS" if event.command in _CREATES else " IF EXISTS"
        flags = (" TEMPORARY" if event.temporary else "") + (exists if event.if_exists else "")
        return f"query {event.command._value_}{flags} db={event.default_db} tables=[{tables}]"
    if isinstance(event, TransactionEvent):
        return f"{event.kind._value_} {event.gtid}" if event.gtid else event.kind._value_
    raise TypeError(f"not an event: {event!r}")


_MARK = {True: "*", False: "", None: "?"}


@dataclass(frozen=True)
class ExplainRow:
    """One row of "would this statement replicate": per channel, format and derived event.

    ``event`` is None when nothing is logged, or (with ``unknown_rows``) when which tables get
    rows is not known; ``decision`` is then None. ``applier_error`` is the error the replica's
    applier would stop with (only when the replica's schema is known)."""

    channel: str
    binlog_format: str
    event: Event | None
    decision: Decision | None
    tables_known: bool
    note: str | None
    applier_error: str | None = None
    unknown_rows: tuple[tuple[str, str], ...] = ()
    reason: str | None = None

    @property
    def event_text(self) -> str:
        if self.event is not None:
            return describe_event(self.event)
        if self.unknown_rows:
            return "rows " + " or ".join(f"{db}.{table}" for db, table in self.unknown_rows) + " (not known)"
        return "(nothing logged)"


def explain_sql(
    state: ReplicaState,
    sql: str,
    default_db: str = "",
    binlog_formats: Sequence[str] = ("STATEMENT", "ROW"),
    channels: Sequence[str] | None = None,
) -> list[ExplainRow]:
    """Decide what each channel would do with ``sql`` (a statement or a script; ``USE`` is
    followed) under each format, without moving counters.

    ``channels`` defaults to every configured channel, or every channel when none is configured
    (a fresh replica has only the unconfigured default channel, whose filters startup options
    set). Statements that log nothing get one row with ``event=None``. Raises
    :class:`~replfilter.evaluation.sql.logged_events.SqlEventsError` for unreadable SQL and
    :class:`~.evaluator.UnknownChannelError` for a channel that does not exist.
    """
    from .sql.logged_events import analyse_script, derive_script  # local: sqlglot loads on first use, not at start-up

    if channels is None:
        names = [c.name for c in state.configured_channels()] or list(state.channel_names)
    else:
        names = list(channels)
    compiled = {name: compile_filters(channel_filters(state, name), state.collation) for name in names}
    rows: list[ExplainRow] = []
    analysed: dict[int, tuple] = {}  # per source catalog: the script is read once, not per format and channel
    for fmt in binlog_formats:
        for name in names:
            # the replica's catalog as the script's applied statements change it (CREATE TABLE t7;
            # INSERT INTO t7 is fine), each channel and format on its own copy
            follower = CatalogFollower(state.replica_catalog)
            source = state.source_catalog(name)
            script = analysed.get(id(source))
            if script is None:
                script = analysed[id(source)] = analyse_script(sql, default_db, source)
            for derived in derive_script(script, fmt, channel=name):
                fmt_name = derived.binlog_format.value
                if not derived.events and not derived.unknown_rows:
                    rows.append(ExplainRow(name, fmt_name, None, None, derived.tables_known, derived.note))
                for event in derived.events:
                    trigger = derived.analysis.trigger if derived.analysis is not None else None
                    if trigger is not None and isinstance(event, QueryEvent):
                        event, decision = decide_drop_trigger(event, trigger, compiled[name], follower)
                    else:
                        decision = decide_compiled(compiled[name], event)
                    if not derived.tables_known and trigger is None:
                        decision = unless_tables_matter(decision, event, compiled[name])
                    error = follower.run(event, decision)
                    rows.append(ExplainRow(
                        name, fmt_name, event, decision, derived.tables_known, derived.note,
                        error_text(error) if error is not None else None,
                    ))
                if derived.unknown_rows:
                    decision = _whichever(compiled[name], name, derived.unknown_rows)
                    rows.append(ExplainRow(
                        name, fmt_name, None, decision, False, derived.note, unknown_rows=derived.unknown_rows,
                        reason=None if decision is not None else (
                            "undecided: which of these tables get rows is not known, and their rows are decided "
                            "differently"
                        ),
                    ))
    return rows


def _whichever(compiled: CompiledFilters, channel: str, tables: Sequence[tuple[str, str]]) -> Decision | None:
    """The decision on the rows of whichever candidate tables get them, when it is the same for
    each (verdict, filter and rule); else None: the outcome depends on what is not known."""
    decisions = [decide_compiled(compiled, RowEvent(channel, db, table)) for db, table in tables]
    first = decisions[0]
    if any((d.decision, d.filter_type, d.rule) != (first.decision, first.filter_type, first.rule) for d in decisions):
        return None
    return replace(first, reason=f"whichever of them get rows: {first.reason}")
