"""The replfilter statements that are not MySQL: EXPLAIN REPLICATION and REPLAY EVENTS."""

from __future__ import annotations

from pathlib import Path

import pytest

from replfilter.dialect.parser import parse_statement
from replfilter.dialect.printer import to_sql
from replfilter.dialect import ast
from replfilter.core.errors import MySQLError
from replfilter.server.session import Session

MANUAL_EXAMPLE = (
    "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db1), REPLICATE_DO_TABLE = (db2.t3);"
    "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'src' FOR CHANNEL 'a';"
    "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'src2' FOR CHANNEL 'b';"
    "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((db9, db2)) FOR CHANNEL 'b'"
)


@pytest.fixture
def session() -> Session:
    s = Session(clock=lambda: 1_700_000_000_000_000)
    s.execute_sql(MANUAL_EXAMPLE)
    return s


def rows(session: Session, sql: str) -> list[dict]:
    return session.execute_text(sql).as_dicts()  # type: ignore[union-attr]


def test_explain_side_by_side_seed_004_example(session: Session) -> None:
    """replicate-ignore-db=db1 + replicate-do-table=db2.t3, default database db1: STATEMENT skips
    the UPDATE at database level, ROW applies its row event through the table rule."""
    result = rows(session, "EXPLAIN REPLICATION OF 'UPDATE db2.t3 SET x = 1' DEFAULT DATABASE db1")
    assert [(r["Channel"], r["Format"], r["Decision"], r["Filter"], r["Rule"]) for r in result] == [
        ("a", "STATEMENT", "SKIP", "REPLICATE_IGNORE_DB", "db1"),
        ("a", "ROW", "APPLY", "REPLICATE_DO_TABLE", "db2.t3"),
        ("b", "STATEMENT", "SKIP", "REPLICATE_IGNORE_DB", "db1"),
        ("b", "ROW", "APPLY", "REPLICATE_DO_TABLE", "db2.t3"),
    ]


def test_explain_one_channel_one_format_and_rewrite(session: Session) -> None:
    result = rows(session, "EXPLAIN REPLICATION OF 'INSERT INTO db9.t3 VALUES (1)' FORMAT ROW FOR CHANNEL 'B'")
    assert len(result) == 1
    assert result[0]["Channel"] == "b" and result[0]["Rewritten_DB"] == "db2" and result[0]["Decision"] == "APPLY"


def test_explain_moves_no_counter(session: Session) -> None:
    before = session.state
    rows(session, "EXPLAIN REPLICATION OF 'UPDATE db2.t3 SET x = 1'")
    assert session.state == before


def test_explain_unknown_channel_and_unreadable_sql(session: Session) -> None:
    with pytest.raises(MySQLError) as caught:
        session.execute_text("EXPLAIN REPLICATION OF 'UPDATE t SET a=1' FOR CHANNEL 'zz'")
    assert caught.value.code == 3074
    with pytest.raises(MySQLError) as empty:  # the server's answer to an empty query
        session.execute_text("EXPLAIN REPLICATION OF ''")
    assert (empty.value.code, empty.value.sqlstate) == (1065, "42000")
    unknown = rows(session, "EXPLAIN REPLICATION OF 'FROBNICATE db1.t' FORMAT STATEMENT FOR CHANNEL 'a'")
    assert unknown[0]["Decision"] is None and unknown[0]["Event"] == "(nothing logged)"
    assert "ERROR 1064 (42000)" in unknown[0]["Reason"]


def test_replay_moves_counters_and_reports_bad_lines(session: Session, tmp_path: Path) -> None:
    events = tmp_path / "e.jsonl"
    events.write_text(
        '{"v": 1, "type": "row", "channel": "a", "db": "db1", "table": "t"}\n'
        '{"v": 1, "type": "row", "channel": "a", "db": "db2", "table": "t3"}\n'
        "{broken\n"
        '{"v": 1, "type": "row", "channel": "b", "db": "db9", "table": "t3"}\n',
        encoding="utf-8",
    )
    result = session.execute_text(f"REPLAY EVENTS FROM '{events}'")
    assert result.as_dicts() == [  # type: ignore[union-attr]
        {"Channel": "a", "Decision": "APPLY", "Events": 1},
        {"Channel": "a", "Decision": "SKIP", "Events": 1},
        {"Channel": "b", "Decision": "APPLY", "Events": 1},
    ]
    warnings = rows(session, "SHOW WARNINGS")
    assert [(w["Level"], w["Code"]) for w in warnings] == [("Warning", 1525)]
    assert f"{events}: line 3:" in warnings[0]["Message"]
    counters = rows(session, "SELECT CHANNEL_NAME, FILTER_NAME, COUNTER FROM performance_schema.replication_applier_filters WHERE COUNTER <> 0")
    assert counters == [
        {"CHANNEL_NAME": "a", "FILTER_NAME": "REPLICATE_IGNORE_DB", "COUNTER": 1},
        {"CHANNEL_NAME": "a", "FILTER_NAME": "REPLICATE_DO_TABLE", "COUNTER": 1},
        {"CHANNEL_NAME": "b", "FILTER_NAME": "REPLICATE_DO_TABLE", "COUNTER": 1},
        {"CHANNEL_NAME": "b", "FILTER_NAME": "REPLICATE_REWRITE_DB", "COUNTER": 1},
    ]


