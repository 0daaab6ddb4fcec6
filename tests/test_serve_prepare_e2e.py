"""COM_STMT_PREPARE over the wire, as 8.4's ``Prepared_statement::prepare_query`` answers it
(``sql/sql_prepare.cc``), driven by real clients (mysql-connector in pure-Python mode, PyMySQL's
packets): a SELECT's column definitions come with the prepare OK, an unknown column is refused at
prepare time, the diagnostics statements are 1295, the OK carries the prepare's warning count; a
DOUBLE parameter keeps its value (NaN, infinities) and compares as ``compare_real``."""

from __future__ import annotations

import struct
from pathlib import Path

import pymysql
import pytest
from pymysql.constants import FIELD_TYPE

from serve_process import PASSWORD, USER, ServeProcess

pytestmark = pytest.mark.e2e
TABLE = "performance_schema.replication_applier_filters"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    process = ServeProcess(tmp_path_factory.mktemp("serve-prepare"), "--replicate-wild-ignore-table=%.tmp\\_%",
                           "--mysql-version", "8.0")
    yield process
    assert process.stop() == 0


def _connector(server: ServeProcess):  # type: ignore[no-untyped-def]
    mysql_connector = pytest.importorskip("mysql.connector")
    return mysql_connector, mysql_connector.connect(host="127.0.0.1", port=server.port, user=USER,
                                                    password=PASSWORD, use_pure=True)


def test_a_selects_columns_come_with_the_prepare_ok(server: ServeProcess):
    mysql_connector, connection = _connector(server)
    connection.cursor().execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'pa'")
    prepared = connection.cmd_stmt_prepare(
        f"SELECT FILTER_NAME, COUNTER AS n, ? FROM {TABLE} WHERE CHANNEL_NAME = ?".encode())
    assert (prepared["num_columns"], prepared["num_params"], prepared["warning_count"]) == (3, 2, 0)
    assert [column[0] for column in prepared["columns"]] == ["FILTER_NAME", "n", "?"]
    # learned from a run with NULL (no row): COUNTER is still BIGINT UNSIGNED, not text
    assert [column[1] for column in prepared["columns"]][:2] == [FIELD_TYPE.STRING, FIELD_TYPE.LONGLONG]  # CHAR(64)
    variables = connection.cmd_stmt_prepare(b"SELECT @@version, @@autocommit")
    assert [column[0] for column in variables["columns"]] == ["@@version", "@@autocommit"]
    # a statement with no result announces no column
    for text in (b"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d) FOR CHANNEL 'pa'", b"SHOW REPLICA STATUS"):
        change = connection.cmd_stmt_prepare(text)  # SHOW REPLICA STATUS is CF_STATUS_COMMAND only
        assert (change["num_columns"], change["columns"]) == (0, [])
    # the cursor reads the rows with the columns the prepare announced, and executes again
    cursor = connection.cursor(prepared=True)
    query = f"SELECT FILTER_NAME, COUNTER FROM {TABLE} WHERE CHANNEL_NAME = ?"
    for _ in range(2):
        cursor.execute(query, ("pa",))
        assert cursor.fetchall() == [("REPLICATE_WILD_IGNORE_TABLE", 0)]
        assert cursor.column_names == ("FILTER_NAME", "COUNTER")
    # LIMIT takes a parameter (limit_option: param_marker): prepared with its columns, bound at execute
    limited = connection.cmd_stmt_prepare(f"SELECT FILTER_NAME FROM {TABLE} WHERE CHANNEL_NAME = ? LIMIT ?".encode())
    assert (limited["num_params"], [column[0] for column in limited["columns"]]) == (2, ["FILTER_NAME"])
    for count, rows in ((1, [("REPLICATE_WILD_IGNORE_TABLE",)]), (0, [])):
        cursor.execute(f"SELECT FILTER_NAME FROM {TABLE} WHERE CHANNEL_NAME = ? LIMIT ?", ("pa", count))
        assert cursor.fetchall() == rows
    connection.close()


