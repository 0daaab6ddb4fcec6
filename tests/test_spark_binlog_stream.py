"""``replfilter stream`` over binary and relay log files (spark_runtime/binlog_stream.py): a file
still being written is resumed where its last complete transaction ended, a bad event is a dead
letter with file and position, a batch is parsed in pieces cut at transaction ends (across a
relay log rotated mid-transaction), and a real MariaDB replica's relay-log directory is
streamed exactly once across a kill -9."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter

import pytest

import binlog_builder as W
import mariadb_server
from replfilter.evaluation.binlog import column_values as C
from replfilter.evaluation.binlog import event_types as T
from replfilter.evaluation.binlog.tail import log_files, source_position
from replfilter.evaluation.binlog.decide import decide_files
from replfilter.evaluation.event_lines import LineEvaluator
from replfilter.server.session import Session
from test_binlog_reader import SID
from test_binlog_tail import relay_log
from test_spark_stream import _kill_9_after

pytestmark = pytest.mark.spark

COLUMNS = [(C.LONG, 0)]
FILTERS = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='src'; CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (audit)"  # configured: its COUNTERs move


def busy_binlog() -> bytes:
    """Eight transactions on two databases (rows, a DDL), MySQL 8.4 format with checksums."""
    w = W.BinlogWriter()
    w.add(T.PREVIOUS_GTIDS, W.previous_gtids({}))
    for gno in range(1, 9):
        db = ("shop", "audit")[gno % 2]
        w.add(T.GTID, W.gtid(SID, gno))
        if gno == 5:
            w.add(T.QUERY, W.query(f"CREATE TABLE {db}.t{gno} (a INT)", db))
            continue
        w.add(T.QUERY, W.query("BEGIN", db))
        w.add(T.TABLE_MAP, W.table_map(100 + gno, db, f"t{gno}", COLUMNS))
        w.add(T.WRITE_ROWS, W.rows_event(100 + gno, 1, [W.image(COLUMNS, [gno]), W.image(COLUMNS, [-gno])]))
        w.add(T.XID, W.xid(gno))
    return bytes(w)


def _stream(spark, tmp_path, name: str, events_dir, **extra):
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    session = Session()
    session.execute_sql(FILTERS)
    base = tmp_path / name
    config = StreamConfig(
        str(events_dir), str(base / "out"), str(base / "ckpt"), skipped_dir=str(base / "skipped"),
        input_format="binlog", **extra,
    )
    return EventStream(spark, session, config), base


def _outputs(spark, base) -> list[tuple]:
    """Every event written, applied or skipped: (file, position, type, decision)."""
    rows = []
    for kind in ("out", "skipped"):
        if (base / kind).exists():
            rows += spark.read.parquet(str(base / kind)).collect()
    return [(json.loads(r["record"])["log_name"], json.loads(r["record"])["pos"], r["type"], r["decision"]) for r in rows]


def _values(spark, base) -> dict:
    """The decoded row images of each Table_map row written, by place."""
    rows = spark.read.parquet(str(base / "out")).collect() + spark.read.parquet(str(base / "skipped")).collect()
    records = [json.loads(r["record"]) for r in rows if r["type"] == "row"]
    return {(rec["log_name"], rec["pos"]): rec["values"] for rec in records}


def _gtids(spark, base) -> list[str]:
    """The GTID of every transaction written (its GTID event's)."""
    rows = spark.read.parquet(str(base / "out")).collect() + spark.read.parquet(str(base / "skipped")).collect()
    return [r["gtid"] for r in rows if r["type"] == "transaction" and r["kind"] == "GTID"]


def _counters(base) -> Counter:
    """The COUNTERs the batches moved, from their manifests (each batch's counted once)."""
    total: Counter = Counter()
    for manifest in (base / "out" / "_replfilter").glob("*.json"):
        for channel, counts in json.loads(manifest.read_text())["counts"].items():
            total.update({(channel, k): v for k, v in counts.items()})
    return total


def test_a_file_appended_mid_event_is_resumed_by_the_next_batch(spark, tmp_path):
    """The binlog arrives in two chunks cut inside an event: the first batch stops at the end
    of the last complete transaction (the cut event waits: no dead letter), the next batch
    resumes there; together they equal one run over the whole file, counters included."""
    data = busy_binlog()
    cut_at = data.index(W.xid(6)) - 3  # inside transaction 6's Xid event
    events = tmp_path / "events"
    events.mkdir()
    log = events / "binlog.000001"
    log.write_bytes(data[:cut_at])

    first, base = _stream(spark, tmp_path, "chunks", events, binlog_rows=True)
    (batch,) = first.run_available_now()
    assert batch.dead == 0
    position = batch.position
    assert position["log"] == "binlog.000001" and position["pos"] < cut_at
    assert data[position["pos"]:].startswith(data[position["pos"]:position["pos"] + 19])  # an event starts there

    with open(log, "ab") as handle:  # the writer goes on
        handle.write(data[cut_at:])
    second, _ = _stream(spark, tmp_path, "chunks", events, binlog_rows=True)  # a new process, the same checkpoint
    (resumed,) = second.run_available_now()
    assert resumed.batch_id == 1 and resumed.dead == 0 and resumed.position["pos"] == len(data)

    (tmp_path / "whole").mkdir()
    (tmp_path / "whole" / "binlog.000001").write_bytes(data)
    once, whole = _stream(spark, tmp_path, "once", tmp_path / "whole", binlog_rows=True)
    once.run_available_now()
    streamed, expected = _outputs(spark, base), _outputs(spark, whole)
    assert len(streamed) == len(set(streamed))  # nothing twice
    assert sorted(streamed) == sorted(expected)  # nothing lost
    assert {row[3] for row in expected} == {"APPLY", "SKIP"}
    assert _counters(base) == _counters(whole) != Counter()
    values = _values(spark, base)  # --rows: the row images, in the applied and skipped outputs
    assert values == _values(spark, whole) and values[("binlog.000001", min(values)[1])] == [{"after": {"col_1": 1}}, {"after": {"col_1": -1}}]


def test_a_bad_event_is_a_dead_letter_with_file_and_position_and_the_stream_goes_on(spark, tmp_path):
    data = bytearray(busy_binlog())
    bad = data.index(W.table_map(103, "audit", "t3", COLUMNS)) - 19  # transaction 3's Table_map
    data[bad + 30] ^= 0xFF
    events = tmp_path / "events"
    events.mkdir()
    (events / "binlog.000001").write_bytes(bytes(data))
    stream, base = _stream(spark, tmp_path, "bad", events)
    (batch,) = stream.run_available_now()
    dead = sorted(spark.read.parquet(str(base / "out" / "_dead_letter")).collect(), key=lambda d: json.loads(d["record"])["pos"])
    rows_at = bad + len(W.event(T.TABLE_MAP, W.table_map(103, "audit", "t3", COLUMNS), bad))
    assert [(d["reason"], d["source_file"]) for d in dead] == [
        (f"binlog.000001: at {bad}: checksum mismatch in Table_map event ending at {rows_at}", str(events / "binlog.000001")),
        (f"binlog.000001: at {rows_at}: rows event for table_id 103 without its Table_map", str(events / "binlog.000001")),
    ]
    written = _outputs(spark, base)
    assert ("binlog.000001", bad, "row", "SKIP") not in written
    assert len({pos for _f, pos, typ, _d in written if typ == "row"}) == 6  # the other seven transactions' rows but t3, DDL aside
    assert batch.position["pos"] == len(data)


def test_a_batch_is_read_in_pieces_cut_at_transaction_ends(tmp_path):
    """Small pieces give several tasks; the pieces together read what one read gives, a
    transaction the relay log continues in its next file included (its rows keep their
    Table_map: no dead letter)."""
    from replfilter.spark_runtime.binlog_stream import START, BinlogStreamReader, piece_rows
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxFiles

    from replfilter.evaluation.binlog.tail import scan

    relay_log(tmp_path)
    small = BinlogStreamReader({"path": str(tmp_path), "splitBytes": "1"})
    end = small.latestOffset(dict(START), ReadAllAvailable())
    assert end["log"] == "relay-bin.000002" and end["pos"] == os.path.getsize(tmp_path / "relay-bin.000002")
    pieces = small.partitions(dict(START), end)
    whole = BinlogStreamReader({"path": str(tmp_path)}).partitions(dict(START), end)
    assert len(whole) == 1 and len(pieces) > 3
    assert any(len(piece.segments) == 2 for piece in pieces)  # the transaction across the two files

    def rows(parts):
        return [row[:14] + row[17:] for part in parts for row in piece_rows(part)]

    assert rows(pieces) == rows(whole)
    assert [row for row in rows(whole) if row[-1] is not None] == []
    assert [json.loads(r[13])["rows"] for r in rows(whole) if r[1] == "row"] == [1, 1, 1]

    # --rows: each Table_map row carries its rows events' images, as evaluate --rows gives them
    decoded = BinlogStreamReader({"path": str(tmp_path), "splitBytes": "1", "rows": "true"})
    values = {
        (json.loads(row[13])["log_name"], json.loads(row[13])["pos"]): json.loads(row[13])["values"]
        for piece in decoded.partitions(dict(START), end) for row in piece_rows(piece) if row[1] == "row"
    }
    evaluated: dict = {}
    paths = [str(tmp_path / "relay-bin.000001"), str(tmp_path / "relay-bin.000002")]
    for result in decide_files(LineEvaluator(Session().state), paths, decode_rows=True):
        if result.values is not None:
            table = result.item.rows_of
            evaluated.setdefault(table, []).extend(result.values)
    assert list(values.values()) == list(evaluated.values()) == [[{"after": {"col_1": n}}] for n in (1, 2, 4)]

    one_file = BinlogStreamReader({"path": str(tmp_path), "maxFilesPerTrigger": "1"})  # a batch a file
    at, steps = dict(START), []
    while (after := one_file.latestOffset(at, ReadMaxFiles(1))) != at:
        steps.append((after["log"], after["pos"]))
        at = after
    first_end = scan(str(tmp_path / "relay-bin.000001"), closed=True).last.pos
    assert steps == [("relay-bin.000001", first_end), ("relay-bin.000002", end["pos"])]


# --- a real replica's relay log, kill -9 ----------------------------------------------------------


@pytest.fixture(scope="module")
def mariadb_relay_log(tmp_path_factory):
    """A MariaDB source and replica; the replica's relay-log directory (small files, kept after
    they are applied, with their index) after a workload of 60 transactions on three databases,
    and the source's binlog coordinates at the end."""
    if not mariadb_server.available():
        pytest.skip("needs Debian's mariadb-server and mariadb-client")
    source = mariadb_server.MariaDB.start()
    replica = None
    try:
        replica = mariadb_server.MariaDB.start(
            "--server-id=2", "--relay-log=relay-bin", "--relay-log-purge=0", "--max-relay-log-size=4096"
        )
        replica.replicate_from(source)
        work = ["CREATE DATABASE t1; CREATE DATABASE t2; CREATE DATABASE audit;", "SET SESSION binlog_format = 'ROW';"]
        work += [f"CREATE TABLE {db}.a (id INT PRIMARY KEY, v VARCHAR(40));" for db in ("t1", "t2", "audit")]
        for i in range(60):
            db = ("t1", "t2", "audit")[i % 3]
            work.append(f"BEGIN; INSERT INTO {db}.a VALUES ({i}, 'row {i}'), ({i + 1000}, 'x'); "
                        f"UPDATE {db}.a SET v = 'u' WHERE id = {i}; COMMIT;")
        source.sql("\n".join(work))
        replica.wait_for(source)
        replica.sql("STOP SLAVE")
        relay = tmp_path_factory.mktemp("relay")
        for path in replica.datadir.iterdir():
            if path.name.startswith("relay-bin") or path.name == "relay-log.info":
                shutil.copy(path, relay / path.name)
        file, pos = source.sql("SHOW MASTER STATUS", "--skip-column-names").split("\t")[:2]
        return relay, (file, int(pos))
    finally:
        source.stop()
        if replica is not None:
            replica.stop()


@pytest.mark.e2e
def test_kill_9_mid_run_over_a_mariadb_relay_log_then_restart_gives_exactly_once(spark, tmp_path, mariadb_relay_log):
    """``replfilter stream`` over a real replica's relay-log directory (read in its index's
    order, one file a batch), killed with SIGKILL after two batches and run again: every
    transaction's events are written exactly once and the COUNTERs the batches moved equal one
    run's; where the stream ended is the end of the source's binlog in the source's coordinates
    (SHOW REPLICA STATUS's Relay_Source_Log_File and Exec_Source_Log_Pos)."""
    mariadb_relay_log, source_end = mariadb_relay_log
    files = [line for line in (mariadb_relay_log / "relay-bin.index").read_text().splitlines() if line.strip()]
    assert len(files) >= 4, files
    base = tmp_path  # out/, ckpt/ and skipped/ under it, as _kill_9_after expects
    init = tmp_path / "init.sql"  # the default channel configured: its COUNTERs move
    init.write_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='src';\n")
    command = [
        sys.executable, "-m", "replfilter", "stream", "--replicate-ignore-db=audit", "--init", str(init),
        str(mariadb_relay_log), str(base / "out"), str(base / "ckpt"), "--skipped", str(base / "skipped"),
        "--master", "local[2]", "--max-files-per-trigger", "1",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    _kill_9_after(tmp_path, command, env, commits=2, files=len(files), settle=0.5)

    # the rest in one run: the batch killed mid-way is run again first, over the same range
    again = subprocess.run([*command[:-2], "--available-now"], capture_output=True, env=env, timeout=400)
    assert again.returncode == 0, again.stderr.decode()[-3000:]

    once, whole = _stream(spark, tmp_path, "once", mariadb_relay_log)  # the same filter, in one run
    once.run_available_now()
    streamed, expected = _outputs(spark, base), _outputs(spark, whole)
    assert len(streamed) == len(set(streamed)), "an event was written twice"
    assert sorted(streamed) == sorted(expected)
    gtids = _gtids(spark, base)
    assert len(gtids) == len(set(gtids)) and sorted(gtids) == sorted(_gtids(spark, whole)) and len(gtids) >= 60
    assert _counters(base) == _counters(whole) != Counter()
    ended = max(once.batches, key=lambda b: b.batch_id).position
    assert source_position(log_files(str(mariadb_relay_log)), ended["log"], ended["pos"]) == source_end
    assert not (base / "out" / "_dead_letter").exists() or spark.read.parquet(str(base / "out" / "_dead_letter")).count() == 0


def test_a_streamed_update_whose_updating_tables_are_not_known_decides_as_evaluate(spark, tmp_path):
    """A multi-table UPDATE logged without ``Q_TABLE_MAP_FOR_UPDATE``, no source schema: the
    stream decides it by the batch's rules where no table that may be updating meets one, and
    makes it a dead letter with ``evaluate``'s reason where one does (never a NULL ``updating``
    read as true)."""
    from replfilter.evaluation.binlog.decide import decide_files
    from replfilter.evaluation.event_lines import LineEvaluator
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    w = W.BinlogWriter()
    w.add(T.PREVIOUS_GTIDS, W.previous_gtids({}))
    for gno, sql in enumerate(("UPDATE a, b SET c = 1", "UPDATE x, b SET c = 2"), start=1):
        w.add(T.GTID, W.gtid(SID, gno))
        w.add(T.QUERY, W.query(sql, "shop"))
    events = tmp_path / "events"
    events.mkdir()
    (events / "binlog.000001").write_bytes(bytes(w))
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.x)")
    want = [r for r in decide_files(LineEvaluator(session.state), [str(events / "binlog.000001")])
            if r.item is not None and r.item.event is not None and r.event.type_name == "query"]
    assert [r.decision.decision for r in want][0].value == "APPLY" and want[1].decision.decision is None
    # (EVENTS_DIR as a file:// URL: read as its local path, not listed as an empty directory)
    config = StreamConfig(f"file://{events}", str(tmp_path / "out"), str(tmp_path / "ckpt"), input_format="binlog")
    EventStream(spark, session, config).run_available_now()
    applied = [r for r in spark.read.parquet(config.output_dir).collect() if r["type"] == "query"]
    assert [(r["sql"], [(t.table, t.updating_unknown) for t in r["tables"]]) for r in applied] == [
        ("UPDATE a, b SET c = 1", [("a", True), ("b", True)]),
    ]
    dead = spark.read.parquet(str(tmp_path / "out" / "_dead_letter")).collect()
    assert [d["reason"] for d in dead] == [want[1].decision.reason]
    assert dead[0]["source_file"].endswith("binlog.000001")  # the file, as the binlog's own dead letters


def test_stream_rows_name_columns_from_the_source_schema_as_evaluate_does(spark, tmp_path):
    """``stream --rows`` over a binlog without column names (``binlog_row_metadata=MINIMAL``):
    the values are named from the channel's source schema (``--schema``, here LOAD SCHEMA) when
    its column count fits, else ``col_N`` — the names ``evaluate --rows`` gives the same file."""
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    events = tmp_path / "events"
    events.mkdir()
    (events / "binlog.000001").write_bytes(busy_binlog())
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE DATABASE shop; CREATE TABLE shop.t2 (amount INT); CREATE TABLE shop.t4 (a INT, b INT);\n")
    session = Session()
    session.execute_sql(FILTERS)
    session.execute_text(f"LOAD SCHEMA FROM '{schema}'")
    evaluated = {(r.item.source.raw.log_name, r.item.rows_of.table): r.values
                 for r in decide_files(LineEvaluator(session.state), [str(events / "binlog.000001")], decode_rows=True)
                 if r.values is not None}
    assert evaluated[("binlog.000001", "t2")] == [{"after": {"amount": 2}}, {"after": {"amount": -2}}]
    assert evaluated[("binlog.000001", "t4")] == [{"after": {"col_1": 4}}, {"after": {"col_1": -4}}]  # two columns: no fit
    config = StreamConfig(str(events), str(tmp_path / "out"), str(tmp_path / "ckpt"), skipped_dir=str(tmp_path / "skipped"),
                          input_format="binlog", binlog_rows=True)
    EventStream(spark, session, config).run_available_now()
    rows = spark.read.parquet(config.output_dir).collect() + spark.read.parquet(config.skipped_dir).collect()
    streamed = {(json.loads(r["record"])["log_name"], r["table"]): json.loads(r["record"])["values"] for r in rows if r["type"] == "row"}
    assert streamed == evaluated
