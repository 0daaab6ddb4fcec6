"""Start-up options and option files (mysql-filter-statements.md, sections 5.1 and 6, and its section 13 checklist)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replfilter.core.filters import (
    EMPTY_FILTERS,
    ConfiguredBy,
    FilterSet,
    FilterType,
    NameCollation,
)
from replfilter.replica.option_files import read_option_file
from replfilter.replica.startup_options import (
    CHANNEL_DOES_NOT_EXIST_WARNING,
    GROUP_REPLICATION_CHANNEL_WARNING,
    StartupError,
    StartupRule,
    apply_startup,
    canonical_option_name,
    collect_startup_settings,
    parse_rule,
    split_command_line_option,
)
from replfilter.replica.state import Channel, ReplicaState, SourceSettings

NOW = 1_700_000_000_123_456
DO_DB, IGNORE_DB = FilterType.DO_DB, FilterType.IGNORE_DB
DO_TABLE, IGNORE_TABLE = FilterType.DO_TABLE, FilterType.IGNORE_TABLE
WILD_DO, WILD_IGNORE = FilterType.WILD_DO_TABLE, FilterType.WILD_IGNORE_TABLE
REWRITE = FilterType.REWRITE_DB


def configured(name: str) -> Channel:
    return Channel(name, SourceSettings(host="10.0.0.1"))


def replica(*channels: Channel, lctn: int = 0) -> ReplicaState:
    ordered = tuple(sorted(channels, key=lambda c: c.name.encode()))
    return ReplicaState(channels=ordered, collation=NameCollation(lctn))


def rules_of(*options: tuple[str, str]) -> list[StartupRule]:
    return [parse_rule(name, value) for name, value in options]


def warning(name: str) -> str:
    return CHANNEL_DOES_NOT_EXIST_WARNING % name


# ------------------------------------------------------------------------------------------------
# parse_rule: one occurrence (checklist: global / ch: / : / ch:a:b, no comma splitting)
# ------------------------------------------------------------------------------------------------


def test_global_rule() -> None:
    rule = parse_rule("replicate-do-db", "db1")
    assert rule == StartupRule(None, DO_DB, "db1")
    assert rule.configured_by is ConfiguredBy.STARTUP_OPTIONS


def test_channel_rule() -> None:
    rule = parse_rule("replicate-do-db", "channel_1:db2")
    assert rule == StartupRule("channel_1", DO_DB, "db2")
    assert rule.configured_by is ConfiguredBy.STARTUP_OPTIONS_FOR_CHANNEL


def test_leading_colon_is_the_default_channel() -> None:
    assert parse_rule("replicate-ignore-db", ":legacy") == StartupRule("", IGNORE_DB, "legacy")
    assert parse_rule("replicate-do-table", ":x.y") == StartupRule("", DO_TABLE, "x.y")


def test_first_colon_splits_and_later_colons_are_literal() -> None:
    assert parse_rule("replicate-do-db", "ch:a:b") == StartupRule("ch", DO_DB, "a:b")


def test_channel_text_is_not_lower_cased() -> None:
    assert parse_rule("replicate-do-db", "Channel_1:db").channel == "Channel_1"


def test_no_comma_splitting() -> None:
    assert parse_rule("replicate-do-db", "a,b") == StartupRule(None, DO_DB, "a,b")
    assert parse_rule("replicate-wild-do-table", "a.%,b.%") == StartupRule(None, WILD_DO, "a.%,b.%")


def test_manual_my_cnf_typo_is_a_global_wild_rule() -> None:
    # The manual's my.cnf example writes db6.channel_1.t1% (no colon): a global pattern.
    assert parse_rule("replicate-wild-do-table", "db6.channel_1.t1%") == StartupRule(
        None, WILD_DO, "db6.channel_1.t1%"
    )


def test_option_name_spellings() -> None:
    for name in ("replicate-do-db", "replicate_do_db", "--replicate-do-db", "loose-replicate-do-db",
                 "--loose_replicate_do_db"):
        assert parse_rule(name, "x").ftype is DO_DB
    assert canonical_option_name("--loose_replicate_wild_do_table") == ("replicate-wild-do-table", True)
    assert canonical_option_name("replicate-do-db") == ("replicate-do-db", False)
    with pytest.raises(StartupError, match=r"unknown option '--replicate-do-database'"):
        parse_rule("replicate-do-database", "x")
    with pytest.raises(StartupError, match=r"unknown option '--Replicate-Do-DB'"):
        parse_rule("Replicate-Do-DB", "x")  # option names are case-sensitive


def test_value_is_required() -> None:
    with pytest.raises(StartupError) as info:
        parse_rule("replicate-do-db", None)
    assert info.value.message == "option '--replicate-do-db' requires an argument"


def test_every_type_and_each_occurrence_is_one_rule() -> None:
    assert [r.ftype for r in rules_of(
        ("replicate-do-db", "a"), ("replicate-ignore-db", "b"), ("replicate-do-table", "c.d"),
        ("replicate-ignore-table", "e.f"), ("replicate-wild-do-table", "g%.h"),
        ("replicate-wild-ignore-table", "i.%"), ("replicate-rewrite-db", "j->k"),
    )] == [DO_DB, IGNORE_DB, DO_TABLE, IGNORE_TABLE, WILD_DO, WILD_IGNORE, REWRITE]


def test_database_names_are_verbatim() -> None:
    assert parse_rule("replicate-do-db", " MyDB ").rule == " MyDB "


# --- table and wild rules need a dot ------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("replicate-do-table", "Could not add do table rule 'nodot'!"),
        ("replicate-ignore-table", "Could not add ignore table rule 'nodot'!"),
        ("replicate-wild-do-table", "Could not add wild do table rule 'nodot'!"),
        ("replicate-wild-ignore-table", "Could not add wild ignore table rule 'nodot'!"),
    ],
)
def test_table_and_wild_rules_without_dot_stop_the_server(option: str, message: str) -> None:
    with pytest.raises(StartupError) as info:
        parse_rule(option, "nodot")
    assert info.value.message == message


def test_per_channel_rule_without_dot_names_the_channel_like_mysqld() -> None:
    # mysqld cut the argument at ':' before printing it, so the message shows the channel.
    with pytest.raises(StartupError) as info:
        parse_rule("replicate-do-table", "ch1:nodot")
    assert info.value.message == "Could not add do table rule 'ch1'!"
    with pytest.raises(StartupError) as info:
        parse_rule("replicate-wild-ignore-table", ":nodot")
    assert info.value.message == "Could not add wild ignore table rule ''!"


def test_a_dot_anywhere_is_enough() -> None:
    assert parse_rule("replicate-wild-do-table", ".").rule == "."
    assert parse_rule("replicate-do-table", "ch:a.b.c") == StartupRule("ch", DO_TABLE, "a.b.c")


# --- rewrite ----------------------------------------------------------------------------------


def test_rewrite_forms() -> None:
    assert parse_rule("replicate-rewrite-db", "a->b").rule == ("a", "b")
    assert parse_rule("replicate-rewrite-db", "a -> b").rule == ("a", "b")
    assert parse_rule("replicate-rewrite-db", "a->b->c").rule == ("a", "b->c")  # first -> splits
    # Only FROM's trailing and TO's leading whitespace go.
    assert parse_rule("replicate-rewrite-db", " a\t->\tb ").rule == (" a", "b ")
    assert parse_rule("replicate-rewrite-db", "channel_1:src->dst") == StartupRule(
        "channel_1", REWRITE, ("src", "dst")
    )
    assert parse_rule("replicate-rewrite-db", "ch:a:b->c").rule == ("a:b", "c")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a-b", "Bad syntax in replicate-rewrite-db - missing '->'!"),
        ("ch:a", "Bad syntax in replicate-rewrite-db - missing '->'!"),
        ("->b", "Bad syntax in replicate-rewrite-db - empty FROM db!"),
        ("  ->b", "Bad syntax in replicate-rewrite-db - empty FROM db!"),
        ("a->", "Bad syntax in replicate-rewrite-db - empty TO db!"),
        ("a->   ", "Bad syntax in replicate-rewrite-db - empty TO db!"),
        ("ch:->b", "Bad syntax in replicate-rewrite-db - empty FROM db!"),
    ],
)
def test_rewrite_errors(value: str, message: str) -> None:
    with pytest.raises(StartupError) as info:
        parse_rule("replicate-rewrite-db", value)
    assert info.value.message == message


# --- properties -----------------------------------------------------------------------------------

no_colon = st.text(st.characters(blacklist_characters=":", blacklist_categories=("Cs",)))


@given(no_colon)
def test_value_without_colon_is_global_and_verbatim(value: str) -> None:
    for option in ("replicate-do-db", "replicate-ignore-db"):
        assert parse_rule(option, value) == StartupRule(None, FilterType.from_keyword(option.replace("-", "_")), value)


@given(no_colon, st.text(st.characters(blacklist_categories=("Cs",))))
def test_channel_prefix_round_trips(channel: str, rest: str) -> None:
    rule = parse_rule("replicate-ignore-db", f"{channel}:{rest}")
    assert (rule.channel, rule.rule) == (channel, rest)
    dotted = parse_rule("replicate-wild-do-table", f"{channel}:{rest}.x")
    assert (dotted.channel, dotted.rule) == (channel, f"{rest}.x")


# ------------------------------------------------------------------------------------------------
# apply_startup (mysql-filter-statements.md, 5.1, 5.2 and 6)
# ------------------------------------------------------------------------------------------------


def rules_dict(filters: FilterSet) -> dict[FilterType, tuple[object, ...]]:
    return {ftype: slot.rules for ftype, slot in filters.items() if slot.is_set}


def test_seed_000_startup_example() -> None:
    """Manual: channels channel_1 and channel_2 exist; the six options of the example."""
    state = replica(Channel(""), configured("channel_1"), configured("channel_2"))
    rules = rules_of(
        ("replicate-do-db", "db1"),
        ("replicate-do-db", "channel_1:db2"),
        ("replicate-do-db", "db3"),
        ("replicate-ignore-db", "db4"),
        ("replicate-ignore-db", "channel_2:db5"),
        ("replicate-wild-do-table", "channel_1:db6.t1%"),
    )
    new, warnings = apply_startup(state, rules, NOW)
    assert warnings == []
    assert rules_dict(new.global_filters) == {DO_DB: ("db1", "db3"), IGNORE_DB: ("db4",)}
    ch1 = new.channel("channel_1").filters  # type: ignore[union-attr]
    assert rules_dict(ch1) == {DO_DB: ("db2",), IGNORE_DB: ("db4",), WILD_DO: ("db6.t1%",)}
    ch2 = new.channel("channel_2").filters  # type: ignore[union-attr]
    assert rules_dict(ch2) == {DO_DB: ("db1", "db3"), IGNORE_DB: ("db5",)}
    assert new.channel("").filters == EMPTY_FILTERS  # type: ignore[union-attr]


def test_configured_by_global_per_channel_and_copied() -> None:
    """Spec 5.2 example: own types keep *_FOR_CHANNEL, copied types show the global's value."""
    state = replica(Channel(""), configured("ch1"))
    rules = rules_of(
        ("replicate-do-db", "g1"),
        ("replicate-ignore-table", "gdb.t"),
        ("replicate-do-db", "ch1:c1"),
    )
    new, warnings = apply_startup(state, rules, NOW)
    assert warnings == []
    glob = new.global_filters
    assert glob[DO_DB].configured_by is ConfiguredBy.STARTUP_OPTIONS
    assert glob[IGNORE_TABLE].configured_by is ConfiguredBy.STARTUP_OPTIONS
    ch1 = new.channel("ch1").filters  # type: ignore[union-attr]
    assert ch1.rules(DO_DB) == ("c1",)  # global g1 does not reach ch1
    assert ch1[DO_DB].configured_by is ConfiguredBy.STARTUP_OPTIONS_FOR_CHANNEL
    assert ch1.rules(IGNORE_TABLE) == ("gdb.t",)
    assert ch1[IGNORE_TABLE].configured_by is ConfiguredBy.STARTUP_OPTIONS
    for slot in (ch1[DO_DB], ch1[IGNORE_TABLE], glob[DO_DB]):
        assert (slot.active_since, slot.counter) == (NOW, 0)
    assert not ch1[IGNORE_DB].is_set and not glob[REWRITE].is_set


