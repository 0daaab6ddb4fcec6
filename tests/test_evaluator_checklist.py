"""Every case of the spec's conformance checklist (mysql-filter-evaluation.md section 10), the
manual's worked examples (spec section 8.1) and the examples of seeds 001, 003 and 004.

Each case states rules, events (built from SQL with ``sql.logged_events`` where the case is about a
statement, or written directly where it is about an event shape), the expected APPLY/SKIP per
event and the expected COUNTER increments summed over the events (``None`` = not checked).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from replfilter.evaluation.evaluator import (
    Evaluator,
    apply_event,
    decide,
    transaction_outcomes,
)
from replfilter.evaluation.events import (
    CommandKind,
    Event,
    QueryEvent,
    RowEvent,
    TableRef,
    TransactionEvent,
    TransactionKind,
)
from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation
from replfilter.evaluation.sql.logged_events import statement_events
from replfilter.replica.state import Channel, ReplicaState, SourceSettings

from filter_builders import fset

FT = FilterType
CK = CommandKind
TK = TransactionKind

def S(sql: str, db: str = "") -> list[Event]:
    """Events of ``sql`` under STATEMENT format with default database ``db``."""
    return list(statement_events(sql, db, "STATEMENT").events)


def R(sql: str, db: str = "") -> list[Event]:
    """Events of ``sql`` under ROW format."""
    return list(statement_events(sql, db, "ROW").events)


def row(db: str, table: str) -> RowEvent:
    return RowEvent("", db, table)


def q(db: str, command: CommandKind, *tables: TableRef, **flags: bool) -> QueryEvent:
    return QueryEvent("", db, command, tuple(tables), None, **flags)


def t(db: str | None, table: str, updating: bool = True) -> TableRef:
    return TableRef(db, table, updating)


@dataclass
class Case:
    id: str
    rules: dict
    events: list
    expected: list[str]
    counters: dict | None = field(default_factory=dict)
    lctn: int = 0


def _counters(**kw: int) -> dict:
    names = {"DO_DB": FT.DO_DB, "IGN_DB": FT.IGNORE_DB, "DO_T": FT.DO_TABLE, "IGN_T": FT.IGNORE_TABLE,
             "WDO": FT.WILD_DO_TABLE, "WIGN": FT.WILD_IGNORE_TABLE, "REW": FT.REWRITE_DB}
    return {names[k]: v for k, v in kw.items()}


C = _counters
A, K = "APPLY", "SKIP"

CASES = [
    # --- database level
    Case("01", {}, S("INSERT INTO d.t VALUES (1)", "d"), [A]),
    Case("02", {"do_db": ["d"]}, S("INSERT INTO t VALUES (1)", "d"), [A], C(DO_DB=1)),
    Case("03", {"do_db": ["d"]}, S("INSERT INTO d.t VALUES (1)", "e"), [K]),
    Case("04", {"do_db": ["d"]}, S("INSERT INTO d.t VALUES (1)", ""), [K]),
    Case("05", {"ignore_db": ["d"]}, S("INSERT INTO d.t VALUES (1)", ""), [A]),
    Case("06", {"ignore_db": ["d"]}, S("UPDATE d.t SET a = 1", "e"), [A]),
    Case("07", {"ignore_db": ["d"]}, R("UPDATE d.t SET a = 1", "e"), [K], C(IGN_DB=1)),
    Case("08", {"do_db": ["d"], "ignore_db": ["d"]}, S("INSERT INTO t VALUES (1)", "d"), [A], C(DO_DB=1)),
    Case("09", {"do_db": ["d"], "ignore_db": ["e"]}, S("INSERT INTO t VALUES (1)", "e"), [K]),
    Case("10", {"do_db": ["d1", "d2"]}, R("UPDATE d1.a, d3.b SET a.c = 1, b.c = 1", "x"), [A, K], C(DO_DB=1)),
    Case(
        "11", {"do_db": ["d"]},
        S("BEGIN", "e") + S("COMMIT", "e") + S("ROLLBACK", "e") + S("SAVEPOINT s", "e") + S("ROLLBACK TO SAVEPOINT s", "e")
        + [TransactionEvent("", TK.BEGIN), TransactionEvent("", TK.XID), TransactionEvent("", TK.COMMIT), TransactionEvent("", TK.ROLLBACK)],
        [A] * 9,
    ),
    Case("12", {"do_db": ["D"]}, S("INSERT INTO t VALUES (1)", "d"), [K], lctn=0),
    Case("13", {"do_db": ["D"]}, S("INSERT INTO t VALUES (1)", "d"), [A], C(DO_DB=1), lctn=1),
    Case("14", {"do_db": ["a,b"]}, S("INSERT INTO t VALUES (1)", "a"), [K]),
    # --- database statements (Table B, Bug #46110)
    Case(
        "15", {"do_db": ["dbx"], "wild_do": ["db%.t1"]},
        S("CREATE DATABASE dbx", "any") + S("ALTER DATABASE dbx CHARACTER SET utf8mb4", "any") + S("DROP DATABASE dbx", "any"),
        [A, A, A], C(DO_DB=3),
    ),
    Case("16", {"do_db": ["dbx"], "wild_do": ["db%.t1"]}, S("CREATE DATABASE dby", "dbx"), [K]),
    Case("17", {"wild_do": ["foo%.%"]}, S("CREATE DATABASE foo1", "x"), [A], C(WDO=1)),
    Case("18", {"wild_do": ["foo%.%"]}, S("CREATE DATABASE bar", "foo1"), [K]),
    Case("19", {"wild_do": ["foo%.bar%"]}, S("CREATE DATABASE foo1"), [K]),
    Case("20", {"wild_ignore": ["db1.%"]}, S("DROP DATABASE db1"), [K], C(WIGN=1)),
    Case("21", {"wild_ignore": ["db1.%"]}, S("DROP DATABASE db2"), [A]),
    Case("22", {"do_table": ["d.t"]}, S("CREATE DATABASE z"), [A]),
    Case("23", {"ignore_db": ["x"], "wild_ignore": ["z.%"]}, S("DROP DATABASE z"), [A]),
    Case("24", {"wild_do": ["%.%"]}, S("CREATE DATABASE anything"), [A], C(WDO=1)),
    # --- table level
    Case("25", {"do_table": ["d.t"]}, S("INSERT INTO t VALUES (1)", "d"), [A], C(DO_T=1)),
    Case("26", {"do_table": ["d.t"]}, S("INSERT INTO u VALUES (1)", "d"), [K]),
    Case("27", {"ignore_table": ["d.t"]}, S("INSERT INTO u VALUES (1)", "d"), [A]),
    Case("28", {"ignore_table": ["d.t"]}, S("INSERT INTO d.t VALUES (1)", "e"), [K], C(IGN_T=1)),
    Case("29", {"do_table": ["d.a"], "ignore_table": ["d.b"]}, S("UPDATE a, b SET a.x = 1, b.y = 1", "d"), [A], C(DO_T=1)),
    Case("30", {"do_table": ["d.a"], "ignore_table": ["d.b"]}, S("UPDATE b, a SET a.x = 1, b.y = 1", "d"), [K], C(IGN_T=1)),
    Case("31", {"do_table": ["d.a"], "ignore_table": ["d.b"]}, R("UPDATE a, b SET a.x = 1, b.y = 1", "d"), [A, K], C(DO_T=1, IGN_T=1)),
    Case("32", {"wild_do": ["d.%"], "ignore_table": ["d.x"]}, S("INSERT INTO x VALUES (1)", "d") + R("INSERT INTO x VALUES (1)", "d"), [K, K], C(IGN_T=2)),
    Case("33", {"wild_do": ["d.%"], "wild_ignore": ["d.%"]}, S("INSERT INTO t VALUES (1)", "d") + R("INSERT INTO t VALUES (1)", "d"), [A, A], C(WDO=2)),
    Case("34", {"do_table": ["d.t"], "wild_ignore": ["%.%"]}, S("INSERT INTO t VALUES (1)", "d"), [A], C(DO_T=1)),
    Case("35", {"ignore_table": ["d.t"], "wild_do": ["%.%"]}, S("INSERT INTO t VALUES (1)", "d"), [K], C(IGN_T=1)),
    Case("36", {"do_table": ["e.s"]}, S("INSERT INTO t SELECT * FROM e.s", "d"), [K]),
    Case("37", {"ignore_table": ["d.s"]}, S("INSERT INTO t SELECT * FROM s", "d"), [A]),
    Case("38", {"ignore_table": ["d.t2"]}, S("DELETE t1 FROM t1 JOIN t2 ON t1.a = t2.a", "d"), [A]),
    Case("39", {"ignore_table": ["d.t1"]}, S("DELETE t1 FROM t1 JOIN t2 ON t1.a = t2.a", "d"), [K], C(IGN_T=1)),
    Case("40", {"do_table": ["d.t2"]}, S("UPDATE t1 JOIN t2 ON t1.a = t2.a SET t1.c = t2.c", "d"), [K]),
    Case("41", {"ignore_table": ["d.t"]}, S("DROP TEMPORARY TABLE IF EXISTS t", "d"), [A]),
    Case("42", {"ignore_table": ["d.t"]}, S("DROP TEMPORARY TABLE t", "d"), [K], C(IGN_T=1)),
    Case("43", {"ignore_table": ["d.t"]}, [q("d", CK.SET_OPTION), q("d", CK.SET_OPTION, t(None, "t"))], [A, A]),
    Case("44", {"do_table": ["d.t"]}, S("CREATE PROCEDURE p() BEGIN INSERT INTO t VALUES (1); END", "d") + S("CREATE USER u", "d"), [A, A]),
    Case("45", {"do_table": ["d.t"]}, S("DROP TRIGGER trg", "d"), [K]),
    Case("46", {"ignore_table": ["d.t"]}, [q("d", CK.DROP_TRIGGER, t("d", "t"))], [K], C(IGN_T=1)),
    Case("47", {"ignore_table": ["d.x"]}, [q("d", CK.INSERT_SELECT, t(None, "t", False), t("e", "s", False))], [K]),
    # 48: built below (rules emptied after being set)
    Case("49", {"do_table": ["a.b.c"]}, [row("a.b", "c"), row("a", "b.c")], [A, A], C(DO_T=2)),
    Case("50", {"do_table": ["d.t"]}, S("UPDATE d.t SET a = 1", "d"), [A], C(DO_T=1)),
    # --- wildcards
    Case("51", {"wild_do": ["db_1.%"]}, [row("dbx1", "t")], [A], C(WDO=1)),
    Case("52", {"wild_do": ["db\\_1.%"]}, [row("dbx1", "t"), row("db_1", "t")], [K, A], C(WDO=1)),
    Case("53", {"wild_do": ["my\\_own\\%db.%"]}, [row("my1ownAABCdb", "t"), row("my_own%db", "t")], [K, A], C(WDO=1)),
    Case("54", {"wild_do": ["db1.%"]}, [row("db1.x", "y")], [A], C(WDO=1)),
    Case("56a", {"wild_do": ["DB1.%"]}, [row("db1", "t")], [K], lctn=0),
    Case("56b", {"wild_do": ["DB1.%"]}, [row("db1", "t")], [A], C(WDO=1), lctn=1),
    Case("58", {"wild_do": ["%.t"]}, [row("x", "t"), row("x", "tt")], [A, K], C(WDO=1)),
    # --- rewrite
    Case("59", {"rewrite": [("a", "b")]}, S("INSERT INTO t VALUES (1)", "a"), [A], C(REW=1)),
    Case("60", {"rewrite": [("a", "b")], "do_db": ["b"]}, [row("a", "t")], [A], C(REW=1, DO_DB=1)),
    Case("61", {"rewrite": [("a", "b")], "do_db": ["a"]}, [row("a", "t")], [K], C(REW=1)),
    Case("62", {"rewrite": [("a", "b")], "do_table": ["b.t"]}, S("INSERT INTO t VALUES (1)", "a"), [A], C(REW=1, DO_T=1)),
    Case("63", {"rewrite": [("a", "b")], "do_table": ["b.t"]}, S("INSERT INTO a.t VALUES (1)", "a"), [K], C(REW=1)),
    Case("64", {"rewrite": [("a", "b")], "do_table": ["a.t"]}, S("INSERT INTO a.t VALUES (1)", "a"), [A], C(REW=1, DO_T=1)),
    Case("65", {"rewrite": [("a", "b"), ("a", "c")], "do_db": ["b"]}, S("INSERT INTO t VALUES (1)", "a") + [row("a", "t")], [A, A], C(REW=2, DO_DB=2)),
    Case("66", {"rewrite": [("a", "b"), ("b", "c")], "do_db": ["b"]}, S("INSERT INTO t VALUES (1)", "a") + [row("a", "t")], [A, A], C(REW=2, DO_DB=2)),
    Case("67", {"rewrite": [("a", "b")]}, S("BEGIN", "a") + S("COMMIT", "a"), [A, A]),
    Case("68", {"rewrite": [("a", "b")]}, S("CREATE DATABASE a", "a") + S("DROP DATABASE a", "a"), [A, A]),
    Case("68b", {"rewrite": [("a", "b")], "do_db": ["a"]}, S("CREATE DATABASE a", "x"), [K]),  # X21
    Case("68c", {"rewrite": [("a", "b")], "ignore_db": ["b"]}, S("DROP DATABASE a", "x"), [K], C(IGN_DB=1)),
    Case("69", {"rewrite": [("a", "b")]}, S("ALTER DATABASE a CHARACTER SET utf8mb4", "a"), [A], C(REW=1)),
    Case("70", {"rewrite": [("A", "b")], "do_db": ["b"]}, [row("a", "t")], [A], C(REW=1, DO_DB=1), lctn=1),
    Case("71", {"rewrite": [("a", "b")], "ignore_db": ["a"]}, S("INSERT INTO t VALUES (1)", "a"), [A], C(REW=1)),
    # --- transactions / GTID / events (72, 73, 78 also checked in dedicated tests below)
    Case(
        "72", {"do_db": ["x"]},
        [TransactionEvent("", TK.GTID, "g:1"), TransactionEvent("", TK.BEGIN), row("y", "t"), TransactionEvent("", TK.XID)],
        [A, A, K, A],
    ),
    Case("73", {"do_db": ["x"]}, [TransactionEvent("", TK.GTID, "g:1")] + S("CREATE TABLE t (a INT)", "y"), [A, K]),
    Case("74", {"do_db": ["x"]}, [TransactionEvent("", TK.INTVAR)] + S("INSERT INTO t VALUES (NULL)", "y"), [A, K]),
    Case("75", {"do_db": ["x"]}, [row("y", "t")], [K]),  # rows of a filtered-out map are skipped with it
    Case(
        "76", {"do_table": ["d.t"]},
        [q("d", CK.CREATE_TABLE, t(None, "t"), t(None, "s", False)), row("d", "t")],
        [A, A], C(DO_T=2),
    ),
    Case("76b", {"do_table": ["d.t"]}, R("CREATE TABLE t SELECT * FROM s", "d"), [A, A], C(DO_T=2)),
    Case("77", {"do_db": ["d"]}, S("INSERT INTO d.t VALUES (1)", "e") + R("INSERT INTO d.t VALUES (1)", "e"), [K, A], C(DO_DB=1)),
    # --- counters
    Case(
        "79", {"ignore_db": ["x"], "ignore_table": ["d.z"], "wild_ignore": ["q.%"], "rewrite": [("r", "s")]},
        S("INSERT INTO t VALUES (1)", "d") + [row("d", "t")] + S("CREATE DATABASE w", "d"),
        [A, A, A],
    ),
    Case("80", {"ignore_db": ["x"]}, S("INSERT INTO t VALUES (1)", "x"), [K], C(IGN_DB=1)),
    Case("81", {"do_table": ["d.t"], "ignore_table": ["d.t"]}, S("INSERT INTO t VALUES (1)", "d"), [A], C(DO_T=1)),
]


def _run(case: Case) -> list:
    collation = NameCollation(case.lctn)
    filters = fset(case.lctn, **case.rules)
    return [decide(filters, collation, event) for event in case.events]


def _sum(decisions: list) -> dict:
    total: dict = {}
    for d in decisions:
        for ftype, n in d.increments.items():
            total[ftype] = total.get(ftype, 0) + n
    return total


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_checklist(case: Case) -> None:
    assert len(case.events) == len(case.expected), "case definition: one expectation per event"
    decisions = _run(case)
    assert [d.decision for d in decisions] == case.expected, [d.reason for d in decisions]
    if case.counters is not None:
        assert _sum(decisions) == case.counters


def test_checklist_is_complete() -> None:
    """All 82 items are covered, here or in a dedicated test below."""
    here = {int(c.id[:2]) for c in CASES}
    dedicated = {48, 55, 57, 78, 82}
    assert here | dedicated == set(range(1, 83))


# --- cases needing more than one filter state or a stream view -----------------------------


def test_48_rules_emptied_leave_table_rules_on() -> None:
    collation = NameCollation(0)
    filters = fset(do_table=["d.t"]).set_type(FT.DO_TABLE, (), ConfiguredBy.CHANGE_REPLICATION_FILTER, 2, collation)
    assert filters.table_rules_on
    d = decide(filters, collation, S("INSERT INTO u VALUES (1)", "d")[0])
    assert d.decision == "APPLY" and not d.increments
    # X36: the same emptied set skips a statement with tables but none updating
    none_updating = q("d", CK.INSERT_SELECT, t(None, "t", False))
    assert decide(filters, collation, none_updating).decision == "SKIP"
    # and a set that never had table rules does not reach table level at all
    assert decide(FilterSet(), collation, none_updating).decision == "APPLY"


def test_55_wild_rule_without_dot_is_rejected_by_the_statement() -> None:
    from replfilter.core.errors import MySQLError

    parser = pytest.importorskip("replfilter.dialect.parser")
    with pytest.raises(MySQLError) as info:
        parser.parse_statement("CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db1%')")
    assert info.value.code == 3067


def test_57_trailing_backslash_is_literal() -> None:
    from replfilter.core.wildcard import like

    assert like("x.a\\", "x.a\\")
    filters = fset(wild_do=["x.a\\"])
    assert decide(filters, NameCollation(0), row("x", "a\\")).decision == "APPLY"


def test_72_73_filtered_transactions_are_recorded_empty() -> None:
    collation = NameCollation(0)
    filters = fset(do_db=["x"])
    stream = (
        [TransactionEvent("", TK.GTID, "g:1"), TransactionEvent("", TK.BEGIN), row("y", "t"), row("y", "t"), TransactionEvent("", TK.XID)]
        + [TransactionEvent("", TK.GTID, "g:2")] + S("CREATE TABLE t (a INT)", "y")
        + [TransactionEvent("", TK.GTID, "g:3")] + S("BEGIN", "x") + S("INSERT INTO t VALUES (1)", "x") + S("COMMIT", "x")
        + [TransactionEvent("", TK.GTID, "g:4"), TransactionEvent("", TK.BEGIN), row("y", "t"), row("x", "t"), TransactionEvent("", TK.XID)]
    )
    decisions = [decide(filters, collation, e) for e in stream]
    outcomes = transaction_outcomes(stream, decisions)
    assert [(o.gtid, o.empty) for o in outcomes] == [("g:1", True), ("g:2", True), ("g:3", False), ("g:4", False)]
    assert (outcomes[3].applied, outcomes[3].skipped) == (1, 1)  # partially filtered: commits the rest


def test_78_xa_with_a_filter_hit_is_flagged_unsupported() -> None:
    collation = NameCollation(0)
    filters = fset(do_db=["x"])
    stream = [TransactionEvent("", TK.GTID, "g:1")] + S("XA START 'x1'", "x") + [row("y", "t")] + S("XA END 'x1'", "x") + S("XA PREPARE 'x1'", "x")
    decisions = [decide(filters, collation, e) for e in stream]
    # XA boundaries are exempt (8.4, checklist 37 "new"); the map is filtered
    assert [d.decision for d in decisions] == ["APPLY", "APPLY", "SKIP", "APPLY", "APPLY"]
    (outcome,) = transaction_outcomes(stream, decisions)
    assert outcome.xa and outcome.xa_filtered  # ER_XA_REPLICATION_FILTERS: error/undefined
    # X37 (8.4 behaviour): XA START under a non-matching do-db applies, no counter
    d = decide(filters, collation, S("XA START 'x1'", "y")[0])
    assert d.decision == "APPLY" and not d.increments


def test_82_reconfiguring_a_type_resets_only_its_counter() -> None:
    collation = NameCollation(0)
    filters = fset(do_db=["d"], ignore_table=["d.x"])
    state = ReplicaState(channels=(Channel("", SourceSettings(host="h"), filters=filters),), collation=collation)
    for event in S("INSERT INTO t VALUES (1)", "d") + S("INSERT INTO x VALUES (1)", "d"):
        _, state = apply_event(state, event)
    moved = state.channel("").filters  # type: ignore[union-attr]
    assert (moved[FT.DO_DB].counter, moved[FT.IGNORE_TABLE].counter) == (2, 1)
    reset = moved.set_type(FT.DO_DB, ("d", "e"), ConfiguredBy.CHANGE_REPLICATION_FILTER, 99, collation)
    assert reset[FT.DO_DB].counter == 0 and reset[FT.DO_DB].active_since == 99
    assert reset[FT.IGNORE_TABLE] == moved[FT.IGNORE_TABLE]


def test_11_boundaries_count_nothing_even_when_rewritten_except_rollback() -> None:
    """Spec 7: BEGIN/COMMIT never count REWRITE_DB; ROLLBACK and SAVEPOINT do when rewritten."""
    filters = fset(rewrite=[("a", "b")], do_db=["zzz"])
    collation = NameCollation(0)
    counts = {sql: dict(decide(filters, collation, S(sql, "a")[0]).increments) for sql in ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT s")}
    assert counts == {"BEGIN": {}, "COMMIT": {}, "ROLLBACK": {FT.REWRITE_DB: 1}, "SAVEPOINT s": {FT.REWRITE_DB: 1}}


def test_release_savepoint_is_not_exempt() -> None:
    d = decide(fset(do_db=["x"]), NameCollation(0), S("RELEASE SAVEPOINT s", "y")[0])
    assert d.decision == "SKIP"


# --- deciding rule and reason of the checklist's notable cases ------------------------------


def test_deciding_rules_are_reported() -> None:
    collation = NameCollation(0)
    d = decide(fset(do_table=["d.a"], ignore_table=["d.b"]), collation, S("UPDATE b, a SET a.x = 1, b.y = 1", "d")[0])
    assert (d.filter_type, d.rule) == (FT.IGNORE_TABLE, "d.b")
    d = decide(fset(wild_do=["foo%.%"]), collation, S("CREATE DATABASE foo1")[0])
    assert (d.filter_type, d.rule) == (FT.WILD_DO_TABLE, "foo%.%")
    d = decide(fset(rewrite=[("a", "b"), ("a", "c")]), collation, row("a", "t"))
    assert (d.rewritten_db, d.rewrite_rule, d.db) == ("b", "(a,b)", "b")
    d = decide(fset(rewrite=[("a", "b")]), collation, S("INSERT INTO t VALUES (1)", "a")[0])
    assert (d.db, d.rewritten_db) == ("b", "b")  # 59: writes b.t
    d = decide(fset(do_db=["d"], do_table=["d.a"]), collation, S("INSERT INTO b VALUES (1)", "d")[0])
    assert (d.decision, d.filter_type, dict(d.increments)) == ("SKIP", None, {FT.DO_DB: 1})  # X27
    d = decide(fset(ignore_db=["x"]), collation, S("INSERT INTO t VALUES (1)", "y")[0])
    assert d.reason == "no do-db rules and no matching ignore-db rule; no table rules"


def test_lctn_folds_incoming_names_and_rewrite_quirk() -> None:
    """Spec 7 quirk 1: under lctn != 0 a query event's rewrite A->a does not count (the folded
    name is unchanged), while a Table_map's rule match always counts."""
    collation = NameCollation(1)
    filters = fset(1, rewrite=[("A", "a")])
    d = decide(filters, collation, S("INSERT INTO t VALUES (1)", "A")[0])
    assert d.db == "a" and not d.increments
    d = decide(filters, collation, row("A", "T"))
    assert d.db == "a" and dict(d.increments) == {FT.REWRITE_DB: 1}
    # 22/23 of X: DO_DB=MYDB with USE mydb
    for lctn, expected in ((0, "SKIP"), (1, "APPLY")):
        f = fset(lctn, do_db=["MYDB"])
        for event in S("CREATE TABLE T1 (a INT)", "mydb") + S("INSERT INTO T1 VALUES (1)", "mydb"):
            assert decide(f, NameCollation(lctn), event).decision == expected


