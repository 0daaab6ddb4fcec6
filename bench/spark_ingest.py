"""JSON and Debezium input: replfilter's ingest against Spark's own JSON read, one run.

Run: PYTHONPATH=$PWD /work/venv/bin/python bench/spark_ingest.py [--events 1000000] [--data DIR]
     [--repeat 2] [--profile] [--skip-stream] [--compiled]

Input (generated with Spark expressions, reused from ``--data`` when there): a ROW-format relay
log of ``--events`` events as event JSON lines, 8 files: 4 channels, 2,000 tables (40 databases
of 50), 45% row events, 50% transaction events (GTID, BEGIN, XID), 5% query events with their
SQL text and table list (a tenth of them DDL: 0.5%); and the row events of the same log as
Debezium MySQL change envelopes (``before``/``after`` row images of ~400 bytes, ``source``
block), 8 files. Event JSON lines have no row image: the event format has no ``record`` key
(``from_json`` refuses one), so the images travel in the Debezium envelopes.

Printed, each the best of ``--repeat`` runs, every frame written to Spark's ``noop`` sink:

* Spark's own read of the JSON lines, ``spark.read.schema(EVENT_SCHEMA).json(path)``;
* ``read_events(spark, path, "json")`` + ``apply_filters`` as on new files (key cache cleared);
* Spark's own ``read.json`` of the Debezium envelopes (schema inferred, as a user would; and
  with the inferred schema given);
* ``read_events(spark, path, "debezium")`` + ``apply_filters``, new files;
* the ratios (target >= 0.5 x Spark's own read of the same lines/envelopes);
* with ``--compiled``, both again deciding with ``apply_filters(..., compiled=True)``;
* the stream's sustained rate on the JSON files (``replfilter stream``'s micro-batch function,
  two files a batch, Parquet written): the median batch after the first.

``--profile`` adds the phases of the JSON path: the text read, the parse, the parse with the
native check, ``read_events`` alone (parse, check, local checkpoint), pass 1 (key count) and
pass 2 (lookup) over the kept lines, and ``apply_filters`` over the kept lines as it runs them:
the call (its pass 1 and the decisions) and the write of its frame.

Each figure also gives the driver JVM's CPU seconds (local mode: the executors run in it; the
driver's Python deciding the distinct keys is not in it, nor Python workers, which clean input
does not start): on a shared machine the ratio of CPU seconds moves less than that of wall time.
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
N_DBS = 40
TABLES_PER_DB = 50
FILES = 8

SETUP_SQL = """
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL '';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'c1';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'c2';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'c3';
CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db11), REPLICATE_IGNORE_TABLE=(db1.t13, db2.t14, db3.t15),
  REPLICATE_WILD_IGNORE_TABLE=('db%.t1_', 'db4.%'), REPLICATE_REWRITE_DB=((db5, db5_copy), (db6, db6_copy)) FOR CHANNEL '';
CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1, db2, db3, db7, db8, db9_copy), REPLICATE_DO_TABLE=(db1.t1, db2.t2, db3.t3),
  REPLICATE_WILD_DO_TABLE=('db7.t%', 'db8.t2%', 'db9_copy.%'), REPLICATE_WILD_IGNORE_TABLE=('db1.%'),
  REPLICATE_REWRITE_DB=((db9, db9_copy)) FOR CHANNEL 'c1';
CHANGE REPLICATION FILTER REPLICATE_DO_TABLE=(db0.t0, db0.t12, db0.t24), REPLICATE_IGNORE_TABLE=(db0.t36),
  REPLICATE_WILD_DO_TABLE=('db1_.%', 'db2.t1%', 'db\\_3.%', 'db4.%'), REPLICATE_WILD_IGNORE_TABLE=('db%.t3%')
  FOR CHANNEL 'c2';
CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE=('db3%.%', 'db2_.t4%') FOR CHANNEL 'c3';
"""


def bench_state():
    from replfilter.server.session import Session

    session = Session()
    session.execute_sql(SETUP_SQL)
    return session.state


def _relay_log(spark, n: int):
    """The relay log as columns: one row per event, in log order."""
    from pyspark.sql import functions as F

    i = F.col("id")
    slot = F.pmod(i, F.lit(20))
    table_index = F.pmod(F.xxhash64(i), F.lit(N_DBS * TABLES_PER_DB))
    db = F.concat(F.lit("db"), F.floor(table_index / TABLES_PER_DB).cast("string"))
    table = F.concat(F.lit("t"), F.pmod(table_index, F.lit(TABLES_PER_DB)).cast("string"))
    channel = F.element_at(F.array(*[F.lit(c) for c in CHANNELS]), (F.pmod(F.floor(i / 20), F.lit(4)) + 1).cast("int"))
    kind = F.when(slot <= 8, "row").when(slot == 19, "query").otherwise("transaction")
    trx = F.element_at(F.array(F.lit("GTID"), F.lit("BEGIN"), F.lit("XID")), (F.pmod(slot, F.lit(3)) + 1).cast("int"))
    ddl = F.pmod(F.floor(i / 20), F.lit(10)) == 0
    qualified = F.pmod(F.xxhash64(i, F.lit(1)), F.lit(2)) == 0
    name = F.when(qualified, F.concat(db, F.lit("."), table)).otherwise(table)
    dml = F.element_at(F.array(*[F.lit(c) for c in ("INSERT", "UPDATE", "DELETE", "INSERT")]), (F.pmod(i, F.lit(4)) + 1).cast("int"))
    command = F.when(ddl, F.when(F.pmod(i, F.lit(3)) == 0, "CREATE_TABLE").otherwise("ALTER_TABLE")).otherwise(dml)
    sql = (
        F.when(ddl & (command == "CREATE_TABLE"), F.concat(F.lit("CREATE TABLE "), name, F.lit(" (id BIGINT PRIMARY KEY, name VARCHAR(64), amount DECIMAL(10,2))")))
        .when(ddl, F.concat(F.lit("ALTER TABLE "), name, F.lit(" ADD COLUMN note VARCHAR(255) NULL")))
        .when(command == "INSERT", F.concat(F.lit("INSERT INTO "), name, F.lit(" (id, name, amount) VALUES ("), i.cast("string"), F.lit(", 'customer-"), i.cast("string"), F.lit("', 12.50)")))
        .when(command == "UPDATE", F.concat(F.lit("UPDATE "), name, F.lit(" SET amount = amount + 1 WHERE id = "), i.cast("string")))
        .otherwise(F.concat(F.lit("DELETE FROM "), name, F.lit(" WHERE id = "), i.cast("string")))
    )
    gtid = F.concat(F.lit("3e11fa47-71ca-11e1-9e33-c80aa9429562:"), F.floor(i / 20 + 1).cast("string"))
    return spark.range(0, n, 1, FILES).select(i, kind.alias("type"), channel.alias("channel"), db.alias("db"), table.alias("table"),
                                              F.when(qualified, db).alias("table_db"), trx.alias("kind"), command.alias("command"),
                                              sql.alias("sql"), gtid.alias("gtid"))


def generate(spark, lines_dir: str, debezium_dir: str, n: int) -> None:
    from pyspark.sql import functions as F

    log = _relay_log(spark, n)
    typ = F.col("type")
    tables = F.array(F.struct(F.col("table_db").alias("db"), F.col("table").alias("table"), F.lit(True).alias("updating")))
    event = F.when(typ == "row", F.to_json(F.struct(F.lit(1).alias("v"), typ, "channel", "db", "table"))).when(
        typ == "transaction",
        F.to_json(F.struct(F.lit(1).alias("v"), typ, "channel", "kind", F.when(F.col("kind") == "GTID", F.col("gtid")).alias("gtid"))),
    ).otherwise(
        F.to_json(F.struct(
            F.lit(1).alias("v"), typ, "channel", F.col("db").alias("default_db"), "command", tables.alias("tables"), "sql",
            F.lit(False).alias("temporary"), F.lit(False).alias("if_exists"),
        ))
    )
    log.select(event.alias("value")).write.mode("overwrite").text(lines_dir)

    i = F.col("id")
    image = lambda salt: F.struct(  # noqa: E731 - a row image of ~400 bytes
        i.alias("id"),
        F.concat(F.lit("customer-"), i.cast("string")).alias("name"),
        F.concat(F.lit("customer"), i.cast("string"), F.lit("@example.com")).alias("email"),
        (F.pmod(F.xxhash64(i, F.lit(salt)), F.lit(100000)) / 100).alias("amount"),
        F.lit("2026-11-24T12:00:00Z").alias("created_at"),
        F.repeat(F.substring(F.sha2(F.concat(i.cast("string"), F.lit(salt)), 256), 1, 50), 5).alias("notes"),
    )
    op = F.element_at(F.array(F.lit("c"), F.lit("u"), F.lit("u"), F.lit("d"), F.lit("c")), (F.pmod(i, F.lit(5)) + 1).cast("int"))
    source = F.struct(
        F.lit("2.7.0.Final").alias("version"), F.lit("mysql").alias("connector"), F.lit("dbserver1").alias("name"),
        (F.lit(1764000000000) + i).alias("ts_ms"), F.lit("false").alias("snapshot"), F.col("db").alias("db"),
        F.lit(None).cast("string").alias("sequence"), F.col("table").alias("table"), F.lit(223344).alias("server_id"),
        F.col("gtid").alias("gtid"), F.lit("mysql-bin.000003").alias("file"), (F.lit(154) + i * 7).alias("pos"),
        F.lit(0).alias("row"), F.lit(7).alias("thread"), F.lit(None).cast("string").alias("query"),
    )
    envelope = F.to_json(F.struct(
        F.when(op != "c", image(1)).alias("before"), F.when(op != "d", image(2)).alias("after"), source.alias("source"),
        op.alias("op"), (F.lit(1764000000100) + i).alias("ts_ms"), F.lit(None).cast("string").alias("transaction"),
    ))
    log.where(typ == "row").select(envelope.alias("value")).write.mode("overwrite").text(debezium_dir)


CPU: list[float] = []
"""The driver JVM's CPU seconds of the last :func:`timed` call's best run (local mode: the
executors are that JVM), a figure the shared machine's load moves less than wall time."""


