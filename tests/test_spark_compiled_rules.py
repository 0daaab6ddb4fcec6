"""The compiled decisions (spark_runtime/compiled_rules.py, compiled_queries.py) against the
reference evaluator: on every key the compiled path takes, the same decision, filter, rule,
rewritten database and COUNTER moves; and exactly the keys outside the subset (names that are
not ASCII, declined channels, DROP TRIGGER, statements of more than one table, tables whose
updating flag is not known) left to the exact path."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation
from replfilter.evaluation.evaluator import Evaluator, apply_event, channel_filters
from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent, TableRef, TransactionEvent, TransactionKind
from replfilter.replica.state import Channel, ReplicaState, SourceSettings
from replfilter.spark_runtime import compiled_like, compiled_rules
from replfilter.spark_runtime.compiled_rules import compile_rules, increments_of

from spark_helpers import event_row, takes_compiled_path

pytestmark = pytest.mark.spark
FT = FilterType

CHANNELS = ("", "c1", "C1", "c2")
# mixed case, '.', '_' and '%' in names, and letters whose folding differs between Python,
# Java and the server: ß ſ K (Kelvin) İ ı
DBS = ("db1", "DB1", "Db1", "d_b", "dxb", "rw", "a.b", "straße", "ſb", "\u212ab", "kb", "İb", "ıb", "ib", "")
TABLES = ("t1", "T1", "t_1", "tx1", "t%", "a.b", "b", "STRASSE", "ſt", "\u212a", "k", "İ", "i", "ı")
_name = st.sampled_from(DBS[:-1])
_table = st.sampled_from(TABLES)
_pattern_part = st.sampled_from(("db%", "DB_", "d\\_b", "%", "db1", "a.%", "%.b", "k_", "\u212a%", "ı%", "t\\%", "\\"))
_table_pattern = st.sampled_from(("t%", "t\\_1", "%", "T1", "t_", "tx1", "", "b", "\u212a", "i%"))
_pattern = st.one_of(
    st.builds(lambda d, t: f"{d}.{t}", _pattern_part, _table_pattern),
    st.sampled_from(("db%b", "%1", "a%b", "d_1.t%", "%")),  # a '%' spanning the dot
)
_rules = {
    FT.DO_DB: st.lists(_name, max_size=3),
    FT.IGNORE_DB: st.lists(_name, max_size=3),
    FT.DO_TABLE: st.lists(st.builds(lambda d, t: f"{d}.{t}", _name, _table), max_size=4),
    FT.IGNORE_TABLE: st.lists(st.builds(lambda d, t: f"{d}.{t}", _name, _table), max_size=4),
    FT.WILD_DO_TABLE: st.lists(_pattern, max_size=3),
    FT.WILD_IGNORE_TABLE: st.lists(_pattern, max_size=3),
    FT.REWRITE_DB: st.lists(st.tuples(_name, st.sampled_from(("rw", "db2", "RW", "db1", "DB1", "rw", "db2", "Straße"))), max_size=2),
}


@st.composite
def filter_sets(draw, lctn: int) -> FilterSet:
    collation = NameCollation(lctn)
    filters = FilterSet()
    for ftype in FT:
        if draw(st.booleans()):
            filters = filters.set_type(ftype, draw(_rules[ftype]), ConfiguredBy.CHANGE_REPLICATION_FILTER, 1, collation)
    return filters


@st.composite
def states(draw) -> ReplicaState:
    lctn = draw(st.sampled_from((0, 1, 2)))
    state = ReplicaState.fresh(lctn).with_global_filters(draw(filter_sets(lctn)))
    for name in CHANNELS:
        if draw(st.integers(0, 3)) == 0:  # unconfigured: the global rules, no counters
            channel = Channel(name)
        else:
            channel = Channel(name, source=SourceSettings(host="src"), filters=draw(filter_sets(lctn)))
        state = state.with_channel(channel)
    return state


row_keys = st.builds(RowEvent, st.sampled_from(CHANNELS), st.sampled_from(DBS), _table)
# the commands whose rules differ (never filtered, database statements, SET, DROP TABLE with
# TEMPORARY and IF EXISTS, DROP TRIGGER, the rewrite not counted) and plain ones
_commands = st.sampled_from([
    CommandKind.INSERT, CommandKind.CREATE_TABLE, CommandKind.DROP_TABLE, CommandKind.SET_OPTION, CommandKind.BEGIN,
    CommandKind.COMMIT, CommandKind.ROLLBACK, CommandKind.XA_START, CommandKind.CREATE_DB, CommandKind.ALTER_DB,
    CommandKind.DROP_DB, CommandKind.DROP_TRIGGER, CommandKind.OTHER,
])
_table_refs = st.builds(TableRef, st.one_of(st.none(), st.sampled_from(DBS)), _table, st.sampled_from((True, True, False, None)))
query_keys = st.builds(
    QueryEvent,
    channel=st.sampled_from(CHANNELS),
    default_db=st.sampled_from(DBS),
    command=_commands,
    tables=st.lists(_table_refs, max_size=2).map(tuple),
    temporary=st.booleans(),
    if_exists=st.booleans(),
)
other_events = st.builds(TransactionEvent, st.sampled_from(CHANNELS), st.sampled_from(list(TransactionKind)), st.none())


def compiled_outputs(spark, rules, events):
    """Each event's row through the compiled expressions: (covered, four decision columns, counter class).
    A transaction event's row carries a stray ``db`` and ``table`` (a flat Parquet row may: the
    ingest carries such fields along), which must neither be rewritten nor move a counter."""
    df = spark.createDataFrame([event_row(e, i=k, **_stray(e)) for k, e in enumerate(events)], _schema())
    coded = rules.with_code(df)
    columns = rules.decision_columns()
    out = coded.select(
        "i", rules.covered(df).alias("covered"), *[columns[n].alias(n) for n in ("decision", "filter_type", "filter_rule", "rewritten_db")],
        rules.counter_class().alias("cls"),
    )
    return {r["i"]: r for r in out.collect()}


def _stray(event) -> dict:
    return {"db": "db1", "table": "t1"} if isinstance(event, TransactionEvent) else {}


def _schema():
    from pyspark.sql.types import LongType, StructField, StructType

    from replfilter.spark_runtime.schema import EVENT_SCHEMA

    return StructType([*EVENT_SCHEMA.fields, StructField("i", LongType(), False)])


def _first_rewrites_ascii(state: ReplicaState, channel: str) -> bool:
    """Whether each rewrite rule that can match (the first for its name) rewrites to ASCII."""
    first: dict[str, str] = {}
    for src, dst in channel_filters(state, channel).rules(FT.REWRITE_DB):
        first.setdefault(state.collation.key(src), dst)
    return all(dst.isascii() for dst in first.values())


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    state=states(),
    keys=st.lists(row_keys, min_size=20, max_size=60),
    queries=st.lists(query_keys, min_size=10, max_size=40),
    others=st.lists(other_events, max_size=4),
)
def test_compiled_decisions_equal_the_evaluators_on_every_key(spark, state, keys, queries, others):
    rules = compile_rules(state)
    # the one rule the compiler declines in these sets: a rewrite to a name that is not ASCII
    assert set(rules.declined) == {name for name in state.channel_names if not _first_rewrites_ascii(state, name)}
    events = [*keys, *queries, *others, TransactionEvent("nope", TransactionKind.XID)]
    got = compiled_outputs(spark, rules, events)
    for k, event in enumerate(events):
        row = got[k]
        assert row["covered"] is takes_compiled_path(state, rules.channels, event), event
        if not row["covered"]:
            continue
        decision, _ = apply_event(state, event)
        expected = (
            decision.decision.value,
            decision.filter_type.keyword if decision.filter_type else None,
            decision.rule,
            decision.rewritten_db,
        )
        assert (row["decision"], row["filter_type"], row["filter_rule"], row["rewritten_db"]) == expected, (event, state.collation)
        assert increments_of(row["cls"]) == dict(decision.increments), event


_SET_TYPES = (FT.DO_DB, FT.IGNORE_DB, FT.DO_TABLE, FT.IGNORE_TABLE)


def _filler(ftype: FilterType, k: int) -> str:
    return f"fill{k}" if ftype in (FT.DO_DB, FT.IGNORE_DB) else f"fill{k}.t{k}"


@st.composite
def large_set_states(draw) -> ReplicaState:
    """:func:`states` with some exact sets (of the global rules or of a configured channel)
    grown above MAX_SET_RULES by lower-case filler names, the drawn rules kept among them."""
    state = draw(states())
    size = compiled_rules.MAX_SET_RULES + 1
    for name in (None, *CHANNELS):
        filters = state.global_filters if name is None else state.channel(name).filters
        for ftype in draw(st.lists(st.sampled_from(_SET_TYPES), max_size=2, unique=True)):
            rules = (*filters.rules(ftype), *(_filler(ftype, k) for k in range(size)))
            filters = filters.set_type(ftype, rules, ConfiguredBy.CHANGE_REPLICATION_FILTER, 1, state.collation)
        if name is None:
            state = state.with_global_filters(filters)
        elif state.channel(name).configured:
            state = state.with_channel(replace(state.channel(name), filters=filters))
    return state


_filler_keys = st.builds(
    lambda ch, k, upper, dot, table: RowEvent(ch, f"{'FILL' if upper else 'fill'}{k}", f"t{k}" if dot else table),
    st.sampled_from(CHANNELS), st.integers(0, compiled_rules.MAX_SET_RULES + 2), st.booleans(), st.booleans(), _table,
)


def _as_statement(row: RowEvent) -> QueryEvent:
    """A filler key as a one-table statement on its database (the query events' own branch)."""
    return QueryEvent(channel=row.channel, default_db=row.db, command=CommandKind.ALTER_TABLE, tables=(TableRef(None, row.table),))


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    state=large_set_states(),
    keys=st.lists(st.one_of(row_keys, _filler_keys), min_size=30, max_size=60),
    queries=st.lists(st.one_of(query_keys, _filler_keys.map(_as_statement)), min_size=5, max_size=20),
)
def test_large_exact_sets_are_joined_and_decide_as_the_evaluator(spark, state, keys, queries):
    """Exact sets above MAX_SET_RULES are looked up by a broadcast join, not an InSet literal:
    on every key the same outcome as the evaluator's, every row of the input once and in its
    order, and the plan carries no set of literals."""
    rules = compile_rules(state)
    assert set(rules.declined) == {name for name in state.channel_names if not _first_rewrites_ascii(state, name)}
    large = [
        name for name in rules.channels
        if any(len(channel_filters(state, name).rules(ftype)) > compiled_rules.MAX_SET_RULES for ftype in _SET_TYPES)
    ]
    events = [*keys, *queries, TransactionEvent("", TransactionKind.BEGIN)]
    got = compiled_outputs(spark, rules, events)
    assert list(got) == list(range(len(events)))  # the join kept each row once, in order (collect's order)
    evaluator = Evaluator(state)  # compiles each channel's large sets once
    for k, event in enumerate(events):
        row = got[k]
        assert row["covered"] is takes_compiled_path(state, rules.channels, event), event
        if not row["covered"]:
            continue
        decision = evaluator.decide(event)
        expected = (decision.decision.value, decision.filter_type.keyword if decision.filter_type else None, decision.rule, decision.rewritten_db)
        assert (row["decision"], row["filter_type"], row["filter_rule"], row["rewritten_db"]) == expected, (event, state.collation)
        assert increments_of(row["cls"]) == dict(decision.increments), event
    if large:
        df = spark.createDataFrame([event_row(e, i=k) for k, e in enumerate(events)], _schema())
        plan = rules.with_code(df)._jdf.queryExecution().executedPlan().toString()
        assert "BroadcastHashJoin" in plan
        assert "fill7" not in plan  # no literal of the large sets in the row plan


