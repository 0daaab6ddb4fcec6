"""SHOW BINLOG EVENTS / SHOW RELAYLOG EVENTS over a file, REPLAY BINLOG, and ``replfilter
evaluate`` on binlog files (the same verdicts as the same events given as JSON lines)."""

from __future__ import annotations

import io
import json

import pytest

from replfilter.cli import evaluate
from replfilter.core.errors import MySQLError
from replfilter.evaluation.binlog.as_events import EventMapper
from replfilter.evaluation.binlog.reader import BinlogEvent, read_binlog
from replfilter.evaluation.event_json import to_json
from replfilter.server.session import Session
from test_binlog_reader import mysql84_file


@pytest.fixture
def binlog(tmp_path):
    path = tmp_path / "binlog.000001"
    path.write_bytes(mysql84_file())
    return str(path)


def test_show_binlog_events_from_and_limit(binlog):
    session = Session()
    every = session.execute_text(f"SHOW BINLOG EVENTS IN '{binlog}'").rows
    assert session.execute_text(f"SHOW BINLOG EVENTS IN '{binlog}' LIMIT 2, 3").rows == every[2:5]
    assert session.execute_text(f"SHOW BINLOG EVENTS IN '{binlog}' FROM {every[4][1]} LIMIT 1").rows == every[4:5]
    relay = session.execute_text(f"SHOW RELAYLOG EVENTS IN '{binlog}' LIMIT 1 FOR CHANNEL ''")
    assert relay.columns == ("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info")
    assert relay.rows == every[:1]


@pytest.mark.parametrize("statement, message", [
    ("SHOW BINLOG EVENTS IN '{missing}'", "Error when executing command SHOW BINLOG EVENTS: Could not find target log"),
    ("SHOW BINLOG EVENTS IN '{text}'", "Error when executing command SHOW BINLOG EVENTS: Binlog has bad magic number;  It's not a binary log file that can be used by this version of MySQL"),
    ("SHOW BINLOG EVENTS IN '{binlog}' FROM 5", "Error when executing command SHOW BINLOG EVENTS: Wrong offset or I/O error"),
])
def test_show_binlog_events_errors(binlog, tmp_path, statement, message):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    with pytest.raises(MySQLError) as err:
        Session().execute_text(statement.format(binlog=binlog, missing=tmp_path / "nope", text=text))
    assert (err.value.code, str(err.value.message)) == (1220, message)


def test_show_binlog_events_on_a_truncated_file_warns_with_the_position(binlog, tmp_path):
    data = open(binlog, "rb").read()
    cut = tmp_path / "binlog.000009"
    cut.write_bytes(data[:-10])
    session = Session()
    result = session.execute_text(f"SHOW BINLOG EVENTS IN '{cut}'")
    last = result.rows[-1]
    assert [w.code for w in result.warnings] == [1220]
    assert f"at {last[4]}: truncated Rotate event" in result.warnings[0].message


def test_a_checksum_failure_is_an_error_naming_file_and_position(binlog, tmp_path):
    rows = Session().execute_text(f"SHOW BINLOG EVENTS IN '{binlog}'").rows
    data = bytearray(open(binlog, "rb").read())
    data[rows[3][1] + 25] ^= 1
    bad = tmp_path / "binlog.000002"
    bad.write_bytes(bytes(data))
    with pytest.raises(MySQLError) as err:
        Session().execute_text(f"SHOW BINLOG EVENTS IN '{bad}'")
    assert err.value.code == 1220 and f"binlog.000002: at {rows[3][1]}: checksum mismatch" in str(err.value.message)


def test_replay_binlog_moves_the_counters(binlog):
    session = Session()
    session.execute_sql(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'a';"
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (audit) FOR CHANNEL 'a'"
    )
    result = session.execute_text(f"REPLAY BINLOG '{binlog}' FOR CHANNEL 'a'")
    counts = {decision: n for _channel, decision, n in result.rows}
    # the payload's Table_map for audit.log; CREATE TABLE audit.log is decided by its default
    # database, shop (mysql-filter-evaluation.md: database rules on a statement use the default db)
    assert counts["SKIP"] == 1
    filters = session.execute_text("SELECT CHANNEL_NAME, FILTER_NAME, COUNTER FROM performance_schema.replication_applier_filters").rows
    assert ("a", "REPLICATE_IGNORE_DB", 1) in filters


