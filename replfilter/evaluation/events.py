"""The binlog events the evaluator decides on, and their stable JSON form (version 1).

Three event types, all frozen dataclasses (hashable, safe to share and to use as cache keys):

* :class:`QueryEvent` — a Query log event: DDL in any format, DML under STATEMENT format,
  ``BEGIN``/``COMMIT``... as the source writes them. It carries what the replica's filter code
  looks at: the event's database (the source session's default database, ``""`` when none; for
  CREATE/ALTER/DROP DATABASE the source writes the named database here), the statement's
  command kind, and its table list in statement order with each table's database as written
  (``None`` when unqualified) and an *updating* flag.
* :class:`RowEvent` — a Table_map event together with the rows events that follow it: the unit
  that row-format filtering decides on (spec section 3.4).
* :class:`TransactionEvent` — GTID, BEGIN, COMMIT, XID, ROLLBACK... and the other event types
  the applier never filters.

JSON: one object per event, keys in a fixed order, always ``"v": 1`` and a ``"type"``
discriminator (``"query"``, ``"row"``, ``"transaction"``). Readers reject unknown keys, unknown
versions and wrongly typed values with :class:`EventFormatError`, which names the offending
field, so a file of events fails loudly and precisely rather than being half understood. A query
event with ``sql`` and no ``tables`` key gets its tables from the SQL text
(:func:`~replfilter.evaluation.sql_events.analyse_event_sql`), as the Spark runtime does.

Examples::

    {"v": 1, "type": "query", "channel": "", "default_db": "d", "command": "INSERT",
     "tables": [{"db": null, "table": "t", "updating": true}], "sql": "INSERT INTO t VALUES (1)",
     "temporary": false, "if_exists": false}
    {"v": 1, "type": "row", "channel": "", "db": "d", "table": "t"}
    {"v": 1, "type": "transaction", "channel": "", "kind": "XID", "gtid": null}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any, Mapping, Union

JSON_VERSION = 1


class EventFormatError(ValueError):
    """A JSON event that cannot be read; ``field`` names the offending key (dotted path)."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"field {field!r}: {message}" if field else message)


