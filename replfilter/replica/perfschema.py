"""The two performance_schema filter tables and the SELECTs people type against them.

Rows exist only for types that have been set (ACTIVE_SINCE != 0), ordered by channel name then
MySQL's fixed type order (mysql-filter-statements.md, 8.2). Queries support ``*``/columns/``COUNT(*)``, ``WHERE col = v
[AND ...]`` (also ``<>``), ``ORDER BY`` and ``LIMIT``; that is what DBAs type at these tables.

The text columns compare, sort and group under the tables' collation, utf8mb4_0900_ai_ci:
case- and accent-insensitive, NO PAD (trailing spaces count), :mod:`.perfschema_collation`. So
``WHERE channel_name = 'CH_1'`` matches ``ch_1`` and ``= 'ch_1 '`` matches nothing. COUNTER
compares as a number.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, Sequence

from ..dialect import ast
from ..core.errors import ER, Condition, MySQLError
from ..core.filters import FilterSet
from ..core.results import ColumnType, ResultSet, Value
from .perfschema_arith import (Arithmetic, Unsigned, decimal_text, mysql_operators, negation_kinds,
                               print_operators)
from .perfschema_collation import (collate, collate_for_like, collated_distinct_counts, collated_groups, collated_max,
                                  collated_min, collated_order, distinct_as_groups, enum_index, sort_key)
from .perfschema_groupcheck import check_distinct_order, check_group_by, resolve_group_references, take_dependents
from .perfschema_having import grouped_by_having, having_as_where, having_target, in_aggregate
from .perfschema_like import like_calls, mysql_like
from .perfschema_types import select_types
from .perfschema_values import (Parameter, bind_doubles, bind_values, double_text, placeholder_names,
                                read_text_as_doubles, select_item_texts, split_numbers, text_to_double, unnamed)
from .state import ReplicaState

if TYPE_CHECKING:
    from sqlglot import exp
    from sqlglot.executor.table import Table

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


def _text_column(code: int, characters: int, enum: bool = False) -> ColumnType:
    """A utf8mb4 column as ``send_field_metadata`` describes it to a utf8mb4 client: its bytes
    (characters x 4; a LONGTEXT's 4 GB - 1 is capped at UINT_MAX32), NOT NULL with no DEFAULT
    (so NO_DEFAULT_VALUE_FLAG: every text column of both tables is declared so)."""
    return ColumnType(code, min(characters * 4, 2 ** 32 - 1), nullable=False, enum=enum, no_default=True)


_NAME_COLUMN = _text_column(ColumnType.STRING, 64)
COLUMN_DEFINITIONS = {
    CHANNEL_TABLE: {"CHANNEL_NAME": _NAME_COLUMN, "FILTER_NAME": _NAME_COLUMN,
                    "FILTER_RULE": _text_column(ColumnType.BLOB, 2 ** 32 - 1),
                    "CONFIGURED_BY": _text_column(ColumnType.STRING, len("CHANGE_REPLICATION_FILTER_FOR_CHANNEL"), True),
                    "ACTIVE_SINCE": ColumnType(ColumnType.TIMESTAMP, 26, 6, nullable=False),
                    "COUNTER": ColumnType(ColumnType.LONGLONG, 20, 0, unsigned=True, nullable=False, binary=False)},
    GLOBAL_TABLE: {"FILTER_NAME": _NAME_COLUMN, "FILTER_RULE": _text_column(ColumnType.BLOB, 2 ** 32 - 1),
                   "CONFIGURED_BY": _text_column(ColumnType.STRING, len("CHANGE_REPLICATION_FILTER"), True),
                   "ACTIVE_SINCE": ColumnType(ColumnType.TIMESTAMP, 26, 6, nullable=False)},
}
"""Each table's columns as the server sends their definitions, from the tables' own DDL
(``storage/perfschema/table_replication_applier_filters.cc`` and ``..._global_filters.cc``:
``CHANNEL_NAME CHAR(64) not null``, ``FILTER_NAME CHAR(64) not null``, ``FILTER_RULE LONGTEXT
not null``, ``CONFIGURED_BY ENUM(...) not null``, ``ACTIVE_SINCE TIMESTAMP(6) NOT NULL default
0``, ``COUNTER bigint(20) unsigned NOT NULL default 0``) in the schema's utf8mb4 (``CREATE SCHEMA
performance_schema CHARACTER SET utf8mb4``, ``sql/dd/performance_schema/init.cc``): CHAR is
MYSQL_TYPE_STRING, LONGTEXT MYSQL_TYPE_BLOB (BLOB_FLAG), an ENUM MYSQL_TYPE_STRING with
ENUM_FLAG and its longest value's length, TIMESTAMP(6) MYSQL_TYPE_TIMESTAMP of 26 characters
and 6 decimals (BINARY_FLAG, as ``Field_temporal`` sets it). The DDL runs as a CREATE TABLE
(``create_pfs_tables``), so ``Create_field::init`` gives the four columns without a DEFAULT
NO_DEFAULT_VALUE_FLAG, and not ACTIVE_SINCE and COUNTER (``default 0``). COUNTER, a
``Field_longlong``, has UNSIGNED_FLAG and no BINARY_FLAG (``Field_num``'s constructor; only
an item's ``init_make_field`` adds BINARY_FLAG for the binary collation)."""


TABLES: dict[str, tuple[tuple[str, ...], Callable[[ReplicaState], list[tuple[Value, ...]]]]] = {
    CHANNEL_TABLE: (CHANNEL_COLUMNS, channel_filter_rows),
    GLOBAL_TABLE: (GLOBAL_COLUMNS, global_filter_rows),
}


def _column_index(columns: tuple[str, ...], name: str, clause: str) -> int:
    upper = name.upper()
    if upper not in columns:
        raise MySQLError.of(ER.BAD_FIELD_ERROR, name, clause)
    return columns.index(upper)


def _coerce(column: str, value: str | int, warnings: list[Condition]) -> Value | float:
    if column in NUMERIC_COLUMNS:  # COUNTER = '1.5' compares as doubles: the string's numeric prefix
        if isinstance(value, int):
            return value
        double, warning = text_to_double(value)
        if warning is not None:
            warnings.append(warning)
        return double
    return collate(str(value))


def _matches(row: tuple[Value, ...], tests: list[tuple[int, str, Value]]) -> bool:
    for index, operator, wanted in tests:
        equal = collate(row[index]) == wanted
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
    tests, warnings = [], []
    for comparison in stmt.where:
        index = _column_index(columns, comparison.column, "where clause")
        tests.append((index, comparison.operator, _coerce(columns[index], comparison.value, warnings)))
    order = [(_column_index(columns, item.column, "order clause"), item.descending) for item in stmt.order_by]
    rows = [row for row in build_rows(state) if _matches(row, tests)]
    for index, descending in reversed(order):
        rows.sort(key=lambda row: sort_key(columns[index], row[index]), reverse=descending)  # type: ignore[arg-type,return-value]
    if stmt.count:
        rows = [(len(rows),)]
        selected, headers = [0], (stmt.count_name,)
    if stmt.limit is not None:
        rows = rows[: stmt.limit]
    integers = None if rows else (True,) if stmt.count else tuple(columns[i] in NUMERIC_COLUMNS for i in selected)
    definitions = COLUMN_DEFINITIONS[table]
    types = (COUNT_TYPE,) if stmt.count else tuple(definitions[columns[i]] for i in selected)
    return ResultSet(tuple(headers), tuple(tuple(row[i] for i in selected) for row in rows), tuple(warnings),
                     integers, types)


COUNT_TYPE = ColumnType(ColumnType.LONGLONG, 21, 0, False, False)
"""``COUNT(*)``: ``Item_sum_count`` is an ``Item_sum_int`` (``set_data_type_longlong``: BIGINT of
21 characters, signed) and never NULL."""


COLUMN_TYPES = {"CHANNEL_NAME": "VARCHAR", "FILTER_NAME": "VARCHAR", "FILTER_RULE": "VARCHAR",
                "CONFIGURED_BY": "VARCHAR", "ACTIVE_SINCE": "VARCHAR", "COUNTER": "BIGINT"}
"""The tables' columns as sqlglot's executor is told them (ACTIVE_SINCE is held as its text)."""
_CLAUSES = {"expressions": "field list", "where": "where clause", "group": "group statement",
            "having": "having clause", "order": "order clause"}
"""The clause a column is resolved in, as 1054 names it, in the order mysqld resolves them."""
_DOUBLE_SPACING = 2 ** 52
"""Below this a double holds ``n + 0.5`` exactly."""


def query_performance_schema(state: ReplicaState, sql: str, parameters: Sequence[Parameter] | None = None) -> ResultSet:
    """A SELECT on the filter tables beyond the grammar's (``>``, ``LIKE``, ``IN``, aliases,
    ``GROUP BY``, aggregates...), run by sqlglot's executor over the tables' rows. String
    comparisons are made on the collation's keys (:mod:`.perfschema_collation`: utf8mb4_0900_ai_ci);
    an unnamed column is named by its expression (a ``?`` as ``?``). Numeric literals compare as
    MySQL's do (:func:`_numeric_literals`), text read as a double is MySQL's double with its
    1292 warning (:mod:`.perfschema_values`); an unknown column is 1054 naming its clause; a
    ``?`` is the parser's 1064 unless ``parameters`` (a prepared statement's values) bind it; a
    query sqlglot cannot run is 1235 (its own message never reaches the user). Computed items
    carry the type the server gives them (:mod:`.perfschema_types`)."""
    import sqlglot
    from sqlglot import exp

    from ..dialect.other_statements import placeholder_positions
    from ..dialect.parser import syntax_error

    positions = placeholder_positions(sql)
    if positions and parameters is None:
        raise syntax_error(sql, positions[0], state.version)
    values = tuple(parameters or ())
    if len(values) != len(positions):  # the wire counts the same ``?``; a mismatch is the client's
        raise MySQLError.of(ER.WRONG_ARGUMENTS, "COM_STMT_EXECUTE")  # mysql_stmt_precheck's count check
    tree = sqlglot.parse_one(_readable(sql, positions), read="mysql")
    names = _select_names(tree, sql)
    _check_columns(tree)
    resolve_group_references(tree, _table_columns(tree))
    dependents = check_group_by(tree, SCHEMA, _table_columns(tree))
    check_distinct_order(tree, SCHEMA, _table_columns(tree))
    definitions = COLUMN_DEFINITIONS.get(_table_name(tree), {})
    implicit = tree.args.get("group") is None
    declared = tuple(d if d is not None else _column_definition(e, definitions, bool(dependents) and implicit)
                     for d, e in zip(select_types(tree.expressions), tree.expressions))
    take_dependents(tree, dependents)
    texts = print_operators(tree, SCHEMA, frozenset(COLUMN_TYPES))
    having_as_where(tree)  # after the prints: a reference prints as itself, not as its item
    negations = negation_kinds(tree)
    temporals = bind_values(tree, values)
    _numeric_literals(tree)
    numeric = []
    for comparison in list(tree.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ,
                                         exp.Like, exp.In, exp.Between)):
        if _numeric(comparison):  # COUNTER and a string compare as doubles (read_text_as_doubles)
            numeric.append(comparison)
        elif any(isinstance(node, exp.Literal) and node.is_string for node in comparison.walk()):
            for operand in comparison.iter_expressions():
                if isinstance(operand, (exp.Column, exp.Literal)):  # the columns' utf8mb4_0900_ai_ci
                    function = "RF_CI_LIKE" if isinstance(comparison, exp.Like) else "RF_CI"
                    operand.replace(exp.Anonymous(this=function, expressions=[operand.copy()]))
    like_calls(tree)
    warnings = read_text_as_doubles(tree, numeric, temporals)
    bind_doubles(tree, values)
    arithmetic = Arithmetic()
    mysql_operators(tree, texts, arithmetic, negations)
    collated_distinct_counts(tree)
    distinct_as_groups(tree)
    collated_order(tree)
    collated_groups(tree)
    tables = {name: [_typed(dict(zip(columns, row))) for row in rows(state)] for name, (columns, rows) in TABLES.items()}
    schema = {SCHEMA: {name: {c: COLUMN_TYPES[c] for c in columns} for name, (columns, _) in TABLES.items()}}
    hidden = grouped_by_having(tree)
    try:
        result = _execute(tree, schema, {SCHEMA: tables}, arithmetic)
    except MySQLError:  # 1690: the statement fails, and changes nothing (a SELECT changes nothing)
        raise
    except Exception:  # sqlglot's executor covers a subset of SQL; its message is about its own internals
        raise MySQLError.of(ER.NOT_SUPPORTED_YET, "this query on the filter tables in replfilter") from None
    if len(names) == 1 and names[0] == "*":  # the table's columns, named as the table names them
        known = {c.lower(): c for c in (*CHANNEL_COLUMNS, *GLOBAL_COLUMNS)}
        names = [known.get(c.lower(), c) for c in result.columns]
        declared = tuple(definitions.get(name) for name in names)
    integers = None if result.rows else _integer_columns(sql, positions, schema, len(names))
    rows_out = tuple(tuple(_text(v) for v in r[: len(r) - hidden]) for r in result.rows)
    types = declared if len(declared) == len(names) and any(declared) else None
    return ResultSet(tuple(names), rows_out, (*warnings, *arithmetic.warnings), integers, types)


