"""Streaming: each batch decided with the state at its start (filters changed between batches
through the interpreter), counters moved after each batch, dead letters, Debezium, and
exactly-once output across a real kill -9 of the streaming process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from replfilter.evaluation.evaluator import apply_events
from replfilter.evaluation.events import (
    CommandKind,
    QueryEvent,
    RowEvent,
    TableRef,
    TransactionEvent,
    TransactionKind,
)
from replfilter.evaluation.event_json import from_json, to_json
from replfilter.core.filters import FilterType
from replfilter.server.session import Session

pytestmark = pytest.mark.spark

SETUP = """
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'a';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'b';
CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db1) FOR CHANNEL 'a';
CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE=('db%.t1%'), REPLICATE_REWRITE_DB=((db2, rw)) FOR CHANNEL 'b';
"""
# applied between batches (after batch i, before batch i+1)
CHANGES = [
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db2, rw) FOR CHANNEL 'a'",
    "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE=(rw.t10), REPLICATE_WILD_DO_TABLE=() FOR CHANNEL 'b'",
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB=() , REPLICATE_IGNORE_DB=() FOR CHANNEL 'a'",
]


def _batch_events(i: int) -> list:
    out = []
    for k in range(12):
        ch = "ab"[k % 2]
        db = f"db{k % 3}"
        out.append(RowEvent(ch, db, f"t1{k % 4}"))
        if k % 2:  # a statement of two tables: the exact path
            tables = (TableRef(None, f"t1{k % 3}"), TableRef("db1", "t2", False))
            out.append(QueryEvent(ch, db, CommandKind.INSERT_SELECT, tables, sql=f"INSERT /* {i}.{k} */ SELECT"))
        else:  # one table: compiled
            out.append(QueryEvent(ch, db, CommandKind.INSERT, (TableRef(None, f"t1{k % 3}"),), sql=f"INSERT /* {i}.{k} */"))
        out.append(TransactionEvent(ch, TransactionKind.GTID, f"uuid:{i}-{k}"))
    return out


def _write_file(path: str, lines: list[str], mtime: float) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.utime(tmp, (mtime, mtime))
    os.rename(tmp, path)  # files must appear atomically in a stream's directory


def _key(row) -> tuple:
    return (row["type"], row["channel"], row["default_db"], row["db"], row["table"], row["sql"], row["gtid"])


def _event_key(event, decision) -> tuple:
    d = event.to_dict()
    db, default_db = d.get("db"), d.get("default_db")
    if decision.rewritten_db is not None and decision.applied:  # skipped events keep theirs
        if d["type"] == "row":
            db = decision.rewritten_db
        else:
            default_db = decision.rewritten_db
    return (d["type"], d["channel"], default_db, db, d.get("table"), d.get("sql"), d.get("gtid"))


def test_each_batch_uses_the_state_at_its_start(spark, tmp_path, where):
    """JSON lines, filters changed between batches, dead letters in one batch; the keys decided
    on the driver or on the executors."""
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    events_dir = tmp_path / "events"
    events_dir.mkdir()
    batches = [_batch_events(i) for i in range(len(CHANGES) + 1)]
    now = time.time() - 1000
    for i, evs in enumerate(batches):
        lines = [to_json(e) for e in evs]
        if i == 1:
            lines += ['{"v": 1, "type": "row", "db": "x"}', "not json", to_json(RowEvent("nope", "d", "t"))]
        if i == 2:  # SQL text only: the tables come from the text, as `replfilter evaluate` reads it
            texts = [
                '{"v": 1, "type": "query", "channel": "a", "default_db": "db2", "command": "INSERT", '
                '"sql": "INSERT INTO t10 SELECT * FROM db1.t11"}',
                '{"v": 1, "type": "query", "channel": "b", "default_db": "db2", "command": "UPDATE", '
                '"sql": "UPDATE t12 SET c = 1"}',
            ]
            lines += texts
            evs += [from_json(text) for text in texts]
        _write_file(str(events_dir / f"{i:03d}.jsonl"), lines, now + i)

    session = Session()
    session.execute_sql(SETUP)
    reference = Session(session.state)  # the pure evaluator, fed the same batches and changes
    states_at_start = [session.state]

    def between(stats):
        if stats.batch_id < len(CHANGES):
            session.execute_text(CHANGES[stats.batch_id])
        states_at_start.append(session.state)

    config = StreamConfig(
        events_dir=str(events_dir),
        output_dir=str(tmp_path / "out"),
        checkpoint_dir=str(tmp_path / "ckpt"),
        skipped_dir=str(tmp_path / "skipped"),
        dead_letter_dir=str(tmp_path / "dead"),
        max_files_per_trigger=1,
    )
    stats = EventStream(spark, session, config, on_batch=between).run_available_now()
    assert [s.batch_id for s in stats] == list(range(len(batches)))
    # every batch on the compiled path, recompiled from the state at its start: the statements
    # of two tables by the exact path (six a batch; in batch 2 also the INSERT ... SELECT whose
    # tables come from its text), the COUNTERs observed as the batch was written
    assert [(s.decided_by, s.counters_from) for s in stats] == [("compiled", "write")] * len(batches)
    assert [s.exact_events for s in stats] == [6 + (i == 2) for i in range(len(batches))]

    applied = spark.read.parquet(config.output_dir).collect()
    skipped = spark.read.parquet(config.skipped_dir).collect()
    for i, evs in enumerate(batches):
        decisions, new_state = apply_events(reference.state, evs)
        reference.update(lambda _s: new_state)
        if i < len(CHANGES):
            reference.execute_text(CHANGES[i])
        want_applied = sorted(_event_key(e, d) for e, d in zip(evs, decisions) if d.applied)
        want_skipped = sorted(_event_key(e, d) for e, d in zip(evs, decisions) if not d.applied)
        assert sorted(_key(r) for r in applied if r["batch_id"] == i) == want_applied, f"batch {i}"
        assert sorted(_key(r) for r in skipped if r["batch_id"] == i) == want_skipped, f"batch {i}"
        # the decision columns equal the evaluator's for each event
        got = {(_key(r), r["decision"], r["filter_type"], r["filter_rule"]) for r in applied + skipped if r["batch_id"] == i}
        want = {
            (_event_key(e, d), d.decision.value, d.filter_type.keyword if d.filter_type else None, d.rule)
            for e, d in zip(evs, decisions)
        }
        assert got == want, f"batch {i}"
        assert stats[i].events == len(evs)

    # counters: equal to the reference's after all batches (each reset by its CHANGE)
    for name in ("a", "b"):
        mine = {f: s.counter for f, s in session.state.channel(name).filters.items()}
        theirs = {f: s.counter for f, s in reference.state.channel(name).filters.items()}
        assert mine == theirs, name
    assert session.state.channel("b").filters[FilterType.REWRITE_DB].counter > 0

    dead = spark.read.parquet(config.dead_letter_dir).collect()
    assert sorted(r["reason"].split(":")[0] for r in dead) == [
        "event for channel 'nope', which does not exist on this replica",
        "field 'table'",
        "not valid JSON",
    ]
    assert all(r["batch_id"] == 1 for r in dead)
    assert {r["record"] for r in dead} >= {"not json", '{"v": 1, "type": "row", "db": "x"}'}


def test_debezium_stream_and_rerun_is_idempotent(spark, tmp_path, where):
    from pyspark.sql import functions as F

    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    events_dir = tmp_path / "cdc"
    events_dir.mkdir()
    records = [
        {"payload": {"op": "c", "after": {"id": i}, "source": {"db": "shop" if i % 2 else "logs", "table": "orders"}},
         "schema": {}}
        for i in range(10)
    ] + [{"databaseName": "shop", "ddl": "ALTER TABLE orders ADD COLUMN x INT", "source": {"db": "shop"}}]
    _write_file(str(events_dir / "0.json"), [json.dumps(r) for r in records] + ["null"], time.time() - 10)
    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='kafka'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(shop)")
    config = StreamConfig(str(events_dir), str(tmp_path / "out"), str(tmp_path / "ckpt"), input_format="debezium")
    stats = EventStream(spark, session, config).run_available_now()
    assert (stats[0].applied, stats[0].skipped, stats[0].dead) == (6, 5, 1)
    out = spark.read.parquet(config.output_dir)
    assert out.count() == 6
    assert {json.loads(r.record)["payload"]["after"]["id"] for r in out.where("type = 'row'").collect()} == {1, 3, 5, 7, 9}
    assert session.state.channel("").filters[FilterType.DO_DB].counter == 6
    # the same batch run again (as after a crash before the commit log) changes nothing
    stream = EventStream(spark, session, config)
    df = spark.read.text(str(events_dir)).withColumn("_file", F.col("_metadata.file_path"))
    stream.process_batch(df, 0)
    assert stream.batches[-1].recovered
    assert spark.read.parquet(config.output_dir).count() == 6
    assert session.state.channel("").filters[FilterType.DO_DB].counter == 6


# --- kill -9 -----------------------------------------------------------------------------------


KILLED_SOURCE = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='src'"
"""Run by the killed command (``--init``) after its startup options: the default channel is
configured, so its COUNTERs move."""
KILLED_RULES = f"CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db1), REPLICATE_REWRITE_DB=((db2, rw)); {KILLED_SOURCE}"
"""The killed command's replica as statements (its startup options, then its ``--init``)."""