def test_the_same_large_rules_reuse_the_join_side(spark):
    """Deciding with the same rules again reuses the build side (made from one Arrow batch);
    other rules get their own."""
    from replfilter.spark_runtime.rule_sets import side_table

    many = [f"db.t{k}" for k in range(compiled_rules.MAX_SET_RULES + 1)]
    first, again = (compile_rules(_state_with(FT.DO_TABLE, many))._joined for _ in range(2))
    other = compile_rules(_state_with(FT.DO_TABLE, [*many, "db.x"]))._joined
    side = side_table(spark, first.table, "b")
    assert side_table(spark, again.table, "b") is side
    assert side_table(spark, other.table, "b") is not side
    assert side.count() == len(many)


def test_a_large_set_through_decide_frame_moves_the_counters_as_the_evaluator(spark):
    """The joined set inside the whole call: decisions, and the COUNTERs observed as the frame
    is written, equal the evaluator's."""
    from replfilter.evaluation.evaluator import apply_events
    from replfilter.spark_runtime.transform import decide_frame

    state = _state_with(FT.DO_TABLE, [f"db.t{k}" for k in range(compiled_rules.MAX_SET_RULES + 1)])
    state = state.with_channel(replace(state.channel(""), source=SourceSettings(host="src")))  # configured: counted
    evs = [RowEvent(ch, "db", f"t{k}") for ch in ("", "plain") for k in (0, 5, 999, 1000, 1001, 5000)] * 3
    decided = decide_frame(spark.createDataFrame([event_row(e) for e in evs], _event_schema()), state)
    rows = decided.df.collect()
    decisions, after = apply_events(state, evs)
    want = {ch.name: {ft: slot.counter for ft, slot in ch.filters.items() if slot.counter} for ch in after.channels}
    assert decided.decisions.counters_from == "write"
    assert {ch: c for ch, c in decided.counts.items() if c} == {ch: c for ch, c in want.items() if c}
    assert decided.decisions.exact_events == 0
    got = [(r["channel"], r["table"], r["decision"], r["filter_rule"]) for r in rows]
    assert got == [(e.channel, e.table, d.decision.value, d.rule) for e, d in zip(evs, decisions)]  # in order


