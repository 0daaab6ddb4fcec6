"""Conformance tests of the executor: spec section 13 "Execution" and "Output".

Every refusal is compared whole (number, SQLSTATE, 8.4 text) and every failing statement is
checked to leave the replica exactly as it was (``ReplicaState`` is a frozen dataclass, so ``==``
compares everything: channels, threads, source settings, rules and statistics).
"""

from __future__ import annotations

from dataclasses import replace

import time
from datetime import datetime

import pytest

from replfilter.core.errors import Condition, MySQLError
from replfilter.core.version import ServerVersion
from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation
from replfilter.replica.perfschema import CHANNEL_TABLE, COLUMN_DEFINITIONS, format_timestamp
from replfilter.core.results import Ok, ResultSet
from replfilter.server.session import Session
from replfilter.replica.show_status import COLUMNS, LEGACY_COLUMNS
from replfilter.replica.state import Channel, ReplicaState, SourceSettings

from replica_driver import ReplicaDriver

T0 = 1_700_000_000_000_000
STEP = 1_000_000

ER_1794 = MySQLError(
    1794,
    "HY000",
    "Replica is not configured or failed to initialize properly. You must at least set --server-id to "
    "enable either a source or a replica. Additional error messages can be found in the MySQL error log.",
)


def er_3085(channel: str) -> MySQLError:
    return MySQLError(
        3085,
        "HY000",
        "This operation cannot be performed with a running replica sql thread; run STOP REPLICA SQL_THREAD "
        f"FOR CHANNEL '{channel}' first.",
    )


def er_3074(channel: str) -> MySQLError:
    return MySQLError(3074, "HY000", f"Replica channel '{channel}' does not exist.")


def er_3081(channel: str) -> MySQLError:
    return MySQLError(
        3081,
        "HY000",
        "This operation cannot be performed with running replication threads; run STOP REPLICA FOR CHANNEL "
        f"'{channel}' first",
    )


def er_3139(command: str, channel: str) -> MySQLError:
    return MySQLError(3139, "HY000", f"{command} cannot be performed on channel '{channel}'.")


ER_3079 = MySQLError(
    3079, "HY000", "Multiple channels exist on the replica. Please provide channel name as an argument."
)
ER_3076 = MySQLError(3076, "HY000", "Couldn't create channel: Channel name is either invalid or too long.")
ER_3080 = MySQLError(3080, "HY000", "Maximum number of replication channels allowed exceeded.")
ER_1200 = MySQLError(
    1200,
    "HY000",
    "The server is not configured as replica; fix in config file or with CHANGE REPLICATION SOURCE TO",
)


def note_3083(channel: str) -> Condition:
    return Condition("Note", 3083, f"Replication thread(s) for channel '{channel}' are already runnning.")


def note_3084(channel: str) -> Condition:
    return Condition("Note", 3084, f"Replication thread(s) for channel '{channel}' are already stopped.")


def deprecated(old: str, new: str) -> Condition:
    return Condition(
        "Warning", 1287, f"'{old}' is deprecated and will be removed in a future release. Please use {new} instead"
    )


class Clock:
    """One distinct microsecond timestamp per statement; ``last`` is the latest one handed out."""

    def __init__(self) -> None:
        self.last = T0 - STEP

    def __call__(self) -> int:
        self.last += STEP
        return self.last


class Replica(ReplicaDriver):
    """A session on a per-statement clock, plus the helpers the tests read it with."""

    def __init__(self, state: ReplicaState | None = None) -> None:
        self.clock = Clock()
        super().__init__(Session(state, clock=self.clock))

    def run(self, sql: str) -> Ok | ResultSet:
        return self.session.execute_text(sql)

    def status(self, channel: str | None = None) -> list[dict[str, object]]:
        clause = "" if channel is None else f" FOR CHANNEL '{channel}'"
        return self.rows(f"SHOW REPLICA STATUS{clause}")

    def filter_columns(self, channel: str) -> dict[str, object]:
        (row,) = self.status(channel)
        return {f.status_column: row[f.status_column] for f in FilterType}

    def warnings(self) -> list[Condition]:
        return [Condition(r["Level"], r["Code"], r["Message"]) for r in self.rows("SHOW WARNINGS")]  # type: ignore[arg-type]


def multi_source(*names: str, state: ReplicaState | None = None) -> Replica:
    """A replica whose named channels are configured (source host set), default channel not."""
    replica = Replica(state)
    for name in names:
        replica.run(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'host_{name}' FOR CHANNEL '{name}'")
    return replica


MYSQL_8_0 = ReplicaState.fresh(version=ServerVersion.MYSQL_8_0)
"""A replica started with --mysql-version=8.0: the SLAVE/MASTER spellings run, with 1287."""


def with_global_rule(ftype: FilterType, *rules: str, lctn: int = 0) -> ReplicaState:
    """A fresh replica with global rules as --replicate-* startup options would set them."""
    collation = NameCollation(lctn)
    filters = FilterSet()
    for rule in rules:
        filters = filters.add_rule(ftype, rule, ConfiguredBy.STARTUP_OPTIONS, T0 - 10 * STEP, collation)
    return ReplicaState.fresh(lctn).with_global_filters(filters)


CRF = "CHANGE_REPLICATION_FILTER"
CRF_FC = "CHANGE_REPLICATION_FILTER_FOR_CHANNEL"
SO = "STARTUP_OPTIONS"
SO_FC = "STARTUP_OPTIONS_FOR_CHANNEL"


# ---- privileges --------------------------------------------------------------------------------


def test_every_session_has_the_replication_admin_privileges() -> None:
    """Privileges are not simulated (README, "Where replfilter chooses"): a session acts as a user
    with REPLICATION_SLAVE_ADMIN and REPLICATION_CLIENT, so each statement MySQL guards with them
    runs from a fresh session with no grant, and MySQL's 1227 (ER_SPECIFIC_ACCESS_DENIED_ERROR)
    is not in the error catalogue at all: no statement can answer with it."""
    from replfilter.core.errors import ER

    replica = Replica()
    guarded = [
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'c'",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d) FOR CHANNEL 'c'",
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (x)",
        "START REPLICA FOR CHANNEL 'c'",
        "SHOW REPLICA STATUS FOR CHANNEL 'c'",
        "SELECT * FROM performance_schema.replication_applier_filters",
        "SELECT * FROM performance_schema.replication_applier_global_filters",
        "STOP REPLICA FOR CHANNEL 'c'",
        "RESET REPLICA FOR CHANNEL 'c'",
        "RESET REPLICA ALL FOR CHANNEL 'c'",
    ]
    for sql in guarded:
        assert isinstance(replica.run(sql), (Ok, ResultSet)), sql
    assert replica.state.channel("c") is None  # RESET REPLICA ALL ran to the end
    assert 1227 not in {spec.code for spec in ER}


# ---- CHANGE REPLICATION FILTER without FOR CHANNEL ------------------------------------------------


def test_clause_less_updates_global_and_every_configured_channel() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 3307 FOR CHANNEL 'ch_3'")  # exists, unconfigured
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1), REPLICATE_IGNORE_TABLE = (d.t)")
    assert replica.ps() == [
        ("ch_1", "REPLICATE_DO_DB", "db1", CRF, 0),
        ("ch_1", "REPLICATE_IGNORE_TABLE", "d.t", CRF, 0),
        ("ch_2", "REPLICATE_DO_DB", "db1", CRF, 0),
        ("ch_2", "REPLICATE_IGNORE_TABLE", "d.t", CRF, 0),
    ]
    assert replica.ps_global() == [("REPLICATE_DO_DB", "db1", CRF), ("REPLICATE_IGNORE_TABLE", "d.t", CRF)]
    assert replica.state.channel("ch_3").filters == FilterSet()  # type: ignore[union-attr]
    assert replica.state.channel("").filters == FilterSet()  # type: ignore[union-attr]


def test_clause_less_leaves_unlisted_types_untouched() -> None:
    replica = multi_source("ch_1")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)) FOR CHANNEL 'ch_1'")
    before = replica.state.channel("ch_1").filters  # type: ignore[union-attr]
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    after = replica.state.channel("ch_1").filters  # type: ignore[union-attr]
    assert after[FilterType.REWRITE_DB] == before[FilterType.REWRITE_DB]
    for ftype in FilterType:
        if ftype not in (FilterType.DO_DB,):
            assert after[ftype] == before[ftype]
    assert replica.ps() == [
        ("ch_1", "REPLICATE_DO_DB", "x", CRF, 0),
        ("ch_1", "REPLICATE_REWRITE_DB", "(a,b)", CRF_FC, 0),
    ]


def test_clause_less_with_a_running_sql_thread_names_the_first_channel_and_changes_nothing() -> None:
    replica = multi_source("ch_b", "ch_a", "ch_c")
    replica.run("START REPLICA FOR CHANNEL 'ch_c'")
    replica.run("START REPLICA FOR CHANNEL 'ch_b'")
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)") == er_3085("ch_b")
    assert replica.ps() == [] and replica.ps_global() == []