def _readable(sql: str, positions: Sequence[int]) -> str:
    """``sql`` as sqlglot's reader is given it: select options as it takes them
    (:func:`.clause_order.canonical_options`, at the same positions), each ``?`` named, numbers
    split as MySQL's lexer splits them (:mod:`.perfschema_values`)."""
    from ..dialect.clause_order import canonical_options

    text = canonical_options(sql)
    return split_numbers(placeholder_names(text, positions) if positions else text)


def fold_quoted_names(tree: "exp.Expr") -> "exp.Expr":
    """``tree`` with its quoted column names and select aliases read as unquoted ones (a name
    that needs its quotes, `` `x y` ``, in lower case, as sqlglot's optimizer folds unquoted
    names): the optimizer keeps a quoted name's case, so `` `FILTER_NAME` `` would name no column
    of the schema, and ORDER BY `` `X` `` no alias ``x``.

    In MySQL quoting only lets a name hold any character: a column's name is compared without
    regard to case, quoted or not (``find_field_in_table`` and ``Item_field::eq`` compare names
    with ``my_strcasecmp(system_charset_info, ...)``, ``sql/sql_base.cc``, ``sql/item.cc``), and
    so is a select alias (``find_item_in_list``). Table names are left alone: their case is
    ``lower_case_table_names``' business, settled where the tables are resolved."""
    from sqlglot import exp

    for identifier in list(tree.find_all(exp.Identifier)):
        parent = identifier.parent
        if identifier.quoted and ((isinstance(parent, exp.Column) and identifier.arg_key == "this")
                                  or (isinstance(parent, exp.Alias) and identifier.arg_key == "alias")):
            if _PLAIN_NAME.fullmatch(identifier.name):
                identifier.set("quoted", False)
            else:
                identifier.set("this", identifier.name.lower())
    return tree


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
"""A name that reads the same unquoted (a reserved word too: the tree is parsed already)."""


