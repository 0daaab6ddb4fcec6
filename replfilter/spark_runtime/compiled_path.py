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
decision columns from the two codes (``element_at`` on literal arrays). When the COUNTERs are
wanted (:func:`.transform.decide_frame`; not for ``apply_filters`` or ``applied_events``),
``observe`` counts the covered rows as the frame is written: one histogram of (code,
rewritten), exact while it has no more distinct values than bins. Spark applies a task's
observed metrics once, from its successful attempt (tested with a task that fails once); the
counts are used only when they cover exactly the frame's rows (its row count: for files a
footer-only job) — otherwise (no action yet, a ``limit``, a stage run twice)
:attr:`.transform.DecidedFrame.decisions` counts the covered rows with one aggregate of their
key columns instead (:meth:`.compiled_rules.CompiledRules.tally`), exact under task retries.

A stream batch (:mod:`.stream`) is decided by the same frame (:func:`compiled_frame`), with the
exact path's keys it found itself (those of the rows not covered or refused by its native
check) and the counts read by :func:`add_observed` after it wrote the applied events.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F

from ..replica.state import ReplicaState
from . import compiled_rules, exact_path, literals
from .compiled_rules import CompiledRules, increments_of
from .exact_path import BatchDecisions, CountedKeys
from .key_cache import KEY_CACHE, input_snapshot
from .key_counts import distinct_keys, key_hash
from .key_events import HASH_COLUMN
from .key_lookup import CODE_COLUMN, _quoted, coded_rows, outcome_arrays
from .schema import DECISION_COLUMNS

MAX_OBSERVED_ROWS = 1 << 53
"""Rows a frame may have for its observed counts to be exact (the histogram counts in
doubles). A larger frame is counted by the aggregate."""
_METRIC = "_rf_m"


@dataclass(frozen=True)
class ExactKeys:
    """What the key aggregate found: the uncovered rows' distinct keys on the driver (``rows``)
    or, when many, counted on the executors (``counted``), and the input's number of rows."""

    rows: list | None
    counted: CountedKeys | None
    memo: dict = field(default_factory=dict, compare=False)
    """The input's row count, once asked for (:meth:`total`)."""

    def total(self, df: DataFrame) -> int:
        """``df``'s number of rows: for files, a job that reads only their footers."""
        if "total" not in self.memo:
            self.memo["total"] = df.count()
        return self.memo["total"]


def exact_keys(df: DataFrame, rules: CompiledRules, snapshot: str | None) -> ExactKeys:
    """The keys of ``df``'s rows that ``rules`` do not cover: one job over the key columns
    (remembered per file snapshot). (An ``observe`` of the row count in the same job cost more
    than the job itself: it keeps the rows from generated code.)"""
    cache_key = (snapshot, "compiled", rules.channels, rules.all_channels, rules.database_channels())
    found = KEY_CACHE.get(cache_key) if snapshot is not None else None
    if found is not None:
        return found
    rest = df.where(~rules.covered(df))
    rows = few_keys(rest)
    found = ExactKeys(rows, exact_path.count_keys(rest) if rows is None else None)
    if snapshot is not None:
        KEY_CACHE.put(cache_key, found, driver_keys=len(rows or ()))
    return found


def few_keys(rest: DataFrame, extra: tuple[str, ...] = ()) -> list | None:
    """The distinct keys of ``rest`` (with the ``extra`` columns) collected in one job when
    there are at most :data:`.exact_path.DRIVER_MAX_KEYS`, else None (count them on the
    executors)."""
    rows = exact_path._collect_rows(distinct_keys(rest, HASH_COLUMN, extra=extra).limit(exact_path.DRIVER_MAX_KEYS + 1))
    return rows if len(rows) <= exact_path.DRIVER_MAX_KEYS else None


