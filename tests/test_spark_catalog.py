"""The Spark runtime follows the schema as ``replfilter evaluate`` does: SQL text read with the
channel's source schema, the replica's catalog changed by applied DDL in event order, and the
``applier_error`` column equal to evaluate's ``applier_error`` (differential tests against
:class:`~replfilter.evaluation.event_lines.LineEvaluator`)."""

from __future__ import annotations

import json

import pytest

from replfilter.evaluation.event_lines import evaluate_lines
from replfilter.evaluation.catalog.loader import load_schema_lines
from replfilter.replica.state import ReplicaState

pytestmark = pytest.mark.spark

SCHEMA = """CREATE DATABASE d;
USE d;
CREATE TABLE y (id int, a int);
CREATE TABLE z (id int, b int);
"""


def _state(schema: str | None = SCHEMA, init: ReplicaState | None = None) -> ReplicaState:
    state = init or ReplicaState.fresh()
    if schema is None:
        return state
    return load_schema_lines(state, schema.splitlines(keepends=True), "schema.sql").state


def test_sql_text_is_read_with_the_source_schema(spark, tmp_path):
    # UPDATE y JOIN z ... SET b = 1: only the schema says that b is z's column (z updates)
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.transform import apply_filters

    line = {"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
            "sql": "UPDATE y JOIN z ON y.id = z.id SET b = 1"}
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps(line) + "\n")
    without = read_events(spark, str(path))
    assert without.events.count() == 0
    assert "undecided" in without.dead.first().reason
    state = _state()
    ingested = read_events(spark, str(path), state=state)
    assert ingested.dead.count() == 0
    [row] = apply_filters(ingested.events, state).collect()
    tables = [(t.db, t.table, t.updating) for t in row.tables]
    [want], _ = evaluate_lines(state, [json.dumps(line)])
    assert tables == [(t.db, t.table, t.updating) for t in want.event.tables] == [(None, "y", False), (None, "z", True)]
    assert row.decision == want.decision.decision.value


# --- differential: generated schemas and event sequences -----------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType  # noqa: E402
from replfilter.evaluation.event_json import read_event_sql, to_json  # noqa: E402
from replfilter.evaluation.event_lines import LineEvaluator  # noqa: E402
from replfilter.evaluation.events import CommandKind as CK, QueryEvent, RowEvent, TableRef, TransactionEvent, TransactionKind  # noqa: E402
from replfilter.replica.state import Channel, SourceSettings  # noqa: E402
from spark_helpers import event_row  # noqa: E402

G_DBS = ("d1", "d2")
G_TABLES = ("t1", "T1", "t2")
G_TRIGGERS = ("tr1", "tr2")
_trigger = st.sampled_from(G_TRIGGERS)


def _body(draw, db: str) -> str:
    """A trigger body: harmless, or writing a table the replica may not have (the statements
    that fire it then stop with 1146, until a DROP TRIGGER, maybe in the same batch)."""
    if draw(st.booleans()):
        return "SET @x = 1"
    return f"INSERT INTO {db}.{draw(st.sampled_from((*G_TABLES, 'gone')))} VALUES (1, 1)"  # (gone: never created)


@st.composite
def schemas(draw) -> str:
    lines = []
    for db in G_DBS:
        if draw(st.integers(0, 4)) == 0:
            continue
        lines.append(f"CREATE DATABASE {db};")
        for table in draw(st.lists(st.sampled_from(G_TABLES), unique=True, max_size=3)):
            lines.append(f"CREATE TABLE {db}.{table} (id int, a int);")
            if draw(st.booleans()):  # a trigger a DROP TRIGGER finds on the replica
                when = draw(st.sampled_from(("INSERT", "UPDATE")))
                lines.append(f"CREATE TRIGGER {db}.{draw(_trigger)} AFTER {when} ON {db}.{table} FOR EACH ROW {_body(draw, db)};")
    return "\n".join(lines) + "\n"