def test_a_set_above_the_join_limit_is_declined(spark, monkeypatch):
    monkeypatch.setattr(compiled_rules, "MAX_JOINED_RULES", 30)
    compiled = compile_rules(_state_with(FT.DO_TABLE, [f"db.t{k}" for k in range(31)]))
    assert compiled.channels == ("plain",)
    assert "31 REPLICATE_DO_TABLE rules (more than 30)" in compiled.declined[""]
    got = compiled_outputs(spark, compiled, [RowEvent("", "db", "t0"), RowEvent("plain", "db", "t0")])
    assert (got[0]["covered"], got[1]["covered"]) == (False, True)  # the declined channel's rows: the exact path


def test_non_ascii_names_and_other_events_take_the_exact_path(spark):
    state = ReplicaState.fresh(1).with_channel(Channel("", source=SourceSettings(host="src")))
    rules = compile_rules(state)
    two = (TableRef("db", "t"), TableRef(None, "u"))
    events = [RowEvent("", "straße", "t"), RowEvent("", "db", "\u212a"), RowEvent("", "db", "t"), RowEvent("nope", "db", "t"),
              QueryEvent(channel="", default_db="db", command=CommandKind.INSERT, tables=two[:1]),
              QueryEvent(channel="", default_db="db", command=CommandKind.DROP_TABLE, tables=two),
              QueryEvent(channel="", default_db="db", command=CommandKind.DROP_TRIGGER, tables=two[:1]),
              QueryEvent(channel="", default_db="straße", command=CommandKind.CREATE_DB),
              QueryEvent(channel="", default_db="db", command=CommandKind.UPDATE_MULTI, tables=(TableRef("db", "t", None),)),
              TransactionEvent("", TransactionKind.BEGIN)]
    got = compiled_outputs(spark, rules, events)
    assert [got[k]["covered"] for k in range(len(events))] == [False, False, True, False, True, False, False, False, False, True]