def _table_name(tree: "exp.Expr") -> str:
    """The filter table the query reads (lower case)."""
    from sqlglot import exp

    table = tree.find(exp.Table)
    return table.name.lower() if table is not None else CHANNEL_TABLE


def _table_columns(tree: "exp.Expr") -> tuple[str, ...]:
    """The columns of the filter table the query reads, in the table's order."""
    found = TABLES.get(_table_name(tree))
    return found[0] if found is not None else CHANNEL_COLUMNS


def _column_definition(expression: "exp.Expr", definitions: dict[str, ColumnType],
                       nullable: bool = False) -> ColumnType | None:
    """The table's definition of a select item that is one of its columns (aliased or not);
    ``nullable`` for a column an implicitly grouped query shows (NULL when no row matched)."""
    from dataclasses import replace

    from sqlglot import exp

    node = expression.this if isinstance(expression, exp.Alias) else expression
    found = definitions.get(node.name.upper()) if isinstance(node, exp.Column) else None
    return replace(found, nullable=True) if found is not None and nullable else found


def _select_names(tree: "exp.Expr", sql: str) -> list[str]:
    """The result's column names as the server gives them: an alias, a column as typed, a string
    literal by its value (``Item_string``'s name), any other item by its text as typed
    (:func:`.perfschema_values.select_item_texts`; sqlglot's own rendering when the select list
    cannot be read so)."""
    from sqlglot import exp

    texts = select_item_texts(sql)
    if texts is not None and len(texts) != len(tree.expressions):
        texts = None
    names = []
    for index, expression in enumerate(tree.expressions):
        if isinstance(expression, (exp.Column, exp.Alias)):
            names.append(expression.alias_or_name)
        elif isinstance(expression, exp.Literal) and expression.is_string:
            names.append(expression.this)
        else:
            names.append(texts[index] if texts is not None else unnamed(expression).sql(dialect="mysql"))
    return names


