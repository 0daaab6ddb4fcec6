"""SQL text -> the binlog events a source would write for it.

Given a statement, the session's default database and a binlog format, derive what the replica's
filters will see (mysql-filter-evaluation.md, sections 3.2, 3.4 and 3.5):

* STATEMENT (and MIXED for a safe statement, sql/mixed_format.py): one :class:`QueryEvent` with the
  statement's command kind and its table list (updating flags as the server's parser sets them).
* ROW: DDL stays a :class:`QueryEvent` (judged by the default database); DML becomes one
  :class:`RowEvent` per table it changes, with the table's written database or the default one.
  ``CREATE TABLE ... SELECT`` is both: the CREATE as a query event, the rows as row events.
  CREATE/DROP TEMPORARY TABLE are not logged under ROW (8.0+).

Reading the text is the job of :mod:`.tokens` (tokens, where statements end) and
:mod:`.readers` (command kind and table list per statement); this module only turns what
they read into events. When the tables cannot be known from the text — DROP TRIGGER (the replica
looks the trigger up), a multi-table UPDATE assigning unqualified columns, a CALL, an
unrecognised statement — the result says so (``tables_known=False`` plus a note) instead of
guessing. Unparseable text raises :class:`SqlEventsError`, never another exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Sequence

from ..events import CommandKind, Event, QueryEvent, RowEvent, TableRef
from ...replica.catalog import Catalog
from .analysis import StatementAnalysis
from .readers import analyse_statement
from .mixed_format import unsafe_reason
from .tokens import SqlEventsError, split_sql_script

CK = CommandKind

__all__ = [
    "BinlogFormat", "DerivedStatement", "SqlEventsError", "StatementAnalysis", "analyse_event_sql",
    "analyse_script", "analyse_statement", "derive_script", "events_for", "script_events", "statement_events",
]


class BinlogFormat(Enum):
    STATEMENT = "STATEMENT"
    ROW = "ROW"
    MIXED = "MIXED"

    @classmethod
    def parse(cls, value: "BinlogFormat | str") -> "BinlogFormat":
        if isinstance(value, BinlogFormat):
            return value
        try:
            return cls(str(value).upper())
        except ValueError:
            raise SqlEventsError(f"unknown binlog format {value!r}; expected STATEMENT, ROW or MIXED") from None


@dataclass(frozen=True)
class DerivedStatement:
    """One statement's events under one format. ``tables_known=False`` means the events could
    not be derived with certainty (see ``note``); the decision on them is then a best effort."""

    sql: str
    default_db: str
    binlog_format: BinlogFormat
    command: CommandKind
    events: tuple[Event, ...]
    tables_known: bool = True
    note: str | None = None
    analysis: StatementAnalysis = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    unknown_rows: tuple[tuple[str, str], ...] = ()
    """Under ROW: tables that get rows only if they own a SET column whose owner is not known
    (each is a candidate; at least one per column gets rows). Nothing is guessed for them."""


def statement_events(
    sql: str,
    default_db: str = "",
    binlog_format: BinlogFormat | str = BinlogFormat.STATEMENT,
    channel: str = "",
    catalog: Catalog | None = None,
) -> DerivedStatement:
    """The events one statement produces (a trailing ``;`` is allowed). ``catalog`` is the
    source's schema, when known."""
    fmt = BinlogFormat.parse(binlog_format)
    parts = split_sql_script(sql)
    if len(parts) > 1:
        raise SqlEventsError(f"expected one statement, got {len(parts)}; use script_events for a script")
    text = parts[0] if parts else ""
    analysis = analyse_statement(text, default_db, catalog=catalog)
    return _derive(text, analysis, default_db, fmt, channel)


def script_events(
    sql: str,
    default_db: str = "",
    binlog_format: BinlogFormat | str = BinlogFormat.STATEMENT,
    channel: str = "",
    catalog: Catalog | None = None,
) -> tuple[DerivedStatement, ...]:
    """Events for every statement of a script, following ``USE`` as a session would.
    ``catalog`` is the source's schema, when known."""
    return derive_script(analyse_script(sql, default_db, catalog), binlog_format, channel)


def analyse_script(
    sql: str, default_db: str = "", catalog: Catalog | None = None
) -> tuple[tuple[str, StatementAnalysis, str], ...]:
    """Each statement of a script with its analysis and the default database it runs in
    (``USE`` followed). The analysis does not depend on the binlog format or the channel, and
    reading a large statement costs seconds (sqlglot), so a caller deriving several formats or
    channels from one script reads it once (:func:`derive_script`)."""
    out = []
    for text in split_sql_script(sql):
        analysis = analyse_statement(text, default_db, catalog=catalog)
        out.append((text, analysis, default_db))
        if analysis.use_db is not None:
            default_db = analysis.use_db
    return tuple(out)