def test_repeated_options_add_up_in_order_with_duplicates() -> None:
    state = replica(configured("c"))
    new, _ = apply_startup(state, rules_of(
        ("replicate-do-db", "b"), ("replicate-do-db", "a"), ("replicate-do-db", "b"),
        ("replicate-rewrite-db", "x->y"), ("replicate-rewrite-db", "x->z"),
        ("replicate-wild-ignore-table", "c:%.t"), ("replicate-wild-ignore-table", "c:%.t"),
    ), NOW)
    assert new.global_filters.rules(DO_DB) == ("b", "a", "b")
    assert new.global_filters.rules(REWRITE) == (("x", "y"), ("x", "z"))
    assert new.channel("c").filters.rules(WILD_IGNORE) == ("%.t", "%.t")  # type: ignore[union-attr]


@pytest.mark.parametrize(("lctn", "expected"), [(0, ("DB1.T1", "db1.t1")), (1, ("DB1.T1",)), (2, ("DB1.T1",))])
def test_table_rules_collapse_under_the_collation(lctn: int, expected: tuple[str, ...]) -> None:
    state = replica(configured("c"), lctn=lctn)
    new, _ = apply_startup(state, rules_of(
        ("replicate-do-table", "DB1.T1"), ("replicate-do-table", "db1.t1"),
        ("replicate-ignore-table", "c:DB1.T1"), ("replicate-ignore-table", "c:db1.t1"),
    ), NOW)
    assert new.global_filters.rules(DO_TABLE) == expected  # verbatim, first spelling kept
    assert new.channel("c").filters.rules(IGNORE_TABLE) == expected  # type: ignore[union-attr]


