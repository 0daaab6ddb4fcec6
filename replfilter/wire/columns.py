"""A result set's columns as the protocol describes them: name, type, character set, flags.

replfilter's results carry values, not declared types (``core/results.py``), so a column's type
is read from its values the way the formatter reads alignment (``client/formatting.py``,
``_is_numeric_column``): a column holding integers and no text is ``BIGINT UNSIGNED`` (MySQL's
type for the performance_schema counters and for ``SHOW WARNINGS``' ``Code``, which is ``INT
UNSIGNED``), or ``BIGINT`` when one of them is negative (a signed expression such as ``-7 % 3``:
an unsigned column could not carry it in the binary protocol); every other column is ``VARCHAR``
in utf8mb4. A column whose type the statement declares (``ResultSet.column_types``: a SELECT's
DOUBLE, DECIMAL and BIGINT items) is sent with that type, length, decimals and flags, as
``Item::make_field`` describes it (a DOUBLE's and a DECIMAL's values are already the server's
text; in the binary protocol a DOUBLE is its 8 bytes, a DECIMAL its text). The filter tables' own
columns are declared as their DDL says (CHAR as MYSQL_TYPE_STRING, LONGTEXT as MYSQL_TYPE_BLOB
with BLOB_FLAG, an ENUM with ENUM_FLAG, ``ACTIVE_SINCE`` as MYSQL_TYPE_TIMESTAMP: binary, its text
in the text protocol and ``store_datetime``'s bytes in the binary one). So the mysql client aligns a
column over the wire as replfilter's own ``-t`` output does. A result with no rows, whose values
cannot tell, declares its integer columns (``ResultSet.integer_columns``): the definitions do not
depend on whether a row comes, and a prepare (learned from a run with NULLs) announces what its
executions send.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import lru_cache

from mysql_mimic.charset import CharacterSet
from mysql_mimic.packets import make_column_count, make_column_definition_41
from mysql_mimic.results import ResultColumn
from mysql_mimic.types import Capabilities, ColumnDefinition, ColumnType

from ..core.results import ColumnType as Declared, ResultSet, Value

NUMBER_FLAGS = ColumnDefinition.UNSIGNED_FLAG | ColumnDefinition.BINARY_FLAG
SIGNED_FLAGS = ColumnDefinition.BINARY_FLAG
TEXT, UNSIGNED, SIGNED = 0, 1, 2
"""A column's kind, read from its values (:func:`_kinds`)."""
NUMBER_LENGTH = 20
"""``BIGINT UNSIGNED``'s display width."""
TEXT_LENGTH = 1024
"""A text column's declared length: ``VARCHAR(256)`` in utf8mb4 (four bytes a character). The
server sends the declared length, not the longest value's; clients size their output from the
values they receive."""


@dataclass(frozen=True)
class WireColumn:
    """mysql-mimic's column (type, character set, encoders) with the length and flags the server
    sends in the column definition (mimic's class is compiled and has neither)."""

    column: ResultColumn
    length: int
    flags: ColumnDefinition
    charset: CharacterSet
    decimals: int = 0

    @classmethod
    def of(cls, name: str, kind: "int | Declared") -> "WireColumn":
        return _column(name, kind)

    def definition(self, server_charset: CharacterSet) -> bytes:
        """The column definition packet (built once per column: the same statements repeat)."""
        return _definition(self, server_charset)


@lru_cache(maxsize=1024)
def _column(name: str, kind: "int | Declared") -> WireColumn:
    if isinstance(kind, Declared):
        return _declared(name, kind)
    if kind == TEXT:
        return WireColumn(ResultColumn(name, ColumnType.VAR_STRING, CharacterSet.utf8mb4),
                          TEXT_LENGTH, ColumnDefinition(0), CharacterSet.utf8mb4)
    column = ResultColumn(name, ColumnType.LONGLONG)  # digits encoded as text; declared binary
    if kind == SIGNED:  # mimic packs BIGINT signed
        return WireColumn(column, NUMBER_LENGTH, SIGNED_FLAGS, CharacterSet.binary)
    column.binary_encoder = _unsigned_bigint
    return WireColumn(column, NUMBER_LENGTH, NUMBER_FLAGS, CharacterSet.binary)