@st.composite
def catalog_states(draw) -> ReplicaState:
    lctn = draw(st.sampled_from((0, 1)))
    filters = FilterSet()
    collation = ReplicaState.fresh(lctn).collation
    how = ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL
    if draw(st.booleans()):
        rules = draw(st.lists(st.sampled_from([f"{d}.{t}" for d in G_DBS for t in G_TABLES]), max_size=2))
        filters = filters.set_type(FilterType.IGNORE_TABLE, rules, how, 1, collation)
    if draw(st.integers(0, 3)) == 0:
        filters = filters.set_type(FilterType.IGNORE_DB, draw(st.lists(st.sampled_from(G_DBS), max_size=1)), how, 1, collation)
    if draw(st.integers(0, 4)) == 0:
        filters = filters.set_type(FilterType.REWRITE_DB, [("d2", "d1")], how, 1, collation)
    state = ReplicaState.fresh(lctn).with_channel(Channel("", source=SourceSettings(host="src"), filters=filters))
    return _state(draw(schemas()), state)


_db = st.sampled_from(G_DBS)
_table = st.sampled_from(G_TABLES)


def _target(draw) -> tuple[str, str, str, tuple[TableRef, ...]]:
    """A generated table: its database, name, the name as written (qualified or not) and its ref."""
    db, table = draw(_db), draw(_table)
    qualified = draw(st.booleans())
    return db, table, f"{db}.{table}" if qualified else table, (TableRef(db if qualified else None, table),)


@st.composite
def ddl_events(draw) -> QueryEvent:
    db, table, name, ref = _target(draw)
    kind = draw(st.sampled_from(("create", "create_if", "drop", "drop_if", "alter", "rename", "create_db", "drop_db")))
    if kind == "create":
        return QueryEvent("", db, CK.CREATE_TABLE, ref, f"CREATE TABLE {name} (id int)")
    if kind == "create_if":
        return QueryEvent("", db, CK.CREATE_TABLE, ref, f"CREATE TABLE IF NOT EXISTS {name} (id int)")
    if kind == "drop":
        return QueryEvent("", db, CK.DROP_TABLE, ref, f"DROP TABLE {name}")
    if kind == "drop_if":
        return QueryEvent("", db, CK.DROP_TABLE, ref, f"DROP TABLE IF EXISTS {name}", if_exists=True)
    if kind == "alter":
        return QueryEvent("", db, CK.ALTER_TABLE, ref, f"ALTER TABLE {name} ADD COLUMN c{draw(st.integers(0, 9))} int")
    if kind == "rename":  # the renamed table is looked up before the rename runs
        return QueryEvent("", db, CK.ALTER_TABLE, ref, f"ALTER TABLE {name} RENAME TO {db}.{draw(_table)}")
    if kind == "create_db":
        return QueryEvent("", db, CK.CREATE_DB, (), f"CREATE DATABASE {db}")
    return QueryEvent("", db, CK.DROP_DB, (), f"DROP DATABASE {db}")


@st.composite
def dml_events(draw) -> QueryEvent:
    _db_name, _table_name, name, ref = _target(draw)
    command = draw(st.sampled_from((CK.INSERT, CK.UPDATE, CK.DELETE)))
    return QueryEvent("", draw(_db), command, ref, draw(st.sampled_from((None, f"INSERT INTO {name} VALUES (1)"))))


@st.composite
def trigger_events(draw) -> QueryEvent:
    """CREATE TRIGGER, and DROP TRIGGER as the source logs it: its text, no table list (the
    replica finds the table by the trigger's name in its catalog where the event stands)."""
    db, _table_name, name, ref = _target(draw)
    trigger = draw(_trigger)
    qualified = f"{draw(_db)}.{trigger}" if draw(st.booleans()) else trigger
    if draw(st.booleans()):  # (a trigger and its table are in one database)
        on = name if "." not in qualified else f"{qualified.split('.')[0]}.{ref[0].table}"
        sql = f"CREATE TRIGGER {qualified} AFTER INSERT ON {on} FOR EACH ROW {_body(draw, qualified.split('.')[0] if '.' in qualified else db)}"
        read = read_event_sql(sql, db)
        return QueryEvent("", db, read.command, read.tables, sql)
    if_exists = draw(st.booleans())
    return QueryEvent("", db, CK.DROP_TRIGGER, (), f"DROP TRIGGER {'IF EXISTS ' if if_exists else ''}{qualified}",
                      if_exists=if_exists)


