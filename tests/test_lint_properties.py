"""Properties of lint fixes, over generated configurations full of the traps the checks know.

1. Applying a finding's fix (its CHANGE REPLICATION FILTER statement, printed and parsed back,
   run on a real session) makes that finding go away.
2. For the trap findings (comma RF101, rewrite order RF102, escaping RF105) that quote an
   example, the evaluator decides the example differently with and without the fix, and the
   message states both verdicts -- what happens now and what was meant.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replfilter.core.filters import FilterType as FT
from replfilter.core.wildcard import like
from replfilter.evaluation.evaluator import channel_filters, decide
from replfilter.lint.context import verdict_text
from replfilter.lint.findings import Fix
from replfilter.lint.linter import LintOptions, lint_state
from replfilter.replica.state import ReplicaState
from replfilter.server.session import Session

DBS = ["a", "b", "db_1", "Sales", "sales", "x,y", "a,b"]
TABLES = ["t", "t_1", "u%", "v"]
PATTERNS = ["a.%", "db_1.%", "db\\_1.%", "a.t%", "%.t", "b.u_v", "a.%,b.%", "sales.%", "%.%", "cache%.%", "db_.%", "%.tmp_%"]

names = st.sampled_from(DBS)
tables = st.builds(lambda d, t: f"{d}.{t}", st.sampled_from(DBS), st.sampled_from(TABLES))
patterns = st.sampled_from(PATTERNS)
configs = st.fixed_dictionaries({
    FT.DO_DB: st.lists(names, max_size=2),
    FT.IGNORE_DB: st.lists(names, max_size=2),
    FT.DO_TABLE: st.lists(tables, max_size=2),
    FT.IGNORE_TABLE: st.lists(tables, max_size=2),
    FT.WILD_DO_TABLE: st.lists(patterns, max_size=3),
    FT.WILD_IGNORE_TABLE: st.lists(patterns, max_size=2),
    FT.REWRITE_DB: st.lists(st.tuples(st.sampled_from(DBS + ["s.t"]), st.sampled_from(DBS + ["b.t"])), max_size=2),
})


def session_with(config: dict, lctn: int) -> Session:
    session = Session(ReplicaState.fresh(lctn))
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c'")
    types = tuple((ftype, tuple(rules)) for ftype, rules in config.items())
    session.execute_text(Fix("c", types).statement())
    return session


def identity(finding) -> tuple:
    return (finding.code, finding.channel, finding.ftype, finding.rule)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs, st.sampled_from([0, 1]), st.sampled_from([None, "ROW"]))
def test_a_fix_cures_its_finding(config, lctn, binlog_format) -> None:
    session = session_with(config, lctn)
    options = LintOptions(binlog_format=binlog_format)
    for finding in lint_state(session.state, options):
        if finding.fix is None:
            continue
        cured = Session(session.state)
        cured.execute_text(finding.fix_text)  # the printed statement, parsed back and executed
        after = {identity(f) for f in lint_state(cured.state, options)}
        assert identity(finding) not in after, (finding.message, finding.fix_text)


TRAPS = ("RF101", "RF102", "RF105")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs, st.sampled_from([0, 1]))
def test_trap_fixes_decide_the_quoted_example_as_meant(config, lctn) -> None:
    session = session_with(config, lctn)
    state = session.state
    for finding in lint_state(state, LintOptions(binlog_format="ROW")):
        if finding.code not in TRAPS or finding.example_event is None:
            continue
        cured = Session(state)
        cured.execute_text(finding.fix_text)
        event = finding.example_event
        now = decide(channel_filters(state, "c"), state.collation, event)
        meant = decide(channel_filters(cured.state, "c"), state.collation, event)
        assert verdict_text(now) != verdict_text(meant)
        assert f"are {verdict_text(now)} (with the fix: {verdict_text(meant)})" in finding.message
        if finding.code == "RF105":
            subject = f"{event.db}.{event.table}"
            fixed_rule = dict(finding.fix.types)[finding.ftype]
            assert like(subject, finding.rule, state.collation)
            assert not any(like(subject, p, state.collation) for p in fixed_rule if p != finding.rule)


def test_the_traps_quote_examples_on_plain_configurations() -> None:
    """The property above is not vacuous: each trap quotes its example on a plain case."""
    for sql in (
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`x,y`) FOR CHANNEL 'c'",
        "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_IGNORE_DB = (a) FOR CHANNEL 'c'",
        "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('db_1.%') FOR CHANNEL 'c'",
    ):
        session = Session()
        session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c'")
        session.execute_text(sql)
        assert any(f.example_event is not None for f in lint_state(session.state, LintOptions(binlog_format="ROW")) if f.code in TRAPS), sql


many_patterns = st.lists(st.sampled_from(PATTERNS + ["a.t", "b.%", "%.u%", "x,y.%", "db_1.t_1", "sales.t"]), min_size=9, max_size=14)


@settings(max_examples=300, deadline=None)
@given(configs, many_patterns, many_patterns, st.sampled_from(DBS), st.sampled_from(TABLES), st.sampled_from(DBS), st.sampled_from([0, 1]))
def test_cut_wild_lists_decide_as_the_whole_lists(config, wild_do, wild_ignore, db, table, default_db, lctn) -> None:
    """Examples are decided on wild lists cut to the patterns that can match them; the
    decision (verdict, deciding rule, rewrite) is the one the whole lists give."""
    from replfilter.core.filters import FilterSet, NameCollation
    from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent, TableRef
    from replfilter.lint.context import reduced

    collation = NameCollation(lctn)
    filters = FilterSet()
    for ftype, rules in {**config, FT.WILD_DO_TABLE: wild_do, FT.WILD_IGNORE_TABLE: wild_ignore}.items():
        filters = filters.set_type(ftype, rules, None, 1, collation)  # type: ignore[arg-type]
    for event in (
        RowEvent("c", db, table),
        QueryEvent("c", default_db, CommandKind.UPDATE, (TableRef(None, table, True), TableRef(db, table, True))),
        QueryEvent("c", db, CommandKind.CREATE_DB),
    ):
        whole = decide(filters, collation, event)
        cut = decide(reduced(filters, event, collation), collation, event)
        assert (whole.decision, whole.filter_type, whole.rule, whole.rewritten_db) == (cut.decision, cut.filter_type, cut.rule, cut.rewritten_db)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PATTERNS + ["a.t", "A.%", "%", "a%", "a.t\\\\", "ß.%", "é_.t"]), min_size=1, max_size=8),
       st.sampled_from(["a.t", "A.T", "a.", "db_1.x", "dbx1.x", "b.u_v", "ß.t", "é1.t", "a.t\\\\", "sales.x"]),
       st.sampled_from([0, 1]))
def test_wild_index_matches_as_the_evaluators_wild_list(patterns, name, lctn) -> None:
    """The lint's pattern index (prefix and literal fast paths, LIKE otherwise) finds the same
    first match as the evaluator's WildList, and every pattern LIKE matches."""
    from replfilter.core.filters import NameCollation
    from replfilter.core.wildcard import WildList
    from replfilter.lint.patterns import WildIndex

    collation = NameCollation(lctn)
    index = WildIndex(tuple(patterns), collation)
    assert index.first_match(name) == WildList(patterns, collation).first_match(name)
    assert index.all_matches(name) == [p for p in patterns if like(name, p, collation)]
    db, dot, _table = name.partition(".")
    if dot:  # the per-database matcher the schema pass uses gives the same matches
        assert index.for_database(db)(name) == index.match_indices(name)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs, configs, st.sampled_from([None, "ROW"]))