_like_chars = st.sampled_from("ab._%\\")


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    patterns=st.lists(st.text(_like_chars, max_size=7), min_size=10, max_size=25, unique=True),
    subjects=st.lists(st.text(_like_chars, max_size=8), min_size=20, max_size=40, unique=True),
)
def test_like_as_string_tests_equals_the_evaluators_like(spark, patterns, subjects):
    """The cheap string tests a wild rule compiles to (or its regex, when it needs one) match
    exactly the ASCII subjects the evaluator's LIKE matches: ``%`` and ``_`` at every place,
    escapes, a trailing ``\\``, a prefix and a suffix that would overlap."""
    from pyspark.sql import functions as F

    from replfilter.core.wildcard import like, like_to_regex

    df = spark.createDataFrame([(x,) for x in subjects], "s string")
    tests = []
    for pattern in patterns:
        test = compiled_like.like(pattern, F.col("s"))
        tests.append(F.col("s").rlike(f"(?s)^(?:{like_to_regex(pattern)})\\z") if test is None else test)
    rows = df.select("s", *[t.alias(f"p{k}") for k, t in enumerate(tests)]).collect()
    for row in rows:
        for k, pattern in enumerate(patterns):
            assert row[f"p{k}"] == like(row["s"], pattern), (pattern, row["s"])


