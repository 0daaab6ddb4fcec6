"""The parameters of a COM_STMT_EXECUTE packet, read as mysqld reads them (``sql_prepare.cc``):
types reused when the new-params-bound flag is 0, long data in place of a value."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import Capabilities

from replfilter.core.errors import MySQLError
from replfilter.wire.prepared import execute_parameters

from stmt_packets import execute_payload

CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41
_KINDS = [st.integers(-2**63, 2**63 - 1), st.text(max_size=20), st.floats(allow_nan=False)]
# one parameter over two executions: a value of the same type each time (as a client's bind
# keeps it), or NULL
_PARAMETER = st.sampled_from(_KINDS).flatmap(lambda kind: st.tuples(kind | st.none(), kind | st.none()))


def _read(payload: bytes, count: int, previous=(), long_data=None):
    return execute_parameters(CAPABILITIES, CharacterSet.utf8mb4, payload, count, previous, long_data)


@given(st.lists(_PARAMETER, min_size=1, max_size=5))
def test_a_second_execution_without_types_reads_the_values_with_the_first_ones_types(parameters):
    first, second = [p[0] for p in parameters], [p[1] for p in parameters]
    first = [value if value is not None else second[i] for i, value in enumerate(first)]  # typed once
    bound = _read(execute_payload(1, first), len(first))
    assert list(bound.values) == first
    again = _read(execute_payload(1, second, bound=False), len(second), bound.types)
    assert list(again.values) == second and again.types == bound.types


def test_no_types_before_any_execution_is_1210():
    with pytest.raises(MySQLError) as caught:
        _read(execute_payload(1, ["x"], bound=False), 1)
    assert (caught.value.code, caught.value.message) == (1210, "Incorrect arguments to mysqld_stmt_execute")


def test_a_long_data_parameter_takes_its_data_and_its_value_is_not_in_the_packet():
    payload = execute_payload(1, ["ignored", 7], long_data=frozenset({0}))
    assert _read(payload, 2, long_data={0: b"chunk-1chunk-2"}).values == ("chunk-1chunk-2", 7)
    # the null bit does not override long data (insert_params skips the parameter altogether)
    payload = bytearray(execute_payload(1, ["x", 7], long_data=frozenset({0})))
    payload[9] |= 1  # parameter 0's null bit (after id, flags and iterations)
    assert _read(bytes(payload), 2, long_data={0: b"abc"}).values == ("abc", 7)


def test_long_data_for_a_type_that_takes_no_stream_and_an_unknown_type_are_1210():
    """insert_params: long data needs a string or BLOB type; set_parameter_type: a known type."""
    with pytest.raises(MySQLError) as caught:
        _read(execute_payload(1, [5], long_data=frozenset({0})), 1, long_data={0: b"5"})
    assert (caught.value.code, caught.value.message) == (1210, "Incorrect arguments to mysqld_stmt_execute")
    unknown_type = bytearray(execute_payload(1, [5]))
    unknown_type[11] = 0x50  # the first parameter's type byte, after id, flags, iterations, bitmap, bound flag
    with pytest.raises(MySQLError) as caught:
        _read(bytes(unknown_type), 1)
    assert caught.value.code == 1210