def _stream_command(tmp_path, *extra: str) -> list[str]:
    init = tmp_path / "init.sql"
    init.write_text(KILLED_SOURCE + ";\n")
    return [
        sys.executable, "-m", "replfilter", "stream",
        "--replicate-ignore-db=db1", "--replicate-rewrite-db=db2->rw", "--init", str(init),
        str(tmp_path / "events"), str(tmp_path / "out"), str(tmp_path / "ckpt"),
        "--skipped", str(tmp_path / "skipped"), "--master", "local[2]",
        "--max-files-per-trigger", "1", *extra,
    ]


def _crash_input(tmp_path, files: int, per_file: int) -> list:
    events_dir = tmp_path / "events"
    events_dir.mkdir()
    everything = []
    base = time.time() - 1000
    for f in range(files):
        evs = [RowEvent("", f"db{k % 3}", f"t_{f}_{k}") for k in range(per_file)]
        everything += evs
        lines = [to_json(e) for e in evs] + (["{oops"] if f % 2 else [])
        _write_file(str(events_dir / f"{f:03d}.jsonl"), lines, base + f)
    return everything


def _kill_9_after(tmp_path, command: list[str], env: dict, commits: int, files: int, settle: float) -> int:
    """Run ``replfilter stream``, wait until ``commits`` batches are committed, let the next one
    run for ``settle`` seconds, then kill -9 it (no cleanup of any kind); the batches committed."""
    log = open(tmp_path / "stream.log", "wb")
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, env=env)
    manifests = tmp_path / "out" / "_replfilter"
    deadline = time.time() + 180
    try:
        while time.time() < deadline:
            done = len(list(manifests.glob("*.json"))) if manifests.exists() else 0
            if done >= commits:
                break
            if child.poll() is not None:
                pytest.fail(f"stream exited early: {(tmp_path / 'stream.log').read_text()[-2000:]}")
            time.sleep(0.05)
        else:
            pytest.fail("no batch committed in time")
        time.sleep(settle)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
        log.close()
    killed_at = len(list(manifests.glob("*.json")))
    assert killed_at < files, "the stream finished before it was killed; make the input bigger"
    return killed_at


