"""The JSON form of events (version 1): one object per line, and its checked reader.

One object per event, keys in a fixed order, always ``"v": 1`` and a ``"type"`` discriminator
(``"query"``, ``"row"``, ``"transaction"``). Readers reject unknown keys, unknown versions and
wrongly typed values with :class:`EventFormatError`, which names the offending field, so a file
of events fails loudly and precisely rather than being half understood. A query event with
``sql`` and no ``tables`` key gets its tables from the SQL text
(:func:`~replfilter.evaluation.sql.logged_events.analyse_event_sql`), as the Spark runtime does.

Examples::

    {"v": 1, "type": "query", "channel": "", "default_db": "d", "command": "INSERT",
     "tables": [{"db": null, "table": "t", "updating": true}], "sql": "INSERT INTO t VALUES (1)",
     "temporary": false, "if_exists": false}
    {"v": 1, "type": "row", "channel": "", "db": "d", "table": "t"}
    {"v": 1, "type": "transaction", "channel": "", "kind": "XID", "gtid": null}
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any, Callable, Mapping

from ..replica.catalog import Catalog

from .events import JSON_VERSION, CommandKind, Event, QueryEvent, RowEvent, TableRef, TransactionEvent, TransactionKind


SourceCatalogs = Callable[[str], "Catalog | None"]
"""A channel's source schema (None when not given): ``ReplicaState.source_catalog``."""