def test_refusals_at_prepare_time(server: ServeProcess):
    mysql_connector, connection = _connector(server)
    cursor = connection.cursor()
    for text, errno, message in (
        (f"SELECT nope FROM {TABLE} WHERE COUNTER > ?", 1054, "Unknown column 'nope' in 'field list'"),
        (f"SELECT FILTER_NAME FROM {TABLE} WHERE n = ?", 1054, "Unknown column 'n' in 'where clause'"),
        ("SHOW WARNINGS", 1295, "This command is not supported in the prepared statement protocol yet"),
        ("SHOW COUNT(*) WARNINGS", 1295, "This command is not supported in the prepared statement protocol yet"),
        ("SELECT @@warning_count", 1295, "This command is not supported in the prepared statement protocol yet"),
        ("SELECT @@version, @@session.error_count", 1295,
         "This command is not supported in the prepared statement protocol yet"),
    ):
        with pytest.raises(mysql_connector.Error) as caught:
            connection.cmd_stmt_prepare(text.encode())
        assert (caught.value.errno, caught.value.msg) == (errno, message), text
        cursor.execute("SHOW WARNINGS")  # the refusal is the diagnostics' error, as in mysqld
        assert cursor.fetchall() == [("Error", errno, message)]
    connection.close()


def test_the_prepare_ok_carries_the_parse_time_warnings(server: ServeProcess):
    """With --mysql-version=8.0 a legacy spelling is 1287 while parsing: the prepare raises it."""
    connection = pymysql.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD)
    connection._execute_command(0x16, "CHANGE MASTER TO MASTER_HOST='x' FOR CHANNEL 'pw'")  # COM_STMT_PREPARE
    ok = connection._read_packet().get_all_data()
    assert struct.unpack("<HHBH", ok[5:12]) == (0, 0, 0, 2)
    cursor = connection.cursor()
    cursor.execute("SHOW WARNINGS")
    assert [row[1] for row in cursor.fetchall()] == [1287, 1287]
    connection.close()


def test_a_double_parameter_keeps_nan_and_infinities(server: ServeProcess):
    """mysql-connector binds a float as a DOUBLE: NaN compares as compare_real (greater on either
    side), an infinity as itself."""
    _, connection = _connector(server)
    connection.cursor().execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'pn'")
    cursor = connection.cursor(prepared=True)
    nan, inf = float("nan"), float("inf")
    for where, value, matched in (("COUNTER > ?", nan, True), ("? > COUNTER", nan, True), ("COUNTER = ?", nan, False),
                                  ("COUNTER <= ?", nan, False), ("COUNTER < ?", inf, True), ("COUNTER > ?", -inf, True),
                                  ("COUNTER = ?", inf, False), ("COUNTER = ?", 0.0, True)):
        cursor.execute(f"SELECT FILTER_NAME FROM {TABLE} WHERE CHANNEL_NAME = 'pn' AND {where}", (value,))
        assert bool(cursor.fetchall()) is matched, (where, value)
    connection.close()


def test_a_result_without_rows_announces_its_columns_types(server: ServeProcess):
    """The column definitions do not depend on whether a row comes (text protocol, PyMySQL)."""
    connection = pymysql.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD)
    cursor = connection.cursor()
    cursor.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'pe'")
    for where in ("CHANNEL_NAME = 'pe'", "CHANNEL_NAME = 'none'", "COUNTER > 5", "COUNTER > '5'"):
        cursor.execute(f"SELECT FILTER_NAME, COUNTER, COUNT(*) AS n FROM {TABLE} WHERE {where} GROUP BY FILTER_NAME, COUNTER")
        assert [d[1] for d in cursor.description] == [FIELD_TYPE.STRING, FIELD_TYPE.LONGLONG,
                                                      FIELD_TYPE.LONGLONG], where
    cursor.execute("SHOW WARNINGS")
    assert cursor.fetchall() == () and [d[1] for d in cursor.description] == [
        FIELD_TYPE.VAR_STRING, FIELD_TYPE.LONGLONG, FIELD_TYPE.VAR_STRING]
    connection.close()


def test_connector_c_sees_the_columns_and_the_refusals_at_prepare(server: ServeProcess):
    """MariaDB Connector/C (libmariadb, a real C client): mysql_stmt_prepare reads the columns'
    count from the prepare OK; an unknown column and SHOW WARNINGS fail the prepare itself."""
    import ctypes

    from test_serve_e2e import _libmariadb

    lib = _libmariadb()
    lib.mysql_stmt_field_count.restype, lib.mysql_stmt_field_count.argtypes = ctypes.c_uint, [ctypes.c_void_p]
    lib.mysql_stmt_param_count.restype, lib.mysql_stmt_param_count.argtypes = ctypes.c_ulong, [ctypes.c_void_p]
    connection = lib.mysql_init(None)
    assert lib.mysql_real_connect(connection, b"127.0.0.1", USER.encode(), PASSWORD.encode(), None, server.port, None, 0)
    for query, fields, params, errno in (
        (f"SELECT FILTER_NAME, COUNTER FROM {TABLE} WHERE CHANNEL_NAME = ?", 2, 1, 0),
        ("SELECT @@version", 1, 0, 0),
        ("STOP REPLICA FOR CHANNEL 'cx'", 0, 0, 0),
        (f"SELECT nope FROM {TABLE} WHERE COUNTER = ?", 0, 0, 1054),
        ("SHOW WARNINGS", 0, 0, 1295),
    ):
        stmt = lib.mysql_stmt_init(connection)
        text = query.encode()
        status = lib.mysql_stmt_prepare(stmt, text, len(text))
        assert (status != 0, lib.mysql_stmt_errno(stmt)) == (errno != 0, errno), query
        if not errno:
            assert (lib.mysql_stmt_field_count(stmt), lib.mysql_stmt_param_count(stmt)) == (fields, params), query
        lib.mysql_stmt_close(stmt)
    lib.mysql_close(connection)