def _restart_in_process(spark, tmp_path, input_format: str):
    """The killed command's stream started again on its checkpoint, in this process (its JVM is
    already running): what ``replfilter stream ... --available-now`` runs, with the same rules."""
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    session = Session()
    session.execute_sql(KILLED_RULES)
    config = StreamConfig(
        str(tmp_path / "events"), str(tmp_path / "out"), str(tmp_path / "ckpt"), skipped_dir=str(tmp_path / "skipped"),
        input_format=input_format, max_files_per_trigger=1,
    )
    return EventStream(spark, session, config).run_available_now()


def _assert_committed_once(tmp_path, everything: list, batches: int) -> None:
    """Every batch's manifest says it was decided on the compiled path with the COUNTERs
    observed as it was written, and the COUNTER moves the manifests committed add up to the
    evaluator's over every event: each batch's moves were recorded exactly once."""
    from replfilter.spark_runtime.sink import BatchStats

    paths = sorted((tmp_path / "out" / "_replfilter").glob("*.json"))
    stats = [BatchStats.from_json(path.read_text()) for path in paths]
    assert sorted(s.batch_id for s in stats) == list(range(batches))
    assert {(s.decided_by, s.counters_from) for s in stats} == {("compiled", "write")}
    moved: dict = {}
    for s in stats:
        for ftype, n in s.counts.get("", {}).items():
            moved[ftype] = moved.get(ftype, 0) + n
    session = Session()
    session.execute_sql(KILLED_RULES)
    _decisions, want = apply_events(session.state, everything)
    assert moved and moved == {f.keyword: slot.counter for f, slot in want.channel("").filters.items() if slot.counter}
    assert sum(s.events for s in stats) == len(everything)


