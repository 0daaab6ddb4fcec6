"""Building the SparkSession: ``local[*]`` by default, any master URL, quiet logs.

The runtime keeps Spark's defaults except where they hurt a filter job: the UI is off unless
asked for, shuffle partitions are few (a batch's distinct decision keys are a tiny aggregate),
and the log level is WARN for Spark and ERROR for the chatty parts (``NativeCodeLoader``...),
so a terminal shows replfilter's progress, not Spark's.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import Mapping

DEFAULT_MASTER = "local[*]"


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
    quiet = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")
    if os.path.exists(quiet):
        settings["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile=file:{quiet}"
        settings["spark.executor.extraJavaOptions"] = f"-Dlog4j2.configurationFile=file:{quiet}"
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(log_level)
    return spark