def test_clause_less_sql_thread_check_uses_byte_order_of_names() -> None:
    replica = multi_source("a", "B", "_")
    replica.run("START REPLICA")
    # names are lower-cased: channels a, b, _ ; bytes: '_' (0x5F) < 'a' < 'b'
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)") == er_3085("_")


def test_clause_less_with_only_the_io_thread_running_succeeds() -> None:
    replica = multi_source("ch_1")
    replica.run("START REPLICA IO_THREAD")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    assert replica.ps() == [("ch_1", "REPLICATE_DO_DB", "x", CRF, 0)]


def test_stopping_only_the_sql_thread_is_enough() -> None:
    replica = multi_source("ch_1")
    replica.run("START REPLICA")
    replica.run("STOP REPLICA SQL_THREAD")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    assert replica.state.channel("ch_1").io_running  # type: ignore[union-attr]


def test_clause_less_ignores_group_replication_channels() -> None:
    state = ReplicaState.fresh().with_channel(
        Channel("group_replication_recovery", SourceSettings(host="gr"))
    )
    replica = multi_source("ch_1", state=state)
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    assert replica.state.channel("group_replication_recovery").filters == FilterSet()  # type: ignore[union-attr]
    assert replica.ps() == [("ch_1", "REPLICATE_DO_DB", "x", CRF, 0)]


def test_clause_less_without_any_channel_gives_1794() -> None:
    replica = Replica(ReplicaState(channels=()))
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)") == ER_1794


def test_clause_less_on_a_fresh_replica_sets_only_the_global_filter() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    assert replica.ps() == []
    assert replica.ps_global() == [("REPLICATE_DO_DB", "x", CRF)]


# ---- CHANGE REPLICATION FILTER ... FOR CHANNEL ------------------------------------------------------


def test_for_channel_updates_only_that_channel() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (g)")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (c1), REPLICATE_IGNORE_DB = (i1) FOR CHANNEL 'CH_1'")
    assert replica.ps() == [
        ("ch_1", "REPLICATE_DO_DB", "c1", CRF_FC, 0),
        ("ch_1", "REPLICATE_IGNORE_DB", "i1", CRF_FC, 0),
        ("ch_2", "REPLICATE_DO_DB", "g", CRF, 0),
    ]
    assert replica.ps_global() == [("REPLICATE_DO_DB", "g", CRF)]


def test_for_channel_nonexistent_gives_1794_not_3074() -> None:
    replica = multi_source("ch_1")
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'nope'") == ER_1794


def test_for_channel_default_unconfigured_gives_1794() -> None:
    replica = multi_source("ch_1")
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (dbA) FOR CHANNEL ''") == ER_1794


def test_for_channel_existing_but_unconfigured_gives_1794() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 3307 FOR CHANNEL 'ch_1'")
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'ch_1'") == ER_1794


@pytest.mark.parametrize(
    "written,name",
    [
        ("group_replication_applier", "group_replication_applier"),
        ("Group_Replication_Applier", "group_replication_applier"),
        ("GROUP_REPLICATION_RECOVERY", "group_replication_recovery"),
    ],
)
def test_for_channel_group_replication_gives_3139_even_when_it_does_not_exist(written: str, name: str) -> None:
    replica = Replica()
    error = replica.fails(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL '{written}'")
    assert error == er_3139("CHANGE REPLICATION FILTER", name)


def test_for_channel_with_running_sql_thread_gives_3085_naming_it() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("START REPLICA SQL_THREAD FOR CHANNEL 'ch_2'")
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'ch_2'") == er_3085("ch_2")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'ch_1'")  # ch_1 is stopped


def test_for_channel_ignores_other_channels_running() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("START REPLICA FOR CHANNEL 'ch_1'")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'ch_2'")
    assert replica.ps() == [("ch_2", "REPLICATE_DO_DB", "x", CRF_FC, 0)]


def test_for_channel_on_the_configured_default_channel() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL ''")
    assert replica.ps() == [("", "REPLICATE_DO_DB", "x", CRF_FC, 0)]
    assert replica.ps_global() == []


def test_statement_order_of_types_does_not_matter() -> None:
    one, two = multi_source("c"), multi_source("c")
    one.run("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a,b)), REPLICATE_DO_DB = (x) FOR CHANNEL 'c'")
    two.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_REWRITE_DB = ((a,b)) FOR CHANNEL 'c'")
    assert one.state == two.state


def test_same_type_twice_only_the_last_list_is_stored() -> None:
    replica = multi_source("channel_1")
    replica.run(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db2,`db32`,`db,3`), REPLICATE_DO_DB=(db1,my_db3,my_db4), "
        "Replicate_Ignore_DB=(my_initfiledb3) FOR CHANNEL 'channel_1'"
    )
    columns = replica.filter_columns("channel_1")
    assert columns["Replicate_Do_DB"] == "db1,my_db3,my_db4"
    assert columns["Replicate_Ignore_DB"] == "my_initfiledb3"


def test_setting_an_equal_list_still_resets_the_statistics() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    first = replica.state.channel("c").filters[FilterType.DO_DB]  # type: ignore[union-attr]
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'c'")
    second = replica.state.channel("c").filters[FilterType.DO_DB]  # type: ignore[union-attr]
    assert second.rules == first.rules
    assert second.active_since == replica.clock.last > first.active_since
    assert second.configured_by is ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL


def test_successful_change_returns_ok_without_warnings() -> None:
    replica = multi_source("c")
    assert replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)") == Ok(0, ())
    assert replica.warnings() == []


def test_parse_time_errors_change_nothing() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (keep)")
    for sql in [
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_WILD_DO_TABLE = ('nodot')",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_DO_TABLE = (``.t)",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_DO_TABLE = (" + "d" * 65 + ".t)",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'a\\nb'",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_IGNORE_DB = y",
    ]:
        replica.fails(sql)
    assert replica.ps_global() == [("REPLICATE_DO_DB", "keep", CRF)]


# ---- copying the global rules into a channel (spec 5.2) -------------------------------------------------


