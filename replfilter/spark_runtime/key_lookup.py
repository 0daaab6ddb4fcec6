"""Pass 2 of the exact path: each row's outcome code looked up by its key hash, and the four
decision columns from the code.

Plans (chosen in :mod:`.exact_path`, :func:`~.exact_path.choose_plan`): a collision-free
:mod:`.slot_table` of literal arrays (no join: ~0.3 s per 10 M events for two ``element_at``,
against ~1.1 s for a broadcast hash join, which copies every row through its output
projection), a broadcast join of (hash -> code), or a shuffle hash join; keys whose hash
another key of the batch shares are compared on the full key as well. Frames of one outcome
(``applied_events``, the stream's outputs) inner-join against that outcome's keys: a filter on
a looked-up code would be pushed below the projection and recompute the lookups. The four
decision columns come from ``element_at`` on arrays with one entry per distinct outcome,
cheaper than carrying four strings through the join.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StructField, StructType

from . import key_decisions, literals, slot_table
from .key_counts import key_column, key_hash, key_struct
from .key_events import HASH_COLUMN, KEY_COLUMNS
from .schema import DECISION_COLUMNS, DECISION_FIELDS, EVENT_SCHEMA

if TYPE_CHECKING:  # pragma: no cover
    from .transform import BatchDecisions

_KEY_FIELDS = {f.name: f for f in EVENT_SCHEMA.fields}
CODE_COLUMN = "_rf_code"


def _decision_table(df: DataFrame, decisions: BatchDecisions, only: str | None) -> DataFrame:
    """The small table to broadcast: key hash -> outcome code (1-based), plus the full key
    columns when two keys of the batch share a hash. Built in the JVM (no Python worker job)."""
    spark = df.sparkSession
    rows = [
        (h, values, code)
        for h, values, code in decisions.key_rows
        if only is None or decisions.outcomes[code][0] == only
    ]
    if not decisions.collision:
        hashes = literals.primitive_array(spark, [h for h, _, _ in rows], "long")
        codes = literals.primitive_array(spark, [code + 1 for _, _, code in rows], "int")
        if hashes is not None and codes is not None:
            zipped = F.arrays_zip(hashes.alias(HASH_COLUMN), codes.alias(CODE_COLUMN))
            return spark.range(1).select(F.inline(zipped))
        schema = StructType([StructField(HASH_COLUMN, LongType(), False), StructField(CODE_COLUMN, IntegerType(), False)])
        return spark.createDataFrame([(h, code + 1) for h, _, code in rows], schema)
    key_fields = [StructField(f"_rf_k_{c}", _KEY_FIELDS[c].dataType, True) for c in KEY_COLUMNS]
    schema = StructType(
        [StructField(HASH_COLUMN, LongType(), False), *key_fields, StructField(CODE_COLUMN, IntegerType(), False)]
    )
    data = [(h, *(values[c] for c in KEY_COLUMNS), code + 1) for h, values, code in rows]
    return spark.createDataFrame(data, schema)


def outcome_arrays(spark, decisions: BatchDecisions) -> dict[str, Column]:
    """Per decision column, a literal array with one entry per distinct outcome (built in the
    JVM when it can: a batch decided on the executors may have many)."""
    arrays = {}
    for i, (name, fld) in enumerate(zip(DECISION_COLUMNS, DECISION_FIELDS)):
        values = [out[i] for out in decisions.outcomes]
        array = literals.string_array(spark, values)
        if array is None:
            array = F.array(*[F.lit(v).cast(fld.dataType) for v in values]) if values else F.array().cast("array<string>")
        arrays[name] = array
    return arrays


def _outcome_columns(spark, decisions: BatchDecisions) -> dict[str, Column]:
    """code -> the four decision columns, by ``element_at`` on small literal arrays (one entry
    per distinct outcome): cheaper than carrying four strings through the join."""
    return {name: F.element_at(array, F.col(CODE_COLUMN)) for name, array in outcome_arrays(spark, decisions).items()}


def _slot_lookup(keyed: DataFrame, decisions: BatchDecisions) -> DataFrame | None:
    """``keyed`` with the outcome code looked up in a :mod:`.slot_table` (no join), or None when
    that cannot be used: two keys of the batch share a hash, no JVM gateway (Spark Connect) to
    build the literal arrays, or too many keys."""
    if decisions.collision:
        return None
    if not literals.has_jvm(keyed.sparkSession):
        return None
    table = slot_table.build([(h, code + 1) for h, _, code in decisions.key_rows])
    if table is None:
        return None
    return slot_table.with_code(keyed, table, HASH_COLUMN, CODE_COLUMN)


def join_decisions(
    df: DataFrame,
    decisions: BatchDecisions,
    only: str | None = None,
    hash_modulus: int | None = None,
    lookup: str = "slots",
    key: Column | None = None,
) -> DataFrame:
    """Pass 2: add the decision columns. ``only="APPLY"`` (or ``"SKIP"``) keeps just those rows.
    ``key``: each row's key hash, when not :func:`key_hash` (NULL: the row is decided elsewhere).

    ``lookup="slots"`` looks the outcome up in a :mod:`.slot_table` when it can (and joins when
    it cannot); ``"join"`` always uses the broadcast join (kept for Spark Connect, hash
    collisions, and to measure against)."""
    if lookup not in ("slots", "join"):
        raise ValueError(f"lookup must be 'slots' or 'join', not {lookup!r}")
    for name in DECISION_COLUMNS:
        if name in df.columns:
            raise ValueError(f"the input already has a {name!r} column")
    key = key_hash(hash_modulus) if key is None else key
    if only is None:
        return with_outcome_columns(coded_rows(df, decisions, key, lookup), df.columns, decisions)
    if decisions.decided is not None or decisions.slot_entries is not None:
        return _join_executor_decisions(df, decisions, only, key)
    keyed = df.withColumn(HASH_COLUMN, key)
    # Keeping one outcome is an inner join: a filter on a looked-up code would be pushed below
    # the projection by the optimiser and recompute the hash and the lookups in the filter
    # (2.6 s against 2.1 s for the join per 10 M events).
    return with_outcome_columns(_driver_join(df, keyed, decisions, only), df.columns, decisions)


def coded_rows(df: DataFrame, decisions: BatchDecisions, key: Column, lookup: str = "slots") -> DataFrame:
    """``df``'s columns and :data:`CODE_COLUMN`, each row's outcome code (1-based index into
    ``decisions.outcomes``; NULL for a row whose ``key`` is NULL or was not counted), by the
    batch's plan: a slot table, or a left join."""
    if decisions.decided is not None or decisions.slot_entries is not None:
        return _join_executor_decisions(df, decisions, None, key, coded=True)
    keyed = df.withColumn(HASH_COLUMN, key)
    looked_up = _slot_lookup(keyed, decisions) if lookup == "slots" else None
    if looked_up is not None:
        return looked_up.select(*[F.col(_quoted(c)) for c in df.columns], CODE_COLUMN)
    return _driver_join(df, keyed, decisions, None)


