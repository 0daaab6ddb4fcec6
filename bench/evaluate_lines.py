"""``replfilter evaluate`` on large event files: time and peak memory (RSS) per input size.

Each size runs the real command in its own process (output to /dev/null), so the peak RSS is that
run's own (``wait4``). Memory must stay flat from the smallest size to the largest: results are
written as each line is read, nothing is kept per line.

    .venv/bin/python bench/evaluate_lines.py [--sizes 100000,1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_events(path: Path, n: int, seed: int = 1) -> None:
    """Row events over 20 databases x 15 tables, with a GTID/XID pair every ten events and one
    bad line in 10,000 (not JSON, or not UTF-8)."""
    rng = random.Random(seed)
    with open(path, "wb") as out:
        for i in range(n):
            if i % 10_000 == 9_999:
                out.write(b"\xff not utf-8\n" if i % 20_000 == 19_999 else b"{oops\n")
            elif i % 10 == 0:
                out.write(b'{"v": 1, "type": "transaction", "kind": "GTID", "gtid": "u:%d"}\n' % i)
            else:
                record = {"v": 1, "type": "row", "db": f"shop{rng.randrange(20)}", "table": f"t{rng.randrange(15)}"}
                out.write(json.dumps(record).encode() + b"\n")


def run(path: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one ``replfilter evaluate`` over ``path``."""
    command = [sys.executable, "-m", "replfilter", "evaluate", "--replicate-ignore-db=shop3",
               "--replicate-wild-do-table=shop%.t1%", "--summary", str(path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(command, stdout=sink, stderr=subprocess.DEVNULL, env=env)
        _, _status, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"{n}.jsonl"
            write_events(path, n)
            seconds, peak_mb = run(path)
            print(f"{n:>10,} lines: {seconds:6.1f} s, {n / seconds / 1000:6.0f} k lines/s, peak RSS {peak_mb:6.1f} MB")


if __name__ == "__main__":
    main()
