"""Triggers that fire on the replica: a statement event the filters apply fires the triggers of
the tables it changes, and the server opens every table their bodies name first (prelocking), so
a body table the filters kept off the replica stops the applier with 1146. Row events fire no
trigger on a MySQL replica. (mysql-filter-evaluation.md, section 3.2; applier errors as README
"The replica will stop".)"""

from __future__ import annotations

import json

import pytest

from replfilter.evaluation.catalog.trigger_bodies import body_tables
from replfilter.evaluation.event_lines import evaluate_lines
from replfilter.evaluation.events import TableRef
from replfilter.evaluation.explain import explain_sql
from replfilter.server.session import Session

SCHEMA = """CREATE DATABASE d;
USE d;
CREATE TABLE t (a INT);
CREATE TABLE kept (a INT);
CREATE TABLE dropped (a INT);
CREATE TRIGGER t_ins AFTER INSERT ON t FOR EACH ROW INSERT INTO dropped VALUES (NEW.a);
CREATE TRIGGER t_upd AFTER UPDATE ON t FOR EACH ROW INSERT INTO kept VALUES (NEW.a);
DELIMITER ;;
CREATE TRIGGER t_del BEFORE DELETE ON t FOR EACH ROW
BEGIN
  IF OLD.a > 0 THEN
    UPDATE kept SET a = a - 1 WHERE a = OLD.a;
  ELSE
    DELETE FROM dropped WHERE a = OLD.a;
  END IF;
END;;
DELIMITER ;
"""
MISSING = "ERROR 1146 (42S02): Table 'd.dropped' doesn't exist"


@pytest.fixture
def session(tmp_path) -> Session:
    path = tmp_path / "schema.sql"
    path.write_text(SCHEMA)
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.dropped)")
    session.execute_sql(f"LOAD SCHEMA FROM '{path}'")
    return session


def _errors(session: Session, sql: str) -> dict[str, str | None]:
    return {r.binlog_format: r.applier_error for r in explain_sql(session.state, sql, "d")}


@pytest.mark.parametrize("sql, statement_error", [
    ("INSERT INTO t VALUES (1)", MISSING),                    # the trigger writes an ignored table
    ("REPLACE INTO t VALUES (1)", MISSING),                   # REPLACE fires INSERT (and DELETE) triggers
    ("UPDATE t SET a = 2", None),                             # its trigger writes a replicated table
    ("DELETE FROM t WHERE a = 1", MISSING),                   # a compound body: every branch is opened
    ("INSERT INTO kept VALUES (1)", None),                    # a table without triggers
    ("TRUNCATE TABLE t", None),                               # TRUNCATE fires no trigger
])
def test_statement_events_fire_triggers_and_row_events_do_not(session, sql, statement_error) -> None:
    assert _errors(session, sql) == {"STATEMENT": statement_error, "ROW": None}


def test_without_the_filter_nothing_breaks(tmp_path) -> None:
    path = tmp_path / "schema.sql"
    path.write_text(SCHEMA)
    session = Session()
    session.execute_sql(f"LOAD SCHEMA FROM '{path}'")
    assert _errors(session, "INSERT INTO t VALUES (1)") == {"STATEMENT": None, "ROW": None}


def test_evaluate_and_replay_report_the_trigger_error(session, tmp_path) -> None:
    lines = [json.dumps({"v": 1, "type": "query", "default_db": "d", "sql": "INSERT INTO t VALUES (1)"}),
             json.dumps({"v": 1, "type": "row", "db": "d", "table": "t"})]
    results, _ = evaluate_lines(session.state, lines)
    assert [r.applier_error.message if r.applier_error else None for r in results] == [
        "Table 'd.dropped' doesn't exist", None]
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join(lines) + "\n")
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    session.execute_sql(f"REPLAY EVENTS FROM '{events}'")
    status = session.execute_sql("SHOW REPLICA STATUS")[-1]
    columns = dict(zip(status.columns, status.rows[0]))
    assert columns["Last_SQL_Errno"] == 1146 and "Table 'd.dropped' doesn't exist" in columns["Last_SQL_Error"]


def test_a_trigger_dropped_on_the_replica_fires_no_more(session) -> None:
    rows = explain_sql(session.state, "DROP TRIGGER t_ins; INSERT INTO t VALUES (1)", "d", ("STATEMENT",))
    assert [r.applier_error for r in rows] == [None, None]


def test_body_tables_read_every_statement_of_a_compound_body() -> None:
    body = ("BEGIN DECLARE n INT; IF NEW.a > 0 THEN INSERT INTO log.audit (id) SELECT id FROM src WHERE id = NEW.a; "
            "END IF; lbl: LOOP UPDATE cnt SET n = n + 1; LEAVE lbl; END LOOP; SET @x = 1; END")
    assert body_tables(body) == (TableRef("log", "audit", True), TableRef(None, "src", False), TableRef(None, "cnt", True))
    assert body_tables("SET NEW.a = 1") == ()