def _declared(name: str, declared: Declared) -> WireColumn:
    """A column of a declared type: a number in the binary character set with UNSIGNED_FLAG,
    and BINARY_FLAG unless it is a numeric table column (:attr:`.ColumnType.binary`); text in
    utf8mb4; NOT_NULL_FLAG for an item that cannot be NULL, NO_DEFAULT_VALUE_FLAG for a table
    column declared NOT NULL without a DEFAULT (:attr:`.ColumnType.no_default`)."""
    if declared.code in (Declared.VAR_STRING, Declared.STRING, Declared.BLOB):
        flags = ColumnDefinition(0) if declared.nullable else ColumnDefinition.NOT_NULL_FLAG
        if declared.code == Declared.BLOB:
            flags |= ColumnDefinition.BLOB_FLAG
        if declared.enum:
            flags |= ColumnDefinition.ENUM_FLAG
        if declared.no_default:
            flags |= ColumnDefinition.NO_DEFAULT_VALUE_FLAG
        return WireColumn(ResultColumn(name, ColumnType(declared.code), CharacterSet.utf8mb4), declared.length, flags,
                          CharacterSet.utf8mb4)
    column = ResultColumn(name, ColumnType(declared.code))
    flags = ColumnDefinition.BINARY_FLAG if declared.binary else ColumnDefinition(0)
    if declared.unsigned:
        flags |= ColumnDefinition.UNSIGNED_FLAG
        if declared.code == Declared.LONGLONG:
            column.binary_encoder = _unsigned_bigint
    if not declared.nullable:
        flags |= ColumnDefinition.NOT_NULL_FLAG
    if declared.no_default:
        flags |= ColumnDefinition.NO_DEFAULT_VALUE_FLAG
    if declared.code == Declared.DOUBLE:
        column.binary_encoder = _double
    if declared.code == Declared.TIMESTAMP:
        column.binary_encoder = _timestamp
    return WireColumn(column, declared.length, flags, CharacterSet.binary, declared.decimals)


@lru_cache(maxsize=1024)
def _definition(column: WireColumn, server_charset: CharacterSet) -> bytes:
    return make_column_definition_41(server_charset=server_charset, name=column.column.name,
                                     column_type=column.column.type, character_set=column.charset,
                                     column_length=column.length, flags=column.flags, decimals=column.decimals)


def _unsigned_bigint(_column: ResultColumn, value: int) -> bytes:
    return struct.pack("<Q", value)


def _double(_column: ResultColumn, value: str | bytes) -> bytes:
    """A DOUBLE in the binary protocol: its 8 bytes, from the server's text of it (the shortest
    digits that read back as the double, so the double itself)."""
    return struct.pack("<d", float(value))


def _timestamp(_column: ResultColumn, value: str | bytes) -> bytes:
    """A TIMESTAMP in the binary protocol (``Protocol_binary::store_datetime``): its length (11
    with microseconds, 7 without, 4 for a date alone, 0 for the zero value), year, month, day,
    hour, minute, second and microseconds, from the text the table holds
    (``YYYY-MM-DD HH:MM:SS.ffffff``)."""
    text = value.decode("ascii") if isinstance(value, bytes) else value
    date, _, clock = text.partition(" ")
    year, month, day = (int(part) for part in date.split("-"))
    whole, _, fraction = clock.partition(".")
    hour, minute, second = (int(part) for part in whole.split(":")) if whole else (0, 0, 0)
    micro = int(fraction.ljust(6, "0")) if fraction else 0
    if micro:
        return struct.pack("<BHBBBBBI", 11, year, month, day, hour, minute, second, micro)
    if hour or minute or second:
        return struct.pack("<BHBBBBB", 7, year, month, day, hour, minute, second)
    if year or month or day:
        return struct.pack("<BHBB", 4, year, month, day)
    return b"\x00"


