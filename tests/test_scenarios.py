"""Scenario tests: the worked examples of the spec (sections 4.2 and 5.2), every walkthrough of
WL#7361 (seed 002: ch_1, ch_2, ch_3 and the RESET / SHOW sections) and the startup example of the
manual (seed 000), replayed statement by statement and checked against performance_schema and
SHOW REPLICA STATUS.

Startup options are applied by hand here, the way spec section 5.1 describes the start-up
sequence (global rules, per-channel rules, discard of rules for unknown channels, copy of the
global rules into configured channels), so these scenarios do not depend on the option parser.
"""

from __future__ import annotations


from replfilter.core.errors import MySQLError
from replfilter.core.version import ServerVersion
from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation
from replfilter.server.session import Session
from replfilter.replica.state import Channel, ReplicaState, SourceSettings

from replica_driver import ReplicaDriver

DO_DB = FilterType.DO_DB
IGNORE_DB = FilterType.IGNORE_DB
DO_TABLE = FilterType.DO_TABLE
IGNORE_TABLE = FilterType.IGNORE_TABLE
WILD_DO = FilterType.WILD_DO_TABLE
WILD_IGNORE = FilterType.WILD_IGNORE_TABLE
REWRITE = FilterType.REWRITE_DB

SO = "STARTUP_OPTIONS"
SO_FC = "STARTUP_OPTIONS_FOR_CHANNEL"
CRF = "CHANGE_REPLICATION_FILTER"
CRF_FC = "CHANGE_REPLICATION_FILTER_FOR_CHANNEL"

STARTUP_US = 1_480_679_625_113_410  # 2016-12-02 11:53:45.11341, the WL#7361 listings' time
COLLATION = NameCollation(0)


def startup(
    global_options: list[tuple[FilterType, str]] = (),  # type: ignore[assignment]
    channel_options: dict[str, list[tuple[FilterType, object]]] | None = None,
    configured: tuple[str, ...] = (),
    unconfigured: tuple[str, ...] = ("",),
    version: ServerVersion = ServerVersion.MYSQL_8_4,
) -> tuple[ReplicaState, list[str]]:
    """The replica after start-up (spec 5.1): returns the state and the error-log warnings."""
    global_filters = FilterSet()
    for ftype, rule in global_options:
        global_filters = global_filters.add_rule(ftype, rule, ConfiguredBy.STARTUP_OPTIONS, STARTUP_US, COLLATION)
    per_channel: dict[str, FilterSet] = {}
    for name, options in (channel_options or {}).items():
        filters = FilterSet()
        for ftype, rule in options:
            filters = filters.add_rule(ftype, rule, ConfiguredBy.STARTUP_OPTIONS_FOR_CHANNEL, STARTUP_US, COLLATION)  # type: ignore[arg-type]
        per_channel[name] = filters
    warnings = []
    state = ReplicaState.fresh(version=version).with_global_filters(global_filters)
    for name in sorted(set(configured) | set(unconfigured)):
        filters = per_channel.pop(name, FilterSet())
        source = SourceSettings(host=f"source_{name or 'default'}") if name in configured else SourceSettings()
        if name in configured:
            filters = filters.with_global_copy(global_filters, STARTUP_US)
        elif not filters.is_empty:
            warnings.append(_discarded(name))
            filters = FilterSet()
        state = state.with_channel(Channel(name, source, filters=filters))
    for name in per_channel:  # filters no channel attached
        warnings.append(_discarded(name))
    return state, warnings


def _discarded(name: str) -> str:
    return (
        f"There are per-channel replication filter(s) configured for channel '{name}' which does not exist. "
        "The filter(s) have been discarded."
    )