def test_many_wild_rules_are_one_regex_and_name_the_first_match(spark):
    """Above MAX_CASE_RULES patterns of a type, one combined regex tests the row and the rule
    that matched is found on the matched rows: the same rule as the evaluator's."""
    n = compiled_like.MAX_CASE_RULES + 4
    wild = [f"db{k}.t%" for k in range(n)] + ["db_.%"]
    state = _state_with(FT.WILD_DO_TABLE, wild)
    rules = compile_rules(state)
    assert rules.channels == ("", "plain")
    events = [RowEvent("", f"db{k}", t) for k in (0, 3, n - 1, n + 2) for t in ("t1", "x")] + [RowEvent("", "dbx", "y")]
    got = compiled_outputs(spark, rules, events)
    for k, event in enumerate(events):
        decision, _ = apply_event(state, event)
        assert got[k]["covered"]
        assert (got[k]["decision"], got[k]["filter_rule"]) == (decision.decision.value, decision.rule), event


def _state_with(ftype: FilterType, rules) -> ReplicaState:
    collation = NameCollation(0)
    filters = FilterSet().set_type(ftype, rules, ConfiguredBy.CHANGE_REPLICATION_FILTER, 1, collation)
    return (
        ReplicaState.fresh(0)
        .with_channel(Channel("", source=SourceSettings(host="src"), filters=filters))
        .with_channel(Channel("plain", source=SourceSettings(host="src")))
    )


@pytest.mark.parametrize(
    "ftype, rules, reason",
    [
        (FT.WILD_IGNORE_TABLE, [f"db.t{k}%" for k in range(compiled_rules.MAX_WILD_RULES + 1)], "REPLICATE_WILD_IGNORE_TABLE"),
        (FT.REWRITE_DB, [(f"d{k}", f"e{k}") for k in range(compiled_rules.MAX_LOOKUP + 1)], "REPLICATE_REWRITE_DB rules"),
        (FT.REWRITE_DB, [("db", "straße")], "not ASCII"),
    ],
)
def test_the_compiler_declines_what_it_cannot_decide_well(spark, ftype, rules, reason):
    compiled = compile_rules(_state_with(ftype, rules))
    assert compiled.channels == ("plain",)
    assert reason in compiled.declined[""]
    got = compiled_outputs(spark, compiled, [RowEvent("", "db", "t0"), RowEvent("plain", "db", "t0")])
    assert (got[0]["covered"], got[1]["covered"]) == (False, True)


