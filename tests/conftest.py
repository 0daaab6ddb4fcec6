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

FIRST_MODULES = (
    "test_spark_stream.py",
    "test_spark_catalog.py",
    "test_spark_transform.py",
    "test_spark_binlog_stream.py",
    "test_spark_cluster.py",
    "test_spark_ingest.py",
    "test_spark_stream_faults.py",
    "test_event_sql_text.py",
    "test_spark_session.py",
    "test_spark_applier.py",
    "test_spark_compiled_rules.py",
    "test_serve_concurrency.py",
)
"""The modules that took longest in a full run with ``--durations`` (the sum of their tests,
longest first: ``kill -9`` streams in child JVMs, Spark-against-``evaluate`` properties, a
standalone cluster; README, "Tests")."""


def pytest_collection_modifyitems(config, items):
    """The longest modules first, the many short ones last. Under ``-n auto`` the README's
    command hands out whole modules (``--dist loadscope --no-loadscope-reorder`` in
    pyproject.toml: a worker is given the next module in this order when it has two tests left;
    a module's fixtures, a server or a cluster, are built once), so the short modules fill in
    at the end around whichever long module finished last, instead of a worker sitting idle
    behind a Spark stream that started late. Order: :data:`FIRST_MODULES`, then the other
    modules with Spark or end-to-end tests (a JVM, a server, a terminal), then the rest, each
    rank in collection order; the tests in a module keep theirs."""
    rank: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        name = module.rsplit("/", 1)[-1]
        heavy = item.get_closest_marker("spark") is not None or item.get_closest_marker("e2e") is not None
        here = FIRST_MODULES.index(name) if name in FIRST_MODULES else len(FIRST_MODULES) + (0 if heavy else 1)
        rank[module] = min(rank.get(module, here), here)
    position = {item.nodeid: k for k, item in enumerate(items)}
    items.sort(key=lambda item: (rank[item.nodeid.split("::", 1)[0]], position[item.nodeid]))


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
