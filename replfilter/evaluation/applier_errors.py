"""The error the replica's applier would stop with when an event passes the filters but names a
table the replica does not have: "will it break replication?".

Only with the replica's catalog: without it, "the table is not known" is not "the table is
missing", so nothing is reported. A Table_map for a missing table stops the applier with 1146,
as does a statement that reads or changes one (the table must be opened to run it).
"""

from __future__ import annotations

from ..core.errors import ER, error_line
from ..replica.catalog import Catalog
from .events import CommandKind, Event, QueryEvent, RowEvent
from .rule_checks import APPLY

CK = CommandKind

OPENS_ITS_TABLES = frozenset({
    CK.INSERT, CK.INSERT_SELECT, CK.REPLACE, CK.REPLACE_SELECT, CK.UPDATE, CK.UPDATE_MULTI,
    CK.DELETE, CK.DELETE_MULTI, CK.LOAD, CK.ALTER_TABLE, CK.TRUNCATE, CK.CREATE_INDEX, CK.DROP_INDEX,
})
"""Statements that open every table of their list, so a missing one is error 1146."""


def applier_error(event: Event, verdict: object, db: str | None, catalog: Catalog | None) -> str | None:
    """``ERROR 1146 (42S02): Table 'd.t' doesn't exist`` when ``event`` is applied (``verdict``
    is APPLY) and names a table missing from the replica's ``catalog``; else None. ``db`` is the
    database the decision used (the event's, after lower-casing and rewrite): where unqualified
    names resolve, and a row event's table lives."""
    if catalog is None or verdict is not APPLY or db is None:
        return None
    if isinstance(event, RowEvent):
        if catalog.table(db, event.table) is None:
            return error_line(ER.NO_SUCH_TABLE, db, event.table)
        return None
    if isinstance(event, QueryEvent) and event.command in OPENS_ITS_TABLES:
        for ref in event.tables:
            table_db = ref.db if ref.db is not None else db
            if catalog.table(table_db, ref.table) is None:
                return error_line(ER.NO_SUCH_TABLE, table_db, ref.table)
    return None
