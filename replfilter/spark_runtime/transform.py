"""The filter transform: every event row gets the decision the reference evaluator gives it.

Two paths, chosen per row (figures and commands in README, "The Spark runtime" and
"Benchmarks"):

* **compiled** (:mod:`.compiled_rules`, :mod:`.compiled_path`): row events whose names are
  plain ASCII, on a channel whose rules the compiler takes, and transaction events, are
  decided by column expressions compiled from the evaluator's own ``CompiledFilters``, in the
  projection that writes them: a cost that does not follow the number of tables. Their
  COUNTER moves are observed as the frame is written (:class:`DecidedFrame`);
* **exact** (:mod:`.exact_path`): every other row (query events, names that are not ASCII,
  declined channels, malformed rows) is decided per distinct key by the reference evaluator;
  its keys come from one aggregate over the key columns before the write, and each such row's
  outcome is looked up by its key hash in the same projection.

The exact path alone decides when a plan or a hash modulus is forced (tests, benchmarks), when
``compiled=False``, on Spark Connect (no JVM gateway for the literal arrays), and with a known
schema: the catalog follower (:mod:`.catalog_follow`) replays DDL from every key on the driver.

Inputs must be deterministic between the key aggregate and the write (files are; use
``df.persist()`` otherwise), and must not be streaming DataFrames (use :mod:`.stream`, which
calls this per micro-batch). Rows must be events: :mod:`.ingest` separates malformed records
into dead letters first; a row this module cannot turn into an event raises
:class:`InvalidEventError` naming it.
"""

from __future__ import annotations

from typing import Callable, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..replica.state import ReplicaState
from . import catalog_follow, literals
from .compiled_path import decide_compiled
from .exact_path import (
    BROADCAST_MAX_KEYS,
    DRIVER_MAX_KEYS,
    PLANS,
    SLOT_MAX_KEYS,
    BatchDecisions,
    CountedKeys,
    Counts,
    Keep,
    _check_input,
    _decide,
    _decide_on_executors,
    choose_plan,
    collect_keys,
    count_keys,
    decide_counted,
    decide_keys,
    decided_keys,
    release,
)
from .key_cache import KEY_CACHE
from .key_counts import key_column, key_hash
from .key_events import HASH_COLUMN, KEY_COLUMNS, InvalidEventError, decision_values, event_from_key
from .key_lookup import CODE_COLUMN, _quoted, join_decisions, rewrite_databases, with_outcome_columns


class DecidedFrame:
    """A decided batch: ``df`` with the decision columns, and what was found about its rows.

    Rows decided by compiled expressions (:mod:`.compiled_path`) are counted when
    :attr:`decisions` (or :attr:`counts`, :meth:`new_state`) is first asked for: from what
    ``observe`` counted while the frame was written, when that covers every row once; else
    by one aggregate of their key columns, exact under task retries as every Spark aggregate
    is. Ask after writing the frame to spare that job."""

    def __init__(self, df: DataFrame, decisions: BatchDecisions, tally: Callable[[BatchDecisions], None] | None = None):
        self.df = df
        self._decisions = decisions
        self._tally = tally

    @property
    def decisions(self) -> BatchDecisions:
        if self._tally is not None:
            tally, self._tally = self._tally, None
            tally(self._decisions)
        return self._decisions

    @property
    def counts(self) -> Counts:
        return self.decisions.counts

    def new_state(self) -> ReplicaState:
        return self.decisions.new_state()


KEY_MODEL = catalog_follow.KeyModel(KEY_COLUMNS, key_hash, event_from_key, key_column)
"""The decision keys, as :mod:`.catalog_follow` needs them."""


