"""SHOW BINLOG EVENTS / SHOW RELAYLOG EVENTS over a file, and REPLAY BINLOG (replfilter's own):
the statements that read binary and relay log files (:mod:`.binlog`).

SHOW ... EVENTS answers as 8.4 does (``sql/rpl_source.cc``, ``show_binlog_events``): the
columns ``Log_name, Pos, Event_type, Server_id, End_log_pos, Info``; ``FROM`` must be the start
of an event; a checksum failure or an unreadable event is error 1220 naming the file and
position. A truncated last event (a file still being written) ends the listing with a warning
naming where. EXPLAIN REPLICATION OF BINLOG 'file' AT pos explains the transaction holding the
event at ``pos``, as each channel would decide it, without moving COUNTERs. REPLAY BINLOG decides every event as REPLAY EVENTS does, moving the COUNTERs and
following the catalog; each problem in the file is a warning and the replay goes on.
"""

from __future__ import annotations

import os

from ..core.errors import ER, Condition, MySQLError
from ..core.results import ResultSet
from ..dialect import ast
from ..replica.state import ReplicaState
from .applier_errors import error_text
from .binlog.as_events import EventMapper, Mapped, mapped_items, transactions
from .binlog.decide import decide_files, decide_transaction
from .binlog.framing import NotABinlog, ReadProblem
from .binlog.reader import read_binlog
from .binlog.selection import Selection
from .binlog.show_events import COLUMNS, info, written_by_mariadb
from .event_lines import LineEvaluator
from .events import QueryEvent, RowEvent
from .explain import describe_event
from .extensions import EXPLAIN_COLUMNS, MAX_REPLAY_WARNINGS, REPLAY_COLUMNS, _bad_event, _with_applier_errors

BAD_MAGIC = "Binlog has bad magic number;  It's not a binary log file that can be used by this version of MySQL"


def show_log_events(state: ReplicaState, stmt: ast.ShowLogEvents) -> ResultSet:
    command = "SHOW RELAYLOG EVENTS" if stmt.relay else "SHOW BINLOG EVENTS"
    if stmt.channel is not None and state.channel(stmt.channel) is None:
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, stmt.channel)
    if stmt.path is None:  # replfilter writes no logs: as a server with none
        return ResultSet(COLUMNS, ())
    if not os.path.isfile(stmt.path):
        raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, command, "Could not find target log")
    start = stmt.position if stmt.position is not None else 4
    offset, limit = stmt.offset or 0, stmt.limit
    rows = []
    warnings: list[Condition] = []
    found_start = start == 4
    seen = 0
    mariadb = False
    try:
        for item in read_binlog(stmt.path, open_payloads=False):
            if isinstance(item, ReadProblem):
                if item.kind == "truncated":
                    warnings.append(Condition("Warning", 1220, f"{command}: {item.text()}"))
                    break
                raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, command, item.text())
            raw = item.raw
            mariadb = written_by_mariadb(item, mariadb)
            found_start = found_start or raw.pos == start
            if raw.pos < start:
                continue
            if not found_start:
                break
            if seen >= offset and (limit is None or len(rows) < limit):
                rows.append((raw.log_name, raw.pos, raw.type_name, raw.server_id, raw.log_pos, info(item, mariadb)))
            seen += 1
            if limit is not None and len(rows) >= limit:
                break
    except NotABinlog:
        raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, command, BAD_MAGIC) from None
    except OSError as exc:
        raise MySQLError.of(ER.CANT_OPEN_FILE, stmt.path, exc.errno or 0, exc.strerror or str(exc)) from None
    if not found_start and start < os.path.getsize(stmt.path):
        raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, command, "Wrong offset or I/O error")
    return ResultSet(COLUMNS, tuple(rows), tuple(warnings))