catalog_events = st.lists(
    st.one_of(
        ddl_events(),
        trigger_events(),
        dml_events(),
        st.builds(RowEvent, st.just(""), _db, _table),
        st.builds(RowEvent, st.just(""), _db, _table),
        st.builds(TransactionEvent, st.just(""), st.just(TransactionKind.XID), st.none()),
    ),
    min_size=1,
    max_size=40,
)


def _reference(state: ReplicaState, evs):
    evaluator = LineEvaluator(state)
    results = list(evaluator.results([to_json(e) for e in evs]))
    assert all(r.error is None for r in results)
    want = [(r.decision.decision.value if r.decision.decision else None, json.loads(r.to_json())["applier_error"])
            for r in results]
    return want, evaluator.state()


def _spark(spark, state, evs, row_extras: dict | None = None, **kwargs):
    """``row_extras``: query fields written into the row events' rows (as Parquet input may)."""
    from pyspark.sql.types import LongType, StructField, StructType

    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from replfilter.spark_runtime.transform import decide_frame

    schema = StructType([StructField("line", LongType(), False), *EVENT_SCHEMA.fields])
    # shuffled rows: the order column, not the row order, gives the event order
    rows = [event_row(e, line=i + 1) for i, e in enumerate(evs)]
    if row_extras:
        rows = [{**row, **row_extras} if row["type"] == "row" else row for row in rows]
    df = spark.createDataFrame(list(reversed(rows)), schema)
    decided = decide_frame(df, state, order=["line"], **kwargs)
    # sorted here, not by Spark: an orderBy is one more sampling job and shuffle per example
    got = [(r.decision, r.applier_error) for r in sorted(decided.df.collect(), key=lambda r: r.line)]
    return got, decided


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=catalog_states(), evs=catalog_events)
def test_decisions_and_applier_errors_equal_evaluate(spark, state, evs):
    want, want_state = _reference(state, evs)
    got, decided = _spark(spark, state, evs)
    assert got == want
    assert decided.new_state() == want_state


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=catalog_states(), evs=catalog_events)
def test_applier_errors_survive_hash_collisions(spark, state, evs):
    want, want_state = _reference(state, evs)
    got, decided = _spark(spark, state, evs, hash_modulus=2)
    assert got == want
    assert decided.new_state() == want_state


def test_query_fields_on_row_events_change_nothing_when_keys_collide(spark):
    """A row event's key is (channel, db, table): query fields its row carries change neither its
    decision nor its applier_error, also when every key shares one hash and rows are matched to
    their keys on the full key (the keys are grouped and compared with those fields NULL)."""
    from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent, TableRef

    state = _state()
    evs = [
        RowEvent("", "d", "y"), RowEvent("", "d", "nope"),
        QueryEvent("", "d", CommandKind.INSERT, (TableRef(None, "y"),), sql="INSERT INTO y VALUES (1)"),
        RowEvent("", "d", "y"),
    ]
    want, want_state = _reference(state, evs)
    extras = {"command": "INSERT", "kind": "GTID", "default_db": "x", "temporary": False, "tables": []}
    got, decided = _spark(spark, state, evs, row_extras=extras, hash_modulus=1)
    assert got == want and [g[1] is not None for g in got] == [False, True, False, False]
    assert decided.decisions.collision
    assert decided.new_state() == want_state


# --- the stream: the catalog carried from batch to batch and into the session ---------------------


def _lines(evs) -> list[str]:
    return [to_json(e) for e in evs]


def _write(path, lines, mtime):
    import os

    tmp = str(path) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.utime(tmp, (mtime, mtime))
    os.rename(tmp, path)


