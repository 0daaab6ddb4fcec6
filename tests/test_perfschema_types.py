"""The types a SELECT on the filter tables gives its computed items, as MySQL 8.4 resolves them
(replfilter/replica/perfschema_types.py), and how the shell prints them: a DECIMAL literal
(``1.5``) is a DECIMAL, one with an exponent a DOUBLE; the column is named by its text as typed
and right-aligned, as the mysql client aligns a numeric type."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.cli import main as cli
from replfilter.core.results import ColumnType

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"
SETUP = ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'ch';\n"
         "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) FOR CHANNEL 'ch';\n")


def _types(select: str, counter: int = 0):
    result = _replica(counter).session.execute_text(f"SELECT {select} FROM {TABLE}")
    return result


def test_the_shell_prints_decimals_and_doubles_as_the_mysql_client_does():
    """``1.5*2`` is DECIMAL(.., 1): ``3.0``; ``1/3`` a DECIMAL of scale 4: ``0.3333``; ``1e1`` a
    DOUBLE: ``10``; ``-1.5*0`` is ``0.0`` (decimal_mul never makes -0); numeric columns
    right-aligned, a nullable one (``%``) 4 cells wide at least, each named by its text as typed
    (a string literal by its value)."""
    out = io.StringIO()
    status = cli.main(["-t"], stdin=io.StringIO(
        SETUP + f"SELECT 1.5*2, 1/3, 1e1, 1.5, 1e0/3, -1.5*0, 7%2, 'abc', COUNTER FROM {TABLE};\n"),
        stdout=out, stderr=io.StringIO())
    assert status == 0
    assert out.getvalue() == (
        "+-------+--------+-----+-----+--------------------+--------+------+-----+---------+\n"
        "| 1.5*2 | 1/3    | 1e1 | 1.5 | 1e0/3              | -1.5*0 | 7%2  | abc | COUNTER |\n"
        "+-------+--------+-----+-----+--------------------+--------+------+-----+---------+\n"
        "|   3.0 | 0.3333 |  10 | 1.5 | 0.3333333333333333 |    0.0 |    1 | abc |       0 |\n"
        "+-------+--------+-----+-----+--------------------+--------+------+-----+---------+\n")


@pytest.mark.parametrize("select, expected", [
    # Item_decimal: precision intg + frac, length + point + sign
    ("1.5", ColumnType(ColumnType.NEWDECIMAL, 4, 1, False, False)),
    # Item_float: the text's length, decimals DECIMAL_NOT_SPECIFIED
    ("1e1", ColumnType(ColumnType.DOUBLE, 3, 31, False, False)),
    # Item_func_mul::result_precision: scales and precisions add
    ("1.5*2", ColumnType(ColumnType.NEWDECIMAL, 5, 1, False, False)),
    # Item_func_div: integers make a DECIMAL, scale + div_precision_increment; NULL by zero
    ("1/3", ColumnType(ColumnType.NEWDECIMAL, 7, 4, False, True)),
    ("COUNTER/3", ColumnType(ColumnType.NEWDECIMAL, 26, 4, False, True)),
    # a DOUBLE operand: float_length(DECIMAL_NOT_SPECIFIED) = 23
    ("1e0/3", ColumnType(ColumnType.DOUBLE, 23, 31, False, True)),
    ("COUNTER*1e0", ColumnType(ColumnType.DOUBLE, 23, 31, False, False)),
    # Item_func_additive_op: an integer result is unsigned when either operand is
    ("COUNTER+1", ColumnType(ColumnType.LONGLONG, 21, 0, True, False)),
    ("1+1", ColumnType(ColumnType.LONGLONG, 3, 0, False, False)),
    # Item_func_neg: signed, one more for the sign of an unsigned argument
    ("-COUNTER", ColumnType(ColumnType.LONGLONG, 21, 0, False, False)),
    ("-18446744073709551615", ColumnType(ColumnType.NEWDECIMAL, 21, 0, False, False)),
    # Item_sum_sum: precision + DECIMAL_LONGLONG_DIGITS; Item_sum_avg: scale and precision + 4
    ("SUM(COUNTER)", ColumnType(ColumnType.NEWDECIMAL, 43, 0, False, True)),
    ("AVG(COUNTER)", ColumnType(ColumnType.NEWDECIMAL, 26, 4, False, True)),
    # Item_string: utf8mb4 (4 bytes a character), never NULL
    ("'abc'", ColumnType(ColumnType.VAR_STRING, 12, 0, False, False)),
])
def test_computed_items_have_the_type_the_server_resolves(select, expected):
    assert _types(select).column_types == (expected,)


def test_a_result_without_rows_declares_the_same_types():
    result = _replica(0).session.execute_text(f"SELECT 1.5*COUNTER, COUNTER/2e0 FROM {TABLE} WHERE COUNTER > 5")
    assert result.rows == () and [t.code for t in result.column_types] == [ColumnType.NEWDECIMAL, ColumnType.DOUBLE]


def test_columns_keep_the_tables_definitions():
    """The table's own columns are sent as the table defines them (BIGINT UNSIGNED NOT NULL,
    CHAR(64) NOT NULL: ``storage/perfschema/table_replication_applier_filters.cc``)."""
    counter = ColumnType(ColumnType.LONGLONG, 20, 0, True, False, binary=False)
    assert _types("COUNTER, FILTER_NAME").column_types == (
        counter, ColumnType(ColumnType.STRING, 256, nullable=False, no_default=True))
    assert _types("COUNTER, COUNTER/2").column_types == (counter, ColumnType(ColumnType.NEWDECIMAL, 26, 4, False, True))


@settings(max_examples=80, deadline=None)
@given(st.integers(-10**9, 10**9), st.integers(0, 6), st.integers(-10**6, 10**6), st.integers(0, 6),
       st.sampled_from(["+", "-", "*", "/"]), st.integers(0, 2**40))
def test_a_decimal_result_shows_its_declared_scale_and_fits_its_length(a, sa, b, sb, op, counter):
    """What the server guarantees of a DECIMAL item: its text has ``decimals`` digits after the
    point and no more characters than ``max_length``."""
    left, right = Decimal(a).scaleb(-sa), Decimal(b).scaleb(-sb)
    if op == "/" and right == 0:
        return
    text_l, text_r = format(left, "f"), format(right, "f")
    result = _types(f"({text_l}) {op} ({text_r}), (COUNTER + 0.0) {op} ({text_r})", counter)
    integers = (sa == sb == 0 and op != "/", False)  # COUNTER + 0.0 is a DECIMAL
    for value, declared, integer in zip(result.rows[0], result.column_types, integers):
        assert declared.code == (ColumnType.LONGLONG if integer else ColumnType.NEWDECIMAL)
        text = str(value)
        assert len(text.partition(".")[2]) == declared.decimals
        assert len(text) <= declared.length, (text, declared)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["COUNTER", "1.5", "2", "1e0", "(COUNTER+1)", "count(COUNTER)"]), min_size=1,
                max_size=4),
       st.lists(st.sampled_from(["+", "*", "/"]), min_size=3, max_size=3),  # no "-": COUNTER is unsigned
       st.lists(st.sampled_from(["", " ", "  ", "\t"]), min_size=8, max_size=8))
def test_an_unaliased_item_is_named_by_its_text_as_typed(operands, operators, spaces):
    """``PTI_expr_with_alias::itemize``: the expression's span of the query, its spacing and
    letter case kept (from its first token to its last)."""
    text = operands[0]
    for index, operand in enumerate(operands[1:]):
        text += f"{spaces[2 * index]}{operators[index]}{spaces[2 * index + 1]}{operand}"
    if "count(" in text and len(operands) > 1 and "COUNTER" in text.replace("count(COUNTER)", ""):
        return  # an aggregate beside a bare column: a different question (ONLY_FULL_GROUP_BY)
    result = _replica(3).session.execute_text(f"SELECT {spaces[-1]}{text}{spaces[-2]} , 'x' FROM {TABLE}")
    assert result.columns == (text, "x")


def test_a_number_with_an_exponent_ends_at_its_last_digit():
    """MySQL's lexer ends a FLOAT_NUM at the exponent's digits, so ``1e0+1.5`` is ``1e0 + 1.5``
    (sqlglot's tokenizer read it as one number, and ``1e0-1e0`` as an identifier: a traceback)."""
    result = _types("1e0+1.5, 1e0-1e0+2, 1e+2-1, 2e0*1e0-COUNTER", 1)
    assert result.columns == ("1e0+1.5", "1e0-1e0+2", "1e+2-1", "2e0*1e0-COUNTER")
    assert result.rows == (("2.5", "2", "99", "1"),)
    assert {t.code for t in result.column_types} == {ColumnType.DOUBLE}
