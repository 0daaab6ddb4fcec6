"""One pass over a stream batch whose keys the stream has decided before.

Why: :mod:`.transform` reads a batch twice — pass 1 counts its distinct keys, pass 2 decides
each row — because every decision must be known before any row is written. A running stream
sees the same keys batch after batch (its channels, databases and tables change slowly), so
the stream remembers the keys it has decided (:class:`KnownKeys`) and tries each batch in one
pass:

1. the remembered keys are decided with the state at the start of the batch (the reference
   evaluator, on the driver; keys of channels the replica no longer has are left out);
2. every row's outcome is looked up in a :mod:`.slot_table` and the applied rows are written,
   as in pass 2; on the same rows, ``observe`` counts the rows, the rows that are not a
   remembered key or not a valid event, and the rows of each *count class* — (channel, applied
   or not, COUNTER increments) — which is all the batch's statistics and COUNTERs need;
3. if any row was not remembered (or is not valid), the stream decides the batch again by the
   two passes, which overwrite its temporary output. Nothing of a batch is visible before its
   manifest (:mod:`.stream`), so exactly-once holds either way.

A missed attempt costs a whole write, so after one the stream stops trying until a batch decided
by the two passes brings no new key and no dead letter (:attr:`KnownKeys.worth_trying`): a
stream whose keys keep changing pays for one miss, not one per batch.

Measured (2.5 M events a batch, Parquet in and out, 2 cores, best of 3): two passes 4.6 s, one
pass 2.8 s. One ``count_if`` per class (20 classes) cost +0.7 s — observed aggregates run row by
row, outside generated code — so two classes share one ``long`` sum, 32 bits each; the ten sums
cost nothing measurable. That is exact while a batch has fewer than 2**31 rows; a larger batch
(``try_sum`` overflows to NULL) is decided by the two passes. The write is a single stage (no
shuffle), so Spark applies each task's metrics once even when a task is retried.

Choice, documented: a row is matched to a remembered key by its 64-bit ``xxhash64`` alone.
The two-pass path checks a batch's keys for hash collisions; this one cannot see a new key
whose hash equals a remembered key's (chance about remembered x new keys / 2**64: 5e-10 for
100,000 of each). ``StreamConfig.one_pass = False`` (``replfilter stream --two-pass``) decides
every batch by the two passes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

from ..evaluation.evaluator import channel_filters, rules_key
from ..core.filters import FilterType
from ..replica.state import ReplicaState
from . import literals, slot_table
from .key_events import has_unknown_updating
from .sql_tables import key_needs_sql
from .transform import CODE_COLUMN, HASH_COLUMN, BatchDecisions, decided_keys, decision_values, key_hash

MAX_REMEMBERED_BYTES = 64 << 20
"""Driver memory a stream's remembered keys may take (estimated per key as its text plus
:data:`KEY_OVERHEAD`); past this it starts over from the latest batch's keys, so a stream whose
keys keep changing stays bounded. (A one-pass plan also needs the keys of the state's channels
to fit one slot table, about 196,000 keys; with more, batches take the two passes.)"""
KEY_OVERHEAD = 400
"""Bytes a remembered key costs beyond its text: the dict, its ten entries, the hash key."""
MAX_REMEMBERED = 100_000
"""Kept for callers that bound by count: ``KnownKeys(limit=...)``."""
SPILL_NAME = "known_keys.parquet"

FIELD_BITS = 32
MAX_ROWS = 1 << 31
"""Rows a one-pass batch can have: two 32-bit class counts share a signed 64-bit sum."""

CountClass = tuple[str, bool, tuple[tuple[FilterType, int], ...]]


class KnownKeys:
    """The keys a stream has decided: 64-bit key hash -> key column values."""

    def __init__(self, limit: int | None = None, max_bytes: int = MAX_REMEMBERED_BYTES):
        self.limit = limit
        self.max_bytes = max_bytes
        self._bytes = 0
        self.dirty = False
        self._keys: dict[int, dict[str, Any]] = {}
        self._ambiguous: set[int] = set()
        self._plan: tuple[tuple, OnePassPlan | None] | None = None  # (what it was made from, plan)
        self._missed = False

    @property
    def worth_trying(self) -> bool:
        """Whether the next batch should be tried in one pass: keys are remembered, and no
        attempt has missed since the last batch that brought nothing new (see :meth:`missed`)."""
        return bool(self._keys) and not self._missed

    def missed(self) -> None:
        """A one-pass attempt met a row it could not decide, or a batch was decided on the
        executors (its keys are not known here): stop trying until :meth:`remember` is given a
        clean batch with no new key."""
        self._missed = True

    def __len__(self) -> int:
        return len(self._keys)

    def remember(self, key_rows: Iterable[tuple[int, Mapping[str, Any], int]], clean: bool = True) -> None:
        """Add a two-pass batch's keys (:attr:`BatchDecisions.key_rows`); ``clean``: the batch had
        no dead letter. A hash seen with two different keys is never looked up again; keys that
        may still wait for their tables from SQL text are not remembered (a row of the same key
        with text must be resolved first), nor keys with a table whose updating flag is not known
        (the readers decide those with each batch's rules: :mod:`.sql_tables`)."""
        fresh: dict[int, dict[str, Any]] = {}
        new = False
        for h, values, _code in key_rows:
            new = new or h not in self._keys
            if h in self._ambiguous or key_needs_sql(values) or has_unknown_updating(values):
                continue  # (the latter: the rules of a later batch may leave it undecided)
            seen = fresh.get(h, self._keys.get(h))
            if seen is not None and seen != values:
                self._ambiguous.add(h)
                fresh.pop(h, None)
                self._keys.pop(h, None)
                continue
            fresh[h] = dict(values)
        fresh_bytes = sum(_key_bytes(values) for values in fresh.values())
        if (self.limit is not None and len(self._keys) + len(fresh) > self.limit) or (
            self._bytes + fresh_bytes > self.max_bytes
        ):
            self._keys, self._bytes = {}, 0
        for h, values in fresh.items():
            size = _key_bytes(values)
            if (self.limit is not None and len(self._keys) >= self.limit) or self._bytes + size > self.max_bytes:
                break
            old = self._keys.get(h)
            if old is not None:
                self._bytes -= _key_bytes(old)
            self._keys[h] = values
            self._bytes += size
        self.dirty = self.dirty or new
        self._plan = None
        if clean and not new:
            self._missed = False

    @property
    def size_bytes(self) -> int:
        """The estimated driver memory the remembered keys take."""
        return self._bytes

    def spill(self, path: str) -> None:
        """Write the remembered keys (and the hashes known to be ambiguous) to the Parquet file
        ``path``, atomically (a temporary file renamed over it): a restarted stream loads them
        (:meth:`load`) and is in one-pass mode from its first batch. The file is a hint, never a
        decision: a key in it is a key some batch had, its values exact, and every row of a
        one-pass batch is still matched against it (a row it lacks sends the batch to the two
        passes), so a file older than the last batch costs speed, never exactly-once."""
        import os

        import pyarrow as pa
        import pyarrow.parquet as pq

        hashes = list(self._keys) + sorted(self._ambiguous)
        keys = [json.dumps(values, sort_keys=True) for values in self._keys.values()] + [None] * len(self._ambiguous)
        table = pa.table({"hash": pa.array(hashes, pa.int64()), "key": pa.array(keys, pa.string())})
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        pq.write_table(table, temporary)
        os.replace(temporary, path)
        self.dirty = False

    def load(self, path: str) -> bool:
        """Remember the keys :meth:`spill` wrote to ``path`` (within this memory's bounds);
        False when there is no such file."""
        import os

        import pyarrow.parquet as pq

        if not os.path.exists(path):
            return False
        table = pq.read_table(path)
        rows = []
        for h, key in zip(table.column("hash").to_pylist(), table.column("key").to_pylist()):
            if key is None:
                self._ambiguous.add(h)
            else:
                rows.append((h, json.loads(key), 0))
        self.remember(rows, clean=True)
        self.dirty = False
        return True

    def plan(self, state: ReplicaState, relay_channel: str | None = None) -> "OnePassPlan | None":
        """The remembered keys decided with ``state``, or None when none can be used. Keys of
        channels ``state`` lacks (or, for a relay log, of other channels) are left out: their
        rows then count as unknown and the batch goes the two-pass way, which dead-letters them."""
        # Decisions depend on each channel's rules, not on its COUNTERs (which every batch moves):
        # the plan (keys decided, slot table built: ~0.3 s for 12,000 keys) is reused until the
        # rules or the remembered keys change.
        made_from = (
            relay_channel,
            tuple((name, rules_key(channel_filters(state, name), state.collation)) for name in state.channel_names),
        )
        if self._plan is not None and self._plan[0] == made_from:
            return self._plan[1]
        plan = self._make_plan(state, relay_channel)
        self._plan = (made_from, plan)
        return plan

    def _make_plan(self, state: ReplicaState, relay_channel: str | None) -> "OnePassPlan | None":
        channels = set(state.channel_names)
        rows = [
            {**values, HASH_COLUMN: h}
            for h, values in self._keys.items()
            if values["channel"] in channels and (relay_channel is None or values["channel"] == relay_channel)
        ]
        if not rows:
            return None
        decisions = BatchDecisions(state)
        pair_codes: dict[tuple, int] = {}
        class_index: dict[CountClass, int] = {}
        pair_classes: list[int] = []
        for h, values, _n, event, decision in decided_keys(rows, state):
            increments = tuple(sorted(decision.increments.items(), key=lambda item: item[0].keyword))
            count_class = class_index.setdefault((event.channel, decision.applied, increments), len(class_index))
            outcome = decision_values(decision)
            code = pair_codes.get((outcome, count_class))
            if code is None:
                code = pair_codes[(outcome, count_class)] = len(decisions.outcomes)
                decisions.outcomes.append(outcome)
                pair_classes.append(count_class)
            decisions.key_rows.append((h, values, code))
        table = slot_table.build([(h, code + 1) for h, _, code in decisions.key_rows])
        if table is None:
            return None
        return OnePassPlan(decisions, table, tuple(pair_classes), tuple(class_index))


def _key_bytes(values: Mapping[str, Any]) -> int:
    """A remembered key's estimated driver memory: its text plus :data:`KEY_OVERHEAD`."""
    size = KEY_OVERHEAD
    for value in values.values():
        if isinstance(value, str):
            size += len(value)
        elif isinstance(value, list):
            size += 100 * len(value) + sum(len(str(v)) for v in value)
    return size


@dataclass(frozen=True)
class OnePassPlan:
    """Remembered keys decided for one batch. ``decisions.outcomes`` has one entry per
    (outcome, count class) pair, so the code a row looks up gives both its decision columns
    and, through ``pair_classes``, its count class."""

    decisions: BatchDecisions
    table: slot_table.SlotTable
    pair_classes: tuple[int, ...]
    classes: tuple[CountClass, ...]

    def lookup(self, marked: DataFrame) -> DataFrame:
        """``marked`` (:func:`.ingest.mark_event_rows`) with :data:`CODE_COLUMN` (NULL for a key
        not remembered) and the slot table's helper columns, which a final select leaves out.
        Needs a classic session (:func:`.literals.has_jvm`), as slot tables do."""
        keyed = marked.withColumn(HASH_COLUMN, key_hash())
        return slot_table.with_code(keyed, self.table, HASH_COLUMN, CODE_COLUMN)

    def observe(self, coded: DataFrame, observation: Observation) -> DataFrame:
        """``coded`` with the counts :meth:`counted` reads, gathered as its rows pass."""
        spark = coded.sparkSession
        code = F.col(CODE_COLUMN)
        count_class = F.element_at(literals.primitive_array(spark, [c + 1 for c in self.pair_classes], "int"), code)
        metrics = [
            F.count(F.lit(1)).alias("rows"),
            F.count_if(code.isNull() | ~F.col("_ok")).alias("unknown"),
        ]
        for first in range(0, len(self.classes), 2):
            weights = [0] * len(self.classes)
            weights[first] = 1
            if first + 1 < len(self.classes):
                weights[first + 1] = 1 << FIELD_BITS
            packed = F.element_at(literals.primitive_array(spark, weights, "long"), count_class)
            metrics.append(F.try_sum(packed).alias(f"classes_{first}"))
        return coded.observe(observation, *metrics)

    def codes(self, decision: str) -> list[int]:
        """The looked-up codes of rows with ``decision`` (``"APPLY"`` or ``"SKIP"``)."""
        return [i + 1 for i, outcome in enumerate(self.decisions.outcomes) if outcome[0] == decision]

    def counted(self, metrics: Mapping[str, Any], state: ReplicaState) -> BatchDecisions | None:
        """The batch's decisions and COUNTER increments from the observed counts (``state``: the
        state at the batch's start), or None when the batch must be decided by the two passes
        (a row not remembered or not valid, or too many rows to count exactly)."""
        rows = metrics["rows"]
        if metrics["unknown"] or rows >= MAX_ROWS:
            return None
        per_class: list[int] = []
        mask = (1 << FIELD_BITS) - 1
        for first in range(0, len(self.classes), 2):
            packed = metrics[f"classes_{first}"]
            if packed is None:
                if rows:
                    return None
                packed = 0
            per_class += [packed & mask, packed >> FIELD_BITS]
        per_class = per_class[: len(self.classes)]
        if sum(per_class) != rows:  # cannot happen when every row has a class; never guess
            return None
        result = BatchDecisions(state, outcomes=self.decisions.outcomes)
        counts: dict[str, dict[FilterType, int]] = {}
        for (channel, applied, increments), n in zip(self.classes, per_class):
            if not n:
                continue
            result.events += n
            if applied:
                result.applied += n
            else:
                result.skipped += n
            for ftype, k in increments:
                per_channel = counts.setdefault(channel, {})
                per_channel[ftype] = per_channel.get(ftype, 0) + k * n
        result.counts = counts
        return result


__all__ = ["MAX_REMEMBERED", "MAX_REMEMBERED_BYTES", "MAX_ROWS", "SPILL_NAME", "KnownKeys", "OnePassPlan"]
