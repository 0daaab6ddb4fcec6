"""Verdicts that need the schema: never a guess without it, MySQL's resolution with it.

mysql-filter-evaluation.md, section 3.2: a multi-table UPDATE's updating tables are those its SET
assigns (resolved by the source, MySQL's find_field_in_tables in sql/sql_base.cc); DROP TRIGGER
is decided by the trigger's table on the replica (step 4); a statement the filters let through
stops the applier when it names a table the replica lacks.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replfilter.core.errors import MySQLError
from replfilter.core.filters import NameCollation
from replfilter.evaluation.event_lines import evaluate_lines
from replfilter.evaluation.events import CommandKind, QueryEvent, TableRef
from replfilter.evaluation.explain import explain_sql
from replfilter.evaluation.sql.logged_events import statement_events
from replfilter.replica.catalog import Catalog, TableDef, TriggerDef
from replfilter.server.session import Session

CK = CommandKind


def _catalog(*tables: tuple[str, str, tuple[str, ...]], triggers=(), lctn: int = 0) -> Catalog:
    catalog = Catalog.empty(NameCollation(lctn))
    for db, name, columns in tables:
        catalog = catalog.with_table(TableDef(db, name, columns))
    for trigger in triggers:
        catalog = catalog.with_trigger(trigger)
    return catalog


def _session(*statements: str) -> Session:
    session = Session()
    for sql in statements:
        session.execute_sql(sql)
    return session


def _explain(state, sql: str, db: str = "d") -> dict[str, tuple]:
    """Format -> (event text, decision, reason, applier error) of the first row per format."""
    out: dict[str, tuple] = {}
    for row in explain_sql(state, sql, db):
        decision = row.decision.decision.value if row.decision and row.decision.decision else None
        reason = (row.decision.reason if row.decision else row.reason or "") + "; " + (row.note or "")
        out.setdefault(row.binlog_format, (row.event_text, decision, reason, row.applier_error))
    return out


SCHEMA = _catalog(("d", "y", ("id", "a")), ("d", "z", ("id", "b")), ("d", "x", ("id", "b", "c")))


# --- never guess ----------------------------------------------------------------------------


def test_unqualified_set_column_without_schema_is_not_a_guess() -> None:
    """The issue's case: ignore-table d.x, ``SET b = 1`` over y and z. Neither y nor z hits a
    rule, so MySQL applies it whichever owns ``b``: APPLY under both formats, no longer the old
    SKIP ("no updating table") nor "(nothing logged)"."""
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.x)").state
    rows = _explain(state, "UPDATE y JOIN z ON y.id = z.id SET b = 1")
    assert rows["STATEMENT"][:2] == ("query UPDATE_MULTI db=d tables=[y?, z?]", "APPLY")
    assert rows["ROW"][:2] == ("rows d.y or d.z (not known)", "APPLY")
    for _, _, reason, _ in rows.values():
        assert "which table owns `b` is not known: give the schema with `--schema`, or qualify the column" in reason


def test_undecided_when_the_owner_decides() -> None:
    """When a candidate table would hit a rule, the outcome depends on which table owns the
    column: NULL decision, with what is missing and what to do."""
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.y)").state
    rows = _explain(state, "UPDATE y JOIN z ON y.id = z.id SET b = 1")
    assert rows["STATEMENT"][1] is None and rows["ROW"][1] is None
    assert "undecided" in rows["STATEMENT"][2] and "`--schema`" in rows["STATEMENT"][2]
    assert "which table owns `b` is not known" in rows["ROW"][2]


def test_evaluate_writes_null_decision_and_unknown_updating() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.y)").state
    line = json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
                       "sql": "UPDATE y JOIN z ON y.id = z.id SET b = 1"})
    (result,), _ = evaluate_lines(state, [line])
    out = json.loads(result.to_json())
    assert out["decision"] is None and "`--schema`" in out["reason"]
    assert [t["updating"] for t in out["event"]["tables"]] == [None, None]  # not false, as before


def test_aliases_resolve_without_a_schema() -> None:
    derived = statement_events("UPDATE y AS a JOIN z SET a.b = 1", "d")
    assert derived.tables_known and derived.events[0].tables == (TableRef(None, "y", True), TableRef(None, "z", False))


def test_a_known_updating_table_that_hits_decides_before_unknown_ones() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.y)").state
    rows = _explain(state, "UPDATE y JOIN z ON y.id = z.id SET y.a = 1, b = 2")
    assert rows["STATEMENT"][1] == "SKIP"  # y is assigned for certain and listed first


# --- with the source's schema ----------------------------------------------------------------


@pytest.mark.parametrize(
    "sql, tables",
    [
        ("UPDATE y JOIN z ON y.id = z.id SET b = 1", [False, True]),
        ("UPDATE y AS p JOIN z AS q ON p.id = q.id SET a = 1", [True, False]),
        ("UPDATE y JOIN z ON y.id = z.id SET z.b = 1, a = 2", [True, True]),
        ("UPDATE d.y JOIN d.z ON y.id = z.id SET d.y.a = 1", [True, False]),
        ("UPDATE y JOIN z ON y.id = z.id SET `B` = 1", [False, True]),  # columns: case-insensitive
    ],
)
def test_set_columns_resolve_against_the_source_schema(sql: str, tables: list[bool]) -> None:
    derived = statement_events(sql, "d", catalog=SCHEMA)
    assert derived.tables_known
    assert [t.updating for t in derived.events[0].tables] == tables


@pytest.mark.parametrize(
    "sql, error",
    [
        ("UPDATE z JOIN x ON z.id = x.id SET b = 1", "ERROR 1052 (23000): Column 'b' in field list is ambiguous"),
        ("UPDATE y JOIN z ON y.id = z.id SET nope = 1", "ERROR 1054 (42S22): Unknown column 'nope' in 'field list'"),
        ("UPDATE y JOIN z ON y.id = z.id SET y.b = 1", "ERROR 1054 (42S22): Unknown column 'y.b' in 'field list'"),
        ("UPDATE y JOIN w ON y.id = w.id SET a = 1", "ERROR 1146 (42S02): Table 'd.w' doesn't exist"),
    ],
)
def test_the_source_refuses_unresolvable_columns(sql: str, error: str) -> None:
    for fmt in ("STATEMENT", "ROW"):
        derived = statement_events(sql, "d", fmt, catalog=SCHEMA)
        assert derived.events == () and derived.analysis.source_error == error


def test_statement_and_row_follow_the_resolved_map() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.z)").state
    without = _explain(state, "UPDATE y JOIN z ON y.id = z.id SET b = 1")
    assert without["STATEMENT"][1] is None  # z would decide, if it owns b
    state = state.with_source_catalog(None, SCHEMA)
    with_schema = _explain(state, "UPDATE y JOIN z ON y.id = z.id SET b = 1")
    assert with_schema["STATEMENT"][:2] == ("query UPDATE_MULTI db=d tables=[y, z*]", "SKIP")
    assert with_schema["ROW"][:2] == ("rows d.z", "SKIP")


def test_a_channel_prefixed_schema_is_that_channel_source_only() -> None:
    session = _session("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a'",
                       "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'b'")
    state = session.state.with_source_catalog("a", SCHEMA)
    rows = explain_sql(state, "UPDATE y JOIN z ON y.id = z.id SET b = 1", "d", ("STATEMENT",))
    by_channel = {r.channel: r.event_text for r in rows}
    assert by_channel == {"a": "query UPDATE_MULTI db=d tables=[y, z*]", "b": "query UPDATE_MULTI db=d tables=[y?, z?]"}


def test_multi_table_delete_targets_resolve_through_aliases() -> None:
    derived = statement_events("DELETE q FROM y AS p JOIN z AS q ON p.id = q.id", "d")
    assert derived.events[0].tables == (TableRef(None, "y", False), TableRef(None, "z", True))


# --- DROP TRIGGER ---------------------------------------------------------------------------


def test_drop_trigger_is_decided_by_its_table_on_the_replica() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.t)").state
    assert _explain(state, "DROP TRIGGER trg1")["STATEMENT"][1] is None  # no schema: not known
    replica = _catalog(("d", "t", ("a",)), ("d", "u", ("a",)), triggers=(TriggerDef("d", "trg1", "t"),
                                                                       TriggerDef("d", "trg2", "u")))
    state = state.with_replica_catalog(replica)
    assert _explain(state, "DROP TRIGGER trg1")["STATEMENT"][:2] == ("query DROP_TRIGGER db=d tables=[d.t*]", "APPLY")
    assert _explain(state, "DROP TRIGGER d.trg2")["STATEMENT"][1] == "SKIP"  # d.u: not on the do list
    missing = _explain(state, "DROP TRIGGER trg3")["STATEMENT"]
    assert missing[1] == "SKIP" and "not found on the replica" in missing[2]


def test_evaluate_decides_drop_trigger_as_explain_does() -> None:
    """``replfilter evaluate`` and REPLAY EVENTS look the trigger up in the replica's catalog as
    it stands at that event (a trigger dropped earlier is gone), and without a schema the verdict
    is undecided, not "not found"."""
    state = _session("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.t)").state
    lines = [json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "DROP_TRIGGER", "sql": f"DROP TRIGGER {name}"})
             for name in ("trg1", "d.trg2", "trg3", "trg1")]
    results, _ = evaluate_lines(state, lines)
    assert {r.decision.decision for r in results} == {None}
    assert all("replica's schema is not known" in r.decision.reason for r in results)
    replica = _catalog(("d", "t", ("a",)), ("d", "u", ("a",)), triggers=(TriggerDef("d", "trg1", "t"),
                                                                       TriggerDef("d", "trg2", "u")))
    results, _ = evaluate_lines(state.with_replica_catalog(replica), lines)
    verdicts = [(r.decision.decision.value, r.event.tables) for r in results]
    assert verdicts == [("APPLY", (TableRef("d", "t", True),)), ("SKIP", (TableRef("d", "u", True),)),
                        ("SKIP", ()), ("SKIP", ())]  # the last trg1 was dropped by the first


def test_drop_trigger_looks_in_the_rewritten_database() -> None:
    """The unqualified trigger is looked up in the session's database, which the replica has
    rewritten (sql_parse.cc: get_table_for_trigger with the parsed name's db)."""
    state = _session("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b))").state
    state = state.with_replica_catalog(_catalog(("b", "t", ("x",)), triggers=(TriggerDef("b", "trg", "t"),)))
    assert _explain(state, "DROP TRIGGER trg", "a")["STATEMENT"][0] == "query DROP_TRIGGER db=a tables=[b.t*]"


# --- the replica will stop -----------------------------------------------------------------


def test_applier_error_when_an_applied_statement_names_a_missing_table() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('test.%')").state
    assert _explain(state, "INSERT INTO t7 VALUES (1)", "test")["STATEMENT"][3] is None  # no schema: no claim
    state = state.with_replica_catalog(_catalog(("test", "t1", ("a",))))
    rows = _explain(state, "INSERT INTO t7 VALUES (1)", "test")
    assert rows["STATEMENT"][1:] [0] == "APPLY"
    assert rows["STATEMENT"][3] == "ERROR 1146 (42S02): Table 'test.t7' doesn't exist"
    assert rows["ROW"][3] == "ERROR 1146 (42S02): Table 'test.t7' doesn't exist"
    assert _explain(state, "INSERT INTO t1 VALUES (1)", "test")["STATEMENT"][3] is None
    assert _explain(state, "INSERT INTO other.t7 VALUES (1)", "test")["ROW"][1:4:2] == ("SKIP", None)  # skipped: no error


# --- database statements --------------------------------------------------------------------


def test_database_statements_are_checked_against_the_rewritten_name() -> None:
    """MySQL 8.4 checks CREATE/ALTER/DROP DATABASE once, in ``check_database_filters(thd,
    thd->db().str, ...)`` (sql/sql_parse.cc), on the event's database after the rewrite; the
    second check on the written name (``db_stmt_db_ok(thd, lex->name)``) is 5.x and MariaDB
    code. So under ``db1 -> rw`` with ``do-db rw``, ``DROP DATABASE db1`` passes (and drops db1,
    the name the statement writes). README "Where replfilter chooses" records the disagreement
    with mysql-filter-evaluation.md, step 3 / X21b, which follow a MariaDB replica."""
    state = _session("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((db1, rw)), REPLICATE_DO_DB = (rw)").state
    row = explain_sql(state, "DROP DATABASE db1", "", ("STATEMENT",))[0]
    assert (row.decision.decision.value, row.decision.rewritten_db) == ("APPLY", "rw")
    state = _session("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((db1, rw)), REPLICATE_WILD_DO_TABLE = ('rw.%')").state
    assert explain_sql(state, "CREATE DATABASE db1", "", ("STATEMENT",))[0].decision.decision.value == "APPLY"


# --- EXPLAIN REPLICATION as the user sees it -------------------------------------------------


def test_explain_statement_columns_and_errors() -> None:
    session = _session()
    result = session.execute_sql("EXPLAIN REPLICATION OF 'CREATE TABLE IF NOT EXISTS t (a INT)' DEFAULT DATABASE d FORMAT STATEMENT")[-1]
    assert result.columns[-1] == "Applier_error"
    assert "CREATE_TABLE IF NOT EXISTS" in result.rows[0][2]
    refused = session.execute_sql("EXPLAIN REPLICATION OF 'this is not sql'")[-1]
    assert refused.rows[0][2:4] == ("(nothing logged)", None) and "ERROR 1064 (42000)" in refused.rows[0][7]
    with pytest.raises(MySQLError) as empty:
        session.execute_sql("EXPLAIN REPLICATION OF ''")
    assert (empty.value.code, empty.value.message) == (1065, "Query was empty")


def test_flush_tables_with_a_list_is_not_modelled() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.t)").state
    stmt = _explain(state, "FLUSH TABLES t")["STATEMENT"]
    assert stmt[1] is None and "not modelled" in stmt[2]
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (d)").state
    assert _explain(state, "FLUSH TABLES t")["STATEMENT"][1] == "SKIP"  # the database rule decides anyway
    assert _explain(Session().state, "FLUSH TABLES t")["STATEMENT"][1] == "APPLY"  # no table rules


