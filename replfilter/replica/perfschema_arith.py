"""Arithmetic in a SELECT on the filter tables as MySQL 8.4 computes it, for sqlglot's executor
(which computes in Python numbers: ``7/2`` a float, an overflow an infinity).

* Exact operands (integers, COUNTER, DECIMAL literals) make a DECIMAL: ``+ - *`` exactly (Python's
  ``decimal`` keeps MySQL's scales: the larger one, the sum of both), ``/`` as ``do_div_mod``
  (``strings/decimal.cc``) divides: the quotient truncated to ``ROUND_UP(frac1 + frac2 +
  incr)`` words of 9 digits, each operand's scale first rounded up to whole words (``incr`` is
  ``div_precision_increment``, 4, less what that rounding added). The value keeps those digits
  (``1/3*3`` is ``0.999999999``); the result shows the item's scale, rounded half up
  (``Item_func_div::result_precision``: the dividend's scale + 4, at most 30; ``1/7`` is
  ``0.1429``). ``AVG`` of exact values is their sum divided so, with the argument's scale + 4
  (``Item_sum_avg::resolve_type``); ``SUM`` of exact values is a DECIMAL too
  (``Item_sum_sum::resolve_type``), its text the integer's.
* A double operand makes a double (``real_op``); a result that is not finite is error 1690
  ``DOUBLE value is out of range in '<expr>'`` (``check_float_overflow``, ``sql/item_func.h``),
  ``<expr>`` being the item's ``print(QT_NO_DATA_EXPANSION)``: :func:`server_print`.
* Unary minus (``Item_func_neg``): an integer argument stays an integer, signed; an unsigned
  one above 2**63 (COUNTER) is 1690 ``BIGINT value is out of range in '-(<arg>)'``
  (``int_op``), but a constant one BIGINT cannot negate (``-18446744073709551615``) makes a
  DECIMAL (``resolve_type``): :meth:`Arithmetic.neg`.
* Division by zero (exact or double, ``/`` or ``%``) is NULL with warning 1365 ``Division by 0``
  (``signal_divide_by_null``, under the default ``sql_mode``'s ``ERROR_FOR_DIVISION_BY_ZERO``:
  replfilter does not read the session's ``sql_mode`` here). ``%`` keeps the dividend's sign.
* ``AND``/``OR``/``NOT``/``XOR`` read each operand as a number (``Item::val_bool``: a string by
  its double, 1292 for text that is not a number), three-valued, short-circuited, and yield 1,
  0 or NULL (``Item_cond_and``/``Item_cond_or``/``Item_func_not::val_int``): :meth:`Arithmetic.and_`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Context, Decimal
from functools import reduce
from typing import TYPE_CHECKING, Any, Callable

from ..core.errors import ER, Condition, MySQLError

if TYPE_CHECKING:
    from sqlglot import exp

DIV_PRECISION_INCREMENT = 4
"""``div_precision_increment``'s default (replfilter has no way to set it)."""
DECIMAL_MAX_SCALE = 30
DIG_PER_DEC1 = 9
"""Digits in one word of MySQL's decimal (``strings/decimal.cc``)."""
_EXACT = Context(prec=200, rounding=ROUND_HALF_UP)
"""Room for any DECIMAL (65 digits) and the products of two: Python's 28 digits would round."""


class Unsigned(int):
    """A BIGINT UNSIGNED value (COUNTER): integer arithmetic with one is unsigned in MySQL
    (``Item_func_additive_op``/``Item_func_mul``'s ``unsigned_flag``), so ``COUNTER - 10`` below
    zero is 1690 ``BIGINT UNSIGNED value is out of range``, never a negative number."""


_SIGNED_RANGE = (-(2 ** 63), 2 ** 63)
_UNSIGNED_RANGE = (0, 2 ** 64)


class MyDecimal(Decimal):
    """A DECIMAL value with more digits than its item shows (a quotient, an average): ``shown``
    is the item's scale, the digits the result set gets."""

    shown: int

    def __new__(cls, value: Decimal | int | str, shown: int) -> "MyDecimal":
        obj = super().__new__(cls, value)
        obj.shown = shown
        return obj


