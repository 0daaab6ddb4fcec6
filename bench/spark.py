"""Spark runtime throughput: pass-through vs replfilter vs a Python UDF, on the same input, one run.

Run: .venv/bin/python bench/spark.py [--events 4000000] [--tables 2000] [--repeat 1] [--master local[*]] [--data DIR]
     .venv/bin/python bench/spark.py --tables 1000000      # a database-per-tenant replica
     .venv/bin/python bench/spark.py --tables 1000000 --do-tables 100000   # a 100,000-table allow-list

Input: a generated Parquet file (reused from --data when it is there) with the shape of a
ROW-format relay log (see :func:`generate`): four channels, ``--tables`` tables, 50 per
database, 50% GTID/BEGIN/XID, 49.5% row events with a ~400-byte row image, 0.5% DDL; every
channel has its own rules.

Measured, each as the best of --repeat runs, all writing to Spark's ``noop`` sink (every row and
every column is produced, nothing is stored, so the figures are the engine's, not the disk's):

* pass-through — read the events and write them out unchanged;
* apply_filters, new files — as on files never decided before (the key cache is cleared before
  each run): row and transaction events decided by column expressions
  (:mod:`replfilter.spark_runtime.compiled_path`), the keys of the other rows (the DDL) found by
  one aggregate over the key columns first;
* apply_filters, same files — the same files decided again (what-if runs of other states over
  one archive): that aggregate is remembered per file snapshot, so one pass runs;
* two passes — the same with ``compiled=False``: every row by the exact path (pass 1 counts the
  keys, pass 2 looks every row's decision up); and decide_frame + COUNTERs, new files, with
  the counters asked for after the write (observed while it ran);
* applied_events — only the applied rows, the database rewritten, new files and same files;
* Python UDF   — ``mapInArrow`` calling the memoising reference evaluator per row (the best
  Python baseline; a row-at-a-time ``udf`` is slower still);
* streaming    — the sustainable rate of ``replfilter stream``'s micro-batch function
  (ingest + decide + write Parquet of applied events, counters moved) on Parquet batches: as it
  runs (the compiled path: row and transaction events by column expressions, the DDL's keys by
  the exact path, COUNTERs observed as the batch is written) and with ``--two-pass`` (every row
  by the exact path); and a quarter of the input as JSON lines, the default stream format.
  ``--stream-only`` measures these alone (with the Parquet copy they are compared with).

Targets: new files >= 0.8 x pass-through at 2,000 tables and >= 0.7 x at 1,000,000; the same
files again >= 0.8 x at both; the Python UDF >= 10 x behind at every size; the stream's
sustained rate >= 0.6 x a plain Parquet copy of the same files at 1,000,000 tables; with
``--do-tables 100000`` (a 100,000-table allow-list on one channel) >= 0.5 x at 1,000,000 tables. The share
of rows that took the exact path (the reference evaluator, two passes) is printed: row and
transaction events are decided by compiled expressions (:mod:`replfilter.spark_runtime.compiled_rules`),
the 0.5% DDL by the exact path.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

CHANNELS = ("", "c1", "c2", "c3")
TABLES_PER_DB = 50

SETUP_SQL = """
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL '';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'c1';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'c2';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'c3';
CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(tenant11), REPLICATE_IGNORE_TABLE=(tenant1.t13, tenant2.t14, tenant3.t15),
  REPLICATE_WILD_IGNORE_TABLE=('tenant%.t1_', 'tenant4.%'),
  REPLICATE_REWRITE_DB=((tenant5, tenant5_copy), (tenant6, tenant6_copy)) FOR CHANNEL '';
CHANGE REPLICATION FILTER REPLICATE_DO_DB=(tenant1, tenant2, tenant3, tenant7, tenant8, tenant9_copy),
  REPLICATE_DO_TABLE=(tenant1.t1, tenant2.t2, tenant3.t3),
  REPLICATE_WILD_DO_TABLE=('tenant7.t%', 'tenant8.t2%', 'tenant9_copy.%', 'tenant1%.%'),
  REPLICATE_WILD_IGNORE_TABLE=('tenant1.%'), REPLICATE_REWRITE_DB=((tenant9, tenant9_copy)) FOR CHANNEL 'c1';
