"""HAVING on the filter tables as MySQL 8.4 resolves and applies it: without GROUP BY it filters
each row (or the one row of an aggregate query); an identifier in HAVING outside an aggregate is
an ``Item_ref`` (``PTI_simple_ident_ident::itemize``: ``parsing_place == CTX_HAVING``), resolved
in the select list, aliases included, then GROUP BY (``resolve_ref_in_select_and_group``), and
is 1054 ``... in 'having clause'`` when neither has it (``Item_ref::fix_fields``)."""

from __future__ import annotations

import pytest

from replfilter.core.errors import MySQLError
from replfilter.server.session import Session

TABLE = "performance_schema.replication_applier_filters"


@pytest.fixture(scope="module")
def session() -> Session:
    session = Session()
    for channel, database in (("ch", "db1"), ("x", "db2"), ("y", "db3")):
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{channel}'")
        session.execute_text(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = ({database}) FOR CHANNEL '{channel}'")
    return session


def _rows(session: Session, sql: str):
    return session.execute_text(sql.format(t=TABLE)).rows  # type: ignore[union-attr]


@pytest.mark.parametrize("sql, rows", [
    ("SELECT CHANNEL_NAME FROM {t} HAVING CHANNEL_NAME = 'x'", (("x",),)),
    ("SELECT CHANNEL_NAME FROM {t} HAVING CHANNEL_NAME = 'X'", (("x",),)),  # the column's collation
    ("SELECT CHANNEL_NAME AS c FROM {t} HAVING c <> 'x'", (("ch",), ("y",))),  # a select alias
    # find_item_in_list: a column behind an alias is found by its own name too (RESOLVED_BEHIND_ALIAS)
    ("SELECT CHANNEL_NAME AS c FROM {t} HAVING CHANNEL_NAME = 'x'", (("x",),)),
    ("SELECT CHANNEL_NAME, FILTER_RULE FROM {t} WHERE CHANNEL_NAME <> 'y' HAVING FILTER_RULE LIKE 'db%' "
     "ORDER BY CHANNEL_NAME DESC LIMIT 1", (("x", "db2"),)),  # WHERE, then HAVING, then ORDER BY and LIMIT
    ("SELECT COUNTER + 1 AS n, CHANNEL_NAME FROM {t} HAVING n = 1 AND CHANNEL_NAME = 'ch'", ((1, "ch"),)),
    ("SELECT CHANNEL_NAME FROM {t} HAVING 1 > 2", ()),
    ("SELECT COUNT(*) AS n FROM {t} HAVING n > 2", ((3,),)),  # an aggregate query: its one row
    ("SELECT COUNT(*) AS n FROM {t} HAVING n > 3", ()),
])
def test_having_without_group_by_filters_each_row(session, sql, rows):
    assert _rows(session, sql) == rows


def test_having_with_a_star_sees_every_column(session):
    rows = _rows(session, "SELECT * FROM {t} HAVING COUNTER = 0 AND CHANNEL_NAME = 'y'")
    assert [row[0] for row in rows] == ["y"]


@pytest.mark.parametrize("sql, name", [
    ("SELECT CHANNEL_NAME FROM {t} HAVING COUNTER = 0", "COUNTER"),  # not selected: no Item_ref target
    ("SELECT CHANNEL_NAME AS c FROM {t} HAVING FILTER_RULE = 'db1'", "FILTER_RULE"),
    ("SELECT CHANNEL_NAME FROM {t} GROUP BY CHANNEL_NAME HAVING FILTER_RULE = 'db1'", "FILTER_RULE"),
    ("SELECT CHANNEL_NAME FROM {t} HAVING nope = 1", "nope"),
])
def test_an_identifier_neither_selected_nor_grouped_is_1054_in_having(session, sql, name):
    with pytest.raises(MySQLError) as caught:
        _rows(session, sql)
    assert (caught.value.code, caught.value.sqlstate, caught.value.message) == (
        1054, "42S22", f"Unknown column '{name}' in 'having clause'")


def test_a_grouped_column_and_an_aggregates_argument_resolve_in_having(session):
    """GROUP BY's columns are searched too, and inside an aggregate an identifier is an
    Item_field of the table (``get_in_sum_expr() > 0``)."""
    assert _rows(session, "SELECT COUNT(*) FROM {t} GROUP BY CHANNEL_NAME HAVING CHANNEL_NAME = 'x'") == ((1,),)
    assert _rows(session, "SELECT CHANNEL_NAME FROM {t} GROUP BY CHANNEL_NAME HAVING MAX(COUNTER) = 0 "
                          "ORDER BY CHANNEL_NAME") == (("ch",), ("x",), ("y",))


def test_having_is_applied_after_where_even_when_where_is_a_disjunction(session):
    assert _rows(session, "SELECT CHANNEL_NAME AS c FROM {t} WHERE CHANNEL_NAME = 'x' OR CHANNEL_NAME = 'y' "
                          "HAVING c <> 'x'") == (("y",),)


def test_a_column_not_selected_is_1054_beside_a_valid_reference(session):
    with pytest.raises(MySQLError) as caught:
        _rows(session, "SELECT CHANNEL_NAME AS c FROM {t} HAVING c AND COUNTER * 1e308 * 1e308 > 0")
    assert caught.value.message == "Unknown column 'COUNTER' in 'having clause'"


def test_having_evaluates_no_row_where_has_removed(session):
    """COUNTER - 1 is 1690 on any row (COUNTER is 0 and unsigned): WHERE 0 leaves none, so
    neither the select list nor HAVING evaluates it."""
    assert _rows(session, "SELECT COUNTER - 1 + 1 AS n FROM {t} WHERE 0 HAVING n > 0") == ()


def test_an_alias_wins_over_a_column_of_the_same_name_behind_another_alias(session):
    """find_item_in_list: a match on an alias ends the search; a column found by its own name
    behind an alias is only the fallback."""
    rows = _rows(session, "SELECT CHANNEL_NAME AS c, FILTER_RULE AS CHANNEL_NAME FROM {t} "
                          "HAVING CHANNEL_NAME = 'db2'")
    assert rows == (("x", "db2"),)


@pytest.mark.parametrize("sql", ["SELECT * FROM {t} HAVING bogus = 1", "SELECT * FROM {t} HAVING DELAY = 1"])
def test_under_a_star_only_the_tables_own_columns_resolve_in_having(session, sql):
    """``*`` expands to the table's columns; any other name in HAVING is 1054, not a query
    replfilter cannot run."""
    with pytest.raises(MySQLError) as raised:
        _rows(session, sql)
    assert raised.value.code == 1054 and "in 'having clause'" in raised.value.message


@pytest.mark.parametrize("sql, rows", [
    ("SELECT 1 FROM {t} HAVING COUNT(*) > 0", ((1,),)),
    ("SELECT 1 FROM {t} WHERE 1 = 0 HAVING COUNT(*) = 0", ((1,),)),  # one row even when WHERE kept none
    ("SELECT 1 AS one FROM {t} HAVING COUNT(*) > 5", ()),
    ("SELECT 'x' FROM {t} HAVING MAX(COUNTER) = 0 AND MIN(COUNTER) = 0", (("x",),)),
])
def test_an_aggregate_in_having_alone_makes_the_query_grouped(session, sql, rows):
    """``is_implicitly_grouped`` counts HAVING's aggregates: one row (or none when HAVING fails),
    not one per table row; the result keeps only the select list's columns."""
    result = session.execute_text(sql.format(t=TABLE))
    assert result.rows == rows and len(result.columns) == 1


def test_a_nonaggregated_column_beside_an_aggregate_in_having_is_1140(session):
    with pytest.raises(MySQLError) as raised:
        _rows(session, "SELECT CHANNEL_NAME FROM {t} HAVING COUNT(*) > 0")
    assert raised.value.code == 1140