def decide_frame(
    df: DataFrame,
    state: ReplicaState,
    hash_modulus: int | None = None,
    lookup: str = "auto",
    order: Sequence[str] | None = None,
    compiled: bool = True,
    counters: bool = True,
) -> DecidedFrame:
    """Find and decide the exact path's keys (Spark jobs, now) and return the lazily decided
    frame plus the counters. ``compiled`` (the default): decide the rows
    :mod:`.compiled_rules` covers by its column expressions (:mod:`.compiled_path`);
    ``compiled=False`` decides every row by the exact path's two passes. ``lookup`` forces the
    exact path's plan (``slots``, ``broadcast``, ``shuffle``; ``join`` is ``broadcast``; the
    two passes then decide every row); ``auto`` chooses it from the key count
    (:func:`choose_plan`). ``counters=False``: the compiled rows' COUNTERs are not wanted
    (nothing is observed; :attr:`DecidedFrame.decisions` then counts only the exact path's).

    ``applier_error`` is added too (:mod:`.catalog_follow`): NULL without a schema; with one,
    the DDL of the batch is replayed in ``order`` (columns giving each event's distinct
    position, e.g. file and line), needed only when the replica applies DDL in the batch.
    The catalog follower needs every key on the driver, so with a schema the keys are
    collected and decided there (:func:`decide_keys`), as before executor decisions; a DROP
    TRIGGER waiting for its table gets it from that catalog where it stands first
    (:func:`.catalog_follow.resolve_drop_triggers`). Without a schema such an event is refused,
    as any event still waiting for its SQL text (``read_events`` makes it a dead letter)."""
    tally = None
    if state.replica_catalog is not None:
        _check_input(df)
        rows = collect_keys(df, hash_modulus, cache=KEY_CACHE)
        resolved = catalog_follow.resolve_drop_triggers(KEY_MODEL, df, state, order, rows)
        decisions = _decide(resolved, state, hash_modulus, rows if resolved is df else None)
        df = resolved
        lookup = "join" if lookup in ("join", "broadcast", "shuffle") else "slots"
        decided = join_decisions(df, decisions, hash_modulus=hash_modulus, lookup=lookup)
        keys = [(h, v) for h, v, _ in decisions.key_rows]
    elif compiled and lookup == "auto" and hash_modulus is None and literals.has_jvm(df.sparkSession):
        # no schema (else the branch above), so no DDL to follow: ``applier_error`` is NULL,
        # added in the decisions' own projection (:func:`.compiled_path.compiled_frame`)
        decided, decisions, tally = decide_compiled(df, state, counters, (catalog_follow.no_applier_error(),))
        return DecidedFrame(decided, decisions, tally)
    else:
        plan = "broadcast" if lookup == "join" else lookup
        decisions = _decide_on_executors(df, state, hash_modulus, plan)
        decided = join_decisions(df, decisions, hash_modulus=hash_modulus)
        keys = []
    followed = catalog_follow.follow(KEY_MODEL, df, state, keys, order, hash_modulus)
    if followed is not None:
        decisions.replica_catalog = followed.catalog
    decided = catalog_follow.with_applier_error(decided, followed, order, decisions.collision, hash_modulus)
    return DecidedFrame(decided, decisions, tally)


def apply_filters(
    df: DataFrame, state: ReplicaState, order: Sequence[str] | None = None, compiled: bool = True
) -> DataFrame:
    """``df`` with ``decision``, ``filter_type``, ``filter_rule``, ``rewritten_db`` and
    ``applier_error`` added (``order``, ``compiled``: see :func:`decide_frame`).

    Usable as ``df.transform(lambda d: apply_filters(d, state))``. Finds and decides the exact
    path's keys when called (unless the same files were decided before, :mod:`.key_cache`); the
    returned frame is lazy. The state's COUNTERs are not moved (use :func:`decide_frame` to
    get the increments).
    """
    return decide_frame(df, state, order=order, compiled=compiled, counters=False).df


def applied_events(df: DataFrame, state: ReplicaState, compiled: bool = True) -> DataFrame:
    """Only the events the replica applies, with the database rewritten, original columns only
    (``compiled``: see :func:`decide_frame`)."""
    if compiled and literals.has_jvm(df.sparkSession):
        decided, _decisions, _tally = decide_compiled(df, state, counters=False)
        joined = decided.where(F.col("decision") == "APPLY")  # not pushed below: compiled_frame
    else:
        joined = join_decisions(df, _decide_on_executors(df, state), only="APPLY")
    return rewrite_databases(joined).select(*[F.col(_quoted(c)) for c in df.columns])


__all__ = [
    "BROADCAST_MAX_KEYS",
    "CODE_COLUMN",
    "CountedKeys",
    "DRIVER_MAX_KEYS",
    "HASH_COLUMN",
    "Keep",
    "SLOT_MAX_KEYS",
    "decision_values",
    "release",
    "KEY_COLUMNS",
    "PLANS",
    "choose_plan",
    "BatchDecisions",
    "DecidedFrame",
    "InvalidEventError",
    "apply_filters",
    "applied_events",
    "collect_keys",
    "count_keys",
    "decide_counted",
    "decide_frame",
    "decide_keys",
    "decided_keys",
    "event_from_key",
    "join_decisions",
    "key_hash",
    "with_outcome_columns",
    "rewrite_databases",
]
