"""From binlog events to the events the evaluator decides (:mod:`replfilter.evaluation.events`),
grouped into transactions as the applier groups them.

What each event becomes (mysql-filter-evaluation.md, sections 2 and 3):

* Query: ``BEGIN``/``COMMIT``/``ROLLBACK`` are transaction events; any other statement is a
  :class:`QueryEvent` whose command and tables are read from its text
  (:func:`~replfilter.evaluation.sql.logged_events.analyse_event_sql`, as for a JSON event
  without ``tables``), its database the event's. A multi-table UPDATE whose text leaves the
  owner of a SET column open takes its updating flags from ``Q_TABLE_MAP_FOR_UPDATE``, the
  bitmap the replica itself uses (``sql_parse.cc``, multi-update on a replica thread: bit *i*
  is the *i*-th table of the statement's table list).
* Table_map: a :class:`RowEvent` for its table, decided once; the rows events after it with
  that table id carry that decision (the replica's filter runs on the Table_map, and COUNTERs
  move once for it), plus their row count.
* Gtid, Anonymous_Gtid, MariaDB's GTID, Xid, XA_prepare, Intvar, Rand, User var: transaction
  events, never filtered.
* Format_description, Rotate, Previous_gtids, Gtid_list, Binlog_checkpoint, Rows_query,
  Annotate_rows, Stop, Heartbeat: not decided (they are the log's, not the applier's).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator

from ..events import CommandKind, Event, QueryEvent, RowEvent, TableRef, TransactionEvent, TransactionKind
from . import bodies as B
from .column_values import RowFormatError
from .framing import ReadProblem
from .reader import BinlogEvent, Item
from .rows import TableMap, count_rows

_BOUNDARY_SQL = {"BEGIN": TransactionKind.BEGIN, "COMMIT": TransactionKind.COMMIT, "ROLLBACK": TransactionKind.ROLLBACK}
_ENDING_XA = (CommandKind.XA_COMMIT, CommandKind.XA_ROLLBACK, CommandKind.XA_PREPARE)
_TRANSACTION_BODIES = {
    B.Xid: TransactionKind.XID,
    B.XaPrepare: TransactionKind.XA_PREPARE,
    B.Intvar: TransactionKind.INTVAR,
    B.Rand: TransactionKind.RAND,
    B.UserVar: TransactionKind.USER_VAR,
}


@dataclass(frozen=True)
class Mapped:
    """One binlog event and what the applier decides on for it. ``event`` is None for events
    that are not decided; ``rows_of`` is the Table_map a rows event belongs to (its decision is
    that Table_map's); ``error`` says why an event that should be decided cannot be.
    ``decode`` marks a rows event whose values are wanted: they are decoded where they are
    output (decide.py), in one pass with their JSON form, and counted there."""

    source: BinlogEvent
    event: Event | None
    gtid: str | None = None
    rows_of: TableMap | None = None
    row_count: int | None = None
    error: str | None = None
    decode: bool = False


Catalogs = Callable[[str], Any]


class EventMapper:
    """Turns a file's events into :class:`Mapped` items, keeping the table maps in force and
    the current transaction's GTID. ``decode_rows`` leaves the rows to be decoded with their
    values (else they are counted here). Table maps are forgotten when a transaction's GTID
    opens it, not at a Format_description or Rotate: a replica's relay log may rotate in the
    middle of a transaction, whose rows events then follow their Table_map in the next file."""

    def __init__(self, channel: str = "", source_catalog: Catalogs | None = None, decode_rows: bool = False):
        self.channel = channel
        self._catalog = source_catalog
        self._decode = decode_rows
        self._tables: dict[int, TableMap] = {}
        self.gtid: str | None = None

    def map(self, item: BinlogEvent) -> Mapped:
        body = item.body
        raw = item.raw
        if isinstance(body, B.Gtid):
            self._tables.clear()  # a transaction's rows events follow its own Table_maps
            self.gtid = body.gtid
            kind = TransactionKind.ANONYMOUS_GTID if body.anonymous else TransactionKind.GTID
            return Mapped(item, TransactionEvent(self.channel, kind, body.gtid), self.gtid)
        if isinstance(body, B.MariaGtid):
            self._tables.clear()
            self.gtid = body.gtid
            return Mapped(item, TransactionEvent(self.channel, TransactionKind.GTID, body.gtid), self.gtid)
        if isinstance(body, B.Query):
            return self._query(item, body)
        if isinstance(body, TableMap):
            self._tables[body.table_id] = body
            return Mapped(item, RowEvent(self.channel, body.db, body.table), self.gtid, body)
        if isinstance(body, B.Rows):
            return self._rows(item, body)
        kind = _TRANSACTION_BODIES.get(type(body))
        if kind is not None:
            return Mapped(item, TransactionEvent(self.channel, kind), self.gtid)
        return Mapped(item, None, self.gtid)

    def _query(self, item: BinlogEvent, body: B.Query) -> Mapped:
        text = body.sql.strip().rstrip(";").strip()
        boundary = _BOUNDARY_SQL.get(text.upper())
        if boundary is not None:
            return Mapped(item, TransactionEvent(self.channel, boundary), self.gtid)
        from ..sql.logged_events import SqlEventsError, analyse_event_sql  # sqlglot loads on first use

        catalog = self._catalog(self.channel) if self._catalog is not None else None
        try:
            analysis = analyse_event_sql(body.sql, body.db, catalog)
        except SqlEventsError as err:
            return Mapped(item, None, self.gtid, error=f"cannot derive the tables from the SQL text: {err}")
        tables = analysis.tables
        if analysis.unknown_owners and body.table_map_for_update is not None:
            tables = updating_from_bitmap(tables, body.table_map_for_update)
        event = QueryEvent(
            channel=self.channel,
            default_db=analysis.event_db if analysis.event_db is not None else body.db,
            command=analysis.command,
            tables=tables,
            sql=body.sql,
            temporary=analysis.temporary,
            if_exists=analysis.if_exists,
        )
        return Mapped(item, event, self.gtid)

    def _rows(self, item: BinlogEvent, body: B.Rows) -> Mapped:
        header = body.header
        table = self._tables.get(header.table_id)
        if table is None:
            return Mapped(item, None, self.gtid, error=f"rows event for table_id {header.table_id} without its Table_map")
        if self._decode:
            return Mapped(item, None, self.gtid, table, decode=True)
        try:
            return Mapped(item, None, self.gtid, table, count_rows(header, table, body.body))
        except (RowFormatError, ValueError, IndexError) as err:
            return Mapped(item, None, self.gtid, table, error=f"row image does not parse: {err}")


def updating_from_bitmap(tables: tuple[TableRef, ...], bitmap: int) -> tuple[TableRef, ...]:
    """The multi-table UPDATE's updating flags from ``Q_TABLE_MAP_FOR_UPDATE``; kept as they
    are when the bitmap names a table past the list (then it does not describe this list)."""
    if bitmap >> len(tables):
        return tables
    return tuple(replace(ref, updating=bool(bitmap >> i & 1)) for i, ref in enumerate(tables))


@dataclass(frozen=True)
class Transaction:
    """A group of events the applier applies or skips together; ``items`` in file order,
    problems (checksum, truncation...) where they occurred."""

    items: tuple[Mapped | ReadProblem, ...]

    @property
    def gtid(self) -> str | None:
        for item in self.items:
            if isinstance(item, Mapped) and item.gtid is not None:
                return item.gtid
        return None


def transactions(mapped: Iterable[Mapped | ReadProblem]) -> Iterator[Transaction]:
    """Groups as the applier does: a GTID (or a ``BEGIN`` without one) opens a group that ends
    at Xid, ``COMMIT``, ``ROLLBACK`` or XA_prepare; a statement outside ``BEGIN`` (DDL, a
    non-transactional statement) is a group of its own with the GTID before it; events of the
    log itself (Format_description, Rotate...) are groups of one.

    As MySQL's ``Transaction_boundary_parser`` (libbinlogevents/src/trx_boundary_parser.cpp,
    ``get_event_boundary_type``/``update_state``), which the replica uses to find transactions
    in its relay log: ``XA START``/``XA BEGIN`` opens a group as ``BEGIN`` does (so ``XA END``
    inside it is a statement, and MySQL's XA_prepare event ends it); ``ROLLBACK TO <savepoint>``
    is a statement, not an end (only the exact ``COMMIT``/``ROLLBACK``, ``XA COMMIT``/``XA
    ROLLBACK`` end one); an Incident always ends the group it is in. MariaDB writes ``XA
    PREPARE`` as a Query event that ends the XA transaction's first group: it ends one too.
    :func:`~.tail.scan` finds the same ends (:func:`sql_boundary`)."""
    group: list[Mapped | ReadProblem] = []
    in_begin = False
    for item in mapped:
        if isinstance(item, ReadProblem):
            if group:
                group.append(item)
            else:
                yield Transaction((item,))
            continue
        body = item.source.body
        event = item.event
        kind = event.kind if isinstance(event, TransactionEvent) else None
        if kind in (TransactionKind.GTID, TransactionKind.ANONYMOUS_GTID):
            if group:
                yield Transaction(tuple(group))
            group = [item]
            in_begin = isinstance(body, B.MariaGtid) and not body.standalone
            continue
        if kind is TransactionKind.BEGIN or (isinstance(event, QueryEvent) and event.command is CommandKind.XA_START):
            if group and not _only_gtid(group):
                yield Transaction(tuple(group))
                group = []
            group.append(item)
            in_begin = True
            continue
        if event is None and item.rows_of is None and not group:
            yield Transaction((item,))  # the log's own events
            continue
        group.append(item)
        ends = kind in (TransactionKind.XID, TransactionKind.COMMIT, TransactionKind.ROLLBACK, TransactionKind.XA_PREPARE)
        if isinstance(event, QueryEvent) and event.command in _ENDING_XA:
            ends = True
        if isinstance(body, B.Incident):
            ends = True
        if ends or (not in_begin and isinstance(event, QueryEvent)):
            yield Transaction(tuple(group))
            group = []
            in_begin = False
    if group:
        yield Transaction(tuple(group))


OPENS, ENDS = "opens", "ends"


def sql_boundary(sql: str) -> str | None:
    """Whether a Query event's text opens a transaction (``BEGIN``, ``XA START``/``XA BEGIN``)
    or ends one (exactly ``COMMIT`` or ``ROLLBACK``; ``XA COMMIT``, ``XA ROLLBACK``, MariaDB's
    ``XA PREPARE``), as :func:`transactions` groups them; None for any other statement (among
    them ``ROLLBACK TO <savepoint>``). Read from the words alone, so that a scan for
    transaction ends (:func:`~.tail.scan`) need not parse the statement."""
    words = sql.strip().rstrip(";").strip().upper().split()
    if words == ["BEGIN"]:
        return OPENS
    if words in (["COMMIT"], ["ROLLBACK"]):
        return ENDS
    if len(words) > 1 and words[0] == "XA":
        if words[1] in ("START", "BEGIN"):
            return OPENS
        if words[1] in ("COMMIT", "ROLLBACK", "PREPARE"):
            return ENDS
    return None


def _only_gtid(group: list[Mapped | ReadProblem]) -> bool:
    return all(
        isinstance(item, Mapped) and isinstance(item.event, TransactionEvent)
        and item.event.kind in (TransactionKind.GTID, TransactionKind.ANONYMOUS_GTID)
        for item in group
    )


def mapped_items(items: Iterable[Item], mapper: EventMapper) -> Iterator[Mapped | ReadProblem]:
    for item in items:
        yield mapper.map(item) if isinstance(item, BinlogEvent) else item
