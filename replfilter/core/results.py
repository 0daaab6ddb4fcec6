"""What a statement returns, before any formatting: a result set or an OK, each with its conditions.

Values in rows are ``str``, ``int`` or ``None`` (SQL NULL); the formatter decides how they look.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Condition

Value = str | int | None


@dataclass(frozen=True)
class ColumnType:
    """A result column's type as the server's column definition states it (``Send_field``:
    ``Item::make_field``): the ``MYSQL_TYPE_*`` code, the length (the item's ``max_length``),
    decimals (31 for a double with no fixed scale), UNSIGNED, and whether it may be NULL."""

    code: int
    length: int
    decimals: int = 0
    unsigned: bool = False
    nullable: bool = True
    enum: bool = False
    """ENUM_FLAG: an ENUM column (sent as MYSQL_TYPE_STRING)."""
    no_default: bool = False
    """NO_DEFAULT_VALUE_FLAG: a table column declared NOT NULL with no DEFAULT
    (``Create_field::init`` sets it; ``fill_column_from_dd`` keeps it on the TABLE_SHARE's
    field, and ``Field::make_send_field`` sends the field's flags)."""
    binary: bool = True
    """BINARY_FLAG on a number or temporal: ``Item::init_make_field`` sets it for every item
    of the binary collation (a computed number), ``Field_temporal``'s constructor for a
    temporal column; ``Field_num``'s sets only UNSIGNED_FLAG/ZEROFILL_FLAG, so a numeric table
    column is sent without it (``sql/field.h``, ``sql/field.cc``)."""

    LONGLONG = 8
    DOUBLE = 5
    TIMESTAMP = 7
    NEWDECIMAL = 246
    BLOB = 252
    VAR_STRING = 253
    STRING = 254

    @property
    def numeric(self) -> bool:
        """``IS_NUM``: the mysql client right-aligns the column."""
        return self.code in (self.LONGLONG, self.DOUBLE, self.NEWDECIMAL)


@dataclass(frozen=True)
class ResultSet:
    columns: tuple[str, ...]
    rows: tuple[tuple[Value, ...], ...]
    warnings: tuple[Condition, ...] = ()
    integer_columns: tuple[bool, ...] | None = None
    """Which columns are integers (COUNTER, COUNT(*), SHOW WARNINGS' Code), for a result with
    no rows, whose values cannot tell: the wire announces a column's type as the server does
    whether or not a row comes. None: read from the values."""
    column_types: tuple[ColumnType | None, ...] | None = None
    """Each column's declared type where the statement knows it (a SELECT's computed items:
    DOUBLE, DECIMAL, BIGINT), with or without rows; None (for the result or a column): read
    from the values and ``integer_columns``."""

    def as_dicts(self) -> list[dict[str, Value]]:
        return [dict(zip(self.columns, row)) for row in self.rows]


@dataclass(frozen=True)
class Ok:
    """MySQL's OK packet: ``Query OK, N rows affected``."""

    affected_rows: int = 0
    warnings: tuple[Condition, ...] = ()


Result = ResultSet | Ok
