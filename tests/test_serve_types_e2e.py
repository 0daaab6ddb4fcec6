"""DOUBLE and DECIMAL results over the wire (``replfilter serve``), as a MySQL 8.4 server sends
them: the column definition carries MYSQL_TYPE_DOUBLE (5) or MYSQL_TYPE_NEWDECIMAL (246) with the
item's length, decimals and flags (``Item::make_field``, ``Protocol_classic::send_field_metadata``),
so PyMySQL returns ``float`` and ``Decimal``; in the binary protocol (mysql-connector's prepared
cursor) a DOUBLE is its 8 bytes and a DECIMAL its text."""

from __future__ import annotations

import shutil
import subprocess
import sys
from decimal import Decimal

import pytest
from pymysql.constants import FIELD_TYPE, FLAG

from serve_process import PASSWORD, USER, ServeProcess, serving_a_channel

pytestmark = pytest.mark.e2e
TABLE = "performance_schema.replication_applier_filters"
QUERY = f"SELECT 1.5*2, 1/3, 1e1, 1e0/3, COUNTER/4, 1+1, -18446744073709551615 FROM {TABLE}"
ROW = (Decimal("3.0"), Decimal("0.3333"), 10.0, 0.3333333333333333, Decimal("0.0000"), 2, Decimal("-18446744073709551615"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    yield from serving_a_channel(tmp_path_factory.mktemp("serve-types"), "--replicate-do-db=db1")


def test_pymysql_gets_decimal_and_double_columns_as_the_server_sends_them(server: ServeProcess):
    cursor = server.connect().cursor()
    cursor.execute(QUERY)
    row = cursor.fetchone()
    assert row == ROW
    assert [type(v) for v in row] == [Decimal, Decimal, float, float, Decimal, int, Decimal]
    # name, type, length, decimals, nullable: what the server's resolve_type gives each item
    assert [(d[0], d[1], d[3], d[5], d[6]) for d in cursor.description] == [
        ("1.5*2", FIELD_TYPE.NEWDECIMAL, 5, 1, False),
        ("1/3", FIELD_TYPE.NEWDECIMAL, 7, 4, True),
        ("1e1", FIELD_TYPE.DOUBLE, 3, 31, False),
        ("1e0/3", FIELD_TYPE.DOUBLE, 23, 31, True),
        ("COUNTER/4", FIELD_TYPE.NEWDECIMAL, 26, 4, True),
        ("1+1", FIELD_TYPE.LONGLONG, 3, 0, False),
        ("-18446744073709551615", FIELD_TYPE.NEWDECIMAL, 21, 0, False),
    ]
    flags = [field.flags for field in cursor._result.fields]
    assert all(f & FLAG.BINARY for f in flags) and not any(f & FLAG.UNSIGNED for f in flags)
    assert [field.charsetnr for field in cursor._result.fields] == [63] * 7  # binary
    cursor.execute(f"SELECT AVG(COUNTER), SUM(COUNTER), SUM(COUNTER * 1e0) FROM {TABLE}")
    assert cursor.fetchall() == ((Decimal("0.0000"), Decimal("0"), 0.0),)
    assert [(d[1], d[3], d[5]) for d in cursor.description] == [
        (FIELD_TYPE.NEWDECIMAL, 26, 4), (FIELD_TYPE.NEWDECIMAL, 43, 0), (FIELD_TYPE.DOUBLE, 23, 31)]


def test_a_result_without_rows_announces_the_same_types(server: ServeProcess):
    cursor = server.connect().cursor()
    cursor.execute(f"SELECT 1.5*COUNTER, COUNTER/2e0, COUNTER+1 FROM {TABLE} WHERE COUNTER > 5")
    assert cursor.fetchall() == ()
    assert [d[1] for d in cursor.description] == [FIELD_TYPE.NEWDECIMAL, FIELD_TYPE.DOUBLE, FIELD_TYPE.LONGLONG]
    assert cursor._result.fields[2].flags & FLAG.UNSIGNED  # COUNTER + 1: unsigned, either operand is


def test_the_binary_protocol_sends_a_double_as_a_double_and_a_decimal_as_its_text(server: ServeProcess):
    mysql_connector = pytest.importorskip("mysql.connector")
    connection = mysql_connector.connect(host="127.0.0.1", port=server.port, user=USER,
                                         password=PASSWORD, use_pure=True)
    cursor = connection.cursor(prepared=True)
    for _ in range(2):
        cursor.execute(QUERY)
        (row,) = cursor.fetchall()
        assert row == ROW and [type(v) for v in row] == [Decimal, Decimal, float, float, Decimal, int, Decimal]
    connection.close()


@pytest.mark.skipif(shutil.which("mariadb") is None, reason="needs the mariadb client")
def test_the_mariadb_client_prints_the_types_as_replfilter_prints_them(tmp_path):
    """The client aligns by the column's type and sizes a nullable column for NULL: over the wire
    it prints the same table as replfilter's own -t."""
    script = ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 't';\n"
              f"SELECT 1.5*2, 1/3, 1e1, 1e0/3, -1.5*0, 7%2, COUNTER+1, 'abc' FROM {TABLE};\n")
    process = ServeProcess(tmp_path, "--replicate-do-db=db1")
    try:
        over_wire = process.mariadb("-t", stdin=script)
    finally:
        assert process.stop() == 0
    path = tmp_path / "s.sql"
    path.write_text(script)
    local = subprocess.run([sys.executable, "-m", "replfilter", "--replicate-do-db=db1", "-t", str(path)],
                           capture_output=True, text=True, timeout=60)
    assert over_wire.returncode == local.returncode == 0, over_wire.stderr
    assert over_wire.stdout == local.stdout
    assert "|   3.0 | 0.3333 |" in local.stdout


def test_count_is_a_signed_bigint_never_null(server: ServeProcess):
    """Item_sum_count (an Item_sum_int): BIGINT, 21 characters, not UNSIGNED, NOT NULL; with or
    without GROUP BY (the dialect's own SELECT and sqlglot's)."""
    cursor = server.connect().cursor()
    for query in (f"SELECT COUNT(*) FROM {TABLE}", f"SELECT COUNT(*) FROM {TABLE} GROUP BY CHANNEL_NAME"):
        cursor.execute(query)
        cursor.fetchall()
        (field,) = cursor._result.fields
        assert (field.type_code, field.length, field.flags & FLAG.UNSIGNED, field.flags & FLAG.NOT_NULL) == (
            FIELD_TYPE.LONGLONG, 21, 0, FLAG.NOT_NULL), query