def _typed(row: dict) -> dict:
    """A table row for the executor, COUNTER marked BIGINT UNSIGNED (:class:`.perfschema_arith.Unsigned`)."""
    if row.get("COUNTER") is not None:
        row["COUNTER"] = Unsigned(row["COUNTER"])
    return row


def _text(value: object) -> object:
    """A double or DECIMAL as the server writes it; a truth value as the integer it is in MySQL
    (a comparison, ``LIKE``, ``IN``, ``NOT``, ``AND``... is an ``Item_bool_func``, whose
    ``val_int`` is 1 or 0: ``sql/item_cmpfunc.h``); other values as they are (an unsigned
    integer as a plain one)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return double_text(value)
    if isinstance(value, Decimal):
        return decimal_text(value)
    if isinstance(value, Unsigned):
        return int(value)
    return value


def _execute(tree: "exp.Expr", schema: dict, tables: dict, arithmetic: Arithmetic) -> "Table":
    """sqlglot's ``execute`` (optimize, plan, run) with MySQL's arithmetic in the executor's
    functions (:mod:`.perfschema_arith`): ``execute`` takes no functions of its own."""
    from sqlglot.errors import ExecuteError
    from sqlglot.executor import ensure_tables
    from sqlglot.executor.python import PythonExecutor
    from sqlglot.optimizer import optimize
    from sqlglot.planner import Plan
    from sqlglot.schema import ensure_schema

    optimized = optimize(fold_quoted_names(tree), ensure_schema(schema), leave_tables_isolated=True)
    try:
        env = {**arithmetic.env(), "RF_CI": collate, "RF_CI_LIKE": collate_for_like, "RF_LIKE": mysql_like, "RF_ENUM": enum_index, "MAX": collated_max, "MIN": collated_min}
        return PythonExecutor(env=env, tables=ensure_tables(tables)).execute(Plan(optimized))
    except ExecuteError as error:  # the executor wraps what a step raised: a MySQL error is ours
        if isinstance(error.__cause__, MySQLError):
            raise error.__cause__ from None
        raise


def _integer_columns(sql: str, positions: Sequence[int], schema: dict, count: int) -> tuple[bool, ...]:
    """The select list's integer columns, by the types sqlglot's optimizer gives them over the
    tables' schema (COUNTER is BIGINT, so are COUNT(*) and COUNTER + 1; ``/``, AVG and SUM of
    integers are DECIMAL, :mod:`.perfschema_arith`): read only for a result with no rows, whose
    values cannot tell."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.optimizer import optimize

    tree = sqlglot.parse_one(_readable(sql, positions), read="mysql")
    try:
        typed = optimize(fold_quoted_names(tree), schema=schema, dialect="mysql")
    except Exception:  # an expression sqlglot cannot type: text, as before the types were read
        return (False,) * count
    kinds = tuple(e.type is not None and e.type.is_type(*exp.DataType.INTEGER_TYPES)
                  and not any(isinstance(n, exp.Literal) and n.is_string for n in e.walk())  # 'x' + 1 is a DOUBLE
                  and not any(isinstance(n, (exp.Div, exp.Avg, exp.Sum)) for n in e.walk())  # DECIMAL in MySQL
                  for e in typed.expressions)
    return kinds if len(kinds) == count else (False,) * count