def test_new_configured_channel_copies_global_rules_per_type() -> None:
    replica = Replica(with_global_rule(FilterType.IGNORE_TABLE, "global_db.t1"))
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (dbB)")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'new'")
    copy_time = replica.clock.last
    assert replica.ps() == [
        ("new", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("new", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
    ]
    channel = replica.state.channel("new")
    assert channel is not None
    assert channel.filters[FilterType.DO_DB].active_since == copy_time
    assert channel.filters[FilterType.IGNORE_TABLE].active_since == copy_time


def test_global_type_set_to_empty_is_not_copied() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = ()")
    assert replica.ps_global() == [("REPLICATE_DO_DB", "", CRF)]
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'c'")
    assert replica.ps() == []


def test_channel_created_without_host_gets_nothing_until_its_host_is_set() -> None:
    replica = Replica(with_global_rule(FilterType.DO_DB, "g1", "g2"))
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 3307, SOURCE_USER = 'u' FOR CHANNEL 'c'")
    assert replica.ps() == []
    assert replica.status("c") == []
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'c'")
    assert replica.ps() == [("c", "REPLICATE_DO_DB", "g1,g2", SO, 0)]


def test_configured_channel_does_not_copy_again() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (own) FOR CHANNEL 'c'")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = () FOR CHANNEL 'c'")
    state = replica.state.with_global_filters(
        replica.state.global_filters.add_rule(FilterType.DO_DB, "g", ConfiguredBy.STARTUP_OPTIONS, T0, NameCollation())
    )
    replica = Replica(state)
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'other' FOR CHANNEL 'c'")
    assert replica.ps() == [("c", "REPLICATE_DO_DB", "", CRF_FC, 0)]


def test_channel_with_own_rules_of_a_type_keeps_them() -> None:
    """Spec 5.2: copy iff the channel has no rules of that type; types it has keep their own rules
    and statistics (per-channel startup options are the way a channel holds rules at that time)."""
    own = FilterSet().add_rule(FilterType.DO_DB, "c1", ConfiguredBy.STARTUP_OPTIONS_FOR_CHANNEL, T0 - STEP, NameCollation())
    state = with_global_rule(FilterType.DO_DB, "g1")
    state = state.with_global_filters(
        state.global_filters.add_rule(FilterType.IGNORE_TABLE, "gdb.t", ConfiguredBy.STARTUP_OPTIONS, T0 - STEP, NameCollation())
    ).with_channel(Channel("ch1", filters=own))
    replica = Replica(state)
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'ch1'")
    assert replica.ps() == [
        ("ch1", "REPLICATE_DO_DB", "c1", SO_FC, 0),
        ("ch1", "REPLICATE_IGNORE_TABLE", "gdb.t", SO, 0),
    ]
    assert replica.state.channel("ch1").filters[FilterType.DO_DB] == own[FilterType.DO_DB]  # type: ignore[union-attr]


def test_group_replication_channel_never_copies() -> None:
    replica = Replica(with_global_rule(FilterType.DO_DB, "g1"))
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_USER = 'u' FOR CHANNEL 'group_replication_recovery'")
    assert replica.state.channel("group_replication_recovery") is not None
    assert replica.ps() == []


# ---- CHANGE REPLICATION SOURCE TO: channel creation ---------------------------------------------------------


def test_change_source_without_clause_with_two_channels_gives_3079() -> None:
    replica = multi_source("ch_1")
    assert replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'") == ER_3079
    assert multi_source("ch_1", state=MYSQL_8_0).fails("CHANGE MASTER TO MASTER_HOST = 'h'") == ER_3079


def test_change_source_without_clause_on_a_single_channel_replica() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_PORT = 3307")
    (row,) = replica.status()
    assert (row["Source_Host"], row["Source_Port"], row["Channel_Name"]) == ("h", 3307, "")


def test_group_replication_channels_do_not_count_for_3079() -> None:
    state = ReplicaState.fresh().with_channel(Channel("group_replication_applier"))
    replica = Replica(state)
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")


@pytest.mark.parametrize("name", ["c" * 65, "trailing ", "\u20ac" * 65])
def test_invalid_channel_name_gives_3076(name: str) -> None:
    replica = Replica()
    assert replica.fails(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{name}'") == ER_3076


@pytest.mark.parametrize("name", ["c" * 64, "10-186-60-16", "a b,c/d.e", "\u00e9t\u00e9"])
def test_valid_channel_names(name: str) -> None:
    replica = Replica()
    replica.run(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{name}'")
    assert replica.state.channel(name.lower()) is not None


def test_channel_name_is_case_insensitive() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'Channel1'")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 1 FOR CHANNEL 'CHANNEL1'")
    assert replica.state.channel_names == ("", "channel1")
    assert replica.status("cHaNnEl1")[0]["Channel_Name"] == "channel1"


def test_257th_channel_gives_3080() -> None:
    replica = Replica()
    for number in range(255):  # with the default channel: 256 channels
        replica.run(f"CHANGE REPLICATION SOURCE TO SOURCE_PORT = 1 FOR CHANNEL 'c{number}'")
    assert len(replica.state.channels) == 256
    assert replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 1 FOR CHANNEL 'one_more'") == ER_3080
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'c7'")  # existing channels still work


def test_channel_limit_is_checked_before_the_name() -> None:
    replica = Replica()
    for number in range(255):
        replica.run(f"CHANGE REPLICATION SOURCE TO SOURCE_PORT = 1 FOR CHANNEL 'c{number}'")
    assert replica.fails(f"CHANGE REPLICATION SOURCE TO SOURCE_PORT = 1 FOR CHANNEL '{'x' * 65}'") == ER_3080


def test_change_source_group_replication_applier_refuses_options() -> None:
    replica = Replica()
    error = replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'group_replication_applier'")
    assert error == er_3139("CHANGE REPLICATION SOURCE with the given parameters", "group_replication_applier")
    error = replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'group_replication_recovery'")
    assert error == er_3139("CHANGE REPLICATION SOURCE with the given parameters", "group_replication_recovery")


def test_80_names_change_master_in_3139() -> None:
    """8.0's text for the same refusal says CHANGE MASTER, whichever spelling was used."""
    error = Replica(MYSQL_8_0).fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'group_replication_applier'")
    assert error == er_3139("CHANGE MASTER with the given parameters", "group_replication_applier")


@pytest.mark.parametrize("state, version", [(None, "8.4.3"), (MYSQL_8_0, "8.0.40")])
def test_select_system_variables(state: ReplicaState | None, version: str) -> None:
    """SELECT @@version answers the simulated version; @@warning_count reads the previous
    statement's diagnostics without clearing them (the statement uses no table); a variable
    replfilter does not model is 1235, never 1064."""
    replica = Replica(state)
    result = replica.run("select @@version, @@Server_Id, @@session.lower_case_table_names")
    assert result == ResultSet(("@@version", "@@Server_Id", "@@session.lower_case_table_names"), ((version, 1, 0),))
    replica.run("STOP REPLICA")
    replica.run("STOP REPLICA")
    assert replica.run("SELECT @@warning_count").rows == ((1,),)
    assert replica.run("SELECT @@warning_count, @@error_count").rows == ((1, 0),)
    assert replica.fails("SELECT @@innodb_buffer_pool_size").code == 1235
    assert replica.run("SELECT @@error_count").rows == ((1,),)


def test_change_source_empty_host_is_refused() -> None:
    replica = Replica()
    error = replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = ''")
    assert (error.code, error.sqlstate) == (1210, "HY000")


def test_change_source_unsimulated_option_is_a_clear_error() -> None:
    replica = Replica()
    error = replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_SSL = 1")
    assert (error.code, error.sqlstate) == (1235, "42000")
    assert "SOURCE_SSL" in error.message


def test_change_source_user_and_password_notes() -> None:
    replica = Replica()
    result = replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_USER = 'u', SOURCE_PASSWORD = 'p'")
    assert [(c.level, c.code) for c in result.warnings] == [("Note", 1759), ("Note", 1760)]


def test_change_source_needs_the_matching_thread_stopped() -> None:
    replica = multi_source("c")
    replica.run("START REPLICA FOR CHANNEL 'c'")
    error = replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h2' FOR CHANNEL 'c'")
    assert (error.code, error.message) == (
        3086,
        "This operation cannot be performed with a running replica io thread; run STOP REPLICA IO_THREAD "
        "FOR CHANNEL 'c' first.",
    )
    assert replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 5 FOR CHANNEL 'c'") == er_3085("c")


# ---- START / STOP REPLICA -----------------------------------------------------------------------------------


def test_start_and_stop_notes() -> None:
    replica = multi_source("ch_1", "ch_2")
    assert replica.run("START REPLICA FOR CHANNEL 'ch_1'") == Ok(0, ())
    assert replica.run("START REPLICA") == Ok(0, (note_3083("ch_1"),))
    assert replica.warnings() == [note_3083("ch_1")]
    assert replica.run("START REPLICA") == Ok(0, (note_3083("ch_1"), note_3083("ch_2")))
    assert replica.run("STOP REPLICA FOR CHANNEL 'ch_2'") == Ok(0, ())
    assert replica.run("STOP REPLICA") == Ok(0, (note_3084("ch_2"),))
    assert replica.run("STOP REPLICA") == Ok(0, (note_3084("ch_1"), note_3084("ch_2")))


def test_start_one_thread_when_the_other_runs() -> None:
    replica = multi_source("c")
    replica.run("START REPLICA SQL_THREAD")
    assert replica.run("START REPLICA SQL_THREAD") == Ok(0, (note_3083("c"),))
    assert replica.run("START REPLICA IO_THREAD") == Ok(0, ())
    channel = replica.state.channel("c")
    assert channel is not None and channel.io_running and channel.sql_running
    assert replica.run("STOP REPLICA IO_THREAD") == Ok(0, ())
    assert replica.run("STOP REPLICA IO_THREAD") == Ok(0, (note_3084("c"),))


def test_start_and_stop_never_change_filters() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    before = replica.state.channel("c").filters  # type: ignore[union-attr]
    replica.run("START REPLICA")
    replica.run("STOP REPLICA")
    assert replica.state.channel("c").filters == before  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "sql",
    ["START REPLICA FOR CHANNEL 'nope'", "STOP REPLICA FOR CHANNEL 'nope'", "RESET REPLICA FOR CHANNEL 'nope'",
     "RESET REPLICA ALL FOR CHANNEL 'nope'", "SHOW REPLICA STATUS FOR CHANNEL 'nope'",
     "START REPLICA SQL_THREAD FOR CHANNEL 'NOPE'"],
)
def test_unknown_channel_gives_3074(sql: str) -> None:
    replica = multi_source("ch_1")
    assert replica.fails(sql) == er_3074("nope")


def test_start_unconfigured_gives_1200() -> None:
    replica = Replica()
    assert replica.fails("START REPLICA") == ER_1200
    assert replica.fails("START REPLICA FOR CHANNEL ''") == ER_1200


def test_stop_on_a_fresh_replica_is_a_note() -> None:
    replica = Replica()
    assert replica.run("STOP REPLICA") == Ok(0, (note_3084(""),))


def test_start_stop_group_replication_channels() -> None:
    state = ReplicaState.fresh().with_channel(Channel("group_replication_applier")).with_channel(
        Channel("group_replication_recovery")
    )
    replica = Replica(state)
    assert replica.fails("START REPLICA FOR CHANNEL 'group_replication_applier'") == er_3139(
        "START REPLICA FOR CHANNEL", "group_replication_applier"
    )
    assert replica.fails("START REPLICA IO_THREAD FOR CHANNEL 'group_replication_applier'") == er_3139(
        "START REPLICA IO_THREAD FOR CHANNEL", "group_replication_applier"
    )
    assert replica.fails("STOP REPLICA FOR CHANNEL 'group_replication_applier'") == er_3139(
        "STOP REPLICA FOR CHANNEL", "group_replication_applier"
    )
    assert replica.fails("START REPLICA SQL_THREAD FOR CHANNEL 'group_replication_recovery'") == er_3139(
        "START REPLICA SQL_THREAD FOR CHANNEL", "group_replication_recovery"
    )
    replica.run("START REPLICA SQL_THREAD FOR CHANNEL 'group_replication_applier'")
    assert replica.state.channel("group_replication_applier").sql_running  # type: ignore[union-attr]


# ---- RESET REPLICA [ALL] -------------------------------------------------------------------------------------


def test_reset_replica_keeps_filters_and_configuration() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (y) FOR CHANNEL 'ch_2'")
    rows, status = replica.ps(), [r["Replicate_Do_DB"] for r in replica.status()]
    replica.run("RESET REPLICA")
    replica.run("RESET REPLICA FOR CHANNEL 'ch_2'")
    assert replica.ps() == rows
    assert [r["Replicate_Do_DB"] for r in replica.status()] == status
    assert [c.configured for c in replica.state.channels] == [False, True, True]


def test_reset_replica_forgets_positions() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_LOG_FILE = 'b.000007', SOURCE_LOG_POS = 99")
    replica.run("RESET REPLICA")
    (row,) = replica.status()
    assert (row["Source_Host"], row["Source_Log_File"], row["Read_Source_Log_Pos"]) == ("h", "", 4)


def test_reset_replica_all_for_channel_drops_the_channel_and_its_rows() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    replica.run("RESET REPLICA ALL FOR CHANNEL 'ch_1'")
    assert replica.ps() == [("ch_2", "REPLICATE_DO_DB", "x", CRF, 0)]
    assert replica.ps_global() == [("REPLICATE_DO_DB", "x", CRF)]
    assert replica.fails("SHOW REPLICA STATUS FOR CHANNEL 'ch_1'") == er_3074("ch_1")
    assert replica.state.channel_names == ("", "ch_2")


def test_reset_replica_all_recreates_an_empty_default_channel() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (y) FOR CHANNEL ''")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 1 FOR CHANNEL 'other'")
    replica.run("RESET REPLICA ALL")
    assert replica.state.channels == (Channel(""),)
    assert replica.ps() == []
    assert replica.status() == []
    assert replica.ps_global() == [("REPLICATE_DO_DB", "x", CRF)]  # the global filter is never reset
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    assert replica.ps() == [("", "REPLICATE_DO_DB", "x", CRF, 0)]  # re-acquires the global rules