def _driver_join(df: DataFrame, keyed: DataFrame, decisions: BatchDecisions, only: str | None) -> DataFrame:
    """``keyed`` joined with the driver-decided keys' codes (inner for ``only``, else left)."""
    table = F.broadcast(_decision_table(df, decisions, only))
    how = "inner" if only else "left"
    if not decisions.collision:
        return keyed.join(table, HASH_COLUMN, how).select(*[F.col(_quoted(c)) for c in df.columns], CODE_COLUMN)
    # A collision among this batch's keys: compare the full key as well (exact, slower).
    t = table.withColumnRenamed(HASH_COLUMN, "_rf_h")
    condition = keyed[HASH_COLUMN] == t["_rf_h"]
    for c in KEY_COLUMNS:
        condition = condition & key_column(c, keyed.__getitem__).eqNullSafe(t[f"_rf_k_{c}"])
    return keyed.join(t, condition, how).select(*[keyed[_quoted(c)] for c in df.columns], t[CODE_COLUMN])


def with_outcome_columns(coded: DataFrame, columns: list[str], decisions: BatchDecisions) -> DataFrame:
    """The input's columns and the four decision columns, in one projection."""
    outcomes = _outcome_columns(coded.sparkSession, decisions)
    return coded.select(*[F.col(_quoted(c)) for c in columns], *[outcomes[name].alias(name) for name in DECISION_COLUMNS])