_RETRIED = r'''
import json, sys
from pyspark import TaskContext
from replfilter.server.session import Session
from replfilter.spark_runtime.session import get_spark
from replfilter.spark_runtime.transform import decide_frame

spark = get_spark("local[2,2]", app_name="replfilter-retry")  # a failed task is tried twice
session = Session()
session.execute_sql(sys.argv[2])
df = spark.read.parquet(sys.argv[1])

def fail_once(batches):
    # the first attempt of partition 0 hands some rows on, then fails: the retry starts over
    context = TaskContext.get()
    for k, batch in enumerate(batches):
        yield batch
        if context.partitionId() == 0 and context.attemptNumber() == 0 and k == 0:
            raise RuntimeError("injected task failure")

flaky = df.mapInArrow(fail_once, df.schema)
decided = decide_frame(flaky, session.state)  # the compiled path is the default
decided.df.write.format("noop").mode("overwrite").save()
counts = {ch: {ft.keyword: n for ft, n in inc.items()} for ch, inc in decided.counts.items()}
result = {"events": decided.decisions.events, "exact": decided.decisions.exact_events, "counts": counts,
          "from": decided.decisions.counters_from}

# the same files as one stream batch (what foreachBatch is given), its tasks failing once too
from pyspark.sql import functions as F
from replfilter.spark_runtime.schema import INGESTED_SCHEMA
from replfilter.spark_runtime.stream import EventStream, StreamConfig

files = spark.read.schema(INGESTED_SCHEMA).parquet(sys.argv[1]).select(
    "*", F.col("_metadata.row_index").alias("_pos"), F.col("_metadata.file_path").alias("_file"),
    F.col("_metadata.file_block_start").alias("_block"))
streamed = Session(session.state)
config = StreamConfig(sys.argv[1], sys.argv[3] + "/out", sys.argv[3] + "/ckpt", input_format="parquet")
stream = EventStream(spark, streamed, config)
stream.process_batch(files.mapInArrow(fail_once, files.schema), 0)
stats = stream.batches[0]
moved = {ch.name: {ft.keyword: slot.counter for ft, slot in ch.filters.items() if slot.counter} for ch in streamed.state.channels}
result["stream"] = {"events": stats.events, "exact": stats.exact_events, "counts": stats.counts, "from": stats.counters_from,
                    "path": stats.decided_by, "moved": moved}
print(json.dumps(result))
'''

_RETRY_RULES = """
CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL '';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c1';
CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB=((a, b)), REPLICATE_IGNORE_TABLE=(b.x), REPLICATE_WILD_DO_TABLE=('b.%', 'c.t_') FOR CHANNEL '';
CHANGE REPLICATION FILTER REPLICATE_DO_DB=(a), REPLICATE_IGNORE_DB=(c) FOR CHANNEL 'c1';
"""


