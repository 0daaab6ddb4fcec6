"""The two replfilter statements that are not MySQL: EXPLAIN REPLICATION and REPLAY EVENTS.

They answer what MySQL cannot: "would this statement replicate on channel X, under STATEMENT and
under ROW format, and which rule decides?", and "what would my filters do with this stream of
events?". Both use the reference evaluator, so their answers are the ones the Spark runtime gives.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from ..dialect import ast
from ..core.errors import ER, Condition, MySQLError
from .applier_errors import last_sql_error
from .event_lines import LineResult, evaluate_lines, tally
from .explain import explain_sql
from ..core.results import ResultSet
from ..replica.state import ReplicaState

EXPLAIN_COLUMNS = ("Channel", "Format", "Event", "Decision", "Filter", "Rule", "Rewritten_DB", "Reason", "Applier_error")
REPLAY_COLUMNS = ("Channel", "Decision", "Events")
MAX_REPLAY_WARNINGS = 64  # MySQL's max_error_count default is 1024; keep SHOW WARNINGS readable


def explain_replication(state: ReplicaState, stmt: ast.ExplainReplication) -> ResultSet:
    """One row per channel, format and derived event, in channel order then format order."""
    from .sql.logged_events import SqlEventsError  # sqlglot loads on first use, not at start-up

    if stmt.channel is not None and state.channel(stmt.channel) is None:
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, stmt.channel)
    try:
        rows = explain_sql(
            state,
            stmt.sql,
            default_db=stmt.default_db or "",
            binlog_formats=stmt.formats,
            channels=None if stmt.channel is None else [stmt.channel],
        )
    except SqlEventsError as error:
        raise MySQLError.of(ER.WRONG_ARGUMENTS, f"EXPLAIN REPLICATION ({error})") from None
    if not rows:  # no statement at all: what the server answers to an empty query
        raise MySQLError.of(ER.EMPTY_QUERY)
    result_rows = []
    for row in sorted(rows, key=lambda r: r.channel.encode("utf-8")):  # stable: formats keep their order
        decision = row.decision
        reason = decision.reason if decision is not None else (row.reason or "")
        if row.note:
            reason = f"{reason}; {row.note}" if reason else row.note
        result_rows.append((
            row.channel,
            row.binlog_format,
            row.event_text,
            decision.decision.value if decision is not None and decision.decision is not None else None,
            decision.filter_type.keyword if decision is not None and decision.filter_type else None,
            decision.rule if decision is not None else None,
            decision.rewritten_db if decision is not None else None,
            reason,
            row.applier_error,
        ))
    return ResultSet(EXPLAIN_COLUMNS, tuple(result_rows))


def replay_events(
    state: ReplicaState, stmt: ast.ReplayEvents, lines: Iterable[str], now_us: int = 0
) -> tuple[ResultSet, ReplicaState]:
    """Decide every event of the file on its channel (or on ``stmt.channel``), move the
    COUNTERs, and return counts per channel and decision in channel order. Bad lines become
    warnings naming file and line and do not stop the replay. When a schema is known, the
    first event per channel that the applier would stop on sets that channel's
    ``Last_SQL_Errno``/``Last_SQL_Error`` (SHOW REPLICA STATUS); the replay still decides the
    events after it, as the filters would. ``now_us`` stamps that error
    (``Last_SQL_Error_Timestamp``)."""
    if stmt.channel is not None and state.channel(stmt.channel) is None:
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, stmt.channel)
    results, new_state = evaluate_lines(state, lines, stmt.channel)
    new_state = _with_applier_errors(new_state, results, now_us)
    errors = [f"line {result.line}: {result.error}" for result in results if result.error is not None]
    warnings = [_bad_event(f"{stmt.path}: {error}") for error in errors[:MAX_REPLAY_WARNINGS]]
    if len(errors) > MAX_REPLAY_WARNINGS:
        warnings.append(_bad_event(f"{stmt.path}: {len(errors) - MAX_REPLAY_WARNINGS} more bad lines"))
    counts = sorted(tally(results).items(), key=lambda item: (item[0][0].encode("utf-8"), item[0][1] or ""))
    rows = tuple((channel, decision, n) for (channel, decision), n in counts)
    return ResultSet(REPLAY_COLUMNS, rows, tuple(warnings)), new_state


def _bad_event(text: str) -> Condition:
    """Warning 1525 in its message shape, but whole: MySQL's ``%-.128s`` would cut the text
    before its useful end (which field, and why), and this message is replfilter's own."""
    return Condition("Warning", ER.WRONG_VALUE.code, f"Incorrect event value: '{text}'")


def _with_applier_errors(state: ReplicaState, results: Iterable[LineResult], now_us: int) -> ReplicaState:
    """Each channel's first applier error, as its SQL thread's last error."""
    seen: set[str] = set()
    for result in results:
        if result.applier_error is None or result.event is None or result.event.channel in seen:
            continue
        seen.add(result.event.channel)
        channel = state.channel(result.event.channel)
        if channel is not None:
            error = (result.applier_error.code, last_sql_error(result.event, result.applier_error))
            state = state.with_channel(replace(channel, last_sql_error=error, last_sql_error_at=now_us))
    return state
