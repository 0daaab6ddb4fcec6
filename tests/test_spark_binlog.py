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


def test_unknown_updating_tables_from_a_binlog_decide_as_evaluate(spark, tmp_path):
    """A multi-table UPDATE logged without ``Q_TABLE_MAP_FOR_UPDATE`` and read with no source
    schema: which of its tables are updating is not known. The row says so
    (``updating_unknown``, not a NULL ``updating``, which means true), and the events decide as
    ``evaluate`` decides them: by the rules where no such table meets one, else a dead letter
    with its reason; without the replica's state, a dead letter."""
    import binlog_builder as W
    from replfilter.evaluation.binlog import event_types as T
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.sql_tables import UNKNOWN_UPDATING
    from replfilter.spark_runtime.transform import apply_filters

    w = W.BinlogWriter()
    for sql, status in (("UPDATE a, b SET c = 1", b""), ("UPDATE x, b SET c = 1", b""),
                        ("UPDATE x, b SET c = 1", W.table_map_for_update(0b10))):  # b alone: the bitmap says
        w.add(T.QUERY, W.query(sql, "d", status=status))
    path = tmp_path / "binlog.000001"
    path.write_bytes(bytes(w))
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.x)")

    ingested = read_events(spark, str(path), "binlog", state=session.state)
    rows = apply_filters(ingested.events, session.state).collect()
    got = sorted((json.loads(r["record"])["pos"], r["decision"], [(t.table, t.updating, t.updating_unknown) for t in r.tables])
                 for r in rows)
    want = [r for r in decide_files(LineEvaluator(session.state), [str(path)]) if r.item is not None and r.item.event is not None]
    assert [r.decision.decision.value if r.decision.decision else None for r in want] == ["APPLY", None, "APPLY"]
    assert got == [
        (w.positions[1], "APPLY", [("a", None, True), ("b", None, True)]),
        (w.positions[3], "APPLY", [("x", False, None), ("b", True, None)]),
    ]
    [dead] = ingested.dead.collect()
    assert dead.reason == want[1].decision.reason and dead.source_file == str(path)

    without = read_events(spark, str(path), "binlog")
    assert sorted(r.reason for r in without.dead.collect()) == [f"undecided: {UNKNOWN_UPDATING}"] * 2
    assert without.events.count() == 1


def test_a_relay_log_rotated_mid_transaction_reads_as_one_log(spark, tmp_path):
    """A transaction the relay log continues in its next file (MariaDB rotates its relay log
    so) is read by one task: its rows keep their Table_map, no dead letter; a file given alone
    is read to its end."""
    from test_binlog_tail import relay_log
    from replfilter.spark_runtime.ingest import read_events

    first, _second = relay_log(tmp_path)
    ingested = read_events(spark, str(tmp_path), "binlog")
    assert ingested.dead.count() == 0
    rows = [json.loads(r["record"]) for r in ingested.events.collect() if r["type"] == "row"]
    assert [(r["log_name"], r["rows"]) for r in rows] == [
        ("relay-bin.000001", 1), ("relay-bin.000001", 1), ("relay-bin.000002", 1)
    ]
    alone = read_events(spark, first, "binlog")
    assert [json.loads(r["record"])["rows"] for r in alone.events.collect() if r["type"] == "row"] == [1, 0]
    missing = read_events(spark, str(tmp_path / "nope"), "binlog").dead.collect()
    assert [d["reason"] for d in missing] == [f"{tmp_path / 'nope'}: No such file or directory"]
