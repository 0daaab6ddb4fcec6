"""The type MySQL 8.4 gives each select item of a SELECT on the filter tables: what the column
definition of a result says (type code, length, decimals, UNSIGNED, NOT NULL), so a client gets
a DOUBLE as a DOUBLE and a DECIMAL as a DECIMAL (PyMySQL: ``float``, ``Decimal``) and the
``mysql`` client right-aligns them (``IS_NUM``).

Each rule is the item's ``resolve_type`` (``sql/item.cc``, ``sql/item_func.cc``,
``sql/item_sum.cc``), the length ``Item::make_field`` sends being the item's ``max_length``:

* literals: an integer ``Item_int`` (LONGLONG, its digits' length; above BIGINT ``Item_uint``,
  unsigned), one with a point ``Item_decimal`` (NEWDECIMAL, its scale, precision ``intg +
  frac``), one with an exponent ``Item_float`` (DOUBLE, the text's length, decimals
  ``DECIMAL_NOT_SPECIFIED`` = 31);
* ``+ - * / %`` and ``DIV`` (``Item_num_op::set_numeric_type``): a DOUBLE or string operand makes
  a DOUBLE, else a DECIMAL operand a DECIMAL, else an integer; ``result_precision`` of each
  operator gives the scale and precision; ``/`` of integers is a DECIMAL with scale + 4
  (``div_precision_increment``); an integer result is unsigned when either operand is, a
  DECIMAL one when both are;
* unary minus (``Item_func_neg``), ``ABS``, ``COUNT`` (BIGINT(21), never NULL), ``SUM`` (a
  DECIMAL of precision + 22, or a DOUBLE), ``AVG`` (a DECIMAL of scale + 4), ``MIN``/``MAX``
  (their argument's type).

A string literal is ``Item_string``: VARCHAR in utf8mb4 (4 bytes a character), never NULL.
COUNTER is the table's ``bigint unsigned NOT NULL``. An expression outside these rules (a
column itself, a string function, a parameter, a CAST) has no type here (None): the wire reads
its type from its values as before (``wire/columns.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.results import ColumnType

if TYPE_CHECKING:
    from sqlglot import exp

NOT_SPECIFIED = 31
"""``DECIMAL_NOT_SPECIFIED``: a double's decimals when it has no fixed scale."""
DBL_DIG = 15
MAX_SCALE = 30
MAX_PRECISION = 65
LONGLONG_DIGITS = 22
"""``DECIMAL_LONGLONG_DIGITS``: what SUM adds to its argument's precision."""
INT64_DIGITS = 21
"""``MY_INT64_NUM_DECIMAL_DIGITS``: BIGINT's display width, COUNT's length."""
DIV_PRECISION_INCREMENT = 4
INT, DECIMAL, REAL, STRING = "int", "decimal", "real", "string"


@dataclass(frozen=True)
class Item:
    """An item's resolved type: its result type, ``max_length``, ``decimals``, ``unsigned_flag``,
    nullability, and whether it is a constant (``const_item``) or an integer literal."""

    result: str
    length: int
    decimals: int = 0
    unsigned: bool = False
    nullable: bool = False
    constant: bool = False
    literal: bool = False
    value: int | None = None
    """A constant integer's value, when known (for ``Item_func_neg``'s DECIMAL case)."""
    own_precision: int | None = None
    """A precision the item states itself (``Item_func_neg::decimal_precision``: its argument's)."""

    def precision(self) -> int:
        """``Item::decimal_precision``: for an integer or DECIMAL the length less the point and
        the sign (``my_decimal_length_to_precision``); an integer literal's is its digits."""
        if self.own_precision is not None:
            return self.own_precision
        if self.literal:
            return self.length
        if self.result in (INT, DECIMAL):
            return max(0, self.length - (1 if self.decimals > 0 else 0) - (0 if self.unsigned or not self.length else 1))
        return min(self.length, MAX_PRECISION)


def float_length(decimals: int) -> int:
    """``Item::float_length``."""
    return DBL_DIG + 2 + decimals if decimals != NOT_SPECIFIED else DBL_DIG + 8


