"""Tables whose updating flag is not known, in the Spark runtime: a multi-table UPDATE whose
unqualified SET column's table is not known (no source schema). The row form says so with
``tables[].updating_unknown`` (a NULL ``updating`` means true, as it always has), and Spark then
decides as ``replfilter evaluate`` does: the same decisions, counters, dead letters and
``applier_error`` (the triggers of a table fire only where it is known to be updating)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType
from replfilter.evaluation.catalog.loader import load_schema_lines
from replfilter.evaluation.event_lines import LineEvaluator
from replfilter.replica.state import Channel, ReplicaState, SourceSettings

pytestmark = pytest.mark.spark

SCHEMA = """CREATE DATABASE d;
USE d;
CREATE TABLE a (id int, c int);
CREATE TABLE b (id int, e int);
CREATE TRIGGER tr AFTER UPDATE ON a FOR EACH ROW INSERT INTO gone VALUES (NEW.id);
"""
TEXTS = (
    "UPDATE a, b SET c = 1",        # a, b: not known; neither meets a rule: APPLY, and a's trigger is not named
    "UPDATE x, b SET c = 2",        # x meets the ignore rule, and decides it if it is updating: undecided
    "UPDATE a, b SET a.c = 3",      # a is updating: its trigger opens d.gone, which the replica lacks: 1146
)


def _replica() -> ReplicaState:
    """The replica's catalog known (its schema loaded), the source's schema not (dropped)."""
    filters = FilterSet().set_type(FilterType.IGNORE_TABLE, ["d.x"], ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL,
                                   1, ReplicaState.fresh().collation)
    state = ReplicaState.fresh().with_channel(Channel("", source=SourceSettings(host="src"), filters=filters))
    state = load_schema_lines(state, SCHEMA.splitlines(keepends=True), "schema.sql").state
    return dataclasses.replace(state, every_source_catalog=None)


def test_json_lines_decide_and_fail_as_evaluate(spark, tmp_path):
    from pyspark.sql import functions as F

    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.transform import decide_frame

    state = _replica()
    lines = [json.dumps({"v": 1, "type": "query", "default_db": "d", "sql": sql}) for sql in TEXTS]
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n")
    evaluator = LineEvaluator(state)
    want = [json.loads(r.to_json()) for r in evaluator.results(lines)]
    assert [(w["decision"], w["applier_error"]) for w in want] == [
        ("APPLY", None), (None, None), ("APPLY", "ERROR 1146 (42S02): Table 'd.gone' doesn't exist"),
    ]
    ingested = read_events(spark, str(path), state=state)
    assert [r.reason for r in ingested.dead.collect()] == [want[1]["reason"]]
    events = ingested.events.withColumn("line", F.when(F.col("sql") == TEXTS[0], 1).otherwise(3))
    decided = decide_frame(events, state, order=["line"])
    got = decided.df.orderBy("line").collect()
    assert [(r.decision, r.applier_error) for r in got] == [(want[0]["decision"], None), (want[2]["decision"], want[2]["applier_error"])]
    assert [(t.table, t.updating, t.updating_unknown) for t in got[0].tables] == [("a", None, True), ("b", None, True)]
    assert decided.new_state() == evaluator.state()


def test_files_of_the_earlier_table_schema_read_the_same(spark, tmp_path):
    """A Parquet file whose table entries have no ``updating_unknown`` (written before it
    existed) reads as it did, NULL ``updating`` as true; and a DataFrame built with that
    schema is still an event frame, decided as before."""
    from pyspark.sql.types import ArrayType, StructField, StructType

    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.schema import EVENT_SCHEMA, TABLE_SCHEMA_V1
    from replfilter.spark_runtime.transform import apply_filters

    old = StructType([StructField(f.name, ArrayType(TABLE_SCHEMA_V1, True), True) if f.name == "tables" else f
                      for f in EVENT_SCHEMA.fields])
    row = {f: None for f in old.names} | {"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
                                          "tables": [{"db": None, "table": "x", "updating": None},
                                                     {"db": None, "table": "b", "updating": False}]}
    frame = spark.createDataFrame([row], old)
    frame.write.parquet(str(tmp_path / "old"))
    [read] = read_events(spark, str(tmp_path / "old"), "parquet").events.collect()
    assert [(t.table, t.updating, t.updating_unknown) for t in read.tables] == [("x", True, None), ("b", False, None)]
    state = _replica()
    [old_decided] = apply_filters(frame, state).collect()
    assert (old_decided.decision, old_decided.filter_rule) == ("SKIP", "d.x")  # x updating: ignored


def test_the_json_reader_refuses_the_row_forms_field_as_evaluate_does(spark, tmp_path):
    from replfilter.evaluation.event_json import EventFormatError, from_json
    from replfilter.spark_runtime.ingest import read_events

    line = json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
                       "tables": [{"db": None, "table": "a", "updating": True, "updating_unknown": True}]},
                      separators=(",", ":"))
    with pytest.raises(EventFormatError) as refused:
        from_json(line)
    path = tmp_path / "events.jsonl"
    path.write_text(line + "\n")
    ingested = read_events(spark, str(path))
    assert ingested.events.count() == 0
    assert [r.reason for r in ingested.dead.collect()] == [str(refused.value)]


@pytest.mark.parametrize("lookup", ["auto", "broadcast"])
def test_the_transform_refuses_an_event_its_rules_leave_undecided(spark, lookup):
    """A frame given straight to the transform, not through ``read_events(state=...)``: an event
    the rules leave undecided is refused with the evaluator's reason, never decided (the driver's
    keys and the executors' alike)."""
    from replfilter.evaluation.events import CommandKind, QueryEvent, TableRef
    from replfilter.spark_runtime.key_events import InvalidEventError
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from replfilter.spark_runtime.transform import decide_frame
    from spark_helpers import event_row

    event = QueryEvent("", "d", CommandKind.UPDATE_MULTI, (TableRef(None, "x", None), TableRef(None, "b", None)))
    frame = spark.createDataFrame([event_row(event)], EVENT_SCHEMA)
    state = dataclasses.replace(_replica(), replica_catalog=None)
    with pytest.raises(InvalidEventError, match="whether 'd.x' is updating is not known"):
        decide_frame(frame, state, lookup=lookup)


