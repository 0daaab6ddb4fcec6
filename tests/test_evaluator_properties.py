"""Hypothesis properties of the evaluator (mysql-filter-evaluation.md, sections 3 to 6 and the conformance checklist, 10).

Names come from tiny alphabets so that rules and events collide often.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from replfilter.evaluation.evaluator import (
    Evaluator,
    apply_event,
    apply_events,
    decide,
)
from replfilter.evaluation.events import (
    DATABASE_COMMANDS,
    CommandKind,
    QueryEvent,
    RowEvent,
    TableRef,
    TransactionEvent,
    TransactionKind,
)
from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation
from replfilter.evaluation.sql.logged_events import statement_events
from replfilter.replica.state import Channel, ReplicaState, SourceSettings
from replfilter.core.wildcard import like

FT = FilterType
CK = CommandKind

DBS = ["a", "b", "d", "A", "e"]
TABLES = ["t", "u", "T", "x.y"]
PATTERNS = ["a.%", "%.t", "d_.%", "%.%", "A.t%", "%", "b.\\%", "e.u", "%.x%"]

db_names = st.sampled_from(DBS)
table_names = st.sampled_from(TABLES)
collations = st.sampled_from([NameCollation(0), NameCollation(1)])
table_keys = st.builds(lambda d, t: f"{d}.{t}", db_names, table_names)

COMMANDS = [
    CK.INSERT, CK.INSERT_SELECT, CK.UPDATE, CK.UPDATE_MULTI, CK.DELETE_MULTI, CK.CREATE_TABLE, CK.DROP_TABLE,
    CK.RENAME_TABLE, CK.CREATE_DB, CK.ALTER_DB, CK.DROP_DB, CK.SET_OPTION, CK.BEGIN, CK.COMMIT, CK.ROLLBACK,
    CK.XA_START, CK.DROP_TRIGGER, CK.GRANT, CK.CREATE_USER, CK.RELEASE_SAVEPOINT,
]

table_refs = st.builds(TableRef, st.none() | db_names, table_names, st.booleans())


@st.composite
def query_events(draw, channel: str = "") -> QueryEvent:
    command = draw(st.sampled_from(COMMANDS))
    tables = () if command in DATABASE_COMMANDS else tuple(draw(st.lists(table_refs, max_size=3)))
    flags = draw(st.booleans()) if command is CK.DROP_TABLE else False
    return QueryEvent(channel, draw(st.sampled_from(DBS + [""])), command, tables, None, flags, flags)


def row_events(channel: str = "") -> st.SearchStrategy[RowEvent]:
    return st.builds(RowEvent, st.just(channel), db_names, table_names)


def events(channel: str = ""):
    return st.one_of(
        query_events(channel),
        row_events(channel),
        st.builds(TransactionEvent, st.just(channel), st.sampled_from(list(TransactionKind))),
    )


@st.composite
def filter_sets(draw, collation: NameCollation, types: tuple[FilterType, ...] = tuple(FT), rewrite: bool = True) -> FilterSet:
    filters = FilterSet()
    for ftype in types:
        if ftype is FT.REWRITE_DB and not rewrite:
            continue
        if not draw(st.booleans()):
            continue
        if ftype in (FT.DO_DB, FT.IGNORE_DB):
            rules = draw(st.lists(db_names, min_size=1, max_size=3))
        elif ftype in (FT.DO_TABLE, FT.IGNORE_TABLE):
            rules = draw(st.lists(table_keys, min_size=1, max_size=3))
        elif ftype is FT.REWRITE_DB:
            rules = draw(st.lists(st.tuples(db_names, db_names), min_size=1, max_size=2))
        else:
            rules = draw(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3))
        filters = filters.set_type(ftype, rules, ConfiguredBy.STARTUP_OPTIONS, 1, collation)
    return filters


def _trigger_unknown(event) -> bool:
    return isinstance(event, QueryEvent) and event.command is CK.DROP_TRIGGER and not event.tables


# --- no rules apply everything --------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(collation=collations, event=events())
def test_no_rules_apply_everything(collation: NameCollation, event) -> None:
    # The one exception the spec has: DROP TRIGGER for a trigger the replica does not have.
    assume(not _trigger_unknown(event))
    decision = decide(FilterSet(), collation, event)
    assert decision.decision == "APPLY"
    assert not decision.increments and decision.filter_type is None


# --- ignore-type rules alone ----------------------------------------------------------------


def _hits_an_ignore_rule(filters: FilterSet, collation: NameCollation, event) -> bool:
    """Whether any ignore-type rule matches the event by the event's own names (before the
    evaluator's procedure): the db the rules see, or any updating table / database key."""
    eq = collation.equal
    if isinstance(event, TransactionEvent):
        return False
    db = event.db if isinstance(event, RowEvent) else event.default_db
    if any(eq(rule, db) for rule in filters.rules(FT.IGNORE_DB)):
        return True
    if isinstance(event, RowEvent):
        keys = [f"{event.db}.{event.table}"]
    elif event.command in DATABASE_COMMANDS:
        keys = [f"{event.default_db}."]
    else:
        keys = [f"{t.db if t.db is not None else event.default_db}.{t.table}" for t in event.tables if t.updating]
    for key in keys:
        if any(eq(rule, key) for rule in filters.rules(FT.IGNORE_TABLE)):
            return True
        if any(like(key, rule, collation) for rule in filters.rules(FT.WILD_IGNORE_TABLE)):
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(data=st.data(), collation=collations, event=events())
def test_ignore_rules_alone_never_skip_an_event_they_do_not_match(data, collation: NameCollation, event) -> None:
    filters = data.draw(filter_sets(collation, (FT.IGNORE_DB, FT.IGNORE_TABLE, FT.WILD_IGNORE_TABLE)))
    assume(not _trigger_unknown(event))
    # Spec 3.1: a table list with no updating table is skipped whenever table rules are on;
    # that is not an ignore rule matching, so such statements are outside the property.
    assume(not (isinstance(event, QueryEvent) and event.tables and not any(t.updating for t in event.tables)))
    assume(not _hits_an_ignore_rule(filters, collation, event))
    assert decide(filters, collation, event).decision == "APPLY"


