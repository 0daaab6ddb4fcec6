"""LIKE on the filter tables with MySQL's escape character: ``\\`` by default (``\\_`` and
``\\%`` are kept as two characters by the lexer, ``sql/sql_lex.cc`` ``get_text``, so LIKE sees
them), or the one ``ESCAPE`` names (``Item_func_like``, ``sql/item_cmpfunc.cc``). sqlglot's
executor knew no escape: ``LIKE 'db\\_%'`` matched nothing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"


def _sql_literal(text: str) -> str:
    """``text`` as a MySQL string literal whose value it is (a backslash doubled)."""
    return "'" + text.replace("\\", "\\\\") + "'"


def reference(value: str, pattern: str, escape: str) -> bool:
    """``my_wildcmp``'s semantics, written as a recursive matcher: the escape character makes
    the next one literal (a trailing escape is literal), ``%`` any run, ``_`` one character."""
    if not pattern:
        return not value
    head = pattern[0]
    if head == escape and len(pattern) > 1:
        return value[:1] == pattern[1] and reference(value[1:], pattern[2:], escape)
    if head == "%":
        return any(reference(value[i:], pattern[1:], escape) for i in range(len(value) + 1))
    if head == "_":
        return bool(value) and reference(value[1:], pattern[1:], escape)
    return value[:1] == head and reference(value[1:], pattern[1:], escape)


def _like(value: str, pattern: str, escape: str | None) -> object:
    clause = "" if escape is None else f" ESCAPE {_sql_literal(escape)}"
    sql = f"SELECT {_sql_literal(value)} LIKE {_sql_literal(pattern)}{clause} FROM {TABLE}"
    return _replica(0).session.execute_text(sql).rows[0][0]  # type: ignore[union-attr]


_TEXT = st.text(alphabet="ab_%\\|", max_size=6)


@settings(max_examples=150, deadline=None)
@given(_TEXT, _TEXT, st.sampled_from([None, "\\", "|", "a"]))
def test_like_matches_as_my_wildcmp(value, pattern, escape):
    assert _like(value, pattern, escape) == int(reference(value, pattern, escape or "\\"))


@pytest.mark.parametrize("value, pattern, escape, matches", [
    ("db_x", "db\\_%", None, 1), ("dbxx", "db\\_%", None, 0),
    ("50%", "50\\%", None, 1), ("500", "50\\%", None, 0),
    ("a_b", "a|_b", "|", 1), ("axb", "a|_b", "|", 0),
    ("a\\", "a\\", None, 1),  # a trailing escape is itself
    ("ab", "a_", "", 1), ("a_", "a\\_", "", 1), ("ax", "a\\_", "", 0),  # an empty ESCAPE is the default
])
def test_examples(value, pattern, escape, matches):
    assert _like(value, pattern, escape) == matches


def test_the_escape_works_on_the_tables_collated_columns():
    replica = _replica(0)
    rows = replica.session.execute_text(f"SELECT FILTER_NAME FROM {TABLE} WHERE FILTER_NAME LIKE 'replicate\\_do%'").rows
    assert rows == (("REPLICATE_DO_DB",),)
    assert replica.session.execute_text(f"SELECT FILTER_NAME FROM {TABLE} WHERE FILTER_NAME LIKE 'REPLICATE\\%'").rows == ()
    negated = replica.session.execute_text(f"SELECT FILTER_NAME NOT LIKE 'REPLICATE|_DO%' ESCAPE '|', "
                                           f"NULL LIKE 'a' FROM {TABLE}").rows
    assert negated == ((0, None),)


def test_an_escape_of_more_than_one_character_is_1210():
    with pytest.raises(MySQLError) as caught:
        _replica(0).session.execute_text(f"SELECT FILTER_NAME FROM {TABLE} WHERE FILTER_NAME LIKE 'R%' ESCAPE 'ab'")
    assert (caught.value.code, caught.value.sqlstate, caught.value.message) == (
        1210, "HY000", "Incorrect arguments to ESCAPE")
