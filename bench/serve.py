"""``replfilter serve``: statements over TCP against the same statements in process; many clients;
time to accept connections; memory per idle connection.

Four figures, each against its target (README, "replfilter serve"):

* one client (the ``mariadb`` client in batch mode, then PyMySQL) running a script of short
  statements over TCP, as a rate, against the same script run in process on a Session with the
  hooks every front-end installs (target: >= 0.7x), and on a bare Session; the in-process runs
  are made just before and just after the client's, so both see the same load;
* 64 clients x 2,000 statements each, from 8 processes of 8 threads: every statement answered, no
  error; the rate and the 99th-percentile latency;
* time from starting ``replfilter serve`` to its first accepted connection (target: <= 0.5 s), and
  that no JVM was started;
* the server's resident memory grown per idle connection, over 200 connections (target: <= 1 MB).

    .venv/bin/python bench/serve.py [--statements N] [--clients 64] [--per-client 2000]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

USER, PASSWORD = "bench", "bench-pw"
SETUP = [f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='source-{k}' FOR CHANNEL 'ch_{k}'" for k in range(64)]
SCRIPT = [
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales_{k}), REPLICATE_WILD_IGNORE_TABLE = ('sales_{k}.tmp\\_%') FOR CHANNEL 'ch_{k}'",
    "SELECT FILTER_NAME, FILTER_RULE FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME = 'ch_{k}'",
    "SHOW WARNINGS",
    "SELECT @@version",
]
"""Short statements a configuration tool sends: a filter change, a read of it, the warnings."""
READY = re.compile(r"ready for connections\..* port: (\d+)")


def statement(i: int, k: int = 0) -> str:
    return SCRIPT[i % len(SCRIPT)].format(k=k)


def start_server(workdir: Path, *extra: str) -> tuple[subprocess.Popen[str], int, float, float]:
    """The server on a free port; seconds from spawn to the first accepted connection, and the CPU
    seconds the server had used by then (what a machine with an idle core would take)."""
    password_file = workdir / "pw"
    password_file.write_text(PASSWORD + "\n")
    port = _free_port()
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "replfilter", "serve", "--port", str(port), "--user", USER,
                                "--password-file", str(password_file), "--max-connections", "1000", *extra],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                probe.recv(1)  # the handshake's first byte: the connection was accepted and served
            return process, port, time.perf_counter() - started, cpu_seconds(process.pid)
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"replfilter serve failed: {process.stderr.read() if process.stderr else ''}")
            time.sleep(0.002)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect(port: int):  # type: ignore[no-untyped-def]
    import pymysql

    return pymysql.connect(host="127.0.0.1", port=port, user=USER, password=PASSWORD, autocommit=True)


def in_process_rate(count: int, applier_hooks: bool) -> tuple[float, float]:
    """(statements per second, CPU seconds per statement) of the script on a Session; with
    ``applier_hooks``, the Spark applier's hooks installed (no JVM starts), as every front-end
    runs it: ``replfilter script.sql``, the shell and ``replfilter serve`` alike."""
    from replfilter.server.session import Session

    session = Session()
    if applier_hooks:
        from replfilter.spark_runtime.applier import install_applier

        install_applier(session)
    for text in SETUP:
        session.execute_text(text)
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(count):
        session.execute_text(statement(i))
    return count / (time.perf_counter() - started), (time.process_time() - cpu) / count


def one_client_rate(port: int, count: int, pid: int, client: str) -> tuple[float, float]:
    """(statements per second, the server's CPU seconds per statement) of the script sent by one
    client: the mariadb client in batch mode (C, as a DBA's script runs), or PyMySQL."""
    cursor = connect(port).cursor()
    for text in SETUP:
        cursor.execute(text)
    script = "".join(statement(i) + ";\n" for i in range(count))
    cpu, started = cpu_seconds(pid), time.perf_counter()
    if client == "mariadb":
        subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", f"-u{USER}", f"-p{PASSWORD}"], input=script,
                       stdout=subprocess.DEVNULL, check=True, text=True)
    else:
        for i in range(count):
            cursor.execute(statement(i))
            cursor.fetchall()
    return count / (time.perf_counter() - started), (cpu_seconds(pid) - cpu) / count


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _client_process(port: int, first: int, threads: int, per_client: int, out: "multiprocessing.Queue[object]") -> None:
    latencies: list[float] = []
    errors: list[str] = []
    answered = [0]
    lock = threading.Lock()

    def client(k: int) -> None:
        mine: list[float] = []
        try:
            cursor = connect(port).cursor()
            for i in range(per_client):
                sent = time.perf_counter()
                cursor.execute(statement(i, k))
                cursor.fetchall()
                mine.append(time.perf_counter() - sent)
        except Exception as exc:  # counted, reported
            with lock:
                errors.append(repr(exc))
        with lock:
            latencies.extend(mine)
            answered[0] += len(mine)

    pool = [threading.Thread(target=client, args=(first + t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    out.put((answered[0], errors, latencies))


def many_clients(port: int, clients: int, per_client: int, processes: int = 8) -> tuple[int, list[str], float, float]:
    queue: multiprocessing.Queue[object] = multiprocessing.Queue()
    per_process = clients // processes
    workers = [multiprocessing.Process(target=_client_process, args=(port, p * per_process, per_process, per_client, queue))
               for p in range(processes)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    results = [queue.get() for _ in workers]
    elapsed = time.perf_counter() - started
    for worker in workers:
        worker.join()
    answered = sum(r[0] for r in results)  # type: ignore[index]
    errors = [e for r in results for e in r[1]]  # type: ignore[index]
    latencies = sorted(x for r in results for x in r[2])  # type: ignore[index]
    p99 = latencies[int(len(latencies) * 0.99) - 1] if latencies else float("nan")
    return answered, errors, answered / elapsed, p99


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit("no VmRSS")


def has_java_child(pid: int) -> bool:
    found = subprocess.run(["ps", "-o", "comm=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return "java" in found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=4000, help="statements in the one-client script")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--per-client", type=int, default=2000)
    parser.add_argument("--idle", type=int, default=200, help="idle connections for the memory figure")
    parser.add_argument("--starts", type=int, default=5, help="server starts timed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        starts, cpus = [], []
        for _ in range(args.starts):
            process, port, seconds, cpu = start_server(workdir)
            starts.append(seconds)
            cpus.append(cpu)
            java = has_java_child(process.pid)
            process.terminate()
            process.wait()
        print(f"start to first accepted connection: median {statistics.median(starts):.3f} s, max {max(starts):.3f} s "
              f"over {args.starts} starts (target <= 0.5 s), CPU used by then: median {statistics.median(cpus):.3f} s; "
              f"JVM started: {'yes' if java else 'no'}")

        process, port, _, _ = start_server(workdir)
        try:
            clients = (["mariadb"] if shutil.which("mariadb") else []) + ["pymysql"]
            for client in clients:
                # in process just before and just after the client's run, each figure the mean of the two
                bare = [in_process_rate(args.statements, applier_hooks=False)]
                hooked = [in_process_rate(args.statements, applier_hooks=True)]
                remote, server_cpu = one_client_rate(port, args.statements, process.pid, client)
                hooked.append(in_process_rate(args.statements, applier_hooks=True))
                bare.append(in_process_rate(args.statements, applier_hooks=False))
                local, local_cpu = (statistics.mean(x) for x in zip(*hooked))
                plain, plain_cpu = (statistics.mean(x) for x in zip(*bare))
                print(f"one client ({client}), {args.statements} short statements: {remote:,.0f}/s over TCP vs "
                      f"{local:,.0f}/s in process = {remote / local:.2f}x (target >= 0.7x); without the applier's "
                      f"hooks {plain:,.0f}/s = {remote / plain:.2f}x; CPU per statement: server {server_cpu * 1e6:.0f} us, "
                      f"in process {local_cpu * 1e6:.0f} us ({plain_cpu * 1e6:.0f} us without the hooks)")

            answered, errors, rate, p99 = many_clients(port, args.clients, args.per_client)
            expected = args.clients * args.per_client
            print(f"{args.clients} clients x {args.per_client} statements: {answered:,}/{expected:,} answered, "
                  f"{len(errors)} errors, {rate:,.0f} statements/s, p99 latency {p99 * 1000:.1f} ms")
            for error in errors[:3]:
                print(f"  error: {error}")

            before = rss_kib(process.pid)
            idle = [connect(port) for _ in range(args.idle)]
            time.sleep(0.5)
            after = rss_kib(process.pid)
            print(f"memory per idle connection: {(after - before) / args.idle:.0f} KiB over {args.idle} connections "
                  f"(RSS {before / 1024:.1f} -> {after / 1024:.1f} MiB; target <= 1024 KiB)")
            for connection in idle:
                connection.close()
        finally:
            process.terminate()
            process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