# --- the manual's worked examples (spec 8.1) and seeds 001, 003, 004 ----------------------


def _verdicts(rules: dict, sql: str, db: str, fmt: str, lctn: int = 0) -> list[str]:
    filters = fset(lctn, **rules)
    collation = NameCollation(lctn)
    events = statement_events(sql, db, fmt).events
    return [decide(filters, collation, e).decision.value for e in events]


SEED_004 = {"ignore_db": ["db1"], "do_table": ["db2.t3"]}


@pytest.mark.parametrize("fmt", ["STATEMENT", "ROW"])
def test_seed_004_example_19_7_create_table_is_filtered_in_both_formats(fmt: str) -> None:
    assert _verdicts(SEED_004, "CREATE TABLE t2 LIKE t1", "db1", fmt) == ["SKIP"]


def test_seed_004_example_19_7_insert_depends_on_format() -> None:
    assert _verdicts(SEED_004, "INSERT INTO db2.t3 VALUES (1)", "db1", "STATEMENT") == ["SKIP"]
    assert _verdicts(SEED_004, "INSERT INTO db2.t3 VALUES (1)", "db1", "ROW") == ["APPLY"]
    filters, collation = fset(**SEED_004), NameCollation(0)
    (stmt,) = statement_events("INSERT INTO db2.t3 VALUES (1)", "db1", "STATEMENT").events
    d = decide(filters, collation, stmt)
    assert (d.filter_type, dict(d.increments)) == (FT.IGNORE_DB, {FT.IGNORE_DB: 1})  # table rules not checked
    (rows,) = statement_events("INSERT INTO db2.t3 VALUES (1)", "db1", "ROW").events
    d = decide(filters, collation, rows)
    assert (d.filter_type, dict(d.increments)) == (FT.DO_TABLE, {FT.DO_TABLE: 1})