# --- rewrite --------------------------------------------------------------------------------


def _without_rewrite_count(increments) -> dict:
    return {k: v for k, v in increments.items() if k is not FT.REWRITE_DB}


@settings(max_examples=300, deadline=None)
@given(data=st.data(), collation=collations, source=db_names, target=db_names, table=table_names)
def test_rewrite_makes_a_row_event_decide_like_the_target(data, collation, source, target, table) -> None:
    base = data.draw(filter_sets(collation, rewrite=False))
    rewritten = base.set_type(FT.REWRITE_DB, [(source, target)], ConfiguredBy.STARTUP_OPTIONS, 1, collation)
    with_rule = decide(rewritten, collation, RowEvent("", source, table))
    on_target = decide(base, collation, RowEvent("", target, table))
    assert (with_rule.decision, with_rule.filter_type, with_rule.rule) == (on_target.decision, on_target.filter_type, on_target.rule)
    assert dict(with_rule.increments) == {**on_target.increments, FT.REWRITE_DB: 1}
    assert with_rule.rewritten_db == target


@settings(max_examples=300, deadline=None)
@given(data=st.data(), collation=collations, source=db_names, target=db_names)
def test_statements_rewrite_only_the_default_database(data, collation, source, target) -> None:
    base = data.draw(filter_sets(collation, rewrite=False))
    event = data.draw(query_events())
    rewritten = base.set_type(FT.REWRITE_DB, [(source, target)], ConfiguredBy.STARTUP_OPTIONS, 1, collation)
    on_source = replace(event, default_db=source)
    on_target = replace(event, default_db=target)
    with_rule = decide(rewritten, collation, on_source)
    without = decide(base, collation, on_target)
    # Qualified table names keep their database: the event on the target database, with the
    # very same table list, decides identically.
    assert (with_rule.decision, with_rule.filter_type, with_rule.rule) == (without.decision, without.filter_type, without.rule)
    assert _without_rewrite_count(with_rule.increments) == dict(without.increments)
    folded = source.lower() if collation.case_insensitive else source
    counted = target != folded and event.command not in (CK.CREATE_DB, CK.DROP_DB, CK.BEGIN, CK.COMMIT)
    assert with_rule.increments.get(FT.REWRITE_DB, 0) == (1 if counted else 0)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), collation=collations, source=db_names, target=db_names, table=table_names, qualifier=db_names)
def test_qualified_names_are_not_rewritten(data, collation, source, target, table, qualifier) -> None:
    """A statement on a qualified table decides the same whatever the rewrite does to the
    default database, once the database-level verdict is the same."""
    base = data.draw(filter_sets(collation, (FT.DO_TABLE, FT.IGNORE_TABLE, FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE)))
    event = QueryEvent("", source, CK.INSERT, (TableRef(qualifier, table),))
    rewritten = base.set_type(FT.REWRITE_DB, [(source, target)], ConfiguredBy.STARTUP_OPTIONS, 1, collation)
    assert decide(rewritten, collation, event).decision == decide(base, collation, event).decision


