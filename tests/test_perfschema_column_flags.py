"""The column definitions a SELECT on the filter tables sends, flag by flag, as MySQL 8.4 sends
them: ``Item_field::make_field`` sends the TABLE_SHARE field's flags (``Field::make_send_field``).
The tables' DDL (``storage/perfschema/table_replication_applier_filters.cc`` and
``..._global_filters.cc``) runs as a CREATE TABLE, so ``Create_field::init`` marks each NOT NULL
column with no DEFAULT with NO_DEFAULT_VALUE_FLAG (CHANNEL_NAME, FILTER_NAME, FILTER_RULE,
CONFIGURED_BY), not ACTIVE_SINCE and COUNTER (``default 0``); COUNTER is a ``Field_num``, which
sets UNSIGNED_FLAG and no BINARY_FLAG, ACTIVE_SINCE a ``Field_temporal``, which sets BINARY_FLAG.
A computed number keeps BINARY_FLAG (``Item::init_make_field``: binary collation)."""

from __future__ import annotations

import pytest
from mysql_mimic.types import ColumnDefinition as F

from replfilter.server.session import Session
from replfilter.wire.columns import result_columns

CHANNEL = "performance_schema.replication_applier_filters"
GLOBAL = "performance_schema.replication_applier_global_filters"
NO_DEFAULT = F.NOT_NULL_FLAG | F.NO_DEFAULT_VALUE_FLAG
EXPECTED = {
    "CHANNEL_NAME": NO_DEFAULT, "FILTER_NAME": NO_DEFAULT, "FILTER_RULE": NO_DEFAULT | F.BLOB_FLAG,
    "CONFIGURED_BY": NO_DEFAULT | F.ENUM_FLAG, "ACTIVE_SINCE": F.NOT_NULL_FLAG | F.BINARY_FLAG,
    "COUNTER": F.NOT_NULL_FLAG | F.UNSIGNED_FLAG,
}


def _session(rows: bool) -> Session:
    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'a'")
    if rows:
        session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d1)")
    return session


def _flags(session: Session, sql: str) -> dict[str, int]:
    return {c.column.name: int(c.flags) for c in result_columns(session.execute_text(sql))}


@pytest.mark.parametrize("rows", [True, False])
@pytest.mark.parametrize("table, columns", [(CHANNEL, tuple(EXPECTED)), (GLOBAL, tuple(EXPECTED)[1:5])])
@pytest.mark.parametrize("where", ["", " WHERE FILTER_NAME LIKE '%'"])
def test_each_table_column_is_sent_with_its_fields_flags(rows, table, columns, where):
    """Both the grammar's own SELECT and sqlglot's path (``LIKE``), with rows or without."""
    flags = _flags(_session(rows), f"SELECT * FROM {table}{where}")
    assert flags == {name: int(EXPECTED[name]) for name in columns}


def test_an_alias_keeps_the_fields_flags_and_a_computed_number_has_binary():
    flags = _flags(_session(True), f"SELECT COUNTER AS c, FILTER_RULE AS r, COUNTER + 1 FROM {CHANNEL}")
    assert flags == {"c": int(EXPECTED["COUNTER"]), "r": int(EXPECTED["FILTER_RULE"]),
                     "COUNTER + 1": int(F.NOT_NULL_FLAG | F.UNSIGNED_FLAG | F.BINARY_FLAG)}
    assert _flags(_session(True), f"SELECT MAX(COUNTER) FROM {CHANNEL}") == {
        "MAX(COUNTER)": int(F.UNSIGNED_FLAG | F.BINARY_FLAG)}
