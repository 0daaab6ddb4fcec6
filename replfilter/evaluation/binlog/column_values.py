"""One column value of a row image, per MySQL column type: its size, and its decoded value.

The encodings are the server's ``Field::pack`` forms as a rows event carries them
(libbinlogevents ``binary_log_funcs.cpp`` ``calc_field_size`` for the sizes; ``sql/field.cc`` and
``mysys/my_time.cc`` for the temporal forms; ``strings/decimal.cc`` ``bin2decimal`` for DECIMAL).
The column's metadata comes from the Table_map event (:func:`read_metadata`).

Values are plain Python: ``int`` (integers, YEAR, ENUM index, SET and BIT bit patterns),
``float``, ``decimal.Decimal``, ``str`` for DATE/TIME/DATETIME as MySQL prints them,
``int``/``Decimal`` seconds for TIMESTAMP (what the row holds: UTC seconds), ``bytes`` for
character and binary strings (the table map does not always say the character set), the
decoded document for JSON, and the SRID + WKB bytes for GEOMETRY.
"""

from __future__ import annotations

import struct
from decimal import Decimal
from typing import Any, Callable

from .json_binary import decode_json

# enum_field_types (include/field_types.h)
DECIMAL_OLD, TINY, SHORT, LONG, FLOAT, DOUBLE, NULL, TIMESTAMP, LONGLONG, INT24 = range(10)
DATE, TIME, DATETIME, YEAR, NEWDATE, VARCHAR, BIT, TIMESTAMP2, DATETIME2, TIME2 = range(10, 20)
TYPED_ARRAY = 20
VECTOR = 242
JSON = 245
NEWDECIMAL = 246
ENUM = 247
SET = 248
TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, BLOB, VAR_STRING, STRING, GEOMETRY = range(249, 256)

TYPE_NAMES = {
    DECIMAL_OLD: "DECIMAL", TINY: "TINYINT", SHORT: "SMALLINT", LONG: "INT", FLOAT: "FLOAT",
    DOUBLE: "DOUBLE", NULL: "NULL", TIMESTAMP: "TIMESTAMP", LONGLONG: "BIGINT", INT24: "MEDIUMINT",
    DATE: "DATE", TIME: "TIME", DATETIME: "DATETIME", YEAR: "YEAR", NEWDATE: "DATE",
    VARCHAR: "VARCHAR", BIT: "BIT", TIMESTAMP2: "TIMESTAMP", DATETIME2: "DATETIME", TIME2: "TIME",
    VECTOR: "VECTOR", JSON: "JSON", NEWDECIMAL: "DECIMAL", ENUM: "ENUM", SET: "SET",
    TINY_BLOB: "TINYBLOB", MEDIUM_BLOB: "MEDIUMBLOB", LONG_BLOB: "LONGBLOB", BLOB: "BLOB",
    VAR_STRING: "VARCHAR", STRING: "CHAR", GEOMETRY: "GEOMETRY",
}

INTEGER_TYPES = frozenset({TINY, SHORT, INT24, LONG, LONGLONG})
NUMERIC_TYPES = frozenset({TINY, SHORT, INT24, LONG, LONGLONG, FLOAT, DOUBLE, NEWDECIMAL, DECIMAL_OLD})
"""The columns the SIGNEDNESS optional metadata has a bit for (libbinlogevents
``Table_map_event::Optional_metadata_fields``: "numeric columns")."""

_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


class RowFormatError(ValueError):
    """A row image that does not fit its table map."""


# --- metadata ------------------------------------------------------------------------------


def metadata_size(column_type: int) -> int:
    """Bytes of Table_map metadata a column type has (``Table_map_event`` docs, "m_field_metadata")."""
    if column_type in (FLOAT, DOUBLE, BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, GEOMETRY, JSON, TIMESTAMP2, DATETIME2, TIME2, VECTOR):
        return 1
    if column_type in (VARCHAR, VAR_STRING, BIT, NEWDECIMAL, STRING, ENUM, SET, DECIMAL_OLD):
        return 2
    return 0