def test_a_parquet_stream_decides_rows_that_carry_the_flag_with_each_batchs_rules(spark, tmp_path):
    """Parquet rows written with ``updating_unknown`` (by ``read_events`` of a binlog, say): the
    stream decides them as ``evaluate`` does, a dead letter where the batch's rules leave them
    undecided, instead of failing the batch."""
    import os
    import time

    from replfilter.evaluation.evaluator import apply_events
    from replfilter.evaluation.events import CommandKind, QueryEvent, TableRef
    from replfilter.server.session import Session
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from replfilter.spark_runtime.stream import EventStream, StreamConfig
    from spark_helpers import event_row

    evs = [QueryEvent("", "d", CommandKind.UPDATE_MULTI, (TableRef(None, t, None), TableRef(None, "b", None)))
           for t in ("a", "x")]
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.x)")
    want, _ = apply_events(session.state, evs)
    assert [d.decision.value if d.decision else None for d in want] == ["APPLY", None]
    events = tmp_path / "events"
    spark.createDataFrame([event_row(e) for e in evs], EVENT_SCHEMA).coalesce(1).write.parquet(str(tmp_path / "staging"))
    events.mkdir()
    (part,) = [p for p in (tmp_path / "staging").iterdir() if p.name.endswith(".parquet")]
    os.rename(part, events / "001.parquet")
    os.utime(events / "001.parquet", (time.time() - 10, time.time() - 10))
    config = StreamConfig(str(events), str(tmp_path / "out"), str(tmp_path / "ckpt"), input_format="parquet")
    EventStream(spark, session, config).run_available_now()
    applied = spark.read.parquet(config.output_dir).collect()
    assert [[t.table for t in r["tables"]] for r in applied] == [["a", "b"]]
    dead = spark.read.parquet(str(tmp_path / "out" / "_dead_letter")).collect()
    assert [d["reason"] for d in dead] == [want[1].reason]
