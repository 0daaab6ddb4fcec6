"""Binary and relay log files as event rows (what ``read_events(spark, path, "binlog")`` and
the stream over log files, :mod:`.binlog_stream`, are made of), read by the same reader and
mapping as ``replfilter evaluate`` (:mod:`replfilter.evaluation.binlog`), so a binlog decides
alike in both.

Each event the applier decides on is one row of :data:`~.schema.INGESTED_SCHEMA` (query events
with their command and table list already read from the SQL text, a Table_map as a row event,
GTIDs and boundaries as transaction events); ``record`` holds where it is — ``{"log_name",
"pos", "end_log_pos", "event_type", "gtid", "rows"}``, ``rows`` being the rows of the rows
events that followed a Table_map. A problem in a file (checksum, truncation, an event that does
not parse, a file that is not a binlog) is a dead letter naming file and position.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Sequence

from ..evaluation.binlog.as_events import EventMapper, Mapped
from ..evaluation.binlog.framing import NotABinlog, ReadProblem
from ..evaluation.binlog.reader import read_binlog
from ..evaluation.binlog.column_values import RowFormatError
from ..evaluation.binlog.rows import read_rows_json
from ..evaluation.events import QueryEvent, RowEvent, TransactionEvent
from .schema import table_values
from .source_schemas import SourceSchemas


Segment = tuple[str, int, "int | None", Sequence[int]]
"""One file's part of a read: ``(path, start, stop, formats_at)`` (:func:`~.framing.read_frames`)."""


def segment_rows(
    segments: Sequence[Segment], channel: str = "", decode_rows: bool = False, schemas: SourceSchemas | None = None
) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """The rows of consecutive pieces of files, read as one log: a transaction a relay log
    continues in its next file keeps its Table_maps and its row counts. ``decode_rows``: each
    Table_map row's record also holds ``values``, its rows events' row images as ``replfilter
    evaluate --rows`` prints them, their column names from the binlog's optional metadata, else
    from ``schemas`` (the channel's source schema, ``--schema``), else ``col_1``..."""
    mapper = EventMapper(channel, decode_rows=decode_rows)
    catalog = schemas.catalog(channel) if schemas is not None and decode_rows else None
    pending: list[list[Any]] = []  # Table_map rows waiting for the row counts of their rows events
    for path, start, stop, formats_at in segments:
        try:
            for item in read_binlog(path, start, stop, formats_at=formats_at):
                yield from _item_rows(item, mapper, pending, path, catalog)
        except NotABinlog as err:
            yield from _flush(pending)
            yield "dead", (str(err), None, path, None, None)
        except OSError as err:
            yield from _flush(pending)
            yield "dead", (f"{path}: {err.strerror or err}", None, path, None, None)
    yield from _flush(pending)


def _item_rows(item, mapper: EventMapper, pending: list[list[Any]], path: str, catalog: Any = None) -> Iterator[tuple[str, tuple[Any, ...]]]:
    if isinstance(item, ReadProblem):
        yield from _flush(pending)
        yield "dead", (item.message, json.dumps({"pos": item.pos, "problem": item.kind}), path, None, None)
        return
    mapped = mapper.map(item)
    if mapped.error is not None:
        yield from _flush(pending)
        raw = mapped.source.raw
        yield "dead", (mapped.error, json.dumps({"pos": raw.pos, "event_type": raw.type_name}), path, None, None)
        return
    if mapped.event is None and mapped.rows_of is not None:  # a rows event: count on its Table_map
        values = None
        if mapped.decode:  # its values wanted: decoded (and so counted) here
            table, body = mapped.rows_of, mapped.source.body
            try:
                values = read_rows_json(body.header, table, body.body, table.column_names_in(catalog))
            except (RowFormatError, ValueError, IndexError) as err:
                yield from _flush(pending)
                raw = mapped.source.raw
                yield "dead", (f"row image does not parse: {err}", json.dumps({"pos": raw.pos, "event_type": raw.type_name}),
                               path, None, None)
                return
        for row in reversed(pending):
            if row[-1] is mapped.rows_of:
                row[-2]["rows"] += len(values) if values is not None else mapped.row_count or 0
                if values is not None:
                    row[-2].setdefault("values", []).extend(values)
                break
        return
    if mapped.event is None:
        return
    row = list(_event_row(mapped))
    if isinstance(mapped.event, RowEvent):
        pending.append([*row, mapped.rows_of])
        return
    yield from _flush(pending)
    yield "event", (*row[:-1], json.dumps(row[-1]))


def _flush(pending: list[list[Any]]) -> Iterator[tuple[str, tuple[Any, ...]]]:
    for row in pending:
        yield "event", (*row[:-2], json.dumps(row[-2]))
    pending.clear()


def _event_row(mapped: Mapped) -> tuple[Any, ...]:
    """The event's columns in :data:`INGESTED_SCHEMA` order, then its record (a dict)."""
    event = mapped.event
    raw = mapped.source.raw
    record = {"log_name": raw.log_name, "pos": raw.pos, "end_log_pos": raw.log_pos,
              "event_type": raw.type_name, "gtid": mapped.gtid}
    if isinstance(event, RowEvent):
        record["rows"] = 0
        return (1, "row", event.channel, None, None, None, None, None, None, event.db, event.table, None, None, record)
    if isinstance(event, QueryEvent):
        tables = [tuple(table_values(t).values()) for t in event.tables]  # updating=None: unknown
        return (1, "query", event.channel, event.default_db, event.command.value, tables, event.sql,
                event.temporary, event.if_exists, None, None, None, None, record)
    assert isinstance(event, TransactionEvent)
    return (1, "transaction", event.channel, None, None, None, None, None, None, None, None,
            event.kind.value, event.gtid, record)
