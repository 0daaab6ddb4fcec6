"""A SELECT whose clauses leave MySQL's order is 1064, as MySQL's grammar makes it
(``sql/sql_yacc.yy``: ``query_specification`` reads FROM, WHERE, GROUP BY, HAVING, WINDOW in
that order, ``query_expression`` then ORDER BY and LIMIT, then the locking clauses): the error
quotes the text from the clause out of place, cut to 80 characters (``ER_PARSE_ERROR``'s
``near '%-.80s' at line %d``), where sqlglot's reader took the clauses in any order."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError
from replfilter.dialect.parser import parse_statement

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"
MESSAGE = ("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
           "for the right syntax to use near '{}' at line {}")


def _error(sql: str) -> MySQLError:
    with pytest.raises(MySQLError) as caught:
        _replica(0).session.execute_text(sql)
    return caught.value


@pytest.mark.parametrize("tail, near", [
    ("LIMIT 1 WHERE 1", "WHERE 1"),
    ("ORDER BY 1 WHERE 1", "WHERE 1"),
    ("ORDER BY CHANNEL_NAME WHERE CHANNEL_NAME = 'a'", "WHERE CHANNEL_NAME = 'a'"),
    ("LIMIT 1 ORDER BY 1", "ORDER BY 1"),
    ("HAVING COUNT(*) > 0 GROUP BY CHANNEL_NAME", "GROUP BY CHANNEL_NAME"),
    ("GROUP BY CHANNEL_NAME WHERE 1", "WHERE 1"),
    ("WHERE 1 WHERE 2", "WHERE 2"),
    ("ORDER BY 1 ORDER BY 2", "ORDER BY 2"),
    ("LIMIT 1 FOR UPDATE LIMIT 2", "LIMIT 2"),
])
def test_a_clause_out_of_order_is_a_syntax_error_near_it(tail, near):
    error = _error(f"SELECT CHANNEL_NAME FROM {TABLE} {tail}")
    assert (error.code, error.sqlstate) == (1064, "42000")
    assert error.message == MESSAGE.format(near, 1)


def test_an_empty_select_list_is_a_syntax_error_at_the_clause():
    """``select_item_list`` holds an item at least: ``SELECT FROM`` fails at FROM (sqlglot read
    it as a SELECT of nothing, and printed nothing)."""
    for sql in (f"SELECT FROM {TABLE}", f"SELECT DISTINCT FROM {TABLE} LIMIT 1"):
        assert _error(sql).message == MESSAGE.format(sql[sql.index("FROM"):][:80], 1)


def test_the_quoted_text_is_cut_at_80_characters_and_the_line_is_the_clauses():
    where = "WHERE " + " AND ".join(f"FILTER_RULE <> 'rule_{n}'" for n in range(10))
    sql = f"SELECT *\nFROM {TABLE}\nORDER BY 1\n{where}"
    assert _error(sql).message == MESSAGE.format(where[:80], 4)


def test_clauses_inside_parentheses_are_their_own():
    """A subquery's ORDER BY and LIMIT belong to it, not to the outer block."""
    result = _replica(0).session.execute_text(
        f"SELECT CHANNEL_NAME FROM {TABLE} WHERE CHANNEL_NAME IN "
        f"(SELECT CHANNEL_NAME FROM {TABLE} ORDER BY 1 LIMIT 1) ORDER BY 1 LIMIT 1")
    assert result.rows == (("a",),)


def test_a_prepared_statement_is_refused_as_well():
    with pytest.raises(MySQLError) as caught:
        parse_statement(f"SELECT * FROM {TABLE} LIMIT ? WHERE 1")
    assert caught.value.message == MESSAGE.format("WHERE 1", 1)


CLAUSES = ["WHERE COUNTER >= 0", "GROUP BY CHANNEL_NAME", "HAVING CHANNEL_NAME <> ''", "ORDER BY CHANNEL_NAME", "LIMIT 5"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(range(len(CLAUSES))), min_size=1, max_size=4, unique=True))
def test_clauses_run_in_mysqls_order_and_fail_at_the_first_one_out_of_it(order):
    sql = f"SELECT CHANNEL_NAME FROM {TABLE} " + " ".join(CLAUSES[i] for i in order)
    first_wrong = next((n for n, (a, b) in enumerate(itertools.pairwise(order), 1) if b < a), None)
    if first_wrong is None:
        assert _replica(0).session.execute_text(sql).rows == (("a",),)
        return
    near = " ".join(CLAUSES[i] for i in order[first_wrong:])
    assert _error(sql).message == MESSAGE.format(near[:80], 1)
