"""``<=>`` and ``XOR`` in a SELECT on the filter tables, as MySQL 8.4 evaluates them: ``<=>``
(``Item_func_equal``, ``sql/item_cmpfunc.cc``) is never NULL, true for two NULLs, else ``=``'s
answer under the columns' collation (utf8mb4_0900_ai_ci, NO PAD); ``XOR`` (``Item_func_xor``) is
NULL when a side is NULL, else whether exactly one side is true. Both are ``Item_bool_func``s:
printed 1/0, a BIGINT of one character."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"
REPLICA = _replica(3)  # one row: CHANNEL_NAME 'a', FILTER_RULE 'd1', COUNTER 3


def _value(item: str):
    result = REPLICA.session.execute_text(f"SELECT {item} FROM {TABLE}")
    assert len(result.rows) == 1
    return result.rows[0][0]


@pytest.mark.parametrize("item, value", [
    ("NULL <=> NULL", 1), ("1 <=> NULL", 0), ("NULL <=> COUNTER", 0), ("COUNTER <=> 3", 1), ("COUNTER <=> '3'", 1),
    ("COUNTER <=> 3.0", 1), ("COUNTER <=> 3.5", 0), ("FILTER_RULE <=> 'D1'", 1), ("FILTER_RULE <=> 'd1 '", 0),
    ("CHANNEL_NAME <=> 'Á'", 1), ("1 XOR 0", 1), ("1 XOR 1", 0), ("0 XOR 0", 0), ("NULL XOR 1", None),
    ("0 XOR NULL", None), ("COUNTER XOR 0", 1), ("COUNTER XOR 2", 0), ("1 XOR 1 XOR 1", 1),
    ("FILTER_RULE <=> 'D1' XOR COUNTER > 5", 1), ("NOT (COUNTER <=> NULL)", 1),
])
def test_values(item, value):
    got = _value(item)
    assert got == value and type(got) is type(value)


def test_a_string_side_of_xor_is_read_as_a_double_with_its_warning():
    result = REPLICA.session.execute_text(f"SELECT 'x' XOR 1, '2abc' XOR 1 FROM {TABLE}")
    assert result.rows == ((1, 0),)
    assert [(w.code, w.message) for w in result.warnings] == [
        (1292, "Truncated incorrect DOUBLE value: 'x'"), (1292, "Truncated incorrect DOUBLE value: '2abc'")]


def test_they_filter_rows_in_where():
    run = REPLICA.session.execute_text
    assert run(f"SELECT COUNTER FROM {TABLE} WHERE FILTER_RULE <=> 'D1'").rows == ((3,),)
    assert run(f"SELECT COUNTER FROM {TABLE} WHERE FILTER_RULE <=> NULL").rows == ()
    assert run(f"SELECT COUNTER FROM {TABLE} WHERE COUNTER > 1 XOR COUNTER > 2").rows == ()
    assert run(f"SELECT COUNTER FROM {TABLE} WHERE COUNTER > 1 XOR COUNTER > 5").rows == ((3,),)


def test_the_null_safe_equality_is_never_nullable_and_xor_is_when_a_side_is():
    types = REPLICA.session.execute_text(f"SELECT NULL <=> 1, NULL XOR 1, 1 XOR 0 FROM {TABLE}").column_types
    assert [(t.code, t.length, t.nullable) for t in types] == [(8, 1, False), (8, 1, True), (8, 1, False)]


# Operands whose truth value is 0, 1 or NULL: AND and OR here return a non-boolean operand as it
# is (1 AND -1 is -1, where MySQL says 1), a separate defect the definitions would meet.
OPERANDS = st.sampled_from(["NULL", "0", "1", "(COUNTER > 5)", "(COUNTER = 3)", "(1 = NULL)", "(FILTER_RULE = 'D1')"])


@settings(max_examples=60, deadline=None)
@given(OPERANDS, OPERANDS)
def test_they_agree_with_their_definitions_by_the_other_operators(a, b):
    """``a <=> b`` is ``(a IS NULL AND b IS NULL) OR COALESCE(a = b, 0)``; ``a XOR b`` is
    ``(a AND NOT b) OR (NOT a AND b)`` (the manual's definition), NULL with a NULL side."""
    assert _value(f"{a} <=> {b}") == _value(f"({a} IS NULL AND {b} IS NULL) OR COALESCE({a} = {b}, 0)")
    assert _value(f"{a} XOR {b}") == _value(f"({a} AND NOT {b}) OR (NOT {a} AND {b})")


def test_an_unknown_column_in_either_is_1054():
    for item in ("NOPE <=> 1", "1 XOR NOPE"):
        with pytest.raises(MySQLError) as error:
            _value(item)
        assert error.value.code == 1054
