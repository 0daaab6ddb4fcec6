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
