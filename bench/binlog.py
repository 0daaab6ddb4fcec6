"""Reading binary logs: decisions-only MB/s per core, and rows decoded per second beside
``mariadb-binlog -v`` (C++), the pure-Python ``mysql-replication`` decoders and
``mysql-event-stream``'s C++ engine (each when installed), on the same file in one run (the
machine is shared and noisy: compare the ratios).

The binlog is written by a real MariaDB (tests/mariadb_server.py) in a temporary datadir:
``--tenants`` databases (a database per tenant) each with an ``orders`` table of realistic row
images (integers, DECIMAL, VARCHAR, DATETIME, ENUM, TEXT), ROW format with full row metadata,
written by multi-row INSERTs, UPDATEs (before and after images) and DELETEs, in transactions.

    PYTHONPATH=$PWD /work/venv/bin/python bench/binlog.py [--rows-per-tenant 40000] [--tenants 8] [--binlog-dir DIR]

CPU time is measured per process (``time.process_time`` here, ``RUSAGE_CHILDREN`` for
mariadb-binlog), so "per core" is what one core does.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import mariadb_server  # noqa: E402

from replfilter.evaluation.binlog.decide import decide_files  # noqa: E402
from replfilter.evaluation.event_lines import LineEvaluator  # noqa: E402
from replfilter.server.session import Session  # noqa: E402

TABLE = """CREATE TABLE {db}.orders (
  id INT UNSIGNED NOT NULL PRIMARY KEY, customer_id BIGINT NOT NULL, total DECIMAL(12,2) NOT NULL,
  currency CHAR(3) NOT NULL, status ENUM('new','paid','shipped','cancelled') NOT NULL,
  created DATETIME(3) NOT NULL, email VARCHAR(120), note TEXT)"""

FILL = """INSERT INTO {db}.orders
  SELECT seq, seq * 7919 % 100000, (seq * 37 % 100000) / 100, 'EUR', 1 + seq % 4,
         '2024-01-01 00:00:00' + INTERVAL seq SECOND, CONCAT('customer', seq, '@example.com'),
         IF(seq % 5 = 0, NULL, REPEAT('note ', 1 + seq % 12))
  FROM {db}.seq_{low}_to_{high}"""


def build_binlog(tenants: int, rows_per_tenant: int, chunk: int, out: Path, max_size: str = "1G") -> list[Path]:
    """The workload's binlog files, copied to ``out``; ``max_size``: MariaDB's
    ``max_binlog_size`` (a smaller one writes several files)."""
    server = mariadb_server.MariaDB.start("--binlog-row-metadata=FULL", "--binlog-format=ROW", f"--max-binlog-size={max_size}")
    try:
        for t in range(tenants):
            db = f"tenant_{t:03d}"
            server.sql(f"CREATE DATABASE {db}; {TABLE.format(db=db)}")
        for low in range(1, rows_per_tenant + 1, chunk):
            high = min(low + chunk - 1, rows_per_tenant)
            script = []
            for t in range(tenants):
                db = f"tenant_{t:03d}"
                script.append(FILL.format(db=db, low=low, high=high) + ";")
                script.append(f"UPDATE {db}.orders SET status = 'paid', total = total + 1 WHERE id BETWEEN {low} AND {high} AND id % 3 = 0;")
                script.append(f"DELETE FROM {db}.orders WHERE id BETWEEN {low} AND {high} AND id % 10 = 0;")
            server.sql("\n".join(script))
        server.sql("FLUSH BINARY LOGS")
        files = []
        for path in server.binlog_files():
            if path.stat().st_size > 1000:
                copy = out / path.name
                shutil.copy(path, copy)
                files.append(copy)
        return files
    finally:
        server.stop()


def ours(paths: list[Path], decode_rows: bool) -> tuple[float, float, int, int]:
    """(cpu seconds, wall seconds, events decided, rows)."""
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('tenant_00%.%')")
    evaluator = LineEvaluator(session.state)
    events = rows = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for result in decide_files(evaluator, [str(p) for p in paths], decode_rows=decode_rows):
        events += 1
        if result.item is not None and result.item.row_count is not None:
            rows += result.item.row_count
    return time.process_time() - cpu, time.perf_counter() - wall, events, rows


_ROW_HEADS = (b"\n### INSERT INTO ", b"\n### UPDATE ", b"\n### DELETE FROM ")


def mariadb_binlog(paths: list[Path]) -> tuple[float, float, int]:
    """(cpu seconds, wall seconds, rows printed): the rows are counted in its output (``### INSERT
    INTO``, ``### UPDATE``, ``### DELETE FROM``, one per row), here, so that both readers are
    seen to handle every row of the file; counting costs this process, not the child's CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    rows, tail = 0, b""
    with subprocess.Popen(["mariadb-binlog", "-v", "--base64-output=decode-rows", *map(str, paths)],
                          stdout=subprocess.PIPE) as child:
        assert child.stdout is not None
        while chunk := child.stdout.read(1 << 20):
            text = tail + chunk
            rows += sum(text.count(head) for head in _ROW_HEADS)
            tail = text[-20:]  # a row heading cut by the chunk's end is counted with the next
            rows -= sum(tail.count(head) for head in _ROW_HEADS)
        rows += sum(tail.count(head) for head in _ROW_HEADS)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, "mariadb-binlog")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), time.perf_counter() - wall, rows


