"""Decoded column values as JSON, the form ``replfilter evaluate --rows`` prints them in:
character and binary strings as UTF-8 text when they are, else ``{"base64": ...}``; DECIMAL
and fractional TIMESTAMP as their exact text; ENUM and SET as their member names where the
Table_map lists them (``binlog_row_metadata=FULL``), else their index and bit pattern; MySQL
JSON documents as JSON, an opaque scalar inside one as MySQL prints it
(:func:`opaque_text`).

The conversion is chosen once per column (:func:`json_converter`), not per value; the compiled
readers (row_codegen.py) inline the common ones.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
from typing import Any, Callable, Sequence

from . import column_values as C
from .json_binary import JsonDiff, Opaque

_STRING_TYPES = (C.VARCHAR, C.VAR_STRING, C.STRING, C.BLOB, C.TINY_BLOB, C.MEDIUM_BLOB, C.LONG_BLOB)


def json_converter(kind: int, enum_names: Sequence[bytes] | None = None,
                   set_members: Sequence[bytes] | None = None) -> Callable[[Any], Any]:
    """How a value of a column of this type becomes JSON."""
    if kind in C.INTEGER_TYPES or kind in (C.FLOAT, C.DOUBLE, C.YEAR, C.DATETIME2, C.TIME2, C.DATE):
        return _same
    if kind == C.NEWDECIMAL:
        return lambda v: v if v is None else format(v, "f")
    if kind == C.ENUM and enum_names is not None:
        names = [n.decode("utf-8", "replace") for n in enum_names]
        return lambda v: v if v is None else (names[v - 1] if 0 < v <= len(names) else "")
    if kind == C.SET and set_members is not None:
        members = [n.decode("utf-8", "replace") for n in set_members]
        return lambda v: v if v is None else ",".join(n for i, n in enumerate(members) if v >> i & 1)
    if kind in _STRING_TYPES:
        return _text
    return json_value


def text_or_base64(raw: bytes) -> Any:
    """Bytes as UTF-8 text when they are, else ``{"base64": ...}``."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(raw).decode()}


def _text(value: Any) -> Any:
    return None if value is None else text_or_base64(bytes(value))


def _same(value: Any) -> Any:
    return value


def json_value(value: Any) -> Any:
    """Any decoded column value as JSON (bytes: :func:`text_or_base64`; DECIMAL: its text)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, Opaque):
        return opaque_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return text_or_base64(bytes(value))
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, JsonDiff):
        return {"operation": value.operation, "path": value.path, "value": json_value(value.value)}
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)


# enum_field_types of the opaque scalars MySQL prints by value (json_dom.cc, wrapper_to_string)
_TIMESTAMP, _DATE, _TIME, _DATETIME, _NEWDATE, _NEWDECIMAL = 7, 10, 11, 12, 14, 246


def opaque_text(value: Opaque) -> str:
    """What ``Json_wrapper::to_string`` prints for an opaque scalar (sql-common/json_dom.cc,
    ``wrapper_to_string``): a DECIMAL its digits (``J_DECIMAL``: precision, scale, then
    ``bin2decimal``'s bytes), a DATE, TIME, DATETIME or TIMESTAMP its text with six fractional
    digits (``J_DATE``... : the 8-byte little-endian packed value, ``my_TIME_to_str(t, 6)``),
    any other type ``base64:type<type>:<base64 of the bytes>`` (``J_OPAQUE``). MySQL prints the
    DECIMAL as a JSON number; here it is its exact text, as DECIMAL columns are."""
    mysql_type, data = value
    try:
        if mysql_type == _NEWDECIMAL:
            number, _ = C.decoder_for(C.NEWDECIMAL)(data, 2, (data[0] << 8) | data[1], False)
            return format(number, "f")
        if mysql_type in (_DATE, _NEWDATE, _TIME, _DATETIME, _TIMESTAMP) and len(data) == 8:
            return _packed_time_text(mysql_type, int.from_bytes(data, "little", signed=True))
    except (IndexError, ValueError):
        pass  # not what the type says: printed as its bytes
    return f"base64:type{mysql_type}:{base64.b64encode(data).decode()}"


def _packed_time_text(mysql_type: int, packed: int) -> str:
    """``TIME_from_longlong_*_packed`` then ``my_TIME_to_str``: the packed value is
    ``(ymd << 17 | hms) << 24 | microseconds`` (``ymd = (year * 13 + month) << 5 | day``,
    ``hms = hour << 12 | minute << 6 | second``); a TIME packs ``hms << 24 | microseconds``,
    negated when negative."""
    sign = "-" if packed < 0 else ""
    packed = abs(packed)
    micro, rest = packed % (1 << 24), packed >> 24
    if mysql_type == _TIME:  # TIME_from_longlong_time_packed: no date part, the hour has 10 bits
        return f"{sign}{rest >> 12 & 1023:02d}:{rest >> 6 & 63:02d}:{rest & 63:02d}.{micro:06d}"
    hms, ymd = rest % (1 << 17), rest >> 17
    clock = f"{hms >> 12:02d}:{hms >> 6 & 63:02d}:{hms & 63:02d}.{micro:06d}"
    year_month = ymd >> 5
    date = f"{year_month // 13:04d}-{year_month % 13:02d}-{ymd & 31:02d}"
    return date if mysql_type in (_DATE, _NEWDATE) else f"{date} {clock}"
