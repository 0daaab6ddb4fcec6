"""The error the replica's applier would stop with when an event passes the filters but names a
table the replica does not have: "will it break replication?".

Only with the replica's catalog: without it, "the table is not known" is not "the table is
missing", so nothing is reported. A Table_map for a missing table stops the applier with 1146,
as does a statement that reads or changes one (the table must be opened to run it), or one
whose triggers on the replica open one: a statement event fires the triggers of the tables it
changes, and the server opens every table their bodies name before it runs
(:mod:`.catalog.trigger_bodies`); a row event fires none.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from ..core.errors import ER, MySQLError
from ..replica.catalog import TriggerDef
from .events import CommandKind, Event, QueryEvent, RowEvent
from .rule_checks import APPLY

CK = CommandKind

OPENS_ITS_TABLES = frozenset({
    CK.INSERT, CK.INSERT_SELECT, CK.REPLACE, CK.REPLACE_SELECT, CK.UPDATE, CK.UPDATE_MULTI,
    CK.DELETE, CK.DELETE_MULTI, CK.LOAD, CK.ALTER_TABLE, CK.TRUNCATE, CK.CREATE_INDEX, CK.DROP_INDEX,
})
"""Statements that open every table of their list, so a missing one is error 1146."""


class TableLookup(Protocol):
    """What the check needs of a catalog: a :class:`~replfilter.replica.catalog.Catalog`, or the
    replica's catalog as a stream of applied events changes it."""

    def table(self, db: str, name: str) -> object | None: ...

    def triggers_on(self, db: str, table: str) -> Sequence[TriggerDef]: ...


def applier_error(event: Event, verdict: object, db: str | None, catalog: TableLookup | None) -> MySQLError | None:
    """Error 1146 (``Table 'd.t' doesn't exist``) when ``event`` is applied (``verdict`` is
    APPLY) and names a table missing from the replica's ``catalog``; else None. ``db`` is the
    database the decision used (the event's, after lower-casing and rewrite): where unqualified
    names resolve, and a row event's table lives."""
    if catalog is None or verdict is not APPLY or db is None:
        return None
    if isinstance(event, RowEvent):
        if catalog.table(db, event.table) is None:
            return MySQLError.of(ER.NO_SUCH_TABLE, db, event.table)
        return None
    if isinstance(event, QueryEvent) and event.command in OPENS_ITS_TABLES:
        for ref in event.tables:
            table_db = ref.db if ref.db is not None else db
            if catalog.table(table_db, ref.table) is None:
                return MySQLError.of(ER.NO_SUCH_TABLE, table_db, ref.table)
        for table_db, table in trigger_tables(event, db, catalog):
            if catalog.table(table_db, table) is None:
                return MySQLError.of(ER.NO_SUCH_TABLE, table_db, table)
    return None


# --- triggers that fire on the replica --------------------------------------------------------

FIRES = {
    CK.INSERT: ("INSERT",), CK.INSERT_SELECT: ("INSERT",), CK.LOAD: ("INSERT",),
    CK.REPLACE: ("INSERT", "DELETE"), CK.REPLACE_SELECT: ("INSERT", "DELETE"),
    CK.UPDATE: ("UPDATE",), CK.UPDATE_MULTI: ("UPDATE",),
    CK.DELETE: ("DELETE",), CK.DELETE_MULTI: ("DELETE",),
}
"""The trigger events a statement may fire on the tables it changes (REPLACE deletes the rows it
replaces). Choice: the UPDATE triggers of ``INSERT ... ON DUPLICATE KEY UPDATE`` are not
modelled (no error is claimed for them, none is invented)."""


def trigger_tables(event: QueryEvent, db: str, catalog: TableLookup) -> list[tuple[str, str]]:
    """``(db, table)`` of every table the triggers a statement event fires open, in the order the
    server adds them to the statement's table list (prelocking: the changed tables' triggers, in
    creation order, each body's tables in body order). Only statement events fire triggers on a
    replica: a row event is applied to the table alone (8.4 has no option to fire them). A table
    whose updating flag is not known (``None``) fires nothing replfilter could name."""
    from .catalog.trigger_bodies import body_tables  # the body is read when a trigger may fire

    fires = FIRES.get(event.command)
    if not fires:
        return []
    out: list[tuple[str, str]] = []
    for ref in event.tables:
        if ref.updating is not True:
            continue
        table_db = ref.db if ref.db is not None else db
        for trigger in catalog.triggers_on(table_db, ref.table):
            if trigger.event.upper() not in fires:
                continue
            for used in body_tables(trigger.statement):
                out.append((used.db if used.db is not None else trigger.db, used.table))
    return out


