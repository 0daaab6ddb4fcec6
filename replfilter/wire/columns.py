"""A result set's columns as the protocol describes them: name, type, character set, flags.

replfilter's results carry values, not declared types (``core/results.py``), so a column's type
is read from its values the way the formatter reads alignment (``client/formatting.py``,
``_is_numeric_column``): a column holding integers and no text is ``BIGINT UNSIGNED`` (MySQL's
type for the performance_schema counters and for ``SHOW WARNINGS``' ``Code``, which is ``INT
UNSIGNED``); every other column is ``VARCHAR`` in utf8mb4. So the mysql client aligns a
column over the wire as replfilter's own ``-t`` output does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mysql_mimic.charset import CharacterSet
from mysql_mimic.results import ResultColumn
from mysql_mimic.types import ColumnDefinition, ColumnType

from ..core.results import ResultSet, Value

NUMBER_FLAGS = ColumnDefinition.UNSIGNED_FLAG | ColumnDefinition.BINARY_FLAG
NUMBER_LENGTH = 20
"""``BIGINT UNSIGNED``'s display width."""
TEXT_LENGTH_PER_CHARACTER = 4
"""utf8mb4: the column length the server sends is characters times four bytes."""


@dataclass(frozen=True)
class WireColumn:
    """mysql-mimic's column (type, character set, encoders) with the length and flags the server
    sends in the column definition (mimic's class is compiled and has neither)."""

    column: ResultColumn
    length: int
    flags: ColumnDefinition
    charset: CharacterSet

    @classmethod
    def of(cls, name: str, numeric: bool, longest: int) -> "WireColumn":
        if not numeric:
            return cls(ResultColumn(name, ColumnType.VAR_STRING, CharacterSet.utf8mb4),
                       max(longest, 1) * TEXT_LENGTH_PER_CHARACTER, ColumnDefinition(0), CharacterSet.utf8mb4)
        column = ResultColumn(name, ColumnType.LONGLONG)  # digits encoded as text; declared binary
        column.binary_encoder = _unsigned_bigint  # mimic packs BIGINT signed
        return cls(column, NUMBER_LENGTH, NUMBER_FLAGS, CharacterSet.binary)


def _unsigned_bigint(_column: ResultColumn, value: int) -> bytes:
    return struct.pack("<Q", value)


def result_columns(result: ResultSet) -> list[WireColumn]:
    columns = []
    for index, name in enumerate(result.columns):
        values = [row[index] for row in result.rows if row[index] is not None]
        numeric = bool(values) and all(isinstance(v, int) for v in values)
        longest = max((len(str(v)) for v in values), default=0)
        columns.append(WireColumn.of(name, numeric, longest))
    return columns


def wire_rows(result: ResultSet) -> list[tuple[bytes | int | None, ...]]:
    """Rows with text as the bytes the server sends: UTF-8, and a byte that is not UTF-8 (kept
    as a surrogate when a script held one) sent as that byte, as the server echoes it."""
    return [tuple(_wire_value(v) for v in row) for row in result.rows]


def _wire_value(value: Value) -> bytes | int | None:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    return value