def test_group_replication_channel_rules_are_discarded_with_the_gr_warning() -> None:
    state = replica(Channel(""), configured("group_replication_applier"), configured("ch1"))
    new, warnings = apply_startup(state, rules_of(
        ("replicate-do-db", "group_replication_recovery:x"),
        ("replicate-do-db", "group_replication_applier:y"),
        ("replicate-do-db", "g"),
    ), NOW)
    assert warnings == [
        GROUP_REPLICATION_CHANNEL_WARNING % "group_replication_applier",
        GROUP_REPLICATION_CHANNEL_WARNING % "group_replication_recovery",
    ]
    assert warnings[0] == (
        "There are per-channel replication filter(s) configured for group replication channel "
        "'group_replication_applier' which is disallowed. The filter(s) have been discarded."
    )
    # A GR channel never gets filters, not even the global copy.
    assert new.channel("group_replication_applier").filters == EMPTY_FILTERS  # type: ignore[union-attr]
    assert new.channel("ch1").filters.rules(DO_DB) == ("g",)  # type: ignore[union-attr]


def test_unknown_channel_rules_are_discarded_with_the_does_not_exist_warning() -> None:
    state = replica(Channel(""), configured("ch1"))
    new, warnings = apply_startup(state, rules_of(
        ("replicate-do-db", "zz:x"), ("replicate-ignore-db", "nochannel:y"),
    ), NOW)
    assert warnings == [warning("nochannel"), warning("zz")]  # channel-name order
    assert warnings[0] == (
        "There are per-channel replication filter(s) configured for channel 'nochannel' which "
        "does not exist. The filter(s) have been discarded."
    )
    assert new.channel("ch1").filters == EMPTY_FILTERS  # type: ignore[union-attr]
    assert new.global_filters == EMPTY_FILTERS


