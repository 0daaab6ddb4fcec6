"""``replfilter serve``: the floor a statement costs over the wire, against a real statement, to show
where one client's time goes (README, "Benchmarks": the one-client target of >= 0.7x).

For one client on one connection, each kind of request is timed back to back:

* ``ping``: COM_PING, answered with an OK by the connection code, no statement at all (PyMySQL);
* ``floor``: ``SELECT @@version``, the cheapest statement the Session answers (PyMySQL, and the
  ``mariadb`` client in batch mode);
* ``real``: bench/serve.py's script of short statements (a filter change, a read of it, SHOW
  WARNINGS, SELECT @@version), the one the 0.7x target is measured on (same two clients).

Each line gives the client's wall time a request, the server's CPU a request (from
/proc/PID/stat), the difference (time neither spent computing: the kernel, the wake-ups, the
client), and for the statements the same text's CPU time in process on a Session, with the
ratio in-process CPU / wire wall (the one-client ratio a quiet machine would show). ``--burn N`` runs N busy
processes during the runs (on a 2-core VM a busy machine wakes the server on the CPU it slept on,
a quiet one may move it), ``--pin CPU`` runs the server and the clients on that one CPU (taskset).

    PYTHONPATH=. .venv/bin/python bench/serve_floor.py [--requests 4000] [--burn 0] [--pin CPU]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import PASSWORD, SETUP, USER, connect, cpu_seconds, start_server, statement  # noqa: E402


def _burn(stop: "multiprocessing.synchronize.Event") -> None:
    while not stop.is_set():
        sum(range(10_000))


def timed(pid: int, count: int, run: Callable[[], None]) -> tuple[float, float]:
    """(wall seconds, server CPU seconds) per request of ``run``, which sends ``count`` of them."""
    cpu, started = cpu_seconds(pid), time.perf_counter()
    run()
    return (time.perf_counter() - started) / count, (cpu_seconds(pid) - cpu) / count


def in_process(texts: list[str]) -> float:
    """CPU seconds a statement on a Session with the hooks every front-end installs: on a quiet
    machine its wall time, the in-process rate bench/serve.py's ratio divides by; under load the
    CPU time is the steadier figure."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.applier import install_applier

    session = Session()
    install_applier(session)
    for text in SETUP:
        session.execute_text(text)
    started = time.process_time()
    for text in texts:
        session.execute_text(text)
    return (time.process_time() - started) / len(texts)


def mariadb_batch(port: int, texts: list[str]) -> Callable[[], None]:
    script = "".join(t + ";\n" for t in texts)
    return lambda: subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", f"-u{USER}", f"-p{PASSWORD}"],
                                  input=script, stdout=subprocess.DEVNULL, check=True, text=True)


def pymysql_loop(cursor, texts: list[str]) -> Callable[[], None]:  # type: ignore[no-untyped-def]
    def run() -> None:
        for text in texts:
            cursor.execute(text)
            cursor.fetchall()
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--burn", type=int, default=0, help="busy processes during the runs")
    parser.add_argument("--pin", type=int, default=None, help="run server and clients on this CPU")
    options = parser.parse_args()
    if options.pin is not None:
        os.sched_setaffinity(0, {options.pin})  # the server and the mariadb client inherit it
    count = options.requests
    floor, real = ["SELECT @@version"] * count, [statement(i) for i in range(count)]
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True) for _ in range(options.burn)]
    with tempfile.TemporaryDirectory() as tmp:
        server, port, _, _ = start_server(Path(tmp))
        try:
            connection = connect(port)
            cursor = connection.cursor()
            for text in SETUP:
                cursor.execute(text)
            for burner in burners:
                burner.start()
            time.sleep(0.5 if burners else 0)
            load = os.getloadavg()[0]
            rows = [
                ("ping (COM_PING), PyMySQL", timed(server.pid, count, lambda: [connection.ping(False) for _ in range(count)]), None),
                ("floor: SELECT @@version, PyMySQL", timed(server.pid, count, pymysql_loop(cursor, floor)), floor),
                ("real: the serve.py script, PyMySQL", timed(server.pid, count, pymysql_loop(cursor, real)), real),
                ("floor: SELECT @@version, mariadb batch", timed(server.pid, count, mariadb_batch(port, floor)), floor),
                ("real: the serve.py script, mariadb batch", timed(server.pid, count, mariadb_batch(port, real)), real),
            ]
            load = max(load, os.getloadavg()[0])
        finally:
            stop.set()
            server.terminate()
            server.wait(timeout=60)
    print(f"{count} requests each; load average {load:.2f} (max of before/after); burners {options.burn}; "
          f"pinned to CPU {options.pin}" if options.pin is not None else
          f"{count} requests each; load average {load:.2f} (max of before/after); burners {options.burn}; not pinned")
    print(f"{'request':44s} {'wall us':>8s} {'server CPU us':>14s} {'wall-CPU us':>12s} {'in-proc CPU us':>14s} {'ratio':>6s}")
    for name, (wall, cpu), texts in rows:
        own = in_process(texts) if texts else None
        ratio = f"{own / wall:.2f}x" if own else "-"
        print(f"{name:44s} {wall * 1e6:8.1f} {cpu * 1e6:14.1f} {(wall - cpu) * 1e6:12.1f} "
              f"{own * 1e6 if own else float('nan'):14.1f} {ratio:>6s}")


if __name__ == "__main__":
    main()
