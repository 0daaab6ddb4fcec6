"""SHOW BINLOG EVENTS / SHOW RELAYLOG EVENTS over a file, and REPLAY BINLOG (replfilter's own):
the statements that read binary and relay log files (:mod:`.binlog`).

SHOW ... EVENTS answers as 8.4 does (``sql/rpl_source.cc``, ``show_binlog_events``): the
columns ``Log_name, Pos, Event_type, Server_id, End_log_pos, Info``; ``FROM`` must be the start
of an event; a checksum failure or an unreadable event is error 1220 naming the file and
position. A truncated last event (a file still being written) ends the listing with a warning
naming where. REPLAY BINLOG decides every event as REPLAY EVENTS does, moving the COUNTERs and
following the catalog; each problem in the file is a warning and the replay goes on.
"""

from __future__ import annotations

import os

from ..core.errors import ER, Condition, MySQLError
from ..core.results import ResultSet
from ..dialect import ast
from ..replica.state import ReplicaState
from .binlog.decide import decide_files
from .binlog.framing import NotABinlog, ReadProblem
from .binlog.reader import BinlogEvent, read_binlog
from .binlog.selection import Selection
from .binlog.show_events import COLUMNS, info
from .event_lines import LineEvaluator
from .extensions import MAX_REPLAY_WARNINGS, REPLAY_COLUMNS, _bad_event, _with_applier_errors

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
    try:
        for item in read_binlog(stmt.path, open_payloads=False):
            if isinstance(item, ReadProblem):
                if item.kind == "truncated":
                    warnings.append(Condition("Warning", 1220, f"{command}: {item.text()}"))
                    break
                raise MySQLError.of(ER.ERROR_WHEN_EXECUTING_COMMAND, command, item.text())
            raw = item.raw
            found_start = found_start or raw.pos == start
            if raw.pos < start:
                continue
            if not found_start:
                break
            if seen >= offset and (limit is None or len(rows) < limit):
                rows.append((raw.log_name, raw.pos, raw.type_name, raw.server_id, raw.end_pos, info(item)))
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


def replay_binlog(state: ReplicaState, stmt: ast.ReplayBinlog) -> tuple[ResultSet, ReplicaState]:
    """Counts per channel and decision of the decided events, as REPLAY EVENTS gives them."""
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
    new_state = _with_applier_errors(evaluator.state(), results)
    warnings = [_bad_event(text) for text in problems[:MAX_REPLAY_WARNINGS]]
    if len(problems) > MAX_REPLAY_WARNINGS:
        warnings.append(_bad_event(f"{stmt.path}: {len(problems) - MAX_REPLAY_WARNINGS} more bad events"))
    counts = sorted(evaluator.counts.items(), key=lambda item: (item[0][0].encode("utf-8"), item[0][1] or ""))
    rows = tuple((channel, decision, n) for (channel, decision), n in counts)
    return ResultSet(REPLAY_COLUMNS, rows, tuple(warnings)), new_state