def test_replay_warnings_keep_their_end(tmp_path) -> None:
    path = tmp_path / ("events-with-a-rather-long-directory-name-" * 2 + ".jsonl")
    path.write_text('{"v": 1, "type": "row", "db": "d", "table": "t", "some_unknown_field_name": 1}\n')
    result = _session().execute_sql(f"REPLAY EVENTS FROM '{path}'")[-1]
    (warning,) = result.warnings
    assert warning.message.endswith("field 'some_unknown_field_name': unknown field for a row event'")


# --- the schema decides only what qualification leaves open ---------------------------------

_COLUMNS = ("a", "b", "c", "id")


@st.composite
def _schema_and_statement(draw):
    count = draw(st.integers(2, 4))
    names = [f"t{i}" for i in range(count)]
    columns = {n: tuple(draw(st.lists(st.sampled_from(_COLUMNS), min_size=1, max_size=4, unique=True))) for n in names}
    dbs = {n: draw(st.sampled_from(["d", "e"])) for n in names}
    aliased = {n: draw(st.booleans()) for n in names}
    refs = [(f"{dbs[n]}.{n}" if dbs[n] != "d" or draw(st.booleans()) else n) + (f" AS x{n}" if aliased[n] else "")
            for n in names]
    qualifier = {n: f"x{n}" if aliased[n] else n for n in names}
    if draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
        sets = ", ".join(f"{qualifier[n]}.{draw(st.sampled_from(columns[n]))} = {i}" for i, n in enumerate(chosen))
        sql = f"UPDATE {' JOIN '.join(refs)} SET {sets}"
    else:
        targets = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
        sql = f"DELETE {', '.join(qualifier[n] for n in targets)} FROM {' JOIN '.join(refs)}"
    schema = _catalog(*((dbs[n], n, columns[n]) for n in names))
    exact = [f"{dbs[n]}.{n}" for n in names]
    kinds = draw(st.lists(st.sampled_from(["REPLICATE_DO_TABLE", "REPLICATE_IGNORE_TABLE",
                                           "REPLICATE_WILD_DO_TABLE", "REPLICATE_WILD_IGNORE_TABLE"]),
                          max_size=3, unique=True))
    rules = [(kind, draw(st.sampled_from(exact + (["d.%", "e.t%"] if "WILD" in kind else [])))) for kind in kinds]
    return schema, sql, rules


