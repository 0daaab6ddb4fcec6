"""``replfilter evaluate``: decide every event of a JSON-lines file against a replica's filters.

The replica is built as ``replfilter`` builds it (startup options, ``--defaults-file``,
``--datadir``), optionally set up further by ``--init script.sql``. One JSON line is written per
input event with its decision and reason; a bad line becomes ``{"line": n, "error": ...}`` (also
reported on standard error) and the run goes on; the exit status is 1 if any line was bad.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence, TextIO

from .startup import add_replica_arguments, prepare_replica
from ..evaluation.evaluator import evaluate_lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replfilter evaluate",
        description="Decide each event of EVENTS (JSON lines, '-' for standard input) on its channel.",
        epilog="Startup options (--replicate-*=[channel:]value, --lower-case-table-names) are accepted as for replfilter.",
    )
    parser.add_argument("events", metavar="EVENTS.jsonl")
    add_replica_arguments(parser)
    parser.add_argument("--summary", action="store_true", help="print counts per channel and decision to standard error")
    return parser


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None, stdin: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args, startup = prepare_replica(argv, build_parser(), stderr)
    if startup is None:
        return 1
    try:
        try:
            handle = (stdin or sys.stdin) if args.events == "-" else open(args.events, encoding="utf-8")
        except OSError as exc:
            stderr.write(f"replfilter: can't read events file '{args.events}': {exc.strerror}\n")
            return 1
        with handle:
            results, new_state = evaluate_lines(startup.session.state, (line.rstrip("\n") for line in handle))
        startup.session.update(lambda _old: new_state)
        bad = 0
        for result in results:
            stdout.write(result.to_json() + "\n")
            if result.error is not None:
                bad += 1
                stderr.write(f"replfilter: {args.events}: line {result.line}: {result.error}\n")
        if args.summary:
            _summary(results, stderr)
        return 1 if bad else 0
    except UnicodeDecodeError as exc:
        stderr.write(f"replfilter: events file '{args.events}' is not UTF-8 text (byte {exc.start})\n")
        return 1
    finally:
        startup.close()


def _summary(results: list, stderr: TextIO) -> None:
    from ..evaluation.evaluator import tally

    for (channel, decision), count in tally(results).items():
        stderr.write(f"channel '{channel}': {decision} {count}\n")
