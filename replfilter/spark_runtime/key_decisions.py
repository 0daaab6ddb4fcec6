"""Distinct keys decided where they are: on the executors, by the reference evaluator.

Why: a tenant replica (20,000 databases of 50 tables, 4 channels) has ~1.5 M distinct decision
keys in 4 M events. Collecting them to the driver, deciding them in one Python process and
shipping a lookup table back made every step grow with the keys. Deciding a key is cheap
(``decide_compiled`` on a row event: ~1.7 us); moving it is not.

So the distinct-key frame of pass 1 (:func:`.key_counts.distinct_keys`) goes through
``mapInArrow``: each task unpickles the state once, compiles each channel's filters once
(:func:`~replfilter.evaluation.evaluator.compile_filters`) and decides its keys with
:func:`~replfilter.evaluation.evaluator.decide_compiled` — the evaluator itself, not a
re-implementation. Each key row gets its outcome (the four decision columns as one JSON string),
whether it is applied, its COUNTER increments (JSON) and, for a key that is not an event, an
error. The driver then collects only a :func:`summary`: one row per (channel, outcome,
increments), with the summed event count and the number of keys — a few dozen rows however many
keys there are. Outcome codes (1-based, as the lookups use) are positions in the summary's
distinct outcomes, so a key's code is ``array_position`` on a literal array (:func:`code_column`).

Errors travel as data, not as task failures: an unknown channel or a key that is not an event is
raised on the driver as the same exception the driver-side path raises
(:class:`~replfilter.evaluation.evaluator.UnknownChannelError`, :class:`.transform.InvalidEventError`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, StringType, StructField, StructType

from ..core.filters import FilterType
from ..evaluation.evaluator import UnknownChannelError
from ..replica.state import ReplicaState
from . import literals
from .key_events import KEY_COLUMNS, InvalidEventError, decision_values, event_from_key

KEY_STRUCT = "_rf_k"
NEEDS_SQL = "_rf_needs_sql"
OUTCOME = "_rf_outcome"
APPLIED = "_rf_applied"
INCREMENTS = "_rf_increments"
ERROR = "_rf_error"
PASSED = ("count", "channel", NEEDS_SQL)
"""The columns a decided key keeps after its hash: what :func:`summary` groups and sums."""
DECIDED_FIELDS = (
    StructField(OUTCOME, StringType(), True),
    StructField(APPLIED, BooleanType(), True),
    StructField(INCREMENTS, StringType(), True),
    StructField(ERROR, StringType(), True),
)
_FTYPES = {ftype.keyword: ftype for ftype in FilterType}


def _decider(state: ReplicaState):
    """The function ``mapInArrow`` runs: closes over ``state`` (pickled once per task).

    A batch holds the hash, the :data:`PASSED` columns, then the key columns: only ``db`` and
    ``table`` for row keys (:func:`decide_on_executors` sends those apart), all the others
    otherwise."""

    def decide_batches(batches):
        import pyarrow as pa

        from ..evaluation.evaluator import channel_filters, compile_filters, decide_compiled
        from ..evaluation.events import RowEvent

        compiled: dict[str, Any] = {}
        outcome_json: dict[tuple, str] = {}
        increments_json: dict[tuple, str] = {}

        def filters_for(channel: str):
            found = compiled.get(channel)
            if found is None:
                found = compiled[channel] = compile_filters(channel_filters(state, channel), state.collation)
            return found

        kept = 1 + len(PASSED)
        for batch in batches:
            names = batch.schema.names
            channels = batch.column(names.index("channel")).to_pylist()
            keys = {name: batch.column(i).to_pylist() for i, name in enumerate(names) if i >= kept}
            row_keys = "type" not in keys
            dbs, tables = keys["db"], keys["table"]
            outcomes, applied, increments, errors = [], [], [], []
            for i, channel in enumerate(channels):
                try:
                    if row_keys:
                        event = RowEvent("" if channel is None else channel, dbs[i], tables[i])
                    else:
                        event = event_from_key({"channel": channel, **{name: v[i] for name, v in keys.items()}})
                    decision = decide_compiled(filters_for(event.channel), event)
                    values4 = decision_values(decision)  # (refuses an undecided one, key_events.py)
                except UnknownChannelError as err:
                    outcomes.append(None), applied.append(None), increments.append(None)
                    errors.append("channel\t" + err.channel)
                    continue
                except InvalidEventError as err:
                    outcomes.append(None), applied.append(None), increments.append(None)
                    errors.append("invalid\t" + str(err))
                    continue
                text = outcome_json.get(values4)
                if text is None:
                    text = outcome_json[values4] = json.dumps(list(values4))
                outcomes.append(text)
                applied.append(decision.applied)
                inc = decision.increments
                if inc:
                    key = tuple(inc.items())
                    text = increments_json.get(key)
                    if text is None:
                        text = increments_json[key] = json.dumps(sorted((f.keyword, k) for f, k in key))
                    increments.append(text)
                else:
                    increments.append("")
                errors.append(None)
            yield pa.RecordBatch.from_arrays(
                [*batch.columns[:kept], pa.array(outcomes, pa.string()), pa.array(applied, pa.bool_()),
                 pa.array(increments, pa.string()), pa.array(errors, pa.string())],
                names=[*names[:kept], OUTCOME, APPLIED, INCREMENTS, ERROR],
            )

    return decide_batches


def decide_on_executors(distinct: DataFrame, state: ReplicaState, hash_column: str, collided: list[int]) -> DataFrame:
    """The keys of pass 1's :func:`~.key_counts.distinct_keys` frame, decided by the tasks
    (lazy): one row per key with its hash, the :data:`PASSED` columns and
    :data:`DECIDED_FIELDS`. Keys whose hash is in ``collided`` are left out: the driver decides
    them on their full key (:mod:`.transform`).

    Row keys travel apart, as ``(channel, db, table)``: a tenant replica's keys are nearly all
    row keys, and moving the six NULL query fields and the table list through Arrow cost more
    than deciding (1.58 M keys, an identity ``mapInArrow``: 0.9 s with the row columns, 2.5 s
    with all ten)."""
    if collided:
        distinct = distinct.where(~F.col(hash_column).isin(collided))
    # (NULL when ``type`` is: such a key goes with the others, and is refused as not an event)
    row_key = F.coalesce((F.col("type") == "row") & F.col("db").isNotNull() & F.col("table").isNotNull(), F.lit(False))
    rows = distinct.where(row_key).select(hash_column, "count", "channel", F.lit(False).alias(NEEDS_SQL), "db", "table")
    others = distinct.where(~row_key).select(
        hash_column, "count", "channel", needs_sql().alias(NEEDS_SQL), *[c for c in KEY_COLUMNS if c != "channel"]
    )
    schema = StructType([*rows.schema.fields[: 1 + len(PASSED)], *DECIDED_FIELDS])
    # One task per core, not one per shuffle partition (200 by default): each task unpickles
    # the state and compiles every channel's filters, which costs more than deciding a few
    # thousand keys.
    tasks = max(1, distinct.sparkSession.sparkContext.defaultParallelism)
    decide = _decider(state)
    return rows.coalesce(tasks).mapInArrow(decide, schema).union(others.coalesce(tasks).mapInArrow(decide, schema))


def needs_sql() -> Column:
    """Whether a key may still wait for its tables or command from SQL text: as
    :func:`.sql_tables.key_needs_sql`, on the key columns."""
    trigger = (F.col("command") == "DROP_TRIGGER") & (F.size("tables") == 0)
    return F.coalesce(
        (F.col("type") == "query") & (F.col("tables").isNull() | F.col("command").isNull() | trigger), F.lit(False)
    )


@dataclass
class Summary:
    """What the driver keeps of a decided key frame: totals, counters and the distinct outcomes."""

    outcomes: list[tuple] = field(default_factory=list)
    outcome_texts: list[str] = field(default_factory=list)
    counts: dict[str, dict[FilterType, int]] = field(default_factory=dict)
    events: int = 0
    applied: int = 0
    skipped: int = 0
    keys: int = 0
    needs_sql: bool = False

    def add(self, channel: str, applied: bool, increments: dict[FilterType, int], n: int) -> None:
        """Add ``n`` events of one key (or one class of keys) to the totals and counters."""
        self.events += n
        if applied:
            self.applied += n
        else:
            self.skipped += n
        if increments:
            per_channel = self.counts.setdefault(channel, {})
            for ftype, k in increments.items():
                per_channel[ftype] = per_channel.get(ftype, 0) + k * n

    def code_of(self, outcome: tuple) -> int:
        """The 0-based index of ``outcome``, added when new."""
        text = json.dumps(list(outcome))
        try:
            return self.outcome_texts.index(text)
        except ValueError:
            self.outcome_texts.append(text)
            self.outcomes.append(outcome)
            return len(self.outcomes) - 1


def summary(decided: DataFrame) -> Summary:
    """The small aggregate of a decided key frame the driver needs (one Spark job), raising the
    first error a key carries."""
    rows = (
        decided.groupBy("channel", OUTCOME, APPLIED, INCREMENTS, ERROR, NEEDS_SQL)
        .agg(F.sum("count").alias("n"), F.count(F.lit(1)).alias("keys"))
        .collect()
    )
    for row in rows:
        error = row[ERROR]
        if error is not None:
            kind, _, detail = error.partition("\t")
            raise UnknownChannelError(detail) if kind == "channel" else InvalidEventError(detail)
    result = Summary()
    result.needs_sql = any(row[NEEDS_SQL] for row in rows)
    for row in sorted(rows, key=lambda r: (r[OUTCOME] is None, r[OUTCOME] or "")):
        result.keys += row["keys"]
        text = row[OUTCOME]
        if text not in result.outcome_texts:
            result.outcome_texts.append(text)
            result.outcomes.append(tuple(json.loads(text)))
        increments = {_FTYPES[name]: k for name, k in json.loads(row[INCREMENTS])} if row[INCREMENTS] else {}
        channel = row["channel"]
        result.add("" if channel is None else channel, row[APPLIED], increments, row["n"])
    return result


def code_column(spark, outcome_texts: list[str]) -> Column:
    """The 1-based code of each decided key's outcome (its position in ``outcome_texts``)."""
    array = literals.string_array(spark, outcome_texts)
    if array is None:
        array = F.array(*[F.lit(t) for t in outcome_texts]) if outcome_texts else F.array().cast("array<string>")
    return F.array_position(array, F.col(OUTCOME)).cast("int")


__all__ = ["DECIDED_FIELDS", "KEY_STRUCT", "Summary", "code_column", "decide_on_executors", "needs_sql", "summary"]