def _decide_exact(df: DataFrame, state: ReplicaState, rules: CompiledRules, keys: ExactKeys) -> BatchDecisions:
    if keys.rows is not None:
        decisions = exact_path.decide_keys(exact_path._checked_keys(df, keys.rows), state)
        decisions.plan = exact_path.choose_plan(len(keys.rows), decisions.collision)
    else:
        rest = df.where(~rules.covered(df))
        decisions = exact_path.decide_counted(rest, state, keys.counted, input_snapshot(rest))
    decisions.exact_events = decisions.events
    return decisions


def _counted(rules: CompiledRules, code: int, rewritten: bool) -> tuple[bool, dict]:
    """Whether a covered row of ``code`` is applied, and the COUNTERs it moves (per channel and
    type; the rewrite-db one when its database was ``rewritten``)."""
    o = rules.outcomes[code - 1]
    counted = o.channel in rules._compiled and rules._compiled[o.channel][1] and code != rules.transaction_code
    moves = dict(increments_of(o.counter_class | (1 if rewritten else 0))) if counted else {}
    return o.decision == "APPLY", {(o.channel, ftype): n for ftype, n in moves.items()}


def decide_compiled(
    df: DataFrame, state: ReplicaState, counters: bool = True, extra: Sequence[Column] = ()
) -> tuple[DataFrame, BatchDecisions, Callable | None]:
    """``df`` with the four decision columns (and ``extra``, see :func:`compiled_frame`), the
    exact path's decisions (its keys decided now) and a tally: called with the batch's
    :class:`.exact_path.BatchDecisions`, it adds the covered rows' counts, from the write's
    observed metrics when they are whole, else from one aggregate. ``counters=False``: no
    tally, nothing observed (``apply_filters``)."""
    exact_path._check_input(df)
    rules = compiled_rules.compile_rules(state)
    keys = exact_keys(df, rules, input_snapshot(df))
    decisions = _decide_exact(df, state, rules, keys)
    decided, observation = compiled_frame(df, rules, decisions, counters, extra)
    if observation is None:
        return decided, decisions, None

    def tally(into: BatchDecisions) -> None:
        # the observed rows must be exactly the frame's rows (not asked before the write, not
        # after a ``limit``, no stage run twice): checked against the input's row count
        total = keys.total(df) if _observed(observation) is not None else None
        if total is None or not add_observed(into, rules, observation, decisions.exact_events or 0, total):
            rules.tally(df).add_to(into)
            into.counters_from = "aggregate"

    return decided, decisions, tally


def compiled_frame(
    df: DataFrame,
    rules: CompiledRules,
    decisions: BatchDecisions,
    counters: bool = True,
    extra: Sequence[Column] = (),
    trusted: Column | None = None,
) -> tuple[DataFrame, Observation | None]:
    """``df`` with the four decision columns in one projection: the rows ``rules`` cover by
    their compiled code, the others by their key hash looked up in ``decisions`` (the exact
    path's, decided before). ``counters``: the covered rows' (code, rewritten) classes are
    observed as the frame is written (read them with :func:`add_observed`). ``extra``: named
    columns to add after those, in the same projection: a projection above the ``observe``
    is a stage of its own that copies every row again (the bench's 400-byte row images: ~12%
    of the write's JVM CPU time, README "Benchmarks"). ``trusted`` (with ``counters``): rows
    where it is not true are left out of the histogram, like the uncovered rows, so that a
    write whose observed rows all fell into it shows that every row was covered and trusted
    (:func:`add_observed` with ``exact_rows`` 0)."""
    spark = df.sparkSession
    coded = rules.with_code(df)
    cc = F.col(compiled_rules.CODE_COLUMN)
    if decisions.distinct_keys:
        coded = coded_rows(coded, decisions, F.when(cc.isNull(), key_hash()))
        ec = F.col(CODE_COLUMN)
    else:
        ec = F.lit(None).cast("int")
    exact = outcome_arrays(spark, decisions)
    compiled = rules.decision_columns(spark)
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
    out = [F.col(_quoted(c)) for c in df.columns]
    if not counters:
        # above an ``observe`` (a barrier the optimiser does not push a filter through, and
        # the end of the stage's generated code): a filter on a decision column in the same
        # stage computed the decision again, and the stage's code failed to compile (Java's 64 KB
        # limit) and ran without whole-stage code generation: 18.3 JVM CPU s per 4 M events
        # against 3.7 above it. The barrier costs an unfiltered write ~1 JVM CPU s per 4 M
        # events (4.2 against 3.2; README, "Benchmarks")
        decided = coded.select(*out, *[columns[name].alias(name) for name in DECISION_COLUMNS], *extra)
        return decided.observe(Observation(), F.count(F.lit(1)).alias("rows")), None
    # one observed aggregate: a histogram of (code, rewritten) that is exact while it has no
    # more distinct values than bins (it merges bins only beyond): observed aggregates run row
    # by row outside generated code, and eleven packed sums cost ~5 JVM CPU s per 4 M rows
    # where this costs ~1 (README, "Benchmarks")
    rewritten = F.col(compiled_rules.COUNTED_REWRITE_COLUMN).cast("int")
    decided = [*[columns[name].alias(name) for name in DECISION_COLUMNS], *extra]
    metric = cc * 2 + rewritten if trusted is None else F.when(trusted, cc * 2 + rewritten)
    projected = coded.select(*out, *decided, metric.alias(_METRIC))
    observation = Observation()
    bins = 2 * len(rules.outcomes) + 2
    metrics = [F.count(F.lit(1)).alias("rows"), F.histogram_numeric(F.col(_METRIC), F.lit(bins)).alias("classes")]
    kept = [*out, *[F.col(_quoted(c)) for c in projected.columns[len(out):-1]]]
    return projected.observe(observation, *metrics).select(*kept), observation


