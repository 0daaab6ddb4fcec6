"""A SELECT on the filter tables is told by its first token, as MySQL's lexer cuts it, not by its
first white-space word: ``*``, ``(``, ``)`` and ``,`` are tokens of their own (``sql/sql_lex.cc``),
so ``select*from t`` is a SELECT the server runs; and a query block in parentheses
(``sql_yacc.yy``: ``query_expression_parens``) runs as the query inside it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError
from replfilter.dialect.other_statements import statement_kind, unparenthesized

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"
REPLICA = _replica(3)


def _run(sql: str) -> object:
    """What the statement gives: its columns and rows, or its error's number, state and text."""
    try:
        result = REPLICA.session.execute_text(sql)
    except MySQLError as error:
        return (error.code, error.sqlstate, str(error))
    return (result.columns, result.rows)


@pytest.mark.parametrize("text", [
    f"select*from {TABLE}", f"SELECT*FROM {TABLE}", f"select\n*\nfrom {TABLE}", f"select*from {TABLE} where COUNTER>0",
    f"(SELECT * FROM {TABLE})", f"((select*from {TABLE} where counter > 0))", f"( SELECT * FROM {TABLE} ) ",
])
def test_a_select_without_spaces_or_in_parentheses_runs_as_the_spaced_one(text):
    assert _run(text) == _run(f"SELECT * FROM {TABLE} WHERE COUNTER > 0")
    assert _run(text)[1][0][-1] == 3  # type: ignore[index]


@pytest.mark.parametrize("text, kind", [
    ("select*from t", "SELECT"), ("select(1)", "SELECT"), ("(SELECT 1)", "SELECT"), ("((select 1))", "SELECT"),
    ("SELECT`a`from t", "SELECT"), ("show\tvariables", "SHOW"), ("LOCK TABLES t READ LOCAL, u AS x WRITE", "LOCK"),
    ("(show tables)", None), ("(do 1)", None), ("foo bar", None), ("select * from", None),
])
def test_the_kind_is_the_first_token(text, kind):
    assert statement_kind(text) == kind


def test_another_select_is_refused_naming_select_not_its_glued_first_word():
    for text in ("select(1)", "select*from t.u where 1>0", "(select 1)"):
        with pytest.raises(MySQLError) as caught:
            REPLICA.session.execute_text(text)
        assert caught.value.code == 1235
        assert "'SELECT statements other than" in str(caught.value)


@pytest.mark.parametrize("text, inner", [
    ("(SELECT 1)", "SELECT 1"), ("(( SELECT 1 ))", " SELECT 1 "), ("(SELECT 1) UNION (SELECT 2)", None),
    ("SELECT (1)", None), ("(SELECT (1))", "SELECT (1)"),
])
def test_unparenthesized_takes_only_parentheses_around_everything(text, inner):
    assert unparenthesized(text) == (text if inner is None else inner)


# Valid SELECTs with a "|" where optional white space may stand: each next to *, (, ) or ,
# (never between a function's name and its "(", where MySQL's lexer is sensitive to it).
TEMPLATES = [
    f"SELECT|*|FROM {TABLE}",
    f"SELECT|*|FROM {TABLE} WHERE COUNTER IN|(|0|,|3|)",
    f"|(|SELECT CHANNEL_NAME|,|FILTER_NAME|,|COUNTER FROM {TABLE} WHERE COUNTER >= 0|)|",
    f"SELECT|(|COUNTER|)| AS c|,|(|1|+|2|)|*|2 AS d FROM {TABLE}",
    f"SELECT COUNT(|*|)| AS n|,|MAX(|COUNTER|)| AS m FROM {TABLE} WHERE|(|COUNTER|)|>|(|0|)",
    f"|(|(|SELECT|*|FROM {TABLE}|)|)|",
]
SPACES = st.sampled_from(["", " ", "\n", "  ", "\t"])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TEMPLATES), st.data())
def test_optional_white_space_around_punctuation_never_changes_the_result(template, data):
    """Property: inserting or removing white space around ``*``, ``(``, ``)`` and ``,`` in a valid
    SELECT leaves its result as it was (the spaced form is the reference)."""
    pieces = template.split("|")
    spaced = " ".join(pieces).strip()
    text = pieces[0] + "".join(data.draw(SPACES) + piece for piece in pieces[1:])
    expected = _run(spaced)
    assert not isinstance(expected[0], int), expected  # the reference runs
    assert _run(text) == expected, (text, spaced)
    assert re.sub(r"\s+", "", text) == re.sub(r"\s+", "", spaced)
