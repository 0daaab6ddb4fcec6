"""Input records -> event rows of the published schema, and dead letters for the rest.

Four inputs, one result (:class:`Ingested`: ``events`` with :data:`~.schema.INGESTED_SCHEMA`,
``dead`` with :data:`~.schema.DEAD_LETTER_SCHEMA`); nothing is dropped silently, nothing stops.
Each input has its reader, and this module reads files with them (:func:`read_events`):

* **Event JSON lines** (:mod:`.json_lines`) — read exactly as ``replfilter evaluate`` reads them;
  :func:`read_events` reads the row and transaction events with string functions and parses
  only the other lines, each step kept (a local checkpoint), so both passes of
  ``apply_filters`` read checked rows.
* **Event rows** (:mod:`.event_rows`) — Parquet (or any DataFrame) of :data:`~.schema.EVENT_SCHEMA`.
* **Debezium MySQL change events** (:mod:`.debezium`).
* **Binary and relay logs** (:mod:`.binlog_files`).

Records the native checks refuse go to the reference reader (:mod:`.fallback_reader`).
:func:`split_unknown_channels` then moves events of channels the replica does not have to the
dead letters (per batch, against the state of that batch).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from ..replica.state import ReplicaState
from .debezium import parse_debezium
from .fallback_reader import number_dead_letters
from .event_rows import mark_event_rows, normalize_event_rows, rows_fallback
from .json_lines import checked_lines, lines_fallback, parse_event_lines, shaped_lines
from .schema import DEAD_LETTER_SCHEMA, EVENT_COLUMNS, INGESTED_COLUMNS, INGESTED_SCHEMA, Ingested
from .sql_tables import decide_unknown_updating, needs_sql_tables, resolve_sql_tables
from .source_schemas import SourceSchemas


# --- channels ----------------------------------------------------------------------------------


def split_unknown_channels(ingested: Ingested, state: ReplicaState) -> Ingested:
    """Events of channels the replica does not have become dead letters (the message is the
    evaluator's ``UnknownChannelError``); the record is kept, or the event as JSON."""
    known = list(state.channel_names)
    ok = F.col("channel").isin(*known) if known else F.lit(False)
    events = ingested.events.where(ok)
    unknown = ingested.events.where(~ok)
    event_json = F.to_json(F.struct(*[F.col(c) for c in EVENT_COLUMNS]))
    dead = unknown.select(
        F.concat(F.lit("event for channel '"), F.col("channel"), F.lit("', which does not exist on this replica")).alias("reason"),
        F.coalesce(F.col("record"), event_json).alias("record"),
        F.lit(None).cast("string").alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
    )
    return Ingested(events, ingested.dead.unionByName(dead))


# --- files -------------------------------------------------------------------------------------

FORMATS = ("json", "parquet", "debezium", "binlog")


def read_events(
    spark, path: str, fmt: str = "json", channel: str = "", resolve_sql: bool = True, state: ReplicaState | None = None
) -> Ingested:
    """Read a file or directory of events (``json`` lines, ``parquet``, ``debezium`` JSON, or
    ``binlog``: binary and relay log files, :mod:`.binlog_stream`).

    With ``resolve_sql`` (the default) query events that carry SQL text but no table list (or,
    from Debezium, no command) get them from the text, as the JSON reader of ``replfilter
    evaluate`` does, and a text that cannot be read becomes a dead letter: the events are then
    events in full, ready for :func:`~replfilter.spark_runtime.transform.apply_filters`. Pass
    ``False`` for inputs known to have no such rows, to save the split of the events it costs.
    ``state``: the replica whose sources' schemas (``--schema``) read those texts, as
    ``replfilter evaluate`` reads them (a multi-table UPDATE with unqualified columns is then
    decided rather than a dead letter).
    """
    if fmt == "binlog":  # binary and relay log files: parsed in parallel pieces (binlog_stream.py)
        from .binlog_stream import read_binlog_events

        return read_binlog_events(spark, path, channel, state)
    if fmt == "parquet":
        df = spark.read.schema(_parquet_read_schema()).parquet(path)
        return _read_event_rows(df.withColumn("_file", F.col("_metadata.file_path")), resolve_sql, state)
    if fmt in ("debezium", "json"):
        lines = spark.read.option("lineSep", "\n").text(path).select(
            "value", F.col("_metadata.file_path").alias("_file"), F.col("_metadata.file_block_start").alias("_block")
        )
        if fmt == "debezium":
            return _read_debezium(lines, channel, resolve_sql, state)
        return _read_event_lines(lines, resolve_sql, state)
    raise ValueError(f"unknown input format {fmt!r}; expected one of {', '.join(FORMATS)}")


def _read_event_rows(df: DataFrame, resolve_sql: bool, state: ReplicaState | None) -> Ingested:
    """Parquet event rows: checked natively, the rest by the reference reader; each event keeps
    its file until the SQL-text step and the rows whose updating flag is not known are done, so
    that every dead letter names its file."""
    marked = mark_event_rows(df, source_col="_file")
    fallback = rows_fallback(marked, carry_source=True)
    events = marked.where(F.col("_ok")).select(*INGESTED_COLUMNS, "_source").unionByName(fallback.events)
    if not resolve_sql:
        return Ingested(events.drop("_source"), fallback.dead)
    sources = SourceSchemas.of(state) if state is not None else None
    resolved = resolve_sql_tables(events, sources, state)
    dead = fallback.dead.unionByName(resolved.dead)
    if state is not None:  # rows that carry tables whose updating flag is not known (schema.py)
        decided = decide_unknown_updating(resolved.events, state)
        resolved, dead = decided, dead.unionByName(decided.dead)
    return Ingested(resolved.events.drop("_source"), dead)


def _read_event_lines(lines: DataFrame, resolve_sql: bool, state: ReplicaState | None) -> Ingested:
    """Event JSON lines of files, checked once, now, in two jobs, each kept as a local
    checkpoint (:meth:`DataFrame.localCheckpoint`, on the executors, memory then disk) so that
    ``apply_filters`` reads checked rows instead of checking every line again; Spark releases a
    checkpoint when no DataFrame built on it is left.

    The first job reads the files and every line :mod:`.line_shapes` reads (the row and
    transaction events of a relay log) with string functions alone (:func:`.json_lines.shaped_lines`);
    it counts the others, which the second job, only when there are any, checks with Spark's
    parser (:func:`.json_lines.checked_lines`) from the kept lines, never from the files. That
    job counts the lines it refuses and the events that need their SQL text read (``observe``):
    without any, the events are the accepted lines alone; with some, the reference reader and
    :mod:`.sql_tables` run on the kept lines. Measured in ``bench/spark_ingest.py`` (README,
    "Benchmarks")."""
    shaped, found = _kept_once(shaped_lines(lines, source_col="_file"), doubtful=~F.col("_shaped"))
    numbered = lines.select(
        F.col("_file").cast("string").alias("_source"), "_block", F.monotonically_increasing_id().alias("_pos")
    )
    if not found["doubtful"]:
        empty = lines.sparkSession.createDataFrame([], DEAD_LETTER_SCHEMA)
        return Ingested(shaped.select(*INGESTED_COLUMNS), empty, shaped, numbered)
    doubtful = shaped.where(~F.col("_shaped")).select("value", "_source", "_pos", "_block")
    parsed, _ = checked_lines(doubtful, source_col="_source", query_place=resolve_sql)
    kept, found = _kept_once(parsed, refused=~F.col("_ok"), need_sql=F.col("_ok") & needs_sql_tables())
    # events whose SQL text is read below keep their place (file, block, position in the scan),
    # so that a text found unreadable there is a dead letter naming its file and line
    resolving = resolve_sql and bool(found["refused"] or found["need_sql"])
    place = _PLACE if resolving else ()
    bulk = shaped.where(F.col("_shaped")).select(*INGESTED_COLUMNS, *[F.lit(None).cast(t).alias(c) for c, t in zip(place, _PLACE_TYPES)])
    native = bulk.unionByName(kept.where(F.col("_ok")).select(*INGESTED_COLUMNS, *place))
    if found["refused"]:
        fallback = lines_fallback(kept, None, numbered, positioned=resolving)
        ingested = Ingested(native.unionByName(fallback.events), fallback.dead, kept, numbered)
    else:
        empty = lines.sparkSession.createDataFrame([], DEAD_LETTER_SCHEMA)
        ingested = Ingested(native, empty, kept, numbered)
    if not resolving:
        return ingested
    sources = SourceSchemas.of(state) if state is not None else None
    resolved = resolve_sql_tables(ingested.events, sources, state, carry_dead=_PLACE[1:])
    dead = number_dead_letters(resolved.dead, numbered) if numbered is not None else resolved.dead.drop(*_PLACE[1:])
    return Ingested(resolved.events.drop(*_PLACE), ingested.dead.unionByName(dead), kept, numbered)


_PLACE = ("_source", "_block", "_pos")
"""A line's place: its file, the block of the file it was read in, its position in the scan."""
_PLACE_TYPES = ("string", "long", "long")


def _read_debezium(lines: DataFrame, channel: str, resolve_sql: bool, state: ReplicaState | None) -> Ingested:
    """Debezium envelopes of files, parsed once and kept (a local checkpoint, as
    :func:`_read_event_lines` keeps JSON lines): the SQL texts of schema changes are read only
    when there are any."""
    found: dict = {}

    def keep(table: DataFrame) -> DataFrame:
        kept, counts = _kept_once(table, need_sql=needs_sql_tables())
        found.update(counts)
        return kept

    ingested = parse_debezium(lines, channel=channel, source_col="_file", keep=keep, carry_source=True)
    if not resolve_sql or not found["need_sql"]:
        return Ingested(ingested.events.drop("_source"), ingested.dead, ingested.parsed)
    # the events keep their file until here: a schema change whose text cannot be read names it
    resolved = resolve_sql_tables(ingested.events, SourceSchemas.of(state) if state is not None else None, state)
    return Ingested(resolved.events.drop("_source"), ingested.dead.unionByName(resolved.dead), ingested.parsed)


def _kept_once(frame: DataFrame, **counted: Column) -> tuple[DataFrame, dict[str, int]]:
    """``frame`` computed now and kept on the executors (a local checkpoint: memory, then disk;
    Spark drops it once no DataFrame built on it is left), and how many of its rows each of
    ``counted`` holds for, counted by the same job (``observe``)."""
    counts = Observation("replfilter-ingest")
    observed = frame.observe(counts, *[F.count_if(condition).alias(name) for name, condition in counted.items()])
    kept = observed.localCheckpoint(eager=True)
    return kept, dict(counts.get)


def _parquet_read_schema() -> StructType:
    """The event columns and the optional ``record`` (a row image, say): a file without it
    reads it as NULL, and one with it keeps it through to the outputs."""
    return INGESTED_SCHEMA


__all__ = [
    "FORMATS",
    "Ingested",
    "mark_event_rows",
    "checked_lines",
    "lines_fallback",
    "normalize_event_rows",
    "rows_fallback",
    "parse_debezium",
    "parse_event_lines",
    "read_events",
    "split_unknown_channels",
]
