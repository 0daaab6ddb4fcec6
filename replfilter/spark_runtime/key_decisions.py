"""Distinct keys decided where they are: on the executors, by the reference evaluator.

Why: a tenant replica (20,000 databases of 50 tables, 4 channels) has ~1.5 M distinct decision
keys in 4 M events. Collecting them to the driver, deciding them in one Python process and
shipping a lookup table back made every step grow with the keys. Deciding a key is cheap
(``decide_compiled`` on a row event: ~1.7 us); moving it is not.

So the distinct-key frame of pass 1 (:mod:`.key_counts`) goes through ``mapInArrow``: each task
unpickles the state once, compiles each channel's filters once
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
from .key_events import HASH_COLUMN, InvalidEventError, decision_values, event_from_key

KEY_STRUCT = "_rf_k"
COLLIDED = "_rf_collided"
OUTCOME = "_rf_outcome"
APPLIED = "_rf_applied"
INCREMENTS = "_rf_increments"
ERROR = "_rf_error"
DECIDED_FIELDS = (
    StructField(OUTCOME, StringType(), True),
    StructField(APPLIED, BooleanType(), True),
    StructField(INCREMENTS, StringType(), True),
    StructField(ERROR, StringType(), True),
)
_FTYPES = {ftype.keyword: ftype for ftype in FilterType}


def key_values(sample: dict[str, Any] | None) -> dict[str, Any]:
    """The key columns of a key struct (:func:`.key_counts.key_struct`): the row part, and the
    query part when the struct has one."""
    if sample is None:
        return {}
    values = {k: v for k, v in sample.items() if k != "q"}
    q = sample.get("q")
    if q:
        values.update(q)
    return values


def _decider(state: ReplicaState):
    """The function ``mapInArrow`` runs: closes over ``state`` (pickled once per task)."""

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

        for batch in batches:
            keys = batch.column(batch.schema.get_field_index(KEY_STRUCT))
            collided = batch.column(batch.schema.get_field_index(COLLIDED)).to_pylist()
            channels = keys.field("channel").to_pylist()
            types = keys.field("type").to_pylist()
            dbs = keys.field("db").to_pylist()
            tables = keys.field("table").to_pylist()
            queries = keys.field("q").to_pylist()
            outcomes, applied, increments, errors = [], [], [], []
            for i, typ in enumerate(types):
                if collided[i]:  # decided exactly on the driver (transform), never from a sample
                    outcomes.append(None), applied.append(None), increments.append(None), errors.append(None)
                    continue
                channel = channels[i]
                try:
                    if typ == "row" and dbs[i] is not None and tables[i] is not None:
                        event = RowEvent("" if channel is None else channel, dbs[i], tables[i])
                    else:
                        values = {"channel": channel, "type": typ, "db": dbs[i], "table": tables[i]}
                        if queries[i]:
                            values.update(queries[i])
                        event = event_from_key(values)
                    decision = decide_compiled(filters_for(event.channel), event)
                except UnknownChannelError as err:
                    outcomes.append(None), applied.append(None), increments.append(None)
                    errors.append("channel\t" + err.channel)
                    continue
                except InvalidEventError as err:
                    outcomes.append(None), applied.append(None), increments.append(None)
                    errors.append("invalid\t" + str(err))
                    continue
                values4 = decision_values(decision)
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
                [*batch.columns, pa.array(outcomes, pa.string()), pa.array(applied, pa.bool_()),
                 pa.array(increments, pa.string()), pa.array(errors, pa.string())],
                names=[*batch.schema.names, OUTCOME, APPLIED, INCREMENTS, ERROR],
            )

    return decide_batches


def decide_on_executors(counted: DataFrame, state: ReplicaState) -> DataFrame:
    """``counted`` (one row per key hash: hash, count, key struct, collided flag) with the
    decision columns of :data:`DECIDED_FIELDS`, computed by the tasks (lazy)."""
    schema = StructType([*counted.schema.fields, *DECIDED_FIELDS])
    # One task per core, not one per shuffle partition (200 by default): each task unpickles
    # the state and compiles every channel's filters, which costs more than deciding a few
    # thousand keys.
    tasks = max(1, counted.sparkSession.sparkContext.defaultParallelism)
    return counted.coalesce(tasks).mapInArrow(_decider(state), schema)


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
    collided_groups: int = 0
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
        decided.groupBy(
            F.col(f"{KEY_STRUCT}.channel").alias("channel"), OUTCOME, APPLIED, INCREMENTS, ERROR, COLLIDED,
            _needs_sql().alias("needs_sql"),
        )
        .agg(F.sum("count").alias("n"), F.count(F.lit(1)).alias("keys"), F.first(HASH_COLUMN).alias("h"))
        .collect()
    )
    for row in rows:
        error = row[ERROR]
        if error is not None:
            kind, _, detail = error.partition("\t")
            raise UnknownChannelError(detail) if kind == "channel" else InvalidEventError(detail)
    result = Summary()
    result.needs_sql = any(row["needs_sql"] for row in rows)
    for row in sorted(rows, key=lambda r: (r[OUTCOME] is None, r[OUTCOME] or "")):
        if row[COLLIDED]:
            result.collided_groups += row["keys"]
            continue
        result.keys += row["keys"]
        text = row[OUTCOME]
        if text not in result.outcome_texts:
            result.outcome_texts.append(text)
            result.outcomes.append(tuple(json.loads(text)))
        increments = {_FTYPES[name]: k for name, k in json.loads(row[INCREMENTS])} if row[INCREMENTS] else {}
        channel = row["channel"]
        result.add("" if channel is None else channel, row[APPLIED], increments, row["n"])
    return result


def _needs_sql() -> Column:
    """A key that may still wait for its tables or command from SQL text (as
    :func:`.sql_tables.key_needs_sql`, on the key struct)."""
    k = F.col(KEY_STRUCT)
    trigger = (k["q"]["command"] == "DROP_TRIGGER") & (F.size(k["q"]["tables"]) == 0)
    return F.coalesce(
        (k["type"] == "query") & (k["q"]["tables"].isNull() | k["q"]["command"].isNull() | trigger), F.lit(False)
    )


def code_column(spark, outcome_texts: list[str]) -> Column:
    """The 1-based code of each decided key's outcome (its position in ``outcome_texts``)."""
    array = literals.string_array(spark, outcome_texts)
    if array is None:
        array = F.array(*[F.lit(t) for t in outcome_texts]) if outcome_texts else F.array().cast("array<string>")
    return F.array_position(array, F.col(OUTCOME)).cast("int")


__all__ = ["DECIDED_FIELDS", "Summary", "code_column", "decide_on_executors", "key_values", "summary"]