def test_evaluate_on_a_binlog_gives_the_verdicts_of_the_same_events_as_json_lines(binlog, tmp_path):
    mapper = EventMapper()
    events = [m.event for m in (mapper.map(i) for i in read_binlog(binlog) if isinstance(i, BinlogEvent)) if m.event is not None]
    lines = tmp_path / "events.jsonl"
    lines.write_text("".join(to_json(e) + "\n" for e in events))
    options = ["--replicate-ignore-db=audit", "--replicate-wild-do-table=shop.%"]

    def run(*argv: str) -> list[dict]:
        out, err = io.StringIO(), io.StringIO()
        assert evaluate.main([*argv, *options], out, err) == 0, err.getvalue()
        return [json.loads(line) for line in out.getvalue().splitlines()]

    from_binlog = [r for r in run(binlog) if "event" in r]
    from_lines = run(str(lines))
    keys = ("decision", "filter", "rule", "reason", "db", "counters")
    assert [[r[k] for k in keys] for r in from_binlog if r["event_type"] not in _ROWS] == [[r[k] for k in keys] for r in from_lines]
    assert {"log_name", "pos", "end_log_pos", "event_type", "gtid", "transaction"} <= set(from_binlog[0])


_ROWS = {"Write_rows", "Update_rows", "Update_rows_partial", "Delete_rows"}


def test_evaluate_rows_summary_and_problems(binlog, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    out, err = io.StringIO(), io.StringIO()
    status = evaluate.main([binlog, str(text), "--rows", "--summary", "--replicate-ignore-db=audit"], out, err)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert status == 1
    assert lines[-1]["problem"] == "not_binlog" and "notes.txt: not a binary log" in lines[-1]["error"]
    write = next(r for r in lines if r.get("event_type") == "Write_rows")
    assert write["values"] == [{"after": {"id": 1, "total": "10.50", "note": "first", "doc": {"a": [1, "x"]}}}]
    assert "db 'audit' table 'log' rule 'audit': SKIP events 1 rows 2" in err.getvalue()


def test_evaluate_selections(binlog):
    def gtids(*argv: str) -> set:
        out = io.StringIO()
        evaluate.main([binlog, *argv], out, io.StringIO())
        return {json.loads(line)["gtid"] for line in out.getvalue().splitlines()}

    sid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    assert gtids(f"--include-gtids={sid}:7") == {f"{sid}:7"}
    assert f"{sid}:7" not in gtids(f"--exclude-gtids={sid}:7-9")
    rows = Session().execute_text(f"SHOW BINLOG EVENTS IN '{binlog}'").rows
    anonymous = next(r for r in rows if r[2] == "Anonymous_Gtid")
    assert gtids(f"--start-position={anonymous[1]}") == {None, f"{sid}:7"}
    assert gtids(f"--stop-position={anonymous[1]}") == {f"{sid}:6"}


def test_explain_replication_of_binlog_at_a_position_explains_its_transaction(binlog):
    session = Session()
    session.execute_sql(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'a';"
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (audit) FOR CHANNEL 'a'"
    )
    shown = session.execute_text(f"SHOW BINLOG EVENTS IN '{binlog}'").rows
    payload = next(r for r in shown if r[2] == "Transaction_payload")
    result = session.execute_text(f"EXPLAIN REPLICATION OF BINLOG '{binlog}' AT {payload[1]}")
    rows = result.as_dicts()
    assert [(r["Format"], r["Decision"]) for r in rows] == [
        (None, "APPLY"), (None, "APPLY"), ("ROW", "SKIP"), ("ROW", "SKIP"), (None, "APPLY"),
    ]  # Gtid, BEGIN, Table_map audit.log, its Write_rows (2 rows), Xid
    assert rows[3]["Event"] == f"rows audit.log (Write_rows, 2 rows, at {payload[1]} <-)"
    before = session.state
    assert session.execute_text("SELECT COUNTER FROM performance_schema.replication_applier_filters").rows == ((0,),)
    assert session.state == before
    with pytest.raises(MySQLError) as err:
        session.execute_text(f"EXPLAIN REPLICATION OF BINLOG '{binlog}' AT 5")
    assert err.value.code == 1210 and "no event starts at 5" in str(err.value.message)


def test_evaluate_rows_take_column_names_from_the_schema_without_row_metadata(binlog, tmp_path):
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE DATABASE audit; CREATE TABLE audit.log (entry_id INT);\n")
    out, err = io.StringIO(), io.StringIO()
    evaluate.main([binlog, "--rows", f"--schema={schema}"], out, err)
    values = [json.loads(line).get("values") for line in out.getvalue().splitlines()]
    assert [{"after": {"entry_id": 5}}, {"after": {"entry_id": 6}}] in values, err.getvalue()
    out = io.StringIO()
    evaluate.main([binlog, "--rows"], out, io.StringIO())
    assert [{"after": {"col_1": 5}}, {"after": {"col_1": 6}}] in [json.loads(line).get("values") for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("text, code", [
    ("SHOW BINLOG EVENTS IN 'x' FOR CHANNEL 'c'", 1064),  # 8.4: only SHOW RELAYLOG EVENTS takes a channel
    ("SHOW RELAYLOG EVENTS LIMIT 1, 2, 3", 1064),
    ("SHOW BINARY LOGS", 1235),  # MySQL, not simulated
])
def test_show_log_events_syntax(text, code):
    with pytest.raises(MySQLError) as err:
        Session().execute_text(text)
    assert err.value.code == code