@pytest.mark.parametrize("fmt", ["STATEMENT", "ROW"])
def test_seed_004_fix_use_db2_gives_the_same_verdict_in_both_formats(fmt: str) -> None:
    from replfilter.evaluation.sql.logged_events import script_events

    filters, collation = fset(**SEED_004), NameCollation(0)
    derived = script_events("USE db1; CREATE TABLE t2 LIKE t1; USE db2; INSERT INTO t3 VALUES (1);", "", fmt)
    verdicts = [decide(filters, collation, e).decision.value for d in derived for e in d.events]
    assert verdicts == ["SKIP", "APPLY"]


@pytest.mark.parametrize("fmt", ["STATEMENT", "ROW"])
def test_seed_004_ddl_is_filtered_by_the_current_database_whatever_the_format(fmt: str) -> None:
    assert _verdicts({"do_db": ["db1"]}, "CREATE TABLE db1.t (a INT)", "db2", fmt) == ["SKIP"]
    assert _verdicts({"do_db": ["db1"]}, "CREATE TABLE db2.t (a INT)", "db1", fmt) == ["APPLY"]


def test_seed_004_multi_table_update_differs_by_format() -> None:
    rules = {"do_table": ["d.in"], "ignore_table": ["d.out"]}
    sql = "UPDATE `in`, `out` SET `in`.a = 1, `out`.a = 1"
    assert _verdicts(rules, sql, "d", "STATEMENT") == ["APPLY"]
    assert _verdicts(rules, sql, "d", "ROW") == ["APPLY", "SKIP"]


