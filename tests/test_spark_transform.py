"""The Spark transform decides exactly as the reference evaluator (differential tests)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replfilter.evaluation.events import QueryEvent, RowEvent, CommandKind, TableRef
from spark_helpers import event_row, events, events_maybe_updating, expected, states, takes_compiled_path

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


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=states(), evs=st.lists(events, min_size=1, max_size=60))
def test_decisions_and_counters_equal_the_evaluator(spark, where, state, evs):
    # with no plan forced, few keys are decided by the driver, many by the executors; the
    # covered rows by compiled expressions
    got, decided = _decided(spark, state, evs, compiled=True)
    want, want_state = expected(state, evs)
    assert got == want
    assert decided.new_state() == want_state
    assert decided.decisions.events == len(evs)
    # which path each event took: compiled expressions for row events of compiled channels
    # with ASCII names and for transaction events, the reference evaluator for the others
    exact = [e for e in evs if not _compiled_path(state, e)]
    assert decided.decisions.exact_events == len(exact)
    assert bool(decided.decisions.key_rows) == (where == "driver" and bool(exact))


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=states(), evs=st.lists(events_maybe_updating, min_size=1, max_size=40))
def test_unknown_updating_flags_decide_as_the_evaluator(spark, state, evs):
    """Tables whose updating flag is not known (``updating_unknown`` in the row form): the
    events the evaluator decides are decided alike, with the same counters; those it leaves
    undecided (such a table meets a rule) are dead letters with its reason, as ``read_events``
    makes them (:func:`~replfilter.spark_runtime.sql_tables.decide_unknown_updating`)."""
    from replfilter.evaluation.evaluator import apply_events
    from replfilter.spark_runtime.sql_tables import decide_unknown_updating
    from replfilter.spark_runtime.transform import decide_frame

    decisions, want_state = apply_events(state, evs)
    ingested = decide_unknown_updating(_frame(spark, evs), state)
    assert sorted(r.reason for r in ingested.dead.collect()) == sorted(d.reason for d in decisions if d.decision is None)
    decided = decide_frame(ingested.events, state)
    got = [(r.id, r.decision, r.filter_type, r.filter_rule, r.rewritten_db) for r in decided.df.orderBy("id").collect()]
    assert got == [
        (i, d.decision.value, d.filter_type.keyword if d.filter_type else None, d.rule, d.rewritten_db)
        for i, d in enumerate(decisions) if d.decision is not None
    ]
    assert decided.new_state() == want_state


def _compiled_path(state, event) -> bool:
    from replfilter.spark_runtime.compiled_rules import compile_rules

    return takes_compiled_path(state, compile_rules(state).channels, event)


@pytest.mark.parametrize("plan", ["slots", "broadcast", "shuffle"])
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=states(), evs=st.lists(events, min_size=1, max_size=60))
def test_every_join_plan_decides_as_the_evaluator(spark, plan, state, evs):
    # pass 1 grouped by the key hash, keys decided on the executors, pass 2 by the forced plan
    got, decided = _decided(spark, state, evs, lookup=plan)
    want, want_state = expected(state, evs)
    assert decided.decisions.plan == plan
    physical = decided.df._jdf.queryExecution().executedPlan().toString()
    join = {"slots": None, "broadcast": "BroadcastHashJoin", "shuffle": "ShuffledHashJoin"}[plan]
    assert (join in physical) if join else ("Join" not in physical)
    assert got == want
    assert decided.new_state() == want_state
    assert decided.decisions.events == len(evs)
    assert decided.decisions.distinct_keys == len({_key_of(e) for e in evs})


def _key_of(event):
    """What pass 1 groups: a row event by (channel, db, table), any other by all key columns."""
    import json

    from replfilter.spark_runtime.transform import KEY_COLUMNS

    if isinstance(event, RowEvent):
        return (event.channel, event.db, event.table)
    row = event_row(event)
    return json.dumps([row[c] for c in KEY_COLUMNS], sort_keys=True)


@pytest.mark.parametrize("plan", ["broadcast", "shuffle"])
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=states(), evs=st.lists(events, min_size=5, max_size=40))
def test_hash_collisions_are_detected_and_decided_on_the_full_key(spark, plan, state, evs):
    # A 2-valued hash makes collisions certain: the grouped pass must see them (a hash's
    # distinct keys are counted) and decide each colliding key on its own, never from a sample.
    got, decided = _decided(spark, state, evs, hash_modulus=2, lookup=plan)
    want, want_state = expected(state, evs)
    keys = {_key_of(e) for e in evs}
    assert got == want
    assert decided.new_state() == want_state
    assert decided.decisions.distinct_keys == len(keys)
    if len(keys) > 2:  # three keys, two hash values: a collision for certain
        assert decided.decisions.collision and len(decided.decisions.collided_rows) >= 2
    assert decided.decisions.collision == bool(decided.decisions.collided_rows)


def test_a_forced_collision_between_two_row_keys_is_decided_exactly(spark):
    from replfilter.server.session import Session

    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(b)")
    evs = [RowEvent("", "a", "t"), RowEvent("", "b", "t"), RowEvent("", "a", "t"), RowEvent("", "b", "t")]
    # modulus 1: both keys share hash 0, so only the full key tells them apart
    got, decided = _decided(spark, session.state, evs, hash_modulus=1)
    assert [g[0] for g in got] == ["APPLY", "SKIP", "APPLY", "SKIP"]
    assert decided.decisions.collision and len(decided.decisions.collided_rows) == 2
    assert decided.decisions.plan in ("broadcast", "shuffle")
    assert decided.new_state() == expected(session.state, evs)[1]


@pytest.mark.parametrize("carried", [None, "INSERT"])
def test_counted_keys_decided_on_the_driver_match_their_rows_when_hashes_collide(spark, carried):
    """The stream's driver path: keys counted by ``count_keys`` (a row event's query fields
    NULL), collected and decided by ``decide_keys``, then matched to the rows on the full key
    when two share a hash — also rows of row events that carry a query field."""
    from pyspark.sql import functions as F

    from replfilter.server.session import Session
    from replfilter.spark_runtime.transform import count_keys, decide_keys, join_decisions

    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(b)")
    evs = [RowEvent("", "a", "t"), RowEvent("", "b", "t"), RowEvent("", "a", "t")]
    df = _frame(spark, evs).withColumn("command", F.lit(carried).cast("string"))
    decisions = decide_keys(count_keys(df, hash_modulus=1).rows(), session.state)
    assert decisions.collision
    got = join_decisions(df, decisions, hash_modulus=1).orderBy("id").collect()
    assert [r.decision for r in got] == ["APPLY", "SKIP", "APPLY"]


@pytest.mark.parametrize("kwargs", [{}, {"lookup": "join"}, {"lookup": "shuffle"}, {"hash_modulus": 2}])
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
    out = applied_events(df, session.state, compiled=True).orderBy("id").collect()
    assert out == applied_events(df, session.state).orderBy("id").collect()  # the two paths agree
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


def test_unknown_channel_and_non_events_raise(spark, where):
    from replfilter.evaluation.evaluator import UnknownChannelError
    from replfilter.replica.state import ReplicaState
    from replfilter.spark_runtime.transform import InvalidEventError, apply_filters

    with pytest.raises(UnknownChannelError):
        apply_filters(_frame(spark, [RowEvent("nope", "d", "t")]), ReplicaState.fresh())
    from pyspark.sql import functions as F

    # a bogus type, and no type at all (with a database and a table, as a row event has)
    for typ in (F.lit("bogus"), F.lit(None).cast("string")):
        bad = _frame(spark, [RowEvent("", "d", "t"), RowEvent("", "d", "u")]).withColumn("type", typ)
        with pytest.raises(InvalidEventError) as err:
            apply_filters(bad, ReplicaState.fresh())
        assert "not an event type" in str(err.value)
    # wrongly typed key columns are named before any job runs
    typed = _frame(spark, [RowEvent("", "d", "t")]).withColumn("tables", F.lit("[]")).withColumn("temporary", F.lit(1))
    with pytest.raises(ValueError) as err:
        apply_filters(typed, ReplicaState.fresh())
    assert "tables is string, expected array<struct<db:string,table:string,updating:boolean,updating_unknown:boolean>>" in str(err.value)
    assert "temporary is int, expected boolean" in str(err.value)