def test_replay_for_channel_overrides_the_events_channel(session: Session, tmp_path: Path) -> None:
    events = tmp_path / "e.jsonl"
    events.write_text('{"v": 1, "type": "row", "channel": "elsewhere", "db": "db1", "table": "t"}\n', encoding="utf-8")
    assert session.execute_text(f"REPLAY EVENTS FROM '{events}' FOR CHANNEL 'a'").rows == (("a", "SKIP", 1),)  # type: ignore[union-attr]


def test_replay_missing_file_is_error_29_and_changes_nothing(session: Session, tmp_path: Path) -> None:
    before = session.state
    with pytest.raises(MySQLError) as caught:
        session.execute_text(f"REPLAY EVENTS FROM '{tmp_path}/none.jsonl'")
    assert (caught.value.code, caught.value.message) == (29, f"File '{tmp_path}/none.jsonl' not found (OS errno 2 - No such file or directory)")
    assert session.state == before


@pytest.mark.parametrize("text, node", [
    ("explain replication of 'x' default database 'd' format = statement for channel 'C'",
     ast.ExplainReplication("x", "d", ("STATEMENT",), "c")),
    ("EXPLAIN REPLICATION OF \"x\" FORMAT BOTH FORMAT ROW", ast.ExplainReplication("x", None, ("ROW",), None)),
    ("REPLAY EVENTS FROM 'f.jsonl'", ast.ReplayEvents("f.jsonl")),
])
def test_extension_syntax_round_trips(text: str, node: object) -> None:
    assert parse_statement(text) == node
    assert parse_statement(to_sql(node)) == node


def test_extension_keywords_are_not_reserved_names() -> None:
    statement = parse_statement("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (replay, events, format, statement)")
    assert statement.filters[0].rules == ("replay", "events", "format", "statement")  # type: ignore[union-attr]


# ---- FORMAT MIXED: unsafe statements are logged as rows (evaluation/sql/mixed_format.py) ----------------


@pytest.mark.parametrize("sql, as_rows", [
    ("UPDATE t SET a = UUID()", True),
    ("INSERT INTO t VALUES (CURRENT_USER)", True),
    ("UPDATE t SET a = @@server_id", True),
    ("DELETE FROM t LIMIT 10", True),
    ("DELETE FROM t ORDER BY id LIMIT 10", False),
    ("INSERT IGNORE INTO t SELECT * FROM u", True),
    ("INSERT INTO t SELECT * FROM u ON DUPLICATE KEY UPDATE a = 1", True),
    ("REPLACE INTO t SELECT * FROM u", True),
    ("UPDATE t SET a = RAND(), b = NOW()", False),
    ("INSERT INTO t VALUES ('UUID()', \"@@x\")", False),
    ("UPDATE t SET a = 1", False),
])
def test_mixed_logs_unsafe_statements_as_rows(sql: str, as_rows: bool) -> None:
    from replfilter.evaluation.sql.logged_events import BinlogFormat, script_events

    (derived,) = script_events(sql, "db1", BinlogFormat.MIXED)
    kinds = {type(event).__name__ for event in derived.events}
    assert kinds == ({"RowEvent"} if as_rows else {"QueryEvent"}), (sql, derived.note)
    assert derived.note is not None and "MIXED" in derived.note


def test_explain_replication_format_mixed() -> None:
    from replfilter.server.session import Session

    session = Session()
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (db1.t)")
    rows = session.execute_text("EXPLAIN REPLICATION OF 'UPDATE t SET a = UUID()' DEFAULT DATABASE db1 FORMAT = MIXED").rows
    assert [(r[1], r[2], r[3]) for r in rows] == [("MIXED", "rows db1.t", "SKIP")]


def test_replay_reads_lines_as_evaluate_does(session: Session, tmp_path: Path) -> None:
    """A byte that is not UTF-8 is that line's warning, and a bare carriage return does not end a
    line: the replay decides the rest, with the line numbers ``wc -l`` and ``replfilter evaluate``
    give."""
    events = tmp_path / "e.jsonl"
    events.write_bytes(
        b'{"v": 1, "type": "row", "channel": "a", "db": "db1", "table": "t"}\n'
        b'\xff\n'
        b'{"v": 1, "type": "row", "channel": "a", "db": "db2",\r "table": "t3"}\r\n'
    )
    result = session.execute_text(f"REPLAY EVENTS FROM '{events}'")
    assert result.as_dicts() == [  # type: ignore[union-attr]
        {"Channel": "a", "Decision": "APPLY", "Events": 1},
        {"Channel": "a", "Decision": "SKIP", "Events": 1},
    ]
    warnings = rows(session, "SHOW WARNINGS")
    assert len(warnings) == 1
    assert f"{events}: line 2: not UTF-8 text: byte 0xFF at byte 1 of the line" in warnings[0]["Message"]


@pytest.mark.parametrize("sql", ["UPDATE t1, t2 SET b = 0", "UPDATE t1 LEFT JOIN (t2, t3) ON t1.a = t2.a SET b = 0"])
def test_a_statement_the_source_refuses_with_1046_logs_no_rows_either(session: Session, sql: str) -> None:
    """No default database and unqualified tables: the source refuses the statement (1046) and
    logs nothing, whatever the format; an unqualified SET column whose table is not known does
    not make a row event of it (it was 'rows .t1 or .t2 (not known)' with a verdict)."""
    result = rows(session, f"EXPLAIN REPLICATION OF '{sql}' FOR CHANNEL 'a'")
    assert [(r["Format"], r["Event"], r["Decision"]) for r in result] == [
        ("STATEMENT", "(nothing logged)", None), ("ROW", "(nothing logged)", None),
    ]
    assert all("error 1046" in r["Reason"] for r in result)