def test_seed_003_ignore_db_with_do_table() -> None:
    rules = {"ignore_db": ["db1"], "do_table": ["db2.tbl2"]}
    assert _verdicts(rules, "INSERT INTO db2.tbl2 VALUES (1)", "db1", "STATEMENT") == ["SKIP"]
    assert _verdicts(rules, "INSERT INTO db2.tbl2 VALUES (1)", "db1", "ROW") == ["APPLY"]


def test_seed_003_typical_combinations() -> None:
    sql, db = "INSERT INTO db2.t VALUES (1)", "db2"
    # no options: everything executes
    for fmt in ("STATEMENT", "ROW"):
        assert _verdicts({}, sql, db, fmt) == ["APPLY"]
        assert _verdicts({}, "DROP DATABASE x", db, fmt) == ["APPLY"]
    # db options only: accepted or ignored by db options, no table restrictions
    assert _verdicts({"do_db": ["db2"]}, sql, db, "STATEMENT") == ["APPLY"]
    assert _verdicts({"ignore_db": ["db2"]}, sql, db, "ROW") == ["SKIP"]
    # table options only: everything passes the db stage, tables decide
    assert _verdicts({"do_table": ["db2.t"]}, sql, "other", "STATEMENT") == ["APPLY"]
    assert _verdicts({"do_table": ["db2.u"]}, sql, db, "ROW") == ["SKIP"]
    # both: db first, then tables
    assert _verdicts({"do_db": ["db2"], "ignore_table": ["db2.t"]}, sql, db, "STATEMENT") == ["SKIP"]


