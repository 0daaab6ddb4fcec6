"""The replica's catalog in the Spark runtime: applied DDL changes it in event order, and every
event gets the error the applier would stop with (``applier_error``), as ``replfilter evaluate``
gives them (:class:`~replfilter.evaluation.event_lines.LineEvaluator`,
:mod:`replfilter.evaluation.catalog.follow`, :mod:`replfilter.evaluation.applier_errors`).

Why it can stay (almost) in Spark: the error of an event depends on its decision key and on the
replica's catalog where the event stands, and the catalog changes only at the few applied DDL
events of a batch (0.5 % of a real relay log). So:

* no schema given (no replica catalog): ``applier_error`` is a NULL literal and nothing else runs
  ("not known" is not "missing");
* with a schema, one narrow scan finds the DDL candidates (query events whose text starts with
  CREATE/ALTER/DROP/RENAME/USE, a superset checked again on the driver) and brings them, with
  their position, to the driver. There they are replayed in order with the evaluator's own
  follower, cutting the batch into *catalog epochs*;
* an event's error is a function of its key in one epoch. A key whose tables no applied DDL of
  the batch touched has one error for the whole batch; only a key naming a table that a DDL
  created or dropped has an error that changes with the position (the positions of the changes,
  and the error after each). A DDL event's own error (e.g. 1050, the table exists) is pinned to
  its position. All three come to the rows by one broadcast join on the key hash, with a row
  only for the keys that can have an error (a CASE per key was 20 x slower: it recomputed the
  hash in every branch).

The position is given by the caller as one or more order columns (compared as a struct): the
stream uses the file and the line (files by name, lines by number), ``decide_frame`` takes
``order=``. Positions must be distinct, and present (not NULL) on every DDL event.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ..core.errors import MySQLError
from ..evaluation.applier_errors import FIRES, applier_error, error_text, last_sql_error
from ..evaluation.evaluator import Decision, channel_filters, compile_filters, decide_compiled
from ..evaluation.events import Event, QueryEvent, RowEvent
from ..evaluation.catalog.follow import CatalogFollower
from ..evaluation.catalog.text import first_word, is_schema_statement
from ..replica.catalog import Catalog, CatalogBuilder
from ..replica.state import ReplicaState
from .schema import UPDATING_UNKNOWN, table_ref, table_values

APPLIER_ERROR = "applier_error"
DDL_CANDIDATE = r"(?i)^[^a-z_]*(create|alter|drop|rename|use)"
"""A superset of :func:`~replfilter.evaluation.catalog.text.first_word` in the schema words: what
precedes the first word there (blanks, ``/*!NNNNN``) holds no letter. The driver checks again."""


class OrderNeededError(ValueError):
    """A batch with applied DDL and a schema, but no order to replay the DDL in."""


# --- the driver: replaying the DDL in order ------------------------------------------------------


class _RecordingBuilder(CatalogBuilder):
    """A builder that notes which databases a statement changed (the only ones where a table
    can have appeared or disappeared)."""

    def __init__(self, start: Catalog):
        super().__init__(start)
        self.touched: set[str] = set()

    def _opened(self, db: str):
        self.touched.add(self.key(db))
        return super()._opened(db)

    def drop_database(self, db: str) -> None:
        self.touched.add(self.key(db))
        super().drop_database(db)


class _Follower(CatalogFollower):
    """The evaluator's follower (same :meth:`applied`), over a recording builder."""

    def __init__(self, catalog: Catalog):
        super().__init__(catalog)
        self._builder = _RecordingBuilder(catalog)

    @property
    def touched(self) -> set[str]:
        return self._builder.touched


@dataclass(frozen=True)
class KeyModel:
    """What this module needs of :mod:`.transform`'s decision keys, handed over by the caller
    (this module is imported by it, so it does not import it back)."""

    columns: tuple[str, ...]                      # KEY_COLUMNS
    hash: Callable[[int | None], Column]          # key_hash
    event: Callable[[Mapping[str, Any]], Event]   # event_from_key
    column: Callable[[str], Column]               # key_column: a key column as keys compare


@dataclass(frozen=True)
class _Key:
    event: Event
    decision: Decision
    tables: tuple[tuple[str, str], ...]   # (db, table) the applier opens, as written


@dataclass
class FollowedBatch:
    """What the driver found: the catalog after the batch, and ``applier_error`` per key
    (constant over the batch, or changing at positions), plus the errors pinned to DDL events.
    ``first_errors``: per channel, the first event (in order) the applier stops on, among the DDL
    and the keys whose error changes (the rest is found in Spark, :func:`first_errors`)."""

    catalog: Catalog
    model: KeyModel
    constant: dict[tuple, str] = field(default_factory=dict)
    varying: dict[tuple, tuple[str | None, list[tuple[tuple, str | None]]]] = field(default_factory=dict)
    pinned: list[tuple[tuple, tuple, str | None]] = field(default_factory=list)
    """(position, canonical key, error) of DDL events whose own error differs from their key's."""
    keys: dict[tuple, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """canonical key -> (its hash, its values)"""
    errors: dict[str, MySQLError] = field(default_factory=dict)
    """Every error text given, and the error it prints."""
    ddl_events: int = 0

    @property
    def any_error(self) -> bool:
        return bool(self.constant or self.varying or any(text is not None for _, _, text in self.pinned))


def _text(error: MySQLError | None, seen: dict[str, MySQLError] | None = None) -> str | None:
    if error is None:
        return None
    text = error_text(error)
    if seen is not None:
        seen[text] = error
    return text


def _opened_tables(event: Event, decision: Decision, follower: CatalogFollower) -> tuple[tuple[str, str], ...]:
    """The tables :func:`applier_error` looks up for this event (none when it cannot fail): its
    own, then those the triggers it fires open (the triggers of ``follower``'s catalog as it
    stands: :func:`follow_batch` asks again where a DDL changed them)."""
    from ..evaluation.applier_errors import OPENS_ITS_TABLES, trigger_tables

    if not decision.applied or decision.db is None:
        return ()
    if isinstance(event, RowEvent):
        return ((decision.db, event.table),)
    if isinstance(event, QueryEvent) and event.command in OPENS_ITS_TABLES:
        own = tuple((ref.db if ref.db is not None else decision.db, ref.table) for ref in event.tables)
        return own + tuple(trigger_tables(event, decision.db, follower))
    return ()


class _Decider:
    """Decisions with each channel's filters compiled once (the evaluator's, as pass 1's)."""

    def __init__(self, state: ReplicaState):
        self.state = state
        self._compiled: dict[str, Any] = {}

    def compiled(self, channel: str):
        found = self._compiled.get(channel)
        if found is None:
            found = self._compiled[channel] = compile_filters(channel_filters(self.state, channel), self.state.collation)
        return found

    def __call__(self, event: Event) -> Decision:
        return decide_compiled(self.compiled(event.channel), event)


def follow_batch(
    model: KeyModel,
    state: ReplicaState,
    keys: Iterable[tuple[int, dict[str, Any]]],
    ddl_rows: Sequence[tuple[tuple, dict[str, Any], str]],
) -> FollowedBatch:
    """Replay the batch's DDL candidates (``(position, key values, sql)``, any order)
    on the replica's catalog in position order, as :class:`LineEvaluator` does event by event,
    and give each key's ``applier_error`` per epoch. ``state.replica_catalog`` must be known."""
    event_from_key = model.event
    start = state.replica_catalog
    assert start is not None
    decide = _Decider(state)
    follower = _Follower(start)
    lookup = follower._builder
    info: dict[tuple, _Key] = {}
    by_table: dict[tuple[str, str], list[tuple]] = {}
    interest: dict[str, dict[str, tuple[str, str]]] = {}
    result = FollowedBatch(start, model)
    hashes: dict[tuple, tuple[int, dict[str, Any]]] = {}
    firing: dict[tuple[str, str], list[tuple]] = {}   # a table -> the keys that fire its triggers
    fired: dict[tuple[str, str], tuple] = {}           # a table -> its triggers, as last seen
    exists: dict[tuple[str, str], bool] = {}

    def opens(canon: tuple, tables: tuple[tuple[str, str], ...]) -> None:
        for db, table in tables:
            k = (lookup.key(db), lookup.key(table))
            keys_of = by_table.setdefault(k, [])
            if canon not in keys_of:
                keys_of.append(canon)
            interest.setdefault(k[0], {})[k[1]] = (db, table)
            if k not in exists:
                exists[k] = lookup.table(db, table) is not None

    for h, values in keys:
        hashes[canonical(values)] = (h, values)
        event = event_from_key(values)
        decision = decide(event)
        tables = _opened_tables(event, decision, follower)
        if not tables:
            continue
        canon = canonical(values)
        info[canon] = _Key(event, decision, tables)
        result.keys[canon] = (h, values)
        opens(canon, tables)
        if isinstance(event, QueryEvent) and event.command in FIRES:
            for ref in event.tables:
                if ref.updating is True:
                    db = ref.db if ref.db is not None else decision.db
                    k = (lookup.key(db), lookup.key(ref.table))
                    firing.setdefault(k, []).append(canon)
                    fired.setdefault(k, tuple(lookup.triggers_on(db, ref.table)))
    current = {h: _text(applier_error(k.event, k.decision.decision, k.decision.db, follower), result.errors) for h, k in info.items()}
    initial = dict(current)
    changes: dict[tuple, list[tuple[tuple, str | None]]] = {}
    ordered = sorted(ddl_rows, key=lambda row: _position_key(row[0]))
    by_key: dict[tuple, tuple[Event, Decision]] = {}   # a decision does not depend on the text
    for position, values, sql in ordered:
        if not is_schema_statement(first_word(sql)):
            continue
        canon = canonical(values)
        known = by_key.get(canon)
        if known is None:
            event = event_from_key(values)
            known = by_key[canon] = (event, decide(event))
        event, decision = replace(known[0], sql=sql), known[1]
        if not decision.applied:
            continue
        result.ddl_events += 1
        follower.touched.clear()
        stop = follower.run(event, decision)
        if _text(stop, result.errors) != current.get(canon):
            result.pinned.append((position, canon, _text(stop, result.errors)))
            result.keys.setdefault(canon, hashes.get(canon, (0, values)))
        recheck: dict[tuple, None] = {}   # (ordered: the changes are found in one order every run)
        for dbk in follower.touched:
            for tk, (db, t) in interest.get(dbk, {}).items():
                now = lookup.table(db, t) is not None
                if now == exists[(dbk, tk)]:
                    continue
                exists[(dbk, tk)] = now
                recheck.update(dict.fromkeys(by_table[(dbk, tk)]))
        retrigger: dict[tuple, None] = {}
        for (dbk, tk), firing_keys in firing.items():
            if dbk in follower.touched:  # a trigger created or dropped (also with its table) fires anew
                db, t = interest[dbk][tk]
                now_fired = tuple(lookup.triggers_on(db, t))
                if now_fired != fired[(dbk, tk)]:
                    fired[(dbk, tk)] = now_fired
                    retrigger.update(dict.fromkeys(firing_keys))
        for kh in retrigger:
            k = info[kh]
            tables = _opened_tables(k.event, k.decision, follower)
            if tables != k.tables:
                info[kh] = k = replace(k, tables=tables)
                opens(kh, tables)
        recheck.update(retrigger)
        for kh in recheck:
            k = info[kh]
            text = _text(applier_error(k.event, k.decision.decision, k.decision.db, follower), result.errors)
            if text != current[kh]:
                current[kh] = text
                changes.setdefault(kh, []).append((position, text))
    for h, text in initial.items():
        if h in changes:
            result.varying[h] = (text, changes[h])
        elif text is not None:
            result.constant[h] = text
    result.catalog = follower.catalog
    return result


def canonical(values: dict[str, Any]) -> tuple:
    """One hashable value per distinct key (pass 1's rows and collected rows alike)."""
    tables = values.get("tables")
    if tables is not None:
        tables = tuple((ref.db, ref.table, ref.updating) for ref in map(table_ref, tables))
    return (values.get("channel"), values.get("type"), values.get("command"), values.get("kind"),
            values.get("default_db"), values.get("db"), values.get("table"), values.get("temporary"),
            values.get("if_exists"), tables)


def _position_key(position: tuple) -> tuple:
    if any(v is None for v in position):
        raise OrderNeededError(f"a DDL event has no position (an order column is NULL): {position!r}")
    return position


# --- DROP TRIGGER: the trigger's table where the event stands -------------------------------------


def resolve_drop_triggers(
    model: KeyModel, df: DataFrame, state: ReplicaState, order: Sequence[str] | None, keys: Iterable[Mapping[str, Any]]
) -> DataFrame:
    """``df`` with the table list of each DROP TRIGGER that waits for it (its text, an empty
    list) filled in as the replica builds it: the trigger's table in the replica's catalog as the
    applied DDL before the event left it (:func:`~replfilter.evaluation.drop_trigger.decide_drop_trigger`,
    what ``replfilter evaluate`` runs event by event); an empty list when the trigger is not
    there (the evaluator then skips it: "not found"). Its key then decides it exactly, and the
    follower (:func:`follow_batch`) replays it as any DDL.

    ``keys`` (pass 1's, as dicts or Rows) say whether there is any such event: when not, ``df``
    itself, and no job. Else one narrow scan brings the DDL candidates and those events to the
    driver (they are rare query events), where they are replayed in ``order``; the lists go back
    into the rows by a CASE on the position. Needs the replica's catalog."""
    from ..evaluation.drop_trigger import decide_drop_trigger, named_trigger
    from .key_events import InvalidEventError
    from .sql_tables import unresolved_drop_trigger

    if state.replica_catalog is None or not any(
        k["type"] == "query" and k["command"] == "DROP_TRIGGER" and not k["tables"] for k in keys
    ):
        return df
    waiting = F.coalesce(unresolved_drop_trigger(), F.lit(False))
    columns = [*[F.col(c) for c in model.columns], F.col("sql"), waiting.alias("_rf_trigger")]
    if order:
        columns.append(_position(order).alias("_rf_pos"))
    found = df.where(ddl_candidates() | waiting).select(*columns).collect()
    if order:
        found.sort(key=lambda row: _position_key(tuple(row["_rf_pos"])))
    decide = _Decider(state)
    follower = CatalogFollower(state.replica_catalog)
    resolved: dict[tuple, tuple] = {}
    changed = False
    for row in found:
        sql = row["sql"]
        event = replace(model.event({c: _plain(row[c]) for c in model.columns}), sql=sql)
        if row["_rf_trigger"]:
            trigger = named_trigger(event)  # type: ignore[arg-type]
            if trigger is None:
                raise InvalidEventError(f"a DROP TRIGGER whose text names no trigger: {sql!r}")
            event, decision = decide_drop_trigger(event, trigger, decide.compiled(event.channel), follower)  # type: ignore[arg-type]
            where = tuple(row["_rf_pos"]) if order else (row["channel"], row["default_db"], sql)
            resolved[where] = event.tables
        elif is_schema_statement(first_word(sql)):
            decision = decide(event)
        else:
            continue
        if decision.applied:
            changed = True
            follower.run(event, decision)
    if changed and not order:
        raise OrderNeededError(
            "the batch has DDL the replica applies, and a DROP TRIGGER is decided by the catalog where "
            "it stands: give the order (order=[columns], e.g. the file and line of each event)"
        )
    tables = F.col("tables")
    for where, refs in resolved.items():
        if not refs:  # not found: the list stays empty
            continue
        if order:
            at = _position(order) == _position_literal(df, order, where)
        else:
            at = (F.col("channel").eqNullSafe(F.lit(where[0]).cast("string"))
                  & F.col("default_db").eqNullSafe(F.lit(where[1]).cast("string")) & (F.col("sql") == F.lit(where[2])))
        element = df.schema["tables"].dataType.elementType
        literal = F.array(*[F.struct(*[F.lit(v).cast(element[name].dataType).alias(name)
                                       for name, v in table_values(t).items() if name in element.names]) for t in refs])
        tables = F.when(waiting & at, literal.cast(df.schema["tables"].dataType)).otherwise(tables)
    return df.withColumn("tables", tables)


# --- Spark: finding the DDL, and the column ------------------------------------------------------


def ddl_candidates() -> Column:
    """Query events whose text may be a schema statement (the driver checks each exactly)."""
    return F.coalesce((F.col("type") == "query") & F.col("sql").rlike(DDL_CANDIDATE), F.lit(False))


def _position(order: Sequence[str]) -> Column:
    return F.struct(*[F.col(_quoted(c)).alias(f"p{i}") for i, c in enumerate(order)])


def _position_literal(df: DataFrame, order: Sequence[str], position: tuple) -> Column:
    return F.struct(*[F.lit(v).cast(df.schema[c].dataType).alias(f"p{i}") for i, (c, v) in enumerate(zip(order, position))])


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def follow(
    model: KeyModel,
    df: DataFrame,
    state: ReplicaState,
    keys: Iterable[tuple[int, dict[str, Any]]],
    order: Sequence[str] | None,
    hash_modulus: int | None = None,
) -> FollowedBatch | None:
    """Run the DDL scan (one narrow job) and replay; None when no schema is known (no work)."""
    KEY_COLUMNS = model.columns
    if state.replica_catalog is None:
        return None
    if "sql" not in df.columns:  # no text: no event of the frame can change the schema
        return follow_batch(model, state, keys, ())
    columns = [*[F.col(c) for c in KEY_COLUMNS], F.col("sql")]
    if order:
        columns.append(_position(order).alias("_rf_pos"))
    found = df.where(ddl_candidates()).select(*columns).collect()
    ddl_rows = []
    for row in found:
        values = {c: _plain(row[c]) for c in KEY_COLUMNS}
        position = tuple(row["_rf_pos"]) if order else None
        ddl_rows.append((position, values, row["sql"]))
    if not order and any(is_schema_statement(first_word(sql)) for *_, sql in ddl_rows):
        needed = [r for r in ddl_rows if is_schema_statement(first_word(r[2]))]
        # without an order only a batch whose DDL the applier skips can be followed
        decide = _Decider(state)
        if any(decide(replace(model.event(v), sql=s)).applied for _, v, s in needed):
            raise OrderNeededError(
                "the batch has DDL the replica applies, and its catalog follows it in event order: "
                "give the order (order=[columns], e.g. the file and line of each event)"
            )
        ddl_rows = []
    return follow_batch(model, state, keys, ddl_rows)


def _plain(value):
    if hasattr(value, "asDict"):
        return value.asDict(recursive=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def no_applier_error() -> Column:
    """The ``applier_error`` column of a batch without a schema (or without an error in it)."""
    return F.lit(None).cast("string").alias(APPLIER_ERROR)


def with_applier_error(
    df: DataFrame,
    followed: FollowedBatch | None,
    order: Sequence[str] | None,
    collision: bool = False,
    hash_modulus: int | None = None,
) -> DataFrame:
    """``df`` (event rows with the key columns) with the ``applier_error`` column: a NULL
    literal when the batch has no error at all; else a broadcast join on the key hash with one
    row per key that can have an error (its constant error, or its errors between positions,
    and the errors pinned to its DDL events), and a small expression on the joined columns."""
    if followed is None or not followed.any_error:
        return df.withColumn(APPLIER_ERROR, no_applier_error())
    if (followed.varying or followed.pinned) and not order:  # pragma: no cover - follow() refuses it
        raise OrderNeededError("an order is needed to place events between DDL")
    if collision:
        return _with_applier_error_by_case(df, followed, order)
    from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

    key_hash = followed.model.hash
    position_type = StructType([StructField(f"p{i}", df.schema[c].dataType, True) for i, c in enumerate(order or ())])
    table_schema = StructType([
        StructField("_rf_eh", LongType(), False),
        StructField("_rf_const", StringType(), True),
        StructField("_rf_at", ArrayType(position_type), True),       # positions where it changes
        StructField("_rf_then", ArrayType(StringType()), True),     # [error before, after 1st, ...]
        StructField("_rf_pin_at", ArrayType(position_type), True),   # its DDL events' positions
        StructField("_rf_pin", ArrayType(StringType()), True),
    ])
    rows: dict[tuple, list] = {}

    def row(canon: tuple) -> list:
        found = rows.get(canon)
        if found is None:
            found = rows[canon] = [followed.keys[canon][0], None, None, None, None, None]
        return found

    for canon, text in followed.constant.items():
        row(canon)[1] = text
    for canon, (first, changes) in followed.varying.items():
        r = row(canon)
        r[2] = [at for at, _ in changes]
        r[3] = [first, *[text for _, text in changes]]
    for at, canon, text in followed.pinned:
        r = row(canon)
        r[4] = (r[4] or []) + [at]
        r[5] = (r[5] or []) + [text]
    table = F.broadcast(df.sparkSession.createDataFrame([tuple(r) for r in rows.values()], table_schema))
    joined = df.withColumn("_rf_eh", key_hash(hash_modulus)).join(table, "_rf_eh", "left")
    position = _position(order) if order else None
    error: Column = F.col("_rf_const")
    if followed.varying:
        earlier = F.size(F.filter(F.col("_rf_at"), lambda at: at < position))
        error = F.when(F.col("_rf_at").isNotNull(), F.element_at(F.col("_rf_then"), earlier + 1)).otherwise(error)
    if followed.pinned:
        at = F.array_position(F.col("_rf_pin_at"), position)
        error = F.when(F.coalesce(at, F.lit(0)) > 0, F.element_at(F.col("_rf_pin"), at.cast("int"))).otherwise(error)
    return joined.withColumn(APPLIER_ERROR, error).select(*[F.col(_quoted(c)) for c in df.columns], APPLIER_ERROR)


def _with_applier_error_by_case(df: DataFrame, followed: FollowedBatch, order: Sequence[str] | None) -> DataFrame:
    """For a batch where two keys share a hash: each key matched on its full columns (slow,
    exact, and rare: a 64-bit hash)."""
    expr: Column = F.lit(None).cast("string")
    for canon, text in followed.constant.items():
        expr = F.when(_key_matches(followed.model, followed.keys[canon][1]), F.lit(text)).otherwise(expr)
    if order:
        position = _position(order)
        for canon, (first, changes) in followed.varying.items():
            inner: Column = F.lit(first).cast("string")
            for at, text in changes:
                inner = F.when(position > _position_literal(df, order, at), F.lit(text).cast("string")).otherwise(inner)
            expr = F.when(_key_matches(followed.model, followed.keys[canon][1]), inner).otherwise(expr)
        for at, _canon, text in followed.pinned:
            expr = F.when(position == _position_literal(df, order, at), F.lit(text).cast("string")).otherwise(expr)
    return df.withColumn(APPLIER_ERROR, expr)


def _key_matches(model: KeyModel, values: dict[str, Any]) -> Column:
    """The row's key columns equal ``values`` (NULL-safe): for batches where two keys share a hash."""
    condition = F.lit(True)
    for c in model.columns:
        if c == "tables":
            want = values[c]
            target = F.lit(None).cast("string") if want is None else F.lit(_tables_json(want))
            condition = condition & F.to_json(model.column(c)).eqNullSafe(target)
        else:
            condition = condition & model.column(c).eqNullSafe(F.lit(values[c]))
    return condition


def _tables_json(tables) -> str:
    import json

    return json.dumps(
        [{k: v for k, v in (("db", t["db"]), ("table", t["table"]), ("updating", t["updating"]),
                            (UPDATING_UNKNOWN, t.get(UPDATING_UNKNOWN))) if v is not None} for t in tables],
        separators=(",", ":"), ensure_ascii=False,
    )


__all__ = [
    "APPLIER_ERROR", "FollowedBatch", "no_applier_error", "OrderNeededError", "ddl_candidates", "follow", "follow_batch",
    "resolve_drop_triggers", "with_applier_error",
]


def first_errors(applied: DataFrame, followed: FollowedBatch | None, order: Sequence[str] | None) -> dict[str, tuple[int, str]]:
    """Per channel, the first applied event (in ``order``) that the applier would stop on, as
    ``(Last_SQL_Errno, Last_SQL_Error)`` (what REPLAY EVENTS sets). ``applied`` has
    ``applier_error``. One small job, and only when the batch has an error at all."""
    if followed is None or not followed.any_error:
        return {}
    KEY_COLUMNS, event_from_key = followed.model.columns, followed.model.event
    rank = _position(order) if order else F.lit(0)
    row = F.struct(*[F.col(c) for c in KEY_COLUMNS], F.col("sql"), F.col(APPLIER_ERROR))
    found = (
        applied.where(F.col(APPLIER_ERROR).isNotNull())
        .groupBy(F.col("channel").alias("_rf_channel"))
        .agg(F.min_by(row, rank).alias("_rf_first"))
        .collect()
    )
    out = {}
    for r in found:
        first = r["_rf_first"].asDict(recursive=True)
        error = followed.errors.get(first[APPLIER_ERROR])
        if error is None:  # pragma: no cover - every text comes from the driver
            continue
        event = replace(event_from_key({c: first[c] for c in KEY_COLUMNS}), sql=first["sql"]) if first["type"] == "query" \
            else event_from_key({c: first[c] for c in KEY_COLUMNS})
        out[r["_rf_channel"]] = (error.code, last_sql_error(event, error))
    return out
