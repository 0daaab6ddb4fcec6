"""The two paths in one frame: compiled expressions for the rows they cover, the exact path for
the rest, and the COUNTER moves counted as the frame is written.

Why this shape (figures in README, "Benchmarks"): the compiled expressions
(:mod:`.compiled_rules`) decide a row where it is read, so the covered rows need no pass of
their own; only the rows they do not cover (query events, names that are not ASCII, declined
channels; 0.5 % of a ROW-format relay log) need their keys before the write. Those keys come
from one aggregate over the key columns alone (Parquet reads only those columns; the filter
keeps the few uncovered rows), collected in the same job when they are few
(:data:`.exact_path.DRIVER_MAX_KEYS`) and decided on the driver; more are counted and decided
on the executors (:func:`.exact_path.decide_counted`). That aggregate is remembered per file
snapshot (:mod:`.key_cache`), so the same files decided again are read once.

The write itself is one projection: the compiled outcome code, the exact path's code looked up
by the key hash of the uncovered rows only (:func:`.key_lookup.coded_rows`), and the four
decision columns from the two codes. On top of it, ``observe`` counts the covered rows per
outcome as the rows are written: per outcome code a literal array holds what a row of that
code adds to each COUNTER (two 32-bit counts packed in one ``long``, as :mod:`.known_keys`
packs them), so the observed aggregate is a handful of sums with no comparison. Spark applies
a task's observed metrics once, from its successful attempt; the counts are used only when
they cover exactly the rows the key aggregate saw (its own ``observe`` of the row count) —
otherwise (no action yet, a ``limit``, a stage run twice) :attr:`.transform.DecidedFrame.decisions`
counts the covered rows with one aggregate of their key columns instead
(:meth:`.compiled_rules.CompiledRules.tally`), exact under task retries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from ..core.filters import FilterType
from ..replica.state import ReplicaState
from . import compiled_rules, exact_path, literals
from .compiled_rules import CompiledRules, increments_of
from .exact_path import BatchDecisions, CountedKeys
from .key_cache import KEY_CACHE, input_snapshot
from .key_counts import distinct_keys, key_hash
from .key_events import HASH_COLUMN
from .key_lookup import CODE_COLUMN, _quoted, coded_rows, outcome_arrays
from .schema import DECISION_COLUMNS

MAX_OBSERVED_ROWS = (1 << 31) - 1
"""Rows a frame may have for its observed counts to be exact: two 32-bit counts share a
signed 64-bit sum. A larger frame is counted by the aggregate."""
_METRIC = "_rf_m"


@dataclass(frozen=True)
class ExactKeys:
    """What the key aggregate found: the uncovered rows' distinct keys on the driver (``rows``)
    or, when many, counted on the executors (``counted``), and the input's number of rows."""

    rows: list | None
    counted: CountedKeys | None
    total: int | None
    """None when Spark ran no observed plan (a small local frame is evaluated on the driver)."""


def exact_keys(df: DataFrame, rules: CompiledRules, snapshot: str | None) -> ExactKeys:
    """The keys of ``df``'s rows that ``rules`` do not cover, and ``df``'s row count: one job
    over the key columns (remembered per file snapshot)."""
    cache_key = (snapshot, "compiled", rules.channels, rules.all_channels)
    found = KEY_CACHE.get(cache_key) if snapshot is not None else None
    if found is not None:
        return found
    observation = Observation()
    observed = df.observe(observation, F.count(F.lit(1)).alias("rows"))
    rest = observed.where(~rules.covered())
    rows = exact_path._collect_rows(distinct_keys(rest, HASH_COLUMN).limit(exact_path.DRIVER_MAX_KEYS + 1))
    total = (_observed(observation) or {}).get("rows")
    counted = None
    if len(rows) > exact_path.DRIVER_MAX_KEYS:
        counted, rows = exact_path.count_keys(df.where(~rules.covered())), None
    found = ExactKeys(rows, counted, total)
    if snapshot is not None:
        KEY_CACHE.put(cache_key, found, driver_keys=len(rows or ()))
    return found


def _decide_exact(df: DataFrame, state: ReplicaState, rules: CompiledRules, keys: ExactKeys) -> BatchDecisions:
    if keys.rows is not None:
        decisions = exact_path.decide_keys(exact_path._checked_keys(df, keys.rows), state)
        decisions.plan = exact_path.choose_plan(len(keys.rows), decisions.collision)
    else:
        rest = df.where(~rules.covered())
        decisions = exact_path.decide_counted(rest, state, keys.counted, input_snapshot(rest))
    decisions.exact_events = decisions.events
    return decisions


@dataclass(frozen=True)
class _Counters:
    """The observed sums: ``slots[i]`` is what the i-th packed count means (``covered``,
    ``applied``, or a (channel, filter type) COUNTER)."""

    slots: tuple
    columns: dict[str, Column]


