"""ONLY_FULL_GROUP_BY on the filter tables as MySQL 8.4 checks it (``Group_check::check_query``,
``sql/aggregate_check.cc``): 1140 without GROUP BY, 1055 with it (SQLSTATE 42000), the column by
``full_name()``, the item by its number and clause."""

from __future__ import annotations

import pytest

from replfilter.core.errors import MySQLError
from replfilter.server.session import Session

from perfschema_sessions import channels_with_do_db

TABLE = "performance_schema.replication_applier_filters"
GLOBAL = "performance_schema.replication_applier_global_filters"
MIX = ("In aggregated query without GROUP BY, expression #{n} of {place} contains nonaggregated column "
       "'{column}'; this is incompatible with sql_mode=only_full_group_by")
WRONG = ("Expression #{n} of {place} is not in GROUP BY clause and contains nonaggregated column '{column}' "
         "which is not functionally dependent on columns in GROUP BY clause; this is incompatible with "
         "sql_mode=only_full_group_by")


@pytest.fixture(scope="module")
def session() -> Session:
    session = channels_with_do_db({"ch": "db1", "x": "db2"})
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (g)")
    return session


@pytest.mark.parametrize("sql, code, n, place, column", [
    (f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE}", 1140, 1, "SELECT list", f"{TABLE}.CHANNEL_NAME"),
    (f"SELECT channel_name, COUNT(*) FROM {TABLE}", 1140, 1, "SELECT list", f"{TABLE}.CHANNEL_NAME"),
    (f"SELECT COUNT(*), COUNTER + 1 FROM {TABLE}", 1140, 2, "SELECT list", f"{TABLE}.COUNTER"),
    (f"SELECT *, COUNT(*) FROM {TABLE}", 1140, 1, "SELECT list", f"{TABLE}.CHANNEL_NAME"),
    (f"SELECT COUNT(*), f.FILTER_NAME FROM {TABLE} f", 1140, 2, "SELECT list", "performance_schema.f.FILTER_NAME"),
    (f"SELECT FILTER_RULE, MAX(ACTIVE_SINCE) FROM {GLOBAL}", 1140, 1, "SELECT list", f"{GLOBAL}.FILTER_RULE"),
    (f"SELECT CHANNEL_NAME, FILTER_NAME, COUNT(*) FROM {TABLE} GROUP BY CHANNEL_NAME", 1055, 2, "SELECT list",
     f"{TABLE}.FILTER_NAME"),
    (f"SELECT CHANNEL_NAME FROM {TABLE} GROUP BY FILTER_NAME", 1055, 1, "SELECT list", f"{TABLE}.CHANNEL_NAME"),
    (f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} GROUP BY CHANNEL_NAME ORDER BY CHANNEL_NAME, FILTER_NAME", 1055, 2,
     "ORDER BY clause", f"{TABLE}.FILTER_NAME"),
])
def test_nonaggregated_column(session: Session, sql: str, code: int, n: int, place: str, column: str) -> None:
    with pytest.raises(MySQLError) as raised:
        session.execute_text(sql)
    text = (MIX if code == 1140 else WRONG).format(n=n, place=place, column=column)
    assert (raised.value.code, raised.value.sqlstate, raised.value.message) == (code, "42000", text)


@pytest.mark.parametrize("sql, rows", [
    (f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} GROUP BY CHANNEL_NAME", (("ch", 2), ("x", 2))),
    (f"SELECT COUNT(*), MAX(CHANNEL_NAME) FROM {TABLE}", ((4, "x"),)),
    (f"SELECT 1, COUNT(*) FROM {TABLE}", ((1, 4),)),
    (f"SELECT CHANNEL_NAME AS c, COUNT(*) FROM {TABLE} GROUP BY CHANNEL_NAME ORDER BY c DESC", (("x", 2), ("ch", 2))),
])
def test_grouped_queries_that_pass(session: Session, sql: str, rows: tuple) -> None:
    assert session.execute_text(sql).rows == rows  # type: ignore[union-attr]


@pytest.mark.parametrize("sql, rows", [
    (f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} WHERE CHANNEL_NAME = 'x'", (("x", 2),)),
    (f"SELECT CHANNEL_NAME AS c, COUNT(*) FROM {TABLE} WHERE 'X' = CHANNEL_NAME", (("x", 2),)),
    (f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} WHERE CHANNEL_NAME = 'none'", ((None, 0),)),  # one row, NULL
    (f"SELECT FILTER_NAME, CHANNEL_NAME, COUNT(*) FROM {TABLE} WHERE CHANNEL_NAME = 'x' GROUP BY FILTER_NAME "
     "ORDER BY CHANNEL_NAME, FILTER_NAME DESC", (("REPLICATE_IGNORE_DB", "x", 1), ("REPLICATE_DO_DB", "x", 1))),
])
def test_where_constant_makes_a_column_dependent(session: Session, sql: str, rows: tuple) -> None:
    """``WHERE CHANNEL_NAME = 'x'`` makes CHANNEL_NAME FD (``analyze_scalar_eq``): no 1140 or
    1055, and the query runs: the column's one value per group (NULL when no row matched)."""
    assert session.execute_text(sql).rows == rows  # type: ignore[union-attr]


def test_an_implicitly_grouped_column_may_be_null(session: Session) -> None:
    result = session.execute_text(f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} WHERE CHANNEL_NAME = 'x'")
    assert [(t.code, t.nullable) for t in result.column_types] == [(254, True), (8, False)]  # type: ignore[union-attr]


def test_where_or_is_no_dependency(session: Session) -> None:
    with pytest.raises(MySQLError) as raised:
        session.execute_text(f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} WHERE CHANNEL_NAME = 'x' OR COUNTER = 1")
    assert raised.value.code == 1140


@pytest.mark.parametrize("sql, rows", [
    (f"SELECT CHANNEL_NAME AS c, COUNT(*) FROM {TABLE} GROUP BY c", (("ch", 2), ("x", 2))),
    (f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} GROUP BY 1", (("ch", 2), ("x", 2))),
    (f"SELECT UPPER(CHANNEL_NAME) u, COUNT(*) FROM {TABLE} GROUP BY u", (("CH", 2), ("X", 2))),
])
def test_group_by_a_position_or_an_alias_groups_by_that_select_item(session: Session, sql: str, rows: tuple) -> None:
    """``find_order_in_list``: GROUP BY 1 and GROUP BY an alias name the select item, so the
    item is grouped (no 1055)."""
    assert session.execute_text(sql).rows == rows  # type: ignore[union-attr]


def test_for_group_by_the_tables_column_wins_over_an_alias(session: Session) -> None:
    """The manual (SELECT, "GROUP BY or HAVING ... searches the FROM clause before searching
    in the select_expr values"): here GROUP BY names the column CHANNEL_NAME, so FILTER_NAME,
    aliased CHANNEL_NAME, is not grouped."""
    with pytest.raises(MySQLError) as raised:
        session.execute_text(f"SELECT FILTER_NAME AS CHANNEL_NAME, COUNT(*) FROM {TABLE} GROUP BY CHANNEL_NAME")
    assert raised.value.code == 1055 and f"'{TABLE}.FILTER_NAME'" in raised.value.message
