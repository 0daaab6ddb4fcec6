"""The Spark runtime follows the schema as ``replfilter evaluate`` does: SQL text read with the
channel's source schema, the replica's catalog changed by applied DDL in event order, and the
``applier_error`` column equal to evaluate's ``applier_error`` (differential tests against
:class:`~replfilter.evaluation.event_lines.LineEvaluator`)."""

from __future__ import annotations

import json

import pytest

from replfilter.evaluation.event_lines import evaluate_lines
from replfilter.evaluation.schema_loader import load_schema_lines
from replfilter.replica.state import ReplicaState

pytestmark = pytest.mark.spark

SCHEMA = """CREATE DATABASE d;
USE d;
CREATE TABLE y (id int, a int);
CREATE TABLE z (id int, b int);
"""


def _state(schema: str | None = SCHEMA, init: ReplicaState | None = None) -> ReplicaState:
    state = init or ReplicaState.fresh()
    if schema is None:
        return state
    return load_schema_lines(state, schema.splitlines(keepends=True), "schema.sql").state


def test_sql_text_is_read_with_the_source_schema(spark, tmp_path):
    # UPDATE y JOIN z ... SET b = 1: only the schema says that b is z's column (z updates)
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.transform import apply_filters

    line = {"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
            "sql": "UPDATE y JOIN z ON y.id = z.id SET b = 1"}
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps(line) + "\n")
    without = read_events(spark, str(path))
    assert without.events.count() == 0
    assert "undecided" in without.dead.first().reason
    state = _state()
    ingested = read_events(spark, str(path), state=state)
    assert ingested.dead.count() == 0
    [row] = apply_filters(ingested.events, state).collect()
    tables = [(t.db, t.table, t.updating) for t in row.tables]
    [want], _ = evaluate_lines(state, [json.dumps(line)])
    assert tables == [(t.db, t.table, t.updating) for t in want.event.tables] == [(None, "y", False), (None, "z", True)]
    assert row.decision == want.decision.decision.value


# --- differential: generated schemas and event sequences -----------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType  # noqa: E402
from replfilter.evaluation.event_json import to_json  # noqa: E402
from replfilter.evaluation.event_lines import LineEvaluator  # noqa: E402
from replfilter.evaluation.events import CommandKind as CK, QueryEvent, RowEvent, TableRef, TransactionEvent, TransactionKind  # noqa: E402
from replfilter.replica.state import Channel, SourceSettings  # noqa: E402
from spark_helpers import event_row  # noqa: E402

G_DBS = ("d1", "d2")
G_TABLES = ("t1", "T1", "t2")


@st.composite
def schemas(draw) -> str:
    lines = []
    for db in G_DBS:
        if draw(st.integers(0, 4)) == 0:
            continue
        lines.append(f"CREATE DATABASE {db};")
        for table in draw(st.lists(st.sampled_from(G_TABLES), unique=True, max_size=3)):
            lines.append(f"CREATE TABLE {db}.{table} (id int, a int);")
    return "\n".join(lines) + "\n"


@st.composite
def catalog_states(draw) -> ReplicaState:
    lctn = draw(st.sampled_from((0, 1)))
    filters = FilterSet()
    collation = ReplicaState.fresh(lctn).collation
    how = ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL
    if draw(st.booleans()):
        rules = draw(st.lists(st.sampled_from([f"{d}.{t}" for d in G_DBS for t in G_TABLES]), max_size=2))
        filters = filters.set_type(FilterType.IGNORE_TABLE, rules, how, 1, collation)
    if draw(st.integers(0, 3)) == 0:
        filters = filters.set_type(FilterType.IGNORE_DB, draw(st.lists(st.sampled_from(G_DBS), max_size=1)), how, 1, collation)
    if draw(st.integers(0, 4)) == 0:
        filters = filters.set_type(FilterType.REWRITE_DB, [("d2", "d1")], how, 1, collation)
    state = ReplicaState.fresh(lctn).with_channel(Channel("", source=SourceSettings(host="src"), filters=filters))
    return _state(draw(schemas()), state)