def test_fixes_cure_their_findings_on_several_channels(global_config, channel_config, binlog_format) -> None:
    """Global rules, a channel with its own rules of some types (RF401 territory), and a channel
    that only inherits: every fix, run as printed, cures its finding on its channel."""
    session = Session()
    session.execute_text(Fix(None, tuple((t, tuple(r)) for t, r in global_config.items())).statement())
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a'")
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'b'")
    own = tuple((t, tuple(r)) for t, r in channel_config.items() if r)
    if own:
        session.execute_text(Fix("a", own).statement())
    options = LintOptions(binlog_format=binlog_format)
    for finding in lint_state(session.state, options):
        if finding.fix is None:
            continue
        cured = Session(session.state)
        cured.execute_text(finding.fix_text)
        assert identity(finding) not in {identity(f) for f in lint_state(cured.state, options)}, (finding.message, finding.fix_text)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PATTERNS + ["a%", "%", "_.t", "s%s.%", "a.b.%", "ß_.t", "A.%"]),
       st.sampled_from(DBS + ["cache1", "db1", "dbx", "ß1", "a.b", ""]),
       st.sampled_from(["t", "t_1", "tmpx", "x.y", "u_v", "orders"]),
       st.sampled_from([0, 1]))
def test_can_match_db_never_misses_a_match(pattern, db, table, lctn) -> None:
    """When a pattern LIKE-matches some table of a database, the lint's reading of its database
    part says it can match that database (so RF301/RF305 never call a live rule dead)."""
    from replfilter.core.filters import NameCollation
    from replfilter.lint.reach import can_match_db

    collation = NameCollation(lctn)
    if like(f"{db}.{table}", pattern, collation):
        assert can_match_db(pattern, db, collation)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs, st.sampled_from([0, 1]), st.sampled_from(TABLES + ["orders", "x"]))