def test_kill_9_mid_run_then_restart_gives_exactly_once(spark, tmp_path):
    files, per_file = 4, 40
    everything = _crash_input(tmp_path, files, per_file)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # kill while the second batch is being written (the odd files carry a malformed line)
    _kill_9_after(tmp_path, _stream_command(tmp_path), env, commits=1, files=files, settle=0.7)
    _restart_in_process(spark, tmp_path, "json")

    applied = spark.read.parquet(str(tmp_path / "out")).collect()
    skipped = spark.read.parquet(str(tmp_path / "skipped")).collect()
    dead = spark.read.parquet(str(tmp_path / "out" / "_dead_letter")).collect()
    seen = [(r["db"], r["table"]) for r in applied + skipped]
    assert len(seen) == len(set(seen)) == len(everything)  # every event exactly once
    want_skipped = {(e.db, e.table) for e in everything if e.db == "db1"}
    assert {(r["db"], r["table"]) for r in skipped} == want_skipped
    assert {r["table"] for r in applied} == {e.table for e in everything if e.db != "db1"}
    assert all(r["db"] == "rw" for r in applied if r["table"] in {e.table for e in everything if e.db == "db2"})
    assert len(dead) == files // 2
    assert sorted(r["batch_id"] for r in applied + skipped) == sorted(
        b for b in range(files) for _ in range(per_file)
    )
    _assert_committed_once(tmp_path, everything, files)


def test_kill_9_of_a_parquet_stream_then_restart_gives_exactly_once(spark, tmp_path):
    """Parquet batches (row events, and DDL the exact path decides), the stream killed with
    SIGKILL mid-run: the restarted stream decides what was not committed on the compiled path,
    and every event and every COUNTER move is committed exactly once."""
    from spark_helpers import event_row

    files, per_file = 4, 60
    events = [
        [RowEvent("", f"db{k % 3}", f"t{k % 4}") if k % 10 else
         QueryEvent("", f"db{k % 3}", CommandKind.CREATE_TABLE, (TableRef(None, f"t{f}"),), sql=f"CREATE TABLE t{f} (i INT)")
         for k in range(per_file)]
        for f in range(files)
    ]
    _parquet_batches(spark, tmp_path, [[event_row(e) for e in evs] for evs in events])
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    _kill_9_after(tmp_path, _stream_command(tmp_path, "--format", "parquet"), env, commits=1, files=files, settle=0.5)
    _restart_in_process(spark, tmp_path, "parquet")

    applied = spark.read.parquet(str(tmp_path / "out")).collect()
    skipped = spark.read.parquet(str(tmp_path / "skipped")).collect()
    assert len(applied) + len(skipped) == files * per_file  # every event exactly once
    assert sorted(r["batch_id"] for r in applied + skipped) == sorted(b for b in range(files) for _ in range(per_file))
    assert {r["default_db"] or r["db"] for r in skipped} == {"db1"} and "db1" not in {r["db"] for r in applied}
    _assert_committed_once(tmp_path, [e for evs in events for e in evs], files)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "two-passes"])
