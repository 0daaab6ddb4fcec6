"""Building the SparkSession: ``local[*]`` by default, any master URL, quiet logs.

The runtime keeps Spark's defaults except where they hurt a filter job: the UI is off unless
asked for, shuffle partitions are few (a batch's distinct decision keys are a tiny aggregate),
and the log level is WARN for Spark and ERROR for the chatty parts (``NativeCodeLoader``...),
so a terminal shows replfilter's progress, not Spark's.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import sys
import tempfile
import threading
import warnings
from typing import Mapping

DEFAULT_MASTER = "local[*]"
LOCAL_DIR_PREFIX = "replfilter-spark-"
"""A local run's scratch directory is ``<temp>/replfilter-spark-<pid>``: what Spark leaves there
when the process is killed (block manager, artifacts, the driver's temporary files) is found and
removed by the next start, since its process is gone."""


def local_scratch_dir(temp_root: str | None = None) -> str:
    """This process's scratch directory, after removing those of processes that no longer run."""
    root = temp_root or tempfile.gettempdir()
    remove_stale_scratch_dirs(root)
    return os.path.join(root, f"{LOCAL_DIR_PREFIX}{os.getpid()}")


_REMOVED_AT_EXIT: set[str] = set()


def _remove_at_exit(scratch: str) -> None:
    """At a normal exit, stop Spark (its shutdown hook empties the directory) and remove the
    directory itself, which Spark leaves behind, empty."""
    if scratch in _REMOVED_AT_EXIT:
        return
    _REMOVED_AT_EXIT.add(scratch)

    def remove() -> None:
        from .failure import jvm_exit_status

        context = getattr(sys.modules.get("pyspark"), "SparkContext", None)
        active = getattr(context, "_active_spark_context", None)
        if active is not None and jvm_exit_status() is None:
            with contextlib.suppress(Exception):
                active.stop()
        shutil.rmtree(scratch, ignore_errors=True)

    atexit.register(remove)


def remove_stale_scratch_dirs(root: str) -> list[str]:
    """Remove ``replfilter-spark-<pid>`` directories under ``root`` whose process is gone (a run
    killed with -9 cleans nothing up); the paths removed."""
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        pid = name[len(LOCAL_DIR_PREFIX):]
        if not name.startswith(LOCAL_DIR_PREFIX) or not pid.isdigit() or _running(int(pid)):
            continue
        path = os.path.join(root, name)
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def default_shuffle_partitions(master: str) -> int:
    """Few partitions: the runtime's only shuffle is the per-batch key count (a handful of
    rows per key). Locally: the number of cores; on a cluster: Spark's own default."""
    if master.startswith("local"):
        return max(2, os.cpu_count() or 2)
    return 16


_MASTER_URL = re.compile(
    r"local(\[(\*|\d+)(,\s*\d+)?\])?|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]|spark://\S+|yarn|k8s://\S+"
)


def check_master(master: str) -> str:
    """``master`` if Spark accepts it as a master URL; a ValueError naming it otherwise. Checked
    before the JVM starts: Spark's launcher would print a Java stack trace instead."""
    if not _MASTER_URL.fullmatch(master):
        raise ValueError(
            f"not a Spark master URL: {master!r} (expected local, local[N], local[*], spark://HOST:PORT, yarn or k8s://URL)"
        )
    return master


def get_spark(
    master: str | None = None,
    app_name: str = "replfilter",
    conf: Mapping[str, str] | None = None,
    ui: bool = False,
    log_level: str = "ERROR",
):
    """Return the active SparkSession or build one for ``master`` (default ``local[*]``).

    ``conf`` entries override the defaults below. Imported lazily: calling this is what
    starts the JVM.
    """
    # pyspark warns that pandas 3 is not fully supported; the runtime only uses pandas/Arrow
    # for batches of SQL texts and the baseline benchmark, which work.
    warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas.*")
    from pyspark.sql import SparkSession

    master = check_master(master or DEFAULT_MASTER)
    # Python workers must run the interpreter that has replfilter and pyarrow installed (the
    # venv's), not whatever "python3" is first on the executors' PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {
        "spark.ui.enabled": "true" if ui else "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": str(default_shuffle_partitions(master)),
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.streaming.stopTimeout": "60s",
        # Structured Streaming's own metadata (offsets/commits) is what exactly-once rests on;
        # keep it, but do not let the batch-id directories of the sink confuse partition
        # inference when users read the output back.
        "spark.sql.sources.partitionColumnTypeInference.enabled": "true",
    }
    # Quiet from the first line: Spark's own log4j2 setup prints a banner and WARN lines before
    # setLogLevel can run; this configuration applies when the driver JVM starts.
    # HotSpot leaves a method above 8,000 bytes of bytecode interpreted, about five times slower;
    # the decision's generated code is kept under that (own_method.py), but a user's wider frame
    # or a replica with ~200 channels of distinct rules can still pass it: compile them anyway
    java_options = ["-XX:-DontCompileHugeMethods"]
    quiet = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")
    if os.path.exists(quiet):
        java_options.append(f"-Dlog4j2.configurationFile=file:{quiet}")
    if master.startswith("local") and not os.environ.get("SPARK_LOCAL_DIRS") and "spark.local.dir" not in (conf or {}):
        # Spark's scratch files in one directory per process, removed by a later start if this
        # process is killed before Spark's own shutdown hook runs
        scratch = local_scratch_dir()
        os.makedirs(scratch, exist_ok=True)
        _remove_at_exit(scratch)
        settings["spark.local.dir"] = scratch
        java_options.append(f"-Djava.io.tmpdir={scratch}")
    settings["spark.driver.extraJavaOptions"] = " ".join(java_options)
    settings["spark.executor.extraJavaOptions"] = " ".join(java_options)
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    if SparkSession.getActiveSession() is None:
        with _jvm_banner_dropped():
            spark = builder.getOrCreate()
    else:
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(log_level)
    return spark


JVM_BANNER = b"WARNING: Using incubator modules:"
"""Printed by the JVM itself when it starts (Spark 4 adds the vector incubator module), before
any logging configuration can act."""


@contextlib.contextmanager
def _jvm_banner_dropped():
    """Start the JVM with its standard error passing through a filter that drops the JVM's
    incubator-module banner and forwards everything else, for the JVM's whole life."""
    try:
        sys.stderr.flush()
        read_end, write_end = os.pipe()
        saved = os.dup(2)
        forward_to = os.dup(2)
    except (OSError, ValueError):  # no file descriptor 2 to filter
        yield
        return
    os.dup2(write_end, 2)
    os.close(write_end)
    threading.Thread(target=_forward_stderr, args=(read_end, forward_to), daemon=True, name="jvm-stderr").start()
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def _forward_stderr(read_end: int, forward_to: int) -> None:
    with os.fdopen(read_end, "rb", buffering=0) as lines:
        for line in iter(lines.readline, b""):
            if not line.startswith(JVM_BANNER):
                os.write(forward_to, line)