def test_reset_replica_all_for_default_channel() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL ''")
    replica.run("RESET REPLICA ALL FOR CHANNEL ''")
    assert replica.state.channels == (Channel(""),)
    assert replica.ps() == []


def _partial_failure(replica: Replica, sql: str) -> MySQLError:
    """Run a statement that fails after changing part of the state (as the server does)."""
    with pytest.raises(MySQLError) as info:
        replica.run(sql)
    return info.value


def test_reset_all_with_a_running_channel_resets_those_before_it_and_stops_with_3081() -> None:
    """As the server does (reset_slave(THD*) walks the channels and stops at the first failure,
    spec 11.18): channels before the running one are reset and, with ALL, dropped; the running
    one and those after it are untouched; the statement reports 3081."""
    replica = multi_source("ch_1", "ch_2", "ch_3")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d) FOR CHANNEL 'ch_3'")
    replica.run("START REPLICA IO_THREAD FOR CHANNEL 'ch_2'")
    before = replica.state
    assert replica.fails("RESET REPLICA FOR CHANNEL 'ch_2'") == er_3081("ch_2")
    assert replica.state == before
    assert _partial_failure(replica, "RESET REPLICA ALL") == er_3081("ch_2")
    assert [c.name for c in replica.state.channels] == ["", "ch_2", "ch_3"]  # the default channel always exists
    assert replica.state.channel("ch_3") == before.channel("ch_3")
    assert replica.warnings() == [Condition("Error", 3081, er_3081("ch_2").message)]
    replica.run("STOP REPLICA FOR CHANNEL 'ch_2'")
    replica.run("RESET REPLICA ALL")
    assert [c.name for c in replica.state.channels] == [""]


def test_plain_reset_with_a_running_channel_resets_those_before_it() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE = 'b.000002', SOURCE_LOG_POS = 400 FOR CHANNEL 'ch_1'")
    replica.run("START REPLICA IO_THREAD FOR CHANNEL 'ch_2'")
    assert _partial_failure(replica, "RESET REPLICA") == er_3081("ch_2")
    (row,) = replica.status("ch_1")
    assert (row["Source_Log_File"], row["Read_Source_Log_Pos"]) == ("", 4)


def test_reset_all_checks_the_default_channel_first() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '_a'")
    replica.run("START REPLICA")
    assert replica.fails("RESET REPLICA ALL") == er_3081("")


# ---- SHOW REPLICA STATUS ------------------------------------------------------------------------------------------

SPEC_COLUMNS = """
Replica_IO_State Source_Host Source_User Source_Port Connect_Retry Source_Log_File Read_Source_Log_Pos
Relay_Log_File Relay_Log_Pos Relay_Source_Log_File Replica_IO_Running Replica_SQL_Running Replicate_Do_DB
Replicate_Ignore_DB Replicate_Do_Table Replicate_Ignore_Table Replicate_Wild_Do_Table
Replicate_Wild_Ignore_Table Last_Errno Last_Error Skip_Counter Exec_Source_Log_Pos Relay_Log_Space
Until_Condition Until_Log_File Until_Log_Pos Source_SSL_Allowed Source_SSL_CA_File Source_SSL_CA_Path
Source_SSL_Cert Source_SSL_Cipher Source_SSL_Key Seconds_Behind_Source Source_SSL_Verify_Server_Cert
Last_IO_Errno Last_IO_Error Last_SQL_Errno Last_SQL_Error Replicate_Ignore_Server_Ids Source_Server_Id
Source_UUID Source_Info_File SQL_Delay SQL_Remaining_Delay Replica_SQL_Running_State Source_Retry_Count
Source_Bind Last_IO_Error_Timestamp Last_SQL_Error_Timestamp Source_SSL_Crl Source_SSL_Crlpath
Retrieved_Gtid_Set Executed_Gtid_Set Auto_Position Replicate_Rewrite_DB Channel_Name Source_TLS_Version
Source_public_key_path Get_Source_public_key Network_Namespace
""".split()

SPEC_LEGACY_COLUMNS = """
Slave_IO_State Master_Host Master_User Master_Port Connect_Retry Master_Log_File Read_Master_Log_Pos
Relay_Log_File Relay_Log_Pos Relay_Master_Log_File Slave_IO_Running Slave_SQL_Running Replicate_Do_DB
Replicate_Ignore_DB Replicate_Do_Table Replicate_Ignore_Table Replicate_Wild_Do_Table
Replicate_Wild_Ignore_Table Last_Errno Last_Error Skip_Counter Exec_Master_Log_Pos Relay_Log_Space
Until_Condition Until_Log_File Until_Log_Pos Master_SSL_Allowed Master_SSL_CA_File Master_SSL_CA_Path
Master_SSL_Cert Master_SSL_Cipher Master_SSL_Key Seconds_Behind_Master Master_SSL_Verify_Server_Cert
Last_IO_Errno Last_IO_Error Last_SQL_Errno Last_SQL_Error Replicate_Ignore_Server_Ids Master_Server_Id
Master_UUID Master_Info_File SQL_Delay SQL_Remaining_Delay Slave_SQL_Running_State Master_Retry_Count
Master_Bind Last_IO_Error_Timestamp Last_SQL_Error_Timestamp Master_SSL_Crl Master_SSL_Crlpath
Retrieved_Gtid_Set Executed_Gtid_Set Auto_Position Replicate_Rewrite_DB Channel_Name Master_TLS_Version
Master_public_key_path Get_master_public_key Network_Namespace
""".split()


def test_show_replica_status_has_the_60_columns_in_order() -> None:
    result = multi_source("c").run("SHOW REPLICA STATUS")
    assert isinstance(result, ResultSet)
    assert list(result.columns) == SPEC_COLUMNS == list(COLUMNS)
    assert len(result.columns) == 60
    assert result.columns[12:18] == (
        "Replicate_Do_DB", "Replicate_Ignore_DB", "Replicate_Do_Table", "Replicate_Ignore_Table",
        "Replicate_Wild_Do_Table", "Replicate_Wild_Ignore_Table",
    )
    assert result.columns[54] == "Replicate_Rewrite_DB"
    assert result.columns[55] == "Channel_Name"
    assert all(len(row) == 60 for row in result.rows)


def test_show_slave_status_has_the_80_names_and_warns() -> None:
    """With --mysql-version=8.0 the SLAVE/MASTER spellings run as 8.0 runs them: warning 1287
    and, for SHOW SLAVE STATUS, the 8.0 column names."""
    replica = multi_source("c", state=MYSQL_8_0)
    result = replica.run("SHOW SLAVE STATUS")
    assert isinstance(result, ResultSet)
    assert list(result.columns) == SPEC_LEGACY_COLUMNS == list(LEGACY_COLUMNS)
    for ftype in FilterType:
        assert ftype.status_column in result.columns
    assert result.warnings == (deprecated("SHOW SLAVE STATUS", "SHOW REPLICA STATUS"),)
    assert result.rows == replica.run("SHOW REPLICA STATUS").rows  # type: ignore[union-attr]