def test_text_read_as_a_double_over_the_wire(server: ServeProcess):
    """CAST('inf' AS DOUBLE) is 0 with 1292, counted in the result's EOF and listed by SHOW
    WARNINGS; a double comes back as the server's text."""
    connection = pymysql.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD)
    cursor = connection.cursor()
    cursor.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'pd'")
    cursor.execute(f"SELECT CAST('inf' AS DOUBLE), CAST('1e20' AS DOUBLE) FROM {TABLE} WHERE CHANNEL_NAME = 'pd'")
    assert cursor.fetchall() == (("0", "1e20"),)
    assert cursor._result.warning_count == 1  # type: ignore[attr-defined]
    assert connection.show_warnings() == (("Warning", 1292, "Truncated incorrect DOUBLE value: 'inf'"),)
    connection.close()


def test_show_catalog_statements_announce_their_columns_at_prepare(tmp_path: Path):
    """SHOW DATABASES / TABLES / TRIGGERS have CF_HAS_RESULT_SET (``sql_parse.cc``), so the
    prepare OK carries their columns; without a schema the prepare fails as the execution would
    (replfilter's 1105: it cannot answer without guessing)."""
    mysql_connector = pytest.importorskip("mysql.connector")
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE DATABASE shop;\nUSE shop;\nCREATE TABLE orders (id INT);\n")
    for args, loaded in (((f"--schema={schema}",), True), ((), False)):
        (tmp_path / f"serve-{loaded}").mkdir()
        process = ServeProcess(tmp_path / f"serve-{loaded}", *args)
        try:
            connection = mysql_connector.connect(host="127.0.0.1", port=process.port, user=USER,
                                                 password=PASSWORD, use_pure=True)
            if not loaded:
                with pytest.raises(mysql_connector.errors.DatabaseError) as caught:
                    connection.cmd_stmt_prepare(b"SHOW DATABASES")
                assert caught.value.errno == 1105
                continue
            for text, names in ((b"SHOW DATABASES", ["Database"]), (b"SHOW FULL TABLES FROM shop", ["Tables_in_shop", "Table_type"]),
                                (b"SHOW TRIGGERS FROM shop LIKE 'o%'", ["Trigger", "Event", "Table"])):
                show = connection.cmd_stmt_prepare(text)
                assert [c[0] for c in show["columns"]][: len(names)] == names, text
            cursor = connection.cursor(prepared=True)
            cursor.execute("SHOW TABLES FROM shop")
            assert cursor.fetchall() == [("orders",)]
        finally:
            assert process.stop() == 0


def test_a_negative_integer_column_is_signed_bigint_in_both_protocols(server: ServeProcess):
    """``-7 % 3`` is a signed BIGINT in MySQL; announced as BIGINT UNSIGNED, the binary protocol
    could not carry it (the connection was lost). The columns are signed as the server types
    them (``%`` takes its dividend's signedness), in the text and the binary protocol, and the
    connection goes on."""
    mysql_connector, connection = _connector(server)
    query = "SELECT -7 % 3 AS r, 7 % 3 AS s FROM performance_schema.replication_applier_global_filters"
    text = connection.cursor()
    text.execute(query)
    assert text.fetchall() == [(-1, 1)]
    flags = {d[0]: d[7] for d in text.description}
    # Item_func_mod::resolve_type: the dividend's signedness, and the literal 7 is signed
    assert not flags["r"] & mysql_connector.constants.FieldFlag.UNSIGNED
    assert not flags["s"] & mysql_connector.constants.FieldFlag.UNSIGNED
    binary = connection.cursor(prepared=True)
    binary.execute(query)
    assert binary.fetchall() == [(-1, 1)]
    binary.execute(query)  # the connection goes on
    assert binary.fetchall() == [(-1, 1)]