def _check_columns(tree: "exp.Expr") -> None:
    """1054 for a column the tables in its scope do not have, naming the clause it is in; a select
    alias may be named after the field list, except in WHERE (as in MySQL); in HAVING, outside
    an aggregate, only what the select list or GROUP BY has (:mod:`.perfschema_having`). A
    column resolves against the tables of its own query block and the blocks around it
    (:func:`_scope_columns`), so the global table's query knows no COUNTER, inside an aggregate
    too (``SUM(COUNTER)``: ``Item_field::fix_fields`` resolves the argument before the
    aggregate is resolved, 1054 ``in 'field list'``)."""
    from sqlglot import exp

    aliases = {e.alias.upper() for e in tree.expressions if isinstance(e, exp.Alias)}
    unknown: dict[str, str] = {}
    for column in tree.find_all(exp.Column):
        node = column
        while node.parent is not None and node.parent is not tree:
            node = node.parent
        clause = _CLAUSES.get(node.arg_key or "", "field list")
        name = column.name.upper()
        if clause == "having clause" and not in_aggregate(column):
            if having_target(tree, column, _table_columns(tree)) is None:
                unknown.setdefault(clause, ".".join(part.name for part in column.parts))
            continue
        if name in _scope_columns(column) or (name in aliases and clause not in ("field list", "where clause")):
            continue
        unknown.setdefault(clause, ".".join(part.name for part in column.parts))
    for clause in _CLAUSES.values():
        if clause in unknown:
            raise MySQLError.of(ER.BAD_FIELD_ERROR, unknown[clause], clause)


