"""Structured Streaming over a directory of events: decide, write, exactly once.

:class:`EventStream` reads an events directory as a file stream (``json`` lines, ``parquet``
or ``debezium`` JSON), or binary and relay log files as they grow (``binlog``:
:mod:`.binlog_stream`), and handles each micro-batch in ``foreachBatch``
(:meth:`EventStream.process_batch`):

1. take the session's state **as it is at the start of the batch** (filter changes made while a
   batch runs apply from the next one, as a replica applies them between transactions);
2. ingest: events and dead letters (malformed records, unknown channels);
3. decide, on one of the two paths of :mod:`.transform`:

   * **compiled** (the default; :mod:`.compiled_path`): the rules compiled from that state
     decide the row and transaction events they cover in the projection that writes them; one
     aggregate over the key columns of the other rows (query events, names that are not
     ASCII, declined channels, rows the native check refused) finds their keys for the
     reference evaluator, and tells whether the batch has dead letters at all;
   * **two passes** (a schema known: its catalog follower replays DDL from every key; Spark
     Connect; ``--two-pass``): pass 1 counts every key, pass 2 looks each row's decision up.

   The exact path's keys are decided on the driver when few (:data:`.exact_path.DRIVER_MAX_KEYS`)
   or a schema is known, else on the executors: a tenant replica's keys never reach the driver;
4. write applied events (database rewritten) to ``output_dir``, skipped events to
   ``skipped_dir`` (optional) and dead letters to ``dead_letter_dir`` (default
   ``output_dir/_dead_letter``, hidden from Parquet readers of ``output_dir``) — each as
   ``batch_id=N/`` Parquet directories;
5. move the COUNTERs of ``performance_schema.replication_applier_filters`` with
   ``Session.update`` (only for filter types not reconfigured meanwhile: a CHANGE REPLICATION
   FILTER resets a type's counter, and the batch was decided by the old rules). On the compiled
   path the covered rows' moves are observed as the applied events are written (one stage, no
   shuffle before the observation: Spark keeps a result task's metrics from one successful
   attempt), checked against the exact rows' own count, else counted by one aggregate
   (:func:`.compiled_path.add_observed`); they are recorded in the batch's manifest before
   anything moves.

Exactly once: every output is written aside, then a manifest commits the batch (its statistics
and COUNTER moves), then the outputs are renamed into place and the COUNTERs moved; a batch run
again after a crash only finishes the renames (:mod:`.sink`); one that never reached its
manifest is decided again from the start, its temporary outputs overwritten.

Stopping at a batch boundary: :meth:`EventStream.request_stop` waits for a running batch to
finish and makes any later batch refuse to start (raising, so Spark does not commit it), then
stops the query. What was not committed is simply read again on the next start.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence, TextIO

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ..evaluation.binlog.tail import local_log_directory, log_files
from ..server.session import Session
from ..replica.state import ReplicaState
from .binlog_stream import batch_position, binlog_source, split_log_rows
from .ingest import (
    checked_lines,
    lines_fallback,
    mark_event_rows,
    normalize_event_rows,
    rows_fallback,
    parse_debezium,
    parse_event_lines,
    split_unknown_channels,
)
from . import exact_path, literals
from .compiled_path import add_observed, compiled_frame, few_keys
from .compiled_rules import CompiledRules, compile_rules
from .key_decisions import needs_sql
from .schema import DEAD_LETTER_SCHEMA, DECISION_COLUMNS, INGESTED_COLUMNS, INGESTED_SCHEMA, UPDATING_UNKNOWN, Ingested
from .sink import BatchOutputs, BatchSink, BatchStats, is_local, local_path
from . import catalog_follow
from .catalog_follow import APPLIER_ERROR, no_applier_error
from .key_events import has_unknown_updating
from .sql_tables import decide_unknown_updating, key_needs_sql, resolve_sql_tables
from .source_schemas import SourceSchemas
from .batch_state import after_batch
from .key_counts import merge_key_rows
from .relay_events import claim_relay_events
from .stream_config import StreamConfig
from .transform import (
    KEY_MODEL,
    BatchDecisions,
    CountedKeys,
    count_keys,
    decide_counted,
    decide_keys,
    join_decisions,
    release,
    rewrite_databases,
)

OUTPUT_COLUMNS = (*INGESTED_COLUMNS, *DECISION_COLUMNS, APPLIER_ERROR)
_PLAN_NAMES = {"slots": "slot table", "broadcast": "broadcast join", "shuffle": "shuffle hash join"}
OBSERVED_WAIT = 5.0
"""Seconds a batch waits for the metrics observed as its applied events were written, which
Spark's listener bus hands over after the write returns: else the COUNTERs take one more job,
or a batch written first is decided again."""
LINE_ORDER = ("_source", "_block", "_pos")
"""The order of events in a JSON batch: files by name (their paths), then lines (the file
block, then the position in the scan): the order the replica's catalog follows DDL in."""


