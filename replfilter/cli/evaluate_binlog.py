"""``replfilter evaluate`` over binary and relay log files (recognised by their magic).

One JSON line per event the applier decides on: the fields of a JSON-lines result plus
``log_name``, ``pos``, ``end_log_pos``, ``event_type``, ``gtid``, ``transaction`` (the verdict of
the transaction holding the event) and, for rows events, ``rows`` (their count) and, with
``--rows``, ``values``. A problem in a file (bad checksum, an event that does not parse, a
truncated last event, a file that is not a binlog) is an ``{"log_name", "pos", "error"}`` line,
also on standard error, and the run goes on; the exit status is then 1. mysqlbinlog's
selections (``--start-position``... ``--exclude-gtids``) pick the events read.
"""

from __future__ import annotations

import argparse
import json
from typing import Sequence, TextIO

from ..evaluation.binlog.decide import Summary, decide_files
from ..evaluation.binlog.reader import is_binlog_file
from ..evaluation.binlog.selection import GtidSet, Selection, SelectionError, parse_datetime
from ..evaluation.event_lines import LineEvaluator


def add_binlog_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("binary and relay log files (as mysqlbinlog selects events)")
    group.add_argument("--rows", action="store_true", help="print the decoded row values of rows events")
    group.add_argument("--start-position", type=int, default=4, metavar="N")
    group.add_argument("--stop-position", type=int, metavar="N")
    group.add_argument("--start-datetime", metavar="'YYYY-MM-DD hh:mm:ss'")
    group.add_argument("--stop-datetime", metavar="'YYYY-MM-DD hh:mm:ss'")
    group.add_argument("--include-gtids", metavar="GTID_SET")
    group.add_argument("--exclude-gtids", metavar="GTID_SET")


def is_binlog_input(paths: Sequence[str]) -> bool:
    return any(path != "-" and is_binlog_file(path) for path in paths)


def selection_from(args: argparse.Namespace) -> Selection:
    """Raises :class:`SelectionError` for a value mysqlbinlog would refuse."""
    if args.start_position < 4:
        raise SelectionError(f"--start-position must be at least 4, not {args.start_position}")
    return Selection(
        start_position=args.start_position,
        stop_position=args.stop_position,
        start_datetime=parse_datetime(args.start_datetime) if args.start_datetime else None,
        stop_datetime=parse_datetime(args.stop_datetime) if args.stop_datetime else None,
        include_gtids=GtidSet.parse(args.include_gtids) if args.include_gtids else None,
        exclude_gtids=GtidSet.parse(args.exclude_gtids) if args.exclude_gtids else None,
    )


def evaluate_binlogs(evaluator: LineEvaluator, paths: Sequence[str], args: argparse.Namespace,
                     stdout: TextIO, stderr: TextIO) -> int:
    try:
        selection = selection_from(args)
    except SelectionError as err:
        stderr.write(f"replfilter: {err}\n")
        return 1
    summary = Summary()
    problems = 0
    for result in decide_files(evaluator, paths, selection, decode_rows=args.rows):
        line = result.to_dict()
        stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        if "error" in line:
            problems += 1
            stderr.write(f"replfilter: {line['log_name']}: at {line['pos']}: {line['error']}\n")
        summary.add(result)
    if args.summary:
        for (channel, decision), count in evaluator.counts.items():
            stderr.write(f"channel '{channel}': {decision or 'undecided'} {count}\n")
        for text in summary.lines():
            stderr.write(text + "\n")
    return 1 if problems else 0