def test_show_replica_status_rows_for_configured_non_gr_channels_in_name_order() -> None:
    state = ReplicaState.fresh().with_channel(Channel("group_replication_recovery", SourceSettings(host="gr")))
    replica = multi_source("z", "b", "a", state=state)
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 1 FOR CHANNEL 'unconfigured'")
    assert [row["Channel_Name"] for row in replica.status()] == ["a", "b", "z"]


def test_show_replica_status_default_channel_first() -> None:
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '-'")
    assert [row["Channel_Name"] for row in replica.status()] == ["", "-"]


def test_show_replica_status_of_an_unconfigured_channel_is_empty() -> None:
    replica = multi_source("ch_1")
    assert replica.status("") == []
    result = replica.run("SHOW REPLICA STATUS FOR CHANNEL ''")
    assert isinstance(result, ResultSet) and len(result.columns) == 60


def test_show_replica_status_on_a_fresh_replica_has_no_rows_and_no_error() -> None:
    result = Replica().run("SHOW REPLICA STATUS")
    assert isinstance(result, ResultSet) and result.rows == () and len(result.columns) == 60


def test_show_replica_status_group_replication_applier() -> None:
    replica = Replica()
    assert replica.fails("SHOW REPLICA STATUS FOR CHANNEL 'group_replication_applier'") == er_3074(
        "group_replication_applier"
    )
    replica = Replica(ReplicaState.fresh().with_channel(Channel("group_replication_applier", SourceSettings(host="x"))))
    assert replica.fails("SHOW REPLICA STATUS FOR CHANNEL 'Group_Replication_Applier'") == er_3139(
        "SHOW REPLICA STATUS", "group_replication_applier"
    )
    replica = Replica(ReplicaState.fresh().with_channel(Channel("group_replication_recovery", SourceSettings(host="x"))))
    assert [row["Channel_Name"] for row in replica.status("group_replication_recovery")] == [
        "group_replication_recovery"
    ]


def test_show_replica_status_other_columns() -> None:
    replica = Replica()
    replica.run(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'src', SOURCE_USER = 'repl', SOURCE_PORT = 3307, "
        "SOURCE_CONNECT_RETRY = 30, SOURCE_LOG_FILE = 'bin.000002', SOURCE_LOG_POS = 155, SOURCE_DELAY = 10 "
        "FOR CHANNEL 'ch'"
    )
    (row,) = replica.status("ch")
    assert row["Source_Host"] == "src" and row["Source_User"] == "repl" and row["Source_Port"] == 3307
    assert row["Connect_Retry"] == 30 and row["SQL_Delay"] == 10
    assert row["Source_Log_File"] == "bin.000002" and row["Read_Source_Log_Pos"] == 155
    assert (row["Replica_IO_Running"], row["Replica_SQL_Running"]) == ("No", "No")
    assert row["Seconds_Behind_Source"] is None
    replica.run("START REPLICA")
    (row,) = replica.status("ch")
    assert (row["Replica_IO_Running"], row["Replica_SQL_Running"]) == ("Yes", "Yes")
    assert row["Seconds_Behind_Source"] == 0


def test_show_replica_status_shows_the_channels_own_filter() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (g)")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (own) FOR CHANNEL 'c'")
    assert replica.filter_columns("c")["Replicate_Do_DB"] == "own"


@pytest.mark.parametrize(
    "definition,column,shown",
    [
        ("REPLICATE_DO_DB = (a, b, a)", "Replicate_Do_DB", "a,b,a"),
        ("REPLICATE_IGNORE_DB = (db1, my_db3, `db,3`)", "Replicate_Ignore_DB", "db1,my_db3,db,3"),
        ("REPLICATE_DO_TABLE = (d.t2, d.t1, d.t2)", "Replicate_Do_Table", "d.t1,d.t2"),
        ("REPLICATE_IGNORE_TABLE = (db1x.t, db10.t1, db1.t1)", "Replicate_Ignore_Table", "db1.t1,db10.t1,db1x.t"),
        ("REPLICATE_DO_TABLE = (a.t, A.t, b.T, B.t)", "Replicate_Do_Table", "A.t,B.t,a.t,b.T"),
        ("REPLICATE_WILD_DO_TABLE = ('b.%', 'a.%', 'b.%')", "Replicate_Wild_Do_Table", "b.%,a.%,b.%"),
        ("REPLICATE_WILD_IGNORE_TABLE = ('db\\_1.%', 'x\\\\y.z')", "Replicate_Wild_Ignore_Table", "db\\_1.%,x\\y.z"),
        ("REPLICATE_REWRITE_DB = ((a, b), (c, d))", "Replicate_Rewrite_DB", "(a,b),(c,d)"),
        ("REPLICATE_REWRITE_DB = ((a, b), (a, c))", "Replicate_Rewrite_DB", "(a,b),(a,c)"),
        ("REPLICATE_DO_DB = ()", "Replicate_Do_DB", ""),
    ],
)
def test_filter_column_formats(definition: str, column: str, shown: str) -> None:
    replica = multi_source("c")
    replica.run(f"CHANGE REPLICATION FILTER {definition} FOR CHANNEL 'c'")
    columns = replica.filter_columns("c")
    assert columns[column] == shown
    assert all(value == "" for name, value in columns.items() if name != column)
    (ps_row,) = replica.ps()
    assert ps_row[2] == shown


def test_filter_column_unset_is_empty_string_never_null() -> None:
    columns = multi_source("c").filter_columns("c")
    assert set(columns.values()) == {""}


# ---- lower_case_table_names ----------------------------------------------------------------------------------------


def lctn_replica(lctn: int) -> Replica:
    return multi_source("c", state=ReplicaState.fresh(lctn))


@pytest.mark.parametrize("lctn", [1, 2])
def test_lctn_folds_only_the_db_part_of_table_rules(lctn: int) -> None:
    replica = lctn_replica(lctn)
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (DB1.T1), REPLICATE_DO_DB = (DB1) FOR CHANNEL 'c'")
    columns = replica.filter_columns("c")
    assert columns["Replicate_Do_Table"] == "db1.T1"
    assert columns["Replicate_Do_DB"] == "DB1"


def test_lctn_1_collapses_table_rules_under_the_collation() -> None:
    replica = lctn_replica(1)
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.T1, d.t1), REPLICATE_IGNORE_TABLE = (D.t1, d.t1)")
    columns = replica.filter_columns("c")
    assert columns["Replicate_Do_Table"] == "d.T1"
    assert columns["Replicate_Ignore_Table"] == "d.t1"


def test_lctn_1_leaves_other_types_verbatim() -> None:
    replica = lctn_replica(1)
    replica.run(
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (A, a), REPLICATE_WILD_DO_TABLE = ('DB%.T%'), "
        "REPLICATE_REWRITE_DB = ((FROM_DB, TO_DB))"
    )
    columns = replica.filter_columns("c")
    assert columns["Replicate_Ignore_DB"] == "A,a"
    assert columns["Replicate_Wild_Do_Table"] == "DB%.T%"
    assert columns["Replicate_Rewrite_DB"] == "(FROM_DB,TO_DB)"


def test_lctn_0_keeps_case_and_duplicates_differing_in_case() -> None:
    replica = lctn_replica(0)
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (DB1.T1, db1.T1, DB1.T1)")
    assert replica.filter_columns("c")["Replicate_Do_Table"] == "DB1.T1,db1.T1"


def test_performance_schema_table_names_follow_lctn() -> None:
    """P_S table names are stored lower-case: with lower_case_table_names=0 they must be written in
    lower case (1146 otherwise), with 1 or 2 any case finds them. The schema name is matched
    case-insensitively (WL#7361 writes PERFORMANCE_SCHEMA.replication_applier_filters)."""
    upper = "SELECT * FROM performance_schema.REPLICATION_APPLIER_FILTERS"
    assert Replica().fails(upper) == MySQLError(
        1146, "42S02", "Table 'performance_schema.REPLICATION_APPLIER_FILTERS' doesn't exist"
    )
    assert isinstance(Replica(ReplicaState.fresh(1)).run(upper), ResultSet)
    assert isinstance(Replica().run("SELECT * FROM PERFORMANCE_SCHEMA.replication_applier_filters"), ResultSet)


# ---- performance_schema ----------------------------------------------------------------------------------------------


def test_replication_applier_filters_columns() -> None:
    result = Replica().run("SELECT * FROM performance_schema.replication_applier_filters")
    assert isinstance(result, ResultSet)
    assert result.columns == ("CHANNEL_NAME", "FILTER_NAME", "FILTER_RULE", "CONFIGURED_BY", "ACTIVE_SINCE", "COUNTER")
    assert result.rows == ()


def test_replication_applier_global_filters_columns() -> None:
    result = Replica().run("SELECT * FROM performance_schema.replication_applier_global_filters")
    assert isinstance(result, ResultSet)
    assert result.columns == ("FILTER_NAME", "FILTER_RULE", "CONFIGURED_BY", "ACTIVE_SINCE")