def _scope_columns(column: "exp.Expr") -> frozenset[str]:
    """The columns ``column`` can name: those of the filter tables each enclosing query block
    reads (``find_field_in_tables`` in its own block, then the outer ones), every filter-table
    column where a block reads a derived table (its columns are the derived query's)."""
    from sqlglot import exp

    names: set[str] = set()
    block = column.find_ancestor(exp.Select)
    while block is not None:
        for source in _block_sources(block):
            table = TABLES.get(source.name.lower()) if isinstance(source, exp.Table) else None
            names.update(table[0] if table is not None else COLUMN_TYPES)
        block = block.parent.find_ancestor(exp.Select) if block.parent is not None else None
    return frozenset(names or COLUMN_TYPES)


def _block_sources(block: "exp.Expr") -> list["exp.Expr"]:
    """What one query block reads: its FROM's and its joins' tables or derived tables."""
    source = block.args.get("from_") or block.args.get("from")
    sources = [source.this] if source is not None else []
    return sources + [join.this for join in block.args.get("joins") or ()]


def _numeric_literals(tree: "exp.Expr") -> None:
    """MySQL's numeric literals, for sqlglot's executor (which reads each as a Python number).

    One with an exponent is a double (out of range: 1367, as the server's lexer says it); one
    with a point is an exact DECIMAL. A DECIMAL compared with COUNTER (an integer) compares
    exactly in MySQL, so ``COUNTER = 1.5`` matches nothing and ``COUNTER = 1.0`` matches 1: an
    integral one becomes that integer, and a fractional one ``n + 0.5`` with the same integer
    part (a double holds it exactly below 2**52; ``0.99999999999999999999`` would round to 1.0).
    Against a string column MySQL compares as doubles, which the literal read as a float is.
    Elsewhere it stays a DECIMAL with its scale (``1.50``, ``1.0/3`` is ``0.33333``):
    :func:`.perfschema_arith.mysql_operators`."""
    from decimal import Decimal

    from sqlglot import exp

    for literal in list(tree.find_all(exp.Literal)):
        if literal.is_string:
            continue
        text = literal.this
        if "e" in text.lower():
            if float(text) in (float("inf"), float("-inf")):
                raise MySQLError.of(ER.ILLEGAL_VALUE_FOR_TYPE, "double", text)
            continue
        if "." not in text:
            continue
        value = Decimal(text)
        integral = value.to_integral_value(rounding="ROUND_FLOOR")
        if value == integral and _compared_with_counter(literal):
            literal.replace(exp.Literal.number(int(integral)))
        elif integral < _DOUBLE_SPACING and _compared_with_counter(literal):
            literal.replace(exp.Literal.number(f"{int(integral)}.5"))


def _compared_with_counter(literal: "exp.Expr") -> bool:
    from sqlglot import exp

    node = literal
    while isinstance(node.parent, (exp.Neg, exp.Paren, exp.Tuple)):
        node = node.parent
    comparison = node.parent
    return isinstance(comparison, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ,
                                   exp.Between, exp.In)) and _numeric(comparison)


def _numeric(comparison: "exp.Expr") -> bool:
    """Whether one side of ``comparison`` is COUNTER itself."""
    from sqlglot import exp

    return any(isinstance(operand, exp.Column) and operand.name.upper() in NUMERIC_COLUMNS
               for operand in comparison.iter_expressions())
