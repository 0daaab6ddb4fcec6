"""The in-shell applier: START REPLICA applies a channel's relay log with Spark in the background;
STOP REPLICA stops at a batch boundary; CHANGE REPLICATION FILTER while it runs fails with 3085;
after STOP, CHANGE, START the new rules apply from the next batch; SHOW REPLICA STATUS shows it."""

from __future__ import annotations

import json
import os
import time

import pytest

from replfilter.core.errors import MySQLError
from replfilter.evaluation.event_json import to_json
from replfilter.evaluation.events import RowEvent
from replfilter.core.filters import FilterType
from replfilter.server.session import Session

pytestmark = pytest.mark.spark


def _drop(relay, name: str, events) -> None:
    tmp = relay / f".{name}.tmp"
    tmp.write_text("\n".join(to_json(e) for e in events) + "\n")
    os.rename(tmp, relay / name)


def _status(session: Session, channel: str) -> dict:
    result = session.execute_text(f"SHOW REPLICA STATUS FOR CHANNEL '{channel}'")
    return dict(zip(result.columns, result.rows[0]))


def _counter(session: Session, channel: str, ftype: FilterType) -> int:
    return session.state.channel(channel).filters[ftype].counter


def test_start_stop_change_start(spark, tmp_path):
    from replfilter.spark_runtime.applier import install_applier

    relay = tmp_path / "relay"
    relay.mkdir()
    session = Session()
    applier = install_applier(session, applier_dir=str(tmp_path / "applier"), trigger_seconds=0.5)
    session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='src', RELAY_LOG_FILE='{relay}' FOR CHANNEL 'c1'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db1) FOR CHANNEL 'c1'")
    _drop(relay, "000.jsonl", [RowEvent("", f"db{k % 2}", f"a{k}") for k in range(10)] + [RowEvent("other", "db0", "z")])
    assert applier.runner("c1") is None  # no Spark before START

    session.execute_text("START REPLICA FOR CHANNEL 'c1'")
    status = _status(session, "c1")
    assert status["Replica_SQL_Running"] == "Yes"
    applier.wait_idle("c1")
    status = _status(session, "c1")
    assert status["Replica_SQL_Running_State"] == "Replica has read all relay log; waiting for more updates"
    assert status["Relay_Log_Pos"] == 11 and status["Exec_Source_Log_Pos"] == 5
    assert _counter(session, "c1", FilterType.IGNORE_DB) == 5

    # the SQL thread runs: CHANGE REPLICATION FILTER fails as in MySQL, nothing changes
    with pytest.raises(MySQLError) as info:
        session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db0) FOR CHANNEL 'c1'")
    assert info.value.code == 3085

    session.execute_text("STOP REPLICA FOR CHANNEL 'c1'")
    assert _status(session, "c1")["Replica_SQL_Running"] == "No"
    assert applier.runner("c1").thread.is_alive() is False  # STOP returned after the query stopped
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db0) FOR CHANNEL 'c1'")
    _drop(relay, "001.jsonl", [RowEvent("c1", f"db{k % 2}", f"b{k}") for k in range(6)])
    time.sleep(1.0)  # stopped: nothing is applied
    assert applier.runner("c1").progress.batches == 1
    assert applier.runner("c1").pending_files() == ["001.jsonl"]

    session.execute_text("START REPLICA SQL_THREAD FOR CHANNEL 'c1'")
    applier.wait_idle("c1")
    applied = spark.read.parquet(str(tmp_path / "applier" / "c1" / "applied")).collect()
    skipped = spark.read.parquet(str(tmp_path / "applier" / "c1" / "skipped")).collect()
    first = {r["table"] for r in applied if r["table"].startswith("a")}
    second = {r["table"] for r in applied if r["table"].startswith("b")}
    assert first == {f"a{k}" for k in range(10) if k % 2 == 0}  # old rules: db1 ignored
    assert second == {f"b{k}" for k in range(6) if k % 2 == 1}  # new rules: db0 ignored
    assert len(skipped) == 5 + 3
    assert {r["channel"] for r in applied} == {"c1"}  # events naming no channel are c1's
    dead = spark.read.parquet(str(tmp_path / "applier" / "c1" / "dead-letter")).collect()
    assert [r["reason"] for r in dead] == ["event for channel 'other' in the relay log of channel 'c1'"]
    assert _counter(session, "c1", FilterType.IGNORE_DB) == 3  # reset by CHANGE, then moved
    session.execute_text("STOP REPLICA")
    assert _status(session, "c1")["Replica_SQL_Running"] == "No"
    # RESET REPLICA forgets the relay log: checkpoint and outputs are moved aside, not deleted
    session.execute_text("RESET REPLICA FOR CHANNEL 'c1'")
    names = sorted(p.name for p in (tmp_path / "applier").iterdir())
    assert len(names) == 1 and names[0].startswith("c1.reset-")


def test_start_fails_for_a_missing_relay_log(tmp_path):
    from replfilter.spark_runtime.applier import install_applier

    session = Session()
    applier = install_applier(session, applier_dir=str(tmp_path / "applier"))
    session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='src', RELAY_LOG_FILE='{tmp_path / 'nope'}'")
    with pytest.raises(MySQLError) as info:
        session.execute_text("START REPLICA")
    assert info.value.code == 29
    assert session.state.channel("").sql_running is False
    assert applier.runner("") is None
    # a channel without a relay log keeps the simulated threads (no Spark)
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='x', RELAY_LOG_FILE=''")
    session.execute_text("START REPLICA")
    assert session.state.channel("").sql_running is True and applier.runner("") is None


