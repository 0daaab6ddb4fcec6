"""``replfilter evaluate``: decide every event of a JSON-lines file against a replica's filters.

The replica is built as ``replfilter`` builds it (startup options, ``--defaults-file``,
``--datadir``), optionally set up further by ``--init script.sql``. One JSON line is written per
input event with its decision and reason, as the line is read; a bad line (not UTF-8, not JSON,
not an event, an unknown channel) becomes ``{"line": n, "error": ...}`` (also reported on
standard error) and the run goes on; the exit status is 1 if any line was bad. Lines end at
``\\n`` only (:mod:`replfilter.evaluation.event_lines`), as they do in ``replfilter stream``.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import IO, Iterator, Sequence, TextIO

from .startup import add_replica_arguments, prepare_replica
from ..evaluation.event_lines import LineEvaluator, split_lines
from .evaluate_binlog import add_binlog_arguments, evaluate_binlogs, is_binlog_input


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replfilter evaluate",
        description="Decide each event of EVENTS (JSON lines, '-' for standard input) on its channel.",
        epilog="Startup options (--replicate-*=[channel:]value, --lower-case-table-names) are accepted as for replfilter.",
    )
    parser.add_argument("events", metavar="EVENTS", nargs="+", help="JSON lines, or binary/relay log files")
    add_replica_arguments(parser)
    add_binlog_arguments(parser)
    parser.add_argument("--summary", action="store_true",
                        help="print counts per channel and decision (sorted), and of bad lines, to standard error")
    return parser


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None, stdin: IO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args, startup = prepare_replica(argv, build_parser(), stderr)
    if startup is None:
        return 1
    try:
        if is_binlog_input(args.events):
            evaluator = LineEvaluator(startup.session.state)
            status = evaluate_binlogs(evaluator, args.events, args, stdout, stderr)
            startup.session.update(lambda _old: evaluator.state())
            return status
        if len(args.events) > 1:
            stderr.write("replfilter: several files are read only when they are binary or relay logs\n")
            return 1
        args.events = args.events[0]
        try:
            handle = _stdin_bytes(stdin) if args.events == "-" else open(args.events, "rb")
        except OSError as exc:
            stderr.write(f"replfilter: can't read events file '{args.events}': {exc.strerror}\n")
            return 1
        evaluator = LineEvaluator(startup.session.state)
        with handle:
            # one line in, one line out: memory stays flat however long the file is
            for result in evaluator.results(_lines(handle)):
                stdout.write(result.to_json() + "\n")
                if result.error is not None:
                    stderr.write(f"replfilter: {args.events}: line {result.line}: {result.error}\n")
        startup.session.update(lambda _old: evaluator.state())
        if args.summary:
            stderr.write(summary(evaluator.counts, evaluator.errors))
        return 1 if evaluator.errors else 0
    finally:
        startup.close()


def summary(counts: dict[tuple[str, str | None], int], bad_lines: int) -> str:
    """``--summary``: one line per channel and decision, sorted by channel name, then APPLY,
    SKIP, undecided; then the bad lines, which have no channel (a line that is not JSON names
    none)."""
    order = {"APPLY": 0, "SKIP": 1, None: 2}
    keys = sorted(counts, key=lambda key: (key[0], order.get(key[1], 3), key[1] or ""))
    lines = [f"channel '{channel}': {decision or 'undecided'} {counts[channel, decision]}\n" for channel, decision in keys]
    return "".join(lines) + f"bad lines: {bad_lines}\n"


def _stdin_bytes(stdin: IO | None) -> IO:
    stream = stdin if stdin is not None else sys.stdin
    return getattr(stream, "buffer", stream)


def _lines(handle: IO) -> Iterator[str | bytes]:
    """The file's lines, ended by ``\\n`` only (a text stream given in tests: the same rule)."""
    if isinstance(handle, io.TextIOBase):
        return (line.removesuffix("\n").removesuffix("\r") for line in handle)
    return split_lines(handle)
