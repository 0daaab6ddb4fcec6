"""Each lint code: a configuration that raises it and a close one that does not.

Configurations are built the way users build them (CHANGE REPLICATION FILTER on a session, or
startup options), and findings come from the same entry point ``replfilter lint`` and ``LINT
REPLICATION`` use.
"""

from __future__ import annotations

import pytest

from replfilter.core.filters import FilterType as FT
from replfilter.lint.codes import CODES
from replfilter.lint.linter import LintOptions, RuleOrigin, lint_state
from replfilter.lint.workload import read_workload
from replfilter.replica.startup_options import apply_startup, collect_startup_settings
from replfilter.replica.state import ReplicaState
from replfilter.server.session import Session

CHANNEL = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c';"


def state_of(sql: str, lctn: int = 0) -> ReplicaState:
    session = Session(ReplicaState.fresh(lctn))
    session.execute_sql(sql)
    return session.state


def startup_state(*options: str, lctn: int = 0) -> ReplicaState:
    pairs = [tuple(o[2:].split("=", 1)) for o in options]
    settings = collect_startup_settings((), pairs)  # type: ignore[arg-type]
    state, _warnings = apply_startup(ReplicaState.fresh(lctn), settings.rules, 1)
    return state


def codes(state: ReplicaState, **options) -> list[tuple[str, str | None]]:
    return [(f.code, f.rule_text) for f in lint_state(state, LintOptions(**options))]


def has(state: ReplicaState, code: str, **options) -> bool:
    return any(c == code for c, _ in codes(state, **options))


ROW = {"binlog_format": "ROW"}