def evaluate_text(paths: list[Path]) -> float:
    """CPU seconds of ``replfilter evaluate --rows`` writing its JSON lines to /dev/null, start
    included: text out, as mariadb-binlog -v writes text."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = "import sys; from replfilter.cli.main import main; sys.exit(main())"
    with open(os.devnull, "wb") as sink:
        subprocess.run([sys.executable, "-c", code, "evaluate", "--rows", "--replicate-wild-ignore-table=tenant_00%.%",
                        *map(str, paths)], stdout=sink, check=True, cwd=Path(__file__).resolve().parent.parent)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def mysql_replication(paths: list[Path]) -> tuple[float, int] | None:
    """The pure-Python client's row decoders fed the same events (it has no offline file
    reader: its packet wrapper is given each event as a network packet would hold it)."""
    try:
        from pymysqlreplication import event as pev
        from pymysqlreplication import row_event
        from pymysqlreplication.packet import BinLogPacketWrapper
    except ImportError:
        return None
    from replfilter.evaluation.binlog.framing import read_frames

    class Packet:
        def __init__(self, data: bytes):
            self._data, self._position = data, 0

        def read(self, n: int) -> bytes:
            out = self._data[self._position:self._position + n]
            self._position += n
            return out

        def advance(self, n: int) -> None:
            self._position += n

    class Connection:
        charset = "utf8mb4"

        def _get_dbms(self) -> str:
            return "mariadb"

    allowed = {row_event.TableMapEvent, row_event.WriteRowsEvent, row_event.UpdateRowsEvent,
               row_event.DeleteRowsEvent, pev.FormatDescriptionEvent}
    tables: dict = {}
    rows = 0
    cpu = time.process_time()
    for path in paths:
        with open(path, "rb") as handle:
            for frame in read_frames(handle, path.name):
                wrapper = BinLogPacketWrapper(Packet(b"\0" + frame.data + b"\0\0\0\0"), tables, Connection(), (10, 11, 0),
                                              True, allowed, None, None, None, None, False, True, False, False, False)
                ev = wrapper.event
                if isinstance(ev, row_event.TableMapEvent):
                    tables[ev.table_id] = ev.get_table()
                elif isinstance(ev, row_event.RowsEvent):
                    rows += len(ev.rows)
    return time.process_time() - cpu, rows


def mysql_event_stream(paths: list[Path]) -> tuple[float, int] | None:
    """mysql-event-stream's engine (C++ behind ctypes, PyPI; ``pip install mysql-event-stream``)
    fed each file's bytes after the magic, as its README shows; one change event per row."""
    try:
        from mysql_event_stream import CdcEngine
    except ImportError:
        return None
    rows = 0
    cpu = time.process_time()
    for path in paths:
        data = path.read_bytes()
        with CdcEngine() as engine:
            offset = 4
            while offset < len(data) or engine.has_events():
                while engine.next_event() is not None:
                    rows += 1
                if offset < len(data):
                    offset += engine.feed(data[offset:])
    return time.process_time() - cpu, rows


def big_copy(path: Path, target_bytes: int, out: Path) -> Path:
    """A file of about ``target_bytes``: the magic and Format_description of ``path``, then its
    other events again and again (positions in the headers repeat; the reader does not need
    them to grow), written without holding it in memory."""
    from replfilter.evaluation.binlog.framing import RawEvent, read_frames

    with open(path, "rb") as handle:
        fde_end = next(f for f in read_frames(handle, path.name) if isinstance(f, RawEvent)).end_pos
    data = path.read_bytes()
    head, body = data[:fde_end], data[fde_end:]
    with open(out, "wb") as sink:
        sink.write(head)
        written = len(head)
        while written < target_bytes:
            sink.write(body)
            written += len(body)
    return out


