"""A directory of binary or relay log files as a Structured Streaming source, exactly once.

Spark's file source reads a file once, whole, when it appears; a log is appended to while it is
read. So the source is a Python data source (``spark.readStream.format("replfilter_binlog")``)
whose **offset is a place in the log**: ``{"log": file name, "pos": position, "format_pos":
position of the Format_description in force}``, always the end of a complete transaction
(:mod:`replfilter.evaluation.binlog.tail`). Spark writes a batch's end offset to the checkpoint's
offset log before running the batch and re-runs the same range after a crash; the sink's
manifest (:mod:`.sink`) makes the re-run write nothing twice. So a restart neither applies a
transaction twice nor loses one, and the committed offset is the replica's ``Relay_Log_File``
and ``Relay_Log_Pos``.

* Files are taken in the order of the directory's ``*.index`` file, else in name order
  (:func:`~replfilter.evaluation.binlog.tail.log_files`). A file another one follows is closed
  and read to its end; the last one is read up to its last complete transaction and resumed
  there when more is written (a truncated last event waits, it is not an error).
* A batch's range is parsed in parallel: cut at transaction ends into pieces of about
  :data:`~replfilter.evaluation.binlog.tail.SPLIT_BYTES` (small files together, a big file in
  several; a piece may run from one file into the next), one task each. Each task maps events as
  ``read_events(spark, path, "binlog")`` does (:func:`.binlog_files.segment_rows`; that reads
  the same pieces, with every file closed: :func:`read_binlog_events`).
* A checksum mismatch, an event that does not parse, a file that is not a binlog: a dead letter
  naming file and position (``_reason`` set), and the stream goes on.
* ``maxFilesPerTrigger`` bounds the files a batch reads; ``Trigger.AvailableNow`` reads what the
  files hold when the query starts.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Iterator

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxFiles, SupportsTriggerAvailableNow
from pyspark.sql.types import LongType, StringType, StructField, StructType

from ..evaluation.binlog.framing import NotABinlog
from ..replica.state import ReplicaState
from ..evaluation.binlog.tail import NO_TRANSACTION, SPLIT_BYTES, Cut, Scan, log_files, scan
from .binlog_files import Segment, segment_rows
from .schema import DEAD_LETTER_SCHEMA, INGESTED_COLUMNS, INGESTED_SCHEMA, Ingested
from .sink import join_path
from .source_schemas import SourceSchemas
from .sql_tables import decide_unknown_updating

SOURCE_NAME = "replfilter_binlog"
SOURCE_SCHEMA = StructType([
    *INGESTED_SCHEMA.fields,
    StructField("_file", StringType(), True),
    StructField("_block", LongType(), True),
    StructField("_pos", LongType(), True),
    StructField("_reason", StringType(), True),
])
"""Event rows (:data:`~.schema.INGESTED_SCHEMA`), where they come from (file, the piece's start
and the row's place in it: file order), and for a dead letter why (its event columns NULL,
``record`` what is known of the place)."""

START = {"log": "", "pos": 4, "format_pos": 4}
"""Before the first file."""


def offset(log: str, cut: Cut) -> dict[str, Any]:
    return {"log": log, "pos": cut.pos, "format_pos": cut.format_pos}


@dataclass(frozen=True)
class LogPiece(InputPartition):
    """One task's read: from one transaction end to another, through the files between them
    (:data:`.binlog_files.Segment` each)."""

    segments: tuple[Segment, ...]
    channel: str
    decode_rows: bool = False
    schemas: SourceSchemas | None = None
    """With ``decode_rows``: the sources' schemas, naming the columns the binlog leaves unnamed."""


class BinlogSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> StructType:
        return SOURCE_SCHEMA

    def streamReader(self, schema: StructType) -> "BinlogStreamReader":
        return BinlogStreamReader(self.options)


class BinlogStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets as described in the module docstring. The scans a planning step made are kept
    until the next commit, so a trigger with nothing new reads no file again."""

    def __init__(self, options: dict[str, str]):
        self.directory = options["path"]
        self.channel = options.get("channel", "")
        self.decode_rows = options.get("rows", "false") == "true"
        self.schemas = SourceSchemas.from_json(options["sourceSchemas"]) if options.get("sourceSchemas") else None
        self.all_closed = options.get("closed", "false") == "true"
        self.max_files = int(options.get("maxFilesPerTrigger") or 0) or None
        self.split_bytes = int(options.get("splitBytes") or SPLIT_BYTES)
        self._until: dict[str, int] | None = None
        self._scans: dict[tuple, tuple[int, Scan]] = {}

    def initialOffset(self) -> dict:
        return dict(START)

    def getDefaultReadLimit(self):
        return ReadMaxFiles(self.max_files) if self.max_files else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        """What the files hold now is all this query reads: their list and sizes."""
        self._until = {}
        for path in self._files(all_now=True):
            try:
                self._until[os.path.basename(path)] = os.path.getsize(path)
            except OSError:  # gone meanwhile: not part of what this query reads
                continue

    def latestOffset(self, start: dict, limit) -> dict:
        max_files = limit.max_files if isinstance(limit, ReadMaxFiles) else None
        end = dict(start)
        taken = 0
        for path, _begin, found in self._walk(start, self._files()):
            if found.last is not None:
                end = offset(os.path.basename(path), found.last)
                taken += 1
                if max_files is not None and taken >= max_files:
                    break
        return end

    def partitions(self, start: dict, end: dict) -> list[LogPiece]:
        """The range from ``start`` to ``end`` in pieces of about ``splitBytes`` (cut at
        transaction ends), each read by one task."""
        if start == end:
            return []
        walked = []
        for path, begin, found in self._walk(start, self._files(all_now=True)):
            walked.append((path, begin, found))
            if os.path.basename(path) == end["log"]:
                break
        if not walked:
            return []
        last = len(walked) - 1
        end_cut = Cut(end["pos"], end["format_pos"])
        bounds = [(0, walked[0][1])]
        done = 0  # bytes before the file being looked at
        since = 0  # bytes since the last bound
        for i, (_path, begin, found) in enumerate(walked):
            for cut in found.cuts:
                if i == last and cut.pos >= end_cut.pos:
                    break
                if done + cut.pos - begin.pos - since >= self.split_bytes:
                    bounds.append((i, cut))
                    since = done + cut.pos - begin.pos
            done += found.size - begin.pos
        bounds.append((last, end_cut))
        pieces = []
        for (i, here), (j, there) in zip(bounds, bounds[1:]):
            segments = []
            for k in range(i, j + 1):
                path, begin, found = walked[k]
                at = here if k == i else begin
                stop = there.pos if k == j else None
                if (stop is not None and stop <= at.pos) or (stop is None and at.pos >= found.size):
                    continue
                segments.append((path, at.pos, stop, at.formats_at))
            if segments:
                pieces.append(LogPiece(tuple(segments), self.channel, self.decode_rows, self.schemas))
        return pieces

    def read(self, partition: LogPiece) -> Iterator[tuple]:
        return piece_rows(partition)

    def commit(self, end: dict) -> None:
        self._scans.clear()

    # -- helpers -------------------------------------------------------------------------------

    def _files(self, all_now: bool = False) -> list[str]:
        if os.path.isfile(self.directory):  # one file (read_events)
            return [self.directory]
        files = _listed(self.directory)
        if self._until is not None and not all_now:
            files = [p for p in files if os.path.basename(p) in self._until]
        return files

    def _walk(self, start: dict, files: list[str]) -> Iterator[tuple[str, Cut, Scan]]:
        """The files from ``start`` on, each scanned from where its read begins; a transaction
        open at the end of a closed file is carried into the next one; the last file is still
        being written, and nothing after a file that is not closed is read."""
        carried = NO_TRANSACTION
        for path, begin in _remaining(files, start):
            closed = path != files[-1] or self.all_closed
            found = self._scan(path, begin, closed, carried)
            yield path, begin, found
            if not closed:
                return
            carried = found.open_at_end

    def _scan(self, path: str, begin: Cut, closed: bool, carried: int) -> Scan:
        """The transaction ends of ``path`` after ``begin`` (see :func:`.tail.scan`), as far
        as an AvailableNow query may read; a file that cannot be read has none, and is closed
        by the file after it (its problem is a dead letter when its piece is read)."""
        limit = self._until.get(os.path.basename(path)) if self._until is not None else None
        try:
            size = os.path.getsize(path)
        except OSError:
            return Scan((), None, 0)
        key = (path, begin, closed, limit, carried)
        cached = self._scans.get(key)
        if cached is not None and cached[0] == size:
            return cached[1]
        try:
            found = scan(path, begin, closed, self.split_bytes, limit, carried)
        except (NotABinlog, OSError):
            found = Scan((Cut(size, 4),) if closed else (), None, size)
        self._scans[key] = (size, found)
        return found


def _listed(directory: str) -> list[str]:
    """The directory's log files; none while it cannot be listed (removed, no permission): the
    stream waits rather than fails, as a replica's SQL thread waits for its relay log."""
    try:
        return log_files(directory) if os.path.isdir(directory) else []
    except OSError:
        return []