def decimal_length(precision: int, decimals: int, unsigned: bool) -> int:
    """``my_decimal_precision_to_length_no_truncation``: digits, the point, the sign."""
    return precision + (1 if decimals > 0 else 0) + (0 if unsigned or not precision else 1)


def select_types(expressions: "list[exp.Expr]") -> tuple[ColumnType | None, ...]:
    """Each select item's column type, None where replfilter does not type it."""
    from sqlglot import exp

    types = []
    for expression in expressions:
        node = expression.this if isinstance(expression, exp.Alias) else expression
        if isinstance(node, exp.Column):  # the table's own column: described from its values
            types.append(None)
            continue
        if isinstance(node, exp.Literal) and node.is_string:  # Item_string: never NULL, utf8mb4
            types.append(ColumnType(ColumnType.VAR_STRING, 4 * len(node.this), nullable=False))
            continue
        if _is_predicate(node):
            types.append(ColumnType(ColumnType.LONGLONG, 1, 0, False, _nullable(node)))
            continue
        item = _resolve(node)
        types.append(None if item is None or item.result == STRING else _column_type(item))
    return tuple(types)


def _predicate_classes() -> "tuple[type[exp.Expr], ...]":
    from sqlglot import exp

    return (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.Like, exp.In, exp.Between,
            exp.Is, exp.Not, exp.And, exp.Or, exp.Xor, exp.Boolean, exp.Exists)


def _is_predicate(node: "exp.Expr") -> bool:
    """Whether the item is an ``Item_bool_func`` (a comparison, ``LIKE``, ``IN``, ``BETWEEN``,
    ``IS [NOT] NULL``, ``NOT``, ``AND``/``OR``/``XOR``, ``TRUE``/``FALSE``, ``EXISTS``): its
    constructor calls ``set_data_type_bool`` (``sql/item.h``): MYSQL_TYPE_LONGLONG,
    ``max_length`` 1, no decimals, signed (``sql/item_cmpfunc.h``)."""
    while _paren(node):
        node = node.this
    return isinstance(node, _predicate_classes())


def _paren(node: "exp.Expr") -> bool:
    from sqlglot import exp

    return isinstance(node, exp.Paren)


def _nullable(node: "exp.Expr") -> bool:
    """``is_nullable()`` of an item, as ``Item_func::fix_fields`` derives it (nullable when an
    argument is); ``IS [NOT] NULL`` and ``<=>`` never are (``Item_func_isnull::resolve_type``,
    ``Item_func_equal::resolve_type``), nor ``COUNT``; other aggregates, ``/``, ``%`` and
    ``DIV`` (NULL on a zero divisor), a parameter and a subquery may be. The tables' columns
    are NOT NULL."""
    from sqlglot import exp

    if isinstance(node, (exp.Null, exp.Placeholder, exp.Subquery, exp.Div, exp.Mod, exp.IntDiv)):
        return True
    if isinstance(node, (exp.Literal, exp.Boolean, exp.Column, exp.Is, exp.NullSafeEQ, exp.Count, exp.Exists)):
        return False
    if isinstance(node, exp.AggFunc):
        return True
    return any(_nullable(child) for child in node.iter_expressions())


def _column_type(item: Item) -> ColumnType:
    code = {INT: ColumnType.LONGLONG, DECIMAL: ColumnType.NEWDECIMAL, REAL: ColumnType.DOUBLE}[item.result]
    return ColumnType(code, item.length, item.decimals, item.unsigned, item.nullable)