def read_metadata(column_type: int, data: bytes, pos: int) -> tuple[int, int, int]:
    """``(real_type, metadata, next_pos)``. CHAR/ENUM/SET share the STRING type code: the
    real type is in the metadata's first byte, and a CHAR longer than 255 bytes keeps two
    length bits there (``Field_string::do_save_field_metadata``)."""
    size = metadata_size(column_type)
    if size == 0:
        return column_type, 0, pos
    if size == 1:
        return column_type, data[pos], pos + 1
    if column_type in (STRING, ENUM, SET):
        byte0, byte1 = data[pos], data[pos + 1]
        if column_type == STRING and byte0 in (ENUM, SET):
            return byte0, byte1, pos + 2
        if column_type in (ENUM, SET):
            return column_type, byte1, pos + 2
        if (byte0 & 0x30) != 0x30:  # a CHAR longer than 255 bytes
            return STRING, byte1 | (((byte0 & 0x30) ^ 0x30) << 4), pos + 2
        if byte0 in (ENUM, SET):
            return byte0, byte1, pos + 2
        return STRING, byte1, pos + 2
    if column_type in (NEWDECIMAL, DECIMAL_OLD):
        return column_type, (data[pos] << 8) | data[pos + 1], pos + 2  # precision << 8 | scale
    if column_type == BIT:
        return column_type, (data[pos + 1] << 8) | data[pos], pos + 2  # bytes << 8 | bits
    return column_type, data[pos] | (data[pos + 1] << 8), pos + 2  # VARCHAR: max length in bytes


# --- decoding -------------------------------------------------------------------------------

Decoder = Callable[[bytes, int, int, bool], "tuple[Any, int]"]
"""``(data, pos, metadata, unsigned) -> (value, next_pos)``."""


def _int(size: int, signed_fmt: str, unsigned_fmt: str) -> Decoder:
    signed = struct.Struct("<" + signed_fmt).unpack_from if signed_fmt else None
    unsigned = struct.Struct("<" + unsigned_fmt).unpack_from if unsigned_fmt else None

    def decode(data: bytes, pos: int, _meta: int, is_unsigned: bool) -> tuple[Any, int]:
        return (unsigned if is_unsigned else signed)(data, pos)[0], pos + size  # type: ignore[misc]

    return decode


def _int24(data: bytes, pos: int, _meta: int, is_unsigned: bool) -> tuple[Any, int]:
    return int.from_bytes(data[pos:pos + 3], "little", signed=not is_unsigned), pos + 3


def _float(data: bytes, pos: int, _meta: int, _u: bool) -> tuple[Any, int]:
    return struct.unpack_from("<f", data, pos)[0], pos + 4


def _double(data: bytes, pos: int, _meta: int, _u: bool) -> tuple[Any, int]:
    return struct.unpack_from("<d", data, pos)[0], pos + 8