class EventFormatError(ValueError):
    """A JSON event that cannot be read; ``field`` names the offending key (dotted path)."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"field {field!r}: {message}" if field else message)


def to_json(event: Event) -> str:
    """One compact JSON line for an event (stable key order)."""
    return json.dumps(event.to_dict(), ensure_ascii=False, separators=(", ", ": "))


def from_json(text: str | bytes, source_catalog: SourceCatalogs | None = None) -> Event:
    """Read one event from a JSON object text; raises :class:`EventFormatError`.
    ``source_catalog`` (channel -> the source's schema, or None) resolves what the SQL text of
    an event without a table list leaves open."""
    try:
        data = json.loads(text, object_pairs_hook=_object_without_duplicates)
    except json.JSONDecodeError as err:
        # json's own message can end in "at" ("Unterminated string starting at"): the column ends it
        what = err.msg[:-3] if err.msg.endswith(" at") else err.msg
        raise EventFormatError("", f"not valid JSON: {what} at column {err.colno}") from None
    except DuplicateKeyError as err:
        raise EventFormatError(err.key, "given twice in one object (a JSON reader may keep either value)") from None
    return from_dict(data, source_catalog)


class DuplicateKeyError(ValueError):
    """A JSON object that names a key twice (:func:`_object_without_duplicates`)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A decoded JSON object, refused when it names a key twice. RFC 8259 (section 4) leaves
    the meaning of such an object to each reader ("the names within an object SHOULD be
    unique"); Python's keeps the last value, Spark's the first, so an event could decide two
    ways. Neither is guessed."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return data


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


def from_dict(data: Any, source_catalog: SourceCatalogs | None = None) -> Event:
    """Build an event from a decoded JSON object, checking every field."""
    if not isinstance(data, dict):
        raise EventFormatError("", f"an event must be a JSON object, not {_describe(data)}")
    version = data.get("v")
    if "v" not in data:
        raise EventFormatError("v", "missing (expected 1)")
    if type(version) is not int or version != JSON_VERSION:
        raise EventFormatError("v", f"unsupported version {_json(version)} (this reader understands 1)")
    kind = data.get("type")
    if kind not in _FIELDS:
        raise EventFormatError("type", f'expected one of "query", "row", "transaction", not {_json(kind)}')
    unknown = [key for key in data if key not in _FIELDS[kind]]
    if unknown:
        raise EventFormatError(unknown[0], f"unknown field for a {kind} event")
    for key in _REQUIRED[kind]:
        if key not in data and not (key == "command" and _reads_sql(data)):  # `sql` alone suffices
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
    if not _reads_sql(data):
        command = _enum(CommandKind, data, "command")
        tables = _tables(data.get("tables", []))  # (fields are checked in key order)
        sql = _optional_string(data, "sql")
        temporary = _bool(data, "temporary", default=False)
        if_exists = _bool(data, "if_exists", default=False)
    else:
        given = _enum(CommandKind, data, "command") if "command" in data else None
        sql = _optional_string(data, "sql")
        catalog = source_catalog(channel) if source_catalog is not None else None
        read = read_event_sql(sql, default_db, catalog)  # type: ignore[arg-type]
        refused = contradiction(given.value if given is not None else None, read.command.value)
        if refused is not None:
            raise EventFormatError("command", refused)
        command = given if given is not None and read.command.value == "OTHER" else read.command
        tables = read.tables
        if given is None:  # the command is the text's: so are its flags and a database statement's db
            default_db = read.event_db if read.event_db is not None else default_db
        temporary = _bool(data, "temporary", default=read.temporary if given is None else False)
        if_exists = _bool(data, "if_exists", default=read.if_exists if given is None else False)
        if not read.tables_known and read.undecided is None and read.trigger is None:
            raise UnknownTables(QueryEvent(channel, default_db, command, tables, sql, temporary, if_exists),
                                "; ".join(read.notes))
    return QueryEvent(
        channel=channel,
        default_db=default_db,
        command=command,
        tables=tables,
        sql=sql,
        temporary=temporary,
        if_exists=if_exists,
    )


def _reads_sql(data: Mapping[str, Any]) -> bool:
    """A query event whose command and tables come from its SQL text: ``sql``, no ``tables``."""
    return "tables" not in data and data.get("sql") is not None


UNKNOWN_TABLES = "which tables the statement changes is not known"


class UnknownTables(EventFormatError):
    """A query event whose table list its SQL text cannot give (a multi-table UPDATE sqlglot
    cannot read, ``FLUSH TABLES t``): the event is well formed, and its decision is undecided
    unless the rules decide it whatever its tables (:func:`~.undecided.unless_tables_matter`), as
    EXPLAIN REPLICATION decides the same text. A reader that cannot decide it refuses it."""

    def __init__(self, event: QueryEvent, why: str):
        self.event = event
        self.why = why
        super().__init__("sql", f"{UNKNOWN_TABLES}: {why}")


_FAMILIES = {"INSERT_SELECT": "INSERT", "REPLACE_SELECT": "REPLACE", "UPDATE_MULTI": "UPDATE", "DELETE_MULTI": "DELETE"}


def contradiction(given: str | None, read: str) -> str | None:
    """Why a ``command`` contradicts the command kind read from the event's SQL text, or None.
    The text is what the source ran: a command it contradicts (``INSERT`` with ``DROP TABLE
    t``) is a broken event, not one to decide either way. The single- and multi-table forms of
    one statement (``UPDATE``/``UPDATE_MULTI``, ``INSERT``/``INSERT_SELECT``) do not contradict
    it: the text tells them apart, and its reading is kept. Nor does a text read as ``OTHER``
    (a statement the readers do not classify), which says nothing to contradict."""
    if given is None or read == "OTHER" or _FAMILIES.get(given, given) == _FAMILIES.get(read, read):
        return None
    return f"{given!r} contradicts the SQL text, which is a {read} statement (leave out `command` to take the text's)"


def read_event_sql(sql: str, default_db: str, catalog: Catalog | None = None):
    """A query event with SQL text and no ``tables`` key: its command and tables are read from
    the text, as the Spark runtime reads them (:mod:`replfilter.spark_runtime.sql_tables`) and as
    EXPLAIN REPLICATION reads it, so a file of events decides alike in ``replfilter evaluate``,
    ``REPLAY EVENTS FROM``, a stream and EXPLAIN. A text the source refuses or does not log can
    be no logged event: an error naming ``sql``, never a guess."""
    from .sql.logged_events import SqlEventsError, analyse_event_sql  # sqlglot loads only when needed

    try:
        read = analyse_event_sql(sql, default_db, catalog)
    except SqlEventsError as err:
        raise EventFormatError("sql", f"cannot derive the tables from the SQL text: {err}") from None
    if read.source_error is not None:
        raise EventFormatError("sql", f"the source refuses this statement ({read.source_error}): it is never logged")
    if not read.logged:
        why = f" ({read.notes[0]})" if read.notes else ""
        raise EventFormatError("sql", f"the source does not log this statement{why}")
    return read


_JSON_TYPES = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}


def _json(value: Any) -> str:
    """``value`` as JSON spells it (``true``, ``null``, ``"x"``): a message quotes the input as
    the user wrote it, never Python's ``True``, ``None`` or ``'x'``."""
    return json.dumps(value, ensure_ascii=False)


def _describe(value: Any) -> str:
    """``number 5``, ``boolean true``, ``string "x"``: JSON's type name and spelling."""
    return "null" if value is None else f"{_JSON_TYPES.get(type(value), type(value).__name__)} {_json(value)}"


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
        raise EventFormatError(key, f"unknown value {_json(value)}; expected one of {names}") from None


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