def _counters(spark, rules: CompiledRules, code: Column, rewritten: Column) -> _Counters:
    """Per row of a covered code, what it adds to each count, as packed ``long`` columns."""
    slots: list = ["covered", "applied"]
    per_code: list[list] = []
    per_code_rw: list[list] = []
    for o in rules.outcomes:
        counted = o.channel in rules._compiled and rules._compiled[o.channel][1]
        adds = ["covered"] + (["applied"] if o.decision == "APPLY" else [])
        if counted:
            adds += [(o.channel, ftype) for ftype in increments_of(o.counter_class)]
        rw = []
        if counted and o is not rules.outcomes[-1] and rules._compiled[o.channel][0].rewrite:
            rw = [(o.channel, FilterType.REWRITE_DB)]
        for slot in adds + rw:
            if slot not in slots:
                slots.append(slot)
        per_code.append(adds)
        per_code_rw.append(rw)
    columns: dict[str, Column] = {}
    for j in range((len(slots) + 1) // 2):
        def packed(adds: list) -> int:
            return sum(1 << (32 * (slots.index(s) % 2)) for s in adds if slots.index(s) // 2 == j)

        base = _long_array(spark, [packed(a) for a in per_code])
        value = F.element_at(base, code)
        rw_values = [packed(a) for a in per_code_rw]
        if any(rw_values):
            value = value + F.when(rewritten.isNotNull(), F.element_at(_long_array(spark, rw_values), code)).otherwise(F.lit(0))
        columns[f"{_METRIC}{j}"] = value
    return _Counters(tuple(slots), columns)


def _long_array(spark, values: list[int]) -> Column:
    array = literals.primitive_array(spark, values, "long")
    return array if array is not None else F.array(*[F.lit(v).cast("long") for v in values])


def decide_compiled(df: DataFrame, state: ReplicaState) -> tuple[DataFrame, BatchDecisions, Callable]:
    """``df`` with the four decision columns, the exact path's decisions (its keys decided
    now) and a tally: called with the batch's :class:`.exact_path.BatchDecisions`, it adds the
    covered rows' counts, from the write's observed metrics when they are whole, else from one
    aggregate."""
    exact_path._check_input(df)
    rules = compiled_rules.compile_rules(state)
    keys = exact_keys(df, rules, input_snapshot(df))
    decisions = _decide_exact(df, state, rules, keys)
    spark = df.sparkSession
    coded = rules.with_code(df)
    cc = F.col(compiled_rules.CODE_COLUMN)
    if decisions.distinct_keys:
        coded = coded_rows(coded, decisions, F.when(cc.isNull(), key_hash()))
        ec = F.col(CODE_COLUMN)
    else:
        ec = F.lit(None).cast("int")
    exact = outcome_arrays(spark, decisions)
    compiled = rules.decision_columns()
    k = len(rules.outcomes)
    both = {
        name: literals.string_array(spark, [getattr(o, name) for o in rules.outcomes] + [out[i] for out in decisions.outcomes])
        for i, name in enumerate(("decision", "filter_type"))
    }
    code = F.coalesce(cc, ec + F.lit(k))
    columns = {
        name: F.element_at(both[name], code) if both[name] is not None
        else F.when(cc.isNotNull(), compiled[name]).otherwise(F.element_at(exact[name], ec))
        for name in ("decision", "filter_type")
    }
    for name in ("filter_rule", "rewritten_db"):
        columns[name] = F.when(cc.isNotNull(), compiled[name]).otherwise(F.element_at(exact[name], ec))
    counters = _counters(spark, rules, cc, F.col(compiled_rules.REWRITTEN_COLUMN))
    out = [F.col(_quoted(c)) for c in df.columns]
    projected = coded.select(*out, *[columns[name].alias(name) for name in DECISION_COLUMNS],
                             *[v.alias(n) for n, v in counters.columns.items()])
    observation = Observation()
    metrics = [F.count(F.lit(1)).alias("rows"), *[F.try_sum(n).alias(n) for n in counters.columns]]
    decided = projected.observe(observation, *metrics).select(*out, *DECISION_COLUMNS)

    def tally(into: BatchDecisions) -> None:
        observed = _observed(observation)
        total = None
        if observed is not None:
            total = keys.total if keys.total is not None else df.count()
        covered = (total or 0) - (decisions.exact_events or 0)
        if observed is not None and observed.get("rows") == total and total <= MAX_OBSERVED_ROWS:
            counts = _unpacked(observed, counters.slots)
            if counts is not None and counts.get("covered", 0) == covered:
                _add(into, counts)
                into.counters_from = "write"
                return
        rules.tally(df).add_to(into)
        into.counters_from = "aggregate"

    return decided, decisions, tally


def _observed(observation: Observation) -> dict | None:
    """The observation's metrics when its first action has finished, else None (never waits)."""
    jo = observation._jo
    if jo is None:
        return None
    try:
        return observation.get if jo.future().isCompleted() else None
    except Exception:  # noqa: BLE001 - no metrics row: Spark ran no observed plan (a local frame)
        return None


def _unpacked(observed: dict, slots: tuple) -> dict | None:
    counts: dict = {}
    for i, slot in enumerate(slots):
        packed = observed.get(f"{_METRIC}{i // 2}")
        if packed is None:  # an overflow (try_sum): not usable
            return None
        counts[slot] = (packed >> (32 * (i % 2))) & 0xFFFFFFFF
    return counts


def _add(into: BatchDecisions, counts: dict) -> None:
    covered, applied = counts.pop("covered"), counts.pop("applied")
    into.events += covered
    into.applied += applied
    into.skipped += covered - applied
    for (channel, ftype), n in counts.items():
        if n:
            per_channel = into.counts.setdefault(channel, {})
            per_channel[ftype] = per_channel.get(ftype, 0) + n


__all__ = ["ExactKeys", "decide_compiled", "exact_keys"]
