"""The evaluator's API: decisions and their reasons, state-level application, the memoising
Evaluator and its decision key. Rule semantics are covered by test_evaluator_checklist.py."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replfilter.evaluation.evaluator import (
    Evaluator,
    UnknownChannelError,
    Verdict,
    apply_event,
    apply_events,
    compile_filters,
    decide,
    decide_batch,
    decision_key,
    with_counts,
)
from replfilter.evaluation.events import (
    CommandKind,
    QueryEvent,
    RowEvent,
    TableRef,
    TransactionEvent,
    TransactionKind,
)
from replfilter.core.filters import FilterSet, FilterType, NameCollation, fold_case
from replfilter.replica.state import Channel, ReplicaState, SourceSettings

from filter_builders import fset

FT = FilterType
CK = CommandKind
C0 = NameCollation(0)


def state_with(**channels: FilterSet) -> ReplicaState:
    chans = tuple(
        Channel(name if name != "default" else "", SourceSettings(host="h"), filters=f) for name, f in channels.items()
    )
    return ReplicaState(channels=tuple(sorted(chans, key=lambda c: c.name)), collation=C0)


def insert(db: str, table: str, qualified: str | None = None, channel: str = "") -> QueryEvent:
    return QueryEvent(channel, db, CK.INSERT, (TableRef(qualified, table),), f"INSERT INTO {table} VALUES (1)")


# --- Decision ------------------------------------------------------------------------------


def test_decision_fields_and_json() -> None:
    d = decide(fset(rewrite=[("a", "b")], do_db=["b"]), C0, RowEvent("", "a", "t"))
    assert d.decision is Verdict.APPLY and d.decision == "APPLY" and str(d.decision) == "APPLY" and d.applied
    assert (d.filter_type, d.rule, d.db, d.rewritten_db, d.rewrite_rule) == (FT.DO_DB, "b", "b", "b", "(a,b)")
    assert json.loads(json.dumps(d.to_dict())) == {
        "decision": "APPLY",
        "filter": "REPLICATE_DO_DB",
        "rule": "b",
        "reason": "database 'b' is in replicate-do-db; no table rules",
        "db": "b",
        "rewritten_db": "b",
        "rewrite_rule": "(a,b)",
        "counters": {"REPLICATE_REWRITE_DB": 1, "REPLICATE_DO_DB": 1},
    }


def test_increments_are_read_only() -> None:
    d = decide(fset(do_db=["d"]), C0, RowEvent("", "d", "t"))
    with pytest.raises(TypeError):
        d.increments[FT.DO_DB] = 5  # type: ignore[index]


@pytest.mark.parametrize(
    "filters, event, verdict, ftype, rule, reason",
    [
        (FilterSet(), RowEvent("", "d", "t"), "APPLY", None, None, "no do-db rules and no matching ignore-db rule; no table rules"),
        (fset(do_db=["d"]), insert("e", "t"), "SKIP", None, None, "database 'e' is not in replicate-do-db"),
        (fset(ignore_db=["e"]), insert("e", "t"), "SKIP", FT.IGNORE_DB, "e", "database 'e' is in replicate-ignore-db"),
        (fset(do_table=["d.t"]), insert("d", "t"), "APPLY", FT.DO_TABLE, "d.t", "table 'd.t' is in replicate-do-table"),
        (fset(ignore_table=["d.t"]), insert("d", "t"), "SKIP", FT.IGNORE_TABLE, "d.t", "table 'd.t' is in replicate-ignore-table"),
        (fset(wild_do=["d.%"]), insert("d", "t"), "APPLY", FT.WILD_DO_TABLE, "d.%", "table 'd.t' matches replicate-wild-do-table"),
        (fset(wild_ignore=["%.t"]), insert("d", "t"), "SKIP", FT.WILD_IGNORE_TABLE, "%.t", "table 'd.t' matches replicate-wild-ignore-table"),
        (fset(do_table=["d.x"]), insert("d", "t"), "SKIP", None, None, "no table rule matched and do-table or wild-do-table rules exist"),
        (fset(ignore_table=["d.x"]), insert("d", "t"), "APPLY", None, None, "no table rule matched and there are no do-table or wild-do-table rules"),
        (fset(ignore_table=["d.x"]), QueryEvent("", "d", CK.INSERT_SELECT, (TableRef(None, "t", False),)), "SKIP", None, None,
         "the statement's table list has no updating table"),
        (fset(do_db=["d"], ignore_table=["d.x"]), insert("d", "t"), "APPLY", FT.DO_DB, "d",
         "database 'd' is in replicate-do-db; no table rule matched and there are no do-table or wild-do-table rules"),
        (fset(wild_do=["x.%"]), QueryEvent("", "y", CK.CREATE_DB), "SKIP", None, None,
         "database statement: 'y.' matches no replicate-wild-do-table rule"),
        (fset(wild_ignore=["x.%"]), QueryEvent("", "y", CK.DROP_DB), "APPLY", None, None,
         "database statement: no wild-do-table rules and no matching wild-ignore-table rule"),
        (fset(do_db=["x"]), QueryEvent("", "y", CK.COMMIT), "APPLY", None, None, "COMMIT is never filtered"),
        (fset(ignore_table=["d.t"]), QueryEvent("", "d", CK.DROP_TABLE, (TableRef(None, "t"),), None, True, True), "APPLY", None, None,
         "DROP TEMPORARY TABLE IF EXISTS is exempt from table rules"),
        (fset(ignore_table=["d.t"]), QueryEvent("", "d", CK.SET_OPTION, (TableRef(None, "t"),)), "APPLY", None, None,
         "SET is exempt from table rules"),
        (FilterSet(), QueryEvent("", "d", CK.DROP_TRIGGER), "SKIP", None, None, "DROP TRIGGER: the trigger is not found on the replica"),
        (fset(do_table=["d.t"]), QueryEvent("", "d", CK.CREATE_USER), "APPLY", None, None,
         "no do-db rules and no matching ignore-db rule; the statement has no table list"),
        (fset(do_db=["x"]), TransactionEvent("", TransactionKind.GTID, "u:1"), "APPLY", None, None, "transaction event: never filtered"),
    ],
)
def test_reasons(filters: FilterSet, event, verdict: str, ftype, rule, reason: str) -> None:
    d = decide(filters, C0, event)
    assert (d.decision, d.filter_type, d.rule, d.reason) == (verdict, ftype, rule, reason)


def test_exact_table_rule_text_is_the_configured_spelling() -> None:
    filters = fset(1, do_table=["Db.T"])
    d = decide(filters, NameCollation(1), RowEvent("", "DB", "t"))
    assert (d.decision, d.rule, d.db) == ("APPLY", "Db.T", "db")


@given(st.text(max_size=12), st.text(max_size=12))
def test_folding_is_per_character(a: str, b: str) -> None:
    # the server lower-cases character by character: no length change, no context
    assert fold_case(a + b) == fold_case(a) + fold_case(b)
    assert len(fold_case(a)) == len(a)


def test_folding_follows_the_server_where_python_lower_does_not() -> None:
    assert fold_case("İSTANBUL") == "istanbul"  # str.lower: "i̇stanbul" (9 characters)
    assert fold_case("ΣΑΣ") == "σασ"  # str.lower: "σας" (final sigma)
    assert fold_case("Straße") == "straße" and fold_case("ς") == "ς"  # not case folding
    ci = NameCollation(1)
    assert decide(fset(1, do_db=["σασ"]), ci, RowEvent("", "ΣΑΣ", "t")).applied
    assert not decide(fset(1, do_db=["σας"]), ci, RowEvent("", "ΣΑΣ", "t")).applied
    assert decide(fset(1, do_table=["istanbul.t"]), ci, RowEvent("", "İSTANBUL", "T")).applied
    assert decide(fset(1, wild_do=["i_tanbul.%"]), ci, RowEvent("", "İSTANBUL", "T")).applied


def test_transaction_events_are_never_filtered() -> None:
    filters = fset(do_db=["x"], ignore_table=["%.%"], wild_ignore=["%.%"])
    for kind in TransactionKind:
        d = decide(filters, C0, TransactionEvent("", kind))
        assert d.decision == "APPLY" and not d.increments


def test_decide_rejects_non_events() -> None:
    with pytest.raises(TypeError):
        decide(FilterSet(), C0, "INSERT")  # type: ignore[arg-type]


def test_decide_batch() -> None:
    events = [insert("d", "t"), insert("e", "t")]
    assert [d.decision for d in decide_batch(fset(do_db=["d"]), C0, events)] == ["APPLY", "SKIP"]


def test_compilation_ignores_counters() -> None:
    filters = fset(do_db=["d"])
    moved = filters.with_counts({FT.DO_DB: 5})
    assert compile_filters(filters, C0) is compile_filters(moved, C0)
    assert compile_filters(filters, C0) is not compile_filters(filters, NameCollation(1))


# --- state level ---------------------------------------------------------------------------


def test_apply_event_moves_only_that_channels_counters() -> None:
    state = state_with(default=fset(do_db=["d"]), ch2=fset(do_db=["d"]))
    decision, after = apply_event(state, insert("d", "t", channel="ch2"))
    assert decision.decision == "APPLY"
    assert after.channel("ch2").filters[FT.DO_DB].counter == 1  # type: ignore[union-attr]
    assert after.channel("").filters[FT.DO_DB].counter == 0  # type: ignore[union-attr]
    assert state.channel("ch2").filters[FT.DO_DB].counter == 0  # type: ignore[union-attr]  # immutable
    assert after.global_filters == state.global_filters  # the applier never counts on the global object


def test_apply_event_without_counter_movement_returns_the_same_state() -> None:
    state = state_with(default=fset(do_db=["d"]))
    _, after = apply_event(state, insert("e", "t"))
    assert after is state


def test_apply_events_in_order_with_counters() -> None:
    state = state_with(default=fset(ignore_db=["x"]), ch2=fset(do_table=["d.t"]))
    events = [insert("x", "t"), insert("x", "t"), insert("d", "t", channel="ch2"), RowEvent("ch2", "d", "u")]
    decisions, after = apply_events(state, events)
    assert [d.decision for d in decisions] == ["SKIP", "SKIP", "APPLY", "SKIP"]
    assert after.channel("").filters[FT.IGNORE_DB].counter == 2  # type: ignore[union-attr]
    assert after.channel("ch2").filters[FT.DO_TABLE].counter == 1  # type: ignore[union-attr]


def test_unknown_channel() -> None:
    state = state_with(default=FilterSet())
    with pytest.raises(UnknownChannelError) as info:
        apply_event(state, RowEvent("nope", "d", "t"))
    assert isinstance(info.value, ValueError) and "nope" in str(info.value)
    with pytest.raises(UnknownChannelError):
        Evaluator(state).decide(RowEvent("nope", "d", "t"))
    with pytest.raises(UnknownChannelError):
        with_counts(state, {"nope": {FT.DO_DB: 1}})


def test_unconfigured_default_channel_still_decides() -> None:
    state = ReplicaState.fresh()
    decision, _ = apply_event(state, RowEvent("", "d", "t"))
    assert decision.decision == "APPLY"


# --- memoising evaluator --------------------------------------------------------------------


def test_decision_key() -> None:
    q = QueryEvent("c", "d", CK.INSERT, (TableRef(None, "t"), TableRef("e", "s", False)), "sql text")
    assert decision_key(q) == ("c", "query", "INSERT", "d", ((None, "t", True), ("e", "s", False)))
    assert decision_key(q) == decision_key(QueryEvent("c", "d", CK.INSERT, q.tables, "other text"))
    assert decision_key(RowEvent("c", "d", "t")) == ("c", "row", "", "d", "t")
    assert decision_key(TransactionEvent("c", TransactionKind.XID)) == ("c", "transaction", "XID", "", "")
    drop = QueryEvent("", "d", CK.DROP_TABLE, (TableRef(None, "t"),), None, True, True)
    assert decision_key(drop)[2] == "DROP_TABLE+TEMPORARY_IF_EXISTS"
    assert decision_key(QueryEvent("", "d", CK.DROP_TABLE, (TableRef(None, "t"),), None, True, False))[2] == "DROP_TABLE"
    with pytest.raises(TypeError):
        decision_key("x")  # type: ignore[arg-type]


def test_evaluator_memoises_per_key_and_counts_every_event() -> None:
    state = state_with(default=fset(do_db=["d"]))
    ev = Evaluator(state)
    first = ev.decide(RowEvent("", "d", "t"))
    again = ev.decide(RowEvent("", "d", "t"))
    assert first is again and ev.distinct_keys == 1
    ev.decide_all([RowEvent("", "d", "t")] * 3 + [RowEvent("", "e", "t")])
    assert ev.distinct_keys == 2
    assert ev.counters() == {"": {FT.DO_DB: 5}}
    assert ev.state().channel("").filters[FT.DO_DB].counter == 5  # type: ignore[union-attr]


def test_evaluator_without_memo_gives_the_same_results() -> None:
    state = state_with(default=fset(do_db=["d"], wild_ignore=["d.x%"]))
    stream = [RowEvent("", "d", "t"), RowEvent("", "d", "x1"), insert("d", "x2"), insert("e", "t")] * 3
    memo, plain = Evaluator(state), Evaluator(state, memoise=False)
    assert memo.decide_all(stream) == plain.decide_all(stream)
    assert memo.counters() == plain.counters()
    assert memo.state() == plain.state()
    assert plain.distinct_keys == 0


# --- helpers for the extensions and the CLI ---------------------------------------------------


def test_describe_event() -> None:
    from replfilter.evaluation.explain import describe_event

    q = QueryEvent("", "d", CK.INSERT_SELECT, (TableRef(None, "t"), TableRef("e", "s", False)))
    assert describe_event(q) == "query INSERT_SELECT db=d tables=[t*, e.s]"
    drop = QueryEvent("", "d", CK.DROP_TABLE, (TableRef(None, "t"),), None, True, True)
    assert describe_event(drop) == "query DROP_TABLE TEMPORARY IF EXISTS db=d tables=[t*]"
    assert describe_event(RowEvent("", "d", "t")) == "rows d.t"
    assert describe_event(TransactionEvent("", TransactionKind.GTID, "u:1")) == "GTID u:1"
    assert describe_event(TransactionEvent("", TransactionKind.XID)) == "XID"


def test_explain_sql_rows_per_format_channel_and_event() -> None:
    from replfilter.evaluation.explain import explain_sql

    state = state_with(default=fset(ignore_db=["db1"], do_table=["db2.t3"]), ch2=FilterSet())
    rows = explain_sql(state, "INSERT INTO db2.t3 VALUES (1)", "db1")
    assert [(r.channel, r.binlog_format, r.event_text, r.decision.decision.value) for r in rows] == [  # type: ignore[union-attr]
        ("", "STATEMENT", "query INSERT db=db1 tables=[db2.t3*]", "SKIP"),
        ("ch2", "STATEMENT", "query INSERT db=db1 tables=[db2.t3*]", "APPLY"),
        ("", "ROW", "rows db2.t3", "APPLY"),
        ("ch2", "ROW", "rows db2.t3", "APPLY"),
    ]
    assert rows[0].decision.filter_type is FT.IGNORE_DB  # type: ignore[union-attr]
    only = explain_sql(state, "USE db2; INSERT INTO t3 VALUES (1)", binlog_formats=("ROW",), channels=["ch2"])
    assert [(r.event_text, r.note is not None) for r in only] == [("(nothing logged)", True), ("rows db2.t3", False)]
    # counters are not moved by a "would" question
    assert state.channel("").filters[FT.IGNORE_DB].counter == 0  # type: ignore[union-attr]
    fresh = ReplicaState.fresh()
    assert [r.channel for r in explain_sql(fresh, "DROP TRIGGER t", "d")] == ["", ""]
    assert explain_sql(fresh, "DROP TRIGGER t", "d")[0].tables_known is False
    with pytest.raises(UnknownChannelError):
        explain_sql(state, "BEGIN", channels=["nope"])


def test_evaluate_lines_reports_bad_lines_and_moves_counters() -> None:
    from replfilter.evaluation.event_lines import evaluate_lines, tally

    state = state_with(default=fset(do_db=["d"]))
    lines = [
        '{"v": 1, "type": "row", "db": "d", "table": "t"}',
        "",
        "{not json",
        '{"v": 1, "type": "row", "db": "e", "table": "t"}',
        '{"v": 1, "type": "row", "channel": "nope", "db": "d", "table": "t"}',
        '{"v": 1, "type": "row", "db": "d", "table": "u"}',
    ]
    results, after = evaluate_lines(state, lines)
    assert [(r.line, r.decision.decision.value if r.decision else None) for r in results] == [
        (1, "APPLY"), (3, None), (4, "SKIP"), (5, None), (6, "APPLY"),
    ]
    assert results[1].error.startswith("not valid JSON") and "nope" in results[3].error  # type: ignore[union-attr]
    assert after.channel("").filters[FT.DO_DB].counter == 2  # type: ignore[union-attr]
    assert tally(results) == {("", "APPLY"): 2, ("", "SKIP"): 1}
    first = json.loads(results[0].to_json())
    assert first["line"] == 1 and first["decision"] == "APPLY" and first["event"]["db"] == "d"
    assert json.loads(results[1].to_json()) == {"line": 3, "error": results[1].error}


def test_an_undecided_event_moves_no_counter() -> None:
    """The do-db check runs before the table whose updating flag is not known decides; its
    increment alone would be a partial count, so an undecided event moves none (as Spark's dead
    letter for it moves none)."""
    from replfilter.evaluation.evaluator import apply_events
    from replfilter.evaluation.events import CommandKind, QueryEvent, TableRef
    from replfilter.server.session import Session

    session = Session()
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST='src'")
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1), REPLICATE_WILD_IGNORE_TABLE=('db%.t%') FOR CHANNEL ''")
    event = QueryEvent(channel="", default_db="db1", command=CommandKind.UPDATE_MULTI, tables=(TableRef(None, "t1", None),))
    (decision,), state = apply_events(session.state, [event])
    assert decision.decision is None and "is updating is not known" in decision.reason
    assert not decision.increments
    assert state == session.state
