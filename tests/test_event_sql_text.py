"""An event's SQL text read alike on every path: ``replfilter evaluate`` (and REPLAY EVENTS, the
same line reader) and EXPLAIN REPLICATION of the same text give the same answer; ``sql`` alone
suffices (the command is the text's); a ``command`` the text contradicts is refused; a text the
source refuses or does not log is an error naming ``sql``, and moves no counter
(mysql-filter-evaluation.md, section 3.2: the command kind and table list come from the text)."""

from __future__ import annotations

import json

import pytest

from replfilter.evaluation.event_lines import evaluate_lines
from replfilter.evaluation.explain import explain_sql
from replfilter.server.session import Session


def _state(rule: str = "REPLICATE_DO_TABLE = (d.t)"):
    session = Session()
    session.execute_sql(f"CHANGE REPLICATION FILTER {rule}")
    return session.state


def _line(**fields) -> str:
    return json.dumps({"v": 1, "type": "query", "default_db": "d", **fields})


@pytest.mark.parametrize("command", [None, "UPDATE", "UPDATE_MULTI"])
def test_an_unreadable_update_is_undecided_on_every_path(command) -> None:
    state = _state()
    fields = {"sql": "UPDATE (((", **({"command": command} if command else {})}
    (result,), after = evaluate_lines(state, [_line(**fields)])
    (row,) = explain_sql(state, "UPDATE (((", "d", ("STATEMENT",))
    assert result.decision.decision is None and row.decision.decision is None
    assert result.decision.reason.startswith(row.decision.reason)
    assert result.event.command.value == "UPDATE_MULTI"
    assert after.global_filters == state.global_filters  # no COUNTER moved


def test_the_verdict_stands_when_the_tables_cannot_change_it() -> None:
    state = _state("REPLICATE_IGNORE_DB = (d)")
    (result,), _ = evaluate_lines(state, [_line(sql="UPDATE (((")])
    (row,) = explain_sql(state, "UPDATE (((", "d", ("STATEMENT",))
    assert result.decision.decision.value == row.decision.decision.value == "SKIP"


@pytest.mark.parametrize("sql, message", [
    ("this is not sql", "field 'sql': the source refuses this statement (ERROR 1064 (42000)"),
    ("SELECT 1", "field 'sql': the source does not log this statement (SELECT is not written"),
])
def test_a_text_that_is_never_logged_is_an_error_naming_sql(sql, message) -> None:
    state = _state()
    (result,), after = evaluate_lines(state, [_line(sql=sql)])
    assert result.decision is None and result.error.startswith(message)
    assert after.global_filters == state.global_filters
    assert all(row.event is None for row in explain_sql(state, sql, "d"))  # EXPLAIN: nothing logged


def test_sql_alone_suffices() -> None:
    (drop, create), _ = evaluate_lines(_state(), [_line(sql="DROP TABLE t"), _line(sql="CREATE DATABASE e")])
    assert drop.event.command.value == "DROP_TABLE" and drop.decision.decision.value == "APPLY"
    assert create.event.command.value == "CREATE_DB" and create.event.default_db == "e"


def test_a_command_the_text_contradicts_is_refused() -> None:
    (result,), _ = evaluate_lines(_state(), [_line(command="INSERT", sql="DROP TABLE t")])
    assert result.error == ("field 'command': 'INSERT' contradicts the SQL text, which is a DROP_TABLE statement "
                            "(leave out `command` to take the text's)")


def test_replay_events_answers_as_evaluate(tmp_path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_text(_line(command="UPDATE", sql="this is not sql") + "\n" + _line(sql="UPDATE (((") + "\n")
    session = Session()
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.t)")
    result = session.execute_sql(f"REPLAY EVENTS FROM '{path}'")[-1]
    (warning,) = result.warnings
    assert "line 1: field 'sql': the source refuses this statement (ERROR 1064" in warning.message
    assert [tuple(r) for r in result.rows] == [("", None, 1)]  # line 2: undecided, as evaluate says
    counters = session.execute_sql("SELECT COUNTER FROM performance_schema.replication_applier_filters")[-1]
    assert [tuple(r) for r in counters.rows] == [(0,)]


@pytest.mark.spark
def test_spark_refuses_and_derives_as_evaluate(spark) -> None:
    """The Spark runtime reads the same texts with the JSON reader's own reading: the same
    dead letters for the same reasons, the command taken from the text."""
    from replfilter.spark_runtime.ingest import parse_event_lines
    from replfilter.spark_runtime.sql_tables import resolve_sql_tables

    lines = [
        _line(command="UPDATE", sql="this is not sql"),
        _line(command="INSERT", sql="DROP TABLE t"),
        _line(sql="SELECT 1"),
        _line(command="UPDATE", sql="UPDATE (((", channel=""),
        _line(sql="DROP TABLE t"),
        _line(command="INSERT", sql="INSERT INTO t SELECT * FROM s"),
    ]
    df = spark.createDataFrame([(i, line) for i, line in enumerate(lines)], "n long, value string")
    parsed = parse_event_lines(df)
    resolved = resolve_sql_tables(parsed.events)
    unprefixed = lambda reason: reason.split(": ", 1)[1] if reason.startswith("field '") else reason  # noqa: E731
    dead = sorted(unprefixed(r.reason) for r in parsed.dead.union(resolved.dead).collect())
    results, _ = evaluate_lines(_state(), lines)
    errors = sorted(unprefixed(r.error) for r in results if r.error)
    assert dead[:-1] == errors  # the unreadable UPDATE: undecided here, a dead letter in Spark
    assert "which tables the statement changes is not known: cannot parse this multi-table UPDATE" in dead[-1]
    assert sorted(r.command for r in resolved.events.collect()) == ["DROP_TABLE", "INSERT_SELECT"]


def test_drop_trigger_without_a_database_is_refused_by_the_source() -> None:
    """sql_yacc.yy, sp_name: an unqualified trigger name with no database selected is 1046 at
    parse time, IF EXISTS or not: nothing is logged, and the reason is one sentence."""
    state = _state()
    for sql in ("DROP TRIGGER trg", "DROP TRIGGER IF EXISTS trg"):
        rows = explain_sql(state, sql, "")
        assert all(r.event is None for r in rows)
        assert rows[0].note == ("the trigger name has no database and none is selected: the source refuses it "
                                "(ERROR 1046 (3D000): No database selected) and logs nothing")
        lines = [json.dumps({"v": 1, "type": "query", "sql": sql}),
                 json.dumps({"v": 1, "type": "query", "command": "DROP_TRIGGER", "tables": [], "sql": sql})]
        results, _ = evaluate_lines(state, lines)
        assert all("ERROR 1046 (3D000): No database selected" in r.error for r in results)
    assert explain_sql(state, "DROP TRIGGER d.trg", "")[0].event is not None  # qualified: logged
