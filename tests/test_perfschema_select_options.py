"""A SELECT option before the select list (``ALL``, ``DISTINCT``, ``DISTINCTROW``,
``HIGH_PRIORITY``, ``STRAIGHT_JOIN``, ``SQL_SMALL_RESULT``, ``SQL_BIG_RESULT``,
``SQL_BUFFER_RESULT``, ``SQL_CALC_FOUND_ROWS``, ``SQL_NO_CACHE``: ``select_options`` in
``sql/sql_yacc.yy``) is no part of the first item's name: the server names an item by the span
of its expression (``PTI_expr_with_alias::itemize``), which starts after the options."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"
OPTIONS = ["ALL", "all", "DISTINCT", "DistinctRow", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT",
           "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE"]


@pytest.mark.parametrize("option", OPTIONS)
def test_an_option_is_not_part_of_the_first_items_name(option):
    result = _replica(0).session.execute_text(f"SELECT {option} 1.5*2, COUNTER+1 FROM {TABLE}")
    assert result.columns == ("1.5*2", "COUNTER+1")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT", "SQL_BIG_RESULT",
                                 "SQL_BUFFER_RESULT"]), max_size=3, unique=True),
       st.sampled_from(["", "ALL ", "DISTINCT "]),
       st.sampled_from(["1.5*2", "COUNTER + 1", "1e0/4", "FILTER_RULE = 'x'"]),
       st.sampled_from([" ", "\t", "  \n"]))
def test_any_options_leave_the_name_as_typed(options, quantifier, item, space):
    """Options in any number and order, with any spacing: the name is the item's text alone."""
    prefix = "".join(f"{option}{space}" for option in options)
    result = _replica(1).session.execute_text(f"SELECT{space}{quantifier}{prefix}{item}{space}FROM {TABLE}")
    assert result.columns == (item,)


def test_a_quoted_column_named_like_an_option_keeps_its_name():
    """Only the keyword is an option: a quoted identifier is a name (1054 here: no such column)."""
    from replfilter.core.errors import MySQLError

    with pytest.raises(MySQLError) as error:
        _replica(0).session.execute_text(f"SELECT `ALL` + 1 FROM {TABLE}")
    assert error.value.code == 1054 and "'ALL'" in str(error.value)


@pytest.mark.parametrize("options", ["ALL DISTINCT", "DISTINCT ALL", "all distinctrow", "DISTINCTROW HIGH_PRIORITY ALL",
                                     "ALL ALL DISTINCT"])
def test_all_with_distinct_is_1221(options):
    """``Query_block::validate_base_options`` (``sql/sql_lex.cc``): ``ER_WRONG_USAGE`` with "ALL",
    "DISTINCT" once the statement has parsed; mysql-test refuses ``SELECT DISTINCT ALL *`` so."""
    from replfilter.core.errors import MySQLError

    for query in (f"SELECT {options} CHANNEL_NAME FROM {TABLE}", f"select {options} 1",
                  f"SELECT COUNTER FROM {TABLE} WHERE COUNTER IN (SELECT {options} 1)"):
        with pytest.raises(MySQLError) as error:
            _replica(0).session.execute_text(query)
        assert (error.value.code, error.value.sqlstate, str(error.value)) == (
            1221, "HY000", "Incorrect usage of ALL and DISTINCT"), query


@pytest.mark.parametrize("query, near", [
    (f"SELECT ALL DISTINCT FROM {TABLE}", f"FROM {TABLE}"),
    ("SELECT ALL DISTINCT a LIMIT 1 WHERE 1", "WHERE 1"),
])
def test_a_syntax_error_wins_over_all_with_distinct(query, near):
    """The pair is refused when the parsed query block is contextualized: a syntax error first."""
    from replfilter.core.errors import MySQLError

    with pytest.raises(MySQLError) as error:
        _replica(0).session.execute_text(query)
    assert error.value.code == 1064 and f"near '{near}'" in str(error.value)


def _two_filters():
    """One channel with two filters: two rows, one CHANNEL_NAME."""
    from replfilter.server.session import Session

    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'a'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d1), REPLICATE_IGNORE_DB = (d2) FOR CHANNEL 'a'")
    return session


@pytest.mark.parametrize("options, distinct", [
    ("SQL_NO_CACHE DISTINCT", True), ("HIGH_PRIORITY DISTINCT", True), ("STRAIGHT_JOIN DISTINCTROW", True),
    ("DISTINCT DISTINCT", True), ("DISTINCT DISTINCTROW SQL_SMALL_RESULT DISTINCT", True),
    ("ALL ALL", False), ("ALL SQL_BUFFER_RESULT ALL", False), ("SQL_BIG_RESULT SQL_BIG_RESULT", False),
])
def test_options_in_any_order_and_number(options, distinct):
    """``select_option_list: select_option_list select_option | select_option`` (``sql_yacc.yy``)
    takes the options in any order and any number of times, OR-ing them together
    (``Query_options::merge``): only ALL with DISTINCT is refused (1221, above)."""
    session = _two_filters()
    for where in ("", " WHERE COUNTER >= 0"):  # the grammar's reader and sqlglot's
        result = session.execute_text(f"SELECT {options} CHANNEL_NAME FROM {TABLE}{where}")
        assert result.columns == ("CHANNEL_NAME",)
        assert result.rows == ((("a",),) if distinct else (("a",), ("a",)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["DISTINCT", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT",
                                 "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE", "ALL"]),
                min_size=1, max_size=5))
def test_any_option_list_runs_or_is_1221(options):
    from replfilter.core.errors import MySQLError

    session = _two_filters()
    sql = f"SELECT {' '.join(options)} CHANNEL_NAME, COUNTER + 1 FROM {TABLE} WHERE COUNTER >= 0"
    distinct = bool({"DISTINCT", "DISTINCTROW"} & set(options))
    if distinct and "ALL" in options:
        with pytest.raises(MySQLError) as error:
            session.execute_text(sql)
        assert error.value.code == 1221
        return
    result = session.execute_text(sql)
    assert result.columns == ("CHANNEL_NAME", "COUNTER + 1")
    assert len(result.rows) == (1 if distinct else 2)
