"""Prepared statements' ``?`` placeholders: where one may stand, and the values bound to them.

MySQL 8.4 prepares a statement with ``?`` where its grammar takes an expression. Of the
statements replfilter answers, only a SELECT on the filter tables has expressions (its select
list and WHERE); the replication statements take literals only (``sql_yacc.yy`` gives them no
``param_marker``), so a ``?`` in one stays the parser's 1064, at prepare time as in the server.

The server binds values without going through text. Here each value becomes the SQL literal
that reads back as the same value, written by sqlglot, which is also what reads the SELECT
(``evaluation/sql``), and the statement then runs as its text would over COM_QUERY.
"""

from __future__ import annotations

import datetime
import decimal
import io
import math
import struct
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from mysql_mimic import packets
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import Capabilities, ColumnType

from ..core.errors import ER, MySQLError
from ..dialect.other_statements import placeholder_positions

__all__ = ["bind", "execute_parameters", "placeholder_positions", "sql_literal"]


def bind(text: str, positions: Sequence[int], values: Sequence[Any]) -> str:
    """``text`` with the ``?`` at each position replaced by its value's SQL literal."""
    pieces, start = [], 0
    for position, value in zip(positions, values):
        pieces += [text[start:position], sql_literal(value)]
        start = position + 1
    pieces.append(text[start:])
    return "".join(pieces)


_NOT_FINITE = {"nan": "CAST('nan' AS DOUBLE)", "inf": "CAST('inf' AS DOUBLE)", "-inf": "CAST('-inf' AS DOUBLE)"}
"""A double parameter may be infinite or NaN: mysqld's ``set_param_double`` stores the double as
sent and compares it as a double. MySQL has no literal for them; sqlglot's executor, which runs
the bound text, casts these strings to Python's infinities and NaN (constant folding would turn
an expression such as ``1e308 * 10 * 0`` into 0)."""


def sql_literal(value: Any) -> str:
    """A value of the binary protocol as a MySQL literal that reads back as the same value."""
    from sqlglot import exp

    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, decimal.Decimal):  # an exact DECIMAL literal: digits and a point, no exponent
        return format(value, "f")
    if isinstance(value, float):
        if not math.isfinite(value):
            return _NOT_FINITE[repr(value)]
        text = repr(value)
        return text if "e" in text else f"{text}e0"  # a DOUBLE stays one (a literal with an exponent)
    if isinstance(value, (bytes, bytearray)):
        return f"X'{bytes(value).hex()}'"
    if isinstance(value, datetime.timedelta):
        value = time_text(value)
    return exp.Literal.string(str(value)).sql(dialect="mysql")


def time_text(value: datetime.timedelta) -> str:
    """A TIME value as MySQL writes it: ``[-]HH:MM:SS[.ffffff]``, days folded into the hours."""
    micro = abs(value) // datetime.timedelta(microseconds=1)
    seconds, fraction = divmod(micro, 1_000_000)
    text = f"{'-' if value < datetime.timedelta(0) else ''}{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{fraction:06d}" if fraction else text


@dataclass(frozen=True)
class ParameterType:
    """One parameter's type as COM_STMT_EXECUTE declares it (the type byte and the unsigned flag)."""

    column_type: ColumnType
    unsigned: bool


@dataclass(frozen=True)
class ExecuteParameters:
    """What one COM_STMT_EXECUTE binds: the values, and the types they were read with (which the
    statement keeps for its next execution)."""

    values: tuple[Any, ...]
    types: tuple[ParameterType, ...]


LONG_DATA_TYPES = frozenset({ColumnType.VARCHAR, ColumnType.JSON, ColumnType.TINY_BLOB, ColumnType.MEDIUM_BLOB,
                             ColumnType.LONG_BLOB, ColumnType.BLOB, ColumnType.VAR_STRING, ColumnType.STRING})
"""The types ``is_param_long_data_type`` lets take COM_STMT_SEND_LONG_DATA's data."""