@settings(max_examples=120, deadline=None)
@given(_schema_and_statement())
def test_with_all_columns_qualified_the_schema_changes_no_verdict(case) -> None:
    """For multi-table UPDATE/DELETE whose columns are all qualified, the verdict with the
    source's schema equals the verdict without it, under both formats."""
    schema, sql, rules = case
    clauses = ", ".join(
        f"{kind} = ({chr(39) + rule + chr(39) if 'WILD' in kind else rule})" for kind, rule in rules
    )
    session = _session(f"CHANGE REPLICATION FILTER {clauses}" if clauses else "SHOW WARNINGS")
    without = explain_sql(session.state, sql, "d")
    with_schema = explain_sql(session.state.with_source_catalog(None, schema), sql, "d")
    view = lambda rows: [(r.binlog_format, r.event_text, r.decision) for r in rows]  # noqa: E731
    assert view(with_schema) == view(without)
    assert all(r.decision is not None and r.decision.decision is not None for r in without)


def test_replay_sets_the_channel_last_sql_error(tmp_path) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE DATABASE test;\nCREATE TABLE test.t1 (a INT);\n")
    events = tmp_path / "events.jsonl"
    events.write_text(
        '{"v": 1, "type": "row", "db": "test", "table": "t1"}\n'
        '{"v": 1, "type": "query", "default_db": "test", "command": "INSERT", "sql": "INSERT INTO t7 VALUES (1)"}\n'
        '{"v": 1, "type": "row", "db": "test", "table": "t8"}\n'
    )
    session = _session("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a'")
    session.execute_sql(f"REPLAY EVENTS FROM '{events}'")  # no schema: nothing is claimed
    status = session.execute_sql("SHOW REPLICA STATUS FOR CHANNEL 'a'")[-1]
    columns = dict(zip(status.columns, status.rows[0]))
    assert (columns["Last_SQL_Errno"], columns["Last_SQL_Error"]) == (0, "")
    session.execute_sql(f"LOAD SCHEMA FROM '{schema}'")
    session.execute_sql(f"REPLAY EVENTS FROM '{events}' FOR CHANNEL 'a'")
    status = session.execute_sql("SHOW REPLICA STATUS FOR CHANNEL 'a'")[-1]
    columns = dict(zip(status.columns, status.rows[0]))
    assert columns["Last_SQL_Errno"] == 1146 and columns["Last_Errno"] == 1146
    assert columns["Last_SQL_Error"] == (
        "Error 'Table 'test.t7' doesn't exist' on query. Default database: 'test'. Query: 'INSERT INTO t7 VALUES (1)'"
    )