def derive_script(
    analysed: Sequence[tuple[str, StatementAnalysis, str]], binlog_format: BinlogFormat | str, channel: str = ""
) -> tuple[DerivedStatement, ...]:
    """:func:`script_events` from a script :func:`analyse_script` has read."""
    fmt = BinlogFormat.parse(binlog_format)
    return tuple(_derive(text, analysis, db, fmt, channel) for text, analysis, db in analysed)


def analyse_event_sql(sql: str, default_db: str = "", catalog: Catalog | None = None) -> StatementAnalysis:
    """The analysis of a query event's SQL text, for an event that has no table list: every
    reader (the JSON reader here, the Spark runtime in batches) reads it this way, so they
    derive the same tables. A trailing ``;`` and surrounding blanks are not part of it.
    ``catalog`` is the source's schema, when given."""
    return analyse_statement(sql.strip().rstrip(";").strip(), default_db, catalog=catalog)


def events_for(
    sql: str,
    default_db: str = "",
    binlog_format: BinlogFormat | str = BinlogFormat.STATEMENT,
    channel: str = "",
) -> tuple[Event, ...]:
    """Just the events of a script (all statements, USE followed)."""
    return tuple(ev for d in script_events(sql, default_db, binlog_format, channel) for ev in d.events)


# --- from analysis to events ----------------------------------------------------------------


def _derive(
    sql: str, a: StatementAnalysis, default_db: str, fmt: BinlogFormat, channel: str
) -> DerivedStatement:
    notes = list(a.notes)
    events: tuple[Event, ...] = ()
    effective_default = a.use_db if a.use_db is not None else default_db
    # MIXED logs an unsafe statement as rows (sql/mixed_format.py lists the cases modelled); DDL is
    # always a statement.
    unsafe = unsafe_reason(sql, a.command) if fmt is BinlogFormat.MIXED and (a.command.is_dml or a.create_select) else None
    as_rows = fmt is BinlogFormat.ROW or unsafe is not None
    refused = a.logged and default_db == "" and a.event_db is None and any(t.db is None for t in a.tables)
    if not a.logged:
        pass
    elif refused:
        notes.append("no database selected: the statement fails on the source (error 1046) and is not logged")
    elif as_rows:
        if fmt is BinlogFormat.MIXED:
            notes.append(f"MIXED: logged as rows, the statement is unsafe ({unsafe})")
        events = _row_events(sql, a, default_db, channel, notes)
    else:
        if fmt is BinlogFormat.MIXED:
            notes.append("MIXED: logged as a statement (safe as far as the text shows)")
        events = (_query_event(sql, a, default_db, channel),)
    unknown_rows: tuple[tuple[str, str], ...] = ()
    if as_rows and a.logged and not refused and (a.command.is_dml or a.create_select):  # (1046: no rows either)
        unknown_rows = tuple(
            key for key in _changed_tables(a.tables, default_db, None) if key not in _changed_tables(a.tables, default_db)
        )
    return DerivedStatement(
        sql, effective_default, fmt, a.command, events, a.tables_known, "; ".join(notes) or None, a, unknown_rows
    )


def _query_event(sql: str, a: StatementAnalysis, default_db: str, channel: str, tables=None) -> QueryEvent:
    return QueryEvent(
        channel=channel,
        default_db=a.event_db if a.event_db is not None else default_db,
        command=a.command,
        tables=a.tables if tables is None else tables,
        sql=sql,
        temporary=a.temporary,
        if_exists=a.if_exists,
    )


def _row_events(sql: str, a: StatementAnalysis, default_db: str, channel: str, notes: list[str]) -> tuple[Event, ...]:
    if a.temporary and a.command in (CK.CREATE_TABLE, CK.DROP_TABLE):
        notes.append("temporary table DDL is not written to the binary log under ROW format")
        return ()
    if a.command.is_dml or a.create_select:
        changed = _changed_tables(a.tables, default_db)
        rows = tuple(RowEvent(channel, db, table) for db, table in changed)

        if a.create_select:
            target = tuple(t for t in a.tables if t.updating)[:1]
            return (_query_event(sql, a, default_db, channel, tables=target),) + rows
        return rows
    return (_query_event(sql, a, default_db, channel),)


def _changed_tables(
    tables: Sequence[TableRef], default_db: str, updating: bool | None = True
) -> list[tuple[str, str]]:
    """The distinct ``(db, table)`` of the tables whose flag is ``updating`` (True: certain;
    None: a candidate owner of a column), in list order."""
    seen: list[tuple[str, str]] = []
    for t in tables:
        if t.updating is updating:
            key = (t.db if t.db is not None else default_db, t.table)
            if key not in seen:
                seen.append(key)
    return seen