def scale(value: int | Decimal) -> int:
    """The scale MySQL gives a value's item: an integer's 0, a DECIMAL's own digits or shown ones."""
    if isinstance(value, MyDecimal):
        return value.shown
    if isinstance(value, Decimal):
        return max(0, -int(value.as_tuple().exponent))
    return 0


def _frac(value: int | Decimal) -> int:
    """The digits after the point the value itself holds (``decimal_t::frac``)."""
    return max(0, -int(value.as_tuple().exponent)) if isinstance(value, Decimal) else 0


def decimal_text(value: Decimal) -> str:
    """A DECIMAL as the result set writes it: its item's scale, rounded half up."""
    shown = scale(value)
    return format(Decimal(value).quantize(Decimal(1).scaleb(-shown), rounding=ROUND_HALF_UP, context=_EXACT), "f")


def _words(digits: int) -> int:
    return -(-digits // DIG_PER_DEC1)


def decimal_divide(dividend: int | Decimal, divisor: int | Decimal, shown: int) -> MyDecimal:
    """``do_div_mod``'s quotient (divisor not zero): truncated to whole words of fraction."""
    frac1, frac2 = _frac(dividend), _frac(divisor)
    words1, words2 = _words(frac1) * DIG_PER_DEC1, _words(frac2) * DIG_PER_DEC1
    incr = max(0, DIV_PRECISION_INCREMENT - (words1 - frac1 + words2 - frac2))
    digits = _words(words1 + words2 + incr) * DIG_PER_DEC1
    a, b = Decimal(dividend), Decimal(divisor)
    a_int, b_int = int(a.scaleb(frac1, context=_EXACT)), int(b.scaleb(frac2, context=_EXACT))
    shift = digits + frac2 - frac1
    num, den = (abs(a_int) * 10 ** shift, abs(b_int)) if shift >= 0 else (abs(a_int), abs(b_int) * 10 ** -shift)
    quotient = num // den
    negative = (a_int < 0) != (b_int < 0) and quotient != 0  # a zero quotient is decimal_make_zero's
    return MyDecimal(Decimal(f"{'-' if negative else ''}{quotient}E-{digits}"), shown)


@dataclass
class Arithmetic:
    """The functions the executor's compiled query calls for MySQL's operators, with the texts
    of their items (for 1690) and the warnings they raise (1365), per row evaluated."""

    texts: list[str | None] = field(default_factory=list)
    warnings: list[Condition] = field(default_factory=list)

    def env(self) -> dict[str, Callable[..., Any]]:
        return {"RF_ADD": self.add, "RF_SUB": self.sub, "RF_MUL": self.mul, "RF_DIV": self.div,
                "RF_NEG": self.neg, "RF_DEC": lambda text: Decimal(text), "RF_UINT": lambda text: Unsigned(text),
                "AVG": _avg, "SUM": _sum, "MOD": self.mod, "ABS": _abs, "INTDIV": self.intdiv,
                "RF_NSEQ": _null_safe_equal, "RF_XOR": self.xor, "RF_AND": self.and_, "RF_OR": self.or_,
                "RF_NOT": self.not_}

    def and_(self, *operands: Callable[[], Any]) -> int | None:
        """``Item_cond_and::val_int`` (``sql/item_cmpfunc.cc``): each operand in turn by its
        ``val_bool`` (a number by its value, a string by its double with 1292 when it is not
        one: ``Item::val_bool``), 0 at the first false one (the rest never evaluated, so never
        warn), else NULL when one was NULL, else 1. ``operands`` are thunks for that reason."""
        null = False
        for operand in operands:
            value = operand()
            if value is None:
                null = True
            elif not self._truth(value):
                return 0
        return None if null else 1

    def or_(self, *operands: Callable[[], Any]) -> int | None:
        """``Item_cond_or::val_int``: 1 at the first true operand, else NULL when one was NULL,
        else 0."""
        null = False
        for operand in operands:
            value = operand()
            if value is None:
                null = True
            elif self._truth(value):
                return 1
        return None if null else 0

    def not_(self, operand: Callable[[], Any]) -> int | None:
        """``Item_func_not::val_int``: 1 for a false operand, 0 for a true one, NULL for NULL."""
        value = operand()
        return None if value is None else int(not self._truth(value))

    def xor(self, a: Any, b: Any) -> bool | None:
        """``Item_func_xor::val_int`` (``sql/item_cmpfunc.cc``): NULL when either side is NULL,
        else whether exactly one side is true (``val_bool``: a string by its double, with the
        1292 warning ``double_from_string_with_check`` gives text that is not a number)."""
        if a is None or b is None:
            return None
        return self._truth(a) != self._truth(b)

    def _truth(self, value: Any) -> bool:
        if isinstance(value, str):
            from .perfschema_values import text_to_double

            double, warning = text_to_double(value)
            if warning is not None:
                self.warnings.append(warning)
            return double != 0
        return bool(value)

    def _real(self, value: float, index: int) -> float:
        if math.isfinite(value):
            return value
        text = self.texts[index]
        if text is None:
            raise MySQLError.of(ER.NOT_SUPPORTED_YET,
                                "a DOUBLE out of range in an expression replfilter cannot print as the server does")
        raise MySQLError.of(ER.DATA_OUT_OF_RANGE, "DOUBLE", text)

    def _integer(self, value: int, unsigned: bool, index: int) -> int:
        """An integer result in BIGINT's range, or BIGINT UNSIGNED's when an operand is
        unsigned; outside it 1690 (``raise_integer_overflow``)."""
        low, high = _UNSIGNED_RANGE if unsigned else _SIGNED_RANGE
        if low <= value < high:
            return Unsigned(value) if unsigned else value
        text = self.texts[index]
        if text is None:
            raise MySQLError.of(ER.NOT_SUPPORTED_YET,
                                "a BIGINT out of range in an expression replfilter cannot print as the server does")
        raise MySQLError.of(ER.DATA_OUT_OF_RANGE, "BIGINT UNSIGNED" if unsigned else "BIGINT", text)

    def add(self, a: Any, b: Any, index: int) -> Any:
        if a is None or b is None:
            return None
        if isinstance(a, float) or isinstance(b, float):
            return self._real(float(a) + float(b), index)
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            return _shown(_EXACT.add(a, b), a, b)
        return self._integer(int(a) + int(b), isinstance(a, Unsigned) or isinstance(b, Unsigned), index)

    def sub(self, a: Any, b: Any, index: int) -> Any:
        if a is None or b is None:
            return None
        if isinstance(a, float) or isinstance(b, float):
            return self._real(float(a) - float(b), index)
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            return _shown(_EXACT.subtract(a, b), a, b)
        return self._integer(int(a) - int(b), isinstance(a, Unsigned) or isinstance(b, Unsigned), index)

    def mul(self, a: Any, b: Any, index: int) -> Any:
        if a is None or b is None:
            return None
        if isinstance(a, float) or isinstance(b, float):
            return self._real(float(a) * float(b), index)
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            product = _EXACT.multiply(Decimal(a), Decimal(b))
            if product == 0:  # decimal_mul: "check for -0.000", decimal_make_zero
                product = abs(product)
            return MyDecimal(product, min(scale(a) + scale(b), DECIMAL_MAX_SCALE))
        return self._integer(int(a) * int(b), isinstance(a, Unsigned) or isinstance(b, Unsigned), index)

    def neg(self, value: Any, index: int, constant: bool, literal: bool) -> Any:
        """``Item_func_neg``. An integer argument that is a constant (``constant``) whose value
        read as unsigned is at least LLONG_MIN, unless it is that very integer literal
        (``literal``: an ``INT_ITEM``), makes the negation a DECIMAL (``resolve_type``), never an
        error; otherwise ``int_op``: an unsigned argument above LLONG_MAX + 1, or a signed one at
        LLONG_MIN, is 1690 ``BIGINT`` (the negation is signed). A DECIMAL zero negates to
        zero, not -0 (``my_decimal_neg``)."""
        if value is None:
            return None
        if isinstance(value, float):
            return -value
        if isinstance(value, Decimal):
            return MyDecimal(Decimal(value).copy_abs() if value == 0 else Decimal(value).copy_negate(), scale(value))  # exact: no context rounding
        unsigned = isinstance(value, Unsigned)
        if constant and value % 2 ** 64 >= 2 ** 63 and (value % 2 ** 64 != 2 ** 63 or not literal):
            return MyDecimal(Decimal(int(value)).copy_negate(), 0)
        if (unsigned and value > 2 ** 63) or (not unsigned and value == -(2 ** 63)):
            return self._integer(-int(value), False, index)
        return -int(value)

    def _null_quotient(self, a: Any, b: Any) -> bool:
        """Whether ``a / b`` or ``a % b`` is NULL: an operand is, or ``b`` is zero (then with
        1365, ``signal_divide_by_null``)."""
        if a is None or b is None:
            return True
        if b == 0:
            self.warnings.append(Condition.warning(ER.DIVISION_BY_ZERO))
            return True
        return False

    def div(self, a: Any, b: Any, index: int) -> Any:
        if self._null_quotient(a, b):
            return None
        if isinstance(a, float) or isinstance(b, float):
            return self._real(float(a) / float(b), index)
        return decimal_divide(a, b, min(scale(a) + DIV_PRECISION_INCREMENT, DECIMAL_MAX_SCALE))

    def mod(self, a: Any, b: Any) -> Any:
        """``Item_func_mod``: the remainder takes the dividend's sign (``fmod``, ``%`` on the
        magnitudes, ``decimal_mod``), not Python's floor; by zero NULL and 1365."""
        if self._null_quotient(a, b):
            return None
        if isinstance(a, float) or isinstance(b, float):
            return math.fmod(float(a), float(b))
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            return _shown(_EXACT.remainder(Decimal(a), Decimal(b)), a, b)
        remainder = abs(a) % abs(b)
        if isinstance(a, Unsigned):  # Item_func_mod: the dividend's signedness
            return Unsigned(remainder)
        return -remainder if a < 0 else remainder

    def intdiv(self, a: Any, b: Any) -> Any:
        """``a DIV b`` (``Item_func_int_div``): the quotient truncated toward zero, unsigned when
        either operand is; by zero NULL and 1365. Its print is not settled here, so a result
        out of range is 1235, never a wrong value."""
        if self._null_quotient(a, b):
            return None
        if isinstance(a, float) or isinstance(b, float) or isinstance(a, Decimal) or isinstance(b, Decimal):
            quotient = int(Decimal(a) / Decimal(b)) if not isinstance(a, float) and not isinstance(b, float) else int(float(a) / float(b))
        else:
            quotient = abs(int(a)) // abs(int(b))
            quotient = quotient if (a < 0) == (b < 0) else -quotient
        self.texts.append(None)
        return self._integer(quotient, isinstance(a, Unsigned) or isinstance(b, Unsigned), len(self.texts) - 1)


def _shown(result: Decimal, a: int | Decimal, b: int | Decimal) -> MyDecimal:
    """A sum or difference shows the larger scale (``Item_func_additive_op::result_precision``)."""
    return MyDecimal(result, max(scale(a), scale(b)))


def _null_safe_equal(a: Any, b: Any) -> bool:
    """``<=>`` (``Item_func_equal::val_int``, ``sql/item_cmpfunc.cc``; ``Arg_comparator::compare_*``
    with ``set_null`` false): true when both sides are NULL, false when one is, else ``=``'s
    answer; never NULL. Text sides arrive as the collation's keys, as ``=``'s do."""
    if a is None or b is None:
        return a is None and b is None
    return bool(a == b)


def _abs(value: Any) -> Any:
    """``Item_func_abs`` keeps its argument's type: an unsigned value stays unsigned."""
    if value is None:
        return None
    return Unsigned(value) if isinstance(value, Unsigned) else abs(value)


def _exact(values: list[Any]) -> bool:
    return all(isinstance(v, (int, Decimal)) and not isinstance(v, bool) for v in values)


def _avg(values: Any) -> Any:
    """``Item_sum_avg``: exact values' sum divided as ``/`` divides, shown with the argument's
    scale + 4; doubles summed in order and divided (``Item_sum_sum::val_real() / count``)."""
    kept = [v for v in values if v is not None]
    if not kept:
        return None
    if _exact(kept):
        shown = max(scale(v) for v in kept)
        return decimal_divide(reduce(_EXACT.add, map(Decimal, kept)), len(kept),
                              min(shown + DIV_PRECISION_INCREMENT, DECIMAL_MAX_SCALE))
    return sum(float(v) for v in kept) / len(kept)


def _sum(values: Any) -> Any:
    """``Item_sum_sum``: exact values make a DECIMAL with the argument's scale."""
    kept = [v for v in values if v is not None]
    if not kept:
        return None
    if _exact(kept):
        return MyDecimal(reduce(_EXACT.add, map(Decimal, kept)), max(scale(v) for v in kept))
    return sum(float(v) for v in kept)


_OPERATORS = {"Add": ("+", "RF_ADD"), "Sub": ("-", "RF_SUB"), "Mul": ("*", "RF_MUL"), "Div": ("/", "RF_DIV")}


def server_print(node: "exp.Expr", table: str | None = None, columns: frozenset[str] = frozenset()) -> str | None:
    """The item's ``print`` as ``raise_float_overflow`` writes it (``QT_NO_DATA_EXPANSION``):
    an operator as ``Item_func::print_op`` does (``(a * b)``), a double literal as typed
    (``Item_float``'s presentation), a ``?`` as ``?`` (``Item_param::print``), ``cast(x as
    double)`` (``Item_typecast_real::print``), a column as ``Item_ident::print`` does
    (``table``: its qualifier, :func:`column_qualifier`; ``columns``: the table's, by their
    declared names; another name is a select alias, printed otherwise), a negation as
    ``Item_func::print`` (``-(x)``). None for what replfilter cannot print as the server does
    (a function, a cast sqlglot reads as FLOAT)."""
    from sqlglot import exp

    if isinstance(node, exp.Paren):
        return server_print(node.this, table, columns)
    name = type(node).__name__
    if name in _OPERATORS:
        left, right = server_print(node.this, table, columns), server_print(node.expression, table, columns)
        return None if left is None or right is None else f"({left} {_OPERATORS[name][0]} {right})"
    if isinstance(node, exp.Neg):  # Item_func_neg has no print of its own: Item_func::print
        inner = server_print(node.this, table, columns)
        return None if inner is None else f"-({inner})"
    if isinstance(node, exp.Column):
        known = node.name.upper() in columns
        return f"{table}.{_identifier(node.name.upper())}" if table is not None and known else None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return None if set(node.this) & {"'", "\\"} or not node.this.isprintable() else f"'{node.this}'"
        text = node.this
        if "e" in text.lower():
            return text
        return str(int(text)) if "." not in text else format(Decimal(text), "f")
    if isinstance(node, exp.Placeholder):
        return "?"
    if isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.DOUBLE:
        inner = server_print(node.this, table, columns)
        return None if inner is None else f"cast({inner} as double)"
    return None


def _identifier(name: str) -> str:
    """``append_identifier`` with ``sql_quote_show_create`` on (the default): backticks."""
    return "`" + name.replace("`", "``") + "`"


def column_qualifier(tree: "exp.Expr", schema: str) -> str | None:
    """What ``Item_ident::print`` writes before a column of the one table the SELECT reads: the
    schema and the table as typed, or the alias alone when there is one (``alias_name_used``);
    None when the query reads anything else (a join, a derived table)."""
    from sqlglot import exp

    source = tree.args.get("from_") or tree.args.get("from")
    table = source.this if source is not None else None
    if not isinstance(table, exp.Table) or tree.args.get("joins"):
        return None
    if table.alias:
        return _identifier(table.alias)
    return f"{_identifier(schema)}.{_identifier(table.name)}"


def print_operators(tree: "exp.Expr", schema: str, columns: frozenset[str]) -> dict[int, str | None]:
    """Each operator's text, by id, read before the literals are rewritten for the executor."""
    from sqlglot import exp

    table = column_qualifier(tree, schema)
    return {id(node): server_print(node, table, columns) for node in tree.find_all(exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Neg)}


def negation_kinds(tree: "exp.Expr") -> dict[int, tuple[bool, bool]]:
    """Each negation's argument, by the negation's id, read before parameters are bound: whether
    it is a constant (``const_item()``: no column, aggregate or parameter in it) and whether it
    is an integer literal itself (``type() == INT_ITEM``); :meth:`Arithmetic.neg`."""
    from sqlglot import exp

    kinds = {}
    for node in tree.find_all(exp.Neg):
        argument = node.this
        while isinstance(argument, exp.Paren):
            argument = argument.this
        constant = not any(isinstance(n, (exp.Column, exp.AggFunc, exp.Placeholder)) for n in argument.walk())
        literal = isinstance(argument, exp.Literal) and not argument.is_string and argument.this.isdigit()
        kinds[id(node)] = (constant, literal)
    return kinds


def mysql_operators(tree: "exp.Expr", texts: dict[int, str | None], arithmetic: Arithmetic,
                    negations: dict[int, tuple[bool, bool]] | None = None) -> None:
    """The operators become calls of :class:`Arithmetic`'s functions (each with the index of its
    text), a negation ``RF_NEG`` (with its text and :func:`negation_kinds`), a literal with a point a DECIMAL (``RF_DEC('1.50')``)."""
    from sqlglot import exp

    for literal in list(tree.find_all(exp.Literal)):
        if not literal.is_string and "." in literal.this and "e" not in literal.this.lower():
            literal.replace(exp.Anonymous(this="RF_DEC", expressions=[exp.Literal.string(literal.this)]))
        elif not literal.is_string and literal.this.isdigit() and 2 ** 63 <= int(literal.this) < 2 ** 64:
            # above BIGINT a literal is BIGINT UNSIGNED (Item_uint)
            literal.replace(exp.Anonymous(this="RF_UINT", expressions=[exp.Literal.string(literal.this)]))
    _logical_operators(tree)
    for node in list(tree.find_all(exp.NullSafeEQ, exp.Xor)):  # functions the executor lacks
        name = "RF_NSEQ" if isinstance(node, exp.NullSafeEQ) else "RF_XOR"
        node.replace(exp.Anonymous(this=name, expressions=[node.this, node.expression]))
    for node in list(tree.find_all(exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Neg)):
        arithmetic.texts.append(texts.get(id(node)))
        index = exp.Literal.number(len(arithmetic.texts) - 1)
        if isinstance(node, exp.Neg):
            constant, literal = (negations or {}).get(id(node), (False, False))
            node.replace(exp.Anonymous(this="RF_NEG", expressions=[node.this, index, exp.Boolean(this=constant),
                                                                   exp.Boolean(this=literal)]))
            continue
        call = exp.Anonymous(this=_OPERATORS[type(node).__name__][1], expressions=[node.this, node.expression, index])
        node.replace(call)


_LOGICAL = {"And": "RF_AND", "Or": "RF_OR", "Not": "RF_NOT"}


def _logical_operators(tree: "exp.Expr") -> None:
    """``AND``/``OR``/``NOT`` become :meth:`Arithmetic.and_`... calls on thunks of their operands
    (``exp.Lambda`` with no parameters: short-circuited as the server's are), before sqlglot's
    optimizer sees them: its ``simplify`` would rewrite them by Python truth (``'x' OR 0`` to
    ``'x' AND TRUE``, ``(0 AND NOT -1) OR (NOT 0 AND -1)`` to ``-1``) where MySQL reads each
    operand as a number and yields 1, 0 or NULL. A chain ``a AND b AND c`` (one
    ``Item_cond_and`` in the server) becomes nested calls, which evaluate the same operands in
    the same order to the same value. The operands are moved, not copied: the texts and kinds
    of their arithmetic are keyed by node."""
    from sqlglot import exp

    for node in reversed(list(tree.find_all(exp.And, exp.Or, exp.Not, bfs=True))):  # the inner ones first
        operands = [node.this] if isinstance(node, exp.Not) else [node.this, node.expression]
        node.replace(exp.Anonymous(this=_LOGICAL[type(node).__name__],
                                   expressions=[exp.Lambda(this=operand, expressions=[]) for operand in operands]))
