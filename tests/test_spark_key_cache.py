"""Deciding the same files again skips pass 1 (the keys are remembered per file snapshot), and
stays exactly the evaluator's decision for any state; other inputs are always counted afresh."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spark_helpers import event_row, events, expected, states

pytestmark = pytest.mark.spark


def _write(spark, path, evs, start=0):
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from pyspark.sql.types import LongType, StructField, StructType

    schema = StructType([StructField("id", LongType(), False), *EVENT_SCHEMA.fields])
    rows = [event_row(e, id=start + i) for i, e in enumerate(evs)]
    spark.createDataFrame(rows, schema).coalesce(1).write.mode("append").parquet(str(path))


def _jobs_during(spark, fn):
    """The Spark jobs ``fn`` started (its return value too)."""
    sc = spark.sparkContext
    group = f"key-cache-{time.monotonic_ns()}"
    sc.setJobGroup(group, "key cache test")
    try:
        value = fn()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return value, len(sc.statusTracker().getJobIdsForGroup(group))


def _decisions(frame):
    return [(r.decision, r.filter_type, r.filter_rule, r.rewritten_db) for r in frame.orderBy("id").collect()]


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(first=states(), second=states(), evs=st.lists(events, min_size=1, max_size=40))
def test_second_decision_of_the_same_files_reads_no_keys_and_is_exact(spark, tmp_path_factory, first, second, evs):
    from replfilter.spark_runtime.key_cache import KEY_CACHE
    from replfilter.spark_runtime.transform import decide_frame

    path = tmp_path_factory.mktemp("events")
    _write(spark, path, evs)
    KEY_CACHE.clear()
    files = spark.read.parquet(str(path))  # (reading the Parquet footers is a job of its own)
    decided, cold_jobs = _jobs_during(spark, lambda: decide_frame(files, first))
    assert cold_jobs >= 1
    want, want_state = expected(first, evs)
    assert _decisions(decided.df) == want and decided.new_state() == want_state
    # the same files, read again, decided with another state: the remembered decided-key frame
    # (on the executors) is decided again, the files are not read (moved away meanwhile)
    # (when the other state leaves the same rows to the exact path; else they are read again)
    from replfilter.spark_runtime.compiled_rules import compile_rules

    rules = [compile_rules(s) for s in (first, second)]
    same_coverage = len({(r.channels, r.all_channels, r.database_channels()) for r in rules}) == 1
    files = spark.read.parquet(str(path))
    aside = tmp_path_factory.mktemp("aside") / "events"
    if same_coverage:
        shutil.move(str(path), str(aside))
    try:
        again = decide_frame(files, second)
    finally:
        if same_coverage:
            shutil.move(str(aside), str(path))
    assert KEY_CACHE.hits == (1 if same_coverage else 0)
    want, want_state = expected(second, evs)
    assert _decisions(again.df) == want and again.new_state() == want_state
    # the same files and the same rules: no job at all until the frame is used
    hits = KEY_CACHE.hits
    files = spark.read.parquet(str(path))
    same, same_jobs = _jobs_during(spark, lambda: decide_frame(files, second))
    assert same_jobs == 0 and KEY_CACHE.hits == hits + 1
    assert _decisions(same.df) == want and same.new_state() == want_state


def test_new_or_rewritten_files_are_counted_again(spark, tmp_path):
    from replfilter.evaluation.events import RowEvent
    from replfilter.server.session import Session
    from replfilter.spark_runtime.key_cache import KEY_CACHE, input_snapshot
    from replfilter.spark_runtime.transform import apply_filters

    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(b)")
    _write(spark, tmp_path, [RowEvent("", "a", "t")])
    KEY_CACHE.clear()
    first = spark.read.parquet(str(tmp_path))
    assert [r.decision for r in apply_filters(first, session.state).collect()] == ["APPLY"]
    snapshot = input_snapshot(first)
    assert snapshot is not None and input_snapshot(spark.read.parquet(str(tmp_path))) == snapshot
    # a projection of the same files is another plan, hence another snapshot
    assert input_snapshot(first.select("id", "type")) not in (None, snapshot)

    _write(spark, tmp_path, [RowEvent("", "b", "t")], start=1)  # a new file in the directory
    grown = spark.read.parquet(str(tmp_path))
    assert input_snapshot(grown) != snapshot
    got, jobs = _jobs_during(spark, lambda: apply_filters(grown, session.state))
    assert jobs >= 1
    assert [r.decision for r in got.orderBy("id").collect()] == ["APPLY", "SKIP"]

    # a file rewritten in place (here: replaced by the other one, with a new time) is another
    # snapshot too
    first_file, second_file = sorted(f for f in os.listdir(tmp_path) if f.endswith(".parquet"))
    before = input_snapshot(spark.read.parquet(str(tmp_path)))
    shutil.copyfile(tmp_path / second_file, tmp_path / first_file)
    shutil.copyfile(tmp_path / f".{second_file}.crc", tmp_path / f".{first_file}.crc")  # Hadoop's checksum
    os.utime(tmp_path / first_file, (time.time() + 5, time.time() + 5))
    spark.catalog.refreshByPath(str(tmp_path))  # what Spark needs anyway to read a rewritten file
    assert input_snapshot(spark.read.parquet(str(tmp_path))) != before


def test_inputs_that_are_not_plain_files_have_no_snapshot(spark, tmp_path):
    from pyspark.sql import functions as F

    from replfilter.evaluation.events import RowEvent
    from replfilter.spark_runtime.key_cache import input_snapshot

    _write(spark, tmp_path, [RowEvent("", "a", "t")])
    files = spark.read.parquet(str(tmp_path))
    assert input_snapshot(files) is not None
    assert input_snapshot(files.where(F.col("db") == "a")) is not None  # a deterministic filter
    assert input_snapshot(files.withColumn("r", F.rand())) is None  # not deterministic
    assert input_snapshot(spark.createDataFrame(files.collect(), files.schema)) is None  # in memory
    assert input_snapshot(files.unionByName(spark.createDataFrame(files.collect(), files.schema))) is None


def test_cache_keeps_the_most_recent_entries():
    from replfilter.spark_runtime.key_cache import KeyCache

    cache = KeyCache(max_entries=2)
    cache.put(("a",), [{"k": 1}])
    cache.put(("b",), [{"k": 2}])
    assert cache.get(("a",)) == [{"k": 1}]  # a is now the most recent
    cache.put(("c",), [])
    assert cache.get(("b",)) is None and cache.get(("a",)) is not None and cache.get(("c",)) == []
    assert (cache.hits, cache.misses, len(cache)) == (3, 1, 2)


def test_remembered_exact_keys_are_those_of_the_rules_coverage(spark, tmp_path):
    """Which rows take the exact path depends on the rules (a CREATE DATABASE on a channel with
    wild rules and no database rules is not compiled): the same files decided with rules that
    leave more rows to the exact path aggregate their keys again, and decide every row."""
    from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent
    from replfilter.server.session import Session
    from replfilter.spark_runtime.key_cache import KEY_CACHE
    from replfilter.spark_runtime.transform import apply_filters

    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    _write(spark, tmp_path, [QueryEvent("", "shop", CommandKind.CREATE_DB), RowEvent("", "shop", "t")])
    KEY_CACHE.clear()
    files = spark.read.parquet(str(tmp_path))
    assert [r.decision for r in apply_filters(files, session.state).orderBy("id").collect()] == ["APPLY", "APPLY"]
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE=('x%.%')")
    decided = apply_filters(spark.read.parquet(str(tmp_path)), session.state).orderBy("id").collect()
    assert [(r.decision, r.filter_type) for r in decided] == [("SKIP", None), ("SKIP", None)]
