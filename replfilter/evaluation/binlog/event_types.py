"""Binary log event type codes and the names SHOW BINLOG EVENTS gives them.

Codes: libbinlogevents ``binlog_event.h`` (``enum Log_event_type``, MySQL 8.0-8.4) and MariaDB's
``log_event.h`` (codes from 160). Names: MySQL 8.4's ``Log_event::get_type_str`` for MySQL's
types; MariaDB's own names (``Gtid_list``, ``Annotate_rows``...) for the types only MariaDB
writes, as its SHOW BINLOG EVENTS prints them.
"""

from __future__ import annotations

QUERY = 2
STOP = 3
ROTATE = 4
INTVAR = 5
RAND = 13
USER_VAR = 14
FORMAT_DESCRIPTION = 15
XID = 16
BEGIN_LOAD_QUERY = 17
EXECUTE_LOAD_QUERY = 18
TABLE_MAP = 19
WRITE_ROWS_V1 = 23
UPDATE_ROWS_V1 = 24
DELETE_ROWS_V1 = 25
INCIDENT = 26
HEARTBEAT = 27
IGNORABLE = 28
ROWS_QUERY = 29
WRITE_ROWS = 30
UPDATE_ROWS = 31
DELETE_ROWS = 32
GTID = 33
ANONYMOUS_GTID = 34
PREVIOUS_GTIDS = 35
TRANSACTION_CONTEXT = 36
VIEW_CHANGE = 37
XA_PREPARE = 38
PARTIAL_UPDATE_ROWS = 39
TRANSACTION_PAYLOAD = 40
HEARTBEAT_V2 = 41
GTID_TAGGED = 42

MARIA_ANNOTATE_ROWS = 160
MARIA_BINLOG_CHECKPOINT = 161
MARIA_GTID = 162
MARIA_GTID_LIST = 163
MARIA_START_ENCRYPTION = 164
MARIA_QUERY_COMPRESSED = 165
MARIA_WRITE_ROWS_COMPRESSED_V1 = 166
MARIA_UPDATE_ROWS_COMPRESSED_V1 = 167
MARIA_DELETE_ROWS_COMPRESSED_V1 = 168

NAMES: dict[int, str] = {
    1: "Start_v3",
    QUERY: "Query",
    STOP: "Stop",
    ROTATE: "Rotate",
    INTVAR: "Intvar",
    RAND: "RAND",
    USER_VAR: "User var",
    FORMAT_DESCRIPTION: "Format_desc",
    XID: "Xid",
    BEGIN_LOAD_QUERY: "Begin_load_query",
    EXECUTE_LOAD_QUERY: "Execute_load_query",
    TABLE_MAP: "Table_map",
    WRITE_ROWS_V1: "Write_rows_v1",
    UPDATE_ROWS_V1: "Update_rows_v1",
    DELETE_ROWS_V1: "Delete_rows_v1",
    INCIDENT: "Incident",
    HEARTBEAT: "Heartbeat",
    IGNORABLE: "Ignorable",
    ROWS_QUERY: "Rows_query",
    WRITE_ROWS: "Write_rows",
    UPDATE_ROWS: "Update_rows",
    DELETE_ROWS: "Delete_rows",
    GTID: "Gtid",
    ANONYMOUS_GTID: "Anonymous_Gtid",
    PREVIOUS_GTIDS: "Previous_gtids",
    TRANSACTION_CONTEXT: "Transaction_context",
    VIEW_CHANGE: "View_change",
    XA_PREPARE: "XA_prepare",
    PARTIAL_UPDATE_ROWS: "Update_rows_partial",
    TRANSACTION_PAYLOAD: "Transaction_payload",
    # 8.4's get_type_str is get_event_type_as_string (libs/mysql/binlog/event/binlog_event.cpp):
    # its map names type 42 "Gtid_tagged_log_event" and has no Heartbeat_v2 ("Unknown")
    HEARTBEAT_V2: "Unknown",
    GTID_TAGGED: "Gtid_tagged_log_event",
    MARIA_ANNOTATE_ROWS: "Annotate_rows",
    MARIA_BINLOG_CHECKPOINT: "Binlog_checkpoint",
    MARIA_GTID: "Gtid",
    MARIA_GTID_LIST: "Gtid_list",
    MARIA_START_ENCRYPTION: "Start_encryption",
    MARIA_QUERY_COMPRESSED: "Query_compressed",
    MARIA_WRITE_ROWS_COMPRESSED_V1: "Write_rows_compressed_v1",
    MARIA_UPDATE_ROWS_COMPRESSED_V1: "Update_rows_compressed_v1",
    MARIA_DELETE_ROWS_COMPRESSED_V1: "Delete_rows_compressed_v1",
}

WRITE_TYPES = frozenset({WRITE_ROWS_V1, WRITE_ROWS, MARIA_WRITE_ROWS_COMPRESSED_V1})
UPDATE_TYPES = frozenset({UPDATE_ROWS_V1, UPDATE_ROWS, PARTIAL_UPDATE_ROWS, MARIA_UPDATE_ROWS_COMPRESSED_V1})
DELETE_TYPES = frozenset({DELETE_ROWS_V1, DELETE_ROWS, MARIA_DELETE_ROWS_COMPRESSED_V1})
MARIA_COMPRESSED_ROWS_TYPES = frozenset({MARIA_WRITE_ROWS_COMPRESSED_V1, MARIA_UPDATE_ROWS_COMPRESSED_V1, MARIA_DELETE_ROWS_COMPRESSED_V1})
ROWS_TYPES = WRITE_TYPES | UPDATE_TYPES | DELETE_TYPES
ROWS_V2_TYPES = frozenset({WRITE_ROWS, UPDATE_ROWS, DELETE_ROWS, PARTIAL_UPDATE_ROWS})


def type_name(code: int) -> str:
    """The name SHOW BINLOG EVENTS prints for a type code ("Unknown" as in MySQL otherwise)."""
    return NAMES.get(code, "Unknown")