def test_rows_order_channel_then_fixed_type_order() -> None:
    replica = multi_source("channel_3", "channel_1")
    replica.run(
        "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a,b)), REPLICATE_WILD_IGNORE_TABLE = ('x.%'), "
        "REPLICATE_WILD_DO_TABLE = ('y.%'), REPLICATE_IGNORE_TABLE = (i.t), REPLICATE_DO_TABLE = (d.t), "
        "REPLICATE_IGNORE_DB = (i), REPLICATE_DO_DB = (d) FOR CHANNEL 'channel_3'"
    )
    replica.run("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (g.t), REPLICATE_DO_DB = (g) FOR CHANNEL 'channel_1'")
    assert [(c, f) for c, f, *_ in replica.ps()] == [
        ("channel_1", "REPLICATE_DO_DB"),
        ("channel_1", "REPLICATE_IGNORE_TABLE"),
        ("channel_3", "REPLICATE_DO_DB"),
        ("channel_3", "REPLICATE_IGNORE_DB"),
        ("channel_3", "REPLICATE_DO_TABLE"),
        ("channel_3", "REPLICATE_IGNORE_TABLE"),
        ("channel_3", "REPLICATE_WILD_DO_TABLE"),
        ("channel_3", "REPLICATE_WILD_IGNORE_TABLE"),
        ("channel_3", "REPLICATE_REWRITE_DB"),
    ]


def test_global_rows_in_fixed_type_order_with_two_configured_by_values() -> None:
    replica = Replica(with_global_rule(FilterType.IGNORE_TABLE, "gdb.t"))
    replica.run("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a,b)), REPLICATE_DO_DB = (d)")
    assert replica.ps_global() == [
        ("REPLICATE_DO_DB", "d", CRF),
        ("REPLICATE_IGNORE_TABLE", "gdb.t", SO),
        ("REPLICATE_REWRITE_DB", "(a,b)", CRF),
    ]
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (c) FOR CHANNEL ''")
    assert {row[2] for row in replica.ps_global()} <= {SO, CRF}


def test_empty_list_keeps_a_row_with_an_empty_rule() -> None:
    """rpl_multi_source_filter step 14: the row stays, FILTER_RULE empty, statistics refreshed."""
    replica = multi_source("channel_1")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) FOR CHANNEL 'channel_1'")
    count = len(replica.ps())
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = () FOR CHANNEL 'channel_1'")
    emptied_at = replica.clock.last
    assert replica.ps() == [("channel_1", "REPLICATE_DO_DB", "", CRF_FC, 0)]
    assert len(replica.ps()) == count
    (row,) = replica.rows("SELECT ACTIVE_SINCE FROM performance_schema.replication_applier_filters")
    assert row["ACTIVE_SINCE"] == format_timestamp(emptied_at)
    assert replica.filter_columns("channel_1")["Replicate_Do_DB"] == ""


def test_empty_rule_row_after_a_non_empty_row_shows_an_empty_rule() -> None:
    """Spec 11.17 suspects a P_S quirk (an empty rule after a non-empty row showing the previous
    text); it was never observed and the spec recommends ''. replfilter shows ''."""
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_IGNORE_DB = () FOR CHANNEL 'c'")
    assert replica.ps() == [("c", "REPLICATE_DO_DB", "x", CRF_FC, 0), ("c", "REPLICATE_IGNORE_DB", "", CRF_FC, 0)]


def test_types_never_set_have_no_row() -> None:
    replica = multi_source("c")
    assert replica.ps() == [] and replica.ps_global() == []


def test_counter_is_zero_after_a_set() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    assert [row["COUNTER"] for row in replica.rows("SELECT COUNTER FROM performance_schema.replication_applier_filters")] == [0]


def test_counter_is_reset_when_the_type_is_set_again() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x), REPLICATE_IGNORE_DB = (y) FOR CHANNEL 'c'")
    replica.session.update(
        lambda state: state.with_channel(
            Channel(
                "c",
                state.channel("c").source,  # type: ignore[union-attr]
                filters=state.channel("c").filters.with_counts({FilterType.DO_DB: 7, FilterType.IGNORE_DB: 3}),  # type: ignore[union-attr]
            )
        )
    )
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'c'")
    assert [(f, c) for _, f, _, _, c in replica.ps()] == [("REPLICATE_DO_DB", 0), ("REPLICATE_IGNORE_DB", 3)]


def test_active_since_is_one_timestamp_per_statement() -> None:
    replica = multi_source("ch_1", "ch_2", "ch_3")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_IGNORE_DB = (b), REPLICATE_DO_DB = (c)")
    first = format_timestamp(replica.clock.last)
    stamps = {row["ACTIVE_SINCE"] for row in replica.rows("SELECT * FROM performance_schema.replication_applier_filters")}
    stamps |= {row["ACTIVE_SINCE"] for row in replica.rows("SELECT * FROM performance_schema.replication_applier_global_filters")}
    assert stamps == {first}
    replica.run("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (d)")
    second = format_timestamp(replica.clock.last)
    rows = replica.rows("SELECT FILTER_NAME, ACTIVE_SINCE FROM performance_schema.replication_applier_filters")
    assert {(r["FILTER_NAME"], r["ACTIVE_SINCE"]) for r in rows} == {
        ("REPLICATE_DO_DB", first),
        ("REPLICATE_IGNORE_DB", second),
    }