# --- row format and the default database ----------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    collation=collations,
    db1=db_names,
    db2=db_names,
    first=st.tuples(db_names, st.sampled_from(["t", "u", "T"])),
    second=st.tuples(db_names, st.sampled_from(["t", "u", "T"])),
    template=st.sampled_from([
        "INSERT INTO `{0}`.`{1}` VALUES (1)",
        "UPDATE `{0}`.`{1}` SET a = 1",
        "DELETE FROM `{0}`.`{1}` WHERE a = 1",
        "INSERT INTO `{0}`.`{1}` SELECT * FROM `{2}`.`{3}`",
        "UPDATE `{0}`.`{1}` p JOIN `{2}`.`{3}` q ON p.a = q.a SET p.a = 1, q.a = 2",
        "DELETE p, q FROM `{0}`.`{1}` p JOIN `{2}`.`{3}` q ON p.a = q.a",
    ]),
)
def test_row_decisions_do_not_depend_on_the_default_database(data, collation, db1, db2, first, second, template) -> None:
    filters = data.draw(filter_sets(collation))
    sql = template.format(*first, *second)
    one = statement_events(sql, db1, "ROW").events
    two = statement_events(sql, db2, "ROW").events
    assert one == two and all(isinstance(e, RowEvent) for e in one)
    assert [decide(filters, collation, e) for e in one] == [decide(filters, collation, e) for e in two]


# --- counters -------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(data=st.data(), collation=collations, event=events())
def test_counters_grow_by_at_most_one_per_type_per_event(data, collation, event) -> None:
    filters = data.draw(filter_sets(collation))
    state = ReplicaState(channels=(Channel("", SourceSettings(host="h"), filters=filters),), collation=collation)
    decision, after = apply_event(state, event)
    assert all(0 <= n <= 1 for n in decision.increments.values())
    moved = after.channel("").filters  # type: ignore[union-attr]
    for ftype in FT:
        assert moved[ftype].counter - filters[ftype].counter == decision.increments.get(ftype, 0)
        assert moved[ftype].rules == filters[ftype].rules
    # only configured types can count (a type without rules never matches)
    assert all(filters.rules(ftype) for ftype in decision.increments)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), collation=collations, stream=st.lists(events(""), max_size=10))
def test_an_unconfigured_channel_decides_with_the_global_rules_and_counts_nothing(data, collation, stream) -> None:
    """README, "Would it replicate?": the unconfigured default channel of a fresh replica decides
    with the global rules (what it will hold once configured), and as it has no applier, its
    decisions report no counter increments and the state's counters stay put, on every path."""
    global_filters = data.draw(filter_sets(collation))
    state = ReplicaState(collation=collation).with_global_filters(global_filters)
    expected = [replace(decide(global_filters, collation, e), increments={}) for e in stream]
    batch, after = apply_events(state, stream)
    assert batch == expected
    assert all(not d.increments for d in batch)
    assert after == state
    one_by_one = state
    for e in stream:
        decision, one_by_one = apply_event(one_by_one, e)
        assert not decision.increments
    assert one_by_one == state
    plain = Evaluator(state, memoise=False)
    assert [plain.decide(e) for e in stream] == expected and plain.counters() == {}


# --- memoising and batch paths agree with decide ---------------------------------------------


@settings(max_examples=100, deadline=None)
@given(data=st.data(), collation=collations)
def test_evaluator_batch_and_single_paths_agree(data, collation) -> None:
    f1 = data.draw(filter_sets(collation))
    f2 = data.draw(filter_sets(collation))
    state = ReplicaState(
        channels=(Channel("", SourceSettings(host="h1"), filters=f1), Channel("c2", SourceSettings(host="h"), filters=f2)),
        collation=collation,
    )
    stream = data.draw(st.lists(st.one_of(events(""), events("c2")), max_size=25))
    expected = [decide(f1 if e.channel == "" else f2, collation, e) for e in stream]
    one_by_one = state
    for e in stream:
        _, one_by_one = apply_event(one_by_one, e)
    batch, batch_state = apply_events(state, stream)
    plain = Evaluator(state, memoise=False)
    assert batch == expected == [plain.decide(e) for e in stream]
    assert batch_state == one_by_one == plain.state()
