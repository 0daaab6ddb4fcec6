"""What following the replica's catalog costs in Spark: ``decide_frame`` with a schema against
without one, on the same input, one run (ratios within the run; the machine may be shared).

Run: .venv/bin/python bench/spark_catalog.py [--events 2000000] [--master local[*]] [--repeat 1]

Input: bench/spark.py's generated events (3 channels, 360 tables in 12 databases, ~60 % row
events, ~20 % query events with SQL text, ~20 % transaction events), with 0.5 % of the events
made DDL (as in a real relay log): CREATE TABLE IF NOT EXISTS of a table the schema lacks, ALTER
TABLE ... ADD COLUMN on a table it has, and DROP TABLE IF EXISTS of a scratch table. The schema
has 356 of the 360 tables, so the row events of the other four fail with 1146 until a CREATE
makes them exist: every path of :mod:`replfilter.spark_runtime.catalog_follow` runs (constant
errors by key, errors that change at a DDL's position, errors pinned to a DDL).

Measured (``noop`` sink, the key cache cleared before each run, order column ``line``):

* no schema — ``applier_error`` is a NULL literal: the cost of pass 1 and pass 2 only;
* with schema — plus the narrow scan for DDL candidates, their replay on the driver, and the
  error column (a hash lookup, and a CASE on the position for the four keys that change).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

MISSING = ("db1.t1", "db2.t2", "db3.t3", "db4.t4")   # tidx % 12 gives the database


def schema_text(n_tables: int, n_dbs: int) -> str:
    lines = [f"CREATE DATABASE db{d};" for d in range(n_dbs)]
    for t in range(n_tables):
        name = f"db{t % n_dbs}.t{t}"
        if name not in MISSING:
            lines.append(f"CREATE TABLE {name} (id int, name varchar(40), amount decimal(10,2));")
    return "\n".join(lines) + "\n"


def with_ddl(spark, path: str, out: str) -> None:
    """The generated events, every 200th made a DDL query event; ``line`` numbers the events."""
    from pyspark.sql import functions as F

    from replfilter.spark_runtime.schema import EVENT_COLUMNS

    df = spark.read.parquet(path).withColumn("line", F.monotonically_increasing_id())
    i = F.col("line")
    is_ddl = F.pmod(F.xxhash64(i, F.lit(7)), F.lit(200)) == 0
    which = F.pmod(F.xxhash64(i, F.lit(8)), F.lit(3))
    k = F.pmod(F.xxhash64(i, F.lit(9)), F.lit(4)).cast("int")
    missing_db = F.element_at(F.array(*[F.lit(m.split(".")[0]) for m in MISSING]), k + 1)
    missing_t = F.element_at(F.array(*[F.lit(m.split(".")[1]) for m in MISSING]), k + 1)
    db = F.concat(F.lit("db"), F.pmod(i, F.lit(12)).cast("string"))
    table = F.concat(F.lit("t"), (F.pmod(i, F.lit(30)) * 12 + F.pmod(i, F.lit(12))).cast("string"))
    sql = (
        F.when(which == 0, F.concat(F.lit("CREATE TABLE IF NOT EXISTS "), missing_db, F.lit("."), missing_t, F.lit(" (id int)")))
        .when(which == 1, F.concat(F.lit("ALTER TABLE "), db, F.lit("."), table, F.lit(" ADD COLUMN c"), i.cast("string"), F.lit(" int")))
        .otherwise(F.concat(F.lit("DROP TABLE IF EXISTS "), db, F.lit(".scratch")))
    )
    command = F.when(which == 0, "CREATE_TABLE").when(which == 1, "ALTER_TABLE").otherwise("DROP_TABLE")
    ddl_tables = F.when(which == 0, F.array(F.struct(missing_db.alias("db"), missing_t.alias("table"), F.lit(True).alias("updating")))) \
        .when(which == 1, F.array(F.struct(db.alias("db"), table.alias("table"), F.lit(True).alias("updating")))) \
        .otherwise(F.array(F.struct(db.alias("db"), F.lit("scratch").alias("table"), F.lit(True).alias("updating"))))
    ddl_db = F.when(which == 0, missing_db).otherwise(db)
    replaced = {
        "type": F.when(is_ddl, F.lit("query")).otherwise(F.col("type")),
        "default_db": F.when(is_ddl, ddl_db).otherwise(F.col("default_db")),
        "command": F.when(is_ddl, command).otherwise(F.col("command")),
        "tables": F.when(is_ddl, ddl_tables.cast("array<struct<db:string,table:string,updating:boolean>>")).otherwise(F.col("tables")),
        "sql": F.when(is_ddl, sql).otherwise(F.col("sql")),
        "temporary": F.when(is_ddl, F.lit(False)).otherwise(F.col("temporary")),
        "if_exists": F.when(is_ddl, which == 2).otherwise(F.col("if_exists")),
        "db": F.when(is_ddl, F.lit(None)).otherwise(F.col("db")),
        "table": F.when(is_ddl, F.lit(None)).otherwise(F.col("table")),
        "kind": F.when(is_ddl, F.lit(None)).otherwise(F.col("kind")),
        "gtid": F.when(is_ddl, F.lit(None)).otherwise(F.col("gtid")),
    }
    df.select("line", *[replaced.get(c, F.col(c)).alias(c) for c in EVENT_COLUMNS]).write.mode("overwrite").parquet(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=2_000_000)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "replfilter-bench"))
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    import spark as base  # bench/spark.py

    from replfilter.evaluation.schema_loader import load_schema_lines
    from replfilter.spark_runtime.key_cache import KEY_CACHE
    from replfilter.spark_runtime.session import get_spark
    from replfilter.spark_runtime.transform import decide_frame

    spark = get_spark(args.master, app_name="replfilter-bench-catalog", conf={"spark.driver.memory": "4g"})
    cores = spark.sparkContext.defaultParallelism
    plain = os.path.join(args.data, f"events-{args.events}.parquet")
    if not os.path.exists(os.path.join(plain, "_SUCCESS")):
        base.generate(spark, plain, args.events, max(cores * 4, args.events // 1_000_000))
    path = os.path.join(args.data, f"events-ddl-{args.events}.parquet")
    if not os.path.exists(os.path.join(path, "_SUCCESS")):
        with_ddl(spark, plain, path)
    df = spark.read.parquet(path)
    n = df.count()
    ddl = df.where("sql like 'CREATE%' or sql like 'ALTER%' or sql like 'DROP%'").count()
    without = base.bench_session().state
    started = time.perf_counter()
    with_schema = load_schema_lines(without, schema_text(base.N_TABLES, base.N_DBS).splitlines(True), "schema.sql").state
    load_s = time.perf_counter() - started
    print(f"input: {n:,} events ({ddl:,} DDL, {ddl / n:.2%}), Parquet; master {args.master} ({cores} cores); "
          f"Spark {spark.version}; schema of {with_schema.replica_catalog.table_count} replica tables loaded in {load_s:.2f} s; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)

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
