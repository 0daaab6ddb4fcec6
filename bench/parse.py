"""Parse throughput: statements per second for short and long statements, on one core.

Run: .venv/bin/python bench/parse.py
Target (issue 2): >= 20,000 short statements per second. Never imports pyspark.
"""

from __future__ import annotations

import sys
import time

from replfilter.dialect.parser import parse_statement

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


def main() -> None:
    short = rate(SHORT)
    long_ = rate([LONG])
    assert "pyspark" not in sys.modules, "parsing must not import pyspark"
    print(f"short statements: {short:,.0f} statements/s  (target >= 20,000)")
    print(f"long statements ({len(LONG):,} chars, 800 list elements): {long_:,.0f} statements/s "
          f"= {long_ * len(LONG) / 1e6:,.2f} MB/s")


if __name__ == "__main__":
    main()