def test_evaluate_reports_the_applier_error(tmp_path) -> None:
    state = _session().state.with_replica_catalog(_catalog(("test", "t1", ("a",))))
    lines = ['{"v": 1, "type": "row", "db": "test", "table": "t1"}',
             '{"v": 1, "type": "row", "db": "test", "table": "t7"}']
    results, _ = evaluate_lines(state, lines)
    out = [json.loads(r.to_json())["applier_error"] for r in results]
    assert out == [None, "ERROR 1146 (42S02): Table 'test.t7' doesn't exist"]
    results, _ = evaluate_lines(_session().state, lines)  # no schema: unknown is not missing
    assert [json.loads(r.to_json())["applier_error"] for r in results] == [None, None]


def test_evaluate_resolves_event_sql_with_the_source_schema() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (d.z)").state
    line = json.dumps({"v": 1, "type": "query", "default_db": "d", "command": "UPDATE_MULTI",
                       "sql": "UPDATE y JOIN z ON y.id = z.id SET b = 1"})
    (undecided,), _ = evaluate_lines(state, [line])
    assert undecided.decision.decision is None
    (resolved,), _ = evaluate_lines(state.with_source_catalog(None, SCHEMA), [line])
    assert resolved.decision.decision.value == "SKIP"
    assert [t.updating for t in resolved.event.tables] == [False, True]