CASES = [
    # code, positive configuration, negative configuration, options
    ("RF101", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`db1,db2`)", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1, db2)", ROW),
    ("RF101", "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('a.%,b.%')", "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('a.%', 'b.%')", ROW),
    ("RF102", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_DO_DB = (a)", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_DO_DB = (b)", ROW),
    ("RF102", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_IGNORE_TABLE = (a.t)", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_IGNORE_TABLE = (b.t)", ROW),
    ("RF102", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_WILD_DO_TABLE = ('a.%')", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b), (x, a)), REPLICATE_WILD_DO_TABLE = ('a.%')", ROW),
    ("RF103", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b))", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b))", None),
    ("RF104", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db1)", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db1)", None),
    ("RF105", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db_1.%')", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db\\\\_1.%', 'db.t__', '%.%_')", ROW),
    ("RF106", "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db.`t%`)", "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db.order_items)", ROW),
    ("RF107", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((`shop.orders`, `archive.orders`))", "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((shop, archive))", ROW),
    ("RF201", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_IGNORE_DB = (b)", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (b)", ROW),
    ("RF202", "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db.t), REPLICATE_IGNORE_TABLE = (db.u)", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db.%'), REPLICATE_IGNORE_TABLE = (db.u)", ROW),
    ("RF202", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db.%'), REPLICATE_WILD_IGNORE_TABLE = ('db.tmp%')", "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('db.tmp%')", ROW),
    ("RF203", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db.%'), REPLICATE_DO_TABLE = (db.t)", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('x.%'), REPLICATE_DO_TABLE = (db.t)", ROW),
    ("RF301", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_IGNORE_TABLE = (b.t)", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_IGNORE_TABLE = (a.t)", ROW),
    ("RF301", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (a), REPLICATE_WILD_IGNORE_TABLE = ('a.%')", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (a), REPLICATE_WILD_IGNORE_TABLE = ('b.%')", ROW),
    ("RF305", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (a), REPLICATE_WILD_DO_TABLE = ('a.%')", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (a), REPLICATE_WILD_DO_TABLE = ('b.%')", ROW),
    ("RF305", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (billing), REPLICATE_DO_TABLE = (shop.orders), REPLICATE_WILD_DO_TABLE = ('billing.%')", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (billing, shop), REPLICATE_DO_TABLE = (shop.orders), REPLICATE_WILD_DO_TABLE = ('billing.%')", ROW),
    ("RF301", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (test), REPLICATE_WILD_DO_TABLE = ('cache%.%')", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (test), REPLICATE_WILD_DO_TABLE = ('te%.%')", ROW),
    ("RF301", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (billing), REPLICATE_WILD_DO_TABLE = ('shop_eu.%')", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (shopxeu), REPLICATE_WILD_DO_TABLE = ('shop_eu.%')", ROW),
    ("RF305", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (test), REPLICATE_WILD_DO_TABLE = ('cache%.%')", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (test), REPLICATE_WILD_DO_TABLE = ('%.%')", ROW),
    ("RF305", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a, b), REPLICATE_DO_TABLE = (a.t)", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a, b), REPLICATE_DO_TABLE = (a.t, b.u)", ROW),
    ("RF305", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_WILD_IGNORE_TABLE = ('%.%')", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_WILD_IGNORE_TABLE = ('%.tmp%')", ROW),
    ("RF305", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_REWRITE_DB = ((x, y))", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a, y), REPLICATE_REWRITE_DB = ((x, y))", ROW),
    ("RF302", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db.%', 'db.t%')", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db.t%', 'db.%')", ROW),
    ("RF302", "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('%.tmp', '%.tmp')", "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('%.tmp', '%.tm_')", ROW),
    ("RF303", "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db.t), REPLICATE_IGNORE_TABLE = (db.t)", "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db.t), REPLICATE_IGNORE_TABLE = (db.u)", ROW),
    ("RF303", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db.t'), REPLICATE_IGNORE_TABLE = (db.t)", "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db.t%'), REPLICATE_IGNORE_TABLE = (db.t)", ROW),
    ("RF304", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (Sales), REPLICATE_DO_TABLE = (sales.t)", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (Sales), REPLICATE_DO_TABLE = (Sales.t)", ROW),
    ("RF304", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (b), REPLICATE_REWRITE_DB = ((a, B))", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (b), REPLICATE_REWRITE_DB = ((a, b))", ROW),
]


@pytest.mark.parametrize("code,positive,negative,options", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_code_positive_and_negative(code, positive, negative, options) -> None:
    assert has(state_of(CHANNEL + positive), code, **(options or {}))
    negative_options = ROW if options is None else options  # RF103/RF104: the negative is "the source logs rows"
    assert not has(state_of(CHANNEL + negative), code, **negative_options)


def test_every_code_has_a_test() -> None:
    tested = {c[0] for c in CASES} | {"RF109", "RF401", "RF402", "RF403", "RF404", "RF501", "RF502", "RF503"}
    tested |= {"RF108", "RF601", "RF602", "RF603", "RF604", "RF605", "RF606"}  # tests/test_lint_schema.py
    assert tested == set(CODES)


def test_comma_trap_from_startup_options_and_its_fix() -> None:
    state = startup_state("--replicate-do-db=db1,db2", "--replicate-rewrite-db=a,b->c", "--replicate-do-table=d.t1,d.t2")
    found = {f.rule_text: f for f in lint_state(state, LintOptions(binlog_format="ROW")) if f.code == "RF101"}
    assert set(found) == {"REPLICATE_DO_DB: db1,db2", "REPLICATE_REWRITE_DB: (a,b,c)", "REPLICATE_DO_TABLE: d.t1,d.t2"}
    assert found["REPLICATE_DO_DB: db1,db2"].fix.options() == ("--replicate-do-db=db1", "--replicate-do-db=db2")
    assert found["REPLICATE_REWRITE_DB: (a,b,c)"].fix_text == "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((`a`, `c`), (`b`, `c`))"
    alone = startup_state("--replicate-do-db=db1,db2")
    message = next(f.message for f in lint_state(alone, LintOptions(binlog_format="ROW")) if f.code == "RF101")
    assert "rows of db1.t are skipped (with the fix: applied)" in message


def test_rewrite_then_do_db_quotes_the_example() -> None:
    finding = next(f for f in lint_state(state_of("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_DO_DB = (a)")) if f.code == "RF102")
    assert "rows of a.t are skipped (with the fix: applied to database 'b')" in finding.message
    assert finding.fix_text == "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`b`)"
    assert finding.level.value == "error"


def test_db_rules_under_statement_format_quote_the_manuals_example() -> None:
    state = state_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales)")
    finding = next(f for f in lint_state(state) if f.code == "RF104")
    assert "`USE other; UPDATE sales.t SET ...` is skipped under STATEMENT format and applied under ROW" in finding.message
    assert finding.fix_text == "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (), REPLICATE_WILD_DO_TABLE = ('sales.%')"


def test_mixed_format_counts_as_statement() -> None:
    state = state_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales)")
    assert has(state, "RF104", binlog_format="MIXED")


def test_case_mismatch_is_no_finding_when_names_compare_case_insensitively() -> None:
    state = state_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (Sales), REPLICATE_DO_TABLE = (sales.t)", lctn=1)
    assert not has(state, "RF304", **ROW) and not has(state, "RF301", **ROW)


# --- channels -------------------------------------------------------------------------------

TWO = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a'; CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'b';"


def test_rf401_global_rule_not_inherited() -> None:
    state = state_of(TWO + "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (x.y);"
                     "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (z.w) FOR CHANNEL 'a'")
    found = [f for f in lint_state(state, LintOptions(**ROW)) if f.code == "RF401"]
    assert [(f.channel, f.fix_text) for f in found] == [
        ("a", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (`z`.`w`, `x`.`y`) FOR CHANNEL 'a'")
    ]
    negative = state_of(TWO + "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (x.y)")
    assert not has(negative, "RF401", **ROW)


def test_rf402_rules_for_a_channel_that_does_not_exist() -> None:
    state = state_of(TWO)
    origins = (
        RuleOrigin("nochan", FT.DO_DB, "db", "my.cnf", 3),
        RuleOrigin("a", FT.DO_DB, "db", "my.cnf", 4),
        RuleOrigin("group_replication_applier", FT.DO_DB, "db", "my.cnf", 5),
        RuleOrigin("A", FT.DO_DB, "db", "my.cnf", 6),
    )
    found = [f for f in lint_state(state, LintOptions(origins=origins, **ROW)) if f.code == "RF402"]
    assert sorted((f.channel, f.location) for f in found) == [
        ("A", ("my.cnf", 6)), ("group_replication_applier", ("my.cnf", 5)), ("nochan", ("my.cnf", 3))]
    suggestion = next(f for f in found if f.channel == "A")
    assert suggestion.fix is not None and suggestion.fix.options() == ("--replicate-do-db=a:db",)


def test_rf403_two_channels_admit_one_table() -> None:
    positive = state_of(TWO + "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('shop.%') FOR CHANNEL 'a';"
                        "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (shop.orders) FOR CHANNEL 'b'")
    found = [f for f in lint_state(positive, LintOptions(**ROW)) if f.code == "RF403"]
    assert len(found) == 1 and "shop.orders" in found[0].message
    negative = state_of(TWO + "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('shop.%') FOR CHANNEL 'a';"
                        "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (crm.orders) FOR CHANNEL 'b'")
    assert not has(negative, "RF403", **ROW)


def test_rf403_a_global_do_db_is_one_finding_naming_every_database() -> None:
    """Under a global REPLICATE_DO_DB every channel admits the same databases: one finding that
    names all channels and all databases, not one per pair of channels naming the first."""
    three = TWO + "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c';"
    found = [f for f in lint_state(state_of(three + "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (app, billing)"), LintOptions(**ROW))
             if f.code == "RF403"]
    assert len(found) == 1
    assert "channels 'a', 'b' and 'c' all admit databases 'app', 'billing' (REPLICATE_DO_DB on each)" in found[0].message


def test_rf404_not_on_the_manuals_channel_specific_example(tmp_path) -> None:
    """replication-rules-channel-based-filters.html: one channel unfiltered, the other dropping a
    database both sources have, so that it arrives once. No warning, with or without schemas;
    RF404 when both channels are unfiltered and the sources' schemas share a database."""
    for name, dbs in (("a", ("shared", "app1")), ("b", ("shared", "app2"))):
        (tmp_path / f"{name}.sql").write_text("".join(f"CREATE DATABASE {d}; CREATE TABLE {d}.t (id INT);\n" for d in dbs), encoding="utf-8")
    manual = TWO + "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (shared) FOR CHANNEL 'b'"
    assert not has(state_of(manual), "RF404", **ROW) and not has(state_of(manual), "RF403", **ROW)
    loads = f";LOAD SCHEMA FROM '{tmp_path / 'a.sql'}' FOR CHANNEL 'a'; LOAD SCHEMA FROM '{tmp_path / 'b.sql'}' FOR CHANNEL 'b'"
    with_schemas = state_of(manual + loads)
    assert [f.code for f in lint_state(with_schemas, LintOptions(**ROW)) if f.code in ("RF403", "RF404")] == []
    both_open = state_of(TWO.rstrip(";") + loads)
    found = [f for f in lint_state(both_open, LintOptions(**ROW)) if f.code in ("RF403", "RF404")]
    assert [(f.code, f.channel) for f in found] == [("RF404", "b")]
    assert "database 'shared'" in found[0].message


# --- workload -------------------------------------------------------------------------------

MANUAL = "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db1), REPLICATE_DO_TABLE = (db2.t3)"


def test_rf501_verdict_depends_on_format() -> None:
    state = state_of(CHANNEL + MANUAL)
    workload = read_workload("w.sql", "USE db1;\nUPDATE db2.t3 SET x = 1;\nUSE db2;\nUPDATE t3 SET x = 2;\n")
    found = [f for f in lint_state(state, LintOptions(workload=workload, **ROW)) if f.code == "RF501"]
    assert [(f.location, f.rule_text) for f in found] == [(("w.sql", 2), "REPLICATE_IGNORE_DB: db1")]
    assert "SKIP under STATEMENT format" in found[0].message and "APPLY under ROW" in found[0].message


def test_rf502_rf503_rule_usage() -> None:
    state = state_of(CHANNEL + "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db.t, db.u)")
    workload = read_workload("w.sql", "INSERT INTO db.t VALUES (1);")
    found = {(f.code, f.rule_text): f.message for f in lint_state(state, LintOptions(workload=workload, **ROW)) if f.code in ("RF502", "RF503")}
    assert set(found) == {("RF502", "REPLICATE_DO_TABLE: db.u"), ("RF503", "REPLICATE_DO_TABLE: db.t")}
    assert found[("RF503", "REPLICATE_DO_TABLE: db.t")].startswith("decided 1 of 1 events")  # ROW: the row event only
    unknown = {(f.code, f.rule_text): f.message for f in lint_state(state, LintOptions(workload=workload)) if f.code == "RF503"}
    assert unknown[("RF503", "REPLICATE_DO_TABLE: db.t")].startswith("decided 2 of 2 events")  # format not known: both


def test_workload_events_file() -> None:
    state = state_of(CHANNEL + "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db)")
    workload = read_workload("e.jsonl", '{"v": 1, "type": "row", "channel": "c", "db": "db", "table": "t"}\n')
    found = [(f.code, f.message) for f in lint_state(state, LintOptions(workload=workload, **ROW)) if f.code == "RF503"]
    assert found == [("RF503", "decided 1 of 1 events of e.jsonl")]


def test_silencing_by_option_line_and_by_code() -> None:
    state = state_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`a,b`)")
    origin = RuleOrigin(None, FT.DO_DB, "a,b", "my.cnf", 2, frozenset({"RF101"}))
    assert not has(state, "RF101", origins=(origin,), **ROW)
    assert has(state, "RF101", **ROW)
    assert not has(state, "RF101", ignore=frozenset({"RF101"}), **ROW)


def test_rf105_the_textbook_tmp_underscore_is_a_note() -> None:
    """``%.tmp_%`` (the manual's wild-ignore example spelled without the escape) also takes
    ``tmpx...``: reported as a note, with the escaped pattern as the fix."""
    found = [f for f in lint_state(state_of(CHANNEL + "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('%.tmp_%')"), LintOptions(**ROW))
             if f.code == "RF105"]
    assert [(f.level.value, f.fix_text) for f in found] == [("note", "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('%.tmp\\_%') FOR CHANNEL 'c'")]
    assert "rows of t.tmpxt are skipped (with the fix: applied)" in found[0].message
    assert not has(state_of(CHANNEL + "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('%.tmp\\\\_%')"), "RF105", **ROW)


# --- databases left with nothing (public reports) ----------------------------------------------


def test_bug_12209_do_db_next_to_a_wild_database_part() -> None:
    """Bug #12209 (bugs.mysql.com): ``--replicate-do-db=test --replicate-wild-do-table=cache%.%``
    -- the cache databases never pass do-db, and test's tables match no do rule, so nothing at
    all is applied. Both findings name the values; the fix is checked before it is offered and
    the evaluator applies both databases with it."""
    state = startup_state("--replicate-do-db=test", "--replicate-wild-do-table=cache%.%")
    found = {f.code: f for f in lint_state(state, LintOptions(**ROW))}
    assert set(found) == {"RF301", "RF305"}
    assert "'cache%.%' can never match" in found["RF301"].message and "('test')" in found["RF301"].message
    empty = found["RF305"]
    assert empty.level.value == "error" and "REPLICATE_DO_DB 'test' gets nothing applied" in empty.message
    assert "rows of test.t are skipped (with the fix: applied)" in empty.message
    assert empty.fix.options() == ("(no --replicate-do-db)", "--replicate-wild-do-table=cache%.%", "--replicate-wild-do-table=test.%")
    cured = Session(state)
    cured.execute_text(empty.fix_text)
    assert lint_state(cured.state, LintOptions(**ROW)) == []
    from replfilter.evaluation.evaluator import channel_filters, decide
    from replfilter.evaluation.events import RowEvent

    for db in ("test", "cache1", "cache_eu"):
        event = RowEvent("", db, "t")
        assert not decide(channel_filters(state, ""), state.collation, event).applied
        assert decide(channel_filters(cured.state, ""), state.collation, event).applied


def test_rewrite_into_a_database_do_db_drops() -> None:
    """``--replicate-do-db=a --replicate-rewrite-db=x->y``: every event of x arrives as y, which
    do-db drops. The fix adds y to do-db."""
    state = startup_state("--replicate-do-db=a", "--replicate-rewrite-db=x->y")
    found = [f for f in lint_state(state, LintOptions(**ROW))]
    assert [(f.code, f.rule_text) for f in found] == [("RF305", "REPLICATE_REWRITE_DB: (x,y)")]
    assert "sends every event of 'x' to 'y'" in found[0].message and "'y' is not in REPLICATE_DO_DB" in found[0].message
    assert found[0].fix.options() == ("--replicate-do-db=a", "--replicate-do-db=y")


def test_a_fix_never_leads_into_another_finding() -> None:
    """Renaming ``shop.orders`` to ``shop_eu.orders`` alone (RF102) would leave it excluded by
    do-db ``shop``: the fix renames both rules on the old name, and applied, lints clean."""
    state = startup_state("--replicate-do-db=shop", "--replicate-rewrite-db=shop->shop_eu", "--replicate-do-table=shop.orders")
    fixes = {f.fix_text for f in lint_state(state, LintOptions(**ROW)) if f.code == "RF102"}
    assert fixes == {"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`shop_eu`), REPLICATE_DO_TABLE = (`shop_eu`.`orders`)"}
    cured = Session(state)
    cured.execute_text(fixes.pop())
    assert lint_state(cured.state, LintOptions(**ROW)) == []


def test_rewrite_db_given_a_table() -> None:
    """The manual (replication-options-replica.html, --replicate-rewrite-db=from_name->to_name)
    names databases; mysqld takes ``shop.orders->archive.orders`` as is at start-up (split at
    the first ``->``), a rewrite of a database called ``shop.orders``. Rows of shop.orders are
    not rewritten; the fix is the database rewrite, saying it moves every table of shop."""
    state = startup_state("--replicate-rewrite-db=shop.orders->archive.orders")
    found = [f for f in lint_state(state, LintOptions(**ROW))]
    assert [(f.code, f.level.value, f.rule_text) for f in found] == [("RF107", "error", "REPLICATE_REWRITE_DB: (shop.orders,archive.orders)")]
    assert "rewrites a database called 'shop.orders'" in found[0].message
    assert "rows of shop.orders are applied (with the fix: applied to database 'archive')" in found[0].message
    assert found[0].fix.options() == ("--replicate-rewrite-db=shop->archive",)
    renamed = startup_state("--replicate-rewrite-db=shop.orders->archive.old_orders")
    finding = next(f for f in lint_state(renamed, LintOptions(**ROW)) if f.code == "RF107")
    assert finding.fix is None and "cannot rename a table" in finding.message


# --- account statements and the system schemas -------------------------------------------------


def test_rf109_a_rule_on_mysql_does_not_keep_accounts_off() -> None:
    """The manual (replication-options-replica.html, --replicate-wild-do-table: GRANT and the
    like are not affected by a filter naming mysql.%; replication-features-mysqldb.html: account
    statements are logged as statements): ``--replicate-ignore-db=mysql`` or
    ``--replicate-wild-ignore-table=mysql.%`` next to ``USE app; CREATE USER`` -- applied."""
    for option in ("--replicate-ignore-db=mysql", "--replicate-wild-ignore-table=mysql.%"):
        found = [f for f in lint_state(startup_state(option), LintOptions(**ROW)) if f.code == "RF109"]
        assert len(found) == 1 and "`USE app; CREATE USER 'u'@'%'` is applied" in found[0].message, option
        assert found[0].level.value == "warning" and found[0].fix is None
    assert not has(startup_state("--replicate-ignore-db=mysql_archive"), "RF109", **ROW)
    workload = read_workload("w.sql", "USE app;\nCREATE USER 'u'@'%' IDENTIFIED BY 'x';\nUSE mysql;\nGRANT SELECT ON app.* TO 'u'@'%';\n")
    lines = [f.location for f in lint_state(startup_state("--replicate-wild-ignore-table=mysql.%"), LintOptions(workload=workload, **ROW))
             if f.code == "RF109" and f.location]
    assert lines == [("w.sql", 2), ("w.sql", 4)]


def test_rf109_a_password_change_dropped_by_do_db() -> None:
    """``--replicate-do-db=app`` and ``ALTER USER ... IDENTIFIED BY`` run without a default
    database: skipped, even under ROW (account statements are always statements). The fix,
    do-db as wild-do rules, applies it; a workload that only runs it under ``USE app`` is clean."""
    workload = read_workload("w.sql", "ALTER USER 'app'@'%' IDENTIFIED BY 'new';\n")
    state = startup_state("--replicate-do-db=app")
    found = [f for f in lint_state(state, LintOptions(workload=workload, **ROW)) if f.code == "RF109"]
    assert [(f.location, f.level.value) for f in found] == [(("w.sql", 1), "warning")]
    assert "is skipped (database '' is not in replicate-do-db)" in found[0].message
    assert found[0].fix.options() == ("(no --replicate-do-db)", "--replicate-wild-do-table=app.%")
    cured = Session(state)
    cured.execute_text(found[0].fix_text)
    assert not has(cured.state, "RF109", workload=workload, **ROW)
    assert not has(state, "RF109", workload=read_workload("w.sql", "USE app;\nALTER USER 'app'@'%' IDENTIFIED BY 'new';\n"), **ROW)
