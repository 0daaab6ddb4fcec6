"""MySQL's binary JSON (the form a JSON column takes in a row image) into Python values.

The format is the server's ``sql-common/json_binary.cc`` (header comment "JSON binary
format"): a type byte, then the value. Objects and arrays come in a small form (2-byte counts,
sizes and offsets) and a large one (4-byte); keys are sorted as the server stores them; scalars
that fit an entry (literals, 16-bit integers, and 32-bit ones in the large form) are inlined.
Opaque values (DECIMAL, DATE, TIME, DATETIME inside JSON) keep their MySQL type and raw bytes
(:class:`Opaque`); row_json.opaque_text prints them as MySQL does. MariaDB stores JSON as text:
its rows hold the text, not this form.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

SMALL_OBJECT, LARGE_OBJECT, SMALL_ARRAY, LARGE_ARRAY = 0, 1, 2, 3
LITERAL, INT16, UINT16, INT32, UINT32, INT64, UINT64, DOUBLE, STRING = 4, 5, 6, 7, 8, 9, 10, 11, 12
OPAQUE = 15

_SCALARS = {
    INT16: struct.Struct("<h"),
    UINT16: struct.Struct("<H"),
    INT32: struct.Struct("<i"),
    UINT32: struct.Struct("<I"),
    INT64: struct.Struct("<q"),
    UINT64: struct.Struct("<Q"),
    DOUBLE: struct.Struct("<d"),
}


class JsonFormatError(ValueError):
    """Bytes that are not MySQL binary JSON."""


@dataclass(frozen=True)
class JsonDiff:
    """One change of a partial JSON update (``enum_json_diff_operation``: 0 REPLACE, 1 INSERT,
    2 REMOVE) at ``path``; ``value`` is absent for REMOVE."""

    operation: str
    path: str
    value: Any = None


class Opaque(tuple):
    """An opaque JSON scalar: ``(mysql_type, raw bytes)``."""


def decode_json(data: bytes) -> Any:
    """The document; an empty value is JSON null (the server stores SQL NULL apart)."""
    if not data:
        return None
    try:
        return _value(data[0], data, 1, len(data))
    except (IndexError, struct.error, UnicodeDecodeError) as err:
        raise JsonFormatError(f"not MySQL binary JSON ({err})") from None


def read_varlen(data: bytes, pos: int) -> tuple[int, int]:
    """A length in 7-bit groups, low first, the top bit saying more follow (at most 5 bytes)."""
    value = 0
    for i in range(5):
        byte = data[pos + i]
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value, pos + i + 1
    raise JsonFormatError("a length takes more than five bytes")


def _value(kind: int, data: bytes, pos: int, end: int) -> Any:
    if kind in (SMALL_OBJECT, LARGE_OBJECT, SMALL_ARRAY, LARGE_ARRAY):
        return _container(kind, data, pos)
    if kind == LITERAL:
        return _literal(data[pos])
    if kind in _SCALARS:
        return _SCALARS[kind].unpack_from(data, pos)[0]
    if kind == STRING:
        n, at = read_varlen(data, pos)
        return data[at:at + n].decode("utf-8")
    if kind == OPAQUE:
        mysql_type = data[pos]
        n, at = read_varlen(data, pos + 1)
        return Opaque((mysql_type, bytes(data[at:at + n])))
    raise JsonFormatError(f"unknown value type {kind}")


def _literal(byte: int) -> Any:
    if byte == 0:
        return None
    if byte == 1:
        return True
    if byte == 2:
        return False
    raise JsonFormatError(f"unknown literal {byte}")


def _container(kind: int, data: bytes, base: int) -> Any:
    large = kind in (LARGE_OBJECT, LARGE_ARRAY)
    width = 4 if large else 2
    fmt = "<I" if large else "<H"
    count = struct.unpack_from(fmt, data, base)[0]
    at = base + 2 * width
    keys: list[str] = []
    if kind in (SMALL_OBJECT, LARGE_OBJECT):
        for _ in range(count):
            key_offset = struct.unpack_from(fmt, data, at)[0]
            key_length = struct.unpack_from("<H", data, at + width)[0]
            keys.append(data[base + key_offset:base + key_offset + key_length].decode("utf-8"))
            at += width + 2
    values = []
    for _ in range(count):
        value_kind = data[at]
        if value_kind == LITERAL:
            values.append(_literal(data[at + 1]))
        elif value_kind in (INT16, UINT16) or (large and value_kind in (INT32, UINT32)):
            values.append(_SCALARS[value_kind].unpack_from(data, at + 1)[0])
        else:
            offset = struct.unpack_from(fmt, data, at + 1)[0]
            values.append(_value(value_kind, data, base + offset, len(data)))
        at += 1 + width
    if kind in (SMALL_OBJECT, LARGE_OBJECT):
        return dict(zip(keys, values))
    return values