def test_seed_001_bug_46110_database_rules_take_precedence_over_wild_do() -> None:
    rules = {"do_db": ["dbx"], "wild_do": ["db%.t1"]}
    for sql in ("CREATE DATABASE dbx", "ALTER DATABASE dbx CHARACTER SET latin1", "DROP DATABASE dbx"):
        assert _verdicts(rules, sql, "", "STATEMENT") == ["APPLY"]
        d = decide(fset(**rules), NameCollation(0), S(sql)[0])
        assert d.filter_type is FT.DO_DB


def test_seed_001_no_options_executes_everything() -> None:
    for sql in ("CREATE DATABASE a", "INSERT INTO t VALUES (1)", "DROP TRIGGER IF EXISTS trg_known_on_replica"):
        events = S(sql, "d")
        if sql.startswith("DROP TRIGGER"):
            events = [q("d", CK.DROP_TRIGGER, t("d", "t"))]  # trigger found on the replica
        assert [decide(FilterSet(), NameCollation(0), e).decision for e in events] == ["APPLY"]


def test_seed_001_db_options_checked_first_and_unmatched_do_db_skips() -> None:
    # "If one or more database-level options are used but none are matched, the statement is
    # not replicated" (do-db), and table options are not reached.
    rules = {"do_db": ["a"], "do_table": ["b.t"]}
    d = decide(fset(**rules), NameCollation(0), S("INSERT INTO b.t VALUES (1)", "b")[0])
    assert d.decision == "SKIP" and not d.increments


