"""The filter tables' own columns over the wire (``replfilter serve``) as MySQL 8.4 defines them
(``storage/perfschema/table_replication_applier_filters.cc``): CHANNEL_NAME and FILTER_NAME
``CHAR(64)`` (MYSQL_TYPE_STRING), FILTER_RULE ``LONGTEXT`` (MYSQL_TYPE_BLOB), CONFIGURED_BY an
``ENUM`` (MYSQL_TYPE_STRING with ENUM_FLAG), ACTIVE_SINCE ``TIMESTAMP(6)`` (MYSQL_TYPE_TIMESTAMP,
26 characters, 6 decimals: PyMySQL returns a ``datetime``), COUNTER ``BIGINT UNSIGNED``, all NOT
NULL; in the binary protocol ACTIVE_SINCE is a TIMESTAMP value."""

from __future__ import annotations

from datetime import datetime

import pytest
from pymysql.constants import FIELD_TYPE, FLAG

from serve_process import PASSWORD, USER, ServeProcess, serving_a_channel

pytestmark = pytest.mark.e2e
TABLE = "performance_schema.replication_applier_filters"
GLOBAL = "performance_schema.replication_applier_global_filters"
NO_DEFAULT_VALUE = 4096
"""NO_DEFAULT_VALUE_FLAG (include/mysql_com.h), which pymysql does not name."""
CHANNEL_FIELDS = [  # name, type, length, decimals, charset, flags
    ("CHANNEL_NAME", FIELD_TYPE.STRING, 256, 0, 255, FLAG.NOT_NULL | NO_DEFAULT_VALUE),
    ("FILTER_NAME", FIELD_TYPE.STRING, 256, 0, 255, FLAG.NOT_NULL | NO_DEFAULT_VALUE),
    ("FILTER_RULE", FIELD_TYPE.BLOB, 2 ** 32 - 1, 0, 255, FLAG.NOT_NULL | FLAG.BLOB | NO_DEFAULT_VALUE),
    ("CONFIGURED_BY", FIELD_TYPE.STRING, 148, 0, 255, FLAG.NOT_NULL | FLAG.ENUM | NO_DEFAULT_VALUE),
    ("ACTIVE_SINCE", FIELD_TYPE.TIMESTAMP, 26, 6, 63, FLAG.NOT_NULL | FLAG.BINARY),  # default 0; Field_temporal
    ("COUNTER", FIELD_TYPE.LONGLONG, 20, 0, 63, FLAG.NOT_NULL | FLAG.UNSIGNED),  # default 0; Field_num: no BINARY
]
"""NO_DEFAULT_VALUE_FLAG on each column declared NOT NULL without a DEFAULT (Create_field::init),
BINARY_FLAG only where Field_temporal sets it."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    yield from serving_a_channel(tmp_path_factory.mktemp("serve-table-types"), "--replicate-do-db=db1")


def _fields(cursor) -> list[tuple]:
    return [(f.name, f.type_code, f.length, f.scale, f.charsetnr, f.flags) for f in cursor._result.fields]


@pytest.mark.parametrize("query", [f"SELECT * FROM {TABLE}", f"SELECT * FROM {TABLE} WHERE COUNTER >= 0",
                                   f"SELECT * FROM {TABLE} WHERE CHANNEL_NAME = 'nothing'"])
def test_the_table_columns_are_sent_as_the_server_defines_them(server: ServeProcess, query: str):
    """The grammar's own SELECT, sqlglot's, and a result without rows: the same definitions."""
    cursor = server.connect().cursor()
    cursor.execute(query)
    rows = cursor.fetchall()
    assert _fields(cursor) == CHANNEL_FIELDS
    for row in rows:
        assert row[:4] == ("t", "REPLICATE_DO_DB", "db1", "STARTUP_OPTIONS")
        assert isinstance(row[4], datetime) and row[4].year >= 2000 and row[5] == 0


def test_an_aliased_column_keeps_its_definition(server: ServeProcess):
    cursor = server.connect().cursor()
    cursor.execute(f"SELECT ACTIVE_SINCE AS a, CONFIGURED_BY FROM {GLOBAL} WHERE FILTER_NAME LIKE '%DO_DB'")
    ((since, configured_by),) = cursor.fetchall()
    assert isinstance(since, datetime) and configured_by == "STARTUP_OPTIONS"
    assert _fields(cursor) == [("a", FIELD_TYPE.TIMESTAMP, 26, 6, 63, FLAG.NOT_NULL | FLAG.BINARY),
                               ("CONFIGURED_BY", FIELD_TYPE.STRING, 100, 0, 255,
                                FLAG.NOT_NULL | FLAG.ENUM | NO_DEFAULT_VALUE)]


def test_the_binary_protocol_sends_active_since_as_a_timestamp(server: ServeProcess):
    mysql_connector = pytest.importorskip("mysql.connector")
    text = server.connect().cursor()
    text.execute(f"SELECT ACTIVE_SINCE FROM {TABLE}")
    ((expected,),) = text.fetchall()
    connection = mysql_connector.connect(host="127.0.0.1", port=server.port, user=USER,
                                         password=PASSWORD, use_pure=True)
    cursor = connection.cursor(prepared=True)
    for query in (f"SELECT CHANNEL_NAME, ACTIVE_SINCE, COUNTER FROM {TABLE}",
                  f"SELECT CHANNEL_NAME, ACTIVE_SINCE, COUNTER FROM {TABLE} WHERE COUNTER >= ?"):
        cursor.execute(query, () if "?" not in query else (0,))
        assert cursor.fetchall() == [("t", expected, 0)]
    connection.close()
