"""What a statement returns, before any formatting: a result set or an OK, each with its conditions.

Values in rows are ``str``, ``int`` or ``None`` (SQL NULL); the formatter decides how they look.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Condition

Value = str | int | None


@dataclass(frozen=True)
class ResultSet:
    columns: tuple[str, ...]
    rows: tuple[tuple[Value, ...], ...]
    warnings: tuple[Condition, ...] = ()
    integer_columns: tuple[bool, ...] | None = None
    """Which columns are integers (COUNTER, COUNT(*), SHOW WARNINGS' Code), for a result with
    no rows, whose values cannot tell: the wire announces a column's type as the server does
    whether or not a row comes. None: read from the values."""

    def as_dicts(self) -> list[dict[str, Value]]:
        return [dict(zip(self.columns, row)) for row in self.rows]


@dataclass(frozen=True)
class Ok:
    """MySQL's OK packet: ``Query OK, N rows affected``."""

    affected_rows: int = 0
    warnings: tuple[Condition, ...] = ()


Result = ResultSet | Ok