def test_active_since_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """TIMESTAMP(6) in the session time zone: 'YYYY-MM-DD hh:mm:ss.uuuuuu'."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        assert format_timestamp(T0 + 123_456) == "2023-11-14 22:13:20.123456"
        replica = Replica()
        replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
        (row,) = replica.rows("SELECT ACTIVE_SINCE FROM performance_schema.replication_applier_global_filters")
        assert row["ACTIVE_SINCE"] == "2023-11-14 22:13:20.000000"
    finally:
        monkeypatch.undo()
        time.tzset()
    assert format_timestamp(T0) == datetime.fromtimestamp(T0 / 1_000_000).strftime("%Y-%m-%d %H:%M:%S.%f")


def test_select_columns_where_order_limit_count() -> None:
    replica = multi_source("ch_1", "ch_2")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_IGNORE_DB = (b)")
    rows = replica.rows(
        "SELECT CHANNEL_NAME, FILTER_RULE FROM performance_schema.replication_applier_filters "
        "WHERE FILTER_NAME = 'REPLICATE_DO_DB' ORDER BY CHANNEL_NAME DESC"
    )
    assert rows == [{"CHANNEL_NAME": "ch_2", "FILTER_RULE": "a"}, {"CHANNEL_NAME": "ch_1", "FILTER_RULE": "a"}]
    rows = replica.rows(
        "SELECT filter_name FROM performance_schema.replication_applier_filters WHERE channel_name = 'CH_1' "
        "AND counter = 0 LIMIT 1"
    )
    assert rows == [{"filter_name": "REPLICATE_DO_DB"}]
    rows = replica.rows("SELECT COUNT(*) FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME <> 'ch_1'")
    assert rows == [{"COUNT(*)": 2}]


def test_select_errors() -> None:
    replica = Replica()
    assert replica.fails("SELECT nope FROM performance_schema.replication_applier_filters") == MySQLError(
        1054, "42S22", "Unknown column 'nope' in 'field list'"
    )
    assert replica.fails("SELECT * FROM performance_schema.replication_applier_global_filters WHERE COUNTER = 0") == (
        MySQLError(1054, "42S22", "Unknown column 'COUNTER' in 'where clause'")
    )
    assert replica.fails("SELECT * FROM performance_schema.replication_applier_global_filters ORDER BY CHANNEL_NAME") == (
        MySQLError(1054, "42S22", "Unknown column 'CHANNEL_NAME' in 'order clause'")
    )
    assert replica.fails("SELECT * FROM replication_applier_filters") == MySQLError(1046, "3D000", "No database selected")
    assert replica.fails("SELECT * FROM mysql.user") == MySQLError(1146, "42S02", "Table 'mysql.user' doesn't exist")


# ---- warnings: legacy spellings, SHOW WARNINGS ------------------------------------------------------------------------


def test_legacy_spellings_warn_1287() -> None:
    replica = Replica(MYSQL_8_0)
    result = replica.run("CHANGE MASTER TO MASTER_HOST = 'h', SOURCE_PORT = 3307, MASTER_LOG_POS = 4")
    assert result.warnings == (
        deprecated("CHANGE MASTER", "CHANGE REPLICATION SOURCE"),
        deprecated("MASTER_HOST", "SOURCE_HOST"),
        deprecated("MASTER_LOG_POS", "SOURCE_LOG_POS"),
    )
    assert replica.run("START SLAVE").warnings == (deprecated("START SLAVE", "START REPLICA"),)
    assert replica.run("START SLAVE").warnings == (deprecated("START SLAVE", "START REPLICA"), note_3083(""))
    assert replica.run("STOP SLAVE").warnings == (deprecated("STOP SLAVE", "STOP REPLICA"),)
    assert replica.run("RESET SLAVE").warnings == (deprecated("RESET SLAVE", "RESET REPLICA"),)
    assert replica.run("SHOW SLAVE STATUS").warnings == (deprecated("SHOW SLAVE STATUS", "SHOW REPLICA STATUS"),)


def test_reset_slave_all_warns_about_reset_slave() -> None:
    """The 8.0 grammar pushes the warning for the SLAVE keyword of RESET, whatever follows:
    'RESET SLAVE' ... RESET REPLICA, also for RESET SLAVE ALL."""
    replica = Replica(MYSQL_8_0)
    assert replica.run("RESET SLAVE ALL").warnings == (deprecated("RESET SLAVE", "RESET REPLICA"),)


def test_current_spellings_do_not_warn() -> None:
    replica = Replica()
    assert replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'").warnings == ()
    assert replica.run("START REPLICA").warnings == ()
    assert replica.run("STOP REPLICA").warnings == ()
    assert replica.run("RESET REPLICA ALL").warnings == ()
    assert replica.run("SHOW REPLICA STATUS").warnings == ()


def test_deprecation_warning_stays_when_the_statement_then_fails() -> None:
    """The 1287 warning is pushed while parsing, so SHOW WARNINGS after a legacy statement that
    fails lists it before the error."""
    replica = multi_source("ch_1", state=MYSQL_8_0)
    replica.fails("RESET SLAVE FOR CHANNEL 'c'")
    assert replica.warnings() == [
        deprecated("RESET SLAVE", "RESET REPLICA"),
        Condition("Error", 3074, "Replica channel 'c' does not exist."),
    ]
    replica.fails("CHANGE MASTER TO MASTER_HOST = 'h'")
    assert replica.warnings() == [
        deprecated("CHANGE MASTER", "CHANGE REPLICATION SOURCE"),
        deprecated("MASTER_HOST", "SOURCE_HOST"),
        Condition("Error", 3079, ER_3079.message),
    ]


def test_show_warnings_lists_the_previous_statement_and_is_not_reset_by_itself() -> None:
    replica = multi_source("c")
    replica.run("STOP REPLICA")
    assert replica.warnings() == [note_3084("c")]
    assert replica.warnings() == [note_3084("c")]
    assert replica.rows("SHOW COUNT(*) WARNINGS") == [{"@@session.warning_count": 1}]
    replica.run("SHOW REPLICA STATUS")
    assert replica.warnings() == []


def test_show_warnings_after_an_error() -> None:
    replica = Replica()
    replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'nope'")
    assert replica.warnings() == [Condition("Error", 1794, ER_1794.message)]
    replica.fails("CHANGE REPLICATION FILTER")
    (condition,) = replica.warnings()
    assert (condition.level, condition.code) == ("Error", 1064)


def test_show_warnings_on_a_fresh_session() -> None:
    result = Replica().run("SHOW WARNINGS")
    assert isinstance(result, ResultSet)
    assert result.columns == ("Level", "Code", "Message") and result.rows == ()


# ---- no persistence of filters across a restart -----------------------------------------------------------------------


def test_a_new_session_starts_without_statement_filters() -> None:
    replica = multi_source("c")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
    assert Replica().ps() == [] and Replica().ps_global() == []


def test_restart_on_a_datadir_keeps_channels_not_filters(tmp_path: object) -> None:
    from replfilter.replica.datadir import DataDirectory

    with DataDirectory(tmp_path) as datadir:  # type: ignore[arg-type]
        session = Session(datadir.load_state(), clock=Clock(), observers=[datadir.observer])
        session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'c'")
        session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x)")
        session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (y) FOR CHANNEL 'c'")
    with DataDirectory(tmp_path) as datadir:  # type: ignore[arg-type]
        replica = Replica(datadir.load_state())
    assert replica.state.channel("c") is not None and replica.state.channel("c").configured  # type: ignore[union-attr]
    assert replica.ps() == [] and replica.ps_global() == []


def test_case_folding_is_per_character_lower_casing_not_casefold() -> None:
    """lower_case_table_names=1 folds as the server's lower-casing collation does: ``ß`` and
    ``ss`` stay two rules (Python's casefold would merge them)."""
    from replfilter.server.session import Session
    from replfilter.replica.state import ReplicaState

    session = Session(ReplicaState.fresh(1))
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.ß, d.ss, d.T1, d.t1) FOR CHANNEL 'c'")
    status = session.execute_text("SHOW REPLICA STATUS FOR CHANNEL 'c'").as_dicts()[0]  # type: ignore[union-attr]
    assert status["Replicate_Do_Table"] == "d.T1,d.ss,d.ß"


# ---- numbers of CHANGE REPLICATION SOURCE TO, kept as the server keeps them --------------------


def _source_numbers(replica: Replica, channel: str) -> tuple:
    (row,) = replica.status(channel)
    return tuple(row[c] for c in ("Source_Port", "Connect_Retry", "Source_Retry_Count", "SQL_Delay", "Auto_Position",
                                  "Source_Log_File", "Read_Source_Log_Pos"))


def test_source_delay_above_its_maximum_is_1729_and_changes_nothing() -> None:
    replica = Replica()
    error = replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_DELAY = 2147483648 FOR CHANNEL 'c'")
    assert (error.code, error.sqlstate, error.message) == (
        1729, "HY000", "The requested value 2147483648 for the source delay exceeds the maximum 2147483647"
    )
    assert replica.state.channel("c") is None
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_DELAY = 2147483647 FOR CHANNEL 'c'")
    assert _source_numbers(replica, "c")[3] == 2147483647


def test_port_and_connect_retry_are_32_bit_and_zero_changes_nothing() -> None:
    """LEX_MASTER_INFO keeps port and connect_retry in a uint and 0 for "not given"."""
    replica = Replica()
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_PORT = 70000, SOURCE_CONNECT_RETRY = 4294967297, "
                "SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 120 FOR CHANNEL 'c'")
    assert _source_numbers(replica, "c")[:2] == (70000, 1)  # no range check; wraps at 2**32
    replica.run("START REPLICA IO_THREAD FOR CHANNEL 'c'")
    # zero: not given, so no IO thread has to stop, and the coordinates are not reset
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 0, SOURCE_CONNECT_RETRY = 4294967296 FOR CHANNEL 'c'")
    assert _source_numbers(replica, "c")[:2] == (70000, 1)
    assert _source_numbers(replica, "c")[5:] == ("b.000001", 120)
    replica.run("STOP REPLICA IO_THREAD FOR CHANNEL 'c'")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_PORT = 3307 FOR CHANNEL 'c'")  # a new source
    assert _source_numbers(replica, "c")[5:] == ("", 4)


def test_retry_count_saturates_auto_position_is_a_flag_positions_start_at_4() -> None:
    replica = Replica(GTID_ON)
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_RETRY_COUNT = 99999999999999999999999, "
                "SOURCE_LOG_FILE = 'b.000002', SOURCE_LOG_POS = 1 FOR CHANNEL 'c'")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 5 FOR CHANNEL 'c'")  # positions: 1776 with it
    assert _source_numbers(replica, "c")[2:] == (18446744073709551615, 0, 1, "b.000002", 4)


def _diagnostics_after(replica: Replica, sql: str) -> list[tuple[str, int, str]]:
    replica.fails(sql)
    rows = replica.rows("SHOW WARNINGS")
    return [(r["Level"], r["Code"], (r["Message"].split("'") + [""])[1]) for r in rows]  # type: ignore[index, operator]


def test_legacy_spellings_read_before_a_syntax_error_keep_their_1287() -> None:
    """The 8.0 grammar warns for CHANGE MASTER and each MASTER_* word as soon as it reads it, so a
    syntax error later in the statement follows those warnings; the word the error is at, and
    START/STOP/RESET/SHOW ... SLAVE (which warn when they run), give none."""
    replica = Replica(MYSQL_8_0)
    assert _diagnostics_after(replica, "CHANGE MASTER TO MASTER_HOST = 'h', MASTER_PORT = 1 oops, MASTER_USER = 'u'") == [
        ("Warning", 1287, "CHANGE MASTER"), ("Warning", 1287, "MASTER_HOST"), ("Warning", 1287, "MASTER_PORT"),
        ("Error", 1064, "oops, MASTER_USER = "),
    ]
    assert _diagnostics_after(replica, "CHANGE REPLICATION SOURCE TO MASTER_HOST MASTER_PORT = 1") == [
        ("Warning", 1287, "MASTER_HOST"), ("Error", 1064, "MASTER_PORT = 1"),
    ]
    assert _diagnostics_after(replica, "START SLAVE oops") == [("Error", 1064, "oops")]


def test_a_source_delay_out_of_range_follows_the_warnings_of_the_whole_statement() -> None:
    replica = Replica(MYSQL_8_0)
    assert [(lvl, code) for lvl, code, _ in _diagnostics_after(
        replica, "CHANGE MASTER TO MASTER_DELAY = 4294967296, MASTER_HOST = 'h' FOR CHANNEL 'c'"
    )] == [("Warning", 1287)] * 3 + [("Error", 1729)]


