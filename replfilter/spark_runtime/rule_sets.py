"""Exact rule sets too large for an ``InSet`` literal, looked up by one broadcast hash join.

Why: an exact rule set compiles to one ``isin`` (an ``InSet`` hash probe), whose literals are
part of the plan: the driver builds, analyses and optimises an ``In`` of one child a rule, and
every task carries the set in its serialized plan. That costs more than the row work from a few
tens of thousands of rules (figures in README, "Benchmarks", and :data:`.compiled_rules.MAX_SET_RULES`).
A set above that size is instead a small table of ``(channel, key, bits)`` (one Arrow batch, a
``LocalRelation``) joined to the rows by a broadcast hash join on ``(channel, key)``: still one
hash probe a row, built once on the driver and shared by the tasks of an executor, and no
literal in the row plan.

A left outer join whose build side has one row per join key keeps every row of the other side
once, in its order, and adds NULL where no key matched (:func:`attach`); the bits say which of
the channel's sets hold the key (bit 0 the do type, bit 1 the ignore type), so a key in both a
do and an ignore set is one build row.

Keys that are not plain ASCII are left out of the table: only rows whose names are ASCII reach
the compiled path (:func:`.compiled_rules.is_ascii`), and a rule key is compared with the row's
key as it is, so such a key matches none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

DO_BIT = 1
IGNORE_BIT = 2

_CH = "_rf_jch"
_KEY = "_rf_jkey"


@dataclass(frozen=True)
class JoinedSets:
    """The large exact sets of the compiled channels: for the database sets (``db``) and the
    table sets (``table``), per channel index, each key's bits. ``bits_columns`` names the
    column :func:`attach` adds for each, NULL where the row's key is in none of its sets."""

    db: dict[int, dict[str, int]] = field(default_factory=dict)
    table: dict[int, dict[str, int]] = field(default_factory=dict)

    bits_columns = {"db": "_rf_jdb", "table": "_rf_jtb"}

    def add(self, kind: str, channel: int, keys, bit: int) -> None:
        """Put ``keys`` (rule keys of one type of channel number ``channel``) in the table."""
        per_channel = getattr(self, kind).setdefault(channel, {})
        for key in keys:
            if key.isascii():
                per_channel[key] = per_channel.get(key, 0) | bit

    def __bool__(self) -> bool:
        return bool(self.db or self.table)

    def member(self, kind: str, bit: int) -> Column:
        """True where the row's key is in the set of ``bit`` (never NULL)."""
        return F.coalesce((F.col(self.bits_columns[kind]).bitwiseAND(F.lit(bit))) != 0, F.lit(False))

    def attach(self, df: DataFrame, channel: Column, keys: dict[str, Column]) -> DataFrame:
        """``df`` with a bits column for each kind that has sets: a left outer broadcast hash
        join on ``(channel, key)``, every row of ``df`` kept once and in its order."""
        spark = df.sparkSession
        for kind in ("db", "table"):
            sets = getattr(self, kind)
            if not sets:
                continue
            bits = self.bits_columns[kind]
            side = _table(spark, sets, bits)
            condition = (channel == F.col(_CH)) & (keys[kind] == F.col(_KEY))
            df = df.join(F.broadcast(side), condition, "left_outer").drop(_CH, _KEY)
        return df


def _table(spark, sets: dict[int, dict[str, int]], bits: str) -> DataFrame:
    """The build side: one row a (channel, key), from one Arrow batch."""
    import pyarrow as pa

    channels, keys, values = [], [], []
    for channel, members in sets.items():
        channels += [channel] * len(members)
        keys += list(members)
        values += list(members.values())
    table = pa.table({_CH: pa.array(channels, pa.int32()), _KEY: pa.array(keys, pa.string()), bits: pa.array(values, pa.int8())})
    return spark.createDataFrame(table)


__all__ = ["DO_BIT", "IGNORE_BIT", "JoinedSets"]
