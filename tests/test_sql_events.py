"""SQL text -> events: the tokenizer and script splitter (sql.tokens), the per-statement readers
(sql.readers, sql.dml) and the derivation per binlog format (sql.logged_events)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent, TableRef
from replfilter.evaluation.sql.logged_events import (
    BinlogFormat,
    SqlEventsError,
    analyse_event_sql,
    analyse_statement,
    events_for,
    script_events,
    statement_events,
)
from replfilter.evaluation.sql.tokens import split_sql_script, tokenize

CK = CommandKind

# --- tokenizer and splitting ----------------------------------------------------------------


def test_tokenizer_quotes_and_comments() -> None:
    toks, _ = tokenize("SELECT 'a;b' , `x``y`.t -- c;\n # d;\n /* e; */ \"f\\\"g\" @v @@g")
    assert [(t.kind, t.text) for t in toks] == [
        ("word", "SELECT"), ("string", "a;b"), ("op", ","), ("ident", "x`y"), ("op", "."), ("word", "t"),
        ("string", 'f\\"g'), ("var", "@v"), ("var", "@@g"),
    ]


def test_tokenizer_executable_comments_are_code() -> None:
    toks, markers = tokenize("/*!50001 CREATE */ VIEW v")
    assert [t.text for t in toks] == ["CREATE", "VIEW", "v"]
    assert len(markers) == 2


@pytest.mark.parametrize("text", ["SELECT 'x", "SELECT `x", "SELECT /* x", 'SELECT "x'])
def test_tokenizer_unterminated(text: str) -> None:
    with pytest.raises(SqlEventsError, match="unterminated"):
        tokenize(text)


def test_split_sql_script() -> None:
    script = (
        "USE d; INSERT INTO t VALUES (';'); "
        "CREATE PROCEDURE p() BEGIN DECLARE x INT; IF x THEN SELECT 1; END IF; "
        "CASE x WHEN 1 THEN SELECT 2; END CASE; END; "
        "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END; "
        "BEGIN; COMMIT;"
    )
    parts = split_sql_script(script)
    assert parts[0] == "USE d"
    assert parts[1] == "INSERT INTO t VALUES (';')"
    assert parts[2].startswith("CREATE PROCEDURE") and parts[2].endswith("END CASE; END")
    assert parts[3].startswith("CREATE TRIGGER") and parts[3].endswith("END")
    assert parts[4:] == ["BEGIN", "COMMIT"]


# --- statement analysis ----------------------------------------------------------------------


def _tables(sql: str, default_db: str = "d") -> list[str]:
    """Table list as 'db.table*' strings (* = updating, db '?' = unqualified)."""
    return [f"{t.db or '?'}.{t.table}{'*' if t.updating else ''}" for t in analyse_statement(sql, default_db).tables]


@pytest.mark.parametrize(
    "sql, command, tables",
    [
        ("INSERT INTO t VALUES (1)", CK.INSERT, ["?.t*"]),
        ("INSERT IGNORE INTO d.t SET a = 1", CK.INSERT, ["d.t*"]),
        ("INSERT LOW_PRIORITY INTO t VALUES (1)", CK.INSERT, ["?.t*"]),
        ("INSERT INTO t VALUES ((SELECT 1 FROM s))", CK.INSERT, ["?.t*", "?.s"]),
        ("INSERT INTO d.t SELECT * FROM e.s", CK.INSERT_SELECT, ["d.t*", "e.s"]),
        ("INSERT INTO t (a) SELECT a FROM s UNION SELECT a FROM u", CK.INSERT_SELECT, ["?.t*", "?.s", "?.u"]),
        ("INSERT INTO t WITH c AS (SELECT 1) SELECT * FROM c", CK.INSERT_SELECT, ["?.t*"]),
        ("REPLACE INTO t VALUES (1)", CK.REPLACE, ["?.t*"]),
        ("REPLACE DELAYED INTO d.t SELECT * FROM e.s", CK.REPLACE_SELECT, ["d.t*", "e.s"]),
        ("INSERT INTO db2.`x.t1` VALUES (3, 3)", CK.INSERT, ["db2.x.t1*"]),
        ("UPDATE d.t SET a = 1", CK.UPDATE, ["d.t*"]),
        ("UPDATE LOW_PRIORITY IGNORE t SET a = (SELECT MAX(a) FROM u)", CK.UPDATE, ["?.t*", "?.u"]),
        ("UPDATE db1.t1 a JOIN db2.t2 b ON a.a = b.a SET a.b = 5, b.b = 6", CK.UPDATE_MULTI, ["db1.t1*", "db2.t2*"]),
        ("UPDATE DB1.t1 a JOIN db2.t1 b ON a.a = b.a SET a.b = 7", CK.UPDATE_MULTI, ["DB1.t1*", "db2.t1"]),
        ("UPDATE b, a SET a.x = 1, b.y = 1", CK.UPDATE_MULTI, ["?.b*", "?.a*"]),
        ("UPDATE t1 JOIN t2 ON t1.a = t2.a SET t1.c = t2.c", CK.UPDATE_MULTI, ["?.t1*", "?.t2"]),
        ("UPDATE t1 JOIN t2 ON t1.a = t2.a SET d.t2.c = 1", CK.UPDATE_MULTI, ["?.t1", "?.t2*"]),
        ("UPDATE t1 JOIN (SELECT a FROM u) x ON 1 SET t1.c = 1", CK.UPDATE_MULTI, ["?.t1*", "?.u"]),
        ("WITH c AS (SELECT 1 AS a) UPDATE t SET a = 1", CK.UPDATE, ["?.t*"]),
        ("DELETE FROM t WHERE a = 1", CK.DELETE, ["?.t*"]),
        ("DELETE QUICK IGNORE FROM d.t WHERE a IN (SELECT a FROM e.s)", CK.DELETE, ["d.t*", "e.s"]),
        ("DELETE FROM t ORDER BY a LIMIT 1", CK.DELETE, ["?.t*"]),
        ("DELETE b FROM db1.t1 a JOIN db1.t2 b ON a.a = b.a", CK.DELETE_MULTI, ["db1.t1", "db1.t2*"]),
        ("DELETE t1 FROM t1 JOIN t2", CK.DELETE_MULTI, ["?.t1*", "?.t2"]),
        ("DELETE t1.* FROM t1 JOIN t2", CK.DELETE_MULTI, ["?.t1*", "?.t2"]),
        ("DELETE FROM t1, t2 USING t1 JOIN t2 JOIN t3", CK.DELETE_MULTI, ["?.t1*", "?.t2*", "?.t3"]),
        ("DELETE FROM t1.*, t2.* USING t1 JOIN t2 JOIN t3", CK.DELETE_MULTI, ["?.t1*", "?.t2*", "?.t3"]),
        ("DELETE t1.*, d.t2.* FROM t1 JOIN t2", CK.DELETE_MULTI, ["?.t1*", "?.t2*"]),
        ("DELETE db2.t2 FROM db1.t1 JOIN db2.t2 ON db1.t1.a = db2.t2.a", CK.DELETE_MULTI, ["db1.t1", "db2.t2*"]),
        ("DELETE d.t2 FROM t1 JOIN t2", CK.DELETE_MULTI, ["?.t1", "?.t2*"]),  # t2 resolves to d.t2
        ("LOAD DATA INFILE '/tmp/x' INTO TABLE t", CK.LOAD, ["?.t*"]),
        ("LOAD DATA LOW_PRIORITY LOCAL INFILE 'x' IGNORE INTO TABLE d.t FIELDS TERMINATED BY ','", CK.LOAD, ["d.t*"]),
        ("LOAD XML INFILE 'x' INTO TABLE t", CK.LOAD, ["?.t*"]),
        ("CREATE TABLE t (a INT)", CK.CREATE_TABLE, ["?.t*"]),
        ("CREATE TABLE t2 LIKE t1", CK.CREATE_TABLE, ["?.t2*", "?.t1"]),
        ("CREATE TABLE IF NOT EXISTS d.t2 (LIKE e.t1)", CK.CREATE_TABLE, ["d.t2*", "e.t1"]),
        ("CREATE TABLE t SELECT * FROM s", CK.CREATE_TABLE, ["?.t*", "?.s"]),
        ("CREATE TABLE t (a INT) ENGINE=InnoDB AS SELECT a FROM e.s", CK.CREATE_TABLE, ["?.t*", "e.s"]),
        ("DROP TABLE a, b.c", CK.DROP_TABLE, ["?.a*", "b.c*"]),
        ("DROP TABLES IF EXISTS a RESTRICT", CK.DROP_TABLE, ["?.a*"]),
        ("RENAME TABLE a TO b, c TO e.f", CK.RENAME_TABLE, ["?.a*", "?.b*", "?.c*", "e.f*"]),
        ("RENAME TABLE db2.`x.t1` TO db2.tnew", CK.RENAME_TABLE, ["db2.x.t1*", "db2.tnew*"]),
        ("ALTER TABLE t ADD COLUMN c INT", CK.ALTER_TABLE, ["?.t*"]),
        ("ALTER TABLE d.t RENAME TO e.u", CK.ALTER_TABLE, ["d.t*"]),
        ("ALTER ONLINE IGNORE TABLE t ADD COLUMN c INT", CK.ALTER_TABLE, ["?.t*"]),
        ("ALTER TABLE d.p EXCHANGE PARTITION p0 WITH TABLE e.x", CK.ALTER_TABLE, ["d.p*", "e.x*"]),
        ("ALTER TABLE p EXCHANGE PARTITION p0 WITH TABLE x WITHOUT VALIDATION", CK.ALTER_TABLE, ["?.p*", "?.x*"]),
        ("TRUNCATE TABLE t", CK.TRUNCATE, ["?.t*"]),
        ("TRUNCATE d.t", CK.TRUNCATE, ["d.t*"]),
        ("CREATE INDEX i ON t (a)", CK.CREATE_INDEX, ["?.t*"]),
        ("CREATE UNIQUE INDEX i USING BTREE ON d.t (a)", CK.CREATE_INDEX, ["d.t*"]),
        ("DROP INDEX i ON d.t", CK.DROP_INDEX, ["d.t*"]),
        ("CREATE VIEW v AS SELECT * FROM t", CK.CREATE_VIEW, ["?.v*", "?.t"]),
        ("CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`u`@`h` SQL SECURITY INVOKER VIEW d.v AS SELECT a FROM e.s", CK.CREATE_VIEW, ["d.v*", "e.s"]),
        ("ALTER VIEW v AS SELECT 2 FROM x", CK.CREATE_VIEW, ["?.v*", "?.x"]),
        ("DROP VIEW IF EXISTS v, d.w", CK.DROP_VIEW, ["?.v*", "d.w*"]),
        ("CREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1", CK.CREATE_TRIGGER, ["?.t*"]),
        ("CREATE DEFINER='root'@'localhost' TRIGGER d.trg AFTER UPDATE ON d.t FOR EACH ROW BEGIN UPDATE u SET a = 1; END", CK.CREATE_TRIGGER, ["d.t*"]),
        ("GRANT SELECT ON d.t TO u@h", CK.GRANT, ["d.t*"]),
        ("GRANT SELECT (a, b), INSERT ON TABLE t TO 'u'@'h'", CK.GRANT, ["?.t*"]),
        ("GRANT ALL ON d.* TO u", CK.GRANT, []),
        ("GRANT ALL PRIVILEGES ON *.* TO u", CK.GRANT, []),
        ("GRANT EXECUTE ON PROCEDURE d.p TO u", CK.GRANT, []),
        ("GRANT r1, r2 TO u", CK.GRANT, []),
        ("GRANT PROXY ON 'a'@'b' TO 'c'@'d'", CK.GRANT, []),
        ("REVOKE INSERT ON d.t FROM u", CK.REVOKE, ["d.t*"]),
        ("REVOKE ALL ON *.* FROM u", CK.REVOKE, []),
        ("ANALYZE TABLE t, d.u", CK.ANALYZE, ["?.t*", "d.u*"]),
        ("OPTIMIZE TABLE t", CK.OPTIMIZE, ["?.t*"]),
        ("CREATE PROCEDURE p() BEGIN INSERT INTO t VALUES (1); END", CK.CREATE_PROCEDURE, []),
        ("CREATE FUNCTION f() RETURNS INT DETERMINISTIC RETURN 1", CK.CREATE_FUNCTION, []),
        ("DROP PROCEDURE IF EXISTS p", CK.DROP_PROCEDURE, []),
        ("CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM t", CK.CREATE_EVENT, []),
        ("CREATE USER u IDENTIFIED BY 'x'", CK.CREATE_USER, []),
        ("DROP USER u", CK.DROP_USER, []),
        ("SET PASSWORD FOR u = 'x'", CK.SET_PASSWORD, []),
        ("BEGIN", CK.BEGIN, []),
        ("START TRANSACTION", CK.BEGIN, []),
        ("COMMIT", CK.COMMIT, []),
        ("ROLLBACK", CK.ROLLBACK, []),
        ("SAVEPOINT s", CK.SAVEPOINT, []),
        ("ROLLBACK TO SAVEPOINT s", CK.ROLLBACK_TO_SAVEPOINT, []),
        ("RELEASE SAVEPOINT s", CK.RELEASE_SAVEPOINT, []),
        ("XA START 'x'", CK.XA_START, []),
        ("XA END 'x'", CK.XA_END, []),
        ("XA PREPARE 'x'", CK.XA_PREPARE, []),
        ("XA COMMIT 'x'", CK.XA_COMMIT, []),
        ("XA ROLLBACK 'x'", CK.XA_ROLLBACK, []),
        ("/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */ /*!50001 VIEW `v1` AS select 1 AS `a` from t */", CK.CREATE_VIEW, ["?.v1*", "?.t"]),
    ],
)
def test_statement_tables(sql: str, command: CommandKind, tables: list[str]) -> None:
    analysis = analyse_statement(sql, "d")
    assert analysis.command is command
    assert _tables(sql) == tables
    assert analysis.logged


@pytest.mark.parametrize(
    "sql, command, event_db",
    [
        ("CREATE DATABASE dbx", CK.CREATE_DB, "dbx"),
        ("CREATE SCHEMA IF NOT EXISTS `db x`", CK.CREATE_DB, "db x"),
        ("ALTER DATABASE dbx CHARACTER SET utf8mb4", CK.ALTER_DB, "dbx"),
        ("ALTER SCHEMA DEFAULT COLLATE utf8mb4_bin", CK.ALTER_DB, "d"),  # no name: default db
        ("DROP DATABASE dbx", CK.DROP_DB, "dbx"),
        ("DROP DATABASE IF EXISTS dbx", CK.DROP_DB, "dbx"),
    ],
)
def test_database_statements_carry_the_named_database(sql: str, command: CommandKind, event_db: str) -> None:
    a = analyse_statement(sql, "d")
    assert (a.command, a.event_db, a.tables) == (command, event_db, ())
    (ev,) = statement_events(sql, "other" if command is not CK.ALTER_DB else "d").events
    assert ev.default_db == event_db


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1", "SHOW TABLES", "USE d", "SET @a = 1", "SET NAMES utf8mb4", "LOCK TABLES t WRITE",
        "WITH c AS (SELECT 1) SELECT * FROM c", "(SELECT 1)", "OPTIMIZE NO_WRITE_TO_BINLOG TABLE t",
        "XA RECOVER", "DESCRIBE t", "CALL p()",
    ],
)
def test_statements_that_are_not_logged(sql: str) -> None:
    assert not analyse_statement(sql).logged
    assert statement_events(sql, "d").events == ()


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE t1 JOIN t2 ON t1.a = t2.a SET c = 1",  # unqualified column: bitmap unknown
        "UPDATE (t1 JOIN t2 ON t1.a = t2.a) SET t1.c = 1",  # sqlglot cannot parse
        "DROP TRIGGER trg",
        "DROP TRIGGER IF EXISTS d.trg",
        "CALL p()",
        "FLUSH TABLES t1, t2",
        "BINLOG 'AAAA'",
    ],
)
def test_unknown_tables_are_reported_not_guessed(sql: str) -> None:
    derived = statement_events(sql, "d")
    assert derived.tables_known is False
    assert derived.note


@pytest.mark.parametrize(
    "sql, error",
    [
        ("this is not sql", "ERROR 1064 (42000): You have an error in your SQL syntax; check the manual that "
         "corresponds to your MySQL server version for the right syntax to use near 'this is not sql' at line 1"),
        ("FROBNICATE THE TABLES", "ERROR 1064 (42000)"),
        ("DELETE x FROM t1 JOIN t2", "ERROR 1109 (42S02): Unknown table 'x' in MULTI DELETE"),
    ],
)
def test_statements_the_source_refuses_log_nothing(sql: str, error: str) -> None:
    """What the source refuses never reaches the binary log: no event, and the error named."""
    for fmt in ("STATEMENT", "ROW"):
        derived = statement_events(sql, "d", fmt)
        assert derived.events == () and derived.unknown_rows == ()
        assert derived.analysis.source_error.startswith(error)
        assert error in (derived.note or "")


@pytest.mark.parametrize(
    "sql, logged",
    [("FLUSH LOGS", True), ("FLUSH TABLES", True), ("FLUSH LOCAL TABLES t", False),
     ("FLUSH NO_WRITE_TO_BINLOG TABLES t", False), ("FLUSH TABLES WITH READ LOCK", False),
     ("FLUSH TABLES t FOR EXPORT", False)],
)
def test_flush(sql: str, logged: bool) -> None:
    analysis = analyse_statement(sql, "d")
    assert analysis.logged is logged and analysis.tables_known and analysis.tables == ()


@pytest.mark.parametrize(
    "sql",
    ["", "   ", ";", "INSERT INTO", "DELETE FROM", "RENAME TABLE a", "LOAD DATA INFILE INTO TABLE t", "CREATE DATABASE",
     "INSERT INTO t VALUES ('x", "TRUNCATE TABLE a b c", "GRANT ALL ON *. TO u", "USE"],
)
def test_unparseable_sql_raises_a_clear_value_error(sql: str) -> None:
    with pytest.raises(SqlEventsError) as info:
        statement_events(sql, "d")
    assert isinstance(info.value, ValueError)
    assert str(info.value)


_sql_pieces = st.sampled_from(
    list("abt.`'\"();,*=@ ")
    + ["INSERT ", "UPDATE ", "DELETE ", "FROM ", "SET ", "INTO ", "TABLE ", "CREATE ", "DROP ", "JOIN ",
       "SELECT ", "RENAME ", "GRANT ", "ON ", "TO ", "USING ", "LIKE ", "DATABASE ", "VIEW ", "AS ", "/*!", "*/", "-- "]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_sql_pieces, max_size=14).map("".join))
def test_never_a_traceback(sql: str) -> None:
    """Arbitrary text either derives events or raises SqlEventsError — never anything else."""
    for fmt in ("STATEMENT", "ROW"):
        try:
            script_events(sql, "d", fmt)
        except SqlEventsError:
            pass


def test_sqlglot_and_fallback_agree_on_updating_targets() -> None:
    """Where sqlglot reads a statement, the fallback tokenizer (used when it cannot) finds the
    same updating tables and flags for single-table forms."""
    for sql in [
        "INSERT INTO d.t VALUES (1)", "REPLACE INTO t SELECT * FROM s", "UPDATE t SET a = 1", "DELETE FROM d.t WHERE a = 1",
        "CREATE TABLE t LIKE s", "CREATE TABLE d.t (a INT)", "ALTER TABLE t ADD c INT", "TRUNCATE d.t",
        "DROP TEMPORARY TABLE IF EXISTS a, d.b", "CREATE VIEW v AS SELECT 1", "CREATE TABLE IF NOT EXISTS t (a INT)",
        "CREATE INDEX i ON d.t (a)", "DROP INDEX i ON t",
    ]:
        via_sqlglot = analyse_statement(sql, "d")
        fallback = analyse_statement(sql, "d", use_sqlglot=False)
        assert via_sqlglot.parsed_by == "sqlglot", sql
        assert fallback.parsed_by == "tokens", sql
        assert fallback.command is via_sqlglot.command, sql
        updating = lambda a: [(t.db, t.table) for t in a.tables if t.updating]  # noqa: E731
        assert updating(fallback) == updating(via_sqlglot), sql
        assert (fallback.temporary, fallback.if_exists) == (via_sqlglot.temporary, via_sqlglot.if_exists), sql


# --- events per format ------------------------------------------------------------------------


def test_statement_format_gives_one_query_event() -> None:
    d = statement_events("INSERT INTO db2.t3 VALUES (1);", "db1", "STATEMENT", channel="c")
    assert d.binlog_format is BinlogFormat.STATEMENT
    assert d.events == (
        QueryEvent("c", "db1", CK.INSERT, (TableRef("db2", "t3"),), "INSERT INTO db2.t3 VALUES (1)"),
    )


def test_row_format_dml_gives_one_row_event_per_changed_table() -> None:
    d = statement_events("UPDATE db1.t1 a JOIN t2 b ON a.a = b.a SET a.b = 5, b.b = 6", "db3", "ROW")
    assert d.events == (RowEvent("", "db1", "t1"), RowEvent("", "db3", "t2"))
    d = statement_events("INSERT INTO t SELECT * FROM db2.s", "db3", "ROW")
    assert d.events == (RowEvent("", "db3", "t"),)
    d = statement_events("DELETE a, b FROM t a JOIN t b", "d", "ROW")
    assert d.events == (RowEvent("", "d", "t"),)  # one table, one map


def test_row_format_ddl_stays_a_query_event() -> None:
    (ev,) = statement_events("CREATE TABLE db2.t (a INT)", "db1", "ROW").events
    assert isinstance(ev, QueryEvent) and ev.default_db == "db1" and ev.command is CK.CREATE_TABLE


def test_row_format_create_select_is_query_plus_rows() -> None:
    events = statement_events("CREATE TABLE t SELECT * FROM s", "d", "ROW").events
    assert events == (
        QueryEvent("", "d", CK.CREATE_TABLE, (TableRef(None, "t"),), "CREATE TABLE t SELECT * FROM s"),
        RowEvent("", "d", "t"),
    )


def test_row_format_temporary_tables_are_not_logged() -> None:
    for sql in ("CREATE TEMPORARY TABLE t (a INT)", "DROP TEMPORARY TABLE IF EXISTS t"):
        d = statement_events(sql, "d", "ROW")
        assert d.events == () and "temporary" in (d.note or "")
        assert len(statement_events(sql, "d", "STATEMENT").events) == 1


def test_mixed_is_statement_format_with_a_note() -> None:
    d = statement_events("INSERT INTO t VALUES (1)", "d", "mixed")
    assert isinstance(d.events[0], QueryEvent) and "MIXED" in (d.note or "")


def test_no_database_selected_means_nothing_logged() -> None:
    d = statement_events("INSERT INTO t VALUES (1)", "", "ROW")
    assert d.events == () and "1046" in (d.note or "")
    assert statement_events("INSERT INTO d.t VALUES (1)", "", "ROW").events == (RowEvent("", "d", "t"),)
    assert len(statement_events("CREATE DATABASE x", "", "STATEMENT").events) == 1


def test_one_statement_at_a_time() -> None:
    with pytest.raises(SqlEventsError, match="script_events"):
        statement_events("USE d; INSERT INTO t VALUES (1)")
    assert statement_events("INSERT INTO t VALUES (1);  -- done", "d").command is CK.INSERT


def test_unknown_format_is_a_clear_error() -> None:
    with pytest.raises(SqlEventsError, match="binlog format"):
        statement_events("BEGIN", "", "ROWS")


def test_script_follows_use() -> None:
    derived = script_events("USE db1; CREATE TABLE t2 LIKE t1; USE db2; INSERT INTO t3 VALUES (1);", "", "ROW")
    assert [d.default_db for d in derived] == ["db1", "db1", "db2", "db2"]
    assert derived[1].events[0].default_db == "db1"  # type: ignore[union-attr]
    assert derived[3].events == (RowEvent("", "db2", "t3"),)
    assert events_for("USE db2; INSERT INTO t3 VALUES (1)", "", "STATEMENT")[0].default_db == "db2"  # type: ignore[union-attr]


# --- properties -----------------------------------------------------------------------------

_idents = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=6).filter(
    lambda s: not s.isdigit()
)
_quoted_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


def _backtick(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


@settings(max_examples=200, deadline=None)
@given(_quoted_text, _quoted_text)
def test_tokenizer_reads_quoted_text_back(a: str, b: str) -> None:
    """Whatever a string or backticked name holds (quotes, ``;``, comment openers), the
    tokenizer gives it back as one token, so nothing inside a quote is taken for SQL."""
    toks, markers = tokenize(f"SELECT {_backtick(a)} , {_sql_string(b)}")
    assert markers == []
    assert [(t.kind, t.text) for t in toks][1:] == [
        ("ident", a), ("op", ","), ("string", b.replace("\\", "\\\\")),  # backslash escapes are kept as written
    ]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_idents, _idents, _quoted_text), min_size=1, max_size=5))
def test_split_sql_script_gives_back_each_statement(rows) -> None:
    """Joining statements with ``;`` and splitting the script again gives the statements back,
    whatever ``;`` their strings hold."""
    statements = [f"INSERT INTO {db}.{t} VALUES ({_sql_string(text)})" for db, t, text in rows]
    assert split_sql_script(";\n".join(statements) + ";") == statements
    assert [d.command for d in script_events("; ".join(statements), "d")] == [CK.INSERT] * len(statements)


def _qualified(db: str | None, table: str) -> str:
    return f"{_backtick(db)}.{_backtick(table)}" if db else _backtick(table)


_table_names = st.tuples(st.none() | _idents, _idents)


@settings(max_examples=200, deadline=None)
@given(_table_names, st.lists(_table_names, max_size=3), st.sampled_from(["INSERT", "REPLACE"]), _idents)
def test_insert_select_lists_the_target_updating_and_the_sources_read(target, sources, verb, default_db) -> None:
    """mysql-filter-evaluation.md, section 3.2: INSERT/REPLACE ... SELECT lists the target
    (updating) and every source (not updating), in statement order."""
    if sources:
        select = " UNION ALL ".join(f"SELECT * FROM {_qualified(*s)}" for s in sources)
        sql = f"{verb} INTO {_qualified(*target)} {select}"
    else:
        sql = f"{verb} INTO {_qualified(*target)} VALUES (1)"
    analysis = analyse_statement(sql, default_db)
    assert analysis.tables == (TableRef(*target, True), *(TableRef(*s, False) for s in sources))
    expected_kind = {("INSERT", True): CK.INSERT_SELECT, ("INSERT", False): CK.INSERT,
                     ("REPLACE", True): CK.REPLACE_SELECT, ("REPLACE", False): CK.REPLACE}[(verb, bool(sources))]
    assert analysis.command is expected_kind


@settings(max_examples=200, deadline=None)
@given(st.lists(_table_names, min_size=1, max_size=4, unique=True), st.data(), _idents)
def test_multi_table_update_marks_the_assigned_tables(tables, data, default_db) -> None:
    """With every SET column qualified by its table's alias, exactly the assigned tables are
    updating, and the ROW events are one per assigned table, in list order."""
    aliases = [f"a{i}" for i in range(len(tables))]
    assigned = data.draw(st.lists(st.sampled_from(range(len(tables))), min_size=1, max_size=3))
    joined = " JOIN ".join(f"{_qualified(*t)} AS {alias}" for t, alias in zip(tables, aliases))
    sets = ", ".join(f"{aliases[i]}.c{n} = {n}" for n, i in enumerate(assigned))
    sql = f"UPDATE {joined} SET {sets}"
    analysis = analyse_statement(sql, default_db)
    assert analysis.tables_known
    assert analysis.tables == tuple(TableRef(*t, i in assigned) for i, t in enumerate(tables))
    if len(tables) > 1:
        assert analysis.command is CK.UPDATE_MULTI
    rows = statement_events(sql, default_db, "ROW").events
    wanted = []
    for i, (db, table) in enumerate(tables):
        key = (db if db is not None else default_db, table)
        if i in assigned and key not in wanted:
            wanted.append(key)
    assert rows == tuple(RowEvent("", db, table) for db, table in wanted)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([
        "INSERT INTO t VALUES (1)", "UPDATE d2.t SET a = 1", "DELETE FROM t", "CREATE TABLE t (a INT)",
        "DROP TABLE IF EXISTS t, d2.u", "CREATE DATABASE z", "BEGIN", "SELECT 1", "USE d2",
        "INSERT INTO t SELECT * FROM d2.s", "CREATE TABLE t SELECT 1 AS a", "RENAME TABLE a TO b",
    ]),
    _idents,
    st.sampled_from(["", "c1"]),
)
def test_derivation_by_format(sql: str, default_db: str, channel: str) -> None:
    """STATEMENT gives one query event carrying the analysis (or nothing when the statement is
    not logged); ROW keeps DDL as that same query event and turns DML into row events for
    exactly the updating tables, resolved against the default database."""
    analysis = analyse_statement(sql, default_db)
    stmt = statement_events(sql, default_db, "STATEMENT", channel)
    row = statement_events(sql, default_db, "ROW", channel)
    assert stmt.analysis == analysis and stmt.command is analysis.command
    if not analysis.logged:
        assert stmt.events == () and row.events == ()
        return
    (query,) = stmt.events
    assert isinstance(query, QueryEvent)
    assert (query.channel, query.command, query.tables) == (channel, analysis.command, analysis.tables)
    assert query.default_db == (analysis.event_db if analysis.event_db is not None else default_db)
    if analysis.command.is_dml or analysis.create_select:
        updating = {(t.db or default_db, t.table) for t in analysis.tables if t.updating}
        rows = [e for e in row.events if isinstance(e, RowEvent)]
        assert {(e.db, e.table) for e in rows} == updating and all(e.channel == channel for e in rows)
    else:
        assert row.events == stmt.events


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["INSERT INTO t VALUES (1)", "DROP TABLE a, b", "UPDATE t JOIN u SET t.a = 1"]),
       st.sampled_from(["", " ", "\n", " ;", ";  ", "\t;\n"]), st.sampled_from(["", "  ", "\n"]))
def test_event_sql_reading_ignores_blanks_and_the_terminator(sql: str, tail: str, lead: str) -> None:
    """Every reader of a query event's text (the JSON reader, the Spark runtime) reads it
    through analyse_event_sql, which a trailing ``;`` or blanks do not change."""
    assert analyse_event_sql(lead + sql + tail, "d") == analyse_statement(sql, "d")


_literal = st.one_of(
    st.integers(-10**6, 10**6).map(str), st.text("ab'\\;,()", max_size=6).map(_sql_string),
    st.sampled_from(["NULL", "TRUE", "DEFAULT", "0x1F", "1.5e10", "-2.5", "_utf8mb4'x'"]),
).map(lambda text: (text, None))
_subquery_value = _table_names.map(lambda t: (f"(SELECT MAX(id) FROM {_qualified(*t)})", t))


@settings(max_examples=150, deadline=None)
@given(
    _table_names,
    st.lists(st.lists(_literal | _subquery_value, min_size=1, max_size=3), min_size=2, max_size=6),
    st.none() | _table_names,
    _idents,
)
def test_insert_values_rows_read_as_a_whole(target, rows, duplicate_source, default_db) -> None:
    """An INSERT's literal-only VALUES rows are not handed to sqlglot (a dump's multi-megabyte
    INSERT took seconds), yet the tables are those of the whole statement: a subquery in any row
    or in ON DUPLICATE KEY UPDATE is still read."""
    values = ", ".join("(" + ", ".join(text for text, _ in row) + ")" for row in rows)
    sql = f"INSERT INTO {_qualified(*target)} VALUES {values}"
    sources = [table for row in rows for _, table in row if table is not None]
    if duplicate_source is not None:
        sql += f" ON DUPLICATE KEY UPDATE id = (SELECT MAX(id) FROM {_qualified(*duplicate_source)})"
        sources.append(duplicate_source)
    analysis = analyse_statement(sql, default_db)
    assert analysis.tables == (TableRef(*target, True), *(TableRef(*t, False) for t in sources))
