"""What following the replica's catalog costs in Spark: ``decide_frame`` with a schema against
without one, on the same input, one run (ratios within the run; the machine may be shared).

Run: .venv/bin/python bench/spark_catalog.py [--events 2000000] [--tables 2000] [--repeat 2]

Input: bench/spark.py's generated relay log (four channels, 50 tables per database, 50 %
transaction events, 45 % row events with row images, 4.5 % DML statements with their text, 0.5 %
DDL: CREATE TABLE and ALTER TABLE ... ADD COLUMN), numbered by a ``line`` column (the order).
The schema has every table but one in twenty (``t5``, ``t25``, ``t45`` of each database), so
their row events fail with 1146 until a CREATE TABLE in the log makes them exist, and the CREATE
TABLEs of the others fail with 1050: every path of :mod:`replfilter.spark_runtime.catalog_follow`
runs (constant errors by key, errors that change at a DDL's position, errors pinned to a DDL).

Measured (``noop`` sink, the key cache cleared before each run, order column ``line``):

* no schema -- ``applier_error`` is a NULL literal: the cost of pass 1 and pass 2 only;
* with schema -- plus the narrow scan for DDL candidates, their replay on the driver, and the
  error column (one broadcast join on the key hash, and a position test for the few keys whose
  error changes within the batch).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

MISSING = (5, 25, 45)   # table numbers left out of the schema in every database


def schema_text(tables: int, per_db: int) -> str:
    lines = [f"CREATE DATABASE tenant{d};" for d in range((tables + per_db - 1) // per_db)]
    for t in range(tables):
        if t % per_db not in MISSING:
            lines.append(f"CREATE TABLE tenant{t // per_db}.t{t % per_db} (id int, name varchar(64), amount decimal(10,2));")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=2_000_000)
    parser.add_argument("--tables", type=int, default=2_000)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "replfilter-bench"))
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    import spark as base  # bench/spark.py

    from pyspark.sql import functions as F

    from replfilter.evaluation.catalog.loader import load_schema_lines
    from replfilter.spark_runtime.key_cache import KEY_CACHE
    from replfilter.spark_runtime.session import get_spark
    from replfilter.spark_runtime.transform import decide_frame

    spark = get_spark(args.master, app_name="replfilter-bench-catalog", conf={"spark.driver.memory": "4g"})
    cores = spark.sparkContext.defaultParallelism
    plain = os.path.join(args.data, f"events-{args.events}-tables-{args.tables}.parquet")
    if not os.path.exists(os.path.join(plain, "_SUCCESS")):
        base.generate(spark, plain, args.events, max(cores * 4, args.events // 500_000), args.tables)
    path = os.path.join(args.data, f"events-{args.events}-tables-{args.tables}-numbered.parquet")
    if not os.path.exists(os.path.join(path, "_SUCCESS")):
        spark.read.parquet(plain).withColumn("line", F.monotonically_increasing_id()).write.mode("overwrite").parquet(path)
    df = spark.read.parquet(path)
    n = df.count()
    ddl = df.where("sql like 'CREATE%' or sql like 'ALTER%'").count()
    without = base.bench_session().state
    started = time.perf_counter()
    text = schema_text(args.tables, min(base.TABLES_PER_DB, args.tables))
    with_schema = load_schema_lines(without, text.splitlines(True), "schema.sql").state
    load_s = time.perf_counter() - started
    print(f"input: {n:,} events ({ddl:,} DDL, {ddl / n:.2%}) on {args.tables:,} tables, Parquet; master {args.master} "
          f"({cores} cores); Spark {spark.version}; schema: {with_schema.replica_catalog.table_count:,} tables on the "
          f"replica, loaded in {load_s:.2f} s; load average {os.getloadavg()[0]:.1f}", flush=True)

    def run(state):
        KEY_CACHE.clear()
        decided = decide_frame(df, state, order=["line"])
        decided.df.write.format("noop").mode("overwrite").save()
        return decided

    times = {}
    for name, state in (("no schema", without), ("with schema", with_schema)):
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            decided = run(state)
            best = min(best, time.perf_counter() - started)
        times[name] = best
        print(f"  {name:<12} {best:7.2f} s  {n / best / 1e6:6.2f} M events/s", flush=True)
    errors = decided.df.where("applier_error is not null").count()
    print(f"with schema / no schema: {times['with schema'] / times['no schema']:.2f} x the time; "
          f"{errors:,} events with an applier_error; load average {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