_db = st.sampled_from(G_DBS)
_table = st.sampled_from(G_TABLES)


@st.composite
def ddl_events(draw) -> QueryEvent:
    db, table = draw(_db), draw(_table)
    qualified = draw(st.booleans())
    name = f"{db}.{table}" if qualified else table
    ref = (TableRef(db if qualified else None, table),)
    kind = draw(st.sampled_from(("create", "create_if", "drop", "drop_if", "alter", "create_db", "drop_db")))
    if kind == "create":
        return QueryEvent("", db, CK.CREATE_TABLE, ref, f"CREATE TABLE {name} (id int)")
    if kind == "create_if":
        return QueryEvent("", db, CK.CREATE_TABLE, ref, f"CREATE TABLE IF NOT EXISTS {name} (id int)")
    if kind == "drop":
        return QueryEvent("", db, CK.DROP_TABLE, ref, f"DROP TABLE {name}")
    if kind == "drop_if":
        return QueryEvent("", db, CK.DROP_TABLE, ref, f"DROP TABLE IF EXISTS {name}", if_exists=True)
    if kind == "alter":
        return QueryEvent("", db, CK.ALTER_TABLE, ref, f"ALTER TABLE {name} ADD COLUMN c{draw(st.integers(0, 9))} int")
    if kind == "create_db":
        return QueryEvent("", db, CK.CREATE_DB, (), f"CREATE DATABASE {db}")
    return QueryEvent("", db, CK.DROP_DB, (), f"DROP DATABASE {db}")


@st.composite
def dml_events(draw) -> QueryEvent:
    db, table = draw(_db), draw(_table)
    qualified = draw(st.booleans())
    name = f"{db}.{table}" if qualified else table
    ref = (TableRef(db if qualified else None, table),)
    command = draw(st.sampled_from((CK.INSERT, CK.UPDATE, CK.DELETE)))
    return QueryEvent("", draw(_db), command, ref, draw(st.sampled_from((None, f"INSERT INTO {name} VALUES (1)"))))


catalog_events = st.lists(
    st.one_of(
        ddl_events(),
        dml_events(),
        st.builds(RowEvent, st.just(""), _db, _table),
        st.builds(RowEvent, st.just(""), _db, _table),
        st.builds(TransactionEvent, st.just(""), st.just(TransactionKind.XID), st.none()),
    ),
    min_size=1,
    max_size=40,
)


def _reference(state: ReplicaState, evs):
    evaluator = LineEvaluator(state)
    results = list(evaluator.results([to_json(e) for e in evs]))
    assert all(r.error is None for r in results)
    want = [(r.decision.decision.value if r.decision.decision else None,
             None if r.applier_error is None else r.to_json() and __import__("json").loads(r.to_json())["applier_error"])
            for r in results]
    return want, evaluator.state()


def _spark(spark, state, evs, **kwargs):
    from pyspark.sql.types import LongType, StructField, StructType

    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from replfilter.spark_runtime.transform import decide_frame

    schema = StructType([StructField("line", LongType(), False), *EVENT_SCHEMA.fields])
    # shuffled rows: the order column, not the row order, gives the event order
    rows = [event_row(e, line=i + 1) for i, e in enumerate(evs)]
    df = spark.createDataFrame(list(reversed(rows)), schema)
    decided = decide_frame(df, state, order=["line"], **kwargs)
    got = [(r.decision, r.applier_error) for r in decided.df.orderBy("line").collect()]
    return got, decided


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=catalog_states(), evs=catalog_events)
def test_decisions_and_applier_errors_equal_evaluate(spark, state, evs):
    want, want_state = _reference(state, evs)
    got, decided = _spark(spark, state, evs)
    assert got == want
    assert decided.new_state() == want_state


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=catalog_states(), evs=catalog_events)
def test_applier_errors_survive_hash_collisions(spark, state, evs):
    want, want_state = _reference(state, evs)
    got, decided = _spark(spark, state, evs, hash_modulus=2)
    assert got == want
    assert decided.new_state() == want_state
