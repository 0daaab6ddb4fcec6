"""``replfilter serve``: the server's CPU a statement of bench/serve.py's script, for two or more
source trees in turns (README, "Cost of the wire"), so that a change is measured against the
tree before it under the same load.

One server is started from each tree (``python -m replfilter serve`` with that tree first on
``PYTHONPATH``); each round sends the script (the ``mariadb`` client in batch mode) to every
server in turn, the order reversed every other round, then runs the same script in process on a
Session with the applier's hooks (first tree). Printed: per round and tree the server's CPU
(user + system, /proc/PID/stat) and the client's wall time a statement; then medians and ranges,
and in-process CPU / server CPU, the one-client ratio a quiet machine would show.

    .venv/bin/python bench/serve_turns.py --rounds 12 TREE_BEFORE TREE_AFTER [...]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import PASSWORD, SETUP, USER, _free_port, connect, cpu_seconds, statement  # noqa: E402

IN_PROCESS = """
import sys, time
sys.path.insert(0, 'bench')
from serve import SETUP, statement
from replfilter.server.session import Session
from replfilter.spark_runtime.applier import install_applier
session = Session()
install_applier(session)
for text in SETUP:
    session.execute_text(text)
started = time.process_time()
for i in range({count}):
    session.execute_text(statement(i))
print((time.process_time() - started) / {count})
"""


def start(tree: Path, password_file: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "replfilter", "serve", "--port", str(port), "--user", USER,
                                "--password-file", str(password_file)], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(1500):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.02)
    cursor = connect(port).cursor()
    for text in SETUP:
        cursor.execute(text)
    return process, port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--statements", type=int, default=4000)
    options = parser.parse_args()
    count = options.statements
    script = "".join(statement(i) + ";\n" for i in range(count))
    cpu: dict[Path, list[float]] = {tree: [] for tree in options.trees}
    wall: dict[Path, list[float]] = {tree: [] for tree in options.trees}
    own, loads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        password_file = Path(tmp) / "pw"
        password_file.write_text(PASSWORD + "\n")
        servers = [(tree, *start(tree.resolve(), password_file)) for tree in options.trees]
        try:
            for round_ in range(options.rounds):
                for tree, process, port in servers if round_ % 2 == 0 else servers[::-1]:
                    used, started = cpu_seconds(process.pid), time.perf_counter()
                    subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", f"-u{USER}", f"-p{PASSWORD}"], input=script,
                                   stdout=subprocess.DEVNULL, check=True, text=True)
                    wall[tree].append((time.perf_counter() - started) / count)
                    cpu[tree].append((cpu_seconds(process.pid) - used) / count)
                first = options.trees[0].resolve()
                own.append(float(subprocess.run([sys.executable, "-c", IN_PROCESS.format(count=count)], cwd=first,
                                                env={**os.environ, "PYTHONPATH": str(first)}, capture_output=True,
                                                text=True, check=True).stdout))
                loads.append(os.getloadavg()[0])
                print(f"round {round_}: " + "  ".join(f"{tree.name}: server CPU {cpu[tree][-1] * 1e6:.0f} us, wall "
                                                      f"{wall[tree][-1] * 1e6:.0f} us" for tree in options.trees)
                      + f"; in process {own[-1] * 1e6:.0f} us; load {loads[-1]:.1f}", flush=True)
        finally:
            for _, process, _ in servers:
                process.terminate()
                process.wait(timeout=60)
    median_own = statistics.median(own)
    print(f"{options.rounds} rounds, {count} statements each, load average {min(loads):.1f}-{max(loads):.1f}; "
          f"in process (CPU) median {median_own * 1e6:.0f} us a statement")
    for tree in options.trees:
        middle = statistics.median(cpu[tree])
        print(f"{tree}: server CPU median {middle * 1e6:.0f} us (range {min(cpu[tree]) * 1e6:.0f}-{max(cpu[tree]) * 1e6:.0f}), "
              f"wall median {statistics.median(wall[tree]) * 1e6:.0f} us; in process / server CPU {median_own / middle:.2f}")


if __name__ == "__main__":
    main()