@dataclass(frozen=True)
class IngestedBatch:
    """A batch read and checked (pass 1): its events, its dead letters, its distinct keys with
    their counts (None when the executors decide them: ``counted`` holds them), and the number
    of dead letters when already known without a count."""

    events: DataFrame
    dead: DataFrame
    keys: list | None
    dead_count: int | None
    counted: CountedKeys | None = None


class StopRequested(RuntimeError):
    """Raised inside ``foreachBatch`` when a stop was requested: the batch is not run and not
    committed, so the next start reads it again."""


# --- the stream --------------------------------------------------------------------------------


def _parquet_events(reader, *paths: str) -> DataFrame:
    """Event rows from Parquet files (a stream's ``readStream`` or a batch's ``read``): a row
    image in ``record`` is kept; ``_pos``, the row in its file, is the order the replica's
    catalog follows DDL in (read only when used, with a schema); ``_file`` and ``_block`` say
    where a dead letter came from."""
    df = reader.schema(INGESTED_SCHEMA).parquet(*paths).withColumn("_pos", F.col("_metadata.row_index"))
    return df.withColumn("_file", F.col("_metadata.file_path")).withColumn("_block", F.col("_metadata.file_block_start"))


class EventStream:
    """One streaming query applying ``session``'s filters to ``config.events_dir``."""

    def __init__(
        self,
        spark,
        session: Session,
        config: StreamConfig,
        on_batch: Callable[[BatchStats], None] | None = None,
        progress: TextIO | None = None,
    ):
        self.spark = spark
        self.session = session
        if config.input_format == "binlog":  # a file:// URL read as its path; another file system refused
            config = replace(config, events_dir=local_log_directory(config.events_dir))
        self.config = config
        self.on_batch = on_batch
        self.on_batch_start: Callable[[int], None] | None = None
        self.progress = progress
        self.sink = BatchSink(spark, config.output_dir, config.dead_dir, config.skipped_dir, config.checkpoint_dir)
        self.store = self.sink.store
        self.query = None
        self.batches: list[BatchStats] = []
        self.running_batch: int | None = None
        self._lock = threading.Lock()
        self._stop = False
        self._query_id: str | None = None
        self._total_files: int | None = None
        self._files_done = 0
        self._plan: str | None = None
        self._rules: CompiledRules | None = None
        self._one_pass = True  # the next Parquet batch is written first, checked as it is written
        self._written_first = False  # this batch was
        self._checkpointed: list[DataFrame] = []
        self._sql_errors: dict[str, tuple[int, str]] = {}

    # -- source ----------------------------------------------------------------------------

    def source(self) -> DataFrame:
        c = self.config
        if c.input_format == "binlog":  # binary or relay log files, read as they grow
            channel = c.relay_channel if c.relay_channel is not None else c.debezium_channel
            return binlog_source(self.spark, c.events_dir, channel, c.max_files_per_trigger, decode_rows=c.binlog_rows,
                                 schemas=SourceSchemas.of(self.session.state) if c.binlog_rows else None)
        reader = self.spark.readStream
        if c.max_files_per_trigger:
            reader = reader.option("maxFilesPerTrigger", str(c.max_files_per_trigger))
        if c.input_format == "parquet":
            return _parquet_events(reader, c.events_dir)
        if c.input_format in ("json", "debezium"):
            df = reader.option("lineSep", "\n").text(c.events_dir)  # only a line feed ends a line
            return df.withColumn("_file", F.col("_metadata.file_path")).withColumn("_block", F.col("_metadata.file_block_start"))
        raise ValueError(f"unknown input format {c.input_format!r}")

    def _batch_events(self, df: DataFrame, file_names: list[str]) -> DataFrame:
        """The batch's Parquet files read again as a batch query, the same rows as ``df``: the
        frame ``foreachBatch`` passes is a ``LogicalRDD`` (Spark's ``ForeachBatchSink``), which
        no job can prune, so the key job read every column row by row, the ~400-byte row images
        too (1.0 s a 1 M-event batch, against 0.43 s from the files), and so did the write."""
        if self.config.input_format != "parquet" or not file_names:
            return df
        return _parquet_events(self.spark.read, *file_names)

    def _ingest_checked(
        self, marked: DataFrame, fallback: Callable[[DataFrame], Ingested], state: ReplicaState, keep,
        carry: tuple[str, ...] = (),
    ) -> "IngestedBatch":
        """Rows checked natively (``_ok``: Parquet rows, or parsed JSON lines): pass 1 groups by
        the key and the check, so one scan gives the keys and whether there are bad rows at all
        (with the keys on the executors, one more small job over the counted keys tells). Only
        when there are (among them records of channels the replica lacks) does the input get
        read again — by ``fallback``, the reference reader on the rows the check did not
        accept; its results are kept (``keep``), so that it runs once for every output of the
        batch."""
        c = self.config
        rows, counted = self._keys_of(marked, state, extra=("_ok",))
        good = marked.where(F.col("_ok")).select(*INGESTED_COLUMNS, *carry)
        every = marked.select(*INGESTED_COLUMNS, *carry)  # once every row passed the check
        if rows is None:  # the keys stay on the executors: ask them, in one small job
            per_channel = counted.frame.groupBy("channel").agg(F.min("_ok").alias("ok")).collect()
            clean = all(row["ok"] for row in per_channel)
            channels = {row["channel"] for row in per_channel}
        else:
            clean = all(row["_ok"] for row in rows)
            channels = {row["channel"] for row in rows}
        if clean:
            ingested = Ingested(every, self.spark.createDataFrame([], DEAD_LETTER_SCHEMA))
        else:
            checked = fallback(marked)
            # (a file carried only for dead letters is not known for the rows the check refused)
            ingested = Ingested(good.unionByName(checked.events, allowMissingColumns=True), checked.dead)
        if c.relay_channel is not None and channels - {c.relay_channel}:
            ingested = claim_relay_events(ingested, c.relay_channel)
            clean = False
        # (a record of a channel the replica lacks failed the native check: ``fallback`` made it
        # a dead letter, line and file kept)
        if clean and rows is None:  # every row passed the check: the keys are the batch's
            keys = CountedKeys(counted.frame.drop("_ok"), counted.keys)
            return IngestedBatch(ingested.events, ingested.dead, None, dead_count=0, counted=keys)
        if clean:
            return IngestedBatch(ingested.events, ingested.dead, merge_key_rows(rows), dead_count=0)
        events = keep(ingested.events)
        keys, counted = self._keys_of(events, state)
        return IngestedBatch(events, keep(ingested.dead), keys, dead_count=None, counted=counted)

    def _keys_of(
        self, frame: DataFrame, state: ReplicaState, extra: tuple[str, ...] = ()
    ) -> tuple[list | None, CountedKeys | None]:
        """The keys of the rows the exact path decides: on the compiled path those the
        expressions do not cover (:meth:`_covered`), collected in one job when few
        (:data:`.exact_path.DRIVER_MAX_KEYS`); else, and on the two passes' path (every row),
        pass 1 on the executors (:func:`.exact_path.count_keys`, checkpointed with the batch),
        with the keys on the driver only when it decides them: few, or a schema known (the
        catalog follower replays the DDL from the keys)."""
        if self._rules is not None:
            frame = frame.where(~self._covered(frame))
            rows = few_keys(frame, extra)
            if rows is not None:
                return rows, None
        counted = count_keys(frame, extra=extra, keep=self._checkpoint)
        if counted.keys <= exact_path.DRIVER_MAX_KEYS or state.replica_catalog is not None:
            return counted.rows(), counted
        return None, counted

    def _checkpoint(self, frame: DataFrame) -> DataFrame:
        """Checkpoint a batch's counted or decided keys, released when the batch ends, not by the
        JVM's collector (persisting them cost ~0.5-0.8 s more a 1 M-event batch)."""
        self._checkpointed.append(frame.localCheckpoint(eager=True))
        return self._checkpointed[-1]

    def _marked(self, df: DataFrame, channels: Sequence[str] | None = None, positioned: bool = False) -> DataFrame:
        """Parquet rows checked natively (``_ok``), relay log channels claimed."""
        return self._relay(mark_event_rows(df, source_col="_file", channels=channels, positioned=positioned))

    def _channels(self, state: ReplicaState) -> tuple[str, ...] | None:
        """The channels events may name, checked as the records are read (so that a record of
        another channel is a dead letter with its line and file); None in a relay log, whose
        foreign channels are claimed after reading."""
        return None if self.config.relay_channel is not None else tuple(state.channel_names)

    def _relay(self, marked: DataFrame) -> DataFrame:
        """In a relay log, an event that names no channel is this channel's."""
        relay = self.config.relay_channel
        if relay is None:
            return marked
        return marked.withColumn("channel", F.when(F.col("channel") == "", F.lit(relay)).otherwise(F.col("channel")))

    def _covered(self, frame: DataFrame) -> Column:
        """The rows of ``frame`` the compiled expressions decide: those :meth:`.CompiledRules.covered`
        takes, of this relay log's channel only (another channel's rows are dead letters), and
        accepted by the native check when ``frame`` carries it (``_ok``)."""
        test = self._rules.covered(frame)
        if self.config.relay_channel is not None:
            test = test & (F.col("channel") == self.config.relay_channel)
        return test & F.col("_ok") if "_ok" in frame.columns else test

    def _compiled_rules(self, state: ReplicaState) -> CompiledRules | None:
        """The rules compiled from ``state`` (the state at the batch's start: a filter changed
        meanwhile applies from the next batch), or None when the batch takes the two passes:
        ``--two-pass``, a schema known (the catalog follower replays DDL from every key), or
        Spark Connect (no JVM gateway for the literal arrays)."""
        if not self.config.compiled or state.replica_catalog is not None or not literals.has_jvm(self.spark):
            return None
        return compile_rules(state)

    def ingest(self, df: DataFrame, state: ReplicaState, keep=None, positioned: bool = False) -> Ingested:
        """``positioned`` (Debezium): each event keeps its place, :data:`LINE_ORDER`."""
        c = self.config
        if c.input_format == "parquet":
            ingested = normalize_event_rows(df, source_col="_file")
        elif c.input_format == "debezium":
            channel = c.relay_channel if c.relay_channel is not None else c.debezium_channel
            place = [F.col("_block"), F.monotonically_increasing_id().alias("_pos")] if positioned else []
            parsed = df.select("value", "_file", *place)
            parsed = parsed if keep is None else keep(parsed)
            ingested = parse_debezium(parsed, channel=channel, source_col="_file", positioned=positioned)
            ingested.parsed = parsed.withColumnRenamed("_file", "_source")
        else:
            ingested = parse_event_lines(df, source_col="_file", keep=keep)
        parsed = ingested.parsed
        if c.relay_channel is not None:
            ingested = claim_relay_events(ingested, c.relay_channel)
        ingested = split_unknown_channels(ingested, state)
        ingested.parsed = parsed
        return ingested

    # -- one micro-batch -------------------------------------------------------------------

    def process_batch(self, df: DataFrame, batch_id: int) -> None:
        """The ``foreachBatch`` function (also callable directly, e.g. in tests)."""
        with self._lock:
            if self._stop:
                raise StopRequested(f"stop requested before batch {batch_id}")
            self.running_batch = batch_id
            if self.on_batch_start is not None:
                self.on_batch_start(batch_id)
            try:
                stats = self._process(df, batch_id)
            finally:
                self.running_batch = None
        self.batches.append(stats)
        self._report(stats)
        if self.on_batch is not None:
            self.on_batch(stats)

    def _process(self, df: DataFrame, batch_id: int) -> BatchStats:
        started = time.perf_counter()
        recorded = self.sink.recorded(batch_id)
        if recorded is not None:
            recorded.seconds = time.perf_counter() - started
            return recorded

        state = self.session.state  # the state at the start of this batch
        persisted: list[DataFrame] = []

        def keep(frame: DataFrame) -> DataFrame:
            # JSON is parsed once per batch and kept (Parquet is cheaper to read again), and so
            # is what the Python reference reader made of rows the native check refused.
            frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
            persisted.append(frame)
            return frame

        try:
            position = None
            if self.config.input_format == "binlog":
                file_names, position = batch_position(self.store, self.config.checkpoint_dir, self.config.events_dir, batch_id)
            else:
                file_names = self.sink.batch_files(batch_id)
                df = self._batch_events(df, file_names)
            outputs = self.sink.outputs(batch_id)
            self._plan = None
            self._rules = self._compiled_rules(state)
            decisions, dead_count = self._decide(df, state, outputs, keep)
        finally:
            for frame in persisted:
                frame.unpersist()
            for frame in self._checkpointed:
                release(frame)
            self._checkpointed = []
        stats = self._stats(batch_id, decisions, dead_count, file_names, compiled=self._rules is not None)
        stats.position = position
        stats.written_first = self._written_first
        self.sink.commit(stats)
        sql_errors, self._sql_errors = self._sql_errors, {}
        if decisions.counts or decisions.replica_catalog is not None or sql_errors:
            self.session.update(lambda current: after_batch(current, state, decisions, sql_errors))
        stats.seconds = time.perf_counter() - started
        return stats

    def _decide(
        self, df: DataFrame, state: ReplicaState, outputs: BatchOutputs, keep
    ) -> tuple[BatchDecisions, int]:
        """Ingest, find the exact path's keys (on the compiled path, only those of the rows the
        expressions do not cover; else pass 1 over every row), decide them, write the outputs."""
        order: tuple[str, ...] | None = None
        log_dead = None
        source_only = False  # ``_source`` carried for the dead letters of unknown updating tables only
        if self.config.input_format == "binlog":  # parsed once; its events are checked as Parquet rows are
            df, log_dead = split_log_rows(keep(df))
        self._written_first = False
        if self._can_write_first():
            decisions = self._write_first(df, state, outputs)
            if decisions is not None:
                self._written_first = True
                return decisions, 0
        if self.config.input_format in ("parquet", "binlog"):
            channels = self._channels(state)
            positioned = state.replica_catalog is not None and "_pos" in df.columns
            order = LINE_ORDER if positioned else None
            # a binlog's events keep their file: a multi-table UPDATE whose updating tables the
            # log does not say may become a dead letter below, naming it
            source_only = order is None and self.config.input_format == "binlog"
            carry = ("_source",) if source_only else order or ()
            batch = self._ingest_checked(
                self._marked(df, channels, positioned), lambda marked: rows_fallback(marked, channels, positioned),
                state, keep, carry=carry,
            )
            if log_dead is not None:
                batch = replace(batch, dead=batch.dead.unionByName(log_dead), dead_count=None)
        elif self.config.input_format == "json":
            # Kept whole: an accepted line carries only its event (text, file and position only
            # for refused lines), so the reference reader runs on the kept lines, not a new parse.
            channels = self._channels(state)
            # with a schema, each event keeps its place (file, block, line in the scan): the
            # replica's catalog follows the applied DDL in that order (:mod:`.catalog_follow`)
            positioned = state.replica_catalog is not None
            order = LINE_ORDER if positioned else None
            parsed, numbered = checked_lines(df, source_col="_file", channels=channels, keep_place=positioned)
            kept = keep(parsed)
            batch = self._ingest_checked(
                self._relay(kept), lambda _marked: lines_fallback(kept, channels, numbered, positioned), state, keep,
                carry=order or (),
            )
        else:
            positioned = state.replica_catalog is not None
            order = LINE_ORDER if positioned else None
            ingested = self.ingest(df, state, keep, positioned)
            events = keep(ingested.events)
            keys, counted = self._keys_of(events, state)
            batch = IngestedBatch(events, ingested.dead, keys, dead_count=None, counted=counted)
        events, dead, keys, counted = batch.events, batch.dead, batch.keys, batch.counted
        dead_count = batch.dead_count
        if keys is None:
            waits_for_sql = bool(counted.frame.where(needs_sql()).limit(1).count())
        else:
            waits_for_sql = any(key_needs_sql(row) for row in keys)
        if waits_for_sql:
            resolved = resolve_sql_tables(events, SourceSchemas.of(state), state)
            events, dead = keep(resolved.events), dead.unionByName(resolved.dead)
            keys, counted = self._keys_of(events, state)
            dead_count = None
        # tables whose updating flag is not known (Parquet rows that carry the flag; a binlog's
        # multi-table UPDATE logged without Q_TABLE_MAP_FOR_UPDATE): decided by this batch's rules
        # where they decide them, else dead letters naming their file (sql_tables.py), as evaluate does
        if keys is None:
            unknown = bool(counted.frame.where(F.array_contains(F.col(f"tables.{UPDATING_UNKNOWN}"), True)).limit(1).count())
        else:
            unknown = any(has_unknown_updating(row) for row in keys)
        if unknown:
            source = F.col("_source") if "_source" in events.columns else None
            decided = decide_unknown_updating(events, state, source)
            events, dead = keep(decided.events), dead.unionByName(decided.dead)
            keys, counted = self._keys_of(events, state)
            dead_count = None
        if source_only:
            events = events.drop("_source")
        if dead_count is None:
            dead_count = dead.count()
        if dead_count:
            self.sink.write(dead, outputs.dead)
        if self._rules is not None:
            if keys is None:
                decisions = decide_counted(events, state, counted, check_sql=False, keep=self._checkpoint)
            else:
                decisions = decide_keys(keys, state)
            self._write_compiled(events, decisions, outputs)
            # a batch whose rows were all covered and accepted: the next one is written first
            self._one_pass = decisions.distinct_keys == 0 and dead_count == 0
            return decisions, dead_count
        if keys is not None:  # (a schema known: the keys are on the driver)
            with_triggers = catalog_follow.resolve_drop_triggers(KEY_MODEL, events, state, order, keys)
            if with_triggers is not events:
                events = keep(with_triggers)
                keys, counted = self._keys_of(events, state)
        if keys is None:
            decisions = decide_counted(events, state, counted, check_sql=False, keep=self._checkpoint)
            self._plan = f"{decisions.keys:,} keys decided on the executors, {_PLAN_NAMES[decisions.plan]}"
        else:
            decisions = decide_keys(keys, state)
            # each output keeps one outcome: an inner join against that outcome's keys,
            # broadcast (on the full key when two keys of the batch share a hash)
            self._plan = "full-key join" if decisions.collision else "broadcast join"
        followed = catalog_follow.follow(KEY_MODEL, events, state, [(h, v) for h, v, _ in decisions.key_rows], order)
        if followed is not None:
            decisions.replica_catalog = followed.catalog

        def with_errors(frame: DataFrame) -> DataFrame:
            return catalog_follow.with_applier_error(frame, followed, order, decisions.collision)

        with_error = with_errors(join_decisions(events, decisions, only="APPLY"))
        applied = rewrite_databases(with_error).select(*OUTPUT_COLUMNS)
        self.sink.write(applied, outputs.applied)
        self._sql_errors = catalog_follow.first_errors(with_error, followed, order)
        if outputs.skipped is not None:
            skipped = with_errors(join_decisions(events, decisions, only="SKIP")).select(*OUTPUT_COLUMNS)
            self.sink.write(skipped, outputs.skipped)
        return decisions, dead_count

    def _can_write_first(self) -> bool:
        """A Parquet batch on the compiled path, of a stream that is not a relay log's (whose
        other channels' events are claimed), while the batches before were wholly covered."""
        return self._one_pass and self._rules is not None and self.config.input_format == "parquet" and self.config.relay_channel is None

    def _write_first(self, df: DataFrame, state: ReplicaState, outputs: BatchOutputs) -> BatchDecisions | None:
        """One pass, no key job first: the applied events written as if every row were covered
        by the expressions and accepted by the native check, and that checked by the write's
        own observed histogram (a row that is not both is left out of it). Their decisions when
        it was so; else None, the next batches taking the key job first until one finds no
        key, and this batch is decided again that way (its outputs are written again: only the
        manifest commits a batch, :mod:`.sink`). The key job cost ~0.45-0.6 s of a 1 M-event
        batch (README, "Benchmarks")."""
        marked = self._marked(df, self._channels(state))
        events = marked.select(*INGESTED_COLUMNS, "_ok")
        decisions = decide_keys([], state)
        if self._write_compiled(events, decisions, outputs, trusted=F.col("_ok")):
            return decisions
        self._one_pass = False
        return None

    def _write_compiled(
        self, events: DataFrame, decisions: BatchDecisions, outputs: BatchOutputs, trusted: Column | None = None
    ) -> bool:
        """Write the outputs of a batch on the compiled path (:func:`.compiled_path.compiled_frame`:
        the covered rows by their expressions, the others by ``decisions``, the exact path's),
        then add the covered rows' counts to ``decisions``: as observed while the applied
        events were written, else by one aggregate (:meth:`.CompiledRules.tally`).
        ``trusted`` (:meth:`_write_first`): False, when a row was not covered or not trusted,
        after the applied events, nothing added."""
        rules = self._rules
        exact_rows = decisions.exact_events = decisions.events
        decided, observation = compiled_frame(events, rules, decisions, trusted=trusted)

        def only(frame: DataFrame, decision: str) -> DataFrame:
            kept = frame.where(F.col("decision") == decision)
            kept = rewrite_databases(kept) if decision == "APPLY" else kept  # skipped events keep theirs
            return kept.withColumn(APPLIER_ERROR, no_applier_error()).select(*OUTPUT_COLUMNS)  # no schema

        # (the filters sit above an ``observe``, which the optimiser does not push a filter
        # through: else each would compute the decision again below the projection)
        self.sink.write(only(decided, "APPLY"), outputs.applied)
        observed = add_observed(decisions, rules, observation, exact_rows, wait=OBSERVED_WAIT)
        if trusted is not None and not observed:
            return False
        if outputs.skipped is not None:
            unobserved, _ = compiled_frame(events, rules, decisions, counters=False)
            self.sink.write(only(unobserved, "SKIP"), outputs.skipped)
        if not observed:
            rules.tally(events).add_to(decisions)
            decisions.counters_from = "aggregate"
        if trusted is not None:
            self._plan = f"one pass, every row covered; COUNTERs from the {decisions.counters_from}"
        else:
            where = " decided on the executors" if decisions.keys is not None else ""
            self._plan = f"{exact_rows:,} rows, {decisions.distinct_keys:,} keys{where} on the exact path; COUNTERs from the {decisions.counters_from}"
        return True

    @staticmethod
    def _stats(batch_id: int, decisions: BatchDecisions, dead: int, file_names: list[str], compiled: bool) -> BatchStats:
        return BatchStats(
            batch_id=batch_id,
            events=decisions.events,
            applied=decisions.applied,
            skipped=decisions.skipped,
            dead=dead,
            distinct_keys=decisions.distinct_keys,
            files=len(file_names),
            file_names=file_names,
            decided_by="compiled" if compiled else "two passes",
            exact_events=decisions.exact_events if compiled else decisions.events,
            counters_from=decisions.counters_from if compiled else "keys",
            counts={ch: {ft.keyword: n for ft, n in inc.items()} for ch, inc in decisions.counts.items()},
        )

    def _report(self, stats: BatchStats) -> None:
        self._files_done += stats.files
        if self.progress is None:
            return
        of = f"/{self._total_files}" if self._total_files else ""
        note = " (already written before a restart)" if stats.recovered else ""
        if self._plan is not None and not stats.recovered:
            note += f", {stats.decided_by} ({self._plan})"
        line = (
            f"batch {stats.batch_id}: {stats.events:,} events: {stats.applied:,} applied, "
            f"{stats.skipped:,} skipped, {stats.dead:,} dead letters; files {self._files_done}{of}; "
            f"{stats.seconds:.1f} s{_rate(stats)}{note}"
        )
        self.progress.write(line + "\n")
        self.progress.flush()

    # -- running ---------------------------------------------------------------------------

    def start(self, available_now: bool = False):
        """Start the query (returns at once). ``available_now``: process what is there, then end."""
        c = self.config
        if available_now and c.input_format == "binlog" and os.path.isdir(c.events_dir):
            self._total_files = len(log_files(c.events_dir))
        elif available_now and is_local(c.events_dir) and os.path.isdir(local_path(c.events_dir)):
            self._total_files = sum(
                1 for name in os.listdir(local_path(c.events_dir)) if not name.startswith((".", "_"))
            )
        writer = self.source().writeStream.foreachBatch(self.process_batch).option("checkpointLocation", c.checkpoint_dir)
        if c.query_name:
            writer = writer.queryName(c.query_name)
        if available_now:
            writer = writer.trigger(availableNow=True)
        else:
            writer = writer.trigger(processingTime=f"{c.trigger_seconds} seconds")
        self.query = writer.start()
        return self.query

    def run_available_now(self) -> list[BatchStats]:
        """Process every file present now (a backfill), block until done; the batches' stats."""
        first = len(self.batches)
        query = self.start(available_now=True)
        query.awaitTermination()
        if query.exception() is not None:
            raise query.exception()
        return self.batches[first:]

    def request_stop(self, timeout: float | None = None) -> None:
        """Stop at a batch boundary: wait for a running batch to finish, refuse later ones,
        stop the query."""
        acquired = self._lock.acquire(timeout=-1 if timeout is None else timeout)
        try:
            self._stop = True
        finally:
            if acquired:
                self._lock.release()
        if self.query is not None:
            try:
                self.query.stop()
            except Exception:  # noqa: BLE001 - a query failing as it stops is stopped too
                pass

    @property
    def stopping(self) -> bool:
        return self._stop


RATE_MIN_EVENTS = 1_000
"""A batch's rate is shown from this many events: below, the fixed cost of a batch (a Spark job or
two) is all it would measure."""


def _rate(stats: BatchStats) -> str:
    if stats.events < RATE_MIN_EVENTS or stats.seconds <= 0:
        return ""
    return f", {stats.events / stats.seconds:,.0f} events/s"


__all__ = ["BatchStats", "EventStream", "StopRequested", "StreamConfig"]