def test_mixed_case_channel_prefix_does_not_attach() -> None:
    state = replica(configured("ch1"))
    new, warnings = apply_startup(state, rules_of(("replicate-do-db", "CH1:x")), NOW)
    assert warnings == [warning("CH1")]
    assert new.channel("ch1").filters == EMPTY_FILTERS  # type: ignore[union-attr]
    # GR names are compared byte for byte too: a capitalised GR name is just unknown.
    _, warnings = apply_startup(state, rules_of(("replicate-do-db", "Group_Replication_Applier:x")), NOW)
    assert warnings == [warning("Group_Replication_Applier")]


def test_default_channel_unconfigured_rpl_multi_source_filter_step_0() -> None:
    """An option for '' on a replica whose default channel exists but is not configured."""
    state = replica(Channel(""), configured("channel_1"))
    new, warnings = apply_startup(state, rules_of(
        ("replicate-do-db", ":db_default"), ("replicate-do-db", "global_db"),
    ), NOW)
    assert warnings == [
        "There are per-channel replication filter(s) configured for channel '' which does not "
        "exist. The filter(s) have been discarded."
    ]
    default = new.channel("").filters  # type: ignore[union-attr]
    assert default == EMPTY_FILTERS and not default.table_rules_on  # brand-new, no P_S rows
    assert new.channel("channel_1").filters.rules(DO_DB) == ("global_db",)  # type: ignore[union-attr]


def test_unconfigured_channel_without_rules_gets_nothing_and_no_warning() -> None:
    state = replica(Channel(""), Channel("idle"))
    new, warnings = apply_startup(state, rules_of(("replicate-do-db", "g")), NOW)
    assert warnings == []
    assert all(c.filters == EMPTY_FILTERS for c in new.channels)
    assert new.global_filters.rules(DO_DB) == ("g",)


