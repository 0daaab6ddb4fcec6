"""Debezium MySQL change events (JSON envelopes) -> events + dead letters.

The envelope, with or without the converter's ``schema``/``payload`` wrapper: ``op`` c/u/d/r ->
a row event on ``source.db``/``source.table`` (a snapshot read ``r`` is treated like an insert);
``op`` t (TRUNCATE) -> a TRUNCATE query event on that table; a schema change event (``ddl``,
``databaseName``) -> a query event whose command and tables come from the DDL text
(:mod:`.sql_tables`); transaction metadata (``status`` BEGIN/END) -> BEGIN/COMMIT transaction
events. The whole record is kept in ``record`` (``before``/``after`` included). Tombstones (a
null value after a delete) are not change events: dead letters, so they are counted, not lost.
Debezium has no replication channel: all events go to ``channel``.
"""

from __future__ import annotations

from typing import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .schema import INGESTED_COLUMNS, UPDATING_UNKNOWN, Ingested, source_column


def parse_debezium(
    df: DataFrame,
    value_col: str = "value",
    channel: str = "",
    source_col: str | None = None,
    keep: Callable[[DataFrame], DataFrame] | None = None,
    positioned: bool = False,
    carry_source: bool = False,
) -> Ingested:
    """Debezium MySQL change events (JSON text per row; Kafka ``value`` cast to string works).
    ``keep`` (e.g. a local checkpoint) is applied to the parsed records, events and dead letters
    together (columns of ``INGESTED_SCHEMA`` plus ``_kind`` and ``_source``), so that both come
    from one parse; the kept frame is ``Ingested.parsed``. ``positioned``: ``df`` has ``_block``
    and ``_pos`` (each record's place), kept on the events with ``_source``; ``carry_source``:
    the events keep ``_source`` (the file a later dead letter names)."""
    src = source_column(df, source_col)
    place = ["_block", "_pos"] if positioned else []
    records = df.select(F.col(value_col).cast("string").alias("_record"), src.alias("_source"), *place)
    j = F.expr("try_parse_json(_record)")
    parsed = records.withColumn("_j0", j).withColumn(
        "_j",
        F.when(F.expr("variant_get(_j0, '$.payload') is not null and variant_get(_j0, '$.schema') is not null"),
               F.expr("variant_get(_j0, '$.payload')")).otherwise(F.col("_j0")),
    )

    def get(path: str) -> Column:
        return F.expr(f"try_variant_get(_j, '{path}', 'string')")

    op, db, table = get("$.op"), get("$.source.db"), get("$.source.table")
    ddl, database_name, status = get("$.ddl"), get("$.databaseName"), get("$.status")
    null_value = F.col("_record").isNull() | (F.trim(F.col("_record")).isin("", "null")) | F.expr(
        "_j0 is not null and is_variant_null(_j)"
    )
    kind = (
        F.when(null_value, "tombstone")
        .when(F.col("_j").isNull(), "bad_json")
        .when(op.isin("c", "u", "d", "r") & db.isNotNull() & table.isNotNull(), "row")
        .when(op.isin("c", "u", "d", "r"), "row_without_table")
        .when((op == "t") & db.isNotNull() & table.isNotNull(), "truncate")
        .when(op.isNull() & ddl.isNotNull(), "ddl")
        .when(op.isNull() & status.isin("BEGIN", "END"), "transaction")
        .otherwise("unknown")
    )
    parsed = parsed.withColumn("_kind", kind)
    null = F.lit(None).cast("string")
    ch = F.lit(channel)
    table_list = F.array(F.struct(db.alias("db"), table.alias("table"), F.lit(True).alias("updating"),
                                  F.lit(None).cast("boolean").alias(UPDATING_UNKNOWN)))
    is_kind = F.col("_kind")
    rows = parsed.select(
        F.lit(1).cast("long").alias("v"),
        F.when(is_kind == "row", "row").when(is_kind == "transaction", "transaction").otherwise("query").alias("type"),
        ch.alias("channel"),
        F.when(is_kind == "truncate", db)
        .when(is_kind == "ddl", F.coalesce(database_name, db, F.lit("")))
        .alias("default_db"),
        F.when(is_kind == "truncate", F.lit("TRUNCATE")).otherwise(null).alias("command"),
        F.when(is_kind == "truncate", table_list).alias("tables"),
        F.when(is_kind == "ddl", ddl).when(is_kind == "truncate", get("$.source.query")).alias("sql"),
        F.when(is_kind.isin("truncate", "ddl"), F.lit(False)).alias("temporary"),
        F.when(is_kind.isin("truncate", "ddl"), F.lit(False)).alias("if_exists"),
        F.when(is_kind == "row", db).alias("db"),
        F.when(is_kind == "row", table).alias("table"),
        F.when(is_kind == "transaction", F.when(status == "BEGIN", "BEGIN").otherwise("COMMIT")).alias("kind"),
        F.when(is_kind == "transaction", get("$.id")).alias("gtid"),
        F.col("_record").alias("record"),
        is_kind.alias("_kind"),
        F.col("_source"),
        *place,
    )
    if keep is not None:
        rows = keep(rows)
    is_kind = F.col("_kind")
    carried = ["_source", *place] if positioned or carry_source else []
    events = rows.where(is_kind.isin("row", "truncate", "ddl", "transaction")).select(*INGESTED_COLUMNS, *carried)
    reason = (
        F.when(is_kind == "tombstone", F.lit("Debezium tombstone (null value after a delete): not a change event"))
        .when(is_kind == "bad_json", F.lit("not valid JSON"))
        .when(is_kind == "row_without_table", F.lit("Debezium change event without source.db and source.table"))
        .otherwise(F.lit("not a Debezium change event (no op with source.db/source.table, no ddl, no transaction status)"))
    )
    dead = rows.where(~is_kind.isin("row", "truncate", "ddl", "transaction")).select(
        reason.alias("reason"), F.col("record"), F.col("_source").alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
    )
    return Ingested(events, dead, rows if keep is not None else None)
