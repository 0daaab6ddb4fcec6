"""Numeric literals and bound values in a SELECT on the filter tables compare as MySQL compares
them: a DECIMAL literal exactly with COUNTER, a literal with an exponent as a double, a string
by its numeric prefix; the errors are the server's (1367, 1054, 1064), never sqlglot's."""

from __future__ import annotations

import datetime
import operator
import re
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.filters import FilterType
from replfilter.server.session import Session
from replfilter.wire.prepared import bind, placeholder_positions, sql_literal, time_text

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


@pytest.mark.parametrize("value, op, matched", [
    (float("inf"), "<", True), (float("-inf"), ">", True), (float("inf"), "=", False),
    (float("nan"), "=", False), (float("nan"), "<>", True), (1.5, "=", False), (1.0, "=", True), (1e20, "<", True),
])
def test_a_bound_double_compares_as_a_double_even_when_not_finite(value, op, matched):
    template = QUERY.format(op, "?")
    assert _matches(_replica(1), bind(template, placeholder_positions(template), [value])) is matched


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
    assert sql_literal(value) == f"'{text}'"