def test_seed_001_rewrite_is_applied_before_the_other_rules() -> None:
    rules = {"rewrite": [("src", "dst")], "do_db": ["dst"]}
    assert _verdicts(rules, "INSERT INTO t VALUES (1)", "src", "STATEMENT") == ["APPLY"]
    assert _verdicts(rules, "INSERT INTO src.t VALUES (1)", "x", "ROW") == ["APPLY"]


def test_seed_001_case_sensitivity_follows_lower_case_table_names() -> None:
    assert _verdicts({"do_table": ["D.T"]}, "INSERT INTO d.t VALUES (1)", "x", "ROW", lctn=0) == ["SKIP"]
    assert _verdicts({"do_table": ["D.T"]}, "INSERT INTO d.t VALUES (1)", "x", "ROW", lctn=1) == ["APPLY"]


def test_manual_m2_do_db() -> None:
    rules = {"do_db": ["sales"]}
    assert _verdicts(rules, "UPDATE sales.january SET amount = amount + 1000", "prices", "STATEMENT") == ["SKIP"]
    assert _verdicts(rules, "UPDATE sales.january SET amount = amount + 1000", "prices", "ROW") == ["APPLY"]
    assert _verdicts(rules, "UPDATE prices.march SET amount = amount - 25", "sales", "ROW") == ["SKIP"]
    rules = {"do_db": ["db1"]}
    sql = "UPDATE db1.table1, db2.table2 SET db1.table1.col1 = 10, db2.table2.col2 = 20"
    assert _verdicts(rules, sql, "db1", "STATEMENT") == ["APPLY"]
    assert _verdicts(rules, sql, "db1", "ROW") == ["APPLY", "SKIP"]
    assert _verdicts(rules, sql, "db4", "STATEMENT") == ["SKIP"]
    assert _verdicts(rules, sql, "db4", "ROW") == ["APPLY", "SKIP"]


