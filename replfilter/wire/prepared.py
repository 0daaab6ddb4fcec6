"""Prepared statements: what a prepare answers, where a ``?`` may stand, the values bound to it.

MySQL 8.4 prepares a statement with ``?`` where its grammar takes an expression. Of the
statements replfilter answers, only a SELECT on the filter tables has expressions (its select
list and WHERE); the replication statements take literals only (``sql_yacc.yy`` gives them no
``param_marker``), so a ``?`` in one stays the parser's 1064, at prepare time as in the server.

The server binds values without going through text, and so does replfilter: the values go to
the Session with the text (``Session.execute_text(text, parameters)``), each keeping its type,
and the SELECT's reader puts each where its ``?`` stands (``replica/perfschema_values.py``).
"""

from __future__ import annotations

import datetime
import decimal
import io
import struct
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from mysql_mimic import packets
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import Capabilities, ColumnType

from ..core.errors import ER, MySQLError
from ..core.results import ResultSet
from ..dialect import ast
from ..dialect.other_statements import placeholder_positions
from ..replica.perfschema_values import UNBOUND, Temporal
from ..server.session import Session

__all__ = ["Prepared", "execute_parameters", "placeholder_positions", "prepare", "time_text"]


DIAGNOSTICS_VARIABLES = frozenset({"warning_count", "error_count"})
"""``@@warning_count`` and ``@@error_count``: the parser marks a statement reading them
DA_KEEP_COUNTS, and ``Prepared_statement::prepare_query`` refuses such a statement, and SHOW
[COUNT(*)] WARNINGS (DA_KEEP_DIAGNOSTICS), with 1295 (``sql_prepare.cc``)."""
RESULT_STATEMENTS = (ast.SelectPerformanceSchema, ast.QueryPerformanceSchema, ast.SelectVariables, ast.ShowCatalog)
"""The statements whose ``sql_command_flags`` have CF_HAS_RESULT_SET (``sql_parse.cc``):
``prepare_query`` sends their result's column definitions with the prepare OK. They are the
SELECTs and SHOW DATABASES / TABLES / TRIGGERS; the other statements announce no column, SHOW
REPLICA STATUS included (SQLCOM_SHOW_SLAVE_STAT is CF_STATUS_COMMAND only): its execution
sends them."""


@dataclass(frozen=True)
class Prepared:
    """What COM_STMT_PREPARE answers: the ``?`` positions in the text, the columns of a SELECT's
    result (a result of that shape, else None), and the warnings the prepare raised."""

    positions: tuple[int, ...]
    shape: ResultSet | None
    warnings: int


def prepare(session: Session, text: str) -> Prepared:
    """Parse ``text`` (a refusal is the server's prepare-time error, 1064, 1235...); refuse what
    8.4 does not prepare (1295); run a SELECT once with every ``?`` NULL (0 in LIMIT) to learn its columns:
    an unknown column is its 1054 here, at prepare time, as the server resolves the statement
    then. The diagnostics, and the OK's warning count, are the parse's warnings (1287 for a
    legacy spelling): what the server raises before it executes anything."""
    statement = session.parse_text(text)
    if isinstance(statement, ast.ShowWarnings) or (
            isinstance(statement, ast.SelectVariables) and any(n in DIAGNOSTICS_VARIABLES for _, n in statement.items)):
        error = MySQLError.of(ER.UNSUPPORTED_PS)
        session.refused(error)
        raise error
    positions = placeholder_positions(text) if isinstance(statement, ast.QueryPerformanceSchema) else ()
    shape = None
    if isinstance(statement, RESULT_STATEMENTS):
        trial = statement
        if isinstance(trial, ast.QueryPerformanceSchema):
            trial = replace(trial, parameters=(UNBOUND,) * len(positions))
        shape = session.execute(trial)
        assert isinstance(shape, ResultSet)
    session.prepared(statement)  # the run's own warnings are an execution's, not the prepare's
    return Prepared(positions, shape, len(session.diagnostics))


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
            return Temporal(f"{year:04d}-{month:02d}-{day:02d}")
        text = f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}"
        return Temporal(f"{text}.{micro:06d}" if micro else text)
    if kind == ColumnType.TIME:
        fields = reader.read(packets.read_uint_1(reader)) + bytes(12)
        negative, days, hour, minute, second, micro = struct.unpack("<BIBBBI", fields[:12])
        value = datetime.timedelta(days=days, hours=hour, minutes=minute, seconds=second, microseconds=micro)
        return Temporal(time_text(-value if negative else value))
    return packets._read_param_value(charset, reader, kind, declared.unsigned)


def _long_data_value(charset: CharacterSet, data: bytes) -> Any:
    """Long data is a string in the client's character set, or bytes where it is not one."""
    try:
        return charset.decode(data)
    except UnicodeDecodeError:
        return bytes(data)
