"""Time from process start to the first result of a one-statement script, and what it imports.

Run: .venv/bin/python bench/first_result.py
Target: first result <= 0.2 s (median). Starting replfilter must not import pyspark (no JVM), nor
sqlglot (it reads SQL text only for EXPLAIN REPLICATION, REPLAY EVENTS, LOAD SCHEMA and
--schema). The children run without PYTHONDONTWRITEBYTECODE: an install has its .pyc files. On a
shared machine the wall-clock median moves with the load; the child's CPU time (user + system)
moves much less, and is printed too.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

COMMAND = [sys.executable, "-m", "replfilter", "-e", "SELECT * FROM performance_schema.replication_applier_global_filters; SHOW REPLICA STATUS"]
RUNS = 15
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
CPU_SECONDS: list[float] = []


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_output_seconds() -> float:
    cpu_before = _children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(COMMAND + ["--replicate-do-db=db1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    assert process.stdout is not None
    process.stdout.read(1)
    elapsed = time.perf_counter() - started
    _, errors = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"replfilter failed with status {process.returncode}: {errors.decode()}")
    CPU_SECONDS.append(_children_cpu() - cpu_before)
    return elapsed


def imports(module: str) -> bool:
    """Whether running the benchmark's statements imports ``module``."""
    probe = (f"import io, sys; from replfilter.cli.main import main; main({COMMAND[3:]!r}, stdout=io.StringIO()); "
             f"sys.exit({module!r} in sys.modules)")
    return subprocess.run([sys.executable, "-c", probe], env=ENV).returncode != 0


def main() -> None:
    first_output_seconds()  # warm the OS file cache, Lark's grammar cache and the .pyc files
    CPU_SECONDS.clear()
    times = sorted(first_output_seconds() for _ in range(RUNS))
    print(f"process start -> first result: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {times[0] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms over {RUNS} runs (target <= 200 ms); "
          f"CPU time of the process: median {statistics.median(CPU_SECONDS) * 1000:.0f} ms")
    print(f"python startup alone: {python_alone() * 1000:.0f} ms median")
    for module in ("pyspark", "sqlglot"):
        print(f"imports {module}: {'YES (bug)' if imports(module) else 'no'}")


def python_alone() -> float:
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "print(1)"], stdout=subprocess.PIPE, check=True, env=ENV)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


if __name__ == "__main__":
    main()
