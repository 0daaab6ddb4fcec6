"""SHOW DATABASES, SHOW [FULL] TABLES and SHOW TRIGGERS, answered from the replica's catalog.

Column names, order and row order are the server's (``sql_show.cc`` builds these statements as
queries on information_schema): ``Database``; ``Tables_in_<db>`` and, with FULL, ``Table_type``;
with LIKE the first column's name gets `` (<pattern>)`` appended. SHOW TRIGGERS has the columns
``Trigger, Event, Table, Statement, Timing, Created, sql_mode, Definer, character_set_client,
collation_connection, Database Collation``; what a schema file does not say (creation time, the
session's modes and character sets) is NULL rather than invented. Names are shown as the server
stores them (lower-cased under ``lower_case_table_names=1``) and sorted with the name collation.

Without a schema the catalog is unknown, and saying "no databases" would be a guess: the
statement fails with a message that says how to give one.
"""

from __future__ import annotations

from ..core.errors import MySQLError
from ..core.results import ResultSet
from ..core.wildcard import like
from ..dialect import ast
from .catalog import Catalog
from .state import ReplicaState

TRIGGER_COLUMNS = (
    "Trigger", "Event", "Table", "Statement", "Timing", "Created", "sql_mode", "Definer",
    "character_set_client", "collation_connection", "Database Collation",
)

UNKNOWN_SCHEMA = (
    "The replica's schema is not known: load the sources' schemas with --schema [channel:]FILE "
    "or LOAD SCHEMA FROM 'file'"
)


def show_catalog(state: ReplicaState, statement: ast.ShowCatalog) -> ResultSet:
    catalog = state.replica_catalog
    if catalog is None:
        raise MySQLError(1105, "HY000", UNKNOWN_SCHEMA)
    if statement.what == "DATABASES":
        return _databases(catalog, statement.like)
    if statement.database is None:
        raise MySQLError(1046, "3D000", "No database selected")   # the session has no USE
    if not catalog.has_database(statement.database):
        raise MySQLError(1049, "42000", f"Unknown database '{statement.database[:192]}'")
    if statement.what == "TABLES":
        return _tables(catalog, statement.database, statement.like, statement.full)
    return _triggers(catalog, statement.database, statement.like)


def _header(name: str, pattern: str | None) -> str:
    return name if pattern is None else f"{name} ({pattern})"


def _databases(catalog: Catalog, pattern: str | None) -> ResultSet:
    names = [n for n in catalog.databases() if pattern is None or like(n, pattern, catalog.collation)]
    return ResultSet((_header("Database", pattern),), tuple((n,) for n in names))


def _tables(catalog: Catalog, db: str, pattern: str | None, full: bool) -> ResultSet:
    shown = catalog.stored_name(catalog.database(db).name)   # type: ignore[union-attr]
    columns = (_header(f"Tables_in_{shown}", pattern),) + (("Table_type",) if full else ())
    rows = []
    for table in catalog.tables(db):
        name = catalog.stored_name(table.name)
        if pattern is not None and not like(name, pattern, catalog.collation):
            continue
        rows.append((name, "VIEW" if table.is_view else "BASE TABLE") if full else (name,))
    return ResultSet(columns, tuple(rows))


# information_schema.TRIGGERS' EVENT_MANIPULATION and ACTION_TIMING are ENUMs: ORDER BY sorts
# them by their place in the ENUM, not by their text.
_EVENT_ORDER = {"INSERT": 0, "UPDATE": 1, "DELETE": 2}
_TIMING_ORDER = {"BEFORE": 0, "AFTER": 1}


def _triggers(catalog: Catalog, db: str, pattern: str | None) -> ResultSet:
    """Rows in the server's order (``build_show_triggers_query`` in dd/info_schema/show.cc:
    ORDER BY Table, Event, Timing, action_order), the action order being creation order (a
    trigger's FOLLOWS/PRECEDES clause is not modelled). LIKE matches the table name."""
    rows = []
    created = catalog.triggers_as_created(db)
    position = {id(t): n for n, t in enumerate(created)}
    triggers = sorted(created, key=lambda t: (
        catalog.key(t.table), _EVENT_ORDER.get(t.event.upper(), 3), _TIMING_ORDER.get(t.timing.upper(), 2), position[id(t)]))
    for trigger in triggers:
        table = catalog.stored_name(trigger.table)
        if pattern is not None and not like(table, pattern, catalog.collation):
            continue
        rows.append((trigger.name, trigger.event or None, table, trigger.statement or None,
                     trigger.timing or None, None, None, trigger.definer, None, None, None))
    return ResultSet(TRIGGER_COLUMNS, tuple(rows))