class Replica(ReplicaDriver):
    def __init__(self, state: ReplicaState) -> None:
        self.now = STARTUP_US
        super().__init__(Session(state, clock=self._tick))

    def _tick(self) -> int:
        self.now += 1_000_000
        return self.now

    def run(self, *statements: str) -> None:
        for sql in statements:
            self.session.execute_text(sql)

    query = ReplicaDriver.rows

    def show(self, channel: str | None = None, legacy: bool = False) -> dict[str, dict[str, object]]:
        """Channel -> its seven filter columns, from SHOW REPLICA|SLAVE STATUS."""
        word = "SLAVE" if legacy else "REPLICA"
        clause = "" if channel is None else f" FOR CHANNEL '{channel}'"
        return {
            str(row["Channel_Name"]): {f.status_column: row[f.status_column] for f in FilterType}
            for row in self.query(f"SHOW {word} STATUS{clause}")
        }


def columns(**values: str) -> dict[str, str]:
    """The seven filter columns, '' except those given (keyword = column name)."""
    result = {f.status_column: "" for f in FilterType}
    result.update(values)
    return result


# ---- spec 4.2: the rpl_multi_source_filter worked example -------------------------------------------------------


def test_spec_4_2_worked_example() -> None:
    state, warnings = startup(
        global_options=[(IGNORE_TABLE, "global_db.t1")],
        configured=("channel_1", "channel_3", "channel_4", "channel_5", "channel_6"),
    )
    assert warnings == []
    replica = Replica(state)
    copied = [(f"channel_{n}", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0) for n in (1, 3, 4, 5, 6)]
    assert replica.ps() == copied
    replica.run("START REPLICA")
    error = replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(dbx)")
    assert error == MySQLError(
        3085,
        "HY000",
        "This operation cannot be performed with a running replica sql thread; run STOP REPLICA SQL_THREAD "
        "FOR CHANNEL 'channel_1' first.",
    )
    replica.run(
        "STOP REPLICA",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1) FOR CHANNEL 'channel_1'",
        "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB=((db4,db44)) FOR CHANNEL 'channel_4'",
        "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE=(db5.t1) FOR CHANNEL 'channel_5'",
    )
    assert replica.ps() == [
        ("channel_1", "REPLICATE_DO_DB", "db1", CRF_FC, 0),
        ("channel_1", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_3", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_4", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_4", "REPLICATE_REWRITE_DB", "(db4,db44)", CRF_FC, 0),
        ("channel_5", "REPLICATE_DO_TABLE", "db5.t1", CRF_FC, 0),
        ("channel_5", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_6", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
    ]
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(dbB), REPLICATE_IGNORE_DB=(dbC), REPLICATE_IGNORE_DB=(dbD)")
    assert replica.ps() == [
        ("channel_1", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("channel_1", "REPLICATE_IGNORE_DB", "dbD", CRF, 0),
        ("channel_1", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_3", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("channel_3", "REPLICATE_IGNORE_DB", "dbD", CRF, 0),
        ("channel_3", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_4", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("channel_4", "REPLICATE_IGNORE_DB", "dbD", CRF, 0),
        ("channel_4", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_4", "REPLICATE_REWRITE_DB", "(db4,db44)", CRF_FC, 0),
        ("channel_5", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("channel_5", "REPLICATE_IGNORE_DB", "dbD", CRF, 0),
        ("channel_5", "REPLICATE_DO_TABLE", "db5.t1", CRF_FC, 0),
        ("channel_5", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
        ("channel_6", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("channel_6", "REPLICATE_IGNORE_DB", "dbD", CRF, 0),
        ("channel_6", "REPLICATE_IGNORE_TABLE", "global_db.t1", SO, 0),
    ]
    assert replica.ps_global() == [
        ("REPLICATE_DO_DB", "dbB", CRF),
        ("REPLICATE_IGNORE_DB", "dbD", CRF),
        ("REPLICATE_IGNORE_TABLE", "global_db.t1", SO),
    ]
    assert replica.show()["channel_4"] == columns(
        Replicate_Do_DB="dbB", Replicate_Ignore_DB="dbD", Replicate_Ignore_Table="global_db.t1",
        Replicate_Rewrite_DB="(db4,db44)",
    )
    assert list(replica.show()) == ["channel_1", "channel_3", "channel_4", "channel_5", "channel_6"]


def test_spec_4_2_step_14_empty_list_keeps_its_row() -> None:
    state, _ = startup(configured=("channel_1",))
    replica = Replica(state)
    replica.run(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db2,`db32`,`db,3`), REPLICATE_DO_DB=(db1,my_db3,my_db4), "
        "Replicate_Ignore_DB=(my_initfiledb3) FOR CHANNEL 'channel_1'"
    )
    assert replica.show("channel_1")["channel_1"] == columns(
        Replicate_Do_DB="db1,my_db3,my_db4", Replicate_Ignore_DB="my_initfiledb3"
    )
    rows = len(replica.ps())
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB=() FOR CHANNEL 'channel_1'")
    assert replica.ps() == [
        ("channel_1", "REPLICATE_DO_DB", "", CRF_FC, 0),
        ("channel_1", "REPLICATE_IGNORE_DB", "my_initfiledb3", CRF_FC, 0),
    ]
    assert len(replica.ps()) == rows


# ---- spec 5.2: copying the global rules ------------------------------------------------------------------------


def test_spec_5_2_startup_example() -> None:
    """--replicate-do-db=g1 --replicate-ignore-table=gdb.t --replicate-do-db=ch1:c1, ch1 configured."""
    state, warnings = startup(
        global_options=[(DO_DB, "g1"), (IGNORE_TABLE, "gdb.t")],
        channel_options={"ch1": [(DO_DB, "c1")]},
        configured=("ch1",),
    )
    assert warnings == []
    replica = Replica(state)
    assert replica.ps() == [
        ("ch1", "REPLICATE_DO_DB", "c1", SO_FC, 0),
        ("ch1", "REPLICATE_IGNORE_TABLE", "gdb.t", SO, 0),
    ]
    assert replica.ps_global() == [("REPLICATE_DO_DB", "g1", SO), ("REPLICATE_IGNORE_TABLE", "gdb.t", SO)]


def test_spec_5_2_run_time_example() -> None:
    replica = Replica(ReplicaState.fresh())
    replica.run(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (dbB)",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'new'",
    )
    assert replica.ps() == [("new", "REPLICATE_DO_DB", "dbB", CRF, 0)]
    (row,) = replica.query("SELECT ACTIVE_SINCE FROM performance_schema.replication_applier_filters")
    (global_row,) = replica.query("SELECT ACTIVE_SINCE FROM performance_schema.replication_applier_global_filters")
    assert row["ACTIVE_SINCE"] > global_row["ACTIVE_SINCE"]  # the time of the copy, not of the global set


def test_spec_5_2_for_channel_rules_never_flow_elsewhere() -> None:
    state, _ = startup(configured=("a", "b"))
    replica = Replica(state)
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (only_a) FOR CHANNEL 'a'")
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'c'")
    assert replica.ps() == [("a", "REPLICATE_DO_DB", "only_a", CRF_FC, 0)]
    assert replica.ps_global() == []


# ---- seed 002 (WL#7361), section B.1: FOR CHANNEL on ch_1 --------------------------------------------------------


def test_wl7361_for_channel_walkthrough_on_ch_1() -> None:
    state, warnings = startup(
        channel_options={
            "ch_1": [(DO_DB, "my_db1"), (DO_DB, "my_db2"), (DO_DB, "my_db3"),
                     (IGNORE_DB, "my_db4"), (IGNORE_DB, "my_db5"), (IGNORE_DB, "my_db6")],
        },
        configured=("ch_1",),
        version=ServerVersion.MYSQL_8_0,  # WL#7361's listings are 8.0's (SHOW SLAVE STATUS)
    )
    assert warnings == []
    replica = Replica(state)
    assert replica.show("ch_1")["ch_1"] == columns(
        Replicate_Do_DB="my_db1,my_db2,my_db3", Replicate_Ignore_DB="my_db4,my_db5,my_db6"
    )
    replica.run(
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE=(`db3`.initfilet3) FOR CHANNEL 'ch_1'",
        "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE=('initfiled%.t%') FOR CHANNEL 'ch_1'",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1,db2,`db32`, `db,3`), REPLICATE_DO_DB = (my_db3, my_db4), "
        "Replicate_Ignore_DB = (my_initfiledb3) FOR CHANNEL 'ch_1'",
    )
    expected = columns(
        Replicate_Do_DB="my_db3,my_db4",
        Replicate_Ignore_DB="my_initfiledb3",
        Replicate_Ignore_Table="db3.initfilet3",
        Replicate_Wild_Do_Table="initfiled%.t%",
    )
    assert replica.show("ch_1", legacy=True)["ch_1"] == expected
    assert replica.show("ch_1")["ch_1"] == expected
    # "SELECT * FROM PERFORMANCE_SCHEMA.replication_applier_filters displays the same result"
    assert replica.ps() == [
        ("ch_1", "REPLICATE_DO_DB", "my_db3,my_db4", CRF_FC, 0),
        ("ch_1", "REPLICATE_IGNORE_DB", "my_initfiledb3", CRF_FC, 0),
        ("ch_1", "REPLICATE_IGNORE_TABLE", "db3.initfilet3", CRF_FC, 0),
        ("ch_1", "REPLICATE_WILD_DO_TABLE", "initfiled%.t%", CRF_FC, 0),
    ]


def test_wl7361_one_statement_equals_three_statements() -> None:
    """WL#7361: the statement with REPLICATE_DO_DB twice "is equal to" three separate statements."""

    def rules_of(replica: Replica) -> list[tuple[object, ...]]:
        return [(c, f, r, b) for c, f, r, b, _ in replica.ps()]

    state, _ = startup(configured=("ch_1",))
    one, three = Replica(state), Replica(state)
    one.run(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1,db2,`db32`, `db,3`), REPLICATE_DO_DB = (my_db3, my_db4), "
        "Replicate_Ignore_DB = (my_initfiledb3) FOR CHANNEL 'ch_1'"
    )
    three.run(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1,db2,`db32`, `db,3`) FOR CHANNEL 'ch_1'",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (my_db3, my_db4) FOR CHANNEL 'ch_1'",
        "CHANGE REPLICATION FILTER Replicate_Ignore_DB = (my_initfiledb3) FOR CHANNEL 'ch_1'",
    )
    assert rules_of(one) == rules_of(three)


# ---- seed 002 (WL#7361), section B.2: '', ch_1, ch_2 and a later ch_3 ---------------------------------------------


def wl7361_b2() -> tuple[Replica, list[str]]:
    """Channels '', ch_1, ch_2 exist (configured) before the server starts, with
    --replicate-do-db=db1 --replicate-do-db=:db1 --replicate-do-db=:db2 --replicate-do-db=ch_1:db4
    --replicate-do-db=ch_1:db5 --replicate-do-db=ch_3:db6 --replicate-wild-do-table=db.t1%
    --replicate-wild-ignore-table=ch_1:db.t2%"""
    state, warnings = startup(
        global_options=[(DO_DB, "db1"), (WILD_DO, "db.t1%")],
        channel_options={
            "": [(DO_DB, "db1"), (DO_DB, "db2")],
            "ch_1": [(DO_DB, "db4"), (DO_DB, "db5"), (WILD_IGNORE, "db.t2%")],
            "ch_3": [(DO_DB, "db6")],
        },
        configured=("", "ch_1", "ch_2"),
        unconfigured=(),
        version=ServerVersion.MYSQL_8_0,  # WL#7361's statements are 8.0's (SLAVE, MASTER)
    )
    return Replica(state), warnings


WL_B2_AFTER_STARTUP = [
    ("", "REPLICATE_DO_DB", "db1,db2", SO_FC, 0),
    ("", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
    ("ch_1", "REPLICATE_DO_DB", "db4,db5", SO_FC, 0),
    ("ch_1", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
    ("ch_1", "REPLICATE_WILD_IGNORE_TABLE", "db.t2%", SO_FC, 0),
    ("ch_2", "REPLICATE_DO_DB", "db1", SO, 0),
    ("ch_2", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
]


def test_wl7361_startup_listing() -> None:
    replica, warnings = wl7361_b2()
    assert warnings == [_discarded("ch_3")]
    assert replica.ps() == WL_B2_AFTER_STARTUP
    assert replica.ps_global() == [("REPLICATE_DO_DB", "db1", SO), ("REPLICATE_WILD_DO_TABLE", "db.t1%", SO)]
    stamps = {r["ACTIVE_SINCE"] for r in replica.query("SELECT * FROM performance_schema.replication_applier_filters")}
    assert len(stamps) == 1  # one start-up time


def test_wl7361_change_master_creates_ch_3_with_the_global_rules() -> None:
    replica, _ = wl7361_b2()
    replica.run("CHANGE MASTER TO MASTER_HOST = 'source3', MASTER_PORT = 3308 FOR CHANNEL 'ch_3'")
    assert replica.ps() == WL_B2_AFTER_STARTUP + [
        ("ch_3", "REPLICATE_DO_DB", "db1", SO, 0),
        ("ch_3", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
    ]


def test_wl7361_for_channel_then_clause_less() -> None:
    """The WL's last listing after `CHANGE REPLICATION FILTER REPLICATE_DO_DB = (dbB)` shows the
    channels' CONFIGURED_BY changed to CHANGE_REPLICATION_FILTER but their old FILTER_RULE values
    (dbA, '', db1, db1), while its global listing shows dbB. That contradicts the WL's own rule
    ("any existing filter rules of that type are replaced by the filter rules specified in the
    statement") and spec 4.2 step 2.3; the listing is a copy-and-edit slip. replfilter follows the
    rule: every configured channel's REPLICATE_DO_DB becomes dbB."""
    replica, _ = wl7361_b2()
    replica.run(
        "CHANGE MASTER TO MASTER_HOST = 'source3' FOR CHANNEL 'ch_3'",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (dbA) FOR CHANNEL ''",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = () FOR CHANNEL 'ch_1'",
    )
    assert replica.ps() == [
        ("", "REPLICATE_DO_DB", "dbA", CRF_FC, 0),
        ("", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
        ("ch_1", "REPLICATE_DO_DB", "", CRF_FC, 0),
        ("ch_1", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
        ("ch_1", "REPLICATE_WILD_IGNORE_TABLE", "db.t2%", SO_FC, 0),
        ("ch_2", "REPLICATE_DO_DB", "db1", SO, 0),
        ("ch_2", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
        ("ch_3", "REPLICATE_DO_DB", "db1", SO, 0),
        ("ch_3", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
    ]
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (dbB)")
    assert replica.ps() == [
        ("", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
        ("ch_1", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("ch_1", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
        ("ch_1", "REPLICATE_WILD_IGNORE_TABLE", "db.t2%", SO_FC, 0),
        ("ch_2", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("ch_2", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
        ("ch_3", "REPLICATE_DO_DB", "dbB", CRF, 0),
        ("ch_3", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
    ]
    assert replica.ps_global() == [("REPLICATE_DO_DB", "dbB", CRF), ("REPLICATE_WILD_DO_TABLE", "db.t1%", SO)]
    stamps = {
        r["ACTIVE_SINCE"]
        for r in replica.query(
            "SELECT ACTIVE_SINCE FROM performance_schema.replication_applier_filters WHERE FILTER_NAME = 'REPLICATE_DO_DB'"
        )
    }
    assert len(stamps) == 1  # one statement, one ACTIVE_SINCE
    assert replica.show()["ch_1"] == columns(
        Replicate_Do_DB="dbB", Replicate_Wild_Do_Table="db.t1%", Replicate_Wild_Ignore_Table="db.t2%"
    )


def test_wl7361_for_channel_on_an_unconfigured_default_channel() -> None:
    """Spec 4.2 / 11.2: the same `FOR CHANNEL ''` statement on a multi-source replica whose default
    channel is not configured gives 1794."""
    state, _ = startup(configured=("ch_1", "ch_2"))
    replica = Replica(state)
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (dbA) FOR CHANNEL ''").code == 1794


# ---- seed 002 (WL#7361), section C: RESET SLAVE [ALL] [FOR CHANNEL] ---------------------------------------------


def test_wl7361_reset_slave_for_channel_keeps_filters() -> None:
    replica, _ = wl7361_b2()
    replica.run("RESET SLAVE FOR CHANNEL ''")
    assert replica.ps() == WL_B2_AFTER_STARTUP
    replica.run("RESET SLAVE")
    assert replica.ps() == WL_B2_AFTER_STARTUP
    assert replica.fails("RESET SLAVE FOR CHANNEL 'ch_9'").code == 3074


def test_wl7361_reset_slave_all_for_channel() -> None:
    replica, _ = wl7361_b2()
    replica.run("RESET SLAVE ALL FOR CHANNEL ''")
    assert replica.ps() == [row for row in WL_B2_AFTER_STARTUP if row[0] != ""]
    assert list(replica.show(legacy=True)) == ["ch_1", "ch_2"]
    replica.run("RESET SLAVE ALL FOR CHANNEL 'ch_2'")
    assert [row[0] for row in replica.ps()] == ["ch_1", "ch_1", "ch_1"]
    assert replica.fails("RESET SLAVE ALL FOR CHANNEL 'ch_2'").code == 3074
    assert replica.fails("SHOW SLAVE STATUS FOR CHANNEL 'ch_2'").code == 3074
    assert replica.ps_global() == [("REPLICATE_DO_DB", "db1", SO), ("REPLICATE_WILD_DO_TABLE", "db.t1%", SO)]


def test_wl7361_reset_slave_all_then_a_new_channel_copies_the_global_rules() -> None:
    replica, _ = wl7361_b2()
    replica.run("RESET SLAVE ALL")
    assert replica.ps() == []
    assert replica.show() == {}
    assert replica.ps_global() == [("REPLICATE_DO_DB", "db1", SO), ("REPLICATE_WILD_DO_TABLE", "db.t1%", SO)]
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'again' FOR CHANNEL 'ch_1'")
    assert replica.ps() == [
        ("ch_1", "REPLICATE_DO_DB", "db1", SO, 0),
        ("ch_1", "REPLICATE_WILD_DO_TABLE", "db.t1%", SO, 0),
    ]


def test_wl7361_statement_that_removes_every_global_and_channel_rule() -> None:
    replica, _ = wl7361_b2()
    replica.run(
        "CHANGE REPLICATION FILTER Replicate_Do_DB = (), Replicate_Ignore_DB = (), Replicate_Do_Table = (), "
        "Replicate_Ignore_Table = (), Replicate_Wild_Do_Table = (), Replicate_Wild_Ignore_Table = (), "
        "Replicate_Rewrite_DB = ()"
    )
    assert all(rule == "" for _, _, rule, _, _ in replica.ps())
    assert {(c, by) for c, _, _, by, _ in replica.ps()} == {("", CRF), ("ch_1", CRF), ("ch_2", CRF)}
    assert len(replica.ps()) == 21  # three channels x seven types, each set to ()
    assert replica.ps_global() == [(f.keyword, "", CRF) for f in FilterType]
    assert all(value == "" for row in replica.show().values() for value in row.values())
    replica.run("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'fresh'")
    assert [row for row in replica.ps() if row[0] == "fresh"] == []


# ---- seed 002 (WL#7361), section D: SHOW SLAVE STATUS [FOR CHANNEL] ----------------------------------------------


def test_wl7361_show_slave_status() -> None:
    replica, _ = wl7361_b2()
    shown = replica.show(legacy=True)
    assert list(shown) == ["", "ch_1", "ch_2"]
    assert shown["ch_1"] == columns(
        Replicate_Do_DB="db4,db5", Replicate_Wild_Do_Table="db.t1%", Replicate_Wild_Ignore_Table="db.t2%"
    )
    assert shown["ch_2"] == columns(Replicate_Do_DB="db1", Replicate_Wild_Do_Table="db.t1%")
    assert replica.show("ch_2", legacy=True) == {"ch_2": shown["ch_2"]}
    assert replica.fails("SHOW SLAVE STATUS FOR CHANNEL 'ch_3'") == MySQLError(
        3074, "HY000", "Replica channel 'ch_3' does not exist."
    )


# ---- seed 000: the manual's startup example and statements -----------------------------------------------------------


def seed_000() -> tuple[Replica, list[str]]:
    """channel_1 and channel_2 exist before the server starts, with --replicate-do-db=db1
    --replicate-do-db=channel_1:db2 --replicate-do-db=db3 --replicate-ignore-db=db4
    --replicate-ignore-db=channel_2:db5 --replicate-wild-do-table=channel_1:db6.t1%"""
    state, warnings = startup(
        global_options=[(DO_DB, "db1"), (DO_DB, "db3"), (IGNORE_DB, "db4")],
        channel_options={
            "channel_1": [(DO_DB, "db2"), (WILD_DO, "db6.t1%")],
            "channel_2": [(IGNORE_DB, "db5")],
        },
        configured=("channel_1", "channel_2"),
    )
    return Replica(state), warnings


def test_seed_000_startup_example() -> None:
    replica, warnings = seed_000()
    assert warnings == []
    # Global replication filters: do_db=db1,db3; ignore_db=db4
    assert replica.ps_global() == [("REPLICATE_DO_DB", "db1,db3", SO), ("REPLICATE_IGNORE_DB", "db4", SO)]
    shown = replica.show()
    # channel_1: do_db=db2; ignore_db=db4; wild-do-table=db6.t1%
    assert shown["channel_1"] == columns(Replicate_Do_DB="db2", Replicate_Ignore_DB="db4", Replicate_Wild_Do_Table="db6.t1%")
    # channel_2: do_db=db1,db3; ignore_db=db5
    assert shown["channel_2"] == columns(Replicate_Do_DB="db1,db3", Replicate_Ignore_DB="db5")
    assert replica.ps() == [
        ("channel_1", "REPLICATE_DO_DB", "db2", SO_FC, 0),
        ("channel_1", "REPLICATE_IGNORE_DB", "db4", SO, 0),
        ("channel_1", "REPLICATE_WILD_DO_TABLE", "db6.t1%", SO_FC, 0),
        ("channel_2", "REPLICATE_DO_DB", "db1,db3", SO, 0),
        ("channel_2", "REPLICATE_IGNORE_DB", "db5", SO_FC, 0),
    ]


def test_seed_000_statements() -> None:
    """The manual writes `FOR CHANNEL channel_1` unquoted; MySQL's grammar wants a string there,
    so that spelling is a syntax error and the quoted one does the job."""
    replica, _ = seed_000()
    assert replica.fails("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1) FOR CHANNEL channel_1").code == 1064
    replica.run("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db1) FOR CHANNEL 'channel_1'")
    replica.run("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB=((src, dst)) FOR CHANNEL 'channel_1'")
    assert replica.show("channel_1")["channel_1"]["Replicate_Rewrite_DB"] == "(src,dst)"
    replica.run("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB=() FOR CHANNEL 'channel_1'")
    assert replica.show("channel_1")["channel_1"] == columns(
        Replicate_Do_DB="db1", Replicate_Ignore_DB="db4", Replicate_Wild_Do_Table="db6.t1%"
    )
    assert ("channel_1", "REPLICATE_REWRITE_DB", "", CRF_FC, 0) in replica.ps()


def test_seed_000_reset_replica_all_and_recreate() -> None:
    """RESET REPLICA ALL removes the channel filters; recreated channels get the global rules and
    no channel-specific ones."""
    replica, _ = seed_000()
    replica.run("RESET REPLICA ALL")
    assert replica.ps() == []
    replica.run(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 's1' FOR CHANNEL 'channel_1'",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 's2' FOR CHANNEL 'channel_2'",
    )
    shown = replica.show()
    assert shown["channel_1"] == shown["channel_2"] == columns(Replicate_Do_DB="db1,db3", Replicate_Ignore_DB="db4")
    assert {by for *_, by, _ in replica.ps()} == {SO}


def test_seed_000_per_channel_option_for_an_unconfigured_default_channel_is_discarded() -> None:
    """rpl_multi_source_filter step 0: a `:`-prefixed option for an unconfigured default channel."""
    state, warnings = startup(channel_options={"": [(DO_DB, "x")]}, configured=("channel_1",))
    assert warnings == [_discarded("")]
    assert Replica(state).ps() == []
