"""The binlog events the evaluator decides on.

Three event types, all frozen dataclasses (hashable, safe to share and to use as cache keys):

* :class:`QueryEvent` — a Query log event: DDL in any format, DML under STATEMENT format,
  ``BEGIN``/``COMMIT``... as the source writes them. It carries what the replica's filter code
  looks at: the event's database (the source session's default database, ``""`` when none; for
  CREATE/ALTER/DROP DATABASE the source writes the named database here), the statement's
  command kind, and its table list in statement order with each table's database as written
  (``None`` when unqualified) and an *updating* flag.
* :class:`RowEvent` — a Table_map event together with the rows events that follow it: the unit
  that row-format filtering decides on (mysql-filter-evaluation.md, section 3.4).
* :class:`TransactionEvent` — GTID, BEGIN, COMMIT, XID, ROLLBACK... and the other event types
  the applier never filters.

``to_dict`` gives each event's fields as the plain dict of the JSON form (version
:data:`JSON_VERSION`); the JSON text and its checked reader are :mod:`.event_json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Union

JSON_VERSION = 1


class CommandKind(Enum):
    """What kind of statement a Query event holds — MySQL's ``SQLCOM_*`` names without prefix.

    Only some kinds change how filters decide (mysql-filter-evaluation.md, section 3.2):

    * ``BEGIN``, ``COMMIT``, ``ROLLBACK``, ``SAVEPOINT``, ``ROLLBACK_TO_SAVEPOINT`` and the XA
      boundaries ``XA_START``/``XA_END``/``XA_PREPARE``/``XA_COMMIT``/``XA_ROLLBACK`` are never
      filtered (XA per 8.4-era code; ``RELEASE_SAVEPOINT`` is *not* exempt).
    * ``SET_OPTION`` (``SET ...``) is exempt from table rules, not from database rules.
    * ``DROP_TABLE`` with ``temporary`` and ``if_exists`` both set is exempt from table rules.
    * ``CREATE_DB``, ``ALTER_DB``, ``DROP_DB`` get the Bug #46110 wild-rule check (Table B) and
      carry the named database as the event's database.
    * ``DROP_TRIGGER`` is decided by the trigger's table *as found on the replica*: the event's
      table list is that table, or empty when the trigger does not exist there (then: skip).
    * ``UPDATE_MULTI`` takes its updating flags from the source's bitmap of assigned tables.

    Every other kind is decided by database rules and then table rules on its table list.
    ``ALTER VIEW`` is ``CREATE_VIEW`` (as in MySQL). ``OTHER`` is any statement not listed.
    """

    INSERT = "INSERT"
    INSERT_SELECT = "INSERT_SELECT"
    REPLACE = "REPLACE"
    REPLACE_SELECT = "REPLACE_SELECT"
    UPDATE = "UPDATE"
    UPDATE_MULTI = "UPDATE_MULTI"
    DELETE = "DELETE"
    DELETE_MULTI = "DELETE_MULTI"
    LOAD = "LOAD"
    CREATE_TABLE = "CREATE_TABLE"
    ALTER_TABLE = "ALTER_TABLE"
    DROP_TABLE = "DROP_TABLE"
    RENAME_TABLE = "RENAME_TABLE"
    TRUNCATE = "TRUNCATE"
    CREATE_INDEX = "CREATE_INDEX"
    DROP_INDEX = "DROP_INDEX"
    CREATE_DB = "CREATE_DB"
    ALTER_DB = "ALTER_DB"
    DROP_DB = "DROP_DB"
    CREATE_VIEW = "CREATE_VIEW"
    DROP_VIEW = "DROP_VIEW"
    CREATE_TRIGGER = "CREATE_TRIGGER"
    DROP_TRIGGER = "DROP_TRIGGER"
    CREATE_PROCEDURE = "CREATE_PROCEDURE"
    CREATE_FUNCTION = "CREATE_FUNCTION"
    ALTER_PROCEDURE = "ALTER_PROCEDURE"
    ALTER_FUNCTION = "ALTER_FUNCTION"
    DROP_PROCEDURE = "DROP_PROCEDURE"
    DROP_FUNCTION = "DROP_FUNCTION"
    CREATE_EVENT = "CREATE_EVENT"
    ALTER_EVENT = "ALTER_EVENT"
    DROP_EVENT = "DROP_EVENT"
    CREATE_USER = "CREATE_USER"
    ALTER_USER = "ALTER_USER"
    DROP_USER = "DROP_USER"
    RENAME_USER = "RENAME_USER"
    CREATE_ROLE = "CREATE_ROLE"
    DROP_ROLE = "DROP_ROLE"
    SET_PASSWORD = "SET_PASSWORD"
    GRANT = "GRANT"
    REVOKE = "REVOKE"
    ANALYZE = "ANALYZE"
    OPTIMIZE = "OPTIMIZE"
    REPAIR = "REPAIR"
    SET_OPTION = "SET_OPTION"
    BEGIN = "BEGIN"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    SAVEPOINT = "SAVEPOINT"
    ROLLBACK_TO_SAVEPOINT = "ROLLBACK_TO_SAVEPOINT"
    RELEASE_SAVEPOINT = "RELEASE_SAVEPOINT"
    XA_START = "XA_START"
    XA_END = "XA_END"
    XA_PREPARE = "XA_PREPARE"
    XA_COMMIT = "XA_COMMIT"
    XA_ROLLBACK = "XA_ROLLBACK"
    OTHER = "OTHER"

    @property
    def is_dml(self) -> bool:
        """Row-changing statements: under ROW format they are logged as row events."""
        return self in DML_COMMANDS

    @property
    def is_database_statement(self) -> bool:
        return self in DATABASE_COMMANDS


DML_COMMANDS = frozenset(
    {
        CommandKind.INSERT,
        CommandKind.INSERT_SELECT,
        CommandKind.REPLACE,
        CommandKind.REPLACE_SELECT,
        CommandKind.UPDATE,
        CommandKind.UPDATE_MULTI,
        CommandKind.DELETE,
        CommandKind.DELETE_MULTI,
        CommandKind.LOAD,
    }
)
DATABASE_COMMANDS = frozenset({CommandKind.CREATE_DB, CommandKind.ALTER_DB, CommandKind.DROP_DB})
BOUNDARY_COMMANDS = frozenset(
    {
        CommandKind.BEGIN,
        CommandKind.COMMIT,
        CommandKind.ROLLBACK,
        CommandKind.SAVEPOINT,
        CommandKind.ROLLBACK_TO_SAVEPOINT,
        CommandKind.XA_START,
        CommandKind.XA_END,
        CommandKind.XA_PREPARE,
        CommandKind.XA_COMMIT,
        CommandKind.XA_ROLLBACK,
    }
)
"""Query commands the applier never filters (8.4: XA boundaries included)."""


class TransactionKind(Enum):
    """Events the applier never filters (mysql-filter-evaluation.md, section 2).

    GTID/ANONYMOUS_GTID open a transaction; BEGIN, COMMIT, ROLLBACK, XID and XA_PREPARE are its
    boundaries; INTVAR, RAND and USER_VAR only set session context for the next statement.
    """

    GTID = "GTID"
    ANONYMOUS_GTID = "ANONYMOUS_GTID"
    BEGIN = "BEGIN"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    XID = "XID"
    XA_PREPARE = "XA_PREPARE"
    INTVAR = "INTVAR"
    RAND = "RAND"
    USER_VAR = "USER_VAR"


@dataclass(frozen=True)
class TableRef:
    """One entry of a statement's table list: ``db`` is ``None`` when the name was unqualified
    (it then resolves to the event's, possibly rewritten, database).

    ``updating`` is ``None`` when it is not known: a multi-table UPDATE assigns an unqualified
    column and no schema says which table owns it (the source's bitmap would say; the SQL text
    does not). At least one of a column's candidate tables is then updating, and the evaluator
    answers only what holds whichever it is."""

    db: str | None
    table: str
    updating: bool | None = True

    def to_dict(self) -> dict[str, Any]:
        return {"db": self.db, "table": self.table, "updating": self.updating}


@dataclass(frozen=True)
class QueryEvent:
    """A Query log event. ``default_db`` is ``""`` when the source had no default database."""

    channel: str = ""
    default_db: str = ""
    command: CommandKind = CommandKind.OTHER
    tables: tuple[TableRef, ...] = ()
    sql: str | None = None
    temporary: bool = False
    if_exists: bool = False

    type_name = "query"

    @property
    def exempt_from_table_rules(self) -> bool:
        """SET and DROP TEMPORARY TABLE IF EXISTS skip table rules (not database rules)."""
        return self.command is CommandKind.SET_OPTION or (
            self.command is CommandKind.DROP_TABLE and self.temporary and self.if_exists
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "v": JSON_VERSION,
            "type": self.type_name,
            "channel": self.channel,
            "default_db": self.default_db,
            "command": self.command.value,
            "tables": [t.to_dict() for t in self.tables],
            "sql": self.sql,
            "temporary": self.temporary,
            "if_exists": self.if_exists,
        }


@dataclass(frozen=True)
class RowEvent:
    """A Table_map event and the rows events for its table id."""

    channel: str = ""
    db: str = ""
    table: str = ""

    type_name = "row"

    def to_dict(self) -> dict[str, Any]:
        return {"v": JSON_VERSION, "type": self.type_name, "channel": self.channel, "db": self.db, "table": self.table}


@dataclass(frozen=True)
class TransactionEvent:
    """A never-filtered event; ``gtid`` is the GTID text for ``GTID`` events, else ``None``."""

    channel: str = ""
    kind: TransactionKind = TransactionKind.BEGIN
    gtid: str | None = None

    type_name = "transaction"

    def to_dict(self) -> dict[str, Any]:
        return {
            "v": JSON_VERSION,
            "type": self.type_name,
            "channel": self.channel,
            "kind": self.kind.value,
            "gtid": self.gtid,
        }


Event = Union[QueryEvent, RowEvent, TransactionEvent]
