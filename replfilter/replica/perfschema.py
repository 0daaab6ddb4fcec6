"""The two performance_schema filter tables and the SELECTs people type against them.

Rows exist only for types that have been set (ACTIVE_SINCE != 0), ordered by channel name then
MySQL's fixed type order (mysql-filter-statements.md, 8.2). Queries support ``*``/columns/``COUNT(*)``, ``WHERE col = v
[AND ...]`` (also ``<>``), ``ORDER BY`` and ``LIMIT``; that is what DBAs type at these tables.

Comparison choice (documented, tested): P_S CHAR/ENUM columns compare under the server's default
collation utf8mb4_0900_ai_ci, so ``WHERE channel_name = 'CH_1'`` matches ``ch_1``; replfilter
compares case-insensitively and ignores trailing spaces (PAD SPACE). COUNTER compares as a number.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from ..dialect import ast
from ..core.errors import ER, MySQLError
from ..core.filters import FilterSet
from ..core.results import ResultSet, Value
from .state import ReplicaState

SCHEMA = "performance_schema"
CHANNEL_TABLE = "replication_applier_filters"
GLOBAL_TABLE = "replication_applier_global_filters"

CHANNEL_COLUMNS = ("CHANNEL_NAME", "FILTER_NAME", "FILTER_RULE", "CONFIGURED_BY", "ACTIVE_SINCE", "COUNTER")
GLOBAL_COLUMNS = ("FILTER_NAME", "FILTER_RULE", "CONFIGURED_BY", "ACTIVE_SINCE")
NUMERIC_COLUMNS = frozenset({"COUNTER"})


def format_timestamp(microseconds: int) -> str:
    """TIMESTAMP(6) as the client shows it, in the session (here: process) time zone."""
    if microseconds == 0:
        return "0000-00-00 00:00:00.000000"
    return datetime.fromtimestamp(microseconds / 1_000_000).strftime("%Y-%m-%d %H:%M:%S.%f")


def _filter_rows(filters: FilterSet) -> list[tuple[str, str, str, str, int]]:
    rows = []
    for ftype, slot in filters.items():
        if slot.is_set:
            configured_by = slot.configured_by.value if slot.configured_by else ""
            rows.append((ftype.keyword, filters.display(ftype), configured_by, format_timestamp(slot.active_since), slot.counter))
    return rows


def channel_filter_rows(state: ReplicaState) -> list[tuple[Value, ...]]:
    """replication_applier_filters: every channel's set types (channels are kept in name order)."""
    return [(channel.name, *row) for channel in state.channels for row in _filter_rows(channel.filters)]


def global_filter_rows(state: ReplicaState) -> list[tuple[Value, ...]]:
    """replication_applier_global_filters: no CHANNEL_NAME and no COUNTER."""
    return [row[:4] for row in _filter_rows(state.global_filters)]


TABLES: dict[str, tuple[tuple[str, ...], Callable[[ReplicaState], list[tuple[Value, ...]]]]] = {
    CHANNEL_TABLE: (CHANNEL_COLUMNS, channel_filter_rows),
    GLOBAL_TABLE: (GLOBAL_COLUMNS, global_filter_rows),
}


def _collate(value: Value) -> Value:
    return value.rstrip(" ").casefold() if isinstance(value, str) else value


def _column_index(columns: tuple[str, ...], name: str, clause: str) -> int:
    upper = name.upper()
    if upper not in columns:
        raise MySQLError.of(ER.BAD_FIELD_ERROR, name, clause)
    return columns.index(upper)


def _coerce(column: str, value: str | int) -> Value:
    if column in NUMERIC_COLUMNS:
        try:
            return int(value)
        except ValueError:
            return 0  # MySQL converts a non-numeric string to 0 (with a warning)
    return _collate(str(value))


def _matches(row: tuple[Value, ...], tests: list[tuple[int, str, Value]]) -> bool:
    for index, operator, wanted in tests:
        equal = _collate(row[index]) == wanted
        if equal != (operator == "="):
            return False
    return True


def _resolve_table(state: ReplicaState, stmt: ast.SelectPerformanceSchema) -> str:
    if stmt.schema is None:
        raise MySQLError.of(ER.NO_DB_ERROR)
    table = stmt.table.lower() if state.collation.case_insensitive else stmt.table
    if stmt.schema.lower() != SCHEMA or table not in TABLES:
        raise MySQLError.of(ER.NO_SUCH_TABLE, stmt.schema, stmt.table)
    return table


def select_performance_schema(state: ReplicaState, stmt: ast.SelectPerformanceSchema) -> ResultSet:
    table = _resolve_table(state, stmt)
    columns, build_rows = TABLES[table]
    if stmt.columns is None:
        selected = list(range(len(columns)))
        headers = columns
    else:
        selected = [_column_index(columns, name, "field list") for name in stmt.columns]
        headers = stmt.columns
    tests = []
    for comparison in stmt.where:
        index = _column_index(columns, comparison.column, "where clause")
        tests.append((index, comparison.operator, _coerce(columns[index], comparison.value)))
    order = [(_column_index(columns, item.column, "order clause"), item.descending) for item in stmt.order_by]
    rows = [row for row in build_rows(state) if _matches(row, tests)]
    for index, descending in reversed(order):
        rows.sort(key=lambda row: _collate(row[index]), reverse=descending)  # type: ignore[arg-type,return-value]
    if stmt.count:
        rows = [(len(rows),)]
        selected, headers = [0], ("COUNT(*)",)
    if stmt.limit is not None:
        rows = rows[: stmt.limit]
    return ResultSet(tuple(headers), tuple(tuple(row[i] for i in selected) for row in rows))


def query_performance_schema(state: ReplicaState, sql: str) -> ResultSet:
    """A SELECT on the filter tables beyond the grammar's (``>``, ``LIKE``, ``IN``, aliases,
    ``GROUP BY``, aggregates...), run by sqlglot's executor over the tables' rows. String
    comparisons are made on lower-cased values, as the server's case-insensitive collation does;
    an unnamed column is named by its expression. A query sqlglot cannot run is 1235."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.executor import execute

    tree = sqlglot.parse_one(sql, read="mysql")
    names = [e.alias_or_name if isinstance(e, (exp.Column, exp.Alias)) else e.sql(dialect="mysql")
             for e in tree.expressions]
    for comparison in list(tree.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.In)):
        if any(isinstance(node, exp.Literal) and node.is_string for node in comparison.walk()):
            for operand in list(comparison.iter_expressions()):
                if isinstance(operand, (exp.Column, exp.Literal)):
                    operand.replace(exp.Lower(this=operand.copy()))
    tables = {name: [dict(zip(columns, row)) for row in rows(state)] for name, (columns, rows) in TABLES.items()}
    try:
        result = execute(tree, tables={SCHEMA: tables})
    except Exception as error:  # sqlglot's executor covers a subset of SQL
        raise MySQLError.of(ER.NOT_SUPPORTED_YET, f"this query on the filter tables in replfilter ({error})") from None
    if len(names) == 1 and names[0] == "*":  # the table's columns, named as the table names them
        known = {c.lower(): c for c in (*CHANNEL_COLUMNS, *GLOBAL_COLUMNS)}
        names = [known.get(c.lower(), c) for c in result.columns]
    return ResultSet(tuple(names), tuple(tuple(r) for r in result.rows))