def test_parquet_stream_equals_the_evaluator(spark, tmp_path, where, compiled):
    """One batch of clean rows, one with dead letters, on the compiled path or in two passes
    (``--two-pass``): the exact path's keys decided on the driver, or, as a tenant replica's
    many keys are, on the executors (never collected)."""
    if where == "executors" and not compiled:
        pytest.skip("the two passes on the executors: tests/test_spark_transform.py")
    import io

    from replfilter.spark_runtime.schema import EVENT_SCHEMA, INGESTED_SCHEMA
    from replfilter.spark_runtime.stream import EventStream, StreamConfig
    from spark_helpers import event_row


    session = Session()
    session.execute_sql(SETUP)
    evs = _batch_events(0) + _batch_events(1)
    rows = [event_row(e) for e in evs]
    bad = [{**event_row(RowEvent("a", "d", "t")), "db": None}, event_row(RowEvent("nope", "d", "t"))]
    events_dir = tmp_path / "events"
    # the first file carries row images (``record``), which the outputs keep
    imaged = [{**row, "record": f"image-{i}"} for i, row in enumerate(rows[:40])]
    spark.createDataFrame(imaged, INGESTED_SCHEMA).coalesce(1).write.parquet(str(tmp_path / "s1"))
    spark.createDataFrame(rows[40:] + bad, EVENT_SCHEMA).coalesce(1).write.parquet(str(tmp_path / "s2"))
    events_dir.mkdir()
    for k, staging in enumerate(("s1", "s2")):
        (part,) = [p for p in (tmp_path / staging).iterdir() if p.name.endswith(".parquet")]
        os.rename(part, events_dir / f"{k}.parquet")
    config = StreamConfig(str(events_dir), str(tmp_path / "out"), str(tmp_path / "ckpt"),
                          skipped_dir=str(tmp_path / "skipped"), input_format="parquet", max_files_per_trigger=1,
                          compiled=compiled)
    progress = io.StringIO()
    stream = EventStream(spark, session, config, progress=progress)
    stats = stream.run_available_now()
    assert len(stats) == 2
    assert ("decided on the executors" in progress.getvalue()) == (where == "executors")
    path = "compiled" if compiled else "two passes"
    assert [s.decided_by for s in stats] == [path, path]
    # compiled: only the statements of two tables on the exact path (each file's); two passes:
    # every event
    queries = [sum(isinstance(e, QueryEvent) and len(e.tables) > 1 for e in part) for part in (evs[:40], evs[40:])]
    assert [s.exact_events for s in stats] == (queries if compiled else [s.events for s in stats])
    decisions, new_state = apply_events(_fresh(), evs)
    assert sum(s.events for s in stats) == len(evs) and sum(s.dead for s in stats) == 2
    applied = spark.read.parquet(config.output_dir).collect()
    skipped = spark.read.parquet(config.skipped_dir).collect()
    want_applied = sorted(_event_key(e, d) for e, d in zip(evs, decisions) if d.applied)
    assert sorted(_key(r) for r in applied) == want_applied
    assert len(skipped) == len(evs) - len(want_applied)
    images = {r.record for r in applied + skipped}
    assert images - {None} == {f"image-{i}" for i in range(40)}
    for name in ("a", "b"):
        assert {f: s.counter for f, s in session.state.channel(name).filters.items()} == {
            f: s.counter for f, s in new_state.channel(name).filters.items()
        }
    assert sorted(stats[0].file_names + stats[-1].file_names)[-1].endswith("1.parquet")


def _fresh():
    session = Session()
    session.execute_sql(SETUP)
    return session.state


def test_stream_cli_reports_a_missing_events_directory(tmp_path):
    import io

    from replfilter.cli.main import main

    err = io.StringIO()
    status = main(["stream", str(tmp_path / "nope"), str(tmp_path / "out"), str(tmp_path / "ckpt")], stderr=err)
    assert status == 1
    assert "events directory" in err.getvalue() and "does not exist" in err.getvalue()


