"""Decoded column values as JSON, the form ``replfilter evaluate --rows`` prints them in:
character and binary strings as UTF-8 text when they are, else ``{"base64": ...}``; DECIMAL
and fractional TIMESTAMP as their exact text; ENUM and SET as their member names where the
Table_map lists them (``binlog_row_metadata=FULL``), else their index and bit pattern; MySQL
JSON documents as JSON (an opaque scalar inside one as its MySQL type and base64).

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
        return {"mysql_type": value[0], "base64": base64.b64encode(value[1]).decode()}
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