def _resolve(node: "exp.Expr") -> Item | None:
    from sqlglot import exp

    if isinstance(node, exp.Paren):
        return _resolve(node.this)
    if isinstance(node, exp.Literal):
        return _literal(node)
    if isinstance(node, exp.Column):
        if node.name.upper() == "COUNTER":
            return Item(INT, 20, unsigned=True)
        return Item(STRING, 0, nullable=False)
    if isinstance(node, exp.Neg):
        return _negation(node)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)):
        left, right = _resolve(node.this), _resolve(node.expression)
        return None if left is None or right is None else _operator(type(node).__name__, left, right)
    if isinstance(node, exp.Abs):
        argument = _resolve(node.this)
        return None if argument is None else _one_argument(argument, argument.length)
    if isinstance(node, exp.Count):
        return Item(INT, INT64_DIGITS)
    if isinstance(node, (exp.Sum, exp.Avg, exp.Min, exp.Max)):
        argument = _resolve(node.this)
        return None if argument is None else _aggregate(node, argument)
    return None


def _literal(node: "exp.Literal") -> Item | None:
    text = node.this
    if node.is_string:
        return Item(STRING, len(text), constant=True)
    if "e" in text.lower():  # Item_float: the text's length, no fixed decimals
        return Item(REAL, len(text), NOT_SPECIFIED, constant=True)
    if "." in text:  # Item_decimal: precision intg + frac as typed
        whole, _, fraction = text.partition(".")
        precision = len(whole) + len(fraction)
        return Item(DECIMAL, decimal_length(precision, len(fraction), False), len(fraction), constant=True)
    value = int(text)
    if value >= 2 ** 64:  # beyond BIGINT UNSIGNED the lexer makes a DECIMAL_NUM
        return Item(DECIMAL, decimal_length(len(text), 0, False), constant=True)
    return Item(INT, len(text), unsigned=value >= 2 ** 63, constant=True, literal=True, value=value)


def _one_argument(argument: Item, length: int) -> Item:
    """``Item_func_num1::set_numeric_type`` after ``fix_num_length_and_dec``: the argument's
    type (a string read as a DOUBLE), its decimals; a DOUBLE's length ``float_length``."""
    if argument.result in (REAL, STRING):
        return Item(REAL, float_length(argument.decimals if argument.result == REAL else NOT_SPECIFIED),
                    argument.decimals if argument.result == REAL else NOT_SPECIFIED,
                    nullable=argument.nullable, constant=argument.constant)
    return Item(argument.result, length, argument.decimals, argument.unsigned, argument.nullable, argument.constant)


def _negation(node: "exp.Neg") -> Item | None:
    """``Item_func_neg``: length + 1 for an unsigned argument (2 at least), signed; a constant
    integer BIGINT cannot negate is a DECIMAL of the argument's precision, scale 0."""
    argument = _resolve(node.this)
    if argument is None:
        return None
    length = argument.length + (1 if argument.unsigned else 0)
    item = _one_argument(argument, max(length, 2))
    if item.result == INT and argument.constant:
        value = argument.value
        if value is None:
            return None  # a constant replfilter did not evaluate: its type depends on its value
        if value % 2 ** 64 >= 2 ** 63 and (value % 2 ** 64 != 2 ** 63 or not argument.literal):
            precision = min(argument.precision(), MAX_PRECISION)
            return Item(DECIMAL, decimal_length(precision, 0, False), 0, nullable=item.nullable, constant=True)
        return replace(item, unsigned=False, value=-value, own_precision=argument.precision())
    return replace(item, unsigned=False, own_precision=argument.precision() if item.result != REAL else None)


def _numeric(item: Item) -> str:
    """``numeric_context_result_type``: a string is read as a double."""
    return REAL if item.result == STRING else item.result