def test_counters_are_counted_once_when_a_task_fails_and_is_retried(spark, tmp_path):
    """``decide_frame`` and a stream batch over the same files under ``local[2,2]``, the first
    attempt of each job's first task failing after handing rows on."""
    import json
    import os
    import subprocess
    import sys

    from replfilter.evaluation.evaluator import apply_events
    from replfilter.server.session import Session

    evs = [RowEvent(ch, db, t) for ch in ("", "c1") for db in ("a", "b", "c", "straße") for t in ("x", "t1", "tt")] * 40
    two = (TableRef(None, "x"), TableRef("b", "t1", False))  # a statement of two tables: the exact path
    evs += [QueryEvent(channel="", default_db="a", command=CommandKind.INSERT_SELECT, tables=two)] * 7
    evs += [QueryEvent(channel=ch, default_db=db, command=CommandKind.ALTER_TABLE, tables=(TableRef(None, "x"),))
            for ch in ("", "c1") for db in ("a", "c")] * 3  # compiled
    evs += [TransactionEvent("c1", TransactionKind.BEGIN)] * 5
    # several files: partition 0 is one of several tasks of each job
    frame = spark.createDataFrame([event_row(e, i=k) for k, e in enumerate(evs)], _schema())
    frame.drop("i").repartition(4).write.parquet(str(tmp_path / "events"))
    script = tmp_path / "retried.py"
    script.write_text(_RETRIED)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (os.getcwd(), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "events"), _RETRY_RULES, str(tmp_path / "stream")],
        capture_output=True, text=True,
        timeout=600, env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    session = Session()
    session.execute_sql(_RETRY_RULES)
    _decisions, want = apply_events(session.state, evs)
    want_counts = {
        ch.name: {ft.keyword: slot.counter for ft, slot in ch.filters.items() if slot.counter}
        for ch in want.channels
    }
    assert got["events"] == len(evs)
    assert got["from"] == "write"  # observed as the frame was written, the failed attempt's rows not counted
    assert got["exact"] == 7 + 2 * 3 * 40  # the two-table statements and the rows of 'straße'
    assert {ch: c for ch, c in got["counts"].items() if c} == {ch: c for ch, c in want_counts.items() if c}
    # a stream batch of the same files: its statistics, the COUNTER moves its manifest records and
    # those it made to the session, each counted once
    streamed = got["stream"]
    assert (streamed["events"], streamed["exact"], streamed["path"], streamed["from"]) == (
        len(evs), 7 + 2 * 3 * 40, "compiled", "write"
    )
    assert {ch: c for ch, c in streamed["counts"].items() if c} == {ch: c for ch, c in want_counts.items() if c}
    assert {ch: c for ch, c in streamed["moved"].items() if c} == {ch: c for ch, c in want_counts.items() if c}
    assert "Exception in task 0.0 in stage" in done.stderr  # a first attempt failed; its retry passed


def test_counters_come_from_the_write_only_when_it_saw_every_row_once(spark, tmp_path):
    from replfilter.evaluation.evaluator import apply_events
    from replfilter.server.session import Session
    from replfilter.spark_runtime.transform import decide_frame

    session = Session()
    session.execute_sql(_RETRY_RULES)
    evs = [RowEvent(ch, db, t) for ch in ("", "c1") for db in ("a", "b", "c", "straße") for t in ("x", "t1", "tt")] * 5
    evs += [QueryEvent(channel="", default_db="a", command=CommandKind.INSERT_SELECT, tables=(TableRef(None, "x"), TableRef("b", "t1")))] * 3
    evs += [QueryEvent(channel="c1", default_db="a", command=CommandKind.CREATE_TABLE, tables=(TableRef(None, "x"),))] * 4
    evs += [TransactionEvent("c1", TransactionKind.BEGIN)] * 2
    frame = spark.createDataFrame([event_row(e, i=k) for k, e in enumerate(evs)], _schema())
    frame.drop("i").repartition(3).write.parquet(str(tmp_path / "events"))
    df = spark.read.parquet(str(tmp_path / "events"))
    _decisions, after = apply_events(session.state, evs)
    want = {
        ch.name: {ft: slot.counter for ft, slot in ch.filters.items() if slot.counter} for ch in after.channels
    }
    want = {ch: c for ch, c in want.items() if c}

    written = decide_frame(df, session.state)
    written.df.write.format("noop").mode("overwrite").save()
    partly = decide_frame(df, session.state)
    partly.df.limit(3).collect()  # the observed rows are not all the rows: counted again
    unread = decide_frame(df, session.state)  # no action yet: counted by an aggregate
    for decided, source in ((written, "write"), (partly, "aggregate"), (unread, "aggregate")):
        assert decided.decisions.counters_from == source
        assert {ch: c for ch, c in decided.counts.items() if c} == want
        assert decided.decisions.events == len(evs)
        assert decided.decisions.exact_events == 3 + 2 * 3 * 5


