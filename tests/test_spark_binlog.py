"""read_events(spark, path, "binlog"): binary/relay log files parsed in parallel into event rows
that Spark decides as ``replfilter evaluate`` decides the same files."""

from __future__ import annotations

import json

import pytest

from replfilter.evaluation.binlog.decide import decide_files
from replfilter.evaluation.event_lines import LineEvaluator
from replfilter.server.session import Session
from test_binlog_reader import mysql84_file

pytestmark = pytest.mark.spark


def test_binlog_directory_decides_as_evaluate(spark, tmp_path):
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.transform import apply_filters

    data = mysql84_file()
    (tmp_path / "binlog.000001").write_bytes(data)
    (tmp_path / "binlog.000002").write_bytes(data[:-7])  # a file still being written
    (tmp_path / "notes.txt").write_text("not listed in the index")
    (tmp_path / "binlog.index").write_text("./binlog.000001\n./binlog.000002\n")
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (audit)")

    ingested = read_events(spark, str(tmp_path), "binlog")
    decided = apply_filters(ingested.events, session.state).collect()
    ours = sorted(
        (json.loads(r["record"])["log_name"], json.loads(r["record"])["pos"], r["type"], r["decision"]) for r in decided
    )
    expected = sorted(
        (r.item.source.raw.log_name, r.item.source.raw.pos, r.event.type_name, r.decision.decision.value)
        for r in decide_files(LineEvaluator(session.state), [str(tmp_path / "binlog.000001"), str(tmp_path / "binlog.000002")])
        if r.item is not None and r.item.event is not None  # decided events; rows events follow their Table_map
    )
    assert ours == expected
    tables = [json.loads(r["record"]) for r in decided if r["type"] == "row" and r["db"] == "audit"]
    assert [t["rows"] for t in tables] == [2, 2]
    dead = ingested.dead.collect()
    assert [(d["source_file"].endswith("binlog.000002"), "truncated" in d["reason"]) for d in dead] == [(True, True)]
