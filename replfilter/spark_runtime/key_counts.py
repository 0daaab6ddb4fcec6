"""Pass 1: an input's distinct decision keys, counted by a 64-bit hash, collisions found exactly.

What a key is: a row event is decided by its ``(channel, db, table)`` alone
(mysql-filter-evaluation.md, section 3.4: a row event goes through the rules for its table),
so its key is ``(channel, type, db, table)``; a query or transaction event's key is all of
:data:`.transform.KEY_COLUMNS`. :func:`key_hash` hashes exactly that — a row event's
query-event fields are neither hashed nor grouped — and pass 2 computes the same function per
row to find each row's decision.

Grouping, exact about collisions: the rows by (hash, key), a hash aggregate with a
fixed-width buffer (a count). Each distinct key is then one row, which the executors decide
(:mod:`.key_decisions`). A hash that two of those keys share is a collision, found exactly by
a second, small aggregate of the distinct hashes (:func:`collided_hashes`), never guessed: those
keys are decided one by one on the driver (:mod:`.transform`). At 1 M tables (1.58 M keys,
load ~1) that check takes 1.0 s; grouping the keys by hash with a sample key per group, as
before, took 2.2 s, and the sample's nested struct cost the decisions another 1.6 s in Arrow.

Measured in one run each (4 M events, bench/spark.py input, Parquet, 2 cores shared with other
engineers' jobs, load 12-17, so only ratios within a run mean anything): at 2,000 tables
(66 k keys) pass-through 11.3 s; grouping on the ten raw key columns 7.8 s; on the hash alone
(no sample: unusable, the floor) 4.9 s; on the hash with min/max of the key struct (what
"exact" first suggests) 15.4 s — string min/max has no fixed-width buffer, so Spark sorts
every row (SortAggregate); (hash, key struct) then hash 11.2 s. At 1,000,000 tables
(1.47 M keys), load 6-8: ten columns 5.6-6.5 s, hash alone 4.3-5.7 s, hash min/max 6.5-9.5 s,
(hash, key struct) then hash 7.6 s, hash with ``first(key)`` and min/max of a second hash (not
exact, rejected) 6.1 s. The code groups on the hash and the key's flat columns (a row event's
query fields NULL), which keeps the first step's map-side partial aggregation: at 2,000 tables,
load 14-17, in one run: it 11.1 s, the ten raw columns (no sample, no collision check) 11.4 s,
hash min/max 16.8 s, pass-through 20.4 s (the run's first job, JVM warming).
"""

from __future__ import annotations

import json
from typing import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .key_events import HASH_COLUMN, KEY_COLUMNS

ROW_KEY_COLUMNS: tuple[str, ...] = ("channel", "type", "db", "table")
QUERY_KEY_COLUMNS: tuple[str, ...] = ("command", "kind", "default_db", "temporary", "if_exists", "tables")
"""The key columns that matter only to events that are not row events."""


def _is_row() -> Column:
    return F.col("type") == "row"


def key_hash(modulus: int | None = None) -> Column:
    """The key's ``xxhash64``: of ``(channel, type, db, table)`` for a row event, of every key
    column otherwise (``modulus`` only to force collisions in tests)."""
    h = F.when(_is_row(), F.xxhash64(*[F.col(c) for c in ROW_KEY_COLUMNS])).otherwise(
        F.xxhash64(*[F.col(c) for c in KEY_COLUMNS])
    )
    return F.pmod(h, F.lit(modulus)) if modulus else h


def key_struct() -> Column:
    """The key as one struct: the row part, and ``q`` (the query and transaction fields), NULL
    for row events."""
    q = F.when(_is_row(), F.lit(None)).otherwise(F.struct(*[F.col(c) for c in QUERY_KEY_COLUMNS]))
    return F.struct(*[F.col(c) for c in ROW_KEY_COLUMNS], q.alias("q"))


def key_column(name: str, col: Callable[[str], Column] = F.col) -> Column:
    """Key column ``name`` as keys are grouped and compared: a row event's query fields are NULL
    (its key is ``(channel, type, db, table)``), whatever a row carries there. ``col`` picks
    the column from one side of a join."""
    if name not in QUERY_KEY_COLUMNS:
        return col(name)
    return F.when(col("type") == "row", F.lit(None)).otherwise(col(name))


def distinct_keys(
    df: DataFrame, hash_column: str, hash_modulus: int | None = None, extra: tuple[str, ...] = ()
) -> DataFrame:
    """One row per distinct key (and value of the ``extra`` columns): its hash, its key columns
    (:func:`key_column`: a row event's query fields NULL, so they cost nothing) and ``count``.
    Lazy; a hash aggregate with a fixed-width buffer."""
    columns = [key_column(c).alias(c) for c in KEY_COLUMNS]
    selected = df.select(key_hash(hash_modulus).alias(hash_column), *columns, *extra)
    return selected.groupBy(hash_column, *KEY_COLUMNS, *extra).count()


def collided_hashes(distinct: DataFrame, hash_column: str) -> list[int]:
    """The hashes that two or more of :func:`distinct_keys`' keys share: a collision, found
    exactly, never guessed (one aggregate of the distinct hashes, collected: collisions are
    rare). Those keys are decided on their full key (:mod:`.transform`)."""
    shared = distinct.groupBy(hash_column).count().where(F.col("count") > 1)
    return [row[0] for row in shared.select(hash_column).collect()]


def merge_key_rows(rows) -> list[dict]:
    """Key rows grouped with extra columns (_ok, _source) -> one row per key, counts summed."""
    merged: dict[tuple, dict] = {}
    if all(row["_ok"] for row in rows):  # nothing to merge: drop the flag
        out = []
        for row in rows:
            values = row.asDict(recursive=True) if hasattr(row, "asDict") else dict(row)
            values.pop("_ok", None)
            out.append(values)
        return out
    for row in rows:
        values = row.asDict(recursive=True) if hasattr(row, "asDict") else dict(row)
        values.pop("_ok", None)
        key = (values[HASH_COLUMN], json.dumps([values[c] for c in KEY_COLUMNS], sort_keys=True))
        found = merged.get(key)
        if found is None:
            merged[key] = values
        else:
            found["count"] += values["count"]
    return list(merged.values())


__all__ = ["ROW_KEY_COLUMNS", "collided_hashes", "distinct_keys", "key_column", "key_hash", "key_struct", "merge_key_rows"]
