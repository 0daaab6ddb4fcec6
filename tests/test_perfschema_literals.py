"""Numeric literals and bound values in a SELECT on the filter tables compare as MySQL compares
them: a DECIMAL literal exactly with COUNTER, a literal with an exponent as a double, a string
by its numeric prefix; the errors are the server's (1367, 1054, 1064), never sqlglot's."""

from __future__ import annotations

import datetime
import math
import operator
import re
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError
from replfilter.core.filters import FilterType
from replfilter.server.session import Session
from replfilter.replica.perfschema_values import UNBOUND, Temporal, double_text, text_to_double
from replfilter.wire.prepared import time_text

from replica_driver import ReplicaDriver

OPERATORS = {"=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
             ">=": operator.ge}
QUERY = "SELECT COUNTER FROM performance_schema.replication_applier_filters WHERE COUNTER {} {}"


def _replica(counter: int) -> ReplicaDriver:
    """One channel with one filter whose COUNTER is ``counter`` (the applier's count)."""
    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'a'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d1) FOR CHANNEL 'a'")
    state = session.state
    channel = state.channel("a")
    assert channel is not None
    counted = replace(channel, filters=channel.filters.with_counts({FilterType.DO_DB: counter}))
    return ReplicaDriver(Session(state.with_channel(counted)))


def _matches(replica: ReplicaDriver, sql: str) -> bool:
    rows = replica.session.execute_text(sql).rows  # type: ignore[union-attr]
    assert len(rows) <= 1
    return bool(rows)


_COUNTER = st.integers(0, 2**40)
_DECIMAL = st.decimals(min_value=-(2**45), max_value=2**45, allow_nan=False, allow_infinity=False, places=6)


@settings(max_examples=60)
@given(_COUNTER, st.one_of(_DECIMAL, _COUNTER.map(lambda n: Decimal(n) + Decimal("0.00000000000000000001"))),
       st.sampled_from(sorted(OPERATORS)))
def test_a_decimal_literal_compares_exactly_with_counter(counter, value, op):
    literal = format(value, "f")
    assert _matches(_replica(counter), QUERY.format(op, literal)) == OPERATORS[op](Decimal(counter), value)


@settings(max_examples=40)
@given(_COUNTER, st.floats(min_value=-1e30, max_value=1e30), st.sampled_from(sorted(OPERATORS)))
def test_a_literal_with_an_exponent_compares_as_a_double(counter, value, op):
    assert _matches(_replica(counter), QUERY.format(op, f"{value:e}")) == OPERATORS[op](float(counter), float(f"{value:e}"))


@pytest.mark.parametrize("literal, counter, equal, at_least", [
    ("'1.5'", 1, False, False), ("'7abc'", 7, True, True), ("'abc'", 0, True, True), ("' -2e1x'", 0, False, True),
    ("'0.0'", 0, True, True),
])
def test_a_string_compares_with_counter_by_its_numeric_prefix(literal, counter, equal, at_least):
    replica = _replica(counter)
    assert _matches(replica, QUERY.format("=", literal)) is equal  # the grammar's own reader
    assert _matches(replica, QUERY.format(">=", literal)) is at_least  # sqlglot's


def test_between_and_in_with_decimals():
    replica = _replica(1)
    assert _matches(replica, QUERY.format("BETWEEN", "0.5 AND 1.5"))
    assert not _matches(replica, QUERY.format("IN", "(0.5, 1.5)"))
    assert _matches(replica, QUERY.format("IN", "(0.5, 1.0)"))


@pytest.mark.parametrize("where, code, message", [
    ("COUNTER = 1e400", 1367, "Illegal double '1e400' value found during parsing"),
    ("COUNTER = -1E309", 1367, "Illegal double '1E309' value found during parsing"),
    ("COUNTER = inf", 1054, "Unknown column 'inf' in 'where clause'"),
    ("COUNTER = ?", 1064, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
                          "server version for the right syntax to use near '?' at line 1"),
])
def test_literals_mysql_refuses_get_the_servers_error(where, code, message):
    error = _replica(0).fails("SELECT FILTER_NAME FROM performance_schema.replication_applier_filters WHERE " + where)
    assert (error.code, error.message) == (code, message)