class CommandKind(Enum):
    """What kind of statement a Query event holds — MySQL's ``SQLCOM_*`` names without prefix.

    Only some kinds change how filters decide (spec section 3.2):

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
    """Events the applier never filters (spec section 2).

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
    (it then resolves to the event's, possibly rewritten, database)."""

    db: str | None
    table: str
    updating: bool = True

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


def to_json(event: Event) -> str:
    """One compact JSON line for an event (stable key order)."""
    return json.dumps(event.to_dict(), ensure_ascii=False, separators=(", ", ": "))


def from_json(text: str | bytes) -> Event:
    """Read one event from a JSON object text; raises :class:`EventFormatError`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise EventFormatError("", f"not valid JSON: {err.msg} at column {err.colno}") from None
    return from_dict(data)


# --- reading -------------------------------------------------------------------------------

_FIELDS = {
    "query": ("v", "type", "channel", "default_db", "command", "tables", "sql", "temporary", "if_exists"),
    "row": ("v", "type", "channel", "db", "table"),
    "transaction": ("v", "type", "channel", "kind", "gtid"),
}
_REQUIRED = {
    "query": ("v", "type", "command"),
    "row": ("v", "type", "db", "table"),
    "transaction": ("v", "type", "kind"),
}


def from_dict(data: Any) -> Event:
    """Build an event from a decoded JSON object, checking every field."""
    if not isinstance(data, dict):
        raise EventFormatError("", f"an event must be a JSON object, not {_describe(data)}")
    version = data.get("v")
    if "v" not in data:
        raise EventFormatError("v", "missing (expected 1)")
    if type(version) is not int or version != JSON_VERSION:
        raise EventFormatError("v", f"unsupported version {version!r} (this reader understands 1)")
    kind = data.get("type")
    if kind not in _FIELDS:
        raise EventFormatError("type", f"expected one of 'query', 'row', 'transaction', not {kind!r}")
    unknown = [key for key in data if key not in _FIELDS[kind]]
    if unknown:
        raise EventFormatError(unknown[0], f"unknown field for a {kind} event")
    for key in _REQUIRED[kind]:
        if key not in data:
            raise EventFormatError(key, "missing")
    channel = _string(data, "channel", default="")
    if kind == "row":
        return RowEvent(channel, _string(data, "db"), _string(data, "table"))
    if kind == "transaction":
        return TransactionEvent(
            channel,
            _enum(TransactionKind, data, "kind"),
            _optional_string(data, "gtid"),
        )
    default_db = _string(data, "default_db", default="")
    command = _enum(CommandKind, data, "command")
    if "tables" in data or data.get("sql") is None:
        tables = _tables(data.get("tables", []))  # (fields are checked in key order)
        sql = _optional_string(data, "sql")
    else:
        sql = _optional_string(data, "sql")
        tables = _tables_from_sql(sql, default_db)
    return QueryEvent(
        channel=channel,
        default_db=default_db,
        command=command,
        tables=tables,
        sql=sql,
        temporary=_bool(data, "temporary", default=False),
        if_exists=_bool(data, "if_exists", default=False),
    )


def _tables_from_sql(sql: str, default_db: str) -> tuple[TableRef, ...]:
    """A query event with SQL text and no ``tables`` key: its tables are read from the text,
    as the Spark runtime reads them (:mod:`replfilter.spark_runtime.sql_tables`), so a file of
    events decides alike in ``replfilter evaluate``, ``REPLAY EVENTS FROM`` and a stream."""
    from .sql_events import SqlEventsError, analyse_event_sql  # sqlglot: only when needed

    try:
        return analyse_event_sql(sql, default_db).tables
    except SqlEventsError as err:
        raise EventFormatError("sql", f"cannot derive the tables from the SQL text: {err}") from None


def _describe(value: Any) -> str:
    return "null" if value is None else f"{type(value).__name__} {value!r}"


def _string(data: Mapping[str, Any], key: str, default: str | None = None) -> str:
    if key not in data and default is not None:
        return default
    value = data.get(key)
    if not isinstance(value, str):
        raise EventFormatError(key, f"expected a string, got {_describe(value)}")
    return value


def _optional_string(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise EventFormatError(key, f"expected a string or null, got {_describe(value)}")
    return value


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise EventFormatError(key, f"expected true or false, got {_describe(value)}")
    return value


def _enum(enum: type[Enum], data: Mapping[str, Any], key: str) -> Any:
    value = data.get(key)
    try:
        return enum(value)
    except ValueError:
        names = ", ".join(member.value for member in enum)  # type: ignore[attr-defined]
        raise EventFormatError(key, f"unknown value {value!r}; expected one of {names}") from None


def _tables(value: Any) -> tuple[TableRef, ...]:
    if not isinstance(value, list):
        raise EventFormatError("tables", f"expected a list, got {_describe(value)}")
    refs = []
    for index, item in enumerate(value):
        where = f"tables[{index}]"
        if not isinstance(item, dict):
            raise EventFormatError(where, f"expected an object, got {_describe(item)}")
        unknown = [key for key in item if key not in ("db", "table", "updating")]
        if unknown:
            raise EventFormatError(f"{where}.{unknown[0]}", "unknown field for a table")
        db = item.get("db")
        if db is not None and not isinstance(db, str):
            raise EventFormatError(f"{where}.db", f"expected a string or null, got {_describe(db)}")
        table = item.get("table")
        if not isinstance(table, str) or not table:
            raise EventFormatError(f"{where}.table", f"expected a non-empty string, got {_describe(table)}")
        updating = item.get("updating", True)
        if not isinstance(updating, bool):
            raise EventFormatError(f"{where}.updating", f"expected true or false, got {_describe(updating)}")
        refs.append(TableRef(db, table, updating))
    return tuple(refs)