def _out_key(row) -> tuple:
    return (row["type"], row["db"], row["table"], row["sql"], row["decision"], row["applier_error"])


@pytest.mark.parametrize("input_format", ["json", "parquet"])
def test_stream_follows_ddl_across_batches_and_into_the_session(spark, tmp_path, input_format):
    import time

    from replfilter.server.session import Session
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    session = Session()
    session.execute_sql(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='src';\n"
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE=(d.skipme);\n"
    )
    session.update(lambda s: _state("CREATE DATABASE d;\n", s))
    start = session.state
    t7 = (TableRef(None, "t7"),)
    both = (TableRef(None, "t7"), TableRef(None, "skipme", False))
    batch1 = [
        RowEvent("", "d", "t7"),                                                     # before CREATE: 1146
        QueryEvent("", "d", CK.CREATE_TABLE, t7, "CREATE TABLE t7 (id int)"),
        QueryEvent("", "d", CK.CREATE_TABLE, (TableRef(None, "skipme"),), "CREATE TABLE skipme (id int)"),
        RowEvent("", "d", "t7"),
        QueryEvent("", "d", CK.CREATE_TABLE, t7, "CREATE TABLE t7 (id int)"),         # 1050: exists
        QueryEvent("", "d", CK.CREATE_TRIGGER, t7, "CREATE TRIGGER trg AFTER INSERT ON t7 FOR EACH ROW SET @x = 1"),
    ]
    batch2 = [
        RowEvent("", "d", "t7"),                                                     # created in batch 1
        QueryEvent("", "d", CK.INSERT, t7, "INSERT INTO t7 VALUES (2)"),
        # applied for t7, and opens skipme, whose CREATE the filters skipped: 1146
        QueryEvent("", "d", CK.UPDATE_MULTI, both, "UPDATE t7 JOIN skipme USING (id) SET t7.id = 3"),
        RowEvent("", "d", "skipme"),                                                 # skipped: no error
        # the table of the trigger batch 1 created, from the replica's catalog: applied; then not found
        QueryEvent("", "d", CK.DROP_TRIGGER, (), "DROP TRIGGER trg"),
        QueryEvent("", "d", CK.DROP_TRIGGER, (), "DROP TRIGGER IF EXISTS trg", if_exists=True),
    ]
    events_dir = tmp_path / "events"
    events_dir.mkdir()
    now = time.time() - 100
    if input_format == "json":
        _write(events_dir / "001.jsonl", _lines(batch1), now)
        _write(events_dir / "002.jsonl", _lines(batch2), now + 1)
    else:  # one file per batch, rows in event order
        import os

        from replfilter.spark_runtime.schema import EVENT_SCHEMA

        for k, evs in enumerate((batch1, batch2)):
            staging = tmp_path / f"s{k}"
            spark.createDataFrame([event_row(e) for e in evs], EVENT_SCHEMA).coalesce(1).write.parquet(str(staging))
            (part,) = [p for p in staging.iterdir() if p.name.endswith(".parquet")]
            os.rename(part, events_dir / f"00{k + 1}.parquet")
            os.utime(events_dir / f"00{k + 1}.parquet", (now + k, now + k))
    config = StreamConfig(str(events_dir), str(tmp_path / "out"), str(tmp_path / "ckpt"),
                          skipped_dir=str(tmp_path / "skipped"), max_files_per_trigger=1, input_format=input_format)
    stats = EventStream(spark, session, config).run_available_now()
    assert [s.batch_id for s in stats] == [0, 1]

    evaluator = LineEvaluator(start)
    results = list(evaluator.results(_lines(batch1 + batch2)))
    want = sorted((
        (r.event.to_dict()["type"], r.event.to_dict().get("db"), r.event.to_dict().get("table"), r.event.to_dict().get("sql"),
         r.decision.decision.value, json.loads(r.to_json())["applier_error"])
        for r in results
    ), key=repr)
    assert [r.decision.decision.value for r in results[-2:]] == ["APPLY", "SKIP"]  # DROP TRIGGER: found, then not
    rows = spark.read.parquet(config.output_dir).collect() + spark.read.parquet(config.skipped_dir).collect()
    assert sorted((_out_key(r) for r in rows), key=repr) == want
    errors = {(r["batch_id"], r["sql"] or r["table"]): r["applier_error"] for r in rows if r["applier_error"]}
    assert errors == {
        (0, "t7"): "ERROR 1146 (42S02): Table 'd.t7' doesn't exist",
        (0, "CREATE TABLE t7 (id int)"): "ERROR 1050 (42S01): Table 't7' already exists",
        (1, "UPDATE t7 JOIN skipme USING (id) SET t7.id = 3"): "ERROR 1146 (42S02): Table 'd.skipme' doesn't exist",
    }
    # the session's replica sees the applied CREATE and not the skipped one (SHOW TABLES)
    catalog = session.state.replica_catalog
    assert catalog == evaluator.state().replica_catalog
    assert catalog.table("d", "t7") is not None and catalog.table("d", "skipme") is None
    shown = session.execute_text("SHOW TABLES FROM d")
    assert [tuple(r) for r in shown.rows] == [("t7",)]
    # the first error the applier would stop on, as REPLAY EVENTS sets it
    channel = session.state.channel("")
    assert channel.last_sql_error == (1146, "Error executing row event: 'Table 'd.t7' doesn't exist'")