def decimal_size(meta: int) -> int:
    precision, scale = meta >> 8, meta & 0xFF
    intg = precision - scale
    return (intg // 9) * 4 + _DIG2BYTES[intg % 9] + (scale // 9) * 4 + _DIG2BYTES[scale % 9]


def _decimal(data: bytes, pos: int, meta: int, _u: bool) -> tuple[Any, int]:
    """``bin2decimal``: groups of nine digits in four big-endian bytes, the leading and trailing
    partial groups in fewer; the sign in the top bit of the first byte, negatives inverted.
    Read as one big-endian integer and cut into its groups from the right."""
    layout = _decimal_layout(meta)
    size, scale, groups = layout
    if len(data) < pos + size:
        raise RowFormatError("DECIMAL value cut off")
    value = int.from_bytes(data[pos:pos + size], "big")
    top = 1 << (size * 8 - 1)
    negative = not value & top
    if negative:
        value = ~value & ((top << 1) - 1)
    value ^= top
    integer = fraction = 0
    for nbytes, worth, is_fraction in groups:  # from the right
        part = value & ((1 << (8 * nbytes)) - 1)
        value >>= 8 * nbytes
        if is_fraction:
            fraction += part * worth
        else:
            integer += part * worth
    text = f"{integer}.{fraction:0{scale}d}" if scale else str(integer)
    return Decimal("-" + text if negative else text), pos + size


_LAYOUTS: dict[int, tuple[int, int, tuple[tuple[int, int, bool], ...]]] = {}


def _decimal_layout(meta: int) -> tuple[int, int, tuple[tuple[int, int, bool], ...]]:
    """(size, scale, groups from the right as (bytes, the power of ten they are worth, in the
    fraction?)) for a DECIMAL(precision, scale), computed once per column definition."""
    layout = _LAYOUTS.get(meta)
    if layout is None:
        precision, scale = meta >> 8, meta & 0xFF
        intg = precision - scale
        left = [(_DIG2BYTES[intg % 9], intg % 9)] if intg % 9 else []
        left += [(4, 9)] * (intg // 9)
        right = [(4, 9)] * (scale // 9) + ([(_DIG2BYTES[scale % 9], scale % 9)] if scale % 9 else [])
        power = 1
        # the fraction's groups, right to left, are worth 10**0, 10**digits_of_the_last, ...
        groups = []
        for nbytes, digits in reversed(right):
            groups.append((nbytes, power, True))
            power *= 10 ** digits
        power = 1
        for nbytes, digits in reversed(left):
            groups.append((nbytes, power, False))
            power *= 10 ** digits
        layout = (decimal_size(meta), scale, tuple(groups))
        _LAYOUTS[meta] = layout
    return layout


def _frac_size(fsp: int) -> int:
    return (fsp + 1) // 2


def _frac(data: bytes, pos: int, fsp: int) -> int:
    """Microseconds from the fractional bytes (big-endian; 1, 2 or 3 bytes for 2, 4, 6 digits)."""
    n = _frac_size(fsp)
    if not n:
        return 0
    value = int.from_bytes(data[pos:pos + n], "big")
    return value * (10000, 100, 1)[n - 1]


def _micro_text(micro: int, fsp: int) -> str:
    return f".{micro:06d}"[: fsp + 1] if fsp else ""


def _date(data: bytes, pos: int, _meta: int, _u: bool) -> tuple[Any, int]:
    value = int.from_bytes(data[pos:pos + 3], "little")
    return f"{value >> 9:04d}-{(value >> 5) & 15:02d}-{value & 31:02d}", pos + 3


def _datetime2(data: bytes, pos: int, fsp: int, _u: bool) -> tuple[Any, int]:
    packed = int.from_bytes(data[pos:pos + 5], "big") - 0x8000000000
    ymd, hms = packed >> 17, packed & 0x1FFFF
    year_month = ymd >> 5
    text = "%04d-%02d-%02d %02d:%02d:%02d" % (
        year_month // 13, year_month % 13, ymd & 31, hms >> 12, (hms >> 6) & 63, hms & 63
    )
    if not fsp:
        return text, pos + 5
    return text + _micro_text(_frac(data, pos + 5, fsp), fsp), pos + 5 + _frac_size(fsp)


def _time2(data: bytes, pos: int, fsp: int, _u: bool) -> tuple[Any, int]:
    """``my_time_packed_from_binary``: the packed time is ``(hms << 24) + microseconds``, stored
    with an offset; a negative time keeps its fraction as the complement."""
    if fsp >= 5:
        packed = int.from_bytes(data[pos:pos + 6], "big") - 0x800000000000
        end = pos + 6
    else:
        intpart = int.from_bytes(data[pos:pos + 3], "big") - 0x800000
        if fsp == 0:
            frac, end = 0, pos + 3
        elif fsp <= 2:
            frac = data[pos + 3]
            if intpart < 0 and frac:
                intpart += 1
                frac -= 0x100
            frac, end = frac * 10000, pos + 4
        else:
            frac = int.from_bytes(data[pos + 3:pos + 5], "big")
            if intpart < 0 and frac:
                intpart += 1
                frac -= 0x10000
            frac, end = frac * 100, pos + 5
        packed = (intpart << 24) + frac
    sign = "-" if packed < 0 else ""
    packed = abs(packed)
    hms, micro = packed >> 24, packed % (1 << 24)
    text = f"{sign}{(hms >> 12) % (1 << 10):02d}:{(hms >> 6) % 64:02d}:{hms % 64:02d}"
    return text + _micro_text(micro, fsp), end


def _timestamp2(data: bytes, pos: int, fsp: int, _u: bool) -> tuple[Any, int]:
    seconds = int.from_bytes(data[pos:pos + 4], "big")
    if not fsp:
        return seconds, pos + 4
    micro = _frac(data, pos + 4, fsp)
    return Decimal(f"{seconds}{_micro_text(micro, fsp)}"), pos + 4 + _frac_size(fsp)


def _timestamp(data: bytes, pos: int, _meta: int, _u: bool) -> tuple[Any, int]:
    return struct.unpack_from("<I", data, pos)[0], pos + 4


def _time(data: bytes, pos: int, _meta: int, _u: bool) -> tuple[Any, int]:
    value = int.from_bytes(data[pos:pos + 3], "little", signed=True)
    sign = "-" if value < 0 else ""
    value = abs(value)
    return f"{sign}{value // 10000:02d}:{value // 100 % 100:02d}:{value % 100:02d}", pos + 3


def _datetime(data: bytes, pos: int, _meta: int, _u: bool) -> tuple[Any, int]:
    value = struct.unpack_from("<Q", data, pos)[0]
    d, t = divmod(value, 1000000)
    return f"{d // 10000:04d}-{d // 100 % 100:02d}-{d % 100:02d} {t // 10000:02d}:{t // 100 % 100:02d}:{t % 100:02d}", pos + 8


def _year(data: bytes, pos: int, _meta: int, _u: bool) -> tuple[Any, int]:
    value = data[pos]
    return (1900 + value if value else 0), pos + 1


def _varchar(data: bytes, pos: int, max_len: int, _u: bool) -> tuple[Any, int]:
    if max_len < 256:
        n = data[pos]
        return data[pos + 1:pos + 1 + n], pos + 1 + n
    n = data[pos] | (data[pos + 1] << 8)
    return data[pos + 2:pos + 2 + n], pos + 2 + n


def _blob_length(data: bytes, pos: int, length_bytes: int) -> tuple[int, int]:
    return int.from_bytes(data[pos:pos + length_bytes], "little"), pos + length_bytes


def _blob(data: bytes, pos: int, length_bytes: int, _u: bool) -> tuple[Any, int]:
    n, pos = _blob_length(data, pos, length_bytes)
    return data[pos:pos + n], pos + n


def _json(data: bytes, pos: int, length_bytes: int, _u: bool) -> tuple[Any, int]:
    n, pos = _blob_length(data, pos, length_bytes)
    return decode_json(data[pos:pos + n]), pos + n


def _enum(data: bytes, pos: int, size: int, _u: bool) -> tuple[Any, int]:
    return int.from_bytes(data[pos:pos + size], "little"), pos + size


def _bit(data: bytes, pos: int, meta: int, _u: bool) -> tuple[Any, int]:
    size = (meta >> 8) + (1 if meta & 0xFF else 0)
    return int.from_bytes(data[pos:pos + size], "big"), pos + size


DECODERS: dict[int, Decoder] = {
    TINY: _int(1, "b", "B"),
    SHORT: _int(2, "h", "H"),
    INT24: _int24,
    LONG: _int(4, "i", "I"),
    LONGLONG: _int(8, "q", "Q"),
    FLOAT: _float,
    DOUBLE: _double,
    NEWDECIMAL: _decimal,
    DATE: _date,
    NEWDATE: _date,
    TIME: _time,
    TIME2: _time2,
    DATETIME: _datetime,
    DATETIME2: _datetime2,
    TIMESTAMP: _timestamp,
    TIMESTAMP2: _timestamp2,
    YEAR: _year,
    VARCHAR: _varchar,
    VAR_STRING: _varchar,
    STRING: _varchar,
    BLOB: _blob,
    TINY_BLOB: _blob,
    MEDIUM_BLOB: _blob,
    LONG_BLOB: _blob,
    GEOMETRY: _blob,
    VECTOR: _blob,
    JSON: _json,
    ENUM: _enum,
    SET: _enum,
    BIT: _bit,
}

_FIXED = {TINY: 1, SHORT: 2, INT24: 3, LONG: 4, LONGLONG: 8, FLOAT: 4, DOUBLE: 8, DATE: 3, NEWDATE: 3,
          TIME: 3, DATETIME: 8, TIMESTAMP: 4, YEAR: 1}


def fixed_size(column_type: int, meta: int) -> int | None:
    """The size of a value of this column when it does not depend on the value (what lets
    counting rows skip most columns without decoding), else None."""
    if column_type in _FIXED:
        return _FIXED[column_type]
    if column_type == NEWDECIMAL:
        return decimal_size(meta)
    if column_type == DATETIME2:
        return 5 + _frac_size(meta)
    if column_type == TIMESTAMP2:
        return 4 + _frac_size(meta)
    if column_type == TIME2:
        return 3 + _frac_size(meta)
    if column_type in (ENUM, SET):
        return meta
    if column_type == BIT:
        return (meta >> 8) + (1 if meta & 0xFF else 0)
    return None


def value_size(column_type: int, meta: int, data: bytes, pos: int) -> int:
    """The size of the value at ``pos`` (``calc_field_size``)."""
    size = fixed_size(column_type, meta)
    if size is not None:
        return size
    if column_type in (VARCHAR, VAR_STRING, STRING):
        if meta < 256:
            return 1 + data[pos]
        return 2 + (data[pos] | (data[pos + 1] << 8))
    if column_type in (BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, GEOMETRY, JSON, VECTOR):
        return meta + int.from_bytes(data[pos:pos + meta], "little")
    raise RowFormatError(f"column type {column_type} is not known to this reader")


def decoder_for(column_type: int) -> Decoder:
    try:
        return DECODERS[column_type]
    except KeyError:
        raise RowFormatError(f"column type {column_type} is not known to this reader") from None