def test_a_transaction_row_with_a_db_is_not_rewritten_nor_counted(spark):
    """A transaction event's row that carries a ``db`` on a channel rewriting that db: no
    rewritten_db, no REPLICATE_REWRITE_DB move, whether the counters come from the write or
    from the aggregate (the rewrite was once computed for every row and counted for the
    transaction's outcome)."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.transform import decide_frame

    session = Session()
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST='s';")  # configured: its counters move
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b));")
    evs = [RowEvent("", "a", "t"), TransactionEvent("", TransactionKind.BEGIN), TransactionEvent("", TransactionKind.XID)]
    rows = [event_row(e, db="a", table="t") for e in evs]
    df = spark.createDataFrame(rows, _event_schema())
    for action in ("write", "aggregate"):
        decided = decide_frame(df, session.state)
        if action == "write":
            decided.df.write.format("noop").mode("overwrite").save()
        assert decided.counts[""] == {FT.REWRITE_DB: 1}
        assert decided.decisions.counters_from == action
        got = {(r["type"], r["rewritten_db"]) for r in decided.df.collect()}
        assert got == {("row", "b"), ("transaction", None)}


def test_a_decided_frame_fed_back_is_refused_in_one_line(spark):
    """An input that already has a decision column (or a working column of the paths) is a
    ValueError naming it, from every entry point, not Spark's AMBIGUOUS_REFERENCE."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.transform import applied_events, apply_filters, decide_frame

    session = Session()
    df = spark.createDataFrame([event_row(RowEvent("", "a", "t"))], _event_schema())
    decided = decide_frame(df, session.state).df
    for call in (decide_frame, applied_events, apply_filters):
        with pytest.raises(ValueError, match="already has the column\\(s\\) 'decision'"):
            call(decided, session.state)
    with pytest.raises(ValueError, match="'_rf_cc'"):
        decide_frame(df.withColumn("_rf_cc", df["db"]), session.state)


def _event_schema():
    from replfilter.spark_runtime.schema import EVENT_SCHEMA

    return EVENT_SCHEMA


def test_the_same_rules_reuse_their_built_expressions(spark):
    """The expressions of a rule set are built once per session (about 6,900 py4j calls, most
    of a call's driver time): the same rules compiled again reuse them, other rules do not, and
    the reused ones decide the same."""
    from replfilter.spark_runtime.compiled_rules import _expressions

    first, again = (compile_rules(_state_with(FT.DO_TABLE, ["db.t1"])) for _ in range(2))
    other = compile_rules(_state_with(FT.DO_TABLE, ["db.t2"]))
    assert first is not again and first.signature == again.signature != other.signature
    assert _expressions(first, spark, True) is _expressions(again, spark, True)
    assert _expressions(other, spark, True) is not _expressions(first, spark, True)
    events = [RowEvent("", "db", "t1"), RowEvent("", "db", "t2")]
    assert [r["decision"] for r in (compiled_outputs(spark, rules, events)[k] for rules in (first, again) for k in range(2))] == [
        "APPLY", "SKIP", "APPLY", "SKIP"
    ]


def test_built_expressions_are_shared_by_the_sessions_of_one_context(spark):
    """A stream's micro-batches each come in a session of their own: the expressions built
    for one session serve the others of the same Spark context (built again per batch, they
    cost a stream ~0.55 s a batch), and decide the same there."""
    from replfilter.spark_runtime.compiled_rules import _expressions

    rules = compile_rules(_state_with(FT.DO_TABLE, ["db.t1"]))
    other = spark.newSession()
    assert other is not spark and _expressions(rules, other, True) is _expressions(rules, spark, True)
    events = [RowEvent("", "db", "t1"), RowEvent("", "db", "t2")]
    assert [compiled_outputs(other, rules, events)[k]["decision"] for k in range(2)] == ["APPLY", "SKIP"]
