"""Ingest: event JSON lines read exactly as from_json reads them, Parquet rows, Debezium
envelopes, SQL-text tables, dead letters (never dropped, never fatal)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replfilter.evaluation.event_json import EventFormatError, from_json, to_json
from replfilter.evaluation.events import (
    CommandKind,
    QueryEvent,
    RowEvent,
    TableRef,
)
from spark_helpers import events

pytestmark = pytest.mark.spark

EVENT_KEYS = ("v", "type", "channel", "default_db", "command", "tables", "sql", "temporary", "if_exists", "db", "table", "kind", "gtid")


def _lines_df(spark, lines):
    return spark.createDataFrame([(i, line) for i, line in enumerate(lines)], "n long, value string")


def _reference(line: str):
    """What ``replfilter evaluate`` makes of a line: ('event', dict) or ('dead', message)."""
    from replfilter.evaluation.event_lines import read_line

    try:
        event = read_line(line)
    except ValueError as err:
        return "dead", str(err)
    return "event", event.to_dict()


def _spark_result(spark, lines):
    from replfilter.spark_runtime.ingest import parse_event_lines

    ingested = parse_event_lines(_lines_df(spark, lines))
    got_events = [r.asDict(recursive=True) for r in ingested.events.collect()]
    got_dead = [(r.reason, r.record) for r in ingested.dead.collect()]
    return got_events, got_dead


def _comparable(event: dict) -> dict:
    """An event dict as the reference produces it (tables defaulted, no foreign keys)."""
    d = {k: v for k, v in event.items() if v is not None and k in EVENT_KEYS}
    if d.get("tables"):  # (the row form's updating_unknown: NULL for every table a line gives)
        d["tables"] = [{k: v for k, v in t.items() if not (k == "updating_unknown" and v is None)} for t in d["tables"]]
    if d.get("type") == "query":
        d.setdefault("tables", [])
        d.setdefault("sql", None)
    if d.get("type") == "transaction":
        d.setdefault("gtid", None)
    return d


def _check(spark, lines):
    got_events, got_dead = _spark_result(spark, lines)
    want_events, want_dead = [], []
    for line in lines:
        if not line.strip():
            continue
        kind, value = _reference(line)
        if kind == "event":
            want_events.append(value)
        else:
            want_dead.append((value, line))
    key = lambda d: json.dumps(d, sort_keys=True)
    assert sorted(map(key, map(_comparable, got_events))) == sorted(map(key, map(_comparable, want_events)))
    assert sorted(got_dead) == sorted(want_dead)


MUTATIONS = [
    lambda d: {**d, "v": 2},
    lambda d: {**d, "v": 1.0},
    lambda d: {**d, "v": True},
    lambda d: {**d, "channel": 5},
    lambda d: {**d, "channel": None},
    lambda d: {**d, "extra": 1},
    lambda d: {k: v for k, v in d.items() if k != "type"},
    lambda d: {k: v for k, v in d.items() if k != "v"},
    lambda d: {k: v for k, v in d.items() if k not in ("db", "command", "kind")},
    lambda d: {**d, "type": "bogus"},
    lambda d: {**d, "command": "NOPE"} if d["type"] == "query" else {**d, "kind": "NOPE"},
    lambda d: {**d, "tables": [{"db": None, "table": "", "updating": True}]},
    lambda d: {**d, "tables": [{"db": 3, "table": "t"}]},
    lambda d: {**d, "tables": [{"table": "t", "updating": None}]},
    lambda d: {**d, "tables": [{"table": "t"}, {"db": "x"}]},
    lambda d: {**d, "tables": "t"},
    lambda d: {**d, "tables": ["t"]},
    lambda d: {**d, "tables": [{"db": "x", "table": "t", "updating": "yes"}, {"table": "u"}]},
    lambda d: {**d, "tables": [{"table": "t", "extra": 1}]},
    lambda d: {**d, "tables": None},
    lambda d: {**d, "V": 1},
    lambda d: {**d, "temporary": "yes"},
    lambda d: {**d, "sql": 7},
    lambda d: {k: v for k, v in d.items() if k not in ("tables", "sql", "temporary", "if_exists", "gtid", "channel", "default_db")},
]
TEXT_MUTATIONS = [
    lambda s: s + " x",
    lambda s: s + s,
    lambda s: s + "]" + s,
    lambda s: s[:-1],
    lambda s: s.replace('"v": 1', '"v": 1, "v": 1'),
    lambda s: s.replace('"v": 1', '"v": 01'),
    lambda s: "[" + s + "]",
    lambda s: "null",
    lambda s: "   ",
    lambda s: s.replace('"channel": "', '"channel": "\\ud800'),
    lambda s: s.replace('"v": 1', '"v": NaN'),
    lambda s: "  " + s + "  ",
    lambda s: s + "}",
    lambda s: s + " [",
    # braces and brackets inside a string: the exact (strings blanked) check decides
    lambda s: s.replace('"sql": "', '"sql": "{}[]{'),
    lambda s: s.replace('"sql": "', '"sql": "}').rstrip("}") + "}{",
]


@st.composite
def json_lines(draw):
    event = draw(events)
    text = to_json(event)
    choice = draw(st.integers(0, 3))
    if choice == 1:
        d = draw(st.sampled_from(MUTATIONS))(dict(event.to_dict()))
        text = json.dumps(d)
    elif choice == 2:
        text = draw(st.sampled_from(TEXT_MUTATIONS))(text)
    return text


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(json_lines(), min_size=1, max_size=40))
def test_json_lines_split_exactly_as_from_json(spark, lines):
    _check(spark, lines)


def test_every_mutation_once(spark):
    base = [
        to_json(QueryEvent("c1", "d", CommandKind.INSERT, (TableRef(None, "t"), TableRef("x", "y", False)), "INSERT ..."))
    ]
    from replfilter.evaluation.events import TransactionEvent, TransactionKind

    base += [to_json(RowEvent("c1", "d", "t")), to_json(TransactionEvent("", TransactionKind.GTID, "u:1"))]
    lines = list(base)
    for text in base:
        for mutate in MUTATIONS:
            lines.append(json.dumps(mutate(json.loads(text))))
        for mutate in TEXT_MUTATIONS:
            lines.append(mutate(text))
    _check(spark, lines)


def test_parquet_rows_defaults_and_dead_letters(spark, tmp_path):
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.schema import EVENT_SCHEMA
    from spark_helpers import event_row

    rows = [
        event_row(RowEvent("", "d", "t")),
        {**event_row(RowEvent("", "d", "t")), "channel": None},  # -> default channel
        {**event_row(QueryEvent("", "d", CommandKind.INSERT, (TableRef(None, "t"),))), "temporary": None},
        {**event_row(RowEvent("", "d", "t")), "db": None},  # missing db
        {**event_row(RowEvent("", "d", "t")), "gtid": "u:1"},  # a field of another type: carried along
        {**event_row(RowEvent("", "d", "t")), "v": 2},
        {**event_row(QueryEvent("", "d", CommandKind.INSERT)), "command": "NOPE"},
    ]
    insert = event_row(QueryEvent("", "d", CommandKind.INSERT))
    good = {"db": "d", "table": "t", "updating": False}
    tables_rows = [  # (tables, the ingested tables or None for a dead letter)
        ([], []),
        ([{"db": None, "table": "u", "updating": None}], [("", "u", True)]),  # updating defaults to true
        ([good, {"db": "e", "table": "v", "updating": None}], [("d", "t", False), ("e", "v", True)]),
        ([good, {"db": "d", "table": "", "updating": True}], None),  # an empty table name
        ([{"db": "d", "table": None, "updating": True}], None),  # no table name
        ([good, None], None),  # a NULL element
    ]
    rows += [{**insert, "tables": tables, "sql": f"q{i}"} for i, (tables, _) in enumerate(tables_rows)]
    path = str(tmp_path / "events.parquet")
    spark.createDataFrame(rows, EVENT_SCHEMA).coalesce(1).write.parquet(path)
    ingested = read_events(spark, path, "parquet")
    events = ingested.events.collect()
    got_tables = {r.sql: [(t.db or "", t.table, t.updating) for t in r.tables] for r in events if r.sql}
    assert got_tables == {f"q{i}": want for i, (_, want) in enumerate(tables_rows) if want is not None}
    got = sorted((r.type, r.channel, r.temporary) for r in events if not r.sql)
    assert got == [("query", "", False), ("row", "", None), ("row", "", None), ("row", "", None)]
    reasons = sorted(r.reason for r in ingested.dead.collect())
    assert len(reasons) == 6
    assert any("'db'" in r and "missing" in r for r in reasons)
    assert any("unsupported version 2" in r for r in reasons)
    assert any('"NOPE"' in r for r in reasons)  # JSON's spelling of the value
    assert all(r.source_file and r.source_file.endswith(".parquet") for r in ingested.dead.collect())


def test_unknown_channel_is_a_dead_letter(spark):
    from replfilter.replica.state import ReplicaState
    from replfilter.spark_runtime.ingest import parse_event_lines, split_unknown_channels

    lines = [to_json(RowEvent("", "d", "t")), to_json(RowEvent("nope", "d", "t"))]
    ingested = split_unknown_channels(parse_event_lines(_lines_df(spark, lines)), ReplicaState.fresh())
    assert [r.channel for r in ingested.events.collect()] == [""]
    dead = ingested.dead.collect()
    assert len(dead) == 1 and "channel 'nope'" in dead[0].reason and json.loads(dead[0].record)["channel"] == "nope"


DEBEZIUM = [
    # schemas.enable=true wrapper, insert
    {"schema": {"type": "struct"}, "payload": {"before": None, "after": {"id": 1}, "op": "c",
     "source": {"db": "inventory", "table": "customers", "name": "dbserver1"}, "ts_ms": 1}},
    # bare payload, update and delete and snapshot read
    {"before": {"id": 1}, "after": {"id": 1, "x": 2}, "op": "u", "source": {"db": "inventory", "table": "orders"}},
    {"before": {"id": 1}, "after": None, "op": "d", "source": {"db": "inventory", "table": "orders"}},
    {"before": None, "after": {"id": 9}, "op": "r", "source": {"db": "other", "table": "t", "snapshot": "true"}},
    # truncate
    {"op": "t", "source": {"db": "inventory", "table": "orders"}},
    # schema change events
    {"source": {"db": "inventory"}, "databaseName": "inventory", "ddl": "CREATE TABLE products (id INT)", "tableChanges": []},
    {"source": {"db": ""}, "databaseName": "newdb", "ddl": "CREATE DATABASE newdb"},
    {"source": {"db": "inventory"}, "databaseName": "inventory", "ddl": "ALTER TABLE customers ADD COLUMN c INT"},
    # transaction metadata
    {"status": "BEGIN", "id": "571:53195829", "event_count": None},
    {"status": "END", "id": "571:53195829", "event_count": 2},
]


def test_debezium_envelopes(spark):
    from replfilter.server.session import Session
    from replfilter.spark_runtime.ingest import parse_debezium
    from replfilter.spark_runtime.sql_tables import resolve_sql_tables
    from replfilter.spark_runtime.transform import apply_filters

    lines = [json.dumps(d) for d in DEBEZIUM] + ["null", "", "{broken", json.dumps({"op": "c", "source": {}})]
    df = _lines_df(spark, lines)
    ingested = parse_debezium(df, channel="")
    resolved = resolve_sql_tables(ingested.events)
    events = resolved.events
    rows = {(r.type, r.command, r.default_db, r.db, r.table, r.kind) for r in events.collect()}
    assert ("row", None, None, "inventory", "customers", None) in rows
    assert ("row", None, None, "other", "t", None) in rows
    assert ("query", "TRUNCATE", "inventory", None, None, None) in rows
    assert ("query", "CREATE_TABLE", "inventory", None, None, None) in rows
    assert ("query", "CREATE_DB", "newdb", None, None, None) in rows
    assert ("query", "ALTER_TABLE", "inventory", None, None, None) in rows
    assert ("transaction", None, None, None, None, "BEGIN") in rows
    assert ("transaction", None, None, None, None, "COMMIT") in rows
    assert events.count() == len(DEBEZIUM)
    # before/after kept in the record
    rec = events.where("type = 'row' and table = 'customers'").first().record
    assert json.loads(rec)["payload"]["after"] == {"id": 1}
    dead = ingested.dead.collect() + resolved.dead.collect()
    reasons = sorted(r.reason for r in dead)
    assert len(reasons) == 4  # null, "", broken, op without table  -> all kept
    assert sum("tombstone" in r for r in reasons) == 2
    # replica semantics on Debezium: ignore-db inventory skips its rows and DDL
    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(inventory)")
    decided = apply_filters(events, session.state)
    by = {(r.type, r.db or r.default_db, r.table or r.command): r.decision for r in decided.collect()}
    assert by[("row", "inventory", "customers")] == "SKIP"
    assert by[("row", "other", "t")] == "APPLY"
    assert by[("query", "inventory", "CREATE_TABLE")] == "SKIP"
    assert by[("query", "newdb", "CREATE_DB")] == "APPLY"


def test_sql_tables_each_text_once_and_dead_letters(spark):
    from replfilter.spark_runtime.ingest import parse_event_lines
    from replfilter.spark_runtime.sql_tables import resolve_sql_tables

    lines = [
        json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "INSERT", "sql": "INSERT INTO t SELECT * FROM s"}),
        json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "INSERT", "sql": "INSERT INTO t SELECT * FROM s"}),
        json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "INSERT", "sql": "INSERT INTO x.t VALUES (1)", "tables": []}),
        json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "OTHER", "sql": "SELECT 'unterminated"}),
    ]
    resolved = resolve_sql_tables(parse_event_lines(_lines_df(spark, lines)).events)
    rows = resolved.events.collect()
    assert len(rows) == 3
    for r in rows:
        tables = [(t.db, t.table, t.updating) for t in r.tables]
        if r.sql.startswith("INSERT INTO x.t"):
            assert tables == []  # a table list was given: kept as it is
        else:
            assert tables == [(None, "t", True), (None, "s", False)]
    dead = resolved.dead.collect()
    assert len(dead) == 1 and "cannot derive the tables" in dead[0].reason
    # the JSON reader (replfilter evaluate, REPLAY EVENTS FROM) derives the same tables and
    # refuses the same text for the same reason
    by_sql = {r.sql: [(t.db, t.table, t.updating) for t in r.tables] for r in rows}
    for line in lines:
        try:
            event = from_json(line)
        except EventFormatError as err:
            assert err.field == "sql" and dead[0].reason.endswith(str(err).split(": ", 1)[1])
            continue
        assert by_sql[event.sql] == [(t.db, t.table, t.updating) for t in event.tables]


def test_read_events_gives_events_decided_as_replfilter_evaluate_decides(spark, tmp_path):
    from replfilter.evaluation.event_lines import evaluate_lines
    from replfilter.server.session import Session
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.transform import InvalidEventError, apply_filters

    session = Session()
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'; "
                        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db1), REPLICATE_DO_TABLE = (db2.t3)")
    query = {"v": 1, "type": "query", "channel": "", "default_db": "db2", "command": "INSERT"}
    lines = [
        json.dumps({"v": 1, "type": "row", "channel": "", "db": "db1", "table": "t"}),
        json.dumps({**query, "sql": "INSERT INTO t3 VALUES (1)"}),  # tables from the text: db2.t3
        json.dumps({**query, "sql": "INSERT INTO t4 VALUES (1)"}),  # db2.t4: not a do-table
        json.dumps({**query, "sql": "INSERT INTO t4 VALUES (1)", "tables": []}),  # a given list is kept
        json.dumps({**query, "sql": "INSERT INTO 'unterminated"}),
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n")
    results, _ = evaluate_lines(session.state, lines)
    want = sorted(
        (getattr(r.event, "sql", None) or "", len(getattr(r.event, "tables", ())), r.decision.decision.value)
        for r in results if r.event
    )
    bad_lines = [r.error for r in results if r.error]

    ingested = read_events(spark, str(path), "json")
    decided = apply_filters(ingested.events, session.state).collect()
    assert sorted((r.sql or "", len(r.tables or []), r.decision) for r in decided) == want
    assert [r.decision for r in decided if r.sql == "INSERT INTO t4 VALUES (1)" and r.tables] == ["SKIP"]
    dead = [r.reason for r in ingested.dead.collect()]
    assert len(dead) == len(bad_lines) == 1 and "cannot derive the tables" in dead[0] and "cannot derive the tables" in bad_lines[0]

    # without the resolution the rows are not events yet, and deciding them says so
    raw = read_events(spark, str(path), "json", resolve_sql=False)
    assert sorted(r.tables is None for r in raw.events.collect() if r.sql) == [False, True, True, True]
    with pytest.raises(InvalidEventError) as err:
        apply_filters(raw.events, session.state)
    assert "resolve_sql_tables" in str(err.value)


def test_sql_whose_set_column_owner_is_unknown_is_a_dead_letter(spark):
    """Never a silent APPLY or SKIP: without the schema, which table an unqualified SET column
    of a multi-table UPDATE belongs to is not known, and Spark says so in a dead letter."""
    from replfilter.spark_runtime.ingest import parse_event_lines
    from replfilter.spark_runtime.sql_tables import resolve_sql_tables

    lines = [
        json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
                    "sql": "UPDATE y JOIN z ON y.id = z.id SET b = 1"}),
        json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
                    "sql": "UPDATE y JOIN z ON y.id = z.id SET z.b = 1"}),
    ]
    resolved = resolve_sql_tables(parse_event_lines(_lines_df(spark, lines)).events)
    (row,) = resolved.events.collect()
    assert [(t.table, t.updating) for t in row.tables] == [("y", False), ("z", True)]
    (dead,) = resolved.dead.collect()
    assert dead.reason == ("undecided: which table owns `b` is not known: give the schema with `--schema`, "
                           "or qualify the column")


def _writings(event) -> list[str]:
    """One event as replfilter writes it (``to_json``), compact, and as Spark's JSON writer
    writes it (compact, NULL fields left out)."""
    d = event.to_dict()
    without_nulls = {k: v for k, v in d.items() if v is not None}
    if "tables" in without_nulls:
        without_nulls["tables"] = [{k: v for k, v in t.items() if v is not None} for t in without_nulls["tables"]]
    compact = dict(separators=(",", ":"), ensure_ascii=False)
    return [to_json(event), json.dumps(d, **compact), json.dumps(without_nulls, **compact)]


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(events, min_size=1, max_size=15))
def test_events_in_replfilters_or_sparks_writing_pass_the_native_check(spark, evs):
    """The fast path holds for the writings a stream meets: every such line is accepted natively
    (none goes to Python) unless it spells a character as an escape, and is read as from_json reads it."""
    from replfilter.spark_runtime.ingest import checked_lines

    lines = [line for event in evs for line in _writings(event)]
    parsed, _ = checked_lines(_lines_df(spark, lines))
    rows = parsed.collect()
    assert len(rows) == len(lines)
    refused = sorted(r["_record"] for r in rows if not r["_ok"])
    assert refused == sorted(line for line in lines if "\\" in line), refused
    got = sorted(json.dumps(_comparable(r.asDict(recursive=True)), sort_keys=True) for r in rows if r["_ok"])
    want = sorted(
        json.dumps(_comparable(from_json(line).to_dict()), sort_keys=True) for line in lines if "\\" not in line
    )
    assert got == want


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(json_lines(), st.sampled_from(["", "  ", "\t"])), min_size=1, max_size=30))
def test_read_events_on_refused_lines_decides_or_refuses_as_evaluate(spark, tmp_path_factory, lines):
    """Lines the native check refuses (generated events, some mutated), read from a file with
    ``read_events``: each is the event ``replfilter evaluate`` reads, or a dead letter with its
    reason, its file and its line number as ``wc -l`` counts."""
    from replfilter.spark_runtime.ingest import read_events

    path = tmp_path_factory.mktemp("refused") / "events.jsonl"
    raw = [line.encode("utf-8", "surrogatepass") for line in lines]
    path.write_bytes(b"".join(line + b"\n" for line in raw))
    want_events, want_dead = [], []
    for number, line in enumerate(raw, start=1):
        if not line.strip(b" \t\r"):
            continue
        kind, value = _reference(line)
        if kind == "event":
            want_events.append(json.dumps(_comparable(value), sort_keys=True))
        else:
            want_dead.append((value, number))
    ingested = read_events(spark, str(path), "json", resolve_sql=False)
    got_events = sorted(json.dumps(_comparable(r.asDict(recursive=True)), sort_keys=True) for r in ingested.events.collect())
    dead = ingested.dead.collect()
    assert got_events == sorted(want_events)
    assert sorted((r.reason, r.line) for r in dead) == sorted(want_dead)
    assert all(r.source_file.endswith("events.jsonl") for r in dead)


def test_a_parquet_row_image_in_record_is_kept(spark, tmp_path):
    """Real change events carry row images: a ``record`` column of Parquet input reaches the
    events (and so the stream's outputs); files without it read it as NULL."""
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.schema import EVENT_SCHEMA, INGESTED_SCHEMA
    from spark_helpers import event_row

    with_image = {**event_row(RowEvent("", "d", "t")), "record": '{"after": {"id": 1}}'}
    spark.createDataFrame([with_image], INGESTED_SCHEMA).write.parquet(str(tmp_path / "a.parquet"))
    spark.createDataFrame([event_row(RowEvent("", "d", "u"))], EVENT_SCHEMA).write.parquet(str(tmp_path / "b.parquet"))
    got = {r.table: r.record for r in read_events(spark, str(tmp_path / "a.parquet"), "parquet").events.collect()}
    got |= {r.table: r.record for r in read_events(spark, str(tmp_path / "b.parquet"), "parquet").events.collect()}
    assert got == {"t": '{"after": {"id": 1}}', "u": None}


def test_drop_trigger_with_its_text_and_no_table_list_is_a_dead_letter_without_a_schema(spark, tmp_path):
    """The replica decides DROP TRIGGER by the trigger's table in its own catalog; without the
    replica's schema ``evaluate`` says undecided, and Spark makes such an event a dead letter with
    ``evaluate``'s reason, never a confident "not found" SKIP. With a table list it is decided as
    usual. (With a schema: tests/test_spark_catalog.py.)"""
    from replfilter.evaluation.event_lines import evaluate_lines
    from replfilter.replica.state import ReplicaState
    from replfilter.spark_runtime.ingest import read_events
    from replfilter.spark_runtime.sql_tables import key_needs_sql

    base = {"v": 1, "type": "query", "channel": "", "default_db": "d", "command": "DROP_TRIGGER", "sql": "DROP TRIGGER trg1"}
    lines = [base, {**base, "tables": []}, {**base, "tables": [{"db": "d", "table": "t"}]}]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ingested = read_events(spark, str(path), "json")
    dead = ingested.dead.collect()
    assert len(dead) == 2 and all("DROP TRIGGER trg1" in r.record for r in dead)
    want, _ = evaluate_lines(ReplicaState.fresh(), [json.dumps(line) for line in lines[:2]])
    assert all(r.decision.decision is None for r in want)
    assert {r.reason for r in dead} == {r.decision.reason for r in want}
    assert [[(t.db, t.table) for t in r.tables] for r in ingested.events.collect()] == [[("d", "t")]]
    key = {"type": "query", "command": "DROP_TRIGGER", "tables": []}
    assert key_needs_sql(key) and not key_needs_sql({**key, "tables": [{"db": "d", "table": "t"}]})