def test_manual_m3_m4_ignore_db() -> None:
    sql = "UPDATE sales.january SET amount = amount + 1000"
    assert _verdicts({"ignore_db": ["sales"]}, sql, "prices", "STATEMENT") == ["APPLY"]
    assert _verdicts({"ignore_db": ["sales"]}, sql, "prices", "ROW") == ["SKIP"]
    grant = "GRANT SELECT, INSERT ON replicated.t1 TO 'u'@'h'"
    assert _verdicts({"ignore_db": ["nonreplicated"]}, grant, "nonreplicated", "STATEMENT") == ["SKIP"]


def test_manual_x_cases_not_in_the_checklist() -> None:
    c = NameCollation(0)
    assert _verdicts({"wild_ignore": ["db1.%"]}, "UPDATE db1.t SET a = 1", "db2", "STATEMENT") == ["SKIP"]  # X2
    assert _verdicts({"wild_do": ["d.%"], "ignore_table": ["d.x"]}, "UPDATE d.y, d.x SET y.a = 1, x.a = 1", "", "STATEMENT") == ["APPLY"]  # X8
    assert _verdicts({"do_table": ["e.s"]}, "INSERT INTO d.t SELECT * FROM e.s", "", "STATEMENT") == ["SKIP"]  # X9
    assert _verdicts({"ignore_table": ["d.t2"]}, "DELETE t1 FROM d.t1 JOIN d.t2", "", "STATEMENT") == ["APPLY"]  # X10
    assert _verdicts({"do_table": ["d.t2"]}, "UPDATE d.t1 JOIN d.t2 SET t1.a = t2.b", "", "STATEMENT") == ["SKIP"]  # X11
    assert _verdicts({"do_db": ["x"]}, "INSERT INTO x.t VALUES (1)", "", "STATEMENT") == ["SKIP"]  # X12
    assert _verdicts({"ignore_db": ["x"]}, "INSERT INTO x.t VALUES (1)", "", "STATEMENT") == ["APPLY"]  # X13
    # X14 (Bug #77673): DDL judged by the default db, rows by the table's db
    assert _verdicts({"do_db": ["tsp"]}, "CREATE TABLE tsp.t3 (a INT)", "", "ROW") == ["SKIP"]
    assert _verdicts({"do_db": ["tsp"]}, "INSERT INTO tsp.t3 VALUES (1)", "", "ROW") == ["APPLY"]
    assert _verdicts({"ignore_table": ["d.t"]}, "DROP TEMPORARY TABLE IF EXISTS t", "d", "STATEMENT") == ["APPLY"]  # X24
    assert _verdicts({"ignore_db": ["d"]}, "DROP TEMPORARY TABLE IF EXISTS t", "d", "STATEMENT") == ["SKIP"]  # X25
    # X28/X29: a trigger's tables are not in the list
    assert _verdicts({"ignore_table": ["d.b"]}, "UPDATE a SET x = 1", "d", "STATEMENT") == ["APPLY"]
    # X32/X33 counts
    f = fset(do_db=["d"])
    stream = S("BEGIN", "d") + S("INSERT INTO t VALUES (1)", "d") + S("INSERT INTO t VALUES (2)", "d") + S("COMMIT", "d")
    assert _sum([decide(f, c, e) for e in stream]) == {FT.DO_DB: 2}
    stream = [TransactionEvent("", TK.BEGIN), row("d", "t"), row("d", "t"), TransactionEvent("", TK.XID)]
    assert _sum([decide(f, c, e) for e in stream]) == {FT.DO_DB: 2}


def test_evaluator_agrees_with_decide_on_every_checklist_case() -> None:
    """The memoising evaluator returns the same decisions and counters as plain decide."""
    for case in CASES:
        collation = NameCollation(case.lctn)
        filters = fset(case.lctn, **case.rules)
        state = ReplicaState(channels=(Channel("", source=SourceSettings(host="src"), filters=filters),), collation=collation)
        evaluator = Evaluator(state)
        doubled = case.events + case.events
        decisions = evaluator.decide_all(doubled)
        assert [d.decision for d in decisions] == case.expected * 2, case.id
        expected = {k: 2 * v for k, v in _sum(_run(case)).items()}
        assert evaluator.counters().get("", {}) == expected, case.id