def result_columns(result: ResultSet) -> tuple[WireColumn, ...]:
    return _columns(result.columns, _kinds(result))


def _kinds(result: ResultSet) -> "tuple[int | Declared, ...]":
    """Each column's kind: its declared type when the result has one for it; else integers and
    no text (a column of NULLs only is text), signed when a value is negative; without rows, the
    integer columns the result declares. Read from the set of the rows' value types, which for
    the short results a client repeats is one or two tuples, and decided once per set; only an
    integer column's values are then looked at."""
    read = _read_kinds(result)
    if result.column_types is None:
        return read
    return tuple(d if d is not None else k for d, k in zip(result.column_types, read))


def _read_kinds(result: ResultSet) -> tuple[int, ...]:
    rows = result.rows
    if not rows:
        return tuple(UNSIGNED if i else TEXT for i in result.integer_columns or (False,) * len(result.columns))
    numeric = _numeric_kinds(frozenset(tuple(map(type, row)) for row in rows))
    if not any(numeric):
        return (TEXT,) * len(numeric)
    return tuple(TEXT if not n else _integer_kind([row[i] for row in rows if row[i] is not None])
                 for i, n in enumerate(numeric))


def _integer_kind(values: list[int]) -> int:
    """UNSIGNED, SIGNED when a value is negative, TEXT (digits) when no BIGINT of either kind
    holds them all: the binary protocol packs a BIGINT in 8 bytes."""
    if min(values) >= 0:
        return UNSIGNED if max(values) < 2 ** 64 else TEXT
    return SIGNED if min(values) >= -(2 ** 63) and max(values) < 2 ** 63 else TEXT


@lru_cache(maxsize=1024)
def _numeric_kinds(kinds: frozenset[tuple[type, ...]]) -> tuple[bool, ...]:
    width = len(next(iter(kinds)))
    numeric = []
    for index in range(width):
        types = {kind[index] for kind in kinds} - {type(None)}
        numeric.append(bool(types) and all(issubclass(t, int) for t in types))
    return tuple(numeric)


@lru_cache(maxsize=1024)
def _columns(names: tuple[str, ...], kinds: "tuple[int | Declared, ...]") -> tuple[WireColumn, ...]:
    return tuple(WireColumn.of(name, kind) for name, kind in zip(names, kinds))


@dataclass(frozen=True)
class ResultHeader:
    """The first packets of a result set, the column count and definitions (unframed), and
    mimic's columns, which encode the rows. Built once per shape of result (names, types, connection character
    set): a client repeats its statements, and mimic builds each packet field by field."""

    packets: tuple[bytes, ...]
    columns: tuple[ResultColumn, ...]


def result_header(result: ResultSet, server_charset: CharacterSet, capabilities: Capabilities) -> ResultHeader:
    # keyed by plain ints: hashing mimic's enums is a Python call, and this runs every statement
    return _header(result.columns, _kinds(result), int(server_charset), int(capabilities))


@lru_cache(maxsize=1024)
def _header(names: tuple[str, ...], kinds: "tuple[int | Declared, ...]", server_charset: int,
            capabilities: int) -> ResultHeader:
    columns = _columns(names, kinds)
    packets = [make_column_count(capabilities=Capabilities(capabilities), column_count=len(columns))]
    packets += [c.definition(CharacterSet(server_charset)) for c in columns]
    return ResultHeader(tuple(packets), tuple(c.column for c in columns))


def wire_rows(result: ResultSet) -> list[tuple[bytes | int | None, ...]]:
    """Rows with text as the bytes the server sends: UTF-8, and a byte that is not UTF-8 (kept
    as a surrogate when a script held one) sent as that byte, as the server echoes it."""
    return [tuple(_wire_value(v) for v in row) for row in result.rows]


def _wire_value(value: Value) -> bytes | int | None:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    return value