def _parquet_batches(spark, tmp_path, batches: list[list[dict]]) -> str:
    """One Parquet file per batch, moved into the events directory in order."""
    from replfilter.spark_runtime.schema import EVENT_SCHEMA

    events_dir = tmp_path / "events"
    events_dir.mkdir()
    now = time.time() - 1000
    for k, rows in enumerate(batches):
        staging = tmp_path / f"staging{k}"
        spark.createDataFrame(rows, EVENT_SCHEMA).coalesce(1).write.parquet(str(staging))
        (part,) = [p for p in staging.iterdir() if p.name.endswith(".parquet")]
        os.utime(part, (now + k, now + k))
        os.rename(part, events_dir / f"{k:03d}.parquet")
    return str(events_dir)


def test_batches_with_refused_rows_lost_channels_and_sql_text_decide_as_the_evaluator(spark, tmp_path):
    """Parquet batches on the compiled path, each recompiled from the state at its start: a
    malformed row, a channel the replica no longer has, a query event whose tables come from
    its SQL text, filters changed and a channel removed between batches. Every batch's outputs,
    counts and the COUNTERs equal the evaluator's."""
    from replfilter.spark_runtime.stream import EventStream, StreamConfig
    from spark_helpers import event_row

    batches = [_batch_events(i) for i in range(7)]
    for i in range(4, 7):  # channel b is gone by then (see changes)
        batches[i] = [e for e in batches[i] if e.channel == "a"]
    batches[4].append(RowEvent("b", "db0", "t10"))  # a dead letter
    batches[5].append(QueryEvent("a", "db2", CommandKind.INSERT, (), sql="INSERT INTO db2.t12 VALUES (1)"))
    rows = [[event_row(e) for e in evs] for evs in batches]
    rows[2].append({**event_row(RowEvent("a", "d", "t")), "db": None})  # malformed
    rows[5][-1]["tables"] = None  # its tables come from the SQL text
    changes = {
        0: "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db2, rw) FOR CHANNEL 'a'",
        1: "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE=(rw.t10), REPLICATE_WILD_DO_TABLE=() FOR CHANNEL 'b'",
        3: "STOP REPLICA FOR CHANNEL 'b'; RESET REPLICA ALL FOR CHANNEL 'b'",
    }
    events_dir = _parquet_batches(spark, tmp_path, rows)
    session = Session()
    session.execute_sql(SETUP)

    def between(stats):
        if stats.batch_id in changes:
            session.execute_sql(changes[stats.batch_id])

    config = StreamConfig(
        events_dir, str(tmp_path / "out"), str(tmp_path / "ckpt"), skipped_dir=str(tmp_path / "skipped"),
        input_format="parquet", max_files_per_trigger=1,
    )
    import io

    progress = io.StringIO()
    stats = EventStream(spark, session, config, on_batch=between, progress=progress).run_available_now()
    assert [(s.decided_by, s.counters_from) for s in stats] == [("compiled", "write")] * len(batches)
    # the progress line says how many rows and keys took the exact path (the query events)
    lines = progress.getvalue().splitlines()
    # (or, for a batch after one whose rows were all covered, that it was written in one pass)
    said = [", compiled (one pass, every row covered" if s.written_first else f", compiled ({s.exact_events} rows, " for s in stats]
    assert [text in line for text, line in zip(said, lines)] == [True] * len(batches)
    assert [s.written_first for s in stats] == [False] * 6 + [True]  # batch 5's SQL text gave one table
    assert [s.dead for s in stats] == [0, 0, 1, 0, 1, 0, 0]

    reference = _fresh()
    applied = spark.read.parquet(config.output_dir).collect()
    skipped = spark.read.parquet(config.skipped_dir).collect()
    for i, evs in enumerate(batches):
        evs = [e for e in evs if reference.channel(e.channel) is not None]  # b's rows are dead letters
        if i == 5:  # what the stream reads from the SQL text
            evs[-1] = QueryEvent("a", "db2", CommandKind.INSERT, (TableRef("db2", "t12"),), sql=evs[-1].sql)
        decisions, reference = apply_events(reference, evs)
        if i in changes:
            replay = Session(reference)
            replay.execute_sql(changes[i])
            reference = replay.state
        got = {(_key(r), r["decision"], r["filter_type"], r["filter_rule"]) for r in applied + skipped if r["batch_id"] == i}
        want = {
            (_event_key(e, d), d.decision.value, d.filter_type.keyword if d.filter_type else None, d.rule)
            for e, d in zip(evs, decisions)
        }
        assert got == want, f"batch {i}"
        assert sorted(_key(r) for r in applied if r["batch_id"] == i) == sorted(
            _event_key(e, d) for e, d in zip(evs, decisions) if d.applied
        ), f"batch {i}"
        assert (stats[i].events, stats[i].applied) == (len(evs), sum(d.applied for d in decisions)), f"batch {i}"
        counts: dict = {}
        for e, d in zip(evs, decisions):
            for ftype, n in d.increments.items():
                counts.setdefault(e.channel, {}).setdefault(ftype.keyword, 0)
                counts[e.channel][ftype.keyword] += n
        assert stats[i].counts == counts, f"batch {i}"
    assert session.state.channel_names == reference.channel_names
    mine = {f: s.counter for f, s in session.state.channel("a").filters.items()}
    assert mine == {f: s.counter for f, s in reference.channel("a").filters.items()}
    assert mine[FilterType.DO_DB] > 0