def test_an_unknown_column_is_1054_naming_its_clause():
    replica = _replica(0)
    table = "performance_schema.replication_applier_filters"
    assert replica.fails(f"SELECT nope FROM {table} WHERE COUNTER > 0").message == "Unknown column 'nope' in 'field list'"
    assert replica.fails(f"SELECT COUNTER AS n FROM {table} WHERE n > 0").message == "Unknown column 'n' in 'where clause'"
    assert replica.fails(f"SELECT COUNTER FROM {table} WHERE COUNTER > 0 ORDER BY x.y").message == (
        "Unknown column 'x.y' in 'order clause'")
    assert replica.session.execute_text(f"SELECT COUNTER AS n FROM {table} WHERE COUNTER >= 0 ORDER BY n").rows == ((0,),)  # type: ignore[union-attr]


_COMPARE_REAL = {"=": lambda c: c == 0, "<>": lambda c: c != 0, "<": lambda c: c < 0, "<=": lambda c: c <= 0,
                 ">": lambda c: c > 0, ">=": lambda c: c >= 0}


def _compare_real(a: float, b: float) -> int:
    """``Arg_comparator::compare_real`` (sql/item_cmpfunc.cc): -1 if a < b, 0 if equal, else 1."""
    return -1 if a < b else 0 if a == b else 1


_DOUBLE = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([float("nan"), 0.0, 1.0]))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 3), _DOUBLE, st.sampled_from(sorted(OPERATORS)), st.booleans())
def test_a_bound_double_compares_as_compare_real_even_when_not_finite(counter, value, op, counter_first):
    """A DOUBLE parameter keeps its value (infinities and NaN included, which no literal
    writes) and compares as the server's compare_real: a NaN is "greater" on either side."""
    where = f"COUNTER {op} ?" if counter_first else f"? {op} COUNTER"
    sql = "SELECT COUNTER FROM performance_schema.replication_applier_filters WHERE " + where
    rows = _replica(counter).session.execute_text(sql, (value,)).rows  # type: ignore[union-attr]
    order = _compare_real(float(counter), value) if counter_first else _compare_real(value, float(counter))
    assert bool(rows) is _COMPARE_REAL[op](order)


def test_nan_against_null_is_null_and_nan_against_nan_is_compare_real():
    session = _replica(1).session
    table = "performance_schema.replication_applier_filters"
    nan = float("nan")
    result = session.execute_text(f"SELECT NULL > ?, ? >= ?, ? = ?, ? <=> ? FROM {table}", (nan,) * 7)
    assert result.rows == ((None, True, False, False),)  # type: ignore[union-attr]
    assert result.columns == ("NULL > ?", "? >= ?", "? = ?", "? <=> ?")  # type: ignore[union-attr]
    with pytest.raises(MySQLError) as caught:
        session.execute_text(f"SELECT ? + 1 FROM {table}", (nan,))
    assert caught.value.code == 1235


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.none(), st.integers(-2**63, 2**64 - 1), st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))),
                 st.floats(allow_nan=False)))
def test_a_bound_value_reads_back_as_itself_and_a_select_item_is_named_by_its_text(value):
    """Values are bound without going through text: a quote in a string stays in it, a double
    keeps every bit (an infinity too); an unnamed ``?`` in the select list is named ``?``. (A
    NUL character, or bytes that are not UTF-8, in a string is 1235: sqlglot's executor compiles
    the query to Python source, which cannot hold them.)"""
    result = _replica(0).session.execute_text(
        "SELECT ?, '?' AS q FROM performance_schema.replication_applier_filters /* ? */", (value,))
    assert result.columns == ("?", "q")  # type: ignore[union-attr]
    (bound, _), = result.rows  # type: ignore[union-attr]
    if isinstance(value, float):  # a double comes back as the server writes one (an infinity as 0)
        assert bound == double_text(value) and float(bound) == (value if math.isfinite(value) else 0.0)
    else:
        assert bound == value and type(bound) is type(value)


