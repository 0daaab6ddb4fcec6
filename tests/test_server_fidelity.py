"""Smaller places where replfilter answers as the 8.4 server does: the applier error's timestamp
(rpl_reporting.cc stamps it as it reports it), the column limit of a table (1117)."""

from __future__ import annotations

import re
import time

from replfilter.server.session import Session

_STAMP = re.compile(r"\d{6} \d{2}:\d{2}:\d{2}\Z")  # YYMMDD HH:MM:SS, the server's local time


def _status(session: Session) -> dict[str, object]:
    result = session.execute_sql("SHOW REPLICA STATUS FOR CHANNEL 'a'")[-1]
    return dict(zip(result.columns, result.rows[0]))


def test_last_sql_error_timestamp_comes_with_last_sql_errno(tmp_path) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE DATABASE test;\n")
    events = tmp_path / "events.jsonl"
    events.write_text('{"v": 1, "type": "row", "db": "test", "table": "t8"}\n')
    session = Session(clock=lambda: int(time.mktime((2026, 3, 4, 5, 6, 7, 0, 0, -1)) * 1_000_000))
    for sql in ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a'", f"LOAD SCHEMA FROM '{schema}'"):
        session.execute_sql(sql)
    assert (_status(session)["Last_SQL_Errno"], _status(session)["Last_SQL_Error_Timestamp"]) == (0, "")
    session.execute_sql(f"REPLAY EVENTS FROM '{events}' FOR CHANNEL 'a'")
    status = _status(session)
    assert status["Last_SQL_Errno"] == 1146 and status["Last_SQL_Error_Timestamp"] == "260304 05:06:07"
    assert _STAMP.match(str(status["Last_SQL_Error_Timestamp"]))
    session.execute_sql("START REPLICA SQL_THREAD FOR CHANNEL 'a'")  # a starting SQL thread clears both
    assert (_status(session)["Last_SQL_Errno"], _status(session)["Last_SQL_Error_Timestamp"]) == (0, "")


def _warnings_of_schema(tmp_path, text: str) -> tuple[list[str], object]:
    path = tmp_path / "schema.sql"
    path.write_text(text)
    session = Session()
    result = session.execute_sql(f"LOAD SCHEMA FROM '{path}'")[-1]
    return [w.message for w in result.warnings], session


def _create(name: str, count: int, options: str = "") -> str:
    return f"CREATE TABLE {name} (" + ", ".join(f"c{i} INT" for i in range(count)) + f"){options};\n"


def test_too_many_columns_is_1117(tmp_path) -> None:
    """sql_table.cc refuses over 4,096 columns (MAX_FIELDS) for any engine; InnoDB, 8.4's
    default, over 1,017 (its REC_MAX_N_USER_FIELDS), with the same 1117."""
    text = ("CREATE DATABASE d;\nUSE d;\n" + _create("ok", 1017) + _create("innodb", 1018)
            + _create("myisam", 4096, " ENGINE=MyISAM") + _create("wide", 4097, " ENGINE=MyISAM")
            + "ALTER TABLE ok ADD COLUMN extra INT;\n")
    warnings, session = _warnings_of_schema(tmp_path, text)
    assert [w.split(": ", 1)[1] for w in warnings] == ["ERROR 1117 (HY000): Too many columns"] * 3
    tables = session.execute_sql("SHOW TABLES FROM d")[-1]
    assert sorted(r[0] for r in tables.rows) == ["myisam", "ok"]


def test_format_json_redacts_passwords_as_the_server_logs_do() -> None:
    """sql_rewrite.cc writes ``SOURCE_PASSWORD = <secret>`` to the general log; the echoed
    statement of ``--format json`` does the same, whatever the quoting."""
    import io
    import json

    from replfilter.cli import main as cli

    out = io.StringIO()
    sql = ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', source_password = 'se''cr\\'et';\n"
           "START REPLICA USER='u' PASSWORD=\"p\";\nCHANGE REPLICATION SOURCE TO SOURCE_PASSWORD='x', SOURCE_BOGUS=1")
    cli.main(["--format", "json", "-f", "-e", sql], stdin=io.StringIO(""), stdout=out, stderr=io.StringIO())
    statements = [json.loads(line)["statement"] for line in out.getvalue().splitlines()]
    assert statements == [
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', source_password = <secret>",
        "START REPLICA USER='u' PASSWORD=<secret>",
        "CHANGE REPLICATION SOURCE TO SOURCE_PASSWORD=<secret>, SOURCE_BOGUS=1",  # an error echoes it too
    ]
    assert "cr\\'et" not in out.getvalue() and '"p"' not in out.getvalue()
