"""A real multi-process Spark cluster: a standalone master and worker started from the installed
pyspark's jars on loopback, and ``replfilter stream --master spark://127.0.0.1:PORT`` submitted
to it. Executors run in the worker's JVMs (their Python workers in the venv's interpreter)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from replfilter.evaluation.event_json import to_json
from replfilter.evaluation.events import QueryEvent, RowEvent, CommandKind, TableRef

pytestmark = pytest.mark.spark


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(path: Path, text: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not seen in {path}:\n{path.read_text(errors='replace')[-3000:] if path.exists() else ''}")


@pytest.fixture(scope="module")
def standalone_cluster(tmp_path_factory):
    """One master and one worker for the module's tests: each submits its own application (a
    ``replfilter stream`` process, its own executors), so they share only the two daemons."""
    import pyspark

    if shutil.which("java") is None:
        pytest.skip("no java on PATH")
    home = os.path.dirname(pyspark.__file__)
    classpath = os.path.join(home, "jars", "*")
    # SPARK_SCALA_VERSION: the launcher that builds executor commands otherwise looks for a
    # source build (launcher/target/scala-*); the pip wheel has jars/ only.
    env = {**os.environ, "SPARK_HOME": home, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "SPARK_SCALA_VERSION": "2.13"}
    tmp_path = tmp_path_factory.mktemp("cluster")
    port = _free_port()
    master_log, worker_log = tmp_path / "master.log", tmp_path / "worker.log"
    procs = []
    try:
        master = subprocess.Popen(
            ["java", "-Xmx512m", "-cp", classpath, "org.apache.spark.deploy.master.Master",
             "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(_free_port())],
            stdout=open(master_log, "wb"), stderr=subprocess.STDOUT, env=env,
        )
        procs.append(master)
        _wait_for(master_log, "I have been elected leader", master)
        worker = subprocess.Popen(
            ["java", "-Xmx512m", "-cp", classpath, "org.apache.spark.deploy.worker.Worker",
             f"spark://127.0.0.1:{port}", "--host", "127.0.0.1", "--cores", "2", "--memory", "2g",
             "--webui-port", str(_free_port()), "--work-dir", str(tmp_path / "work")],
            stdout=open(worker_log, "wb"), stderr=subprocess.STDOUT, env=env,
        )
        procs.append(worker)
        _wait_for(worker_log, "Successfully registered with master", worker)
        yield f"spark://127.0.0.1:{port}", env, worker_log
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def test_stream_on_a_standalone_cluster(standalone_cluster, tmp_path, spark):
    master, env, worker_log = standalone_cluster
    events_dir = tmp_path / "events"
    events_dir.mkdir()
    for f in range(2):
        lines = [to_json(RowEvent("", f"db{k % 2}", f"t{f}_{k}")) for k in range(50)]
        lines.append(to_json(QueryEvent("", "db0", CommandKind.INSERT, (TableRef(None, "x"),), sql="INSERT INTO x VALUES (1)")))
        lines.append('{"v": 1, "type": "query", "default_db": "db1", "command": "INSERT", "sql": "INSERT INTO y SELECT * FROM z"}')
        lines.append("{broken")
        (events_dir / f"{f}.jsonl").write_text("\n".join(lines) + "\n")
    command = [
        sys.executable, "-m", "replfilter", "stream", "--replicate-ignore-db=db1",
        str(events_dir), str(tmp_path / "out"), str(tmp_path / "ckpt"),
        "--skipped", str(tmp_path / "skipped"), "--master", master, "--available-now",
    ]
    logged_before = worker_log.stat().st_size  # (the worker may have served the module's other test)
    run = subprocess.run(command, capture_output=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr.decode()[-3000:]
    assert "104 events: 52 applied, 52 skipped, 2 dead letters" in run.stderr.decode()
    # the work ran in executors the worker launched for this run, not in the driver
    with open(worker_log, "rb") as log:
        log.seek(logged_before)
        logged = log.read().decode(errors="replace")
    assert "Launching executor" in logged or "Asked to launch executor" in logged
    applied = spark.read.parquet(str(tmp_path / "out")).collect()
    skipped = spark.read.parquet(str(tmp_path / "skipped")).collect()
    assert len(applied) == 52 and len(skipped) == 52
    assert {r["db"] for r in applied if r["type"] == "row"} == {"db0"}
    # the SQL-text tables were derived on the cluster (executors' Python workers)
    derived = [r for r in skipped if r["type"] == "query" and r["sql"].startswith("INSERT INTO y")]
    assert len(derived) == 2 and [t["table"] for t in derived[0]["tables"]] == ["y", "z"]


def test_parquet_stream_on_a_standalone_cluster_takes_the_compiled_path(standalone_cluster, tmp_path, spark):
    """The compiled path on executors: the compiled expressions in their tasks and the observed
    counts coming back to the driver."""
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from spark_helpers import event_row

    master, env, _worker_log = standalone_cluster
    events_dir = tmp_path / "events"
    events_dir.mkdir()
    now = time.time() - 100
    for f in range(3):
        rows = [event_row(RowEvent("", f"db{k % 2}", f"t{k % 5}")) for k in range(40)]
        staging = tmp_path / f"staging{f}"
        spark.createDataFrame(rows, EVENT_SCHEMA).coalesce(1).write.parquet(str(staging))
        (part,) = [p for p in staging.iterdir() if p.name.endswith(".parquet")]
        os.utime(part, (now + f, now + f))
        os.rename(part, events_dir / f"{f}.parquet")
    command = [
        sys.executable, "-m", "replfilter", "stream", "--replicate-ignore-db=db1", "--format", "parquet",
        str(events_dir), str(tmp_path / "out"), str(tmp_path / "ckpt"),
        "--master", master, "--available-now", "--max-files-per-trigger", "1",
    ]
    run = subprocess.run(command, capture_output=True, env=env, timeout=300)
    progress = run.stderr.decode()
    assert run.returncode == 0, progress[-3000:]
    lines = [line for line in progress.splitlines() if line.startswith("batch ")]
    assert len(lines) == 3 and all("40 events: 20 applied, 20 skipped" in line for line in lines), progress
    # every row covered: each batch written first, in one pass, its COUNTERs observed on the executors
    assert all(line.endswith(", compiled (one pass, every row covered; COUNTERs from the write)") for line in lines), progress
    applied = spark.read.parquet(str(tmp_path / "out")).collect()
    assert len(applied) == 60 and {r["db"] for r in applied} == {"db0"}
