"""A TIMESTAMP value in the binary protocol as ``Protocol_binary::store_datetime`` writes it: the
shortest of 11 (with microseconds), 7 (with a time), 4 (a date) or 0 bytes (the zero value)."""

from __future__ import annotations

import struct
from datetime import datetime

from hypothesis import given, strategies as st

from replfilter.wire.columns import _timestamp


@given(st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2038, 1, 1)))
def test_a_timestamp_text_round_trips_through_its_binary_value(moment: datetime) -> None:
    encoded = _timestamp(None, moment.strftime("%Y-%m-%d %H:%M:%S.%f").encode())  # type: ignore[arg-type]
    length = encoded[0]
    fields = struct.unpack("<HBBBBBI"[: {11: 8, 7: 7, 4: 4}[length]], encoded[1:])
    decoded = datetime(*fields[:3], *(fields[3:6] if length > 4 else ()), *(fields[6:] if length == 11 else ()))
    assert decoded == moment
    assert length == (11 if moment.microsecond else 7 if moment.time() != datetime.min.time() else 4)


def test_the_zero_timestamp_is_empty() -> None:
    assert _timestamp(None, "0000-00-00 00:00:00.000000") == b"\x00"  # type: ignore[arg-type]