def _jvm_cpu_seconds(spark) -> float:
    pid = spark.sparkContext._gateway.jvm.java.lang.ProcessHandle.current().pid()
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn, repeat: int, spark=None) -> float:
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        cpu = _jvm_cpu_seconds(spark) if spark is not None else 0.0
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
        if spark is not None:
            best_cpu = min(best_cpu, _jvm_cpu_seconds(spark) - cpu)
    CPU[:] = [best_cpu]
    return best


def noop(frame) -> None:
    frame.write.format("noop").mode("overwrite").save()



def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "replfilter-bench-ingest"))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="also time the phases of the JSON path")
    parser.add_argument("--skip-stream", action="store_true")
    parser.add_argument("--only", choices=("json", "debezium", "stream"), default=None)
    parser.add_argument("--compiled", action="store_true", help="also decide with apply_filters(compiled=True)")
    args = parser.parse_args(argv)

    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.key_cache import KEY_CACHE
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from replfilter.spark_runtime.session import get_spark
    from replfilter.spark_runtime.transform import apply_filters

    spark = get_spark(args.master, app_name="replfilter-bench-ingest", conf={"spark.driver.memory": "6g"})
    cores = spark.sparkContext.defaultParallelism
    lines_dir = os.path.join(args.data, f"events-{args.events}.jsonl")
    debezium_dir = os.path.join(args.data, f"debezium-{args.events}.json")
    if not (os.path.exists(os.path.join(lines_dir, "_SUCCESS")) and os.path.exists(os.path.join(debezium_dir, "_SUCCESS"))):
        print(f"generating {args.events:,} events -> {args.data}", flush=True)
        generate(spark, lines_dir, debezium_dir, args.events)
    n_lines = spark.read.text(lines_dir).count()
    n_envelopes = spark.read.text(debezium_dir).count()
    state = bench_state()
    print(
        f"input: {n_lines:,} event JSON lines ({_size(lines_dir)}), {n_envelopes:,} Debezium envelopes "
        f"({_size(debezium_dir)}), {FILES} files each; master {args.master} ({cores} cores); Spark {spark.version}; "
        f"load {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results: dict[str, float] = {}
    cpu: dict[str, float] = {}

    def report(name: str, seconds: float, count: int) -> None:
        results[name], cpu[name] = seconds, CPU[0]
        print(
            f"  {name:<52} {seconds:7.2f} s  {count / seconds / 1e6:6.2f} M records/s  (JVM CPU {CPU[0]:6.2f} s)",
            flush=True,
        )

    def ratio(ours: str, theirs: str) -> str:
        return f"{results[theirs] / results[ours]:.2f} x (by JVM CPU seconds: {cpu[theirs] / cpu[ours]:.2f} x)"

    def new_files(fn):
        def run():
            KEY_CACHE.clear()
            fn()
        return run

    def decided_new(directory: str, fmt: str, compiled: bool) -> float:
        """``read_events`` + ``apply_filters`` on new files; ``compiled=False`` is the two passes
        (the compiled path is the default), so ``--compiled`` adds the other path's rows."""
        return timed(new_files(lambda: noop(apply_filters(read_events(spark, directory, fmt).events, state, compiled=compiled))),
                     args.repeat, spark)

    if args.only in (None, "json"):
        report("Spark: read.schema(EVENT_SCHEMA).json", timed(lambda: noop(spark.read.schema(EVENT_SCHEMA).json(lines_dir)), args.repeat, spark), n_lines)
        report(
            "read_events json + apply_filters, new files",
            decided_new(lines_dir, "json", False),
            n_lines,
        )
        print(
            f"  JSON lines: {ratio('read_events json + apply_filters, new files', 'Spark: read.schema(EVENT_SCHEMA).json')} "
            "Spark's own read (target >= 0.5)",
            flush=True,
        )
        if args.compiled:
            mine = "read_events json + apply_filters(compiled), new"
            report(
                mine,
                decided_new(lines_dir, "json", True),
                n_lines,
            )
            print(f"  JSON lines, compiled: {ratio(mine, 'Spark: read.schema(EVENT_SCHEMA).json')} Spark's own read", flush=True)
        if args.profile:
            profile_json(spark, lines_dir, state, args.repeat, n_lines)
    if args.only in (None, "debezium"):
        inferred = spark.read.json(debezium_dir).schema
        report("Spark: read.json (schema inferred)", timed(lambda: noop(spark.read.json(debezium_dir)), args.repeat, spark), n_envelopes)
        report("Spark: read.schema(inferred).json", timed(lambda: noop(spark.read.schema(inferred).json(debezium_dir)), args.repeat, spark), n_envelopes)
        report(
            "read_events debezium + apply_filters, new files",
            decided_new(debezium_dir, "debezium", False),
            n_envelopes,
        )
        mine = "read_events debezium + apply_filters, new files"
        print(
            f"  Debezium: {ratio(mine, 'Spark: read.json (schema inferred)')} Spark's read.json with inference, "
            f"{ratio(mine, 'Spark: read.schema(inferred).json')} with the schema given (target >= 0.5)",
            flush=True,
        )
        if args.compiled:
            mine = "read_events debezium + apply_filters(compiled), new"
            report(
                mine,
                decided_new(debezium_dir, "debezium", True),
                n_envelopes,
            )
            print(f"  Debezium, compiled: {ratio(mine, 'Spark: read.json (schema inferred)')} Spark's read.json with inference",
                  flush=True)
    if args.only in (None, "stream") and not args.skip_stream:
        stream_rate(spark, lines_dir, state)
    return 0


def _size(path: str) -> str:
    total = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    return f"{total / 1e6:.0f} MB"


def profile_json(spark, lines_dir: str, state, repeat: int, n: int) -> None:
    """The JSON path's phases, each a job of its own over the same lines."""
    from pyspark.sql import functions as F

    from replfilter.spark_runtime.ingest import checked_lines, read_events
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from replfilter.spark_runtime.key_cache import KEY_CACHE
    from replfilter.spark_runtime.transform import apply_filters, collect_keys, decide_keys, join_decisions

    def lines():
        return spark.read.option("lineSep", "\n").text(lines_dir).select(
            "value", F.col("_metadata.file_path").alias("_file"), F.col("_metadata.file_block_start").alias("_block")
        )

    def show(name, seconds):
        print(f"    phase: {name:<48} {seconds:7.2f} s  {n / seconds / 1e6:6.2f} M lines/s  (JVM CPU {CPU[0]:6.2f} s)", flush=True)

    show("text read", timed(lambda: noop(lines()), repeat, spark))
    show("parse (from_json, EVENT_SCHEMA)", timed(lambda: noop(lines().select(F.from_json("value", EVENT_SCHEMA))), repeat, spark))
    show("parse + native check (checked_lines)", timed(lambda: noop(checked_lines(lines(), source_col="_file")[0]), repeat, spark))
    show("read_events json (parse, check, keep)", timed(lambda: read_events(spark, lines_dir, "json"), repeat, spark))
    events = read_events(spark, lines_dir, "json").events
    KEY_CACHE.clear()
    show("pass 1: collect_keys", timed(lambda: collect_keys(events), repeat, spark))
    decisions = decide_keys(collect_keys(events), state)
    show("pass 2: join_decisions", timed(lambda: noop(join_decisions(events, decisions)), repeat, spark))

    def decide():
        KEY_CACHE.clear()
        return apply_filters(events, state)

    # what apply_filters itself runs: pass 1 as it counts (kept, counted, collected) and the
    # decisions, when called; the write of its frame (pass 2 with its plan) afterwards
    show("apply_filters called (pass 1, decisions)", timed(decide, repeat, spark))
    decided = decide()
    show("apply_filters' frame written (pass 2)", timed(lambda: noop(decided), repeat, spark))


def stream_rate(spark, lines_dir: str, state) -> None:
    """``replfilter stream``'s micro-batch function over the JSON files, two files a batch."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    work = tempfile.mkdtemp(prefix="replfilter-ingest-bench-")
    try:
        src = os.path.join(work, "events")
        os.makedirs(src)
        for k, name in enumerate(sorted(f for f in os.listdir(lines_dir) if f.endswith(".txt"))):
            os.link(os.path.join(lines_dir, name), os.path.join(src, f"{k:05d}.jsonl"))
        config = StreamConfig(
            events_dir=src, output_dir=os.path.join(work, "out"), checkpoint_dir=os.path.join(work, "ckpt"),
            input_format="json", max_files_per_trigger=2,
        )
        stats = EventStream(spark, Session(state), config).run_available_now()
        events = sum(b.events for b in stats)
        steady = statistics.median(b.events / b.seconds for b in (stats[1:] or stats))
        started = time.perf_counter()
        spark.read.parquet  # noqa: B018 - (the copy below is the Parquet yardstick)
        from replfilter.spark_runtime.schema import EVENT_SCHEMA

        spark.read.schema(EVENT_SCHEMA).json(src).write.mode("overwrite").parquet(os.path.join(work, "copy"))
        copy = time.perf_counter() - started
        print(
            f"  stream, JSON lines -> Parquet ({len(stats)} batches of ~{events // max(1, len(stats)):,} events, 2 files each): "
            f"median batch after the first {steady / 1e6:.2f} M events/s; "
            f"(Spark's JSON -> Parquet copy of the same files: {events / copy / 1e6:.2f} M events/s)",
            flush=True,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