def test_exchange_partition_swap_table_is_updating() -> None:
    state = _session("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (e.x)").state
    rows = _explain(state, "ALTER TABLE d.p EXCHANGE PARTITION p0 WITH TABLE e.x")
    assert rows["STATEMENT"][:2] == ("query ALTER_TABLE db=d tables=[d.p*, e.x*]", "SKIP")


def test_start_replica_and_reset_replica_clear_the_last_sql_error(tmp_path) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE DATABASE test;\n")
    events = tmp_path / "events.jsonl"
    events.write_text('{"v": 1, "type": "row", "db": "test", "table": "t7"}\n')
    session = _session("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a'", f"LOAD SCHEMA FROM '{schema}'")

    def last_error() -> tuple:
        status = session.execute_sql("SHOW REPLICA STATUS FOR CHANNEL 'a'")[-1]
        columns = dict(zip(status.columns, status.rows[0]))
        return columns["Last_SQL_Errno"], columns["Last_SQL_Error"]

    for clear in ("START REPLICA SQL_THREAD FOR CHANNEL 'a'", "RESET REPLICA FOR CHANNEL 'a'"):
        session.execute_sql("STOP REPLICA FOR CHANNEL 'a'")
        session.execute_sql(f"REPLAY EVENTS FROM '{events}' FOR CHANNEL 'a'")
        assert last_error() == (1146, "Error executing row event: 'Table 'test.t7' doesn't exist'")
        session.execute_sql(clear)
        assert last_error() == (0, "")


