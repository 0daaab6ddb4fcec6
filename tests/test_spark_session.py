"""Starting Spark: quiet from the JVM's first line, and no scratch files left by killed runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from replfilter.spark_runtime.session import LOCAL_DIR_PREFIX, remove_stale_scratch_dirs


def test_scratch_dirs_of_processes_that_are_gone_are_removed(tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = tmp_path / f"{LOCAL_DIR_PREFIX}{gone.pid}"
    (stale / "blockmgr-1").mkdir(parents=True)
    (stale / "spark-2" / "f").mkdir(parents=True)
    live = tmp_path / f"{LOCAL_DIR_PREFIX}{os.getpid()}"
    live.mkdir()
    other = tmp_path / "spark-not-ours"
    other.mkdir()
    assert remove_stale_scratch_dirs(str(tmp_path)) == [str(stale)]
    assert not stale.exists() and live.exists() and other.exists()


@pytest.mark.spark
def test_a_killed_stream_leaves_nothing_after_the_next_start(tmp_path):
    """A stream killed with -9 leaves its scratch directory; the next start removes it, and
    neither start prints Spark's or the JVM's start-up lines."""
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "1.jsonl").write_text('{"v": 1, "type": "row", "db": "d", "table": "t"}\n')
    command = [sys.executable, "-m", "replfilter", "stream", str(tmp_path / "events"), str(tmp_path / "out"),
               str(tmp_path / "ckpt"), "--master", "local[1]"]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.time() + 180
        while not (tmp_path / "out" / "_replfilter").exists() and child.poll() is None and time.time() < deadline:
            time.sleep(0.2)  # until the first batch is written
        assert child.poll() is None, child.stderr.read().decode()
        child.kill()
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    killed = [name for name in os.listdir(tmp_path / "tmp") if name.startswith(LOCAL_DIR_PREFIX)]
    assert killed == [f"{LOCAL_DIR_PREFIX}{child.pid}"]
    again = subprocess.run([*command, "--available-now"], capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{LOCAL_DIR_PREFIX}{child.pid}" not in os.listdir(tmp_path / "tmp")
    assert all(line.startswith(("batch ", "replfilter stream: ")) for line in again.stderr.splitlines()), again.stderr