def _remaining(files: list[str], start: dict) -> Iterator[tuple[str, Cut]]:
    """The files from ``start`` on, each with the place its read begins at. A start file no
    longer listed (purged) is followed by the files whose names sort after it."""
    log = start["log"]
    names = [os.path.basename(p) for p in files]
    if log == "":
        later = 0
    elif log in names:
        at = names.index(log)
        yield files[at], Cut(start["pos"], start["format_pos"])
        later = at + 1
    else:
        later = next((i for i, name in enumerate(names) if name > log), len(names))
    for path in files[later:]:
        yield path, Cut()


def piece_rows(piece: LogPiece) -> Iterator[tuple]:
    """The rows of one piece in :data:`SOURCE_SCHEMA` (runs on an executor)."""
    blank = (None,) * len(INGESTED_COLUMNS[:-1])
    first_path, first_start = piece.segments[0][0], piece.segments[0][1]
    for ordinal, (tag, row) in enumerate(segment_rows(piece.segments, piece.channel, piece.decode_rows, piece.schemas)):
        if tag == "event":
            yield (*row, first_path, first_start, ordinal, None)
            continue
        reason, record, path = row[0], row[1], row[2]
        where = json.loads(record).get("pos") if record else None
        name = os.path.basename(path)
        text = reason if reason.startswith((f"{path}:", f"{name}:")) else (
            f"{name}: at {where}: {reason}" if where is not None else f"{name}: {reason}"
        )
        yield (*blank, record, path, first_start, ordinal, text)


def binlog_source(
    spark, events_dir: str, channel: str = "", max_files: int | None = None, split_bytes: int | None = None,
    decode_rows: bool = False, schemas: SourceSchemas | None = None,
) -> DataFrame:
    """The streaming DataFrame of :data:`SOURCE_SCHEMA` over ``events_dir``; ``decode_rows``
    puts the row images in each Table_map row's ``record`` (``values``), their columns named
    as ``evaluate --rows`` names them (the binlog's metadata, else ``schemas``, else ``col_N``)."""
    spark.dataSource.register(BinlogSource)
    reader = spark.readStream.format(SOURCE_NAME).option("path", events_dir).option("channel", channel)
    reader = reader.option("rows", "true" if decode_rows else "false")
    if decode_rows and schemas is not None:
        reader = reader.option("sourceSchemas", schemas.to_json())
    if split_bytes:
        reader = reader.option("splitBytes", str(split_bytes))
    if max_files:
        reader = reader.option("maxFilesPerTrigger", str(max_files))
    return reader.load()


def split_log_rows(df: DataFrame) -> tuple[DataFrame, DataFrame]:
    """A batch's rows: the events (with ``_file``, ``_block``, ``_pos``), and the dead letters
    in :data:`~.schema.DEAD_LETTER_SCHEMA`."""
    events = df.where(F.col("_reason").isNull()).drop("_reason")
    dead = df.where(F.col("_reason").isNotNull()).select(
        F.col("_reason").alias("reason"),
        F.col("record"),
        F.col("_file").alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
    )
    return events, dead