def test_explain_follows_the_script_on_the_replica_catalog() -> None:
    """A script's applied DDL changes the replica's catalog for the statements after it; a DDL
    the replica's server refuses is the applier's error too."""
    state = _session().state.with_replica_catalog(_catalog(("test", "t1", ("a",))))
    rows = explain_sql(state, "CREATE TABLE t7 (a INT); INSERT INTO t7 VALUES (1); CREATE TABLE t1 (a INT)",
                       "test", ("STATEMENT",))
    assert [r.applier_error for r in rows] == [None, None, "ERROR 1050 (42S01): Table 't1' already exists"]
    assert explain_sql(state, "INSERT INTO t7 VALUES (1)", "test", ("STATEMENT",))[0].applier_error is not None


# --- foreign keys into tables the filters keep off the replica ---------------------------------

FK_SCHEMA = (
    "CREATE DATABASE shop; USE shop;"
    "CREATE TABLE customers (id INT PRIMARY KEY);"
    "CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT,"
    " CONSTRAINT fk_orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id));"
    "CREATE TABLE notes (id INT, order_id INT);"
    "ALTER TABLE notes ADD FOREIGN KEY (order_id) REFERENCES orders (id);"
)


def test_foreign_keys_are_read_into_the_catalog(tmp_path) -> None:
    """CREATE TABLE constraints (named, and InnoDB's ``<table>_ibfk_<n>`` when unnamed), ALTER
    TABLE ADD / DROP FOREIGN KEY, kept when a table is renamed and in the datadir's store."""
    from replfilter.replica.catalog_store import catalog_from_document, catalog_to_document

    path = tmp_path / "fk.sql"
    path.write_text(FK_SCHEMA + "RENAME TABLE notes TO order_notes;", encoding="utf-8")
    session = Session()
    session.execute_text(f"LOAD SCHEMA FROM '{path}'")
    catalog = session.state.source_catalog("")
    orders, notes = catalog.table("shop", "orders"), catalog.table("shop", "order_notes")
    assert [(k.name, k.columns, k.ref_db, k.ref_table, k.ref_columns) for k in orders.foreign_keys] == [
        ("fk_orders_customer", ("customer_id",), "shop", "customers", ("id",))]
    assert [k.name for k in notes.foreign_keys] == ["notes_ibfk_1"]
    assert catalog_from_document(catalog_to_document(catalog), catalog.collation).table("shop", "orders").foreign_keys == orders.foreign_keys
    path.write_text(FK_SCHEMA + "ALTER TABLE notes DROP FOREIGN KEY notes_ibfk_1;", encoding="utf-8")
    dropped = Session()
    dropped.execute_text(f"LOAD SCHEMA FROM '{path}'")
    assert dropped.state.source_catalog("").table("shop", "notes").foreign_keys == ()


def test_applier_error_for_a_child_of_a_filtered_table(tmp_path) -> None:
    """With ``--replicate-ignore-table=shop.customers`` the replica has no customers: an INSERT
    into orders stops with 1452, a CREATE TABLE referencing customers with 1824; EXPLAIN and
    ``evaluate`` give the same error (one function, applier_errors.foreign_key_error)."""
    path = tmp_path / "fk.sql"
    path.write_text(FK_SCHEMA, encoding="utf-8")
    session = Session()
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.customers)")
    session.execute_text(f"LOAD SCHEMA FROM '{path}'")
    rows = session.execute_text("EXPLAIN REPLICATION OF 'INSERT INTO shop.orders VALUES (1, 1)' FORMAT=STATEMENT").rows
    assert rows[0][-1] == ("ERROR 1452 (23000): Cannot add or update a child row: a foreign key constraint fails "
                           "(`shop`.`orders`, CONSTRAINT `fk_orders_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`))")
    lines = [json.dumps({"v": 1, "type": "query", "default_db": "shop", "command": "CREATE_TABLE",
                         "tables": [{"db": None, "table": "x", "updating": True}],
                         "sql": "CREATE TABLE x (id INT, c INT, FOREIGN KEY (c) REFERENCES customers (id))"})]
    results, _ = evaluate_lines(session.state, lines)
    assert results[0].applier_error.code == 1824 and "referenced table 'customers'" in results[0].applier_error.message
    kept = Session()
    kept.execute_text(f"LOAD SCHEMA FROM '{path}'")
    assert kept.execute_text("EXPLAIN REPLICATION OF 'INSERT INTO shop.orders VALUES (1, 1)' FORMAT=STATEMENT").rows[0][-1] is None