def _operator(name: str, left: Item, right: Item) -> Item:
    """``Item_num_op::set_numeric_type`` and the operator's ``result_precision``."""
    kinds = {_numeric(left), _numeric(right)}
    nullable = left.nullable or right.nullable or name in ("Div", "Mod", "IntDiv")
    constant = left.constant and right.constant
    decimals_l = left.decimals if left.result == REAL or left.result == DECIMAL else 0
    decimals_r = right.decimals if right.result == REAL or right.result == DECIMAL else 0
    if name == "IntDiv":  # Item_func_div_int: always an integer
        unsigned = left.unsigned or right.unsigned
        d0 = 0 if decimals_l == NOT_SPECIFIED else decimals_l
        d1 = right.precision() if decimals_r == NOT_SPECIFIED else decimals_r
        precision = min(left.precision() - d0 + d1, INT64_DIGITS)
        return Item(INT, decimal_length(precision, 0, unsigned), 0, unsigned, nullable, constant)
    if REAL in kinds:  # aggregate_float_properties
        decimals = max(decimals_l if _numeric(left) == REAL else 0, decimals_r if _numeric(right) == REAL else 0)
        if STRING in (left.result, right.result):
            decimals = NOT_SPECIFIED
        if name == "Div":
            decimals = min(decimals + DIV_PRECISION_INCREMENT, NOT_SPECIFIED)
            length = float_length(decimals) if decimals == NOT_SPECIFIED else min(
                left.length - decimals_l + decimals, float_length(decimals))
            return Item(REAL, length, decimals, nullable=nullable, constant=constant)
        return Item(REAL, float_length(decimals), decimals, nullable=nullable, constant=constant)
    integer = kinds == {INT} and name != "Div"
    unsigned = (left.unsigned or right.unsigned) if integer else (left.unsigned and right.unsigned)
    p0, p1 = left.precision(), right.precision()
    if name in ("Add", "Sub"):
        decimals = max(decimals_l, decimals_r)
        precision = max(p0 - decimals_l, p1 - decimals_r) + 1 + decimals
    elif name == "Mul":
        decimals = min(decimals_l + decimals_r, MAX_SCALE)
        precision = min(p0 + p1, MAX_PRECISION)
    elif name == "Div":
        decimals = min(decimals_l + DIV_PRECISION_INCREMENT, MAX_SCALE)
        precision = min(p0 + decimals_r + DIV_PRECISION_INCREMENT, MAX_PRECISION)
    else:  # Mod: the dividend's signedness, set after result_precision
        decimals = max(decimals_l, decimals_r)
        length = decimal_length(max(p0, p1), decimals, False)
        if not left.unsigned and right.unsigned and left.length <= right.length and decimals_r == p1:
            length += 1
        return Item(INT if integer else DECIMAL, length, decimals, left.unsigned, nullable, constant)
    value = _constant_value(name, left, right) if integer and constant else None
    return Item(INT if integer else DECIMAL, decimal_length(precision, decimals, unsigned), decimals, unsigned,
                nullable, constant, value=value)


def _constant_value(name: str, left: Item, right: Item) -> int | None:
    """A constant integer expression's value (as ``val_int`` reads it: unsigned results kept
    positive), for a negation of it; None when an operand's is unknown."""
    if left.value is None or right.value is None:
        return None
    return {"Add": left.value + right.value, "Sub": left.value - right.value,
            "Mul": left.value * right.value}.get(name)


def _aggregate(node: "exp.Expr", argument: Item) -> Item:
    from sqlglot import exp

    kind = _numeric(argument)
    if isinstance(node, (exp.Min, exp.Max)):  # Item_sum_hybrid: the argument's type
        return replace(argument, nullable=True, constant=False, literal=False, value=None)
    if kind == REAL:
        decimals = argument.decimals if argument.result == REAL else NOT_SPECIFIED
        if isinstance(node, exp.Avg) and decimals != NOT_SPECIFIED:
            decimals = min(decimals + DIV_PRECISION_INCREMENT, NOT_SPECIFIED)
        return Item(REAL, float_length(decimals), decimals, nullable=True)
    decimals = argument.decimals if kind == DECIMAL else 0
    if isinstance(node, exp.Avg):  # Item_sum_avg::resolve_type
        scale = min(decimals + DIV_PRECISION_INCREMENT, MAX_SCALE)
        return Item(DECIMAL, decimal_length(argument.precision() + DIV_PRECISION_INCREMENT, scale, False), scale,
                    nullable=True)
    precision = min(argument.precision() + LONGLONG_DIGITS, MAX_PRECISION)  # Item_sum_sum::resolve_type
    return Item(DECIMAL, decimal_length(precision, decimals, False), decimals, nullable=True)