def test_warning_order_gr_then_existing_then_unknown() -> None:
    state = replica(Channel(""), configured("b"))
    _, warnings = apply_startup(state, rules_of(
        ("replicate-do-db", "a:x"), (("replicate-do-db", ":y")),
        ("replicate-do-db", "group_replication_recovery:z"),
    ), NOW)
    assert warnings == [
        GROUP_REPLICATION_CHANNEL_WARNING % "group_replication_recovery",
        warning(""),
        warning("a"),
    ]


def test_long_channel_names_are_cut_at_192_bytes_in_warnings() -> None:
    name = "x" * 200
    _, warnings = apply_startup(replica(Channel("")), rules_of(("replicate-do-db", f"{name}:d")), NOW)
    assert warnings == [warning("x" * 192)]


def test_startup_rebuilds_filters_nothing_persists() -> None:
    stale = EMPTY_FILTERS.add_rule(DO_DB, "old", ConfiguredBy.CHANGE_REPLICATION_FILTER, 1, ReplicaState().collation)
    state = replica(Channel(""), Channel("c", SourceSettings(host="h"), io_running=True, filters=stale))
    state = state.with_global_filters(stale)
    new, _ = apply_startup(state, [], NOW)
    assert new.global_filters == EMPTY_FILTERS
    channel = new.channel("c")
    assert channel is not None and channel.filters == EMPTY_FILTERS
    assert channel.io_running and channel.source.host == "h"  # the rest of the channel is kept


def test_per_channel_table_rules_turn_table_rules_on() -> None:
    new, _ = apply_startup(replica(configured("c")), rules_of(("replicate-wild-do-table", "c:d.%")), NOW)
    assert new.channel("c").filters.table_rules_on  # type: ignore[union-attr]


# ------------------------------------------------------------------------------------------------
# Option files
# ------------------------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o644)
    return path


def test_spec_my_cnf_example(tmp_path: Path) -> None:
    cnf = write(tmp_path / "my.cnf", (
        "[mysqld]\n"
        "replicate-do-db = db1                      # global\n"
        "replicate-do-db = channel_1:db2            # only channel_1\n"
        "replicate-ignore-db = :legacy              # only the default channel ''\n"
        "replicate-wild-ignore-table = channel_2:db%.tmp%\n"
        "replicate-rewrite-db = channel_1:src->dst\n"
        "replicate-do-table = channel_3:db3.t1\n"
    ))
    pairs = read_option_file(cnf)
    assert pairs == [
        ("replicate-do-db", "db1"),
        ("replicate-do-db", "channel_1:db2"),
        ("replicate-ignore-db", ":legacy"),
        ("replicate-wild-ignore-table", "channel_2:db%.tmp%"),
        ("replicate-rewrite-db", "channel_1:src->dst"),
        ("replicate-do-table", "channel_3:db3.t1"),
    ]
    settings = collect_startup_settings(pairs)
    assert [(r.channel, r.rule) for r in settings.rules] == [
        (None, "db1"), ("channel_1", "db2"), ("", "legacy"), ("channel_2", "db%.tmp%"),
        ("channel_1", ("src", "dst")), ("channel_3", "db3.t1"),
    ]


def test_anchor_file_valueless_repeated_loose_quoted_include(tmp_path: Path) -> None:
    """The file ecosystem-anchors 4.5 fed to configparser and friends, which all got it wrong."""
    write(tmp_path / "extra.cnf", "[mysqld]\nreplicate-ignore-db = extra_db\n")
    cnf = write(tmp_path / "my.cnf", (
        "[mysqld]\n"
        "skip-replica-start\n"
        "replicate-do-db = db1\n"
        "replicate-do-db = db2\n"
        "loose-replicate-wild-do-table = db%.t\n"
        'replicate-rewrite-db = "from_db->to_db"\n'
        f"!include {tmp_path / 'extra.cnf'}\n"
    ))
    pairs = read_option_file(cnf)
    assert pairs == [
        ("skip-replica-start", None),
        ("replicate-do-db", "db1"),
        ("replicate-do-db", "db2"),
        ("loose-replicate-wild-do-table", "db%.t"),
        ("replicate-rewrite-db", "from_db->to_db"),
        ("replicate-ignore-db", "extra_db"),
    ]
    settings = collect_startup_settings(pairs)
    assert [(r.ftype, r.rule) for r in settings.rules] == [
        (DO_DB, "db1"), (DO_DB, "db2"), (WILD_DO, "db%.t"), (REWRITE, ("from_db", "to_db")),
        (IGNORE_DB, "extra_db"),
    ]