def test_debezium_stream_follows_ddl_in_record_order(spark, tmp_path):
    import time

    from replfilter.server.session import Session
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    session = Session()
    session.update(lambda s: _state("CREATE DATABASE d;\n", s))
    row = {"op": "c", "source": {"db": "d", "table": "t7"}, "after": {"id": 1}}
    records = [row, {"ddl": "CREATE TABLE t7 (id int)", "databaseName": "d"}, row]
    events_dir = tmp_path / "events"
    events_dir.mkdir()
    _write(events_dir / "001.json", [json.dumps(r) for r in records], time.time() - 10)
    config = StreamConfig(str(events_dir), str(tmp_path / "out"), str(tmp_path / "ckpt"), input_format="debezium")
    EventStream(spark, session, config).run_available_now()
    rows = spark.read.parquet(config.output_dir).collect()
    assert sorted(((r["type"], r["applier_error"]) for r in rows), key=repr) == sorted([
        ("query", None), ("row", None), ("row", "ERROR 1146 (42S02): Table 'd.t7' doesn't exist"),
    ], key=repr)
    assert session.state.replica_catalog.table("d", "t7") is not None


def test_start_replica_follows_the_relay_log_into_show_tables_status_and_the_datadir(spark, tmp_path):
    from replfilter.replica.datadir import DataDirectory
    from replfilter.server.session import Session
    from replfilter.spark_runtime.applier import install_applier

    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE DATABASE d;\nCREATE TABLE d.t1 (id int);\n")
    relay = tmp_path / "relay"
    relay.mkdir()
    _write(relay / "000.jsonl", _lines([
        QueryEvent("", "d", CK.CREATE_TABLE, (TableRef(None, "t7"),), "CREATE TABLE t7 (id int)"),
        RowEvent("", "d", "t7"),
        RowEvent("", "d", "t8"),     # the applier would stop here
        RowEvent("", "d", "t9"),
    ]), 0)
    datadir = DataDirectory(tmp_path / "data").open()
    try:
        session = Session(datadir.load_state(), observers=[datadir.observer])
        applier = install_applier(session, applier_dir=str(tmp_path / "applier"), trigger_seconds=0.5)
        session.execute_text(f"LOAD SCHEMA FROM '{schema}'")
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='src', RELAY_LOG_FILE='{relay}' FOR CHANNEL 'c1'")
        session.execute_text("START REPLICA FOR CHANNEL 'c1'")
        applier.wait_idle("c1")
        assert [tuple(r) for r in session.execute_text("SHOW TABLES FROM d").rows] == [("t1",), ("t7",)]
        result = session.execute_text("SHOW REPLICA STATUS FOR CHANNEL 'c1'")
        status = dict(zip(result.columns, result.rows[0]))
        assert status["Last_SQL_Errno"] == 1146
        assert status["Last_SQL_Error"] == "Error executing row event: 'Table 'd.t8' doesn't exist'"
        session.execute_text("STOP REPLICA FOR CHANNEL 'c1'")
    finally:
        datadir.close()
    with DataDirectory(tmp_path / "data") as again:
        assert again.load_state().replica_catalog.table("d", "t7") is not None