def replay_binlog(state: ReplicaState, stmt: ast.ReplayBinlog, now_us: int = 0) -> tuple[ResultSet, ReplicaState]:
    """Counts per channel and decision of the decided events, as REPLAY EVENTS gives them;
    ``now_us`` stamps an applier error (``Last_SQL_Error_Timestamp``)."""
    if stmt.channel is not None and state.channel(stmt.channel) is None:
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, stmt.channel)
    if not os.path.isfile(stmt.path):
        raise MySQLError.of(ER.FILE_NOT_FOUND, stmt.path, 2, "No such file or directory")
    evaluator = LineEvaluator(state, stmt.channel)
    selection = Selection(start_position=stmt.position or 4)
    results = []
    problems = []
    for result in decide_files(evaluator, [stmt.path], selection, channel=stmt.channel or ""):
        if result.problem is not None:
            if result.problem.kind == "not_binlog":
                raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, "REPLAY BINLOG", BAD_MAGIC)
            problems.append(result.problem.text())
        elif result.error is not None:
            problems.append(f"{result.item.source.raw.log_name}: at {result.item.source.raw.pos}: {result.error}")
        elif result.item is not None and result.item.event is not None:
            results.append(result)
    new_state = _with_applier_errors(evaluator.state(), results, now_us)
    warnings = [_bad_event(text) for text in problems[:MAX_REPLAY_WARNINGS]]
    if len(problems) > MAX_REPLAY_WARNINGS:
        warnings.append(_bad_event(f"{stmt.path}: {len(problems) - MAX_REPLAY_WARNINGS} more bad events"))
    counts = sorted(evaluator.counts.items(), key=lambda item: (item[0][0].encode("utf-8"), item[0][1] or ""))
    rows = tuple((channel, decision, n) for (channel, decision), n in counts)
    return ResultSet(REPLAY_COLUMNS, rows, tuple(warnings)), new_state


def explain_binlog(state: ReplicaState, stmt: ast.ExplainBinlog) -> ResultSet:
    """EXPLAIN REPLICATION's columns, one row per channel and decided event of the transaction
    holding the event at ``stmt.position`` (the event at that position marked ``<-``). Format is
    STATEMENT for a Query event, ROW for a Table_map and its rows events, NULL for the
    never-filtered ones; Event is the decided event and where it is in the file."""
    if stmt.channel is not None and state.channel(stmt.channel) is None:
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, stmt.channel)
    if not os.path.isfile(stmt.path):
        raise MySQLError.of(ER.FILE_NOT_FOUND, stmt.path, 2, "No such file or directory")
    if stmt.channel is not None:
        names = [stmt.channel]
    else:
        names = [c.name for c in state.configured_channels()] or list(state.channel_names)
    try:
        group = _transaction_at(stmt.path, stmt.position)
    except NotABinlog:
        raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, "EXPLAIN REPLICATION", BAD_MAGIC) from None
    except _Encrypted as err:  # no event past it can be found: say why, not "no event starts at"
        raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, "EXPLAIN REPLICATION", err.problem.text()) from None
    if group is None:
        raise MySQLError.of(ER.WRONG_ARGUMENTS, f"EXPLAIN REPLICATION (no event starts at {stmt.position} in '{stmt.path}')")
    rows = []
    for name in sorted(names, key=lambda n: n.encode("utf-8")):
        evaluator = LineEvaluator(state, name)  # its counters are thrown away: EXPLAIN moves none
        for result in decide_transaction(evaluator, group):
            if result.item is None or result.event is None:
                continue
            raw = result.item.source.raw
            event = result.event
            fmt = "STATEMENT" if isinstance(event, QueryEvent) else "ROW" if isinstance(event, RowEvent) else None
            where = f" ({raw.type_name} at {raw.pos}{' <-' if raw.pos == stmt.position else ''})"
            if result.item.row_count is not None:
                where = f" ({raw.type_name}, {result.item.row_count} rows, at {raw.pos}{' <-' if raw.pos == stmt.position else ''})"
            decision = result.decision
            rows.append((
                name, fmt, describe_event(event) + where,
                decision.decision.value if decision is not None and decision.decision is not None else None,
                decision.filter_type.keyword if decision is not None and decision.filter_type else None,
                decision.rule if decision is not None else None,
                decision.rewritten_db if decision is not None else None,
                decision.reason if decision is not None else "",
                None if result.applier_error is None else error_text(result.applier_error),
            ))
    return ResultSet(EXPLAIN_COLUMNS, tuple(rows))


class _Encrypted(Exception):
    def __init__(self, problem: ReadProblem):
        super().__init__(problem.message)
        self.problem = problem


def _until_encrypted(items):
    for item in items:
        if isinstance(item, ReadProblem) and item.kind == "encrypted":
            raise _Encrypted(item)
        yield item


def _transaction_at(path: str, position: int):
    """The transaction holding the event that starts at ``position``, or None; raises
    :class:`_Encrypted` when the file is encrypted before it is found."""
    for group in transactions(mapped_items(_until_encrypted(read_binlog(path)), EventMapper())):
        if any(isinstance(item, Mapped) and item.source.raw.pos == position for item in group.items):
            return group
    return None