CHANGE REPLICATION FILTER REPLICATE_DO_TABLE=(tenant0.t0, tenant0.t12, tenant0.t24), REPLICATE_IGNORE_TABLE=(tenant0.t36),
  REPLICATE_WILD_DO_TABLE=('tenant1_.%', 'tenant2.t1%', 'tenant\\_3.%', 'tenant4%.%'),
  REPLICATE_WILD_IGNORE_TABLE=('tenant%.t3%') FOR CHANNEL 'c2';
CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE=('%.t4_'), REPLICATE_IGNORE_DB=(tenant3) FOR CHANNEL 'c3';
"""


def bench_session():
    from replfilter.server.session import Session

    session = Session()
    session.execute_sql(SETUP_SQL)
    return session


def generate(spark, path: str, n: int, partitions: int, tables: int) -> None:
    """Generate ``n`` events as Parquet with Spark expressions (fast, deterministic).

    The shape of a ROW-format relay log of a database-per-tenant replica: ``tables`` tables,
    50 per database (``tenant<k>.t<j>``), four channels; 50% transaction events (GTID, BEGIN,
    XID), 49.5% row events carrying a ~400-byte row image in ``record`` (in ROW format a DML
    statement is logged as rows), 0.5% DDL (CREATE/ALTER TABLE) with its SQL text and table
    list. Distinct decision keys: 19.4 k at 2,000 tables, 1.58 M at 1,000,000 (4 M events).
    """
    from pyspark.sql import functions as F

    from replfilter.spark_runtime.schema import INGESTED_COLUMNS

    i = F.col("id")
    slot = F.pmod(i, F.lit(200))
    tidx = F.pmod(F.xxhash64(i), F.lit(tables))
    per_db = min(TABLES_PER_DB, tables)
    db = F.concat(F.lit("tenant"), F.floor(tidx / F.lit(per_db)).cast("string"))
    table = F.concat(F.lit("t"), F.pmod(tidx, F.lit(per_db)).cast("string"))
    channel = F.element_at(F.array(*[F.lit(c) for c in CHANNELS]), (F.pmod(F.xxhash64(i, F.lit(3)), F.lit(len(CHANNELS))) + 1).cast("int"))
    is_trx = slot < 100
    is_row = (slot >= 100) & (slot < 199)
    is_ddl = slot == 199
    is_query = is_ddl
    qualified = F.pmod(F.xxhash64(i, F.lit(1)), F.lit(2)) == 0
    ddl = F.when(F.pmod(i, F.lit(2)) == 0, "CREATE_TABLE").otherwise("ALTER_TABLE")
    name = F.concat(F.when(qualified, F.concat(db, F.lit("."))).otherwise(F.lit("")), table)
    sql_text = (
        F.when(ddl == "CREATE_TABLE", F.concat(F.lit("CREATE TABLE "), name, F.lit(" (id INT PRIMARY KEY, name VARCHAR(64))")))
        .otherwise(F.concat(F.lit("ALTER TABLE "), name, F.lit(" ADD COLUMN c"), i.cast("string"), F.lit(" INT")))
    )
    tables_col = F.array(F.struct(F.when(qualified, db).cast("string").alias("db"), table.alias("table"), F.lit(True).alias("updating")))
    trx_kind = F.element_at(F.array(F.lit("GTID"), F.lit("BEGIN"), F.lit("XID")), (F.pmod(i, F.lit(3)) + 1).cast("int"))
    gtid = F.concat(F.lit("3e11fa47-71ca-11e1-9e33-c80aa9429562:"), (i / 3 + 1).cast("long").cast("string"))
    digest = F.sha2(i.cast("string"), 256)
    image = F.concat(
        F.lit('{"before": null, "after": {"id": '), i.cast("string"), F.lit(', "name": "customer-'), i.cast("string"),
        F.lit('", "note": "'), digest, F.sha2(digest, 256), F.sha2(F.concat(digest, F.lit("x")), 256),
        F.sha2(F.concat(digest, F.lit("y")), 256), F.sha2(F.concat(digest, F.lit("z")), 256), F.lit('"}}'),
    )
    df = spark.range(0, n, 1, partitions).select(
        F.lit(1).cast("long").alias("v"),
        F.when(is_row, "row").when(is_query, "query").otherwise("transaction").alias("type"),
        channel.alias("channel"),
        F.when(is_query, db).alias("default_db"),
        F.when(is_ddl, ddl).alias("command"),
        F.when(is_query, tables_col).cast("array<struct<db:string,table:string,updating:boolean>>").alias("tables"),
        F.when(is_ddl, sql_text).alias("sql"),
        F.when(is_query, F.lit(False)).alias("temporary"),
        F.when(is_query, F.lit(False)).alias("if_exists"),
        F.when(is_row, db).alias("db"),
        F.when(is_row, table).alias("table"),
        F.when(is_trx, trx_kind).alias("kind"),
        F.when(is_trx & (trx_kind == "GTID"), gtid).alias("gtid"),
        F.when(is_row, image).alias("record"),
    )
    df.select(*INGESTED_COLUMNS).write.mode("overwrite").parquet(path)


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def udf_baseline(df, state):
    """mapInArrow: each Arrow batch's rows -> events -> the memoising evaluator -> columns."""
    import pyarrow as pa

    from replfilter.spark_runtime.schema import DECISION_FIELDS
    from pyspark.sql.types import StructType

    out_schema = StructType([*df.schema.fields, *DECISION_FIELDS])

    def run(batches):
        from replfilter.evaluation.evaluator import Evaluator
        from replfilter.spark_runtime.transform import KEY_COLUMNS as names, decision_values, event_from_key

        evaluator = Evaluator(state)
        cache: dict = {}
        for batch in batches:
            cols = [batch.column(batch.schema.get_field_index(n)).to_pylist() for n in names]
            dec, ft, rule, rw = [], [], [], []
            for values in zip(*cols):
                key = (values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8],
                       None if values[9] is None else tuple((t["db"], t["table"], t["updating"]) for t in values[9]))
                out = cache.get(key)
                if out is None:
                    event = event_from_key(dict(zip(names, values)))
                    out = cache[key] = decision_values(evaluator.decide(event))
                dec.append(out[0]); ft.append(out[1]); rule.append(out[2]); rw.append(out[3])
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, pa.array(dec, pa.string()), pa.array(ft, pa.string()), pa.array(rule, pa.string()), pa.array(rw, pa.string())],
                names=[*batch.schema.names, "decision", "filter_type", "filter_rule", "rewritten_db"],
            )

    return df.mapInArrow(run, out_schema)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=4_000_000)
    parser.add_argument("--tables", type=int, default=2_000, help="tables on the replica, 50 per database (default 2,000)")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "replfilter-bench"))
    parser.add_argument("--repeat", type=int, default=1, help="runs per measure, the best kept (default 1)")
    parser.add_argument("--udf-events", type=int, default=None, help="events for the UDF run (default: all)")
    parser.add_argument("--stream-files-per-batch", type=int, default=2)
    parser.add_argument("--skip-stream", action="store_true")
    parser.add_argument("--stream-only", action="store_true", help="measure only the streaming rates")
    parser.add_argument(
        "--do-tables", type=int, default=0,
        help="give channel '' this many REPLICATE_DO_TABLE rules (a tenant allow-list drawn from the input's "
        "tables) and measure only apply_filters on new and same files against pass-through",
    )
    args = parser.parse_args(argv)

    from replfilter.spark_runtime.key_cache import KEY_CACHE
    from replfilter.spark_runtime.session import get_spark
    from replfilter.spark_runtime.transform import applied_events, apply_filters, decide_frame

    spark = get_spark(args.master, app_name="replfilter-bench", conf={"spark.driver.memory": "8g"})
    cores = spark.sparkContext.defaultParallelism
    path = os.path.join(args.data, f"events-{args.events}-tables-{args.tables}-rowlog.parquet")
    if not os.path.exists(os.path.join(path, "_SUCCESS")):
        print(f"generating {args.events:,} events on {args.tables:,} tables -> {path}", flush=True)
        generate(spark, path, args.events, max(cores * 4, args.events // 500_000), args.tables)
    args.input_path = path
    df = spark.read.parquet(path)
    n = df.count()
    state = bench_session().state
    print(f"input: {n:,} events on {args.tables:,} tables, Parquet with row images, {path}; master {args.master} ({cores} cores); Spark {spark.version}", flush=True)

    def noop(frame):
        frame.write.format("noop").mode("overwrite").save()

    results: dict[str, float] = {}

    def report(name: str, seconds: float, events: int) -> None:
        rate = events / seconds
        results[name] = rate
        print(f"  {name:<30} {seconds:7.2f} s  {rate / 1e6:7.2f} M events/s", flush=True)

    def first_time(fn):
        """``fn`` as on files never decided before: pass 1 reads the keys (two passes)."""

        def run():
            KEY_CACHE.clear()
            fn()

        return run

    if args.stream_only:
        stream_rate(spark, df, state, args)
        return 0
    if args.do_tables:
        large_rule_set(spark, df, n, state, args, noop, report, first_time, results)
        return 0
    noop(df)  # warm-up, not reported: the JVM's JIT, file listing and the page cache
    report("pass-through", timed(lambda: noop(df), args.repeat), n)
    report("apply_filters, new files", timed(first_time(lambda: noop(apply_filters(df, state))), args.repeat), n)
    report("apply_filters, same files", timed(lambda: noop(apply_filters(df, state)), args.repeat), n)
    two_new = first_time(lambda: noop(apply_filters(df, state, compiled=False)))
    report("two passes, new files", timed(two_new, args.repeat), n)
    report("two passes, same files", timed(lambda: noop(apply_filters(df, state, compiled=False)), args.repeat), n)
    tallied = {}

    def with_counters():
        decided = decide_frame(df, state)
        noop(decided.df)
        tallied["decisions"] = decided.decisions  # counted as the frame was written

    report("decide_frame + COUNTERs, new files", timed(first_time(with_counters), args.repeat), n)
    decisions = tallied["decisions"]
    print(
        f"  rows on the exact path: {decisions.exact_events:,} of {decisions.events:,} "
        f"({decisions.exact_events / max(1, decisions.events):.2%}); exact-path keys {decisions.distinct_keys:,}; "
        f"COUNTERs from the {decisions.counters_from}",
        flush=True,
    )
    report("applied_events, new files", timed(first_time(lambda: noop(applied_events(df, state))), args.repeat), n)
    report("applied_events, same files", timed(lambda: noop(applied_events(df, state)), args.repeat), n)
    udf_df = df if args.udf_events is None else df.limit(args.udf_events)
    udf_n = n if args.udf_events is None else udf_df.count()
    report("Python UDF (mapInArrow)", timed(lambda: noop(udf_baseline(udf_df, state)), 1), udf_n)

    large = args.tables >= 1_000_000
    targets = {
        "apply_filters, new files": 0.7 if large else 0.8,
        "apply_filters, same files": 0.8,
        "two passes, new files": 0.7 if large else 0.8,
        "two passes, same files": 0.8,
    }
    for name, target in targets.items():
        ratio_pass = results[name] / results["pass-through"]
        ratio_udf = results[name] / results["Python UDF (mapInArrow)"]
        print(f"  {name}: {ratio_pass:4.2f} x pass-through (target >= {target}), {ratio_udf:5.2f} x the Python UDF (target >= 10)")
    print(f"  load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)

    if not args.skip_stream:
        stream_rate(spark, df, state, args)
    return 0


def with_do_tables(state, n: int, tables: int, seed: int = 7):
    """``state`` with channel '' given ``n`` REPLICATE_DO_TABLE rules: ``n`` of the input's
    ``tables`` tables (as :func:`generate` names them), drawn at random with a fixed seed."""
    import random
    from dataclasses import replace

    from replfilter.core.filters import ConfiguredBy, FilterType

    picks = random.Random(seed).sample(range(tables), min(n, tables))
    picks += range(tables, tables + n - len(picks))  # beyond the input's tables: rules no row matches
    rules = [f"tenant{t // TABLES_PER_DB}.t{t % TABLES_PER_DB}" for t in picks]
    channel = state.channel("")
    filters = channel.filters.set_type(FilterType.DO_TABLE, rules, ConfiguredBy.CHANGE_REPLICATION_FILTER, 1, state.collation)
    return state.with_channel(replace(channel, filters=filters))


def large_rule_set(spark, df, n: int, plain, args, noop, report, first_time, results) -> None:
    """A channel with ``--do-tables`` exact rules: apply_filters on new files and on the same
    files again, and decide_frame with its COUNTERs, against pass-through and against the same
    calls with the bench's own rules (``plain``); which path the rows took and how the large
    set was compiled."""
    from replfilter.spark_runtime.compiled_rules import MAX_SET_RULES, compile_rules
    from replfilter.spark_runtime.transform import apply_filters, decide_frame

    started = time.perf_counter()
    state = with_do_tables(plain, args.do_tables, args.tables)
    rules = compile_rules(state)
    print(f"  (the rules set and compiled in Python: {time.perf_counter() - started:.2f} s)", flush=True)
    how = "declined: " + rules.declined[""] if "" in rules.declined else (
        "a broadcast join" if args.do_tables > MAX_SET_RULES else "an InSet"
    )
    print(f"  channel '' has {args.do_tables:,} REPLICATE_DO_TABLE rules: looked up by {how}", flush=True)
    noop(df)
    report("pass-through", timed(lambda: noop(df), args.repeat), n)
    started = time.perf_counter()
    apply_filters(df, state)
    print(f"  (building the plan: {time.perf_counter() - started:.2f} s)", flush=True)
    report("apply_filters, new files", timed(first_time(lambda: noop(apply_filters(df, state))), args.repeat), n)
    report("apply_filters, same files", timed(lambda: noop(apply_filters(df, state)), args.repeat), n)
    tallied = {}

    def with_counters():
        decided = decide_frame(df, state)
        noop(decided.df)
        tallied["decisions"] = decided.decisions

    report("decide_frame + COUNTERs, new files", timed(first_time(with_counters), args.repeat), n)
    report("without the allow-list, new files", timed(first_time(lambda: noop(apply_filters(df, plain))), args.repeat), n)
    report("without the allow-list, same files", timed(lambda: noop(apply_filters(df, plain)), args.repeat), n)
    decisions = tallied["decisions"]
    print(
        f"  rows on the exact path: {decisions.exact_events:,} of {decisions.events:,} "
        f"({decisions.exact_events / max(1, decisions.events):.2%}); COUNTERs from the {decisions.counters_from}",
        flush=True,
    )
    for name in ("apply_filters, new files", "apply_filters, same files", "decide_frame + COUNTERs, new files"):
        print(f"  {name}: {results[name] / results['pass-through']:4.2f} x pass-through (target >= 0.5)")
    for name in ("new files", "same files"):
        ratio = results[f"apply_filters, {name}"] / results[f"without the allow-list, {name}"]
        print(f"  {name}: {ratio:4.2f} x the same call without the allow-list")
    print(f"  load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)


def stream_rate(spark, df, state, args) -> None:
    """Sustainable streaming rate: ``replfilter stream``'s micro-batch function run back to back
    (availableNow) over the input's files, ``--stream-files-per-batch`` files a batch: what a
    stream keeping up with its source sustains, Parquet in, Parquet out, exactly once."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    work = tempfile.mkdtemp(prefix="replfilter-stream-bench-")
    try:
        src = os.path.join(work, "events")
        os.makedirs(src)
        # the same files the other measures read, linked into the stream's directory
        parts = sorted(f for f in os.listdir(args.input_path) if f.endswith(".parquet"))
        for k, name in enumerate(parts):
            os.link(os.path.join(args.input_path, name), os.path.join(src, f"{k:05d}.parquet"))
        # warm-up, not reported: both paths on a few files, so that neither measured run pays
        # for the JIT compiling the other's code
        warm = os.path.join(work, "warm")
        os.makedirs(warm)
        for name in sorted(os.listdir(src))[: 2 * args.stream_files_per_batch]:
            os.link(os.path.join(src, name), os.path.join(warm, name))
        sustained: dict[str, float] = {}
        runs = [("warm-up", False, warm), ("warm-up compiled", True, warm), ("two passes", False, src), ("compiled", True, src)]
        for label, compiled, events_dir in runs:
            config = StreamConfig(
                events_dir=events_dir, output_dir=os.path.join(work, f"out-{label}"),
                checkpoint_dir=os.path.join(work, f"ckpt-{label}"), input_format="parquet",
                max_files_per_trigger=args.stream_files_per_batch, compiled=compiled,
            )
            stream = EventStream(spark, Session(state), config)
            started = time.perf_counter()
            stats = stream.run_available_now()
            seconds = time.perf_counter() - started
            if label.startswith("warm-up"):
                continue
            events = sum(b.events for b in stats)
            # the first batch also pays for starting the query, the next ones for warming the JIT
            # up: the median batch after the first is what the stream sustains
            steady_rate = statistics.median(b.events / b.seconds for b in (stats[1:] or stats))
            sustained[label] = steady_rate
            print(
                f"  streaming, Parquet -> Parquet, {label} ({len(stats)} batches of ~{events // max(1, len(stats)):,} "
                f"events, {args.stream_files_per_batch} files each; {sum(b.exact_events or 0 for b in stats) / max(1, events):.2%} of "
                f"the rows on the exact path; COUNTERs from the {', '.join(sorted({str(b.counters_from) for b in stats}))}): "
                f"{seconds:.2f} s in all, {events / seconds / 1e6:.2f} M events/s; "
                f"median batch after the first: {steady_rate / 1e6:.2f} M events/s sustained",
                flush=True,
            )
        json_stream_rate(spark, src, work, args)
        started = time.perf_counter()
        spark.read.parquet(src).write.mode("overwrite").parquet(os.path.join(work, "copy"))
        copy = time.perf_counter() - started
        print(f"  (Parquet -> Parquet copy of the same files: {copy:.2f} s, {events / copy / 1e6:.2f} M events/s)", flush=True)
        for label, rate in sustained.items():
            print(f"  streaming, {label}: {rate / (events / copy):4.2f} x the Parquet copy (target >= 0.6 at 1,000,000 tables)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def json_stream_rate(spark, parquet_dir: str, work: str, args) -> None:
    """The default stream format: JSON lines (the first quarter of the input, written as 8
    files), decided and written as Parquet, ``--stream-files-per-batch`` files a batch."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    files = sorted(os.path.join(parquet_dir, f) for f in os.listdir(parquet_dir))
    staging = os.path.join(work, "json-staging")
    spark.read.parquet(*files[: max(1, len(files) // 4)]).drop("record").repartition(8).write.option("ignoreNullFields", "true").json(staging)
    src = os.path.join(work, "json-events")
    os.makedirs(src)
    for k, name in enumerate(sorted(f for f in os.listdir(staging) if f.endswith(".json"))):
        os.rename(os.path.join(staging, name), os.path.join(src, f"{k:05d}.jsonl"))
    config = StreamConfig(
        events_dir=src, output_dir=os.path.join(work, "json-out"), checkpoint_dir=os.path.join(work, "json-ckpt"),
        input_format="json", max_files_per_trigger=args.stream_files_per_batch,
    )
    stats = EventStream(spark, Session(bench_session().state), config).run_available_now()
    events = sum(b.events for b in stats)
    steady_rate = statistics.median(b.events / b.seconds for b in (stats[1:] or stats))
    print(
        f"  streaming, JSON lines -> Parquet ({len(stats)} batches of ~{events // max(1, len(stats)):,} events): "
        f"median batch after the first: {steady_rate / 1e6:.2f} M events/s sustained",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