def test_drop_trigger_is_decided_by_the_replicas_catalog_where_it_stands(spark):
    """A DROP TRIGGER logged with its text alone gets the trigger's table from the replica's
    catalog as the DDL before it left it, as ``evaluate`` decides it: the first ``DROP TRIGGER
    trg1`` finds ``d.y`` (applied), the second finds nothing (the first dropped it: skipped), and
    ``trg2`` never reached the replica (its table ``d.z`` is ignored there: skipped)."""
    from pyspark.sql.types import LongType, StructField, StructType

    from replfilter.spark_runtime.schema import INGESTED_SCHEMA
    from replfilter.spark_runtime.sql_tables import resolve_sql_tables
    from replfilter.spark_runtime.transform import decide_frame

    schema = SCHEMA + "CREATE TRIGGER trg1 AFTER INSERT ON y FOR EACH ROW SET @x = 1;\n" \
                      "CREATE TRIGGER trg2 AFTER INSERT ON z FOR EACH ROW SET @x = 1;\n"
    filters = FilterSet().set_type(FilterType.IGNORE_TABLE, ["d.z"], ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL,
                                   1, ReplicaState.fresh().collation)
    init = ReplicaState.fresh().with_channel(Channel("", source=SourceSettings(host="src"), filters=filters))
    state = _state(schema, init)
    lines = [{"v": 1, "type": "query", "default_db": "d", "sql": sql}
             for sql in ("DROP TRIGGER trg1", "DROP TRIGGER IF EXISTS trg1", "DROP TRIGGER d.trg2")]
    want, want_state = evaluate_lines(state, [json.dumps(line) for line in lines])
    assert [r.decision.decision.value for r in want] == ["APPLY", "SKIP", "SKIP"]

    rows = [{**{c: None for c in INGESTED_SCHEMA.names}, **line, "line": i} for i, line in enumerate(lines)]
    df = spark.createDataFrame(list(reversed(rows)), StructType([StructField("line", LongType()), *INGESTED_SCHEMA.fields]))
    resolved = resolve_sql_tables(df, state=state)
    assert resolved.dead.count() == 0
    decided = decide_frame(resolved.events, state, order=["line"])
    got = decided.df.orderBy("line").collect()
    assert [r.decision for r in got] == [r.decision.decision.value for r in want]
    assert [r.filter_rule for r in got] == [r.decision.rule for r in want]
    assert [[(t.db, t.table, t.updating) for t in r.tables] for r in got] == \
        [[(t.db, t.table, t.updating) for t in r.event.tables] for r in want] == [[("d", "y", True)], [], []]
    assert [r.applier_error for r in got] == [None, None, None]
    assert decided.new_state() == want_state


UNREADABLE = ("UPDATE (((", "FLUSH TABLES t1, t2", "DELETE t1 FROM t1 JOIN d2.t1 USING (id)")
UNKNOWN_OWNERS = ("UPDATE t1, t2 SET a = 1", "UPDATE d1.t1 JOIN d2.t2 USING (id) SET a = 2",
                  "UPDATE t2 JOIN d1.T1 ON t2.id = T1.id SET a = 3, t2.id = 4")
"""Multi-table UPDATEs with an unqualified SET column: without the source's schema, which of the
tables own it (are updating) is not known."""


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=catalog_states(), source_known=st.booleans(),
       texts=st.lists(st.tuples(st.sampled_from(UNREADABLE + UNKNOWN_OWNERS), _db), min_size=1, max_size=6))