def peak_memory(path: Path) -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of a fresh process deciding ``path`` without row values.
    The peak is the process's own ``VmHWM``: ``ru_maxrss`` would carry over the parent's peak
    across fork and exec."""
    code = (
        "import sys; sys.path.insert(0, 'bench'); import binlog; from pathlib import Path;"
        f"cpu = binlog.ours([Path({str(path)!r})], False)[0];"
        "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1];"
        "print(cpu, int(hwm) / 1024)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    cpu, rss = done.stdout.split()
    return float(cpu), float(rss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenants", type=int, default=8)
    parser.add_argument("--rows-per-tenant", type=int, default=40000)
    parser.add_argument("--chunk", type=int, default=500, help="rows per INSERT (one transaction)")
    parser.add_argument("--big-gb", type=float, default=0, help="also read a file of this many GB (the events repeated): memory flat?")
    parser.add_argument("--binlog-dir", type=Path, metavar="DIR",
                        help="keep the binlog MariaDB writes in DIR, and read the one there if DIR has one (skips the ~25 s of writing it)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="replfilter-bench-binlog-") as tmp:
        started = time.perf_counter()
        kept = sorted(args.binlog_dir.glob("binlog.[0-9]*")) if args.binlog_dir else []
        if kept:
            paths = kept
        else:
            out = args.binlog_dir or Path(tmp)
            out.mkdir(parents=True, exist_ok=True)
            paths = build_binlog(args.tenants, args.rows_per_tenant, args.chunk, out)
        size = sum(p.stat().st_size for p in paths)
        mb = size / 1e6
        print(f"binlog: {len(paths)} file(s), {mb:.1f} MB, {'read from ' + str(args.binlog_dir) if kept else 'written by MariaDB'} "
              f"in {time.perf_counter() - started:.1f} s; load average {os.getloadavg()[0]:.1f}")
        cpu, wall, events, rows = ours(paths, decode_rows=False)
        print(f"decisions only (headers, table maps, queries, row counts): {mb / cpu:.1f} MB/s per core "
              f"({cpu:.2f} s CPU, {wall:.2f} s wall, {events} events decided, {rows} rows counted)")
        cpu_rows, wall_rows, _, rows_decoded = ours(paths, decode_rows=True)
        print(f"with row values decoded: {rows_decoded / cpu_rows:,.0f} rows/s, {mb / cpu_rows:.1f} MB/s per core ({cpu_rows:.2f} s CPU)")
        cpu_c, wall_c, rows_c = mariadb_binlog(paths)
        print(f"mariadb-binlog -v: {rows_c / cpu_c:,.0f} rows/s, {mb / cpu_c:.1f} MB/s per core ({cpu_c:.2f} s CPU, {wall_c:.2f} s wall, "
              f"{rows_c} rows printed{'' if rows_c == rows_decoded else f': NOT the {rows_decoded} rows replfilter decoded'})")
        print(f"ratio, rows decoded: replfilter / mariadb-binlog -v = {cpu_c / cpu_rows:.2f}")
        cpu_t = evaluate_text(paths)
        print(f"text out: replfilter evaluate --rows > /dev/null {cpu_t:.2f} s CPU (start and JSON lines included); "
              f"ratio to mariadb-binlog -v > /dev/null = {cpu_c / cpu_t:.2f}")
        if args.big_gb:
            small_cpu, small_rss = peak_memory(paths[0])
            big = big_copy(paths[0], int(args.big_gb * 1e9), Path(tmp) / "big.000001")
            big_cpu, big_rss = peak_memory(big)
            big_mb = big.stat().st_size / 1e6
            print(f"memory: {paths[0].stat().st_size / 1e6:.0f} MB file: peak RSS {small_rss:.0f} MB ({small_cpu:.1f} s CPU); "
                  f"{big_mb:,.0f} MB file: peak RSS {big_rss:.0f} MB ({big_cpu:.1f} s CPU, {big_mb / big_cpu:.1f} MB/s per core)")
            big.unlink()
        native = mysql_event_stream(paths)
        if native is not None:
            cpu_n, rows_n = native
            print(f"mysql-event-stream (C++ via ctypes): {rows_n / cpu_n:,.0f} rows/s ({cpu_n:.2f} s CPU, {rows_n} rows); "
                  f"replfilter / mysql-event-stream = {cpu_n / cpu_rows:.2f}")
        other = mysql_replication(paths)
        if other is not None:
            cpu_p, rows_p = other
            print(f"mysql-replication row decoders: {rows_p / cpu_p:,.0f} rows/s ({cpu_p:.2f} s CPU, {rows_p} rows); "
                  f"replfilter / mysql-replication = {cpu_p / cpu_rows:.2f}")


if __name__ == "__main__":
    main()
