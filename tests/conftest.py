"""Shared fixtures. The Spark tests (marked ``spark``) share ONE SparkSession, started on first
use: local[2], two shuffle partitions, no UI."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    from replfilter.spark_runtime.session import get_spark

    session = get_spark(
        "local[2]",
        app_name="replfilter-tests",
        conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
    )
    yield session
    session.stop()