def add_observed(
    into: BatchDecisions, rules: CompiledRules, observation: Observation, exact_rows: int, total: int | None = None,
    wait: float = 0.0,
) -> bool:
    """Add the covered rows' counts observed while :func:`compiled_frame`'s frame was written
    to ``into`` and say so (``counters_from = "write"``); False, adding nothing, unless the
    observation is finished and whole: its rows (``total`` when given) are ``exact_rows`` (the
    uncovered rows, counted by their key aggregate) plus the covered rows its histogram
    counted, each class an exact integer bin. ``wait``: seconds to wait for the metrics of a
    write that has returned (Spark hands them over on its listener bus, after the job)."""
    observed = _observed(observation, wait)
    if observed is None:
        return False
    rows = observed.get("rows")
    if rows is None or rows > MAX_OBSERVED_ROWS or (total is not None and rows != total):
        return False
    raw = observed.get("classes") or ()
    if not all(float(x).is_integer() for x, _ in raw):
        return False
    classes = [(int(x), int(y)) for x, y in raw]
    if sum(n for _x, n in classes) != rows - exact_rows:
        return False
    _add(into, rules, classes)
    into.counters_from = "write"
    return True


def _observed(observation: Observation, wait: float = 0.0) -> dict | None:
    """The observation's metrics when its first action has finished, else None (waiting at
    most ``wait`` seconds for them)."""
    jo = observation._jo
    if jo is None:
        return None
    try:
        future = jo.future()
        deadline = time.monotonic() + wait
        while not future.isCompleted() and time.monotonic() < deadline:
            time.sleep(0.005)
        return observation.get if future.isCompleted() else None
    except Exception:  # noqa: BLE001 - no metrics row: Spark ran no observed plan (a local frame)
        return None


def _add(into: BatchDecisions, rules: CompiledRules, classes: list[tuple[int, int]]) -> None:
    """Add the covered rows of each observed (code, rewritten) class to ``into``."""
    for value, n in classes:
        applied, moves = _counted(rules, value // 2, bool(value % 2))
        into.events += n
        if applied:
            into.applied += n
        else:
            into.skipped += n
        for (channel, ftype), k in moves.items():
            per_channel = into.counts.setdefault(channel, {})
            per_channel[ftype] = per_channel.get(ftype, 0) + k * n


__all__ = ["ExactKeys", "add_observed", "compiled_frame", "decide_compiled", "exact_keys", "few_keys"]