def test_groups_read_and_ignored(tmp_path: Path) -> None:
    cnf = write(tmp_path / "my.cnf", (
        "[client]\nreplicate-do-db = client_only\n"
        "[MySQLd]\nreplicate-do-db = a\n"
        "[server]\nreplicate-do-db = b\n"
        "[mysqld-8.4]\nreplicate-do-db = c\n"
        "[mysqld-8.0]\nreplicate-do-db = old\n"
        "[mysqld_safe]\nreplicate-do-db = safe\n"
        "[mysqld  ]   # trailing text after ] is ignored\nreplicate-do-db = d\n"
    ))
    assert [v for _, v in read_option_file(cnf)] == ["a", "b", "c", "d"]
    assert [v for _, v in read_option_file(cnf, groups=("client",))] == ["client_only"]


def test_comments_quotes_and_escapes(tmp_path: Path) -> None:
    cnf = write(tmp_path / "my.cnf", (
        "# a comment\n"
        "; another comment\n"
        "   \n"
        "[mysqld]\n"
        "   ; indented comment\n"
        "replicate-do-db = plain   # trailing comment\n"
        'replicate-do-db = "quoted # not a comment"\n'
        "replicate-do-db = 'single'\n"
        "replicate-do-db = \"unbalanced'\n"
        'replicate-do-db = "\n'
        "replicate-do-db = a;b\n"
        "replicate-do-db = tab\\there\\sspace\\\\back\n"
        "replicate-wild-do-table = db\\_1.%\n"
        "replicate-do-db = trailing\\\n"
        "replicate-do-db =\n"
        "replicate_ignore_db=  spaced value  \n"
    ))
    assert read_option_file(cnf) == [
        ("replicate-do-db", "plain"),
        ("replicate-do-db", "quoted # not a comment"),
        ("replicate-do-db", "single"),
        ("replicate-do-db", "\"unbalanced'"),
        ("replicate-do-db", '"'),
        ("replicate-do-db", "a;b"),
        ("replicate-do-db", "tab\there space\\back"),
        ("replicate-wild-do-table", "db\\_1.%"),  # unknown escape: backslash kept
        ("replicate-do-db", "trailing\\"),
        ("replicate-do-db", ""),
        ("replicate_ignore_db", "spaced value"),
    ]


def test_crlf_line_endings(tmp_path: Path) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_bytes(b"[mysqld]\r\nreplicate-do-db = a\r\n")
    cnf.chmod(0o644)
    assert read_option_file(cnf) == [("replicate-do-db", "a")]


def test_includedir_reads_only_cnf_in_sorted_order(tmp_path: Path) -> None:
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    write(conf_d / "b.cnf", "[mysqld]\nreplicate-do-db = b\n")
    write(conf_d / "a.cnf", "[mysqld]\nreplicate-do-db = a\n")
    write(conf_d / "c.ini", "[mysqld]\nreplicate-do-db = ini\n")
    write(conf_d / "d.cnf.bak", "[mysqld]\nreplicate-do-db = bak\n")
    write(conf_d / "B.cnf", "[mysqld]\nreplicate-do-db = upper\n")
    (conf_d / "sub.cnf").mkdir()
    cnf = write(tmp_path / "my.cnf", (
        "[mysqld]\nreplicate-do-db = first\n"
        f"!includedir {conf_d}\n"
        "replicate-do-db = last\n"
    ))
    assert [v for _, v in read_option_file(cnf)] == ["first", "upper", "a", "b", "last"]


def test_included_file_needs_its_own_group_and_keeps_the_includer_group(tmp_path: Path) -> None:
    write(tmp_path / "inc.cnf", "[client]\nreplicate-do-db = client_only\n")
    cnf = write(tmp_path / "my.cnf", f"[mysqld]\n!include {tmp_path / 'inc.cnf'}\nreplicate-do-db = after\n")
    assert read_option_file(cnf) == [("replicate-do-db", "after")]
    write(tmp_path / "nogroup.cnf", "replicate-do-db = x\n")
    cnf2 = write(tmp_path / "my2.cnf", f"[mysqld]\n!include {tmp_path / 'nogroup.cnf'}\n")
    with pytest.raises(StartupError) as info:
        read_option_file(cnf2)
    assert info.value.message == (
        f"Found option without preceding group in config file {tmp_path / 'nogroup.cnf'} at line 1."
    )
    assert (info.value.path, info.value.line) == (str(tmp_path / "nogroup.cnf"), 1)


