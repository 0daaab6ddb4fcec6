"""Stateful property test: random statement sequences against one session, with a small model of
what each statement may change, and invariants checked after every step.

Invariants (mysql-filter-statements.md, 4.2 to 4.7 and 8.2):
* a CHANGE REPLICATION FILTER changes only the types it lists, in the filter objects it targets;
* without FOR CHANNEL it targets exactly the global filter plus every configured non-GR channel;
* its outcome (success, 3085, 1794, 3139) is the one spec 4.2 predicts from the state before;
* a failing statement leaves the whole ``ReplicaState`` unchanged;
* other statements never change rules, except the global copy when a channel becomes configured
  and RESET REPLICA ALL dropping channels;
* SHOW REPLICA STATUS's filter columns and the performance_schema rows always agree;
* every parsed statement prints (``to_sql``) to text that parses back to an equal AST.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from replfilter.dialect.parser import parse_statement
from replfilter.dialect.printer import to_sql
from replfilter.dialect import ast
from replfilter.core.errors import MySQLError
from replfilter.replica.executor import PartialChange
from replfilter.core.version import ServerVersion
from replfilter.core.filters import FILTER_TYPES, ConfiguredBy, FilterSet, FilterType, TypeSlot
from replfilter.replica.perfschema import channel_filter_rows, format_timestamp, global_filter_rows
from replfilter.core.results import ResultSet
from replfilter.server.session import Session
from replfilter.replica.show_status import show_replica_status
from replfilter.replica.state import ReplicaState, channel_sort_key, is_group_replication_channel

T0 = 1_700_000_000_000_000

CHANNELS = ["", "ch_1", "CH_1", "ch_2", "b", "_x", "group_replication_applier", "Group_Replication_Recovery", "nope"]
channel_clause = st.one_of(st.none(), st.sampled_from(CHANNELS))

# (value as parsed, SQL spelling)
DB_NAMES = [("db1", "db1"), ("DB1", "DB1"), ("db,3", "`db,3`"), ("é", "é"), ("a`b", "`a``b`"), ("filter", "filter")]
TABLES = [(("d", "t1"), "d.t1"), (("d", "t2"), "d . t2"), (("D", "t1"), "`D`.t1"), (("d", "T1"), "d.`T1`"), (("db10", "t"), "db10.t")]
PATTERNS = [("db%.t%", "'db%.t%'"), ("%.%", '"%.%"'), ("a.b", "'a.b'"), ("db\\_1.%", "'db\\_1.%'"), (".", "'.'")]
PAIRS = [(("a", "b"), "(a, b)"), (("a", "c"), "(a,c)"), (("x,y", "z"), "(`x,y`, z)")]


def elements_for(ftype: FilterType) -> list[tuple[object, str]]:
    if ftype in (FilterType.DO_DB, FilterType.IGNORE_DB):
        return DB_NAMES  # type: ignore[return-value]
    if ftype in (FilterType.DO_TABLE, FilterType.IGNORE_TABLE):
        return TABLES  # type: ignore[return-value]
    if ftype in (FilterType.WILD_DO_TABLE, FilterType.WILD_IGNORE_TABLE):
        return PATTERNS  # type: ignore[return-value]
    return PAIRS  # type: ignore[return-value]


filter_def = st.sampled_from(FILTER_TYPES).flatmap(
    lambda ftype: st.lists(st.sampled_from(elements_for(ftype)), max_size=4).map(lambda elements: (ftype, elements))
)


def expected_display(ftype: FilterType, values: list[object], lctn: int) -> str:
    """The SHOW/P_S text spec 7.2 and 9.2 predict, computed independently of filters.py."""
    if ftype in (FilterType.DO_TABLE, FilterType.IGNORE_TABLE):
        seen: dict[str, str] = {}
        for db, table in values:  # type: ignore[misc]
            key = f"{db.lower() if lctn else db}.{table}"
            seen.setdefault(key.casefold() if lctn else key, key)
        return ",".join(sorted(seen.values(), key=lambda k: k.encode("utf-8")))
    if ftype is FilterType.REWRITE_DB:
        return ",".join(f"({a},{b})" for a, b in values)  # type: ignore[misc]
    return ",".join(values)  # type: ignore[arg-type]


class ReplicaMachine(RuleBasedStateMachine):
    lctn = 0
    version = ServerVersion.MYSQL_8_4

    def __init__(self) -> None:
        super().__init__()
        self.now = T0
        self.session = Session(ReplicaState.fresh(self.lctn, self.version), clock=self._tick)

    def _tick(self) -> int:
        self.now += 1_000
        return self.now

    @property
    def state(self) -> ReplicaState:
        return self.session.state

    def run(self, text: str) -> tuple[ReplicaState, object, MySQLError | None]:
        """Execute one statement; check the round trip and that a failure changed nothing."""
        before = self.state
        try:
            statement = parse_statement(text, self.version)
        except MySQLError:
            statement = None
        if statement is not None:
            printed = to_sql(statement)
            assert parse_statement(printed, self.version) == statement, (text, printed)
        try:
            result = self.session.execute_text(text)
        except MySQLError as error:
            # A failure changes nothing, but for a statement the server runs step by step (RESET
            # REPLICA over several channels), whose steps before the failure stay done.
            if not isinstance(error, PartialChange):
                assert self.state == before, text
            return before, None, error
        return before, result, None

    # ---- statements

    @initialize(names=st.lists(st.sampled_from(["ch_1", "ch_2", "b", "_x", ""]), max_size=3, unique=True))
    def configure_some_channels(self, names: list[str]) -> None:
        for name in names:
            self.run(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{name}'")

    @rule(channel=channel_clause, host=st.booleans(), legacy=st.booleans())
    def change_source(self, channel: str | None, host: bool, legacy: bool) -> None:
        option = ("MASTER_HOST = 'h'" if legacy else "SOURCE_HOST = 'h'") if host else "SOURCE_CONNECT_RETRY = 5"
        head = "CHANGE MASTER TO" if legacy else "CHANGE REPLICATION SOURCE TO"
        clause = "" if channel is None else f" FOR CHANNEL '{channel}'"
        before, _, error = self.run(f"{head} {option}{clause}")
        if error is not None:
            return
        name = "" if channel is None else channel.lower()
        old = before.channel(name)
        new = self.state.channel(name)
        assert new is not None
        was_configured = old is not None and old.configured
        old_filters = old.filters if old is not None else FilterSet()
        if not was_configured and new.configured and not new.is_group_replication:
            assert new.filters == old_filters.with_global_copy(before.global_filters, self.now)
        else:
            assert new.filters == old_filters
        self._only_channel_changed(before, name)

    @rule(start=st.booleans(), channel=channel_clause, threads=st.sampled_from(["", " SQL_THREAD", " IO_THREAD", " IO_THREAD, SQL_THREAD"]), legacy=st.booleans())
    def start_or_stop(self, start: bool, channel: str | None, threads: str, legacy: bool) -> None:
        verb = "START" if start else "STOP"
        word = "SLAVE" if legacy else "REPLICA"
        clause = "" if channel is None else f" FOR CHANNEL '{channel}'"
        before, _, _ = self.run(f"{verb} {word}{threads}{clause}")
        assert [c.filters for c in self.state.channels] == [c.filters for c in before.channels]
        assert self.state.global_filters == before.global_filters
        assert self.state.channel_names == before.channel_names

    @rule(channel=channel_clause, definitions=st.lists(filter_def, min_size=1, max_size=4))
    def change_filter(self, channel: str | None, definitions: list[tuple[FilterType, list[tuple[object, str]]]]) -> None:
        sql = ", ".join(f"{ftype.keyword} = ({', '.join(s for _, s in elements)})" for ftype, elements in definitions)
        clause = "" if channel is None else f" FOR CHANNEL '{channel}'"
        before, _, error = self.run(f"CHANGE REPLICATION FILTER {sql}{clause}")
        listed = {ftype: [value for value, _ in elements] for ftype, elements in definitions}  # last one wins
        targets = self._expected_targets(before, channel, error)
        if error is not None:
            return
        configured_by = (
            ConfiguredBy.CHANGE_REPLICATION_FILTER if channel is None else ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL
        )
        for name in [c.name for c in before.channels]:
            old, new = before.channel(name), self.state.channel(name)
            assert old is not None and new is not None
            if name in targets:
                self._check_replaced(old.filters, new.filters, listed, configured_by)
            else:
                assert new == old
        if channel is None:
            self._check_replaced(before.global_filters, self.state.global_filters, listed, configured_by)
        else:
            assert self.state.global_filters == before.global_filters
        assert self.state.channel_names == before.channel_names

    @rule(all_=st.booleans(), channel=channel_clause, legacy=st.booleans())
    def reset(self, all_: bool, channel: str | None, legacy: bool) -> None:
        word = "SLAVE" if legacy else "REPLICA"
        clause = "" if channel is None else f" FOR CHANNEL '{channel}'"
        before, _, error = self.run(f"RESET {word}{' ALL' if all_ else ''}{clause}")
        assert self.state.global_filters == before.global_filters
        if error is not None:
            return
        if not all_:
            assert [(c.name, c.filters, c.configured) for c in self.state.channels] == [
                (c.name, c.filters, c.configured) for c in before.channels
            ]
            return
        default = self.state.channel("")
        assert default is not None
        reset_names = {c.name for c in before.channels} if channel is None else {channel.lower()}
        for old in before.channels:
            if old.name in reset_names and old.name != "":
                assert self.state.channel(old.name) is None
        if "" in reset_names:
            assert default.filters == FilterSet() and not default.configured

    @rule(channel=channel_clause, legacy=st.booleans())
    def show_status(self, channel: str | None, legacy: bool) -> None:
        clause = "" if channel is None else f" FOR CHANNEL '{channel}'"
        before, result, _ = self.run(f"SHOW {'SLAVE' if legacy else 'REPLICA'} STATUS{clause}")
        assert self.state == before
        if isinstance(result, ResultSet):
            assert len(result.columns) == 60

    @rule(
        table=st.sampled_from(["replication_applier_filters", "replication_applier_global_filters"]),
        where=st.sampled_from(["", " WHERE FILTER_NAME = 'REPLICATE_DO_DB'", " WHERE FILTER_RULE <> ''"]),
        order=st.sampled_from(["", " ORDER BY FILTER_NAME DESC", " ORDER BY FILTER_RULE"]),
    )
    def select(self, table: str, where: str, order: str) -> None:
        before, result, error = self.run(f"SELECT * FROM performance_schema.{table}{where}{order}")
        assert error is None and isinstance(result, ResultSet)
        assert self.state == before

    @rule(
        text=st.sampled_from(
            [
                "CHANGE REPLICATION FILTER",
                "CHANGE REPLICATION FILTER REPLICATE_DO_DB = ('db1')",
                "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_WILD_DO_TABLE = ('nodot')",
                "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (``.t)",
                "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'a\\nb'",
                "CHANGE REPLICATION SOURCE TO SOURCE_HOST = ''",
                "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'trailing '",
                "START REPLICA UNTIL SOURCE_LOG_POS = 4",
                "SHOW WARNINGS",
                "SHOW COUNT(*) WARNINGS",
            ]
        )
    )
    def other_statement(self, text: str) -> None:
        before, _, _ = self.run(text)
        assert self.state == before

    # ---- model of CHANGE REPLICATION FILTER (spec 4.2)

    def _expected_targets(self, before: ReplicaState, channel: str | None, error: MySQLError | None) -> set[str]:
        configured = [c for c in before.channels if c.configured and not c.is_group_replication]
        if channel is None:
            running = [c.name for c in configured if c.sql_running]
            if running:
                assert error is not None and error.code == 3085
                assert f"FOR CHANNEL '{min(running, key=channel_sort_key)}' first." in error.message
            else:
                assert error is None
            return {c.name for c in configured}
        name = channel.lower()
        target = before.channel(name)
        if is_group_replication_channel(name):
            assert error is not None and error.code == 3139
        elif target is None or not target.configured:
            assert error is not None and error.code == 1794
        elif target.sql_running:
            assert error is not None and error.code == 3085
        else:
            assert error is None
        return {name}

    def _check_replaced(
        self,
        old: FilterSet,
        new: FilterSet,
        listed: dict[FilterType, list[object]],
        configured_by: ConfiguredBy,
    ) -> None:
        for ftype in FILTER_TYPES:
            if ftype in listed:
                assert new.display(ftype) == expected_display(ftype, listed[ftype], self.lctn)
                assert (new[ftype].configured_by, new[ftype].active_since, new[ftype].counter) == (
                    configured_by, self.now, 0,
                )
            else:
                assert new[ftype] == old[ftype]

    def _only_channel_changed(self, before: ReplicaState, name: str) -> None:
        assert self.state.global_filters == before.global_filters
        for old in before.channels:
            if old.name != name:
                assert self.state.channel(old.name) == old

    # ---- invariants

    @invariant()
    def show_and_performance_schema_agree(self) -> None:
        state = self.state
        ps_rows = channel_filter_rows(state)
        by_key = {(row[0], row[1]): row for row in ps_rows}
        assert len(by_key) == len(ps_rows)
        order = [(channel_sort_key(str(r[0])), FILTER_TYPES.index(FilterType(r[1]))) for r in ps_rows]
        assert order == sorted(order)
        status = show_replica_status(state, None)
        names = [row[status.columns.index("Channel_Name")] for row in status.rows]
        assert names == [c.name for c in state.configured_channels()]
        assert names == sorted(names, key=lambda n: channel_sort_key(str(n)))
        for row in status.rows:
            values = dict(zip(status.columns, row))
            for ftype in FILTER_TYPES:
                ps_row = by_key.get((values["Channel_Name"], ftype.keyword))
                assert values[ftype.status_column] == (ps_row[2] if ps_row else "")
        for channel_name, _, rule, configured_by, active_since, counter in ps_rows:
            channel = state.channel(str(channel_name))
            assert channel is not None and not channel.is_group_replication
            assert configured_by in {c.value for c in ConfiguredBy}
            assert counter == 0 and active_since <= format_timestamp(self.now)
        for filter_name, rule, configured_by, _ in global_filter_rows(state):
            assert configured_by in {"STARTUP_OPTIONS", "CHANGE_REPLICATION_FILTER"}
            assert rule == state.global_filters.display(FilterType(filter_name))

    @invariant()
    def default_channel_exists_and_types_unset_have_no_rules(self) -> None:
        assert "" in self.state.channel_names
        for filters in [self.state.global_filters, *(c.filters for c in self.state.channels)]:
            for ftype, slot in filters.items():
                if not slot.is_set:
                    assert slot == TypeSlot()


def test_replica_state_machine() -> None:
    run_state_machine_as_test(
        ReplicaMachine,
        settings=settings(max_examples=40, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]),
    )


class CaseInsensitiveReplicaMachine(ReplicaMachine):
    """The same sequences with lower_case_table_names = 1 (table db parts folded, hash by collation)."""

    lctn = 1


def test_replica_state_machine_lctn_1() -> None:
    run_state_machine_as_test(
        CaseInsensitiveReplicaMachine,
        settings=settings(max_examples=15, stateful_step_count=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]),
    )


class Mysql80ReplicaMachine(ReplicaMachine):
    """The same sequences on an 8.0 replica, where the SLAVE/MASTER spellings run (with 1287)."""

    version = ServerVersion.MYSQL_8_0


def test_replica_state_machine_mysql_80() -> None:
    run_state_machine_as_test(
        Mysql80ReplicaMachine,
        settings=settings(max_examples=15, stateful_step_count=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]),
    )


def test_state_is_a_frozen_value() -> None:
    """The 'failing statement changes nothing' check compares whole states; that only means
    something because the state is an immutable value with structural equality."""
    state = ReplicaState.fresh()
    assert state == ReplicaState.fresh()
    try:
        state.channels = ()  # type: ignore[misc]
    except AttributeError:
        pass
    else:  # pragma: no cover
        raise AssertionError("ReplicaState is mutable")
    assert ast.ShowWarnings() == parse_statement(to_sql(ast.ShowWarnings()))
