"""The Spark transform decides exactly as the reference evaluator (differential tests)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replfilter.evaluation.events import QueryEvent, RowEvent, CommandKind, TableRef
from spark_helpers import event_row, events, expected, states

pytestmark = pytest.mark.spark


def _frame(spark, evs):
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from pyspark.sql.types import LongType, StructField, StructType

    schema = StructType([StructField("id", LongType(), False), *EVENT_SCHEMA.fields])
    return spark.createDataFrame([event_row(e, id=i) for i, e in enumerate(evs)], schema)


def _decided(spark, state, evs, **kwargs):
    from replfilter.spark_runtime.transform import decide_frame

    decided = decide_frame(_frame(spark, evs), state, **kwargs)
    rows = decided.df.orderBy("id").collect()
    return [(r.decision, r.filter_type, r.filter_rule, r.rewritten_db) for r in rows], decided


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=states(), evs=st.lists(events, min_size=1, max_size=60))
def test_decisions_and_counters_equal_the_evaluator(spark, state, evs):
    got, decided = _decided(spark, state, evs)
    want, want_state = expected(state, evs)
    assert got == want
    assert decided.new_state() == want_state
    assert decided.decisions.events == len(evs)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=states(), evs=st.lists(events, min_size=5, max_size=40))
def test_hash_collisions_fall_back_to_the_full_key(spark, state, evs):
    # A 2-valued hash makes collisions certain; the result must not change.
    got, decided = _decided(spark, state, evs, hash_modulus=2)
    want, want_state = expected(state, evs)
    assert got == want
    assert decided.new_state() == want_state


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=states(), evs=st.lists(events, min_size=1, max_size=40))
def test_the_join_lookup_decides_as_the_slot_lookup(spark, state, evs):
    # the join is what Spark Connect and too-many-keys batches use
    got, decided = _decided(spark, state, evs, lookup="join")
    want, want_state = expected(state, evs)
    assert got == want
    assert decided.new_state() == want_state


@pytest.mark.parametrize("kwargs", [{}, {"lookup": "join"}, {"hash_modulus": 2}])
def test_extra_columns_pass_through_whatever_their_names(spark, kwargs):
    from pyspark.sql import functions as F

    from replfilter.server.session import Session
    from replfilter.spark_runtime.transform import applied_events, decide_frame

    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(b)")
    evs = [RowEvent("", "a", "t"), RowEvent("", "b", "t"), RowEvent("", "c", "u")]
    df = _frame(spark, evs).withColumn("x.y", F.col("id") * 10).withColumn("odd`name", F.lit("k"))
    out = decide_frame(df, session.state, **kwargs).df.orderBy("id").collect()
    assert [(r["x.y"], r["odd`name"], r["decision"]) for r in out] == [(0, "k", "APPLY"), (10, "k", "SKIP"), (20, "k", "APPLY")]
    applied = applied_events(df, session.state).orderBy("id").collect()
    assert [(r["x.y"], r["db"]) for r in applied] == [(0, "a"), (20, "c")] and applied[0].__fields__ == df.columns


def test_applied_events_rewrites_the_database(spark):
    from replfilter.server.session import Session
    from replfilter.spark_runtime.transform import applied_events, apply_filters

    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB=((a, b)), REPLICATE_IGNORE_TABLE=(b.x)")
    evs = [
        RowEvent("", "a", "t"),
        RowEvent("", "a", "x"),
        QueryEvent("", "a", CommandKind.INSERT, (TableRef(None, "t"),)),
        QueryEvent("", "a", CommandKind.INSERT, (TableRef("a", "x"),)),
        RowEvent("", "c", "t"),
    ]
    df = _frame(spark, evs)
    out = applied_events(df, session.state).orderBy("id").collect()
    assert [(r.id, r.type, r.default_db, r.db) for r in out] == [
        (0, "row", None, "b"),
        (2, "query", "b", None),
        (3, "query", "b", None),
        (4, "row", None, "c"),
    ]
    assert set(out[0].asDict()) == set(df.columns)
    # as a transform
    full = df.transform(lambda d: apply_filters(d, session.state)).orderBy("id").collect()
    assert [r.decision for r in full] == ["APPLY", "SKIP", "APPLY", "APPLY", "APPLY"]
    assert full[1].filter_type == "REPLICATE_IGNORE_TABLE" and full[1].filter_rule == "b.x"


def test_unknown_channel_and_non_events_raise(spark):
    from replfilter.evaluation.evaluator import UnknownChannelError
    from replfilter.replica.state import ReplicaState
    from replfilter.spark_runtime.transform import InvalidEventError, apply_filters

    with pytest.raises(UnknownChannelError):
        apply_filters(_frame(spark, [RowEvent("nope", "d", "t")]), ReplicaState.fresh())
    from pyspark.sql import functions as F

    bad = _frame(spark, [RowEvent("", "d", "t")]).withColumn("type", F.lit("bogus"))
    with pytest.raises(InvalidEventError):
        apply_filters(bad, ReplicaState.fresh())
    # wrongly typed key columns are named before any job runs
    typed = _frame(spark, [RowEvent("", "d", "t")]).withColumn("tables", F.lit("[]")).withColumn("temporary", F.lit(1))
    with pytest.raises(ValueError) as err:
        apply_filters(typed, ReplicaState.fresh())
    assert "tables is string, expected array<struct<db:string,table:string,updating:boolean>>" in str(err.value)
    assert "temporary is int, expected boolean" in str(err.value)