def test_relative_include_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "inc.cnf", "[mysqld]\nreplicate-do-db = inc\n")
    elsewhere = tmp_path / "etc"
    elsewhere.mkdir()
    cnf = write(elsewhere / "my.cnf", "[mysqld]\n!include inc.cnf\n")
    monkeypatch.chdir(tmp_path)
    assert read_option_file(cnf) == [("replicate-do-db", "inc")]


def test_unknown_directives_are_ignored(tmp_path: Path) -> None:
    cnf = write(tmp_path / "my.cnf", "!foo bar\n[mysqld]\n!includefoo x\nreplicate-do-db = a\n")
    assert read_option_file(cnf) == [("replicate-do-db", "a")]


def test_missing_defaults_file(tmp_path: Path) -> None:
    with pytest.raises(StartupError) as info:
        read_option_file(tmp_path / "nope.cnf")
    assert info.value.message == f"Failed to open required defaults file: {tmp_path / 'nope.cnf'}"


def test_a_missing_include_is_skipped_as_my_default_cc_skips_it(tmp_path: Path) -> None:
    """search_default_file_with_ext returns 1 ("Ignore wrong files") for a file it cannot open,
    and the ``!include`` that called it drops the result: the rest of the file still counts."""
    cnf = write(tmp_path / "my.cnf", f"[mysqld]\n\n!include {tmp_path / 'gone.cnf'}\n!include {tmp_path}\nreplicate-do-db = a\n")
    assert read_option_file(cnf) == [("replicate-do-db", "a")]


def test_missing_includedir_is_an_error(tmp_path: Path) -> None:
    cnf = write(tmp_path / "my.cnf", f"!includedir {tmp_path / 'gone'}\n")
    with pytest.raises(StartupError) as info:
        read_option_file(cnf)
    assert info.value.message == (
        f"Can't read dir of '{tmp_path / 'gone'}' (OS errno 2 - No such file or directory) "
        f"in config file {cnf} at line 1."
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[mysqld]\n!include   \n", "Wrong '!include' directive in config file {f} at line 2."),
        ("!includedir\n", "Wrong '!includedir' directive in config file {f} at line 1."),
        ("[mysqld\nx=1\n", "Wrong group definition in config file {f} at line 1."),
        ("# c\nreplicate-do-db = a\n", "Found option without preceding group in config file {f} at line 2."),
    ],
)
def test_bad_lines(tmp_path: Path, text: str, message: str) -> None:
    cnf = write(tmp_path / "my.cnf", text)
    with pytest.raises(StartupError) as info:
        read_option_file(cnf)
    assert info.value.message == message.format(f=cnf)


def test_invalid_utf8_names_file_and_line(tmp_path: Path) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_bytes(b"[mysqld]\nreplicate-do-db = \xff\n")
    cnf.chmod(0o644)
    with pytest.raises(StartupError) as info:
        read_option_file(cnf)
    assert info.value.message == f"Invalid UTF-8 in config file {cnf} at line 2."


def test_world_writable_files_are_ignored_with_mysqls_warning(tmp_path: Path) -> None:
    inc = write(tmp_path / "inc.cnf", "[mysqld]\nreplicate-do-db = ignored\n")
    os.chmod(inc, 0o666)
    cnf = write(tmp_path / "my.cnf", f"[mysqld]\nreplicate-do-db = kept\n!include {inc}\n")
    warnings: list[str] = []
    assert read_option_file(cnf, warnings=warnings) == [("replicate-do-db", "kept")]
    assert warnings == [f"World-writable config file '{inc}' is ignored."]


def test_include_recursion_stops_after_ten_levels(tmp_path: Path) -> None:
    cnf = tmp_path / "loop.cnf"
    write(cnf, f"[mysqld]\nreplicate-do-db = x\n!include {cnf}\n")
    warnings: list[str] = []
    pairs = read_option_file(cnf, warnings=warnings)
    assert len(pairs) == 11  # the file itself and ten nested copies
    assert warnings == [
        f"Skipping '!include {cnf}' directive as maximum include recursion level was reached "
        f"in file {cnf} at line 3."
    ]


