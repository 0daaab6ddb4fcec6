"""What each channel would do with a statement: the rows of EXPLAIN REPLICATION.

The statement is turned into the events the source would log under each binlog format
(:mod:`.sql_events`), and each event is decided by the reference evaluator without moving any
counter, so the answer is the one the applier (and the Spark runtime) gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..replica.state import ReplicaState
from .evaluator import Decision, channel_filters, compile_filters, decide_compiled
from .events import Event, QueryEvent, RowEvent, TransactionEvent


def describe_event(event: Event) -> str:
    """A short human-readable rendering, e.g. ``query INSERT db=d tables=[t*, e.s]``,
    ``rows d.t``, ``GTID u:1`` (``*`` marks an updating table)."""
    if isinstance(event, RowEvent):
        return f"rows {event.db}.{event.table}"
    if isinstance(event, QueryEvent):
        tables = ", ".join(
            f"{t.db + '.' if t.db is not None else ''}{t.table}{'*' if t.updating else ''}" for t in event.tables
        )
        flags = (" TEMPORARY" if event.temporary else "") + (" IF EXISTS" if event.if_exists else "")
        return f"query {event.command._value_}{flags} db={event.default_db} tables=[{tables}]"
    if isinstance(event, TransactionEvent):
        return f"{event.kind._value_} {event.gtid}" if event.gtid else event.kind._value_
    raise TypeError(f"not an event: {event!r}")


@dataclass(frozen=True)
class ExplainRow:
    """One row of "would this statement replicate": per channel, format and derived event."""

    channel: str
    binlog_format: str
    event: Event | None
    decision: Decision | None
    tables_known: bool
    note: str | None

    @property
    def event_text(self) -> str:
        return describe_event(self.event) if self.event is not None else "(nothing logged)"


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
    :class:`~replfilter.evaluation.sql_events.SqlEventsError` for unreadable SQL and
    :class:`~replfilter.evaluation.evaluator.UnknownChannelError` for a channel that does not
    exist.
    """
    from .sql_events import script_events  # local: sqlglot loads on first use, not at start-up

    if channels is None:
        names = [c.name for c in state.configured_channels()] or list(state.channel_names)
    else:
        names = list(channels)
    compiled = {name: compile_filters(channel_filters(state, name), state.collation) for name in names}
    rows: list[ExplainRow] = []
    for fmt in binlog_formats:
        for name in names:
            for derived in script_events(sql, default_db, fmt, channel=name):
                fmt_name = derived.binlog_format.value
                if not derived.events:
                    rows.append(ExplainRow(name, fmt_name, None, None, derived.tables_known, derived.note))
                for event in derived.events:
                    decision = decide_compiled(compiled[name], event)
                    rows.append(ExplainRow(name, fmt_name, event, decision, derived.tables_known, derived.note))
    return rows


__all__ = ["ExplainRow", "describe_event", "explain_sql"]
