"""Fuzz the interpreter with arbitrary Unicode for longer than the test suite can.

tests/test_fuzz.py runs a few hundred hypothesis examples of each input kind in the suite; this
runs the same kinds of input by the million, from a seeded generator (so a failure can be
replayed with its seed and index), and prints the rate and what came back. The promise checked is
the suite's: every statement gives a result or a MySQL error (``MySQLError``), never another
exception, and a statement that fails leaves the replica's state as it was (except the steps a
server keeps done before it fails, as RESET REPLICA ALL's: ``PartialChange``).

Inputs, in turn: arbitrary code points (lone surrogates and the non-ASCII letters that fold to
ASCII ones, such as U+0130, U+0131, U+017F and U+212A, included), soups of the dialect's tokens
with such letters swapped in, and valid statements with one character changed, cut or doubled.

    PYTHONPATH=. .venv/bin/python bench/fuzz_statements.py [--count 1000000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback

from replfilter.core.errors import MySQLError
from replfilter.replica.executor import PartialChange
from replfilter.server.session import Session

VALID = (
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1, `db,2`), REPLICATE_IGNORE_TABLE = (d.t) FOR CHANNEL 'ch_1'",
    "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db\\_1.%'), REPLICATE_REWRITE_DB = ((a,b),(c,d))",
    "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_PORT = 3307 FOR CHANNEL 'ch_1'",
    "START REPLICA SQL_THREAD UNTIL SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 4 FOR CHANNEL 'ch_1'",
    "STOP REPLICA SQL_THREAD FOR CHANNEL 'ch_1'",
    "RESET REPLICA ALL FOR CHANNEL 'ch_2'",
    "SHOW REPLICA STATUS FOR CHANNEL 'ch_1'",
    "SELECT CHANNEL_NAME, COUNTER FROM performance_schema.replication_applier_filters WHERE COUNTER > 0",
    "EXPLAIN REPLICATION OF 'UPDATE y JOIN z ON y.id = z.id SET b = 1' DEFAULT DATABASE d FORMAT BOTH",
    "SELECT @@version, @@warning_count",
    "USE db1",
    "/*!80000 SHOW WARNINGS */",
    "LINT REPLICATION FOR CHANNEL 'ch_1'",
)
TOKENS = (
    "CHANGE REPLICATION FILTER SOURCE TO FOR CHANNEL RESET REPLICA ALL SHOW STATUS START STOP UNTIL "
    "SQL_THREAD IO_THREAD SELECT FROM WHERE AND ORDER BY LIMIT COUNT WARNINGS EXPLAIN OF FORMAT USE LINT "
    "REPLICATE_DO_DB REPLICATE_IGNORE_DB REPLICATE_DO_TABLE REPLICATE_WILD_DO_TABLE REPLICATE_REWRITE_DB "
    "SOURCE_HOST SOURCE_PORT performance_schema replication_applier_filters COUNTER db1 t1 1 0 "
    "18446744073709551616 `x` `` 'a.b' '' \"q\" ( ) , . = <> * ; -- # /* */ /*!80000 /*!99999 \\G"
).split()
LOOKALIKES = {"I": "\u0130", "i": "\u0131", "S": "\u017f", "K": "\u212a", "s": "\u017f"}


def statements(rng: random.Random, count: int):
    """``count`` inputs, the three kinds in turn."""
    for index in range(count):
        kind = index % 3
        if kind == 0:
            yield "".join(chr(_code_point(rng)) for _ in range(rng.randrange(0, 60)))
        elif kind == 1:
            words = [rng.choice(TOKENS) for _ in range(rng.randrange(1, 25))]
            text = " ".join(words)
            yield "".join(LOOKALIKES.get(c, c) if rng.random() < 0.05 else c for c in text)
        else:
            text = rng.choice(VALID)
            at = rng.randrange(len(text))
            action = rng.randrange(3)
            if action == 0:
                yield text[:at] + chr(_code_point(rng)) + text[at + 1 :]
            elif action == 1:
                yield text[:at]
            else:
                yield text[:at] + text[at:] * 2


def _code_point(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.5:
        return rng.randrange(0x20, 0x7F)
    if roll < 0.6:
        return ord(rng.choice(list(LOOKALIKES.values())))
    if roll < 0.7:
        return rng.randrange(0xD800, 0xE000)  # lone surrogates
    return rng.randrange(0, 0x110000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'ch_1'")
    outcomes = {"result": 0, "MySQL error": 0}
    failures = 0
    started = time.perf_counter()
    for index, text in enumerate(statements(rng, args.count)):
        before = session.state
        try:
            session.execute_text(text)
            outcomes["result"] += 1
        except MySQLError as error:
            outcomes["MySQL error"] += 1
            if session.state != before and not isinstance(error, PartialChange):  # RESET REPLICA's steps stay done
                failures += 1
                print(f"seed {args.seed} input {index}: a failed statement changed the state: {text!r}", file=sys.stderr)
        except Exception:  # the defect this benchmark looks for
            failures += 1
            print(f"seed {args.seed} input {index}: {text!r}\n{traceback.format_exc()}", file=sys.stderr)
    elapsed = time.perf_counter() - started
    print(f"{args.count:,} statements in {elapsed:.1f} s ({args.count / elapsed:,.0f}/s): "
          f"{outcomes['result']:,} results, {outcomes['MySQL error']:,} MySQL errors, {failures} other outcomes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