def execute_parameters(capabilities: Capabilities, charset: CharacterSet, data: bytes, count: int,
                       previous_types: tuple[ParameterType, ...] = (),
                       long_data: Mapping[int, bytes] | None = None) -> ExecuteParameters:
    """The values a COM_STMT_EXECUTE packet binds to ``count`` placeholders (after the statement
    id, the cursor flags and the iteration count).

    With the new-params-bound flag 0 the packet carries no types: mysqld reads the values with
    the types of the statement's previous execution (libmysqlclient, Connector/C and mysqlnd send
    0 after the first one); before any execution there are none, and this refuses the packet
    with 1210 "Incorrect arguments to mysqld_stmt_execute", as ``insert_params`` answers a
    parameter with no value (NO_VALUE), and so does a type byte the server does not know. A
    parameter sent by COM_STMT_SEND_LONG_DATA takes that data, and its value is not in the packet
    (``insert_params`` takes it before the null bit); its declared type must take a data stream
    (a string or BLOB type), else 1210 too. mysql-mimic reads each value; its own reader
    refuses the flag 0 and its public one pastes values into the text unquoted, so only its value
    reader is called."""
    long_data = long_data or {}
    reader = io.BytesIO(data)
    reader.read(4)  # the statement id, already read
    packets._read_cursor_flags(reader)
    reader.read(4)  # iteration count: always 1
    null_bitmap = packets.NullBitmap.from_buffer(reader, count)
    if packets.read_uint_1(reader):
        types = []
        for _ in range(count):
            try:
                column_type, unsigned = packets._read_param_type(reader)
            except ValueError:  # a type byte that is no type: MYSQL_TYPE_INVALID in set_parameter_type
                raise MySQLError.of(ER.WRONG_ARGUMENTS, "mysqld_stmt_execute") from None
            if Capabilities.CLIENT_QUERY_ATTRIBUTES in capabilities:
                packets.read_str_len(reader)  # a parameter's name: empty (only query attributes have one)
            types.append(ParameterType(column_type, unsigned))
        previous_types = tuple(types)
    elif len(previous_types) != count:
        raise MySQLError.of(ER.WRONG_ARGUMENTS, "mysqld_stmt_execute")
    values = []
    for index, declared in enumerate(previous_types):
        if index in long_data:
            if declared.column_type not in LONG_DATA_TYPES:
                raise MySQLError.of(ER.WRONG_ARGUMENTS, "mysqld_stmt_execute")
            values.append(_long_data_value(charset, long_data[index]))
        elif null_bitmap.is_flipped(index):
            values.append(None)
        else:
            values.append(_read_value(charset, reader, declared))
    return ExecuteParameters(tuple(values), previous_types)


def _read_value(charset: CharacterSet, reader: io.BytesIO, declared: ParameterType) -> Any:
    """One value in the binary protocol: mimic reads the numbers and strings; DECIMAL and the
    temporal types, which it does not read, are read here as ``sql_prepare.cc``'s
    ``set_param_decimal``/``set_param_time``/``set_param_datetime`` do."""
    kind = declared.column_type
    if kind in (ColumnType.DECIMAL, ColumnType.NEWDECIMAL):
        return decimal.Decimal(packets.read_str_len(reader).decode("ascii"))
    if kind in (ColumnType.DATE, ColumnType.DATETIME, ColumnType.TIMESTAMP):
        fields = reader.read(packets.read_uint_1(reader)) + bytes(11)
        year, month, day, hour, minute, second, micro = struct.unpack("<HBBBBBI", fields[:11])
        if kind == ColumnType.DATE:
            return f"{year:04d}-{month:02d}-{day:02d}"
        text = f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}"
        return f"{text}.{micro:06d}" if micro else text
    if kind == ColumnType.TIME:
        fields = reader.read(packets.read_uint_1(reader)) + bytes(12)
        negative, days, hour, minute, second, micro = struct.unpack("<BIBBBI", fields[:12])
        value = datetime.timedelta(days=days, hours=hour, minutes=minute, seconds=second, microseconds=micro)
        return -value if negative else value
    return packets._read_param_value(charset, reader, kind, declared.unsigned)


def _long_data_value(charset: CharacterSet, data: bytes) -> Any:
    """Long data is a string in the client's character set, or bytes where it is not one."""
    try:
        return charset.decode(data)
    except UnicodeDecodeError:
        return bytes(data)