def test_show_replicas_and_80s_show_slave_hosts() -> None:
    """No replica connects to the simulated server: SHOW REPLICAS has its columns and no rows;
    8.0's SHOW SLAVE HOSTS has 8.0's column names and warning 1287; 8.4 refuses it."""
    assert Replica().run("SHOW REPLICAS") == ResultSet(("Server_Id", "Host", "Port", "Source_Id", "Replica_UUID"), ())
    result = Replica(MYSQL_8_0).run("SHOW SLAVE HOSTS")
    assert result.columns == ("Server_id", "Host", "Port", "Master_id", "Slave_UUID") and result.rows == ()
    assert result.warnings == (deprecated("SHOW SLAVE HOSTS", "SHOW REPLICAS"),)
    assert Replica().fails("SHOW SLAVE HOSTS").message.endswith("near 'SLAVE HOSTS' at line 1")
    assert Replica(MYSQL_8_0).fails("SHOW REPLICA HOSTS").code == 1064


# ---- START REPLICA UNTIL / USER ... PASSWORD; options parsed but not simulated; 1776 -------------


def test_start_replica_until_is_kept_while_the_applier_runs() -> None:
    replica = multi_source("c")
    replica.run("START REPLICA UNTIL SOURCE_LOG_FILE = 'b.000002', SOURCE_LOG_POS = 1234 FOR CHANNEL 'c'")
    (row,) = replica.status("c")
    assert (row["Until_Condition"], row["Until_Log_File"], row["Until_Log_Pos"]) == ("Source", "b.000002", 1234)
    replica.run("STOP REPLICA IO_THREAD FOR CHANNEL 'c'")
    assert replica.status("c")[0]["Until_Condition"] == "Source"
    replica.run("STOP REPLICA SQL_THREAD FOR CHANNEL 'c'")
    (row,) = replica.status("c")
    assert (row["Until_Condition"], row["Until_Log_File"], row["Until_Log_Pos"]) == ("None", "", 0)
    replica.run("START REPLICA SQL_THREAD UNTIL SQL_AFTER_GTIDS = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-3' FOR CHANNEL 'c'")
    assert replica.status("c")[0]["Until_Condition"] == "SQL_AFTER_GTIDS"
    # An applier already running keeps its condition: this START starts nothing (note 3083).
    result = replica.run("START REPLICA SQL_THREAD UNTIL RELAY_LOG_FILE = 'r', RELAY_LOG_POS = 9 FOR CHANNEL 'c'")
    assert [w.code for w in result.warnings] == [3083]
    assert replica.status("c")[0]["Until_Condition"] == "SQL_AFTER_GTIDS"


@pytest.mark.parametrize("gtids", ["junk", "u:1-3", "3e11fa47-71ca-11e1-9e33-c80aa9429562:0", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-"])
def test_start_replica_until_a_malformed_gtid_set_is_1772_and_starts_nothing(gtids: str) -> None:
    """``Until_gtids::init`` reads the set before any thread starts (rpl_replica_until.cc)."""
    replica = multi_source("c")
    before = replica.state
    with pytest.raises(MySQLError) as raised:
        replica.run(f"START REPLICA UNTIL SQL_BEFORE_GTIDS = '{gtids}' FOR CHANNEL 'c'")
    assert raised.value == MySQLError(1772, "HY000", f"Malformed GTID set specification '{gtids}'.")
    assert replica.state == before
    # tagged GTIDs (8.4), white space, several UUIDs and an empty set are sets
    session = Session(replica.state)
    with pytest.raises(MySQLError):
        session.execute_text(f"START REPLICA UNTIL SQL_BEFORE_GTIDS = '{gtids}' FOR CHANNEL 'c'")
    # add_gtid_text's 1772 is the statement's error; init's 1277 follows it in SHOW WARNINGS
    assert [(c.level, c.code) for c in session.diagnostics] == [("Error", 1772), ("Error", 1277)]
    assert session.diagnostics[1].message == "Incorrect parameter or combination of parameters for START REPLICA UNTIL"
    for good in ("3E11FA47-71CA-11E1-9E33-C80AA9429562:tag_1:1-5:7, 4e11fa47-71ca-11e1-9e33-c80aa9429562:3", ""):
        replica.run("STOP REPLICA FOR CHANNEL 'c'")
        replica.run(f"START REPLICA UNTIL SQL_AFTER_GTIDS = '{good}' FOR CHANNEL 'c'")


def test_start_replica_with_a_password_keeps_it_out_of_the_state() -> None:
    replica = multi_source("c")
    replica.run("START REPLICA USER = 'repl' PASSWORD = 'sekret' FOR CHANNEL 'c'")
    assert "sekret" not in repr(replica.state)
    assert all("sekret" not in str(value) for value in replica.status("c")[0].values())


@pytest.mark.parametrize("option", [
    "PRIVILEGE_CHECKS_USER = 'u'@'h'", "REQUIRE_ROW_FORMAT = 1", "REQUIRE_TABLE_PRIMARY_KEY_CHECK = ON",
    "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL", "IGNORE_SERVER_IDS = (2, 3)", "SOURCE_HEARTBEAT_PERIOD = 0.5",
])
def test_options_not_simulated_are_1235_naming_the_option(option: str) -> None:
    name = option.split(" ")[0]
    assert Replica().fails(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', {option}") == MySQLError(
        1235, "42000", f"This version of MySQL doesn't yet support 'CHANGE REPLICATION SOURCE option {name} in replfilter'")


ER_1776 = MySQLError(1776, "HY000", "Parameters SOURCE_LOG_FILE, SOURCE_LOG_POS, RELAY_LOG_FILE and RELAY_LOG_POS "
                                    "cannot be set when SOURCE_AUTO_POSITION is active.")


GTID_ON = replace(ReplicaState.fresh(), gtid_mode="ON", enforce_gtid_consistency="ON")
"""A replica started with --gtid-mode=ON --enforce-gtid-consistency=ON: SOURCE_AUTO_POSITION = 1
needs a GTID_MODE other than OFF (1777, tests/test_gtid_mode.py)."""


def test_positions_with_auto_position_give_1776() -> None:
    replica = Replica(GTID_ON)
    assert replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1, SOURCE_LOG_POS = 4") == ER_1776
    assert replica.fails("CHANGE REPLICATION SOURCE TO RELAY_LOG_FILE = 'r', SOURCE_AUTO_POSITION = 1") == ER_1776
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_AUTO_POSITION = 1")
    assert replica.fails("CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE = 'b.1'") == ER_1776
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 0, SOURCE_LOG_FILE = 'b.1'")


def test_use_statement_sets_the_sessions_default_database() -> None:
    replica = Replica()
    assert replica.session.default_database is None
    replica.run("USE `my db`")
    assert replica.session.default_database == "my db"
    explained = replica.run("EXPLAIN REPLICATION OF 'INSERT INTO t VALUES (1)' FORMAT STATEMENT")
    assert "db=my db" in str(explained.rows[0])  # type: ignore[union-attr]
    assert replica.fails("USE").code == 1064


def test_queries_on_the_filter_tables_beyond_the_grammar_are_answered() -> None:
    """Other operators, LIKE/IN, aliases and GROUP BY on the performance_schema filter tables run
    (sqlglot), with the server's case-insensitive string comparisons; other SELECTs are 1235."""
    replica = multi_source("a")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d1, d2), REPLICATE_IGNORE_TABLE = (x.y) FOR CHANNEL 'a'")
    result = replica.run("SELECT CHANNEL_NAME AS c, FILTER_NAME, COUNTER FROM performance_schema.replication_applier_filters "
                         "WHERE COUNTER >= 0 AND filter_name LIKE 'replicate_do%'")
    assert result == ResultSet(("c", "FILTER_NAME", "COUNTER"), (("a", "REPLICATE_DO_DB", 0),), column_types=tuple(
        COLUMN_DEFINITIONS[CHANNEL_TABLE][c] for c in ("CHANNEL_NAME", "FILTER_NAME", "COUNTER")))
    result = replica.run("SELECT FILTER_NAME, COUNT(*) AS n FROM performance_schema.replication_applier_filters "
                         "GROUP BY FILTER_NAME ORDER BY FILTER_NAME DESC")
    assert result.rows == (("REPLICATE_IGNORE_TABLE", 1), ("REPLICATE_DO_DB", 1))  # type: ignore[union-attr]
    result = replica.run("SELECT * FROM performance_schema.replication_applier_filters f WHERE f.FILTER_NAME IN ('Replicate_Do_DB')")
    assert result.columns[:3] == ("CHANNEL_NAME", "FILTER_NAME", "FILTER_RULE")  # type: ignore[union-attr]
    assert [r[2] for r in result.rows] == ["d1,d2"]  # type: ignore[union-attr]
    assert replica.fails("SELECT 1").code == 1235
    assert replica.fails("SELECT * FROM performance_schema.replication_applier_filters JOIN mysql.user").code == 1235
