"""Every dead letter names the file its record came from, whatever the input format (and, for a
JSON line, its line): also the events refused after the readers' own checks, when their SQL text
is read (:mod:`replfilter.spark_runtime.sql_tables`) or when the rules cannot decide tables whose
updating flag is not known."""

from __future__ import annotations

import json
import os

import pytest

pytestmark = pytest.mark.spark

OWNER_UNKNOWN = "UPDATE y JOIN z ON y.id = z.id SET b = 1"
"""A multi-table UPDATE whose unqualified SET column's table is not known (no source schema):
without the replica's rules, ``evaluate`` leaves it undecided."""
OWNER_REASON = "undecided: which table owns `b` is not known: give the schema with `--schema`, or qualify the column"


def _named(path: str | None) -> str | None:
    """A file's name; for a part of a directory Spark wrote (Parquet), the directory's."""
    if path is None:
        return None
    head, name = os.path.split(path)
    return os.path.basename(head) if name.startswith("part-") else name


def _dead(ingested) -> list[tuple[str, str | None, int | None]]:
    return sorted((r.reason, _named(r.source_file), r.line) for r in ingested.dead.collect())


def test_json_lines_whose_sql_text_is_refused_name_their_file_and_line(spark, tmp_path):
    from replfilter.spark_runtime.ingest import read_events

    query = json.dumps({"v": 1, "type": "query", "default_db": "d", "sql": OWNER_UNKNOWN})
    row = json.dumps({"v": 1, "type": "row", "channel": "", "db": "d", "table": "t"})
    readable = json.dumps({"v": 1, "type": "query", "default_db": "d", "sql": "INSERT INTO t VALUES (1)"})
    (tmp_path / "a.jsonl").write_text("\n".join([row, readable, "", query]) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join([query, "{broken", row]) + "\n")
    ingested = read_events(spark, str(tmp_path), "json")
    dead = _dead(ingested)
    assert [d for d in dead if d[0] == OWNER_REASON] == [(OWNER_REASON, "a.jsonl", 4), (OWNER_REASON, "b.jsonl", 1)]
    assert [d[1:] for d in dead if d[0] != OWNER_REASON] == [("b.jsonl", 2)]
    got = sorted((r.type, r.sql) for r in ingested.events.collect())
    assert got == [("query", "INSERT INTO t VALUES (1)"), ("row", None), ("row", None)]
    assert "_source" not in ingested.events.columns and "_pos" not in ingested.events.columns


def test_parquet_rows_refused_after_the_check_name_their_file(spark, tmp_path):
    """A row whose SQL text leaves its tables open, and (with the replica's rules) a row of tables
    whose updating flag is not known that those rules cannot decide."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.schema import EVENT_SCHEMA

    base = {f.name: None for f in EVENT_SCHEMA.fields}
    query = {**base, "v": 1, "type": "query", "channel": "", "default_db": "d", "sql": OWNER_UNKNOWN}
    unknown = [{"db": "d", "table": t, "updating": None, "updating_unknown": True} for t in ("x", "b")]
    flagged = {**base, "v": 1, "type": "query", "channel": "", "default_db": "d", "command": "UPDATE_MULTI",
               "tables": unknown, "sql": None}
    row = {**base, "v": 1, "type": "row", "channel": "", "db": "d", "table": "t"}
    spark.createDataFrame([row, query], EVENT_SCHEMA).coalesce(1).write.parquet(str(tmp_path / "one.parquet"))
    spark.createDataFrame([flagged, row], EVENT_SCHEMA).coalesce(1).write.parquet(str(tmp_path / "two.parquet"))
    session = Session()
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.x)")
    ingested = read_events(spark, str(tmp_path / "one.parquet"), "parquet")
    assert _dead(ingested) == [(OWNER_REASON, "one.parquet", None)]
    ingested = read_events(spark, str(tmp_path / "two.parquet"), "parquet", state=session.state)
    reason = ("undecided: whether 'd.x' is updating is not known, and it decides the statement if it is (table "
              "'d.x' is in replicate-ignore-table): give the source's schema with `--schema`, or qualify the SET columns")
    assert _dead(ingested) == [(reason, "two.parquet", None)]
    assert [r.type for r in ingested.events.collect()] == ["row"]
    assert "_source" not in ingested.events.columns


def test_debezium_schema_changes_whose_text_is_refused_name_their_file(spark, tmp_path):
    from replfilter.spark_runtime.ingest import read_events

    change = {"op": "c", "source": {"db": "d", "table": "t"}, "after": {"id": 1}}
    ddl = {"databaseName": "d", "ddl": OWNER_UNKNOWN, "source": {"db": "d"}}
    (tmp_path / "x.json").write_text("\n".join(json.dumps(e) for e in (change, ddl)) + "\n")
    (tmp_path / "y.json").write_text("\n".join([json.dumps(change), "{broken"]) + "\n")
    ingested = read_events(spark, str(tmp_path), "debezium")
    assert [(reason, name) for reason, name, _line in _dead(ingested)] == [
        ("not valid JSON", "y.json"), (OWNER_REASON, "x.json"),
    ]
    assert [r.type for r in ingested.events.collect()] == ["row", "row"]
    assert "_source" not in ingested.events.columns
