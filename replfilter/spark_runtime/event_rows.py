"""Event rows (Parquet, or any DataFrame of :data:`~.schema.EVENT_SCHEMA`) -> events + dead letters.

NULL optional fields take the JSON defaults; rows that are not events (NULL required field,
unknown command, a field of another type set...) are dead letters with ``from_dict``'s message
for the row as a JSON object (NULLs left out), from the reference reader (:mod:`.fallback_reader`).
"""

from __future__ import annotations

from typing import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .event_checks import defaulted_tables, values_ok
from .fallback_reader import parse_in_python, split_python
from .schema import EVENT_COLUMNS, EVENT_SCHEMA, INGESTED_COLUMNS, TABLE_SCHEMA_V1, UPDATING_UNKNOWN, Ingested, source_column


def _row_ok() -> Column:
    """The row is an event. Only the fields of the row's own type are read (a flat Parquet
    schema has every column: a ``gtid`` on a row event, say, is carried along, not an error).
    The check is JSON lines' (:func:`~.event_checks.values_ok`) on the row's own columns;
    array_contains is NULL when a name is NULL, and array_compact drops NULL names (and the
    names of NULL elements), so both kinds of bad element make the row not ok."""
    own = F.struct(*[F.col(c) for c in ("v", "type", "command", "tables", "db", "table", "kind")])
    return F.coalesce(values_ok(own), F.lit(False))


def _current_tables(df: DataFrame) -> DataFrame:
    """``df`` with a ``tables`` column of :data:`~.schema.TABLE_SCHEMA_V1` (written before
    ``updating_unknown`` existed) given that field, NULL: the same events."""
    element = getattr(df.schema["tables"].dataType, "elementType", None)
    if element is None or element.names != TABLE_SCHEMA_V1.names:
        return df
    upgraded = F.transform(F.col("tables"), lambda t: F.struct(
        t["db"].alias("db"), t["table"].alias("table"), t["updating"].alias("updating"),
        F.lit(None).cast("boolean").alias(UPDATING_UNKNOWN)))
    return df.withColumn("tables", upgraded)


def mark_event_rows(
    df: DataFrame, source_col: str | None = None, keep_tables_null: bool = True, channels: Sequence[str] | None = None,
    positioned: bool = False,
) -> DataFrame:
    """Rows of ``EVENT_SCHEMA`` normalized to ``INGESTED_SCHEMA`` plus ``_ok`` (the row is an
    event, checked natively) and ``_source`` — one scan serves events and the dead-letter check.
    Rows with ``_ok`` false go through :func:`rows_fallback`; with ``channels``, so do rows of a
    channel the replica does not have (dead letters that keep their file)."""
    missing = [c for c in EVENT_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"not an event DataFrame: missing column(s) {', '.join(missing)}")
    df = _current_tables(df)
    is_query = F.col("type") == "query"
    tables = F.when(is_query, defaulted_tables(F.col("tables")))
    if not keep_tables_null:
        tables = F.when(is_query, F.coalesce(tables, F.array().cast(EVENT_SCHEMA["tables"].dataType)))
    return df.select(
        F.col("v"),
        F.col("type"),
        F.coalesce(F.col("channel"), F.lit("")).alias("channel"),
        F.when(is_query, F.coalesce(F.col("default_db"), F.lit(""))).alias("default_db"),
        F.col("command"),
        tables.alias("tables"),
        F.col("sql"),
        F.when(is_query, F.coalesce(F.col("temporary"), F.lit(False))).alias("temporary"),
        F.when(is_query, F.coalesce(F.col("if_exists"), F.lit(False))).alias("if_exists"),
        F.col("db"),
        F.col("table"),
        F.col("kind"),
        F.col("gtid"),
        (F.col("record") if "record" in df.columns else F.lit(None).cast("string")).alias("record"),
        (_row_ok() & _known_row_channel(channels)).alias("_ok"),
        source_column(df, source_col).alias("_source"),
        # what from_dict is shown for a bad row: the row as JSON, NULL fields left out
        F.to_json(F.struct(*[F.col(c) for c in EVENT_COLUMNS])).alias("_as_json"),
        # ``positioned``: each row's place (``df`` has ``_block`` and ``_pos``, its row in the file)
        *([F.col("_block"), F.col("_pos")] if positioned else []),
    )


def _known_row_channel(channels: Sequence[str] | None) -> Column:
    if channels is None:
        return F.lit(True)
    return F.coalesce(F.col("channel"), F.lit("")).isin(*channels) if channels else F.lit(False)


def rows_fallback(
    marked: DataFrame, channels: Sequence[str] | None = None, positioned: bool = False, carry_source: bool = False
) -> Ingested:
    """The reference reader on marked rows that failed the native check (``positioned``: the
    events keep ``_source``, ``_block`` and ``_pos``; ``carry_source``: ``_source``)."""
    place = ["_block", "_pos"] if positioned else []
    bad = marked.where(~F.col("_ok")).select(F.col("_as_json").alias("_record"), F.col("_source"), *place)
    return split_python(parse_in_python(bad, "row", channels), positioned=positioned, carry_source=carry_source)


def normalize_event_rows(df: DataFrame, source_col: str | None = None, keep_tables_null: bool = True) -> Ingested:
    """Rows of ``EVENT_SCHEMA`` (e.g. Parquet files) -> events with JSON defaults + dead letters.

    ``tables`` stays NULL when it is NULL (absent), so :mod:`.sql_tables` can derive it from
    ``sql``; pass ``keep_tables_null=False`` to default it to an empty list instead.
    """
    marked = mark_event_rows(df, source_col, keep_tables_null)
    native = marked.where(F.col("_ok")).select(*INGESTED_COLUMNS)
    fallback = rows_fallback(marked)
    return Ingested(native.unionByName(fallback.events), fallback.dead)
