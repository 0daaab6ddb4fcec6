"""The stream over binary logs: what its driver does per byte (finding transaction ends,
``evaluation/binlog/tail.py``) beside what its tasks do (reading and mapping the events of a
piece, ``spark_runtime/binlog_files.segment_rows``), on the same MariaDB-written binlog as
``bench/binlog.py`` (a database per tenant, realistic row images), in one run: the ratio says
how much of the reading the driver keeps to itself, and so how far the tasks can scale.

    PYTHONPATH=$PWD /work/venv/bin/python bench/binlog_stream.py [--tenants 8] [--rows-per-tenant 40000]

CPU time (``time.process_time``) per MB of binlog; the machine is shared: compare the ratios.

``--scaling``: the same workload written as a directory of several files (MariaDB's
``max_binlog_size``, ``--max-binlog-size``), read and decided in Spark with ``local[1]`` and then
``local[2]``, each in a fresh process (JVM start not timed; best of ``--repeat`` runs after a
warm-up): ``read_events(spark, dir, "binlog")`` + ``apply_filters`` (decisions only), and the
stream with row values (``binlog_source(..., decode_rows=True)``, Trigger.AvailableNow, each batch
decided by ``apply_filters``). Printed: wall seconds, the CPU seconds of the whole process tree
(driver, JVM, Python workers, from ``/proc``), the tasks and their CPU seconds each (the pieces
read in this process), how many tasks ran at once in the stages that read the pieces (their
summed run time over the stages' wall time, from Spark's monitoring REST API: on a shared
machine the wall times move with the other jobs, this does not), and the ratio local[1] /
local[2] of wall time.

    PYTHONPATH=$PWD /work/venv/bin/python bench/binlog_stream.py --scaling [--binlog-dir DIR] [--max-binlog-size 4M]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from binlog import build_binlog  # noqa: E402  (bench/binlog.py: the MariaDB workload)

from replfilter.evaluation.binlog.tail import NO_TRANSACTION, scan  # noqa: E402
from replfilter.spark_runtime.binlog_stream import START, BinlogStreamReader  # noqa: E402
from replfilter.spark_runtime.binlog_files import segment_rows  # noqa: E402


def cpu(action) -> tuple[float, object]:
    started = time.process_time()
    result = action()
    return time.process_time() - started, result


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and all its descendants, the exited ones that were
    waited for included (``cutime``/``cstime``): a Spark process's driver, JVM and Python workers."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    ticks = os.sysconf("SC_CLK_TCK")
    total, todo = 0, [pid]
    while todo:
        here = todo.pop()
        fields = stats.get(here)
        if fields is not None:  # utime, stime, cutime, cstime: fields 14-17 of stat
            total += sum(int(x) for x in fields[11:15])
        todo.extend(children.get(here, ()))
    return total / ticks


def timed_tree(action) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process tree) of ``action()``."""
    cpu0, wall0 = tree_cpu(os.getpid()), time.perf_counter()
    action()
    return time.perf_counter() - wall0, tree_cpu(os.getpid()) - cpu0


RULE = "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('tenant_00%.%')"


