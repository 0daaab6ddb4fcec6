"""The stream over binary logs: what its driver does per byte (finding transaction ends,
``evaluation/binlog/tail.py``) beside what its tasks do (reading and mapping the events of a
piece, ``spark_runtime/binlog_files.segment_rows``), on the same MariaDB-written binlog as
``bench/binlog.py`` (a database per tenant, realistic row images), in one run: the ratio says
how much of the reading the driver keeps to itself, and so how far the tasks can scale.

    PYTHONPATH=$PWD /work/venv/bin/python bench/binlog_stream.py [--tenants 8] [--rows-per-tenant 40000]

CPU time (``time.process_time``) per MB of binlog; the machine is shared: compare the ratios.
"""

from __future__ import annotations

import argparse
import os
import shutil
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenants", type=int, default=8)
    parser.add_argument("--rows-per-tenant", type=int, default=40000)
    parser.add_argument("--chunk", type=int, default=500, help="rows per INSERT (one transaction)")
    args = parser.parse_args()
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
