"""Parse throughput: statements per second for short and long statements, on one core; and the
time a one-megabyte statement takes to get its answer, malformed or valid.

Run: .venv/bin/python bench/parse.py [--megabytes N]
Targets: >= 20,000 short statements per second; a malformed statement of any size gets its 1064
in <= 0.5 s per MB (dialect/long_statements.py). Valid long statements are reported, with no
target. Never imports pyspark.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from replfilter.core.errors import MySQLError
from replfilter.dialect.parser import parse_statement
from replfilter.server.session import Session

SHORT = [
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1)",
    "START REPLICA SQL_THREAD FOR CHANNEL 'ch_1'",
    "SHOW REPLICA STATUS",
    "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('db%.tmp%') FOR CHANNEL 'ch_2'",
    "RESET REPLICA ALL FOR CHANNEL 'ch_3'",
    "SELECT * FROM performance_schema.replication_applier_filters WHERE channel_name = 'ch_1'",
]
LONG = (
    "CHANGE REPLICATION FILTER "
    + "REPLICATE_DO_DB = (" + ", ".join(f"db_{i}" for i in range(200)) + "), "
    + "REPLICATE_IGNORE_TABLE = (" + ", ".join(f"db_{i}.t_{i}" for i in range(200)) + "), "
    + "REPLICATE_WILD_DO_TABLE = (" + ", ".join(f"'db_{i}.%'" for i in range(200)) + "), "
    + "REPLICATE_REWRITE_DB = (" + ", ".join(f"(src_{i}, dst_{i})" for i in range(200)) + ") "
    + "FOR CHANNEL 'ch_1'"
)


def rate(statements: list[str], seconds: float = 2.0) -> float:
    parse_statement(statements[0])  # build (or load the cached) parser first
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for text in statements:
            parse_statement(text)
        count += len(statements)
    return count / (time.perf_counter() - started)


def megabyte_statements(size: int) -> list[tuple[str, bool, str]]:
    """(name, malformed, text) of about ``size`` characters each."""
    names = ",".join(f"db{i}" for i in range(size // 7))
    values = ",".join("(1)" for _ in range(size // 4))
    return [
        ("unterminated list of 1-letter names (x,x,x,...)", True,
         "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + "x," * (size // 2) + ";"),
        ("unterminated list of names (db0,db1,...)", True, "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + names),
        ("list of names, a reserved word last", True, "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + names + ",select)"),
        ("unterminated list of wild patterns", True,
         "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = (" + ",".join(f"'db{i}.%'" for i in range(size // 10))),
        ("unterminated list of rewrite pairs", True,
         "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = (" + ",".join(f"(a{i},b{i})" for i in range(size // 12))),
        ("EXPLAIN REPLICATION OF an unterminated string", True, "EXPLAIN REPLICATION OF 'INSERT INTO t VALUES " + values),
        ("valid list of names", False, "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + names + ")"),
        ("valid EXPLAIN REPLICATION OF 'INSERT ... VALUES (1),...' (parse and explain)", False,
         "EXPLAIN REPLICATION OF 'INSERT INTO t VALUES " + values + "' DEFAULT DATABASE d"),
    ]


def answer_seconds(text: str) -> tuple[float, float, str]:
    """Wall and CPU seconds for a session to answer ``text`` (parse, and run when valid), and
    the answer. On a shared machine the CPU time is the steadier figure."""
    session = Session()
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        session.execute_text(text)
        answer = "ok"
    except MySQLError as error:
        answer = f"ERROR {error.code}"
    return time.perf_counter() - started, time.process_time() - cpu_started, answer


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--megabytes", type=float, default=1.0, help="size of the long statements (default 1)")
    size = int(options.parse_args().megabytes * 1_000_000)
    short = rate(SHORT)
    long_ = rate([LONG])
    print(f"short statements: {short:,.0f} statements/s  (target >= 20,000)")
    print(f"long statements ({len(LONG):,} chars, 800 list elements): {long_:,.0f} statements/s "
          f"= {long_ * len(LONG) / 1e6:,.2f} MB/s")
    print("statements of about 1 MB, one run each (time to the answer; target for malformed: <= 0.5 s per MB):")
    for name, malformed, text in megabyte_statements(size):
        seconds, cpu, answer = answer_seconds(text)
        megabytes = len(text.encode()) / 1e6
        print(f"  {'malformed' if malformed else 'valid    '} {megabytes:5.2f} MB  {seconds:6.2f} s  "
              f"{seconds / megabytes:5.2f} s/MB (CPU {cpu / megabytes:5.2f} s/MB)  {answer:10}  {name}")
    print(f"peak RSS of the run: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    assert "pyspark" not in sys.modules, "parsing must not import pyspark"


if __name__ == "__main__":
    main()