def test_a_batch_failing_before_its_manifest_is_decided_again_once_after_restart(spark, tmp_path):
    """Exactly-once on the compiled path: batch 1 dies after writing its output but before its
    manifest; the restarted stream decides it again (its COUNTERs observed again, from nothing),
    and every event is in the output once, every COUNTER moved once."""
    from replfilter.spark_runtime.stream import EventStream, StreamConfig
    from spark_helpers import event_row

    batches = [_batch_events(i) for i in range(3)]
    events_dir = _parquet_batches(spark, tmp_path, [[event_row(e) for e in evs] for evs in batches])
    config = StreamConfig(events_dir, str(tmp_path / "out"), str(tmp_path / "ckpt"), input_format="parquet",
                          max_files_per_trigger=1)
    session = Session()
    session.execute_sql(SETUP)
    first = EventStream(spark, session, config)
    write_text = first.store.write_text

    def dies_at_batch_1_manifest(path, text):
        if path.endswith("batch_id=1.json"):
            raise RuntimeError("killed before the manifest")
        write_text(path, text)

    first.store.write_text = dies_at_batch_1_manifest
    with pytest.raises(Exception, match="killed before the manifest"):
        first.run_available_now()
    assert [s.decided_by for s in first.batches] == ["compiled"]
    assert os.listdir(tmp_path / "out" / "_tmp") == ["batch_id=1"]  # written, not visible

    again = EventStream(spark, session, config)
    stats = again.run_available_now()
    assert [(s.batch_id, s.decided_by, s.counters_from) for s in stats] == [(1, "compiled", "write"), (2, "compiled", "write")]
    applied = spark.read.parquet(config.output_dir).collect()
    everything = [e for evs in batches for e in evs]
    decisions, new_state = apply_events(_fresh(), everything)
    assert sorted(_key(r) for r in applied) == sorted(_event_key(e, d) for e, d in zip(everything, decisions) if d.applied)
    for name in ("a", "b"):
        assert {f: s.counter for f, s in session.state.channel(name).filters.items()} == {
            f: s.counter for f, s in new_state.channel(name).filters.items()
        }


def test_two_pass_flag_of_the_stream_command():
    from replfilter.cli.stream import build_parser, config_from_args

    args = ["events", "out", "ckpt", "--format", "parquet"]
    assert config_from_args(build_parser().parse_args(args)).compiled is True
    assert config_from_args(build_parser().parse_args([*args, "--two-pass"])).compiled is False


def test_a_batch_releases_what_it_kept(spark, tmp_path, where):
    """The counted and decided keys of a batch (and its parsed lines) are released when the
    batch ends, not left for the JVM's garbage collector: a long stream on a tenant replica
    makes ~0.5 M keys a batch."""
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    events_dir = tmp_path / "events"
    events_dir.mkdir()
    now = time.time() - 100
    for i in range(2):
        _write_file(str(events_dir / f"{i}.jsonl"), [to_json(e) for e in _batch_events(i)], now + i)
    session = Session()
    session.execute_sql(SETUP)
    config = StreamConfig(str(events_dir), str(tmp_path / "out"), str(tmp_path / "ckpt"), max_files_per_trigger=1)
    persistent = spark.sparkContext._jsc.getPersistentRDDs
    before = set(persistent().keys())
    stats = EventStream(spark, session, config).run_available_now()
    assert [s.events for s in stats] == [36, 36]
    assert set(persistent().keys()) - before == set()


