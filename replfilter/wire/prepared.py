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
from typing import Any, Sequence

from mysql_mimic import packets
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import Capabilities


def placeholder_positions(text: str) -> tuple[int, ...]:
    """Where each ``?`` of ``text`` starts, not counting one inside quotes or a comment."""
    from sqlglot.dialects.mysql import MySQL
    from sqlglot.errors import TokenError
    from sqlglot.tokens import TokenType

    try:
        tokens = MySQL().tokenize(text)
    except TokenError:  # an unterminated quote: the statement's own error comes from the parser
        return ()
    return tuple(token.start for token in tokens if token.token_type is TokenType.PLACEHOLDER)


def bind(text: str, positions: Sequence[int], values: Sequence[Any]) -> str:
    """``text`` with the ``?`` at each position replaced by its value's SQL literal."""
    pieces, start = [], 0
    for position, value in zip(positions, values):
        pieces += [text[start:position], sql_literal(value)]
        start = position + 1
    pieces.append(text[start:])
    return "".join(pieces)


def sql_literal(value: Any) -> str:
    """A value of the binary protocol (as mysql-mimic reads it) as a MySQL literal."""
    from sqlglot import exp

    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, decimal.Decimal)):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (bytes, bytearray)):
        return f"X'{bytes(value).hex()}'"
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        value = str(value)
    return exp.Literal.string(str(value)).sql(dialect="mysql")


def execute_parameters(capabilities: Capabilities, charset: CharacterSet, data: bytes,
                       count: int) -> list[Any]:
    """The values a COM_STMT_EXECUTE packet binds to ``count`` placeholders (after the statement
    id, the cursor flags and the iteration count). mysql-mimic reads them; its public reader also
    pastes them into the text unquoted (``'it's'``), so its two readers are called directly."""
    reader = io.BytesIO(data)
    reader.read(4)  # the statement id, already read
    packets._read_cursor_flags(reader)
    reader.read(4)  # iteration count: always 1
    return [value for _name, value in packets._read_params(capabilities, charset, reader, count)]
