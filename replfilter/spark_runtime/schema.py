"""The published Spark schema of replication events (event JSON version 1 as rows).

One flat row type holds all three event types of :mod:`replfilter.evaluation.events`; the
``type`` column says which fields mean something:

========== ============================================================================
type       fields
========== ============================================================================
query      channel, default_db, command, tables, sql, temporary, if_exists
row        channel, db, table
transaction channel, kind, gtid
========== ============================================================================

Column names and meanings are those of the JSON keys, so ``spark.read.schema(EVENT_SCHEMA)``
reads Parquet written from the JSON form and ``df.write.parquet`` writes files any reader of
this schema understands. The fields that do not belong to a row's type are NULL. Optional
fields that are NULL take the JSON defaults (``channel`` and ``default_db`` ``""``, ``tables``
empty, ``temporary``/``if_exists`` false, ``updating`` true).

``record`` is not part of the event: it carries the original input record when the input has
more than the event (a Debezium envelope with ``before``/``after``), so the applied output still
holds the data. It is NULL for event files.

Outputs add :data:`DECISION_COLUMNS` (see :mod:`.transform`) and, in the streaming sink, the
``batch_id`` partition column. Dead letters have :data:`DEAD_LETTER_SCHEMA`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    LongType,
    StringType,
    StructField,
    StructType,
)

TABLE_SCHEMA = StructType(
    [
        StructField("db", StringType(), True),
        StructField("table", StringType(), True),
        StructField("updating", BooleanType(), True),
    ]
)

EVENT_FIELDS: tuple[StructField, ...] = (
    StructField("v", LongType(), True),
    StructField("type", StringType(), True),
    StructField("channel", StringType(), True),
    StructField("default_db", StringType(), True),
    StructField("command", StringType(), True),
    StructField("tables", ArrayType(TABLE_SCHEMA, True), True),
    StructField("sql", StringType(), True),
    StructField("temporary", BooleanType(), True),
    StructField("if_exists", BooleanType(), True),
    StructField("db", StringType(), True),
    StructField("table", StringType(), True),
    StructField("kind", StringType(), True),
    StructField("gtid", StringType(), True),
)
EVENT_SCHEMA = StructType(list(EVENT_FIELDS))
"""Event rows as read from event files (JSON lines or Parquet)."""

EVENT_COLUMNS: tuple[str, ...] = tuple(f.name for f in EVENT_FIELDS)

RECORD_FIELD = StructField("record", StringType(), True)
INGESTED_SCHEMA = StructType([*EVENT_FIELDS, RECORD_FIELD])
"""What :mod:`.ingest` produces: the event columns plus the original ``record`` (or NULL)."""
INGESTED_COLUMNS: tuple[str, ...] = tuple(f.name for f in INGESTED_SCHEMA.fields)

DECISION_FIELDS: tuple[StructField, ...] = (
    StructField("decision", StringType(), True),
    StructField("filter_type", StringType(), True),
    StructField("filter_rule", StringType(), True),
    StructField("rewritten_db", StringType(), True),
)
DECISION_COLUMNS: tuple[str, ...] = tuple(f.name for f in DECISION_FIELDS)
"""``decision`` (APPLY/SKIP), ``filter_type`` (e.g. REPLICATE_DO_TABLE, NULL when a default
decided), ``filter_rule`` (the deciding rule as shown in SHOW REPLICA STATUS) and
``rewritten_db`` (the REPLICATE_REWRITE_DB target when a rewrite rule matched)."""

DEAD_LETTER_SCHEMA = StructType(
    [
        StructField("reason", StringType(), False),
        StructField("record", StringType(), True),
        StructField("source_file", StringType(), True),
        StructField("line", LongType(), True),
        StructField("record_bytes", BinaryType(), True),
    ]
)
"""A record that is not an event (or names an unknown channel): why, and the record as read
(the JSON line, or the Parquet row as JSON), the file it came from and, for a line of a JSON
file, its line number (counted as ``wc -l`` and ``replfilter evaluate`` count). A line that is not UTF-8 text keeps its exact bytes
in ``record_bytes`` (``record`` then shows them with U+FFFD for each byte that is not UTF-8);
``record_bytes`` is NULL for every other dead letter."""


@dataclass
class Ingested:
    """Events (``INGESTED_SCHEMA``) and dead letters (``DEAD_LETTER_SCHEMA``), both lazy; what
    every reader of :mod:`.ingest` and :mod:`.sql_tables` returns. ``parsed`` is the parsed input
    a reader kept (``keep``), when it kept one."""

    events: DataFrame
    dead: DataFrame
    parsed: DataFrame | None = None
    lines: DataFrame | None = None
    """Every line read (blank ones too), with its file, file block and position in the scan: what
    the line numbers of dead letters are counted from."""


def ddl(schema: StructType) -> str:
    """The schema as a DDL string (what ``spark.read.schema`` also accepts)."""
    return schema.simpleString()[len("struct<") : -1]


def source_column(df: DataFrame, source_col: str | None) -> Column:
    """The column naming each record's file (``source_col``) as a string, NULL without one: what
    dead letters keep in ``source_file``."""
    return F.col(source_col).cast("string") if source_col else F.lit(None).cast("string")