def test_a_database_said_to_get_nothing_gets_nothing(config, lctn, table) -> None:
    """RF305 claims no row of the database is applied: the evaluator skips its rows (the
    database as the replica sees it -- a do-db name, or the database a do rule names; for a
    rewrite, rows of the source database)."""
    from replfilter.evaluation.events import RowEvent

    session = session_with(config, lctn)
    state = session.state
    for finding in lint_state(state, LintOptions(binlog_format="ROW")):
        if finding.code != "RF305":
            continue
        filters = channel_filters(state, "c")
        if isinstance(finding.rule, tuple):  # a rewrite: rows of its source database
            events = [RowEvent("c", finding.rule[0], table)]
        else:  # a do-db name, or a do rule's database: rows that arrive under it, from whichever source database
            named = finding.rule if finding.ftype is FT.DO_DB else finding.example_event.db
            candidates = [named, *(src for src, _dst in filters.rules(FT.REWRITE_DB))]
            events = [RowEvent("c", db, table) for db in candidates
                      if state.collation.equal(decide(filters, state.collation, RowEvent("c", db, table)).db or "", named)]
        for event in events:
            assert not decide(filters, state.collation, event).applied, (finding.message, table)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs, st.sampled_from([0, 1]), st.sampled_from(DBS + ["cache1", "db1", "dbx", "test"]), st.sampled_from(TABLES + ["x"]))
def test_a_table_rule_said_never_to_match_never_decides_a_row(config, lctn, db, table) -> None:
    """RF301 (literal and wild database parts), and RF305 on a do rule, claim the rule never
    matches a row event: the evaluator never names it as the deciding rule of one."""
    from replfilter.evaluation.events import RowEvent

    session = session_with(config, lctn)
    state = session.state
    dead = {(f.ftype, f.rule) for f in lint_state(state, LintOptions(binlog_format="ROW"))
            if f.code == "RF301" or (f.code == "RF305" and f.ftype in (FT.DO_TABLE, FT.WILD_DO_TABLE))}
    decision = decide(channel_filters(state, "c"), state.collation, RowEvent("c", db, table))
    assert (decision.filter_type, decision.rule) not in dead
