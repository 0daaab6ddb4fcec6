"""The reference reader, in Python, on the records the native checks of :mod:`.json_lines`
and :mod:`.event_rows` refuse: it decides them exactly as ``replfilter evaluate`` reads a line
(:func:`~replfilter.evaluation.event_lines.read_line`) or ``from_dict`` reads a row, so a refused
record is never lost, only slower. Its events keep the reader's values, its refusals become dead
letters with the reader's message, each numbered by its line in its file."""

from __future__ import annotations

import json
from typing import Iterator, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType
from pyspark.sql.window import Window

from .schema import INGESTED_COLUMNS, INGESTED_SCHEMA, UPDATING_UNKNOWN, Ingested

_TYPE_FIELDS = {
    "query": ("v", "type", "channel", "default_db", "command", "tables", "sql", "temporary", "if_exists"),
    "row": ("v", "type", "channel", "db", "table"),
    "transaction": ("v", "type", "channel", "kind", "gtid"),
}


def _python_parse_schema() -> StructType:
    return StructType([
        *INGESTED_SCHEMA.fields,
        StructField("_error", StringType(), True),
        StructField("source_file", StringType(), True),
        StructField("record_bytes", BinaryType(), True),
        StructField("_pos", LongType(), True),
        StructField("_block", LongType(), True),
    ])


def parse_in_python(df: DataFrame, how: str, channels: Sequence[str] | None = None) -> DataFrame:
    """The reference reader on the records native parsing could not accept. ``how`` is
    ``"json"`` (column ``_record``: the line's bytes, read by
    :func:`~replfilter.evaluation.event_lines.read_line` as ``replfilter evaluate`` reads it) or
    ``"row"`` (``_record``: the row as JSON with NULL fields left out). Output: event columns,
    ``record``, ``_error``, ``source_file``, ``record_bytes`` (a line that is not UTF-8).
    ``channels``: the replica's channels; an event of another is refused with the evaluator's
    message, its record as read."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    out_schema = _python_parse_schema()
    arrow_schema = to_arrow_schema(out_schema)

    def run(batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        from replfilter.evaluation.evaluator import UnknownChannelError as _Unknown
        from replfilter.evaluation.event_json import UnknownTables as _UnknownTables
        from replfilter.evaluation.event_json import from_dict as _from_dict
        from replfilter.evaluation.event_lines import read_line as _read_line

        known = None if channels is None else frozenset(channels)

        for batch in batches:
            records = batch.column("_record").to_pylist()
            sources = batch.column("_source").to_pylist()
            names = batch.schema.names
            positions = batch.column("_pos").to_pylist() if "_pos" in names else [None] * len(records)
            blocks = batch.column("_block").to_pylist() if "_block" in names else [None] * len(records)
            rows = []
            for record, source, position, block in zip(records, sources, positions, blocks):
                row = {name: None for name in out_schema.names}
                row["source_file"] = source
                row["_pos"], row["_block"] = position, block
                try:
                    try:
                        if how == "json":
                            event = _read_line(record)
                            if event is None:  # blank once its byte order mark is gone: skipped
                                continue
                        else:  # a Parquet row: the fields of its own type, NULLs left out
                            data = json.loads(record)
                            own = _TYPE_FIELDS.get(data.get("type"))
                            for t in data.get("tables") or ():  # a field of the row form only
                                if isinstance(t, dict):
                                    t.pop(UPDATING_UNKNOWN, None)
                            event = _from_dict({k: v for k, v in data.items() if own is None or k in own})
                    except _UnknownTables as err:  # an event: its text is read again (sql_tables.py)
                        event = err.event
                    if known is not None and event.channel not in known:
                        raise _Unknown(event.channel)
                except ValueError as err:  # not UTF-8, not JSON, not an event
                    row["_error"] = str(err)
                    if isinstance(record, bytes):
                        row["record"] = record.decode("utf-8", "replace")
                        row["record_bytes"] = None if row["record"].encode("utf-8") == record else record
                    else:
                        row["record"] = record
                else:
                    row.update(event.to_dict())
                    if row["type"] == "query" and "tables" not in json.loads(record):
                        row["tables"] = None  # absent in the record: sql_tables may derive it
                rows.append(row)
            yield pa.RecordBatch.from_pylist(rows, schema=arrow_schema)

    return df.mapInArrow(run, out_schema)


def split_python(
    parsed: DataFrame, lines: DataFrame | None = None, positioned: bool = False, carry_source: bool = False
) -> Ingested:
    """The reference reader's events and dead letters (numbered from ``lines`` when given).
    ``positioned``: the events keep their file and place (``_source``, ``_block``, ``_pos``);
    ``carry_source``: their file only."""
    if positioned:
        carried = [F.col("source_file").alias("_source"), "_block", "_pos"]
    else:
        carried = [F.col("source_file").alias("_source")] if carry_source else []
    events = parsed.where(F.col("_error").isNull()).select(*INGESTED_COLUMNS, *carried)
    dead = parsed.where(F.col("_error").isNotNull())
    if lines is None:
        line = F.lit(None).cast("long")
    else:
        dead = _with_line_numbers(dead, lines)
        line = F.col("_line")
    dead = dead.select(
        F.col("_error").alias("reason"), F.col("record"), F.col("source_file"), line.alias("line"), F.col("record_bytes")
    )
    return Ingested(events, dead)


def number_dead_letters(dead: DataFrame, lines: DataFrame) -> DataFrame:
    """Dead letters (``DEAD_LETTER_SCHEMA`` columns plus the ``_block`` and ``_pos`` of their
    line) with ``line`` set from ``lines`` (:attr:`Ingested.lines`), as :func:`split_python`
    numbers its own."""
    numbered = _with_line_numbers(dead, lines)
    return numbered.select("reason", "record", "source_file", F.col("_line").alias("line"), "record_bytes")


def _with_line_numbers(dead: DataFrame, lines: DataFrame) -> DataFrame:
    """``_line``: each dead letter's line number in its file, 1-based, blank lines counted.

    Lines get consecutive positions within a partition as they are scanned (``_pos``, taken
    before any filter), and a file's lines are read block by block (``_block``: the byte offset
    the block starts at), each block within one partition. So a line's number is its position
    minus its block's first, plus the lines of the file's earlier blocks. Only batches with dead
    letters pay for it: one more aggregate over their lines, a few rows per file."""
    blocks = lines.groupBy(F.col("_source").alias("_in_file"), F.col("_block").alias("_in_block")).agg(
        F.min("_pos").alias("_first"), F.count(F.lit(1)).alias("_n")
    )
    earlier = Window.partitionBy("_in_file").orderBy("_in_block").rowsBetween(Window.unboundedPreceding, -1)
    blocks = blocks.withColumn("_before", F.coalesce(F.sum("_n").over(earlier), F.lit(0)))
    keys = F.col("source_file").eqNullSafe(F.col("_in_file")) & (F.col("_block") == F.col("_in_block"))
    joined = dead.join(F.broadcast(blocks), keys, "left")
    return joined.withColumn("_line", F.col("_pos") - F.col("_first") + 1 + F.col("_before"))