def _quoted(name: str) -> str:
    """A column name as Spark must be given it to take it whole (``a.b`` is a field access)."""
    return "`" + name.replace("`", "``") + "`"


def rewrite_databases(df: DataFrame) -> DataFrame:
    """Replace the database a rewrite rule renamed: ``default_db`` of query events, ``db`` of
    row events (qualified table names in a statement keep theirs, as on a replica)."""
    rewritten = F.col("rewritten_db")
    return df.withColumns(
        {
            "default_db": F.when((F.col("type") == "query") & rewritten.isNotNull(), rewritten).otherwise(F.col("default_db")),
            "db": F.when((F.col("type") == "row") & rewritten.isNotNull(), rewritten).otherwise(F.col("db")),
        }
    )


def _join_executor_decisions(
    df: DataFrame, decisions: BatchDecisions, only: str | None, key: Column, coded: bool = False
) -> DataFrame:
    """Pass 2 for executor-decided keys: slot lookup, or a broadcast or shuffle join of the
    decided keys (hash -> code); a colliding group's keys also compare the full key.
    ``coded``: the rows with their code only (:func:`coded_rows`)."""
    spark = df.sparkSession
    keyed = df.withColumn(HASH_COLUMN, key)
    wanted = None if only is None else [i + 1 for i, out in enumerate(decisions.outcomes) if out[0] == only]
    columns = [F.col(_quoted(c)) for c in df.columns]

    def out(frame: DataFrame) -> DataFrame:
        return frame.select(*columns, CODE_COLUMN) if coded else with_outcome_columns(frame, df.columns, decisions)

    if decisions.plan == "slots":
        if only is None:
            return out(slot_table.with_code(keyed, decisions.slots, HASH_COLUMN, CODE_COLUMN))
        pairs = [(h, code) for h, code in decisions.slot_entries if code in wanted]
        table = F.broadcast(_pair_table(spark, pairs))
        return with_outcome_columns(keyed.join(table, HASH_COLUMN, "inner"), df.columns, decisions)
    decided = decisions.decided
    table = decided.select(HASH_COLUMN, key_decisions.code_column(spark, decisions.outcome_texts).alias(CODE_COLUMN))
    if wanted is not None:
        table = table.where(F.col(CODE_COLUMN).isin(wanted))
    how = "inner" if only else "left"
    hint = F.broadcast if decisions.plan == "broadcast" else (lambda t: t.hint("shuffle_hash"))
    if not decisions.collided_rows:
        return out(keyed.join(hint(table), HASH_COLUMN, how))
    struct_type = df.select(key_struct()).schema[0].dataType
    schema = StructType(
        [StructField("_rf_h", LongType(), False), StructField("_rf_tk", struct_type, True), StructField(CODE_COLUMN, IntegerType(), False)]
    )
    extra = spark.createDataFrame(
        [(h, k, code) for h, k, code in decisions.collided_rows if wanted is None or code in wanted], schema
    )
    t = hint(
        table.select(F.col(HASH_COLUMN).alias("_rf_h"), F.lit(None).cast(struct_type).alias("_rf_tk"), CODE_COLUMN).unionByName(extra)
    )
    keyed = keyed.withColumn("_rf_kk", key_struct())
    condition = (keyed[HASH_COLUMN] == t["_rf_h"]) & (t["_rf_tk"].isNull() | keyed["_rf_kk"].eqNullSafe(t["_rf_tk"]))
    joined = keyed.join(t, condition, how).select(*[keyed[_quoted(c)] for c in df.columns], t[CODE_COLUMN])
    return out(joined)


def _pair_table(spark, pairs: list[tuple[int, int]]) -> DataFrame:
    hashes = literals.primitive_array(spark, [h for h, _ in pairs], "long")
    codes = literals.primitive_array(spark, [c for _, c in pairs], "int")
    if hashes is not None and codes is not None:
        return spark.range(1).select(F.inline(F.arrays_zip(hashes.alias(HASH_COLUMN), codes.alias(CODE_COLUMN))))
    schema = StructType([StructField(HASH_COLUMN, LongType(), False), StructField(CODE_COLUMN, IntegerType(), False)])
    return spark.createDataFrame(pairs, schema)