def test_parquet_relay_log_batches_take_the_compiled_path(spark, tmp_path):
    """A relay log of Parquet files: events naming no channel are the channel's, and each batch
    is decided by the compiled expressions (no row on the exact path, COUNTERs observed as the
    batch was written), with the evaluator's decisions and counters."""
    from replfilter.spark_runtime.applier import install_applier
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from spark_helpers import event_row

    relay = tmp_path / "relay"
    relay.mkdir()
    now = time.time() - 100
    for f in range(2):
        rows = [event_row(RowEvent("" if k % 3 else "c1", f"db{k % 2}", f"t{k % 4}")) for k in range(12)]
        staging = tmp_path / f"staging{f}"
        spark.createDataFrame(rows, EVENT_SCHEMA).coalesce(1).write.parquet(str(staging))
        (part,) = [p for p in staging.iterdir() if p.name.endswith(".parquet")]
        os.utime(part, (now + f, now + f))
        os.rename(part, relay / f"{f}.parquet")
    session = Session()
    applier = install_applier(session, applier_dir=str(tmp_path / "applier"), trigger_seconds=0.5, max_files_per_trigger=1)
    session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='src', RELAY_LOG_FILE='{relay}' FOR CHANNEL 'c1'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db1) FOR CHANNEL 'c1'")
    session.execute_text("START REPLICA FOR CHANNEL 'c1'")
    applier.wait_idle("c1")
    batches = applier.runner("c1").stream.batches
    assert [(b.events, b.applied, b.decided_by, b.exact_events, b.counters_from) for b in batches] == [
        (12, 6, "compiled", 0, "write"), (12, 6, "compiled", 0, "write"),
    ]
    assert _counter(session, "c1", FilterType.IGNORE_DB) == 12
    applied = spark.read.parquet(str(tmp_path / "applier" / "c1" / "applied")).collect()
    assert len(applied) == 12 and {(r["channel"], r["db"]) for r in applied} == {("c1", "db0")}
    session.execute_text("STOP REPLICA")


def test_a_relay_log_directory_of_binlog_files_is_applied_transaction_by_transaction(spark, tmp_path):
    """CHANGE REPLICATION SOURCE names a replica's relay-log directory (binlog files and their
    .index): START REPLICA applies it as it is written, STOP stops where a transaction ends,
    START goes on from there, every event once; SHOW REPLICA STATUS gives the relay log's and
    the source's coordinates of the last applied transaction; RESET REPLICA moves the outputs
    aside as for event files."""
    from test_binlog_tail import relay_log
    from replfilter.evaluation.binlog.tail import IN_BEGIN, scan
    from replfilter.spark_runtime.applier import detect_format, install_applier
    from replfilter.spark_runtime.binlog_stream import START, BinlogStreamReader, piece_rows
    from pyspark.sql.streaming.datasource import ReadAllAvailable

    relay = tmp_path / "relay"
    relay.mkdir()
    first, second = relay_log(relay)
    whole = open(second, "rb").read()
    ends = [cut.pos for cut in scan(second, split_bytes=1, open_at_start=IN_BEGIN).cuts]
    cut_at = ends[1] + 30  # the writer is inside the transaction after the DDL
    with open(second, "wb") as handle:
        handle.write(whole[:cut_at])
    assert detect_format(str(relay)) == "binlog"
    session = Session()
    applier = install_applier(session, applier_dir=str(tmp_path / "applier"), trigger_seconds=0.5)
    session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='src', RELAY_LOG_FILE='{relay}' FOR CHANNEL 'c'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(d) FOR CHANNEL 'c'")
    session.execute_text("START REPLICA FOR CHANNEL 'c'")
    applier.wait_idle("c")
    status = _status(session, "c")
    assert (status["Relay_Log_File"], status["Relay_Log_Pos"]) == ("relay-bin.000002", ends[1])
    assert (status["Relay_Source_Log_File"], status["Exec_Source_Log_Pos"]) == ("source-bin.000001", 1000 + ends[1])

    session.execute_text("STOP REPLICA FOR CHANNEL 'c'")
    with open(second, "ab") as handle:  # the rest is written while the applier is stopped
        handle.write(whole[cut_at:])
    assert applier.runner("c").pending_files() == ["relay-bin.000002"]
    session.execute_text("START REPLICA FOR CHANNEL 'c'")
    applier.wait_idle("c")
    status = _status(session, "c")
    assert (status["Relay_Log_File"], status["Relay_Log_Pos"]) == ("relay-bin.000002", len(whole))
    assert status["Exec_Source_Log_Pos"] == 1000 + len(whole)
    base = tmp_path / "applier" / "c"
    written = spark.read.parquet(str(base / "applied")).collect() + spark.read.parquet(str(base / "skipped")).collect()
    places = sorted((json.loads(r["record"])["log_name"], json.loads(r["record"])["pos"]) for r in written)
    reader = BinlogStreamReader({"path": str(relay)})
    end = reader.latestOffset(dict(START), ReadAllAvailable())
    expected = sorted(
        (json.loads(row[13])["log_name"], json.loads(row[13])["pos"])
        for piece in reader.partitions(dict(START), end) for row in piece_rows(piece) if row[-1] is None
    )
    assert places == expected and len(places) == len(set(places))  # every event once
    assert {r["channel"] for r in written} == {"c"}
    assert _counter(session, "c", FilterType.IGNORE_DB) == 4  # the d.t Table_maps and the DDL, once each

    session.execute_text("STOP REPLICA FOR CHANNEL 'c'")
    session.execute_text("RESET REPLICA FOR CHANNEL 'c'")
    names = sorted(p.name for p in (tmp_path / "applier").iterdir())
    assert len(names) == 1 and names[0].startswith("c.reset-")
