"""Shared fixtures. The Spark tests (marked ``spark``) share ONE SparkSession per test process,
started on first use: local[2], two shuffle partitions, no UI. Under ``pytest -n auto`` each
pytest-xdist worker is one such process, so a worker starts at most one JVM for all the Spark
tests it is given (a test that runs ``replfilter stream`` as a command starts that command's own),
and a worker given none starts none (the inner loop ``-m "not spark and not e2e"`` starts no JVM)."""

from __future__ import annotations

import pytest
from hypothesis import settings

# No per-example deadline: under ``-n auto`` the Spark workers load both cores, and a deadline
# then fails on the machine's load, not on the code (performance lives in bench/, not in tests).
settings.register_profile("replfilter", deadline=None)
settings.load_profile("replfilter")


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


@pytest.fixture(params=["driver", "executors"])
def where(request, monkeypatch):
    """Where a batch's keys are decided: by the driver (few keys, the default) or by the
    executors (``DRIVER_MAX_KEYS`` 0, as for a tenant replica's many keys)."""
    from replfilter.spark_runtime import exact_path

    monkeypatch.setattr(exact_path, "DRIVER_MAX_KEYS", 50_000 if request.param == "driver" else 0)
    return request.param