def batch_position(store, checkpoint_dir: str, directory: str, batch_id: int) -> tuple[list[str], dict | None]:
    """The log files batch ``batch_id`` read and where it ended (its offset in the checkpoint's
    offset log, written before the batch ran)."""
    end = _logged_offset(store, checkpoint_dir, batch_id)
    if end is None:
        return [], None
    start = (_logged_offset(store, checkpoint_dir, batch_id - 1) if batch_id > 0 else None) or START
    names = []
    files = _listed(directory)
    for path, _begin in _remaining(files, start):
        names.append(os.path.basename(path))
        if names[-1] == end["log"]:
            break
    return names, end


def _logged_offset(store, checkpoint_dir: str, batch_id: int) -> dict | None:
    text = store.read_text(join_path(checkpoint_dir, "offsets", str(batch_id)))
    if text is None:
        return None
    lines = text.splitlines()
    if len(lines) < 3:
        return None
    try:
        found = json.loads(lines[2])
        return json.loads(found) if isinstance(found, str) else found
    except ValueError:
        return None


def read_binlog_events(spark, path: str, channel: str = "", state: ReplicaState | None = None) -> Ingested:
    """``read_events(spark, path, "binlog")``: the events and dead letters of a file or of a
    directory's log files (in its index's order) as they are now, the last file read to its end
    (a truncated last event is a dead letter), parsed in parallel in the stream's pieces, so a
    transaction a relay log continues in its next file is read by one task. A statement whose
    updating tables are not known (a multi-table UPDATE with unqualified SET columns and no
    ``Q_TABLE_MAP_FOR_UPDATE``) is decided by ``state``'s rules where they decide it, as
    ``evaluate`` decides it (:func:`.sql_tables.decide_unknown_updating`); else it is a dead
    letter."""
    reader = BinlogStreamReader({"path": path, "channel": channel, "closed": "true"})
    files = reader._files()
    # to the very end, a transaction left open there included (a crashed writer's)
    end = {"log": os.path.basename(files[-1]), "pos": os.path.getsize(files[-1]), "format_pos": 4} if files else START
    pieces = reader.partitions(dict(START), end)
    if not os.path.exists(path):  # one dead letter saying so
        pieces = [LogPiece(((path, 4, None, ()),), channel)]
    if not pieces:
        empty = spark.sparkContext.emptyRDD()
        return Ingested(spark.createDataFrame(empty, INGESTED_SCHEMA), spark.createDataFrame(empty, DEAD_LETTER_SCHEMA))
    tagged = spark.sparkContext.parallelize(pieces, len(pieces)).flatMap(lambda p: segment_rows(p.segments, p.channel))
    tagged = tagged.persist()  # one parse of each piece feeds both frames
    events = spark.createDataFrame(tagged.filter(lambda t: t[0] == "event").map(lambda t: t[1]), INGESTED_SCHEMA)
    dead = spark.createDataFrame(tagged.filter(lambda t: t[0] == "dead").map(lambda t: t[1]), DEAD_LETTER_SCHEMA)
    # (a dead letter names its file as the reader's do: the record names the log by its base name)
    names = F.create_map(*[F.lit(x) for p in (files or [path]) for x in (os.path.basename(p), p)])
    decided = decide_unknown_updating(events, state, source=names[F.get_json_object(F.col("record"), "$.log_name")])
    return Ingested(decided.events, dead.unionByName(decided.dead), None)


def unread(directory: str, position: dict | None) -> str | None:
    """The log file in which complete transactions wait after ``position`` (None: caught up)."""
    from pyspark.sql.streaming.datasource import ReadAllAvailable

    start = position or START
    end = BinlogStreamReader({"path": directory}).latestOffset(dict(start), ReadAllAvailable())
    return None if end == start else end["log"]