# ------------------------------------------------------------------------------------------------
# collect_startup_settings: command line + option files, lower_case_table_names
# ------------------------------------------------------------------------------------------------


def test_files_come_before_the_command_line() -> None:
    settings = collect_startup_settings(
        [("replicate-do-db", "from_file")],
        [split_command_line_option("--replicate-do-db=from_cli")],
    )
    assert [r.rule for r in settings.rules] == ["from_file", "from_cli"]


def test_lower_case_table_names_last_one_wins() -> None:
    settings = collect_startup_settings(
        [("lower_case_table_names", "1")], [("--lower-case-table-names", "2")]
    )
    assert settings.lower_case_table_names == 2
    assert collect_startup_settings().lower_case_table_names == 0
    assert collect_startup_settings([("loose-lower-case-table-names", "1")]).lower_case_table_names == 1


@pytest.mark.parametrize("value", ["3", "-1", "one", "", " 1", "01"])
def test_lower_case_table_names_invalid(value: str) -> None:
    with pytest.raises(StartupError) as info:
        collect_startup_settings(command_line=[("lower-case-table-names", value)])
    assert info.value.message == (
        f"Invalid value '{value}' for lower_case_table_names: it must be 0, 1 or 2."
    )
    with pytest.raises(StartupError, match="requires an argument"):
        collect_startup_settings([("lower_case_table_names", None)])


def test_unknown_options_in_files_are_ignored() -> None:
    settings = collect_startup_settings([
        ("datadir", "/var/lib/mysql"), ("server-id", "2"), ("skip-replica-start", None),
        ("replicate-same-server-id", "0"), ("loose-group_replication_start_on_boot", "OFF"),
        ("replicate-do-db", "a"),
    ])
    assert [r.rule for r in settings.rules] == ["a"] and settings.warnings == ()


def test_misspelt_replicate_option_in_a_file_is_an_error_unless_loose() -> None:
    with pytest.raises(StartupError) as info:
        collect_startup_settings([("replicate-do-dbs", "a")])
    assert info.value.message == "unknown variable 'replicate-do-dbs=a'"
    assert collect_startup_settings([("loose-replicate-do-dbs", "a")]).rules == ()


def test_command_line_accepts_only_replicate_options_and_lctn() -> None:
    with pytest.raises(StartupError) as info:
        collect_startup_settings(command_line=[split_command_line_option("--server-id=2")])
    assert info.value.message == "unknown variable 'server-id=2'"
    with pytest.raises(StartupError) as info:
        collect_startup_settings(command_line=[split_command_line_option("--skip-log-bin")])
    assert info.value.message == "unknown option '--skip-log-bin'"
    settings = collect_startup_settings(command_line=[("--loose-server-id", "2")])
    assert settings.warnings == ("unknown variable 'loose-server-id=2'",)


def test_replicate_option_errors_surface_from_collect() -> None:
    with pytest.raises(StartupError, match=r"Could not add do table rule 'nodot'!"):
        collect_startup_settings(command_line=[("--replicate-do-table", "nodot")])
    with pytest.raises(StartupError, match=r"requires an argument"):
        collect_startup_settings([("replicate-do-db", None)])


def test_split_command_line_option() -> None:
    assert split_command_line_option("--replicate-do-db=a=b") == ("replicate-do-db", "a=b")
    assert split_command_line_option("--replicate-do-db=") == ("replicate-do-db", "")
    assert split_command_line_option("--skip-replica-start") == ("skip-replica-start", None)


def test_end_to_end_file_then_cli_then_startup(tmp_path: Path) -> None:
    cnf = write(tmp_path / "my.cnf", (
        "[mysqld]\nlower_case_table_names = 1\n"
        "replicate-do-table = App.Users\nreplicate-do-table = ch1:app.users\n"
    ))
    settings = collect_startup_settings(
        read_option_file(cnf), [split_command_line_option("--replicate-do-table=APP.USERS")]
    )
    state = replica(Channel(""), configured("ch1"), lctn=settings.lower_case_table_names)
    new, warnings = apply_startup(state, settings.rules, NOW)
    assert warnings == []
    assert new.global_filters.rules(DO_TABLE) == ("App.Users",)
    assert new.channel("ch1").filters.rules(DO_TABLE) == ("app.users",)  # type: ignore[union-attr]