# --- foreign keys into tables the replica does not have -----------------------------------------

FILLS_ITS_TABLE = frozenset({CK.INSERT, CK.INSERT_SELECT, CK.REPLACE, CK.REPLACE_SELECT, CK.LOAD})
"""Statements that add rows to their updating tables: each row's foreign keys are checked."""


def foreign_key_error(event: Event, verdict: object, db: str | None, catalog: TableLookup | None) -> MySQLError | None:
    """The error a statement the replica applies stops with because of a foreign key into a
    table the replica does not have (the filters kept it off): ``CREATE TABLE`` of such a child
    is 1824 (``Failed to open the referenced table``), adding rows to one is 1452 (InnoDB finds no
    parent table, so no parent row: row0ins.cc reports DB_NO_REFERENCED_ROW). The replica's
    applier runs with the source session's foreign_key_checks, taken as 1 (a session that
    turns it off, as mysqldump output does, is not modelled). Row events carry no row kind in
    the event model, so only statements are decided here; a self-reference is never missing.
    None without the replica's catalog, or when nothing fails."""
    if catalog is None or verdict is not APPLY or db is None or not isinstance(event, QueryEvent):
        return None
    if event.command is CK.CREATE_TABLE and event.sql and event.tables:
        from .catalog.tables import body_foreign_keys

        created = event.tables[0]
        created_db = created.db if created.db is not None else db
        if catalog.table(created_db, created.table) is not None:
            return None  # IF NOT EXISTS on an existing table: nothing is created
        for key in body_foreign_keys(event.sql, created_db, created.table):
            if (key.ref_db, key.ref_table) != (created_db, created.table) and catalog.table(key.ref_db, key.ref_table) is None:
                return MySQLError.of(ER.FK_CANNOT_OPEN_PARENT, key.ref_table)
        return None
    if event.command not in FILLS_ITS_TABLE:
        return None
    for ref in event.tables:
        if ref.updating is False:
            continue
        table_db = ref.db if ref.db is not None else db
        table = catalog.table(table_db, ref.table)
        for key in getattr(table, "foreign_keys", ()):
            if catalog.table(key.ref_db, key.ref_table) is None:
                return MySQLError.of(ER.NO_REFERENCED_ROW_2, constraint_text(table, key))  # type: ignore[arg-type]
    return None


def constraint_text(table, key) -> str:
    """How InnoDB names the failing constraint in 1452: ```db`.`child`, CONSTRAINT `fk` FOREIGN
    KEY (`c`) REFERENCES `parent` (`id`)``; the referenced table with its database when it is
    in another."""
    from ..dialect.lexical import quote_identifier as q

    parent = q(key.ref_table) if key.ref_db == table.db else f"{q(key.ref_db)}.{q(key.ref_table)}"
    return (f"`{table.db}`.`{table.name}`, CONSTRAINT {q(key.name)} FOREIGN KEY ({', '.join(map(q, key.columns))}) "
            f"REFERENCES {parent} ({', '.join(map(q, key.ref_columns))})")


def error_text(error: MySQLError) -> str:
    """As the mysql client prints it: ``ERROR 1146 (42S02): Table 'test.t7' doesn't exist``."""
    return f"ERROR {error.code} ({error.sqlstate}): {error.message}"


def last_sql_error(event: Event, error: MySQLError) -> str:
    """``Last_SQL_Error`` of a single-threaded applier that stopped on ``event``: a statement's
    error quotes the query and its default database, a row event's says so."""
    if isinstance(event, QueryEvent):
        return (f"Error '{error.message}' on query. Default database: '{event.default_db}'. "
                f"Query: '{event.sql or ''}'")
    return f"Error executing row event: '{error.message}'"