_NUMBER_TEXT = st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(repr),
                         st.integers(-10**30, 10**30).map(str), st.decimals(allow_nan=False, allow_infinity=False).map(str))


@given(st.sampled_from(["", " ", "\t\n"]), _NUMBER_TEXT, st.sampled_from(["", " ", "\r"]))
def test_text_that_is_a_number_reads_as_it_without_a_warning(before, number, after):
    """double_from_string_with_check: white space around a number is not a truncation."""
    assert text_to_double(before + number + after) == (float(number), None)


@pytest.mark.parametrize("text, value", [
    ("inf", 0.0), ("-inf", 0.0), ("nan", 0.0), ("NaN", 0.0), ("Infinity", 0.0), ("1x", 1.0), ("1e", 1.0),
    (".", 0.0), ("- 1", 0.0), ("1e400", 1.7976931348623157e308), ("-1e400", -1.7976931348623157e308),
])
def test_text_my_strtod_does_not_read_is_truncated_with_1292(text, value):
    """my_strtod (strings/dtoa.cc) reads no inf/nan: 0 and the warning; an overflow is DBL_MAX."""
    double, warning = text_to_double(text)
    assert double == value
    assert warning is not None and (warning.level, warning.code, warning.message) == (
        "Warning", 1292, f"Truncated incorrect DOUBLE value: '{text}'")


def test_cast_to_double_arithmetic_and_counter_read_text_as_mysql_once_per_literal():
    replica = _replica(0)
    table = "performance_schema.replication_applier_filters"
    result = replica.session.execute_text(
        f"SELECT CAST('inf' AS DOUBLE), CAST('2.5' AS DOUBLE), 'nan' + 1, CAST('x' AS REAL) FROM {table} "
        f"WHERE COUNTER >= 'inf' AND COUNTER = '0' ORDER BY COUNTER")
    assert result.rows == (("0", "2.5", "1", "0"),)  # type: ignore[union-attr]
    assert [w.message for w in result.warnings] == [  # type: ignore[union-attr]
        "Truncated incorrect DOUBLE value: 'inf'", "Truncated incorrect DOUBLE value: 'nan'",
        "Truncated incorrect DOUBLE value: 'x'", "Truncated incorrect DOUBLE value: 'inf'"]
    assert [r[1] for r in replica.session.execute_text("SHOW WARNINGS").rows] == [1292] * 4  # type: ignore[union-attr]
    # the grammar's own SELECT warns the same
    simple = replica.session.execute_text(f"SELECT COUNTER FROM {table} WHERE COUNTER = 'inf'")
    assert simple.rows == ((0,),) and [w.code for w in simple.warnings] == [1292]  # type: ignore[union-attr]


@given(st.timedeltas(min_value=-datetime.timedelta(days=34), max_value=datetime.timedelta(days=34)))
def test_a_time_value_is_mysqls_time_text(value):
    """[-]HH:MM:SS[.ffffff], days folded into the hours, the sign in front."""
    text = time_text(value)
    match = re.fullmatch(r"(-?)(\d{2,}):(\d{2}):(\d{2})(?:\.(\d{6}))?", text)
    assert match is not None
    sign, hours, minutes, seconds, fraction = match.groups()
    back = datetime.timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds),
                              microseconds=int(fraction or 0))
    assert (-back if sign else back) == value and (sign == "-") == (value < datetime.timedelta(0))


