"""Arithmetic in a SELECT on the filter tables computed as MySQL 8.4 computes it
(replfilter/replica/perfschema_arith.py): DECIMAL for exact operands (``/`` with
div_precision_increment 4, AVG and SUM of integers), DOUBLE for a double operand, 1690 for a
double out of range, NULL and 1365 for a division by zero."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError
from replfilter.replica.perfschema_arith import decimal_divide

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"


def _row(counter: int, select: str, parameters: tuple | None = None):
    result = _replica(counter).session.execute_text(f"SELECT {select} FROM {TABLE}", parameters)
    (row,) = result.rows  # type: ignore[union-attr]
    return row, result


@pytest.mark.parametrize("counter, select, values", [
    (0, "(COUNTER+1)/3", ("0.3333",)),  # Item_func_div: INT_RESULT becomes DECIMAL, scale 0 + 4
    (5, "COUNTER/2, 7/2, 1/7, 300/7", ("2.5000", "3.5000", "0.1429", "42.8571")),  # half up at the 4th
    (0, "1.0/3, 1.00/3, 2.5/COUNTER+1", ("0.33333", "0.333333", None)),  # the dividend's scale + 4
    (0, "1/3*3", ("1.0000",)),  # do_div_mod keeps 9 digits (0.333333333); * 3 is shown at scale 4
    (0, "1.50 + 1, 0.5 * 0.5, -1.50, 1.50", ("2.50", "0.25", "-1.50", "1.50")),  # exact, scales kept
    (5, "AVG(COUNTER), SUM(COUNTER)", ("5.0000", "5")),  # Item_sum_avg: scale 0 + 4; SUM a DECIMAL
    (5, "AVG(COUNTER * 1.5), SUM(COUNTER * 1.5)", ("7.50000", "7.5")),
    (5, "COUNTER/0.5e0, 1e0/3", ("10", "0.3333333333333333")),  # a double operand: a double
    (5, "AVG(COUNTER + 0e0), SUM(COUNTER / 2e0)", ("5", "2.5")),
])
def test_exact_operands_make_a_decimal_and_a_double_operand_a_double(counter, select, values):
    row, _ = _row(counter, select)
    assert row == values


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**40), st.integers(-10**12, 10**12).filter(bool), st.integers(0, 3))
def test_division_of_exact_values_is_the_quotient_rounded_half_up_at_the_dividends_scale_plus_4(counter, divisor, extra):
    """Whatever digits do_div_mod keeps past the shown scale, the shown value is the exact
    quotient rounded half up (truncation past 9 digits cannot move it across a half)."""
    dividend = Decimal(counter).scaleb(-extra)
    (text,), _ = _row(counter, f"COUNTER * {Decimal(1).scaleb(-extra)} / {divisor}")
    exact = Fraction(dividend) / divisor
    step = Fraction(1, 10 ** (extra + 4))
    magnitude = (abs(exact) / step + Fraction(1, 2)).__floor__() * step
    expected = Decimal(magnitude.numerator) / Decimal(magnitude.denominator)
    expected = (-expected if exact < 0 else expected).quantize(Decimal(1).scaleb(-(extra + 4)), rounding=ROUND_HALF_UP)
    assert Decimal(text) == expected and len(text.partition(".")[2]) == extra + 4


@given(st.integers(-10**30, 10**30), st.integers(-10**20, 10**20).filter(bool), st.integers(0, 12), st.integers(0, 12))
def test_the_quotient_keeps_whole_words_of_nine_digits_truncated(a, b, sa, sb):
    """do_div_mod: the quotient has ROUND_UP(frac1 + frac2 + incr) words of fraction, each
    operand's scale rounded up to whole words first, and is truncated (not rounded)."""
    dividend, divisor = Decimal(f"{a}E-{sa}"), Decimal(f"{b}E-{sb}")
    words1, words2 = -(-sa // 9) * 9, -(-sb // 9) * 9
    digits = -(-(words1 + words2 + max(0, 4 - (words1 - sa + words2 - sb))) // 9) * 9
    quotient = decimal_divide(dividend, divisor, 4)
    assert -quotient.as_tuple().exponent == digits or quotient == 0
    exact = Fraction(dividend) / Fraction(divisor)
    assert abs(Fraction(quotient)) <= abs(exact) < abs(Fraction(quotient)) + Fraction(1, 10 ** digits)


@pytest.mark.parametrize("select", ["1/0", "COUNTER/0", "1.5/(COUNTER - COUNTER)", "1e0/0"])
def test_a_division_by_zero_is_null_with_warning_1365(select):
    row, result = _row(3, select)
    assert row == (None,)
    assert [(w.level, w.code, w.message) for w in result.warnings] == [("Warning", 1365, "Division by 0")]


@pytest.mark.parametrize("sql, text", [
    ("SELECT 1e308 * 10 FROM {t}", "(1e308 * 10)"),
    ("SELECT CAST('1e308' AS DOUBLE) * 10 FROM {t}", "(cast('1e308' as double) * 10)"),
    ("SELECT COUNTER FROM {t} WHERE COUNTER < 1E308 + (1e308 - 1)", "(1E308 + (1e308 - 1))"),
    ("SELECT 1.5 / 1e-308 / 1e-10 FROM {t}", "((1.5 / 1e-308) / 1e-10)"),
    # Item_ident::print: schema and table as typed, backticked; the column by its declared name
    ("SELECT counter * 1e308 FROM {t}",
     "(`performance_schema`.`replication_applier_filters`.`COUNTER` * 1e308)"),
    ("SELECT COUNTER FROM {t} AS f WHERE 1e308 * (f.Counter + 1) > 0", "(1e308 * (`f`.`COUNTER` + 1))"),  # an alias alone
    ("SELECT -1e308 * 10 FROM {t}", "(-(1e308) * 10)"),  # Item_func_neg: Item_func::print, ``-(arg)``
])
def test_a_double_out_of_range_is_1690_naming_the_item_as_the_server_prints_it(sql, text):
    replica = _replica(2)
    with pytest.raises(MySQLError) as raised:
        replica.session.execute_text(sql.format(t=TABLE))
    assert (raised.value.code, raised.value.sqlstate, raised.value.message) == (
        1690, "22003", f"DOUBLE value is out of range in '{text}'")


def test_a_bound_double_out_of_range_prints_as_a_question_mark():
    """Item_param::print under QT_NO_DATA_EXPANSION is '?'."""
    replica = _replica(0)
    with pytest.raises(MySQLError) as raised:
        replica.session.execute_text(f"SELECT COUNTER FROM {TABLE} WHERE COUNTER < ? * 10", (1e308,))
    assert (raised.value.code, raised.value.message) == (1690, "DOUBLE value is out of range in '(? * 10)'")
    assert replica.session.execute_text(f"SELECT COUNTER FROM {TABLE} WHERE COUNTER < ? * 10", (1e300,)).rows == ((0,),)  # type: ignore[union-attr]


@pytest.mark.parametrize("sql", [
    "SELECT COUNTER AS x FROM {t} GROUP BY COUNTER HAVING x * 1e308 > 0",  # an alias: an Item_ref
])
def test_an_overflow_replfilter_cannot_print_as_the_server_does_is_1235_not_a_made_up_text(sql):
    with pytest.raises(MySQLError) as raised:
        _replica(2).session.execute_text(sql.format(t=TABLE))
    assert raised.value.code == 1235


def test_a_result_without_rows_does_not_declare_decimal_columns_integers():
    result = _replica(0).session.execute_text(
        f"SELECT COUNTER, COUNTER / 2, SUM(COUNTER), AVG(COUNTER) FROM {TABLE} WHERE COUNTER > 5 GROUP BY COUNTER")
    assert result.rows == () and result.integer_columns == (True, False, False, False)  # type: ignore[union-attr]


@settings(max_examples=60, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(-1000, 1000).filter(bool))
def test_mod_takes_the_dividends_sign_as_mysql_does(a, b):
    """Item_func_mod::int_op: the remainder of the magnitudes with the dividend's sign (C's
    fmod for doubles, decimal_mod for DECIMALs); Python's % floors instead."""
    row, _ = _row(0, f"{a} % {b}, {a}.50 % {b}, {a}e0 % {b}")
    expected = abs(a) % abs(b) * (-1 if a < 0 else 1)
    assert row[0] == expected
    decimal = Decimal(f"{a}.50")
    assert Decimal(row[1]) == (abs(decimal) % abs(b)) * (-1 if decimal < 0 else 1)
    assert len(row[1].partition(".")[2]) == 2  # Item_func_mod::result_precision: the larger scale
    assert float(row[2]) == math.fmod(float(a), float(b))


def test_mod_by_zero_is_null_with_warning_1365():
    row, result = _row(4, "MOD(COUNTER, 0)")
    assert row == (None,) and [w.code for w in result.warnings] == [1365]


COUNTER_ITEM = "`performance_schema`.`replication_applier_filters`.`COUNTER`"


@pytest.mark.parametrize("counter, select, message", [
    (0, "COUNTER - 10", f"BIGINT UNSIGNED value is out of range in '({COUNTER_ITEM} - 10)'"),
    (3, "10 - COUNTER * 4", f"BIGINT UNSIGNED value is out of range in '(10 - ({COUNTER_ITEM} * 4))'"),
    (0, "9223372036854775807 + 1", "BIGINT value is out of range in '(9223372036854775807 + 1)'"),
])
def test_integer_arithmetic_out_of_bigint_range_is_1690(counter, select, message):
    """COUNTER is BIGINT UNSIGNED: integer arithmetic with it is unsigned, so a result below zero
    is 1690 (``Item_func_minus::int_op`` / ``raise_integer_overflow``), as a signed result beyond
    BIGINT is; in the WHERE clause too."""
    with pytest.raises(MySQLError) as caught:
        _row(counter, select)
    assert (caught.value.code, caught.value.sqlstate, caught.value.message) == (1690, "22003", message)


def test_an_unsigned_product_with_a_negation_below_zero_is_1690_printing_the_negation():
    """``-1`` is ``Item_func_neg`` of the literal 1 (signed, -1): COUNTER * -1 is unsigned
    (either operand), so below zero it is 1690, the negation printed ``-(1)``."""
    with pytest.raises(MySQLError) as caught:
        _row(2, "COUNTER * -1")
    assert (caught.value.code, caught.value.message) == (
        1690, f"BIGINT UNSIGNED value is out of range in '({COUNTER_ITEM} * -(1))'")


@pytest.mark.parametrize("counter, select, values", [
    (3, "COUNTER - 3, 10 - COUNTER, COUNTER * 0, -COUNTER, -7 % 3", (0, 7, 0, -3, -1)),
    (0, "COUNTER + 18446744073709551615", (18446744073709551615,)),
])
def test_integer_arithmetic_within_range_is_an_integer(counter, select, values):
    row, _ = _row(counter, select)
    assert row == values and all(type(v) is int for v in row)


@pytest.mark.parametrize("counter, select", [
    (3, "(COUNTER % 5) - 10"),  # Item_func_mod: the dividend's signedness
    (3, "ABS(COUNTER) - 10"),  # Item_func_abs: its argument's
    (3, "COUNTER DIV 2 - 10"),  # Item_func_int_div: unsigned when either operand is
    (3, "COUNTER DIV -2"),
])
def test_unsigned_survives_mod_abs_and_div_so_a_negative_result_is_refused(counter, select):
    """Never the negative number MySQL would not give: 1690 where replfilter prints the item as
    the server does, 1235 where it cannot (``%``, ``ABS``, ``DIV`` inside)."""
    with pytest.raises(MySQLError) as caught:
        _row(counter, select)
    assert caught.value.code in (1690, 1235)


def test_an_integer_literal_above_bigint_is_unsigned_and_div_by_zero_is_null():
    with pytest.raises(MySQLError) as caught:
        _row(0, "0 - 9223372036854775808")  # Item_uint: BIGINT UNSIGNED, so below zero is 1690
    assert (caught.value.code, caught.value.message) == (
        1690, "BIGINT UNSIGNED value is out of range in '(0 - 9223372036854775808)'")
    row, result = _row(3, "COUNTER DIV 0, COUNTER DIV 2, -7 DIV 2, COUNTER % 2")
    assert row == (None, 1, -3, 1) and [w.code for w in result.warnings] == [1365]


@pytest.mark.parametrize("counter, select", [
    (2**63 + 1, "-COUNTER"),
    (2**64 - 1, "-COUNTER"),
    (2**64 - 1, "-(COUNTER)"),  # parentheses make no item
])
def test_negating_counter_above_2_63_is_1690_naming_the_negation(counter, select):
    """``Item_func_neg::int_op``: an unsigned argument above LLONG_MAX + 1 is
    ``raise_integer_overflow``; the negation is signed (``resolve_type`` ends ``unsigned_flag =
    false``), so the text says BIGINT, and the item prints as ``Item_func::print`` does:
    ``-(arg)``."""
    with pytest.raises(MySQLError) as caught:
        _row(counter, select)
    assert (caught.value.code, caught.value.sqlstate, caught.value.message) == (
        1690, "22003", f"BIGINT value is out of range in '-({COUNTER_ITEM})'")


def test_negating_an_unsigned_expression_above_2_63_prints_the_inner_item():
    with pytest.raises(MySQLError) as caught:
        _row(2**64 - 1, "-(COUNTER + 0)")
    assert caught.value.message == f"BIGINT value is out of range in '-(({COUNTER_ITEM} + 0))'"


@pytest.mark.parametrize("counter, select, value", [
    (2**63, "-COUNTER", -(2**63)),  # LLONG_MIN of an unsigned argument: LLONG_MIN
    (2**63 - 1, "-COUNTER", -(2**63 - 1)),
    (5, "-COUNTER, -(COUNTER * 2)", (-5, -10)),
    (0, "-9223372036854775808", -(2**63)),  # an Item_uint at LLONG_MIN stays an integer
])
def test_negating_an_integer_within_range_is_a_signed_integer(counter, select, value):
    row, _ = _row(counter, select)
    assert row == (value if isinstance(value, tuple) else (value,)) and all(type(v) is int for v in row)


@pytest.mark.parametrize("select, text", [
    ("-18446744073709551615", "-18446744073709551615"),  # Item_uint above LLONG_MIN: DECIMAL
    ("-9223372036854775809", "-9223372036854775809"),
    ("-(9223372036854775808 + 0)", "-9223372036854775808"),  # a constant that is no INT_ITEM
    ("- -5", "5"),  # a negative constant argument reads >= LLONG_MIN as unsigned: DECIMAL
    ("-(1 - 2)", "1"),
])
def test_negating_a_constant_that_bigint_cannot_negate_is_a_decimal(select, text):
    """``Item_func_neg::resolve_type``: a constant INT argument whose value, read as unsigned,
    is at least LLONG_MIN (and is not the Item_int LLONG_MIN itself) makes the negation a
    DECIMAL (``set_data_type_decimal``, ``hybrid_type = DECIMAL_RESULT``): no 1690."""
    row, _ = _row(0, select)
    assert row == (text,)


def test_a_decimal_negates_exactly_whatever_its_length():
    """``my_decimal_neg`` flips the sign: no rounding to Python's 28-digit context."""
    nines = "9" * 65
    (value,), _ = _row(0, f"-{nines}")
    assert str(value) == f"-{nines}"
    (value,), _ = _row(0, "-?", (Decimal("1" + "0" * 40),))
    assert str(value) == "-1" + "0" * 40
