"""A comparison or other truth-valued item in a SELECT on the filter tables is an integer, as
MySQL 8.4 makes it: ``Item_bool_func`` (``sql/item_cmpfunc.h``) calls ``set_data_type_bool``
(``sql/item.h``: MYSQL_TYPE_LONGLONG, ``max_length`` 1), and its ``val_int`` is 1, 0, or NULL
when a side is NULL. The shell, ``mysql -B`` output and the wire all show 1/0, never Python's
True/False."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.cli import main as cli
from replfilter.core.results import ColumnType
from replfilter.wire.columns import result_columns, wire_rows

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"
SETUP = ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'ch';\n"
         "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) FOR CHANNEL 'ch';\n")


def _select(items: str, counter: int = 0):
    return _replica(counter).session.execute_text(f"SELECT {items} FROM {TABLE}")


@pytest.mark.parametrize("item, value", [
    ("FILTER_RULE = 'x'", 0), ("FILTER_RULE = 'D1'", 1), ("FILTER_RULE <> 'd1'", 0), ("COUNTER > 0", 0),
    ("COUNTER >= 0", 1), ("FILTER_RULE LIKE 'd%'", 1), ("FILTER_RULE IN ('d1', 'x')", 1),
    ("COUNTER BETWEEN 1 AND 2", 0), ("NOT 1", 0), ("1 AND 2", 1), ("0 OR 3", 1),
    ("COUNTER IS NULL", 0), ("COUNTER IS NOT NULL", 1), ("TRUE", 1), ("FALSE", 0),
    ("NULL = 1", None), ("FILTER_RULE = NULL", None), ("NULL AND 1", None), ("NULL AND 0", 0),
])
def test_a_truth_value_is_one_zero_or_null(item, value):
    result = _select(item)
    assert result.rows == ((value,),)
    assert type(result.rows[0][0]) in (int, type(None))


@pytest.mark.parametrize("item, nullable", [
    ("FILTER_RULE = 'x'", False), ("COUNTER > 1", False), ("NULL = 1", True), ("COUNTER IS NULL", False),
    ("COUNTER IS NOT NULL", False), ("NOT (COUNTER / 0 > 1)", True), ("FILTER_RULE IN ('a', NULL)", True),
])
def test_a_truth_value_is_declared_a_bigint_of_one_character(item, nullable):
    """``set_data_type_bool``: LONGLONG, length 1, signed; nullable when an argument is
    (``Item_func::fix_fields``), never for ``IS NULL`` and ``<=>``."""
    assert _select(item).column_types == (ColumnType(ColumnType.LONGLONG, 1, 0, False, nullable),)


def test_the_wire_sends_digits_in_a_signed_bigint_column():
    result = _select("FILTER_RULE = 'd1', COUNTER > 5")
    assert wire_rows(result) == [(1, 0)]
    assert [c.column.type for c in result_columns(result)] == [ColumnType.LONGLONG] * 2
    assert [c.length for c in result_columns(result)] == [1, 1]


@pytest.mark.parametrize("flags, expected", [
    (["-t"], "+-------------------+-------------+----------+\n"
             "| FILTER_RULE = 'x' | COUNTER < 1 | NULL = 1 |\n"
             "+-------------------+-------------+----------+\n"
             "|                 0 |           1 |     NULL |\n"
             "+-------------------+-------------+----------+\n"),
    ([], "FILTER_RULE = 'x'\tCOUNTER < 1\tNULL = 1\n0\t1\tNULL\n"),
])
def test_the_client_prints_one_and_zero(flags, expected):
    out = io.StringIO()
    status = cli.main(flags, stdin=io.StringIO(SETUP + f"SELECT FILTER_RULE = 'x', COUNTER < 1, NULL = 1 FROM {TABLE};\n"),
                      stdout=out, stderr=io.StringIO())
    assert status == 0
    assert out.getvalue() == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5), st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), st.integers(0, 5))
def test_a_comparison_with_counter_is_the_integer_of_its_truth(counter, operator, value):
    expected = {"=": counter == value, "<>": counter != value, "<": counter < value, "<=": counter <= value,
                ">": counter > value, ">=": counter >= value}[operator]
    assert _select(f"COUNTER {operator} {value}", counter).rows == ((int(expected),),)
