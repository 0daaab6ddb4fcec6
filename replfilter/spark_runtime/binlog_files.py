"""``read_events(spark, path, "binlog")``: binary and relay log files as event rows, the files
parsed in parallel (one task per file) by the same reader and mapping as ``replfilter
evaluate`` (:mod:`replfilter.evaluation.binlog`), so a binlog decides alike in both.

``path`` is a file or a directory. In a directory, the files with the binlog magic are read, in
the order of the directory's ``*.index`` file when it has one (a server's ``binlog.index``, a
replica's ``relay-bin.index``), else in name order; other files are not events and are skipped
(an index, ``relay-log.info``...).

Each event the applier decides on is one row of :data:`~.schema.INGESTED_SCHEMA` (query events
with their command and table list already read from the SQL text, a Table_map as a row event,
GTIDs and boundaries as transaction events); ``record`` holds where it is — ``{"log_name",
"pos", "end_log_pos", "event_type", "gtid", "rows"}``, ``rows`` being the rows of the rows
events that followed a Table_map. A problem in a file (checksum, truncation, an event that does
not parse, a file that is not a binlog) is a dead letter naming file and position.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator, Sequence

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from ..evaluation.binlog.as_events import EventMapper, Mapped
from ..evaluation.binlog.framing import NotABinlog, ReadProblem
from ..evaluation.binlog.reader import read_binlog
from ..evaluation.binlog.tail import log_files
from ..evaluation.events import QueryEvent, RowEvent, TransactionEvent
from ..replica.state import ReplicaState
from .sql_tables import decide_unknown_updating
from .schema import DEAD_LETTER_SCHEMA, INGESTED_SCHEMA, Ingested, table_values


def binlog_paths(path: str) -> list[str]:
    """The binlog files of ``path`` (a file, or a directory read as described above)."""
    if not os.path.isdir(path):
        return [path]
    return log_files(path)


Segment = tuple[str, int, "int | None", Sequence[int]]
"""One file's part of a read: ``(path, start, stop, formats_at)`` (:func:`~.framing.read_frames`)."""


def file_rows(path: str, channel: str = "") -> Iterator[tuple[str, tuple[Any, ...]]]:
    """``("event", row)`` and ``("dead", row)`` for one file, in file order (runs on an executor)."""
    return segment_rows([(path, 4, None, ())], channel)


def segment_rows(segments: Sequence[Segment], channel: str = "") -> Iterator[tuple[str, tuple[Any, ...]]]:
    """The rows of consecutive pieces of files, read as one log: a transaction a relay log
    continues in its next file keeps its Table_maps and its row counts."""
    mapper = EventMapper(channel)
    pending: list[list[Any]] = []  # Table_map rows waiting for the row counts of their rows events
    for path, start, stop, formats_at in segments:
        try:
            for item in read_binlog(path, start, stop, formats_at=formats_at):
                yield from _item_rows(item, mapper, pending, path)
        except NotABinlog as err:
            yield from _flush(pending)
            yield "dead", (str(err), None, path, None, None)
        except OSError as err:
            yield from _flush(pending)
            yield "dead", (f"{path}: {err.strerror or err}", None, path, None, None)
    yield from _flush(pending)


def _item_rows(item, mapper: EventMapper, pending: list[list[Any]], path: str) -> Iterator[tuple[str, tuple[Any, ...]]]:
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
        for row in reversed(pending):
            if row[-1] is mapped.rows_of:
                row[-2]["rows"] += mapped.row_count or 0
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


def read_binlog_events(spark: SparkSession, path: str, channel: str = "", state: ReplicaState | None = None) -> Ingested:
    """Events and dead letters of the binlog files of ``path``, parsed in parallel. A statement
    whose updating tables are not known (a multi-table UPDATE with unqualified SET columns and
    no ``Q_TABLE_MAP_FOR_UPDATE``) is decided by ``state``'s rules where they decide it, as
    ``evaluate`` decides it (:func:`.sql_tables.decide_unknown_updating`); else it is a dead letter."""
    paths = binlog_paths(path)
    if not paths:
        empty = spark.sparkContext.emptyRDD()
        return Ingested(spark.createDataFrame(empty, INGESTED_SCHEMA), spark.createDataFrame(empty, DEAD_LETTER_SCHEMA))
    tagged = spark.sparkContext.parallelize(paths, len(paths)).flatMap(lambda p: file_rows(p, channel))
    tagged = tagged.persist()  # one parse of each file feeds both frames
    events = spark.createDataFrame(tagged.filter(lambda t: t[0] == "event").map(lambda t: t[1]), INGESTED_SCHEMA)
    dead = spark.createDataFrame(tagged.filter(lambda t: t[0] == "dead").map(lambda t: t[1]), DEAD_LETTER_SCHEMA)
    # (a dead letter names its file as the reader's do: the record names the log by its base name)
    files = F.create_map(*[F.lit(x) for p in paths for x in (os.path.basename(p), p)])
    decided = decide_unknown_updating(events, state, source=files[F.get_json_object(F.col("record"), "$.log_name")])
    return Ingested(decided.events, dead.unionByName(decided.dead), None)
