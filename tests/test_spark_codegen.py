"""The compiled decision's generated code stays in methods HotSpot compiles
(spark_runtime/own_method.py): a method above 8,000 bytes of bytecode runs interpreted, about
five times slower, and the decision columns of four channels once made the write's
``processNext`` 8,874 bytes. Checked as Spark's own compiler reports it, for the frames the
runtime writes."""

from __future__ import annotations

import pytest
from pyspark.sql import functions as F

from replfilter.evaluation.events import RowEvent
from replfilter.server.session import Session
from replfilter.spark_runtime.own_method import HOTSPOT_HUGE_METHOD, largest_method
from replfilter.spark_runtime.schema import EVENT_SCHEMA
from replfilter.spark_runtime.transform import applied_events, apply_filters, decide_frame

from spark_helpers import event_row

pytestmark = pytest.mark.spark

RULES = (
    "REPLICATE_DO_DB=(tenant1, tenant2, tenant3), REPLICATE_IGNORE_DB=(tenant11), "
    "REPLICATE_DO_TABLE=(tenant1.t1, tenant2.t2), REPLICATE_IGNORE_TABLE=(tenant1.t13, tenant2.t14), "
    "REPLICATE_WILD_DO_TABLE=('tenant7.t%', 'tenant8.t2%', 'tenant1%.%'), "
    "REPLICATE_WILD_IGNORE_TABLE=('tenant%.t1_', 'tenant4.%'), "
    "REPLICATE_REWRITE_DB=((tenant5, tenant5_copy), (tenant6, tenant6_copy))"
)


def _state(channels: int):
    """``channels`` configured channels, each with rules of all seven types."""
    names = [""] + [f"c{k}" for k in range(1, channels)]
    session = Session()
    session.execute_sql("\n".join(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL '{name}';\n"
        f"CHANGE REPLICATION FILTER {RULES} FOR CHANNEL '{name}';"
        for name in names
    ))
    return session.state, names


@pytest.mark.parametrize("channels", [1, 4, 64])
def test_the_decisions_generated_methods_stay_under_hotspots_limit(spark, channels):
    """Per channel the code grows only inside methods of its own (each channel's branch; the
    rewrite is one lookup in constant arrays), so the largest method stays compilable up to
    64 channels (at 255 channels, the calls of the branch methods alone bring the write's method
    to ~8,400 bytes: README, "The Spark runtime"). The input has a row image, as relay log rows do."""
    state, names = _state(channels)
    rows = [event_row(RowEvent(name, "tenant1", "t1")) for name in names]
    df = spark.createDataFrame(rows, schema=EVENT_SCHEMA).withColumn("record", F.lit("x" * 400))
    decided = decide_frame(df, state)
    frames = {
        "decided": decided.df,
        "applied": applied_events(df, state),
        # a filter on a decision column is not pushed below the projection (it would compute
        # the decision again, and the stage's code failed to compile: -1)
        "filtered": apply_filters(df, state).where(F.col("decision") == "APPLY"),
    }
    sizes = {name: largest_method(frame) for name, frame in frames.items()}
    assert all(0 < size < HOTSPOT_HUGE_METHOD for size in sizes.values()), sizes
    assert decided.df.count() == len(rows) and decided.decisions.exact_events == 0


def test_sessions_started_here_compile_huge_methods(spark):
    """The safety net for frames wider than the runtime's own, or many channels of distinct
    rules: the driver JVM that ``get_spark`` starts compiles methods above HotSpot's limit."""
    runtime = spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    assert "-XX:-DontCompileHugeMethods" in list(runtime.getInputArguments())
    assert "-XX:-DontCompileHugeMethods" in spark.conf.get("spark.executor.extraJavaOptions")
