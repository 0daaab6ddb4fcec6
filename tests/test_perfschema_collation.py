"""The filter tables' text columns compare as MySQL 8.4 compares them: under utf8mb4_0900_ai_ci
(the schema's ``CHARACTER SET utf8mb4`` default, ``sql/dd/performance_schema/init.cc``), which is
case- and accent-insensitive and NO PAD: trailing spaces count. ORDER BY sorts by the same key,
an ENUM by its member's index; MIN/MAX pick by the collation. Both paths (the grammar's own
SELECT and sqlglot's) agree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.filters import ConfiguredBy, FilterType, NameCollation
from replfilter.dialect import ast
from replfilter.dialect.parser import parse_statement
from replfilter.replica.perfschema_collation import collation_key
from replfilter.replica.state import ReplicaState
from replfilter.server.session import Session

from perfschema_sessions import channels_with_do_db

TABLE = "performance_schema.replication_applier_filters"
RULES = {"ch": "Bé", "x": "a"}


@pytest.fixture(scope="module")
def session() -> Session:
    session = channels_with_do_db(RULES)
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (C) FOR CHANNEL 'x'")
    return session


def _rows(session: Session, sql: str):
    return session.execute_text(sql.format(t=TABLE)).rows  # type: ignore[union-attr]


OWN_AND_SQLGLOT = ["", " AND COUNTER >= 0"]  # the second is beyond the grammar: sqlglot's path


@pytest.mark.parametrize("extra", OWN_AND_SQLGLOT)
@pytest.mark.parametrize("where, channels", [
    ("CHANNEL_NAME = 'CH'", ("ch",)),  # case-insensitive
    ("CHANNEL_NAME = 'ch '", ()),  # NO PAD: the trailing space counts
    ("CHANNEL_NAME <> 'ch '", ("ch", "x", "x")),
    ("FILTER_RULE = 'be'", ("ch",)),  # accent-insensitive
    ("FILTER_RULE = 'BE'", ("ch",)),
    ("FILTER_RULE = 'bé '", ()),
    ("CONFIGURED_BY = 'change_replication_filter_for_channel' AND FILTER_RULE = 'c'", ("x",)),
])
def test_where_compares_under_the_columns_collation(session: Session, where: str, channels: tuple, extra: str) -> None:
    sql = f"SELECT CHANNEL_NAME FROM {{t}} WHERE {where}{extra}"
    assert isinstance(parse_statement(sql.format(t=TABLE)), ast.SelectPerformanceSchema) == (not extra)
    assert _rows(session, sql) == tuple((c,) for c in channels)


@pytest.mark.parametrize("where", ["FILTER_RULE LIKE 'B%'", "FILTER_RULE IN ('be', 'zz')", "FILTER_RULE > 'a'"])
def test_other_operators_use_the_collation_too(session: Session, where: str) -> None:
    assert _rows(session, f"SELECT FILTER_RULE FROM {{t}} WHERE {where} AND FILTER_RULE < 'c'") == (("Bé",),)


@pytest.mark.parametrize("extra", OWN_AND_SQLGLOT)
def test_order_by_sorts_by_the_collation(session: Session, extra: str) -> None:
    where = f" WHERE CHANNEL_NAME <> ''{extra}"
    assert _rows(session, f"SELECT FILTER_RULE FROM {{t}}{where} ORDER BY FILTER_RULE") == (("a",), ("Bé",), ("C",))
    assert _rows(session, f"SELECT FILTER_RULE FROM {{t}}{where} ORDER BY FILTER_RULE DESC") == (("C",), ("Bé",), ("a",))


def test_order_by_an_alias_or_a_position(session: Session) -> None:
    assert _rows(session, "SELECT FILTER_RULE AS r FROM {t} WHERE COUNTER >= 0 ORDER BY r") == (("a",), ("Bé",), ("C",))
    assert _rows(session, "SELECT FILTER_RULE FROM {t} WHERE COUNTER >= 0 ORDER BY 1 DESC") == (("C",), ("Bé",), ("a",))


@pytest.mark.parametrize("extra", OWN_AND_SQLGLOT)
def test_an_enum_sorts_by_its_members_index(extra: str) -> None:
    """STARTUP_OPTIONS (1) before CHANGE_REPLICATION_FILTER_FOR_CHANNEL (4): the table's order,
    not the alphabet's."""
    state = ReplicaState.fresh()
    state = state.with_global_filters(state.global_filters.add_rule(
        FilterType.IGNORE_DB, "g", ConfiguredBy.STARTUP_OPTIONS, 1, NameCollation()))
    replica = Session(state)
    replica.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'e'")
    replica.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d) FOR CHANNEL 'e'")
    rows = replica.execute_text(f"SELECT CONFIGURED_BY FROM {TABLE} WHERE CHANNEL_NAME = 'e'{extra} "
                                "ORDER BY CONFIGURED_BY").rows  # type: ignore[union-attr]
    assert rows == (("STARTUP_OPTIONS",), ("CHANGE_REPLICATION_FILTER_FOR_CHANNEL",))


def test_min_and_max_pick_by_the_collation(session: Session) -> None:
    assert _rows(session, "SELECT MIN(FILTER_RULE), MAX(FILTER_RULE) FROM {t}") == (("a", "C"),)


@settings(max_examples=60, deadline=None)
@given(st.text(st.sampled_from("aAbBéÉeE C"), max_size=4))
def test_both_paths_match_what_the_collation_says(session: Session, text: str) -> None:
    literal = text.replace("'", "''")
    table = [("ch", "Bé"), ("x", "a"), ("x", "C")]  # the rows' order: channel, then filter type
    wanted = tuple((c,) for c, rule in table if collation_key(rule) == collation_key(text))
    own = _rows(session, f"SELECT CHANNEL_NAME FROM {{t}} WHERE FILTER_RULE = '{literal}'")
    other = _rows(session, f"SELECT CHANNEL_NAME FROM {{t}} WHERE FILTER_RULE = '{literal}' AND COUNTER >= 0")
    assert own == other == wanted


@pytest.fixture(scope="module")
def cases() -> Session:
    session = Session()
    for channel, rule in (("ch", "Db1"), ("x", "db1"), ("y", "b")):
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{channel}'")
        session.execute_text(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = ({rule}) FOR CHANNEL '{channel}'")
    return session


@pytest.mark.parametrize("sql, rows", [
    ("SELECT FILTER_RULE, COUNT(*) FROM {t} GROUP BY FILTER_RULE ORDER BY FILTER_RULE", (("b", 1), ("Db1", 2))),
    ("SELECT FILTER_RULE AS r, COUNT(*) FROM {t} GROUP BY FILTER_RULE ORDER BY r DESC", (("Db1", 2), ("b", 1))),
    ("SELECT FILTER_RULE, COUNT(*) FROM {t} GROUP BY FILTER_RULE HAVING FILTER_RULE = 'DB1'", (("Db1", 2),)),
    ("SELECT COUNT(*) FROM {t} GROUP BY FILTER_RULE HAVING COUNT(*) > 1", ((2,),)),
    ("SELECT UPPER(FILTER_RULE) AS u, COUNT(*) FROM {t} GROUP BY FILTER_RULE ORDER BY u", (("B", 1), ("DB1", 2))),
])
def test_group_by_a_text_column_groups_by_the_collation(cases: Session, sql: str, rows: tuple) -> None:
    """``db1`` and ``Db1`` are one group (the first row's value shown), as the server groups
    under utf8mb4_0900_ai_ci."""
    assert _rows(cases, sql) == rows