def test_a_manifest_of_the_one_pass_version_still_reads():
    """A batch committed by a version that had the one-pass path: its manifest's dropped fields
    are ignored, so a restarted stream finishes that batch's renames instead of failing."""
    from replfilter.spark_runtime.sink import BatchStats

    old = json.dumps({"batch_id": 3, "events": 5, "applied": 2, "skipped": 3, "one_pass": True,
                      "one_pass_missed": False, "distinct_keys": None, "query_id": "q"})
    stats = BatchStats.from_json(old)
    assert (stats.batch_id, stats.events, stats.applied, stats.skipped, stats.decided_by) == (3, 5, 2, 3, "")


def test_parquet_batches_are_written_first_while_every_row_is_covered(spark, tmp_path):
    """A Parquet batch is written at once, and checked by the write's own observed histogram,
    while the batches before were wholly covered: a batch with a row the expressions do not
    cover (a non-ASCII table) or a malformed row is decided again, the exact path's keys found
    first, and so is the batch after it. Every batch's outputs, counts and COUNTERs equal the
    evaluator's, whichever way it went."""
    import io

    from replfilter.spark_runtime.stream import EventStream, StreamConfig
    from spark_helpers import event_row

    def clean(i: int) -> list:
        return [e for e in _batch_events(i) if not (isinstance(e, QueryEvent) and len(e.tables) > 1)]

    batches = [clean(i) for i in range(7)]
    batches[2].append(RowEvent("b", "db2", "t1ß"))  # the exact path (Java's folding is not MySQL's)
    rows = [[event_row(e) for e in evs] for evs in batches]
    rows[4].append({**event_row(RowEvent("a", "d", "t")), "db": None})  # a dead letter
    events_dir = _parquet_batches(spark, tmp_path, rows)
    session = Session()
    session.execute_sql(SETUP)
    config = StreamConfig(
        events_dir, str(tmp_path / "out"), str(tmp_path / "ckpt"), skipped_dir=str(tmp_path / "skipped"),
        input_format="parquet", max_files_per_trigger=1,
    )
    progress = io.StringIO()
    stats = EventStream(spark, session, config, progress=progress).run_available_now()
    assert [s.written_first for s in stats] == [True, True, False, False, False, False, True]
    assert [s.exact_events for s in stats] == [0, 0, 1, 0, 0, 0, 0]
    assert [s.dead for s in stats] == [0, 0, 0, 0, 1, 0, 0]
    assert {(s.decided_by, s.counters_from) for s in stats} == {("compiled", "write")}
    lines = progress.getvalue().splitlines()
    assert ["one pass, every row covered" in line for line in lines] == [s.written_first for s in stats]

    reference = _fresh()
    applied = spark.read.parquet(config.output_dir).collect()
    skipped = spark.read.parquet(config.skipped_dir).collect()
    for i, evs in enumerate(batches):
        decisions, reference = apply_events(reference, evs)
        got = {(_key(r), r["decision"], r["filter_type"], r["filter_rule"]) for r in applied + skipped if r["batch_id"] == i}
        want = {
            (_event_key(e, d), d.decision.value, d.filter_type.keyword if d.filter_type else None, d.rule)
            for e, d in zip(evs, decisions)
        }
        assert got == want, f"batch {i}"
        assert len([r for r in applied + skipped if r["batch_id"] == i]) == len(evs), f"batch {i}"
        assert (stats[i].events, stats[i].applied) == (len(evs), sum(d.applied for d in decisions)), f"batch {i}"
    for name in ("a", "b"):
        assert {f: s.counter for f, s in session.state.channel(name).filters.items()} == {
            f: s.counter for f, s in reference.channel(name).filters.items()
        }
