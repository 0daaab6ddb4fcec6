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
from typing import Mapping

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ..core.filters import FilterType as FT
from ..evaluation.rule_checks import CompiledFilters

MAX_SET_RULES = 1_000
"""Rules of one exact type (do-db, ignore-db, do-table, ignore-table) compiled to one ``isin``
(an ``InSet`` whose literals travel in every task's plan); a larger set is looked up by a
broadcast hash join (:class:`JoinedSets`). Measured on the bench input (1 M events, 1 M tables,
the same files decided again; README, "Large rule sets"): the two cost the same at 1,000 rules;
at 10,000 the ``InSet`` took 3.9 s to build on the driver against 1.4 s and 3.5 JVM CPU s
against 1.9; at 30,000 the executed plan serialized to 1.8 MB (0.2 MB joined); at 100,000
the ``InSet`` took 53 s to build (a py4j call and an analysed child a literal), the join
1.4 s, as at 1,000."""

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

    def add_channel(self, c: CompiledFilters, channel: int) -> None:
        """Put the exact sets of channel number ``channel`` above :data:`MAX_SET_RULES` here."""
        for ftype, kind, bit in SET_TYPES:
            rules = set_rules(c, ftype)
            if len(rules) > MAX_SET_RULES:
                self.add(kind, channel, rules, bit)

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


SET_TYPES = ((FT.DO_DB, "db", DO_BIT), (FT.IGNORE_DB, "db", IGNORE_BIT), (FT.DO_TABLE, "table", DO_BIT), (FT.IGNORE_TABLE, "table", IGNORE_BIT))


def set_rules(c: CompiledFilters, ftype: FT) -> Mapping[str, str]:
    """One exact type's rules of ``c``: key -> the rule as spelt."""
    return {FT.DO_DB: c.do_db, FT.IGNORE_DB: c.ignore_db, FT.DO_TABLE: c.do_table, FT.IGNORE_TABLE: c.ignore_table}[ftype]


def members(c: CompiledFilters, db_key: Column, subject: Column, joined: JoinedSets) -> dict[FT, Column]:
    """Per exact type with rules: whether the row's key (the database's for the db types, the
    ``db.table`` subject for the table types) is in its set. One ``isin`` (an ``InSet``) up to
    :data:`MAX_SET_RULES` rules, else the bits of the broadcast join (:meth:`JoinedSets.member`)."""
    out: dict[FT, Column] = {}
    for ftype, kind, bit in SET_TYPES:
        rules = set_rules(c, ftype)
        if not rules:
            continue
        if len(rules) > MAX_SET_RULES:
            out[ftype] = joined.member(kind, bit)
        else:
            out[ftype] = (db_key if kind == "db" else subject).isin(list(rules))
    return out


def _table(spark, sets: dict[int, dict[str, int]], bits: str) -> DataFrame:
    """The build side: one row a (channel, key), from one Arrow batch."""
    import pyarrow as pa

    channels, keys, values = [], [], []
    for channel, keyed in sets.items():
        channels += [channel] * len(keyed)
        keys += list(keyed)
        values += list(keyed.values())
    table = pa.table({_CH: pa.array(channels, pa.int32()), _KEY: pa.array(keys, pa.string()), bits: pa.array(values, pa.int8())})
    return spark.createDataFrame(table)


__all__ = ["DO_BIT", "IGNORE_BIT", "MAX_SET_RULES", "JoinedSets", "members"]