def test_unknown_table_lists_are_decided_where_the_rules_decide_them_anyway(spark, state, source_known, texts):
    """A statement whose table list its text cannot give, or whose updating tables it cannot
    give (unqualified SET columns, no source schema, the replica's catalog known), is decided as
    ``evaluate`` decides it (evaluation/undecided.py, rule_checks.tables_ok): the verdict where
    the rules decide it whatever is not known, counters moved, and the applier error of the
    triggers a known updating table fires; else a dead letter with ``evaluate``'s undecided
    reason."""
    import dataclasses

    from pyspark.sql.types import LongType, StructField, StructType

    from replfilter.spark_runtime.schema import INGESTED_SCHEMA
    from replfilter.spark_runtime.sql_tables import resolve_sql_tables
    from replfilter.spark_runtime.transform import decide_frame

    if not source_known:
        state = dataclasses.replace(state, every_source_catalog=None)
    lines = [{"v": 1, "type": "query", "default_db": db, "sql": sql} for sql, db in texts]
    # (a text the source itself refuses with its schema, 1052 say, is no event: left out)
    lines = [line for line, r in zip(lines, LineEvaluator(state).results([json.dumps(x) for x in lines])) if r.error is None]
    evaluator = LineEvaluator(state)
    want = list(evaluator.results([json.dumps(line) for line in lines]))
    rows = [{**{c: None for c in INGESTED_SCHEMA.names}, **line, "line": i} for i, line in enumerate(lines)]
    df = spark.createDataFrame(rows, StructType([StructField("line", LongType()), *INGESTED_SCHEMA.fields]))
    resolved = resolve_sql_tables(df, state=state)
    dead = sorted(r.reason for r in resolved.dead.collect())
    assert dead == sorted(r.decision.reason for r in want if r.decision.decision is None)
    decided = decide_frame(resolved.events, state, order=["line"])
    got = [(r.line, r.decision, r.filter_rule, r.applier_error) for r in sorted(decided.df.collect(), key=lambda r: r.line)]
    assert got == [(i, r.decision.decision.value, r.decision.rule, json.loads(r.to_json())["applier_error"])
                   for i, r in enumerate(want) if r.decision.decision is not None]
    assert decided.new_state() == evaluator.state()


def test_a_trigger_dropped_or_created_in_the_batch_fires_as_the_catalog_stands(spark):
    """The triggers a statement fires are those of the replica's catalog where the event stands,
    as ``evaluate`` has them: an UPDATE on ``d.y`` before ``DROP TRIGGER`` fires the trigger that
    writes ``d.z`` (which the filters kept off the replica: 1146); the same UPDATE after it fires
    nothing; and after a CREATE TRIGGER in the same batch it fires the new one again."""
    schema = SCHEMA + "CREATE TRIGGER trg AFTER UPDATE ON y FOR EACH ROW INSERT INTO z VALUES (NEW.id, 1);\n"
    filters = FilterSet().set_type(FilterType.IGNORE_TABLE, ["d.z"], ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL,
                                   1, ReplicaState.fresh().collation)
    state = _state(schema, ReplicaState.fresh().with_channel(Channel("", source=SourceSettings(host="src"), filters=filters)))
    update = QueryEvent("", "d", CK.UPDATE, (TableRef(None, "y"),), "UPDATE y SET a = 1")
    create = "CREATE TRIGGER trg2 AFTER UPDATE ON y FOR EACH ROW INSERT INTO z VALUES (NEW.id, 2)"
    evs = [
        update,
        QueryEvent("", "d", CK.DROP_TRIGGER, (TableRef(None, "y"),), "DROP TRIGGER trg"),
        update,
        QueryEvent("", "d", CK.CREATE_TRIGGER, (TableRef(None, "y"),), create),
        update,
    ]
    want, want_state = _reference(state, evs)
    missing = "ERROR 1146 (42S02): Table 'd.z' doesn't exist"
    assert want == [("APPLY", missing), ("APPLY", None), ("APPLY", None), ("APPLY", None), ("APPLY", missing)]
    got, decided = _spark(spark, state, evs)
    assert got == want
    assert decided.new_state() == want_state
