"""Exact rule sets too large for an ``InSet`` literal, looked up by one broadcast hash join.

Why: an exact rule set compiles to one ``isin`` (an ``InSet`` hash probe), whose literals are
part of the plan: the driver builds, analyses and optimises an ``In`` of one child a rule, and
every task carries the set in its serialized plan. From about a thousand rules that costs more
than a join (figures in README, "Benchmarks", and :data:`MAX_SET_RULES`).
A set above that size is instead a small table of ``(channel, key, bits)`` (one Arrow batch, a
``LocalRelation``) joined to the rows by a broadcast hash join on ``(channel, key)``: still one
hash probe a row, built once on the driver and shared by the tasks of an executor, and no
literal in the row plan.

A left outer join whose build side has one row per join key keeps every row of the other side
once, in its order, and adds NULL where no key matched (:meth:`JoinedSets.attach`); the bits say which of
the channel's sets hold the key (bit 0 the do type, bit 1 the ignore type), so a key in both a
do and an ignore set is one build row.

Keys that are not plain ASCII are left out of the table: only rows whose names are ASCII reach
the compiled path (:func:`.compiled_rules.is_ascii`), and a rule key is compared with the row's
key as it is, so such a key matches none of them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Mapping, Sequence

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


JoinedSet = tuple[int, int, Mapping[str, str]]
"""One large exact set: (channel index, bit, the rules' key -> spelling mapping)."""


@dataclass(frozen=True)
class JoinedSets:
    """The large exact sets of the compiled channels, per kind (``db``: the database sets,
    ``table``: the table sets), each a :data:`JoinedSet`. ``bits_columns`` names the column
    :meth:`attach` adds for each kind, NULL where the row's key is in none of its sets.

    Immutable as the :class:`~.compiled_rules.CompiledRules` holding it is frozen: tuples,
    grown by :meth:`with_channel` into a new value, so a compiled rule set (cached and shared
    between streams' threads) never changes under a reader."""

    db: tuple[JoinedSet, ...] = ()
    table: tuple[JoinedSet, ...] = ()

    bits_columns: ClassVar[Mapping[str, str]] = MappingProxyType({"db": "_rf_jdb", "table": "_rf_jtb"})

    def with_channel(self, c: CompiledFilters, channel: int) -> "JoinedSets":
        """These sets and the exact sets of channel number ``channel`` above
        :data:`MAX_SET_RULES`, in :data:`SET_TYPES`' order."""
        added: dict[str, list[JoinedSet]] = {"db": [], "table": []}
        for ftype, kind, bit in SET_TYPES:
            rules = set_rules(c, ftype)
            if len(rules) > MAX_SET_RULES:
                added[kind].append((channel, bit, rules))
        if not added["db"] and not added["table"]:
            return self
        return JoinedSets((*self.db, *added["db"]), (*self.table, *added["table"]))

    def __bool__(self) -> bool:
        return bool(self.db or self.table)

    def member(self, kind: str, bit: int) -> Column:
        """True where the row's key is in the set of ``bit`` (never NULL)."""
        return F.coalesce((F.col(self.bits_columns[kind]).bitwiseAND(F.lit(bit))) != 0, F.lit(False))

    def attach(self, df: DataFrame, channel: Column, keys: dict[str, Column]) -> DataFrame:
        """``df`` with a bits column for each kind that has sets: a left outer broadcast hash
        join on ``(channel, key)``, every row of ``df`` kept once and in its order."""
        for kind in ("db", "table"):
            sets = getattr(self, kind)
            if not sets:
                continue
            side = side_table(df.sparkSession, sets, self.bits_columns[kind])
            condition = (channel == F.col(_CH)) & (keys[kind] == F.col(_KEY))
            df = df.join(F.broadcast(side), condition, "left_outer").drop(_CH, _KEY)
        return df


_SIDES: OrderedDict = OrderedDict()
"""The build sides made lately (at most :data:`_MAX_SIDES`), by session and the identity of
the rule mappings: the evaluator's compiled filters are cached by their rules
(:func:`~replfilter.evaluation.rule_checks.compile_filters`), so the same rules give the same
mappings, and a call deciding with the same rules again skips making the side (~1 s for
100,000 keys at load 28). Each entry holds the session and the mappings, so their identities
cannot be reused while it lives."""
_MAX_SIDES = 4
_LOCK = threading.Lock()  # streams may decide batches from several threads


def side_table(spark, sets: Sequence[JoinedSet], bits: str) -> DataFrame:
    """The build side of one kind: one row a (channel, ASCII key) with the key's bits, from
    one Arrow batch; the one made before when the session and the rule mappings are the same."""
    key = (id(spark), bits, tuple((channel, bit, id(rules)) for channel, bit, rules in sets))
    with _LOCK:
        found = _SIDES.get(key)
        if found is not None and found[0] is spark:
            _SIDES.move_to_end(key)
            return found[2]
    side = _table(spark, sets, bits)
    with _LOCK:
        _SIDES[key] = (spark, [rules for _c, _b, rules in sets], side)
        while len(_SIDES) > _MAX_SIDES:
            _SIDES.popitem(last=False)
    return side


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


def _table(spark, sets: Sequence[JoinedSet], bits: str) -> DataFrame:
    """Make the build side: a key in a do and an ignore set of a channel is one row."""
    import pyarrow as pa

    merged: dict[tuple[int, str], int] = {}
    for channel, bit, rules in sets:
        for key in rules:
            if key.isascii():
                merged[(channel, key)] = merged.get((channel, key), 0) | bit
    table = pa.table({
        _CH: pa.array([channel for channel, _k in merged], pa.int32()),
        _KEY: pa.array([key for _c, key in merged], pa.string()),
        bits: pa.array(list(merged.values()), pa.int8()),
    })
    return spark.createDataFrame(table)


__all__ = ["DO_BIT", "IGNORE_BIT", "MAX_SET_RULES", "JoinedSets", "members", "side_table"]