def scaling_child(master: str, directory: str, repeat: int) -> dict:
    """In a fresh process: Spark on ``master``, the directory read and decided ``repeat`` times
    each way after one warm-up; the best wall time of each with its tree CPU."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.binlog_stream import binlog_source, split_log_rows
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.session import get_spark
    from replfilter.spark_runtime.transform import apply_filters

    cores = int(master[len("local["):-1])
    port = _free_port()
    spark = get_spark(master, ui=True, conf={"spark.default.parallelism": str(cores), "spark.sql.shuffle.partitions": str(cores),
                                             "spark.ui.port": str(port)})
    session = Session()
    session.execute_sql(RULE)
    state = session.state
    found = {}

    def unpersist_all() -> None:
        for rdd in list(spark.sparkContext._jsc.getPersistentRDDs().values()):
            rdd.unpersist()

    def decisions() -> None:
        ingested = read_events(spark, directory, "binlog")
        apply_filters(ingested.events, state).write.format("noop").mode("overwrite").save()
        found["dead"] = ingested.dead.count()
        found["partitions"] = ingested.events.rdd.getNumPartitions()
        unpersist_all()

    def with_rows() -> None:
        checkpoint = tempfile.mkdtemp(prefix="replfilter-bench-scaling-")

        def batch(frame, _batch_id) -> None:
            frame = frame.persist()
            events, dead = split_log_rows(frame)
            apply_filters(events.drop("_file", "_block", "_pos"), state).write.format("noop").mode("overwrite").save()
            found["rows_dead"] = found.get("rows_dead", 0) + dead.count()
            found["rows_partitions"] = frame.rdd.getNumPartitions()
            frame.unpersist()

        query = (binlog_source(spark, directory, decode_rows=True).writeStream.foreachBatch(batch)
                 .trigger(availableNow=True).option("checkpointLocation", checkpoint).start())
        query.awaitTermination()
        shutil.rmtree(checkpoint, ignore_errors=True)

    out = {"master": master}
    for name, action in (("decisions", decisions), ("rows", with_rows)):
        action()  # warm-up: Python workers started, modules imported
        runs = []
        for _ in range(repeat):
            seen = _stage_ids(spark, port)
            runs.append(timed_tree(action))
            out[f"{name}_at_once"] = _tasks_at_once(spark, port, seen)
        out[name] = min(runs)
        out[f"{name}_walls"] = [round(wall, 2) for wall, _cpu in runs]
    out.update(found)
    spark.stop()
    return out


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stages(spark, port: int) -> list[dict]:
    """The application's stages, from Spark's monitoring REST API (the UI on ``port``)."""
    from urllib.request import urlopen

    app = spark.sparkContext.applicationId
    with urlopen(f"http://127.0.0.1:{port}/api/v1/applications/{app}/stages?status=complete") as reply:
        return json.load(reply)


def _stage_ids(spark, port: int) -> set:
    return {(s["stageId"], s["attemptId"]) for s in _stages(spark, port)}


def _tasks_at_once(spark, port: int, before: set) -> float:
    """Over the stages that ran a task per piece (the reads of the binlog) since ``before``:
    the tasks' summed run time over the stages' wall time, i.e. how many ran at once on
    average (1 at most with one core)."""
    from datetime import datetime

    def ms(text: str) -> float:
        return datetime.strptime(text.replace("GMT", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000

    run = wall = 0.0
    for stage in _stages(spark, port):
        if (stage["stageId"], stage["attemptId"]) in before or stage["numTasks"] < 4:
            continue
        run += stage["executorRunTime"]
        wall += ms(stage["completionTime"]) - ms(stage["submissionTime"])
    return round(run / wall, 2) if wall else 0.0


def task_cpu(directory: str, decode_rows: bool) -> list[float]:
    """CPU seconds of each piece (one Spark task) read here, as a task reads it."""
    from pyspark.sql.streaming.datasource import ReadAllAvailable

    reader = BinlogStreamReader({"path": directory, "rows": "true" if decode_rows else "false"})
    end = reader.latestOffset(dict(START), ReadAllAvailable())
    return [cpu(lambda: sum(1 for _ in segment_rows(piece.segments, decode_rows=decode_rows)))[0]
            for piece in reader.partitions(dict(START), end)]


def scaling(args) -> None:
    keep = args.binlog_dir
    out = keep or Path(tempfile.mkdtemp(prefix="replfilter-bench-scaling-"))
    try:
        paths = sorted(out.glob("binlog.[0-9]*")) if keep else []
        if not paths:
            out.mkdir(parents=True, exist_ok=True)
            paths = build_binlog(args.tenants, args.rows_per_tenant, args.chunk, out, max_size=args.max_binlog_size)
        size_mb = sum(p.stat().st_size for p in paths) / 1e6
        print(f"binlog: {len(paths)} files, {size_mb:.1f} MB ({', '.join(f'{p.stat().st_size / 1e6:.1f}' for p in paths)} MB); "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for decode_rows in (False, True):
            tasks = task_cpu(str(out), decode_rows)
            print(f"tasks ({'with row values' if decode_rows else 'decisions only'}): {len(tasks)}, CPU seconds each "
                  f"{' '.join(f'{t:.2f}' for t in tasks)} (sum {sum(tasks):.2f}, largest {max(tasks):.2f})")
        results = {}
        for master in ("local[1]", "local[2]"):
            child = subprocess.run([sys.executable, __file__, "--scaling-child", master, str(out), "--repeat", str(args.repeat)],
                                   capture_output=True, text=True)
            if child.returncode:
                sys.exit(f"{master} failed:\n{child.stderr[-3000:]}")
            results[master] = json.loads(child.stdout.strip().splitlines()[-1])
            r = results[master]
            print(f"{master}: decisions {r['decisions'][0]:.2f} s wall ({r['decisions'][1]:.2f} s CPU, {r['partitions']} partitions, "
                  f"{r['dead']} dead letters); with row values {r['rows'][0]:.2f} s wall ({r['rows'][1]:.2f} s CPU, "
                  f"{r['rows_partitions']} partitions); every run's wall: {r['decisions_walls']}, {r['rows_walls']}; "
                  f"tasks running at once in the stages that read the pieces: {r['decisions_at_once']}, {r['rows_at_once']}; "
                  f"load average now {os.getloadavg()[0]:.2f}")
        one, two = results["local[1]"], results["local[2]"]
        print(f"local[1] / local[2] wall: {one['decisions'][0] / two['decisions'][0]:.2f} (decisions only), "
              f"{one['rows'][0] / two['rows'][0]:.2f} (with row values)")
    finally:
        if not keep:
            shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenants", type=int, default=8)
    parser.add_argument("--rows-per-tenant", type=int, default=40000)
    parser.add_argument("--chunk", type=int, default=500, help="rows per INSERT (one transaction)")
    parser.add_argument("--scaling", action="store_true", help="local[1] against local[2] on a directory of files")
    parser.add_argument("--max-binlog-size", default="4M", help="--scaling: MariaDB's max_binlog_size (several files)")
    parser.add_argument("--binlog-dir", type=Path, metavar="DIR", help="--scaling: keep the files in DIR, reuse them if there")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--scaling-child", nargs=2, metavar=("MASTER", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scaling_child:
        print(json.dumps(scaling_child(*args.scaling_child, args.repeat)))
        return
    if args.scaling:
        scaling(args)
        return
    from pyspark.sql.streaming.datasource import ReadAllAvailable

    out = Path(tempfile.mkdtemp(prefix="replfilter-bench-stream-"))
    try:
        paths = build_binlog(args.tenants, args.rows_per_tenant, args.chunk, out)
        size_mb = sum(p.stat().st_size for p in paths) / 1e6
        print(f"binlog: {len(paths)} file(s), {size_mb:.1f} MB; load average {os.getloadavg()[0]:.1f}")

        def scan_all():
            carried, cuts = NO_TRANSACTION, 0
            for k, path in enumerate(paths):
                found = scan(str(path), closed=k < len(paths) - 1, open_at_start=carried)
                carried, cuts = found.open_at_end, cuts + len(found.cuts)
            return cuts

        scan_s, cuts = cpu(scan_all)
        reader = BinlogStreamReader({"path": str(out)})
        end = reader.latestOffset(dict(START), ReadAllAvailable())
        pieces = reader.partitions(dict(START), end)
        read_s, rows = cpu(lambda: sum(1 for piece in pieces for _ in segment_rows(piece.segments)))
        decoded_s, _ = cpu(lambda: sum(1 for piece in pieces for _ in segment_rows(piece.segments, decode_rows=True)))
        print(f"driver, transaction ends: {size_mb / scan_s:,.1f} MB/s of CPU ({cuts} cuts)")
        print(f"tasks, events mapped (decisions only): {size_mb / read_s:,.1f} MB/s of CPU ({rows:,} rows, {len(pieces)} pieces)")
        print(f"tasks, with row values (--rows): {size_mb / decoded_s:,.1f} MB/s of CPU")
        print(f"driver / task cost per byte: {scan_s / read_s:.2f} (decisions only), {scan_s / decoded_s:.2f} (--rows)")
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
