"""``replfilter stream`` when its JVM dies under it, and what a normal exit leaves behind: the
real command in a child process, the real JVM killed as the out-of-memory killer kills it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.e2e]

FILES, PER_FILE = 4, 40


def _events(tmp_path: Path) -> None:
    events = tmp_path / "events"
    events.mkdir()
    base = time.time() - 1000
    for f in range(FILES):
        path = events / f"{f:03d}.jsonl"
        path.write_text("".join(f'{{"v": 1, "type": "row", "channel": "", "db": "db{k % 3}", "table": "t_{f}_{k}"}}\n'
                                for k in range(PER_FILE)))
        os.utime(path, (base + f, base + f))


def _command(tmp_path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "replfilter", "stream", "--replicate-ignore-db=db1",
            str(tmp_path / "events"), str(tmp_path / "out"), str(tmp_path / "ckpt"), "--skipped", str(tmp_path / "skipped"),
            "--master", "local[2]", "--max-files-per-trigger", "1", *extra]


def _java_child(pid: int) -> int | None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and b"java" in command.split(b"\0")[0]:
            return int(entry.name)
    return None


def test_a_dead_jvm_is_one_line_a_restart_is_exactly_once_and_no_scratch_is_left(tmp_path: Path) -> None:
    _events(tmp_path)
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch_root), "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "stream.log"
    with open(log, "wb") as errors:
        child = subprocess.Popen(_command(tmp_path), stdout=subprocess.DEVNULL, stderr=errors, env=env)
        manifests = tmp_path / "out" / "_replfilter"
        deadline = time.time() + 240
        while not (manifests.exists() and len(list(manifests.glob("*.json"))) >= 1):
            assert child.poll() is None, log.read_text()[-2000:]
            assert time.time() < deadline, "no batch committed in time"
            time.sleep(0.1)
        java = _java_child(child.pid)
        assert java is not None
        os.kill(java, signal.SIGKILL)  # as the out-of-memory killer does
        assert child.wait(timeout=120) == 1
    lines = [line for line in log.read_text().splitlines() if not line.startswith("batch ")]
    assert lines == [
        "replfilter stream: the Spark JVM died (killed by signal 9, as the system's out-of-memory killer does: "
        "see dmesg). Run the same command again: the stream resumes from CHECKPOINT_DIR, and the outputs keep "
        "every event exactly once; to need less memory a batch, add --max-files-per-trigger N."
    ]

    again = subprocess.run(_command(tmp_path, "--available-now"), capture_output=True, env=env, timeout=300)
    assert again.returncode == 0, again.stderr.decode()[-3000:]
    import pyarrow.parquet as pq  # '_'-prefixed directories (dead letters, manifests) are not read

    applied = pq.read_table(tmp_path / "out").to_pylist()
    skipped = pq.read_table(tmp_path / "skipped").to_pylist()
    seen = [row["table"] for row in applied + skipped]
    assert len(seen) == len(set(seen)) == FILES * PER_FILE  # every event exactly once
    assert {row["db"] for row in skipped} == {"db1"}
    from replfilter.spark_runtime.sink import BatchStats

    stats = [BatchStats.from_json(path.read_text()) for path in sorted(manifests.glob("*.json"))]
    assert sorted(s.batch_id for s in stats) == list(range(FILES))
    assert {(s.decided_by, s.counters_from) for s in stats} == {("compiled", "write")}
    assert list(scratch_root.iterdir()) == []  # no replfilter-spark-<pid>, empty or not
