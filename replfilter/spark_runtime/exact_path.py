"""The exact path: rows decided per distinct key by the reference evaluator, in two passes.

Used by :mod:`.transform` for every row the compiled path (:mod:`.compiled_rules`) does not
cover — query events, names that are not ASCII, declined channels — and for every row when a
plan or hash modulus is forced, on Spark Connect, or with a known schema; and by the stream
(:mod:`.stream`) for its batches' keys.

1. pass 1 (:mod:`.key_counts`, :func:`count_keys`) groups the rows on one ``long``, the
   ``xxhash64`` of the key (:func:`key_hash`), and the key's columns, with a count per key;
   hashes that two keys share are found exactly. Files decided before are not grouped again
   (:mod:`.key_cache`);
2. a batch of few keys (:data:`DRIVER_MAX_KEYS`, no plan forced) is decided by the driver
   from the collected keys (:func:`decide_keys`); otherwise the executors decide them
   (:mod:`.key_decisions`, :func:`decide_counted`) and the driver collects only totals,
   COUNTER increments and the distinct outcomes; keys whose hash another key shares are
   decided on the driver, one by one;
3. pass 2 (:mod:`.key_lookup`) looks each row's outcome code up by the same hash, by a plan
   chosen from the number of keys (:func:`choose_plan`).

Inputs must be deterministic between the two passes (files are; use ``df.persist()``
otherwise). A row this module cannot turn into an event raises :class:`InvalidEventError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..evaluation.evaluator import Decision, channel_filters, compile_filters, decide_compiled, with_counts
from ..evaluation.events import Event
from ..core.filters import FilterType
from ..replica.catalog import Catalog
from ..replica.state import ReplicaState
from . import key_decisions, literals, slot_table
from .key_counts import collided_hashes, distinct_keys, key_column, key_hash, key_struct
from .key_events import HASH_COLUMN, KEY_COLUMNS, InvalidEventError, decision_values, event_from_key
from .key_cache import KEY_CACHE, KeyCache, input_snapshot
from .key_lookup import CODE_COLUMN
from .schema import DECISION_COLUMNS, EVENT_SCHEMA, TABLE_SCHEMA_V1

Counts = dict[str, dict[FilterType, int]]


@dataclass
class BatchDecisions:
    """What pass 1 and the driver found for one batch of events.

    ``key_rows`` holds, per distinct key: its hash, its key column values and the index of its
    decision in ``outcomes`` (the distinct decision-column tuples, few even when keys are
    many); ``counts`` are the COUNTER increments per channel and filter type; ``events`` the
    number of rows decided; ``collision`` is true when two distinct keys share a hash.
    """

    state: ReplicaState
    key_rows: list[tuple[int, dict[str, Any], int]] = field(default_factory=list)
    outcomes: list[tuple] = field(default_factory=list)
    counts: Counts = field(default_factory=dict)
    events: int = 0
    applied: int = 0
    skipped: int = 0
    collision: bool = False
    keys: int | None = None
    """The number of distinct keys when ``key_rows`` does not hold them (decided on the executors)."""
    plan: str = "slots"
    """How pass 2 looks decisions up: ``slots``, ``broadcast`` or ``shuffle`` (see :data:`PLANS`)."""
    decided: DataFrame | None = None
    """Executor-side plans: the decided key frame (:mod:`.key_decisions`), checkpointed."""
    slot_entries: list[tuple[int, int]] | None = None
    """The slot plan of an executor-decided batch: (hash, 1-based code) per key."""
    collided_rows: list[tuple[int, Any, int]] = field(default_factory=list)
    """Keys of colliding hash groups, each decided on the driver: (hash, key struct, code)."""
    outcome_texts: list[str] = field(default_factory=list)
    slots: slot_table.SlotTable | None = None
    exact_events: int | None = None
    """With compiled decisions (:mod:`.compiled_rules`): the rows that took the exact path."""
    counters_from: str | None = None
    """With compiled decisions: where the covered rows' counts came from, ``write`` (observed
    as the frame was written) or ``aggregate`` (one more job)."""
    replica_catalog: Catalog | None = None
    """The replica's catalog after the batch's applied DDL (:mod:`.catalog_follow`); None when
    no schema is known (the state's stays as it is)."""

    @property
    def distinct_keys(self) -> int:
        return self.keys if self.keys is not None else len(self.key_rows)

    def new_state(self) -> ReplicaState:
        """The starting state with this batch's COUNTERs moved (and the replica's catalog as
        the batch's DDL left it, when a schema is known)."""
        state = with_counts(self.state, self.counts)
        if self.replica_catalog is not None:
            state = state.with_replica_catalog(self.replica_catalog)
        return state


def collect_keys(
    df: DataFrame, hash_modulus: int | None = None, extra: tuple[str, ...] = (), cache: KeyCache | None = None
) -> list:
    """Pass 1: the distinct keys of ``df``, each with its number of rows and its hash.

    The hash is computed on the aggregated rows (a few thousand), not per event: it is the
    same deterministic function of the same values that pass 2 computes per row. ``extra``
    columns are grouped on too. With a ``cache``, an input already counted (same files, see
    :mod:`.key_cache`) is not read again.
    """
    snapshot = input_snapshot(df) if cache is not None else None
    if snapshot is not None:
        cache_key = (snapshot, hash_modulus, extra)
        rows = cache.get(cache_key)
        if rows is None:
            rows = [r.asDict(recursive=True) if hasattr(r, "asDict") else r for r in _count_keys(df, hash_modulus, extra)]
            cache.put(cache_key, rows)
        return rows
    return _count_keys(df, hash_modulus, extra)


def _count_keys(df: DataFrame, hash_modulus: int | None, extra: tuple[str, ...]) -> list:
    keys = df.select(*[key_column(c).alias(c) for c in KEY_COLUMNS], *extra)
    return _collect_rows(keys.groupBy(*KEY_COLUMNS, *extra).count().withColumn(HASH_COLUMN, key_hash(hash_modulus)))


def decided_keys(rows: Iterable, state: ReplicaState) -> Iterator[tuple[int, dict[str, Any], int, Event, Decision]]:
    """Each key row of pass 1 as ``(hash, key values, count, event, decision)``, decided by the
    reference evaluator with each channel's filters compiled once."""
    filter_sets: dict = {}
    for row in rows:
        values = row.asDict(recursive=True) if hasattr(row, "asDict") else dict(row)
        h = values.pop(HASH_COLUMN)
        n = values.pop("count", 0)
        event = event_from_key(values)
        # the evaluator's choice of filter set (an unconfigured channel decides with the
        # global rules); raises UnknownChannelError for a channel the replica does not have
        compiled = filter_sets.get(event.channel)
        if compiled is None:
            filters = channel_filters(state, event.channel)
            compiled = filter_sets[event.channel] = compile_filters(filters, state.collation)
        yield h, values, n, event, decide_compiled(compiled, event)


def decide_keys(rows: Iterable, state: ReplicaState) -> BatchDecisions:
    """Decide each distinct key with the reference evaluator; total the counters."""
    result = BatchDecisions(state)
    seen_hashes: set[int] = set()
    outcome_index: dict[tuple, int] = {}
    counts: Counts = {}
    for h, values, n, event, decision in decided_keys(rows, state):
        out = decision_values(decision)
        code = outcome_index.get(out)
        if code is None:
            code = outcome_index[out] = len(result.outcomes)
            result.outcomes.append(out)
        if h in seen_hashes:
            result.collision = True
        seen_hashes.add(h)
        result.key_rows.append((h, values, code))
        result.events += n
        if decision.applied:
            result.applied += n
        else:
            result.skipped += n
        if decision.increments:
            per_channel = counts.setdefault(event.channel, {})
            for ftype, k in decision.increments.items():
                per_channel[ftype] = per_channel.get(ftype, 0) + k * n
    result.counts = counts
    return result


_KEY_FIELDS = {f.name: f for f in EVENT_SCHEMA.fields}
_TABLES_V1 = f"array<{TABLE_SCHEMA_V1.simpleString()}>"
def _check_input(df: DataFrame) -> None:
    if df.isStreaming:
        raise ValueError(
            "apply_filters needs a batch DataFrame; for a stream use replfilter.spark_runtime.stream "
            "(or call it inside foreachBatch)"
        )
    missing = [c for c in KEY_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"not an event DataFrame: missing column(s) {', '.join(missing)} (see schema.EVENT_SCHEMA)")
    # simpleString leaves nullability out: a non-nullable column of the right type is fine (and
    # a table list without ``updating_unknown``, as written before it existed: schema.py)
    wrong = [
        f"{c} is {df.schema[c].dataType.simpleString()}, expected {_KEY_FIELDS[c].dataType.simpleString()}"
        for c in KEY_COLUMNS
        if df.schema[c].dataType.simpleString() != _KEY_FIELDS[c].dataType.simpleString()
        and not (c == "tables" and df.schema[c].dataType.simpleString() == _TABLES_V1)
    ]
    if wrong:
        raise ValueError(f"not an event DataFrame: {'; '.join(wrong)} (see schema.EVENT_SCHEMA)")
    # an already decided frame fed back in, or one carrying the paths' working columns, would
    # otherwise meet Spark's AMBIGUOUS_REFERENCE deep in the plan
    taken = [c for c in df.columns if c in DECISION_COLUMNS or c.startswith("_rf_")]
    if taken:
        raise ValueError(f"the input already has the column(s) {', '.join(map(repr, taken))}: drop them first")


def _checked_keys(df: DataFrame, rows: list) -> list:
    """``rows`` (pass 1's keys), after making sure no query event still waits for its tables or
    command from its SQL text: decided as it is, such a row would be decided as a statement on
    no table — not what ``replfilter evaluate`` decides for the same event. Only when a key could
    be one (a query with no table list or no command) does this look at the rows' ``sql``. (A
    DROP TRIGGER has had its table from the replica's catalog: :func:`decide_frame`.)"""
    from .sql_tables import key_needs_sql

    _refuse_unresolved(df, any(key_needs_sql(row, triggers=False) for row in rows), {}, triggers=False)
    return rows


def _decide(df: DataFrame, state: ReplicaState, hash_modulus: int | None = None, rows: list | None = None) -> BatchDecisions:
    """Check the input, count its keys (or recall them, :mod:`.key_cache`; ``rows``: counted
    already) and decide them."""
    _check_input(df)
    if rows is None:
        rows = collect_keys(df, hash_modulus, cache=KEY_CACHE)
    return decide_keys(_checked_keys(df, rows), state)


PLANS = ("slots", "broadcast", "shuffle")
SLOT_MAX_KEYS = 20_000
"""Up to this many keys, pass 2 looks decisions up in a :mod:`.slot_table`: fastest at 12 k keys
(2.1-2.3 s against 2.5-2.7 s for the broadcast join per 10 M events), slower at 66 k (11.8 s
against 8.4 s per 4 M events, load 8-9: its arrays travel in every task's plan)."""
DRIVER_MAX_KEYS = 50_000
"""Up to this many keys (and no plan forced), the driver collects the distinct keys and decides
them itself: no Python worker job, no second aggregate, no summary job. Measured on the
bench/spark.py input (4 M events, one run, warm JVM, load 2-4), pass 1 and the decisions:
19.4 k keys 1.25 s on the driver against 1.76 s on the executors (``apply_filters`` on new
files 2.96 s against 3.34 s); 35.7 k keys 1.50 s against 1.83 s (3.52 s against 3.88 s)."""
BROADCAST_MAX_KEYS = 2_000_000
"""Up to this many keys, a broadcast join of (hash -> code); beyond, a shuffle hash join. At
1.47 M keys the broadcast still won (pass 2: 11.5 s against 13.5 s for the shuffle join, 4 M
events, load 3-8); beyond 2 M keys (a table of ~40 MB through the driver's JVM) is not measured."""


def choose_plan(keys: int, collision: bool = False) -> str:
    """The lookup plan for a batch of ``keys`` distinct keys (slot tables cannot hold the keys
    of a colliding group, which are told apart by their full key)."""
    if keys <= SLOT_MAX_KEYS and not collision:
        return "slots"
    return "broadcast" if keys <= BROADCAST_MAX_KEYS else "shuffle"


def _rules_of(state: ReplicaState) -> tuple:
    from ..evaluation.evaluator import rules_key

    return tuple((name, rules_key(channel_filters(state, name), state.collation)) for name in state.channel_names)


@dataclass(frozen=True)
class CountedKeys:
    """Pass 1's first aggregate, checkpointed: the distinct keys with their counts
    (:func:`.key_counts.distinct_keys`), how many there are, and a memo of what was derived
    from them (kept with them, per file snapshot)."""

    frame: DataFrame
    keys: int
    memo: dict = field(default_factory=dict, compare=False)

    def rows(self) -> list:
        """The keys on the driver, as dicts (collected once)."""
        rows = self.memo.get("rows")
        if rows is None:
            rows = self.memo["rows"] = _collect_rows(self.frame)
        return rows


Keep = Callable[[DataFrame], DataFrame]
"""How a caller keeps a frame it reads more than once (the stream: a local checkpoint that it
frees with :func:`release` after the batch); without one, a frame is checkpointed locally and
freed when the JVM collects it."""


def _kept(frame: DataFrame, keep: Keep | None) -> DataFrame:
    return frame.localCheckpoint(eager=True) if keep is None else keep(frame)


def release(frame: DataFrame) -> None:
    """Free a local checkpoint's blocks now rather than when the JVM collects it (a classic
    session; through Spark Connect the server's collector does). ``frame`` must not be read
    afterwards."""
    if not literals.has_jvm(frame.sparkSession):
        return
    plan = frame._jdf.queryExecution().logical()
    if plan.getClass().getSimpleName() == "LogicalRDD":
        plan.rdd().unpersist(False)


def count_keys(
    df: DataFrame, hash_modulus: int | None = None, extra: tuple[str, ...] = (), keep: Keep | None = None
) -> CountedKeys:
    """Pass 1 on the executors: ``df``'s distinct keys (grouped on ``extra`` too), kept
    (:data:`Keep`) and counted. Nothing about the keys reaches the driver but their number."""
    frame = _kept(distinct_keys(df, HASH_COLUMN, hash_modulus, extra), keep)
    return CountedKeys(frame, frame.count())


def _pass_one(df: DataFrame, snapshot: str | None, hash_modulus: int | None) -> CountedKeys:
    """:func:`count_keys`, remembered per file snapshot (:mod:`.key_cache`)."""
    cache_key = (snapshot, hash_modulus, "distinct")
    counted = KEY_CACHE.get(cache_key) if snapshot is not None else None
    if counted is None:
        counted = count_keys(df, hash_modulus)
        if snapshot is not None:
            KEY_CACHE.put(cache_key, counted, driver_keys=0)
    return counted


def _decided_key_frame(
    state: ReplicaState, snapshot: str | None, distinct: DataFrame, collided: list[int], hash_modulus: int | None,
    keep: Keep | None = None,
) -> tuple[DataFrame, key_decisions.Summary, dict]:
    """The decisions, on the executors: the checkpointed decided key frame, its
    :class:`.key_decisions.Summary` and a memo of what depends on the rules. The same files
    (:mod:`.key_cache`) are not grouped again; with the same rules they are not decided again
    either."""
    import copy

    cache_key = (snapshot, hash_modulus, "decided")
    rules = _rules_of(state)
    entry = KEY_CACHE.get(cache_key) if snapshot is not None else None
    if entry is not None:
        decided, made_from, summary, memo = entry
        if made_from == rules:
            return decided, copy.deepcopy(summary), memo
    decided = _kept(key_decisions.decide_on_executors(distinct, state, HASH_COLUMN, collided), keep)
    summary = key_decisions.summary(decided)
    memo: dict = {}
    if snapshot is not None:
        KEY_CACHE.put(cache_key, (decided, rules, copy.deepcopy(summary), memo), driver_keys=0)
    return decided, summary, memo


def _decide_on_driver(df: DataFrame, state: ReplicaState, counted: CountedKeys, check_sql: bool) -> BatchDecisions | None:
    """A batch of few keys (:data:`DRIVER_MAX_KEYS`), decided by the driver's evaluator from
    the collected distinct keys; None when two of them share a hash (the executor path tells
    such keys apart by their full key)."""
    from .sql_tables import key_needs_sql

    rows = counted.rows()
    decisions = decide_keys(rows, state)
    if decisions.collision:
        return None
    if check_sql:
        _refuse_unresolved(df, any(key_needs_sql(row) for row in rows), counted.memo)
    decisions.plan = choose_plan(len(rows))
    return decisions


def _decide_on_executors(
    df: DataFrame, state: ReplicaState, hash_modulus: int | None = None, plan: str = "auto"
) -> BatchDecisions:
    """Check the input, count its keys, decide them (on the driver when they are few and no
    plan is forced, else where they are) and choose pass 2's plan."""
    if plan not in ("auto", *PLANS):
        raise ValueError(f"plan must be 'auto' or one of {', '.join(PLANS)}, not {plan!r}")
    _check_input(df)
    snapshot = input_snapshot(df)
    return decide_counted(df, state, _pass_one(df, snapshot, hash_modulus), snapshot, hash_modulus, plan)


def decide_counted(
    df: DataFrame,
    state: ReplicaState,
    counted: CountedKeys,
    snapshot: str | None = None,
    hash_modulus: int | None = None,
    plan: str = "auto",
    check_sql: bool = True,
    keep: Keep | None = None,
) -> BatchDecisions:
    """Decide the keys pass 1 counted in ``df`` (:func:`count_keys`): on the driver when they
    are few and no plan is forced, else on the executors; and choose pass 2's plan. The
    decisions of a ``snapshot`` are remembered with it (:mod:`.key_cache`).

    A query event with SQL text but no table list is refused (it must go through the SQL-text
    step first) unless ``check_sql`` is false: after that step (the stream), what the text
    left without tables is decided as it is, as :func:`decide_keys` decides it. The decided
    keys are kept by ``keep`` (:data:`Keep`)."""
    from .sql_tables import key_needs_sql

    if plan == "auto" and counted.keys <= DRIVER_MAX_KEYS:
        on_driver = _decide_on_driver(df, state, counted, check_sql)
        if on_driver is not None:
            return on_driver
    distinct, first_memo = counted.frame, counted.memo
    collided_keys = first_memo.get("collided")
    if collided_keys is None:
        collided_keys = first_memo["collided"] = collided_hashes(distinct, HASH_COLUMN)
    decided, summary, memo = _decided_key_frame(state, snapshot, distinct, collided_keys, hash_modulus, keep)
    # the colliding groups' keys are rows of pass 1 already: each is decided on its own
    collided_rows = _collided_rows(distinct, collided_keys)
    if check_sql:
        _refuse_unresolved(df, summary.needs_sql or any(key_needs_sql(row) for row in collided_rows), first_memo)
    collided: list[tuple[int, Any, int]] = []
    for row in collided_rows:
        struct = row.pop(key_decisions.KEY_STRUCT)
        h, _values, n, event, decision = next(decided_keys([row], state))
        code = summary.code_of(decision_values(decision))
        summary.add(event.channel, decision.applied, decision.increments, n)
        collided.append((h, struct, code + 1))
    keys = summary.keys + len(collided)
    chosen = choose_plan(keys, bool(collided)) if plan == "auto" else plan
    if chosen == "slots" and (collided or not literals.has_jvm(df.sparkSession)):
        chosen = "broadcast"
    result = BatchDecisions(
        state, outcomes=summary.outcomes, counts=summary.counts, events=summary.events, applied=summary.applied,
        skipped=summary.skipped, collision=bool(collided), keys=keys, collided_rows=collided,
    )
    result.outcome_texts = summary.outcome_texts
    if chosen == "slots":
        # (hash, code) pairs, and their slot table, are kept with a remembered frame: the
        # same files with the same rules then run no job before pass 2
        if "slots" not in memo:
            coded = decided.select(HASH_COLUMN, key_decisions.code_column(df.sparkSession, summary.outcome_texts).alias(CODE_COLUMN))
            entries = _collect_pairs(coded)
            memo["slots"] = (entries, slot_table.build(entries))
        entries, table = memo["slots"]
        if table is not None:
            result.plan, result.slot_entries, result.slots = "slots", entries, table
            return result
        chosen = "broadcast"
    result.plan, result.decided = chosen, decided
    return result


def _collided_rows(distinct: DataFrame, hashes: list[int]) -> list[dict[str, Any]]:
    """The keys of pass 1 whose hash another key shares, collected (collisions are rare), each
    with its key struct (pass 2 compares it)."""
    if not hashes:
        return []
    wanted = distinct.where(F.col(HASH_COLUMN).isin(hashes))
    columns = (HASH_COLUMN, "count", *KEY_COLUMNS, key_struct().alias(key_decisions.KEY_STRUCT))
    return [r.asDict() for r in wanted.select(*columns).collect()]


def _refuse_unresolved(df: DataFrame, keys_may_wait: bool, memo: dict, triggers: bool = True) -> None:
    """Raise when a query event still waits for its tables or command from its SQL text:
    ``keys_may_wait`` says a key could stand for one, and only then are the rows looked at
    (:func:`_has_rows_needing_sql`, a key can stand for rows with and without text)."""
    if keys_may_wait and _has_rows_needing_sql(df, memo, triggers):
        raise InvalidEventError(
            "query events with SQL text but no table list (or no command) must get them from the "
            "text first: replfilter.spark_runtime.sql_tables.resolve_sql_tables (read_events does it)"
        )


def _collect_rows(df: DataFrame) -> list:
    """``df``'s rows as dicts (through Arrow when it can: ~2x faster than pickled Rows)."""
    to_arrow = getattr(df, "toArrow", None)
    if to_arrow is not None:
        try:
            return to_arrow().to_pylist()
        except Exception:  # noqa: BLE001 - e.g. no pyarrow on the driver: Rows do as well
            pass
    return [r.asDict(recursive=True) for r in df.collect()]


def _has_rows_needing_sql(df: DataFrame, memo: dict, triggers: bool = True) -> bool:
    """Whether a row still waits for its tables from its SQL text (a key can stand for rows
    with and without text): asked once per snapshot of the files (``memo`` is kept with them)."""
    from .sql_tables import needs_sql_tables

    found = memo.get("needs_sql")
    if found is None:
        found = memo["needs_sql"] = bool(df.where(needs_sql_tables(triggers)).limit(1).count())
    return found


def _collect_pairs(df: DataFrame) -> list[tuple[int, int]]:
    """A two-column frame's rows as tuples."""
    first, second = df.columns
    return [(r[first], r[second]) for r in _collect_rows(df)]