@pytest.mark.parametrize("text, number", [
    ("-25:00:00", -250000.0), ("838:59:59.500000", 8385959.5), ("2020-01-02", 20200102.0),
    ("2020-01-02 03:04:05.000001", 20200102030405.000001), ("00:00:00", 0.0),
])
def test_a_temporal_parameter_reads_as_its_number_without_a_warning(text, number):
    """A DATE/TIME parameter compared with COUNTER is its number (TIME_to_double), not text."""
    assert Temporal(text).number() == number
    sql = "SELECT COUNTER FROM performance_schema.replication_applier_filters WHERE COUNTER = ?"
    result = _replica(int(number) if number >= 0 and number.is_integer() else 0).session.execute_text(sql, (Temporal(text),))
    assert (len(result.rows), result.warnings) == (1 if number.is_integer() and number >= 0 else 0, ())  # type: ignore[union-attr]


def test_limit_and_offset_take_a_parameter():
    """``LIMIT ?`` and ``LIMIT ?, ?`` (limit_option: param_marker): a non-negative integer is the
    count; unbound (at prepare) it is 0; another value is 1235, not a guess."""
    session = _replica(0).session
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'b'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d2) FOR CHANNEL 'b'")
    sql = "SELECT CHANNEL_NAME FROM performance_schema.replication_applier_filters ORDER BY CHANNEL_NAME"
    assert session.execute_text(sql + " LIMIT ?", (1,)).rows == (("a",),)  # type: ignore[union-attr]
    assert session.execute_text(sql + " LIMIT ?, ?", (1, 5)).rows == (("b",),)  # type: ignore[union-attr]
    assert session.execute_text(sql + " LIMIT ? OFFSET ?", (UNBOUND, UNBOUND)).rows == ()  # type: ignore[union-attr]
    for value in (None, -1, "1", 1.0):
        with pytest.raises(MySQLError) as caught:
            session.execute_text(sql + " LIMIT ?", (value,))
        assert caught.value.code == 1235


@pytest.mark.parametrize("select, integers", [
    ("SELECT COUNTER, FILTER_NAME FROM {t} WHERE CHANNEL_NAME = 'zz'", (True, False)),  # the grammar's reader
    ("SELECT COUNTER AS n, COUNT(*), COUNTER + 1, FILTER_RULE FROM {t} WHERE COUNTER > 5 GROUP BY COUNTER, FILTER_RULE",
     (True, True, True, False)),
    ("SELECT * FROM {t} WHERE COUNTER > 5", (False, False, False, False, False, True)),
    ("SELECT COUNTER FROM {t} WHERE COUNTER = ?", (True,)),
    ("SELECT '7' + 1, COUNTER + '1' FROM {t} WHERE COUNTER > 5", (False, False)),  # text read as a double
])
def test_a_result_without_rows_declares_its_integer_columns(select, integers):
    """Values cannot tell a column's type when no row comes: the result declares it."""
    sql = select.format(t="performance_schema.replication_applier_filters")
    result = _replica(0).session.execute_text(sql, (UNBOUND,) if "?" in sql else None)
    assert result.rows == () and result.integer_columns == integers  # type: ignore[union-attr]


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (-0.0, "-0"), (1.5, "1.5"), (100.0, "100"), (1e14, "100000000000000"), (1e15, "1e15"),
    (123456789012345.6, "123456789012345.6"), (1e-15, "0.000000000000001"), (1e-16, "1e-16"),
    (1.7976931348623157e308, "1.7976931348623157e308"), (5e-324, "5e-324"), (-2.5e-7, "-0.00000025"),
    (1.2345678901234568e16, "1.2345678901234568e16"), (float("inf"), "0"),
])
def test_a_double_is_written_as_my_gcvt_writes_it(value, text):
    """String::set_real -> my_gcvt(x, MY_GCVT_ARG_DOUBLE, 310): shortest digits, 'e' past 15."""
    assert double_text(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_doubles_text_reads_back_as_the_double(value):
    assert float(double_text(value)) == value


def test_a_double_in_a_result_is_the_servers_text():
    result = _replica(0).session.execute_text(
        "SELECT CAST('1e20' AS DOUBLE), CAST('0' AS DOUBLE), COUNTER + 0.5e0 FROM performance_schema.replication_applier_filters")
    assert result.rows == (("1e20", "0", "0.5"),)  # type: ignore[union-attr]
