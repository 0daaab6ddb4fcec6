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

One field has no JSON key: ``tables[].updating_unknown``. True says that whether the table is
updating is not known (a candidate owner of an unqualified SET column of a multi-table UPDATE
read without the source's schema: :class:`~replfilter.evaluation.events.TableRef` with
``updating=None``, written ``"updating": null`` in ``evaluate``'s output); ``updating`` is then
NULL and means nothing. NULL or false: ``updating`` says it, NULL meaning true as before. So a
file written before the field existed (no such field) reads the same, and a DataFrame built
with the earlier table entry (:data:`TABLE_SCHEMA_V1`) is still an event frame. The JSON
reader refuses the key, as ``evaluate``'s does: only the readers of SQL text and binlogs set
it (:mod:`.sql_tables`, :mod:`.binlog_files`).

``record`` is not part of the event: it carries the original input record when the input has
more than the event (a Debezium envelope with ``before``/``after``), so the applied output still
holds the data. It is NULL for event files.

Outputs add :data:`DECISION_COLUMNS` (see :mod:`.transform`) and, in the streaming sink, the
``batch_id`` partition column. Dead letters have :data:`DEAD_LETTER_SCHEMA`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

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

from ..evaluation.events import TableRef

UPDATING_UNKNOWN = "updating_unknown"

TABLE_SCHEMA = StructType(
    [
        StructField("db", StringType(), True),
        StructField("table", StringType(), True),
        StructField("updating", BooleanType(), True),
        StructField(UPDATING_UNKNOWN, BooleanType(), True),
    ]
)
"""One entry of a query event's table list (the module docstring says what each field means)."""

TABLE_SCHEMA_V1 = StructType(TABLE_SCHEMA.fields[:3])
"""The table entry before ``updating_unknown``: a DataFrame built with it is still an event
frame (the missing field is NULL: ``updating`` says it all)."""


def table_values(ref: TableRef) -> dict[str, Any]:
    """A table reference as a :data:`TABLE_SCHEMA` value (``updating=None``: unknown)."""
    unknown = ref.updating is None
    return {"db": ref.db, "table": ref.table, "updating": None if unknown else ref.updating,
            UPDATING_UNKNOWN: True if unknown else None}


def table_ref(value: Any) -> TableRef:
    """A :data:`TABLE_SCHEMA` (or :data:`TABLE_SCHEMA_V1`) value, as a dict, Row or tuple, as a
    table reference: NULL ``updating`` is true, unless ``updating_unknown`` (then None)."""
    if isinstance(value, Mapping):
        db, table, updating, unknown = value["db"], value["table"], value["updating"], value.get(UPDATING_UNKNOWN)
    else:
        db, table, updating, *rest = tuple(value)
        unknown = rest[0] if rest else None
    return TableRef(db, table, None if unknown else (True if updating is None else bool(updating)))

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
