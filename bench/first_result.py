"""Time from process start to the first result of a one-statement script, and what it imports.

Run: .venv/bin/python bench/first_result.py
Target (issue 2): first result <= 0.3 s. Starting replfilter must not import pyspark (no JVM).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

COMMAND = [sys.executable, "-m", "replfilter", "-e", "SELECT * FROM performance_schema.replication_applier_global_filters; SHOW REPLICA STATUS"]
RUNS = 15


def first_output_seconds() -> float:
    started = time.perf_counter()
    process = subprocess.Popen(COMMAND + ["--replicate-do-db=db1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.read(1)
    elapsed = time.perf_counter() - started
    _, errors = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"replfilter failed with status {process.returncode}: {errors.decode()}")
    return elapsed


def imports_pyspark() -> bool:
    probe = "import sys, replfilter.cli.main, replfilter.client.runner; sys.exit('pyspark' in sys.modules)"
    return subprocess.run([sys.executable, "-c", probe]).returncode != 0


def main() -> None:
    first_output_seconds()  # warm the OS file cache and Lark's grammar cache
    times = sorted(first_output_seconds() for _ in range(RUNS))
    print(f"process start -> first result: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {times[0] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms over {RUNS} runs (target <= 300 ms)")
    print(f"python startup alone: {python_alone() * 1000:.0f} ms median")
    print(f"imports pyspark: {'YES (bug)' if imports_pyspark() else 'no'}")


def python_alone() -> float:
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "print(1)"], stdout=subprocess.PIPE, check=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


if __name__ == "__main__":
    main()
