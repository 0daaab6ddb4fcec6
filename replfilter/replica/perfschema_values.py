"""Values in a SELECT on the filter tables where MySQL 8.4 and Python (sqlglot's executor) part:
text read as a double, and the values a prepared statement binds to its ``?``.

* Text becomes a double as ``double_from_string_with_check`` (``sql/item.cc``) makes it, through
  ``my_strtod`` (``strings/dtoa.cc``): leading white space, then the longest number (sign,
  digits, point, exponent); the rest must be white space, else warning 1292 ``Truncated
  incorrect DOUBLE value: '...'``. ``my_strtod`` reads no ``inf`` or ``nan`` (they are not
  numbers: 0 and the warning), and an overflow is ``±DBL_MAX`` with the warning.
* A bound value keeps its type: a DOUBLE parameter is a double (``set_param_double``), compared
  as ``Arg_comparator::compare_real`` compares (``sql/item_cmpfunc.cc``): ``-1`` if ``a < b``,
  ``0`` if ``a == b``, else ``1``, so a NaN is never equal nor less, and is "greater": ``COUNTER >
  NaN`` and ``NaN > COUNTER`` are both true, ``=``/``<``/``<=`` false, ``<>``/``>=`` true (NULL when
  the other side is NULL). An infinity compares as Python compares it.
"""

from __future__ import annotations

import math
import re
import sys
from decimal import Decimal
from typing import TYPE_CHECKING, Mapping, Sequence

from ..core.errors import ER, Condition, MySQLError
from ..dialect.clause_order import SELECT_OPTIONS

if TYPE_CHECKING:
    from sqlglot import exp

class Temporal(str):
    """A DATE, DATETIME, TIMESTAMP or TIME parameter, as its text (``YYYY-MM-DD[ hh:mm:ss[.f]]``,
    ``[-]hh:mm:ss[.f]``). Read as a double it is its number, as ``TIME_to_double`` and
    ``TIME_to_ulonglong_datetime`` make it (``YYYYMMDD[hhmmss[.f]]``, ``[-]hhmmss[.f]``), with no
    warning: it is no text to truncate."""

    def number(self) -> float:
        negative = self.startswith("-")
        whole, _, fraction = self[negative:].partition(".")
        digits = "".join(c for c in whole if c.isdigit())
        value = float(f"{digits}.{fraction}" if fraction else digits)
        return -value if negative else value


class Unbound:
    """The value of a ``?`` while the statement is prepared, before any is bound: NULL, and 0 in
    LIMIT (the prepare runs a SELECT once only to learn its columns)."""

    def __repr__(self) -> str:
        return "UNBOUND"


UNBOUND = Unbound()

Parameter = str | int | float | Decimal | bytes | Unbound | None
"""A value a prepared statement binds: what COM_STMT_EXECUTE's types read as (a temporal one as
:class:`Temporal`)."""

_SPACE = " \t\n\v\f\r"
"""``my_strtod``'s leading white space, and ``my_isspace``'s trailing one."""
_NUMBER = re.compile(rf"[{_SPACE}]*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def text_to_double(text: str) -> tuple[float, Condition | None]:
    """``double_from_string_with_check``: the double and, when the text is not a number with
    only white space around it, the 1292 warning (text the length of nothing but white space
    reads as 0 with no warning, as ``my_strtod`` stops at its end)."""
    match = _NUMBER.match(text)
    end = match.end() if match else 0
    value = float(match.group()) if match else 0.0
    clean = not text[end:].strip(_SPACE)
    if not math.isfinite(value):  # EOVERFLOW: my_strtod returns ±DBL_MAX and the error
        value, clean = math.copysign(sys.float_info.max, value), False
    warning = None if clean else Condition.warning(ER.TRUNCATED_WRONG_VALUE, "DOUBLE", text)
    return value, warning


MAX_DECPT_FOR_F_FORMAT = 15
"""``DBL_DIG``: past this many integer digits (or this many zeros after the point) ``my_gcvt``
writes the 'e' format though the 'f' one would fit."""


def double_text(value: float) -> str:
    """A double as the server writes it in a result (``String::set_real`` with no fixed
    decimals: ``my_gcvt(x, MY_GCVT_ARG_DOUBLE, 310)``, ``strings/dtoa.cc``): the shortest digits
    that read back as the double (dtoa's mode 4 with that many digits allowed), in the 'f'
    format unless the point is more than 15 places right of the first digit, or more than 14
    zeros left of it (``MAX_DECPT_FOR_F_FORMAT``); the 'e' format has no '+' and no padding:
    ``0``, ``1.5``, ``100000000000000``, ``1e15``, ``1e-15``, ``1.7976931348623157e308``. An
    infinity or NaN is ``0``, as dtoa's overflow."""
    if not math.isfinite(value):
        return "0"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    shortest = Decimal(repr(abs(value))).normalize()
    digits = "".join(map(str, shortest.as_tuple().digits))
    decpt = len(digits) + int(shortest.as_tuple().exponent)
    if -MAX_DECPT_FOR_F_FORMAT + 1 <= decpt and (decpt <= MAX_DECPT_FOR_F_FORMAT or len(digits) > decpt):
        if decpt <= 0:
            return f"{sign}0.{'0' * -decpt}{digits}"
        if decpt < len(digits):
            return f"{sign}{digits[:decpt]}.{digits[decpt:]}"
        return f"{sign}{digits}{'0' * (decpt - len(digits))}"
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{decpt - 1}"


def double_literal(value: float) -> "exp.Expr":
    """A double as an expression sqlglot's executor reads back as the same double: a cast of its
    digits (a bare number literal is rewritten by sqlglot, ``1e+16`` into an integer), and
    ``1e999`` for an infinity, which Python reads as one (MySQL's lexer never sees it)."""
    from sqlglot import exp

    text = repr(value) if math.isfinite(value) else f"{'-' if value < 0 else ''}1e999"
    return exp.Cast(this=exp.Literal.number(text), to=exp.DataType.build("DOUBLE"))


_DOUBLE_TYPES = ("DOUBLE", "FLOAT")
"""``CAST(... AS DOUBLE)``, ``AS FLOAT`` and ``AS REAL`` (sqlglot reads REAL as FLOAT)."""


def read_text_as_doubles(tree: "exp.Expr", numeric_comparisons: Sequence["exp.Expr"],
                         temporals: Mapping[int, float]) -> list[Condition]:
    """Each string literal MySQL reads as a double becomes that double, its 1292 warning
    collected once per literal, in the order of the statement's text: a CAST to a double, an
    operand of arithmetic, a side of a comparison with COUNTER (``numeric_comparisons``). A bound
    temporal value (``temporals``: its literal's id) is its number, with no warning."""
    from sqlglot import exp

    targets: list[exp.Literal] = []
    for node in tree.walk(bfs=False):
        if not (isinstance(node, exp.Literal) and node.is_string):
            continue
        parent = node.parent
        if isinstance(parent, exp.Cast) and parent.to.this.name in _DOUBLE_TYPES:
            targets.append(node)
        elif isinstance(parent, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Neg)):
            targets.append(node)
        elif any(parent is comparison for comparison in numeric_comparisons):
            targets.append(node)
    warnings = []
    for literal in targets:
        value, warning = (temporals[id(literal)], None) if id(literal) in temporals else text_to_double(literal.this)
        if warning is not None:
            warnings.append(warning)
        parent = literal.parent
        if isinstance(parent, exp.Cast) and parent.to.this.name in _DOUBLE_TYPES:
            parent.replace(double_literal(value))
        else:
            literal.replace(double_literal(value))
    return warnings


def placeholder_names(sql: str, positions: Sequence[int]) -> str:
    """``sql`` with its ``?`` at ``positions`` written ``:p0``, ``:p1``...: sqlglot reads each as a
    placeholder with its name, so each is bound to its own value (its tree keeps no position)."""
    pieces, start = [], 0
    for index, position in enumerate(positions):
        pieces += [sql[start:position], f" :p{index} "]
        start = position + 1
    pieces.append(sql[start:])
    return "".join(pieces)


def unnamed(expression: "exp.Expr") -> "exp.Expr":
    """The expression with its named placeholders written ``?`` again (a select item's name)."""
    from sqlglot import exp

    return expression.transform(lambda n: exp.Placeholder() if isinstance(n, exp.Placeholder) else n)


def bind_values(tree: "exp.Expr", values: Sequence[Parameter]) -> dict[int, float]:
    """Every parameter but the doubles becomes its literal: a string, an integer, an exact DECIMAL
    (which then compares as a DECIMAL literal does), NULL; bytes are text in the connection's
    character set, as a string parameter compares. Returns each temporal value's number, by the
    id of its literal (:func:`read_text_as_doubles`)."""
    from sqlglot import exp

    temporals = {}
    for node in list(tree.find_all(exp.Placeholder)):
        value = values[int(node.name[1:])]
        if isinstance(node.parent, (exp.Limit, exp.Offset)):
            node.replace(exp.Literal.number(_row_count(value)))
        elif isinstance(value, float):
            continue
        elif value is None or value is UNBOUND:
            node.replace(exp.Null())
        elif isinstance(value, bool):
            node.replace(exp.Literal.number(int(value)))
        elif isinstance(value, int):
            node.replace(exp.Literal.number(value))
        elif isinstance(value, Decimal):
            node.replace(exp.Literal.number(format(value, "f")))
        elif isinstance(value, bytes):
            node.replace(exp.Literal.string(value.decode("utf-8", "surrogateescape")))
        else:
            literal = exp.Literal.string(str(value))
            if isinstance(value, Temporal):
                temporals[id(literal)] = value.number()
            node.replace(literal)
    return temporals


def _row_count(value: Parameter) -> int:
    """A LIMIT or OFFSET parameter (``limit_option: param_marker`` in ``sql_yacc.yy``): a
    non-negative integer is the count. What 8.4 makes of another value (NULL, a string, a
    negative number, a double) was not established from its source: 1235 rather than a guess."""
    if value is UNBOUND:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise MySQLError.of(ER.NOT_SUPPORTED_YET, "a LIMIT parameter other than a non-negative integer in replfilter")


_COMPARED = {"eq": lambda c: c == 0, "neq": lambda c: c != 0, "gt": lambda c: c > 0, "gte": lambda c: c >= 0,
             "lt": lambda c: c < 0, "lte": lambda c: c <= 0}
"""Each comparison's answer from ``compare_real``'s result (``Item_func_eq::val_int``...)."""


def bind_doubles(tree: "exp.Expr", values: Sequence[Parameter]) -> None:
    """The DOUBLE parameters, after the literals were read: a finite or infinite one as the
    double itself; a NaN as ``compare_real`` decides each comparison it is a side of (``1``:
    the comparison's answer, or NULL when the other side is NULL; ``<=>`` is false). A NaN
    anywhere else is 1235: MySQL's arithmetic on it is not simulated."""
    from sqlglot import exp

    for node in list(tree.find_all(exp.Placeholder)):
        if node.root() is not tree:
            continue  # the other side of a NaN comparison already decided
        value = values[int(node.name[1:])]
        assert isinstance(value, float)
        if not math.isnan(value):
            node.replace(double_literal(value))
            continue
        comparison = node.parent
        if isinstance(comparison, exp.NullSafeEQ):
            comparison.replace(exp.false())
            continue
        if comparison is None or comparison.key not in _COMPARED:
            raise MySQLError.of(ER.NOT_SUPPORTED_YET, "a NaN parameter outside a comparison in replfilter")
        other = comparison.expression if comparison.this is node else comparison.this
        answer = exp.Boolean(this=_COMPARED[comparison.key](1))
        if isinstance(other, exp.Placeholder):  # NaN against NaN: both sides are doubles, not NULL
            comparison.replace(answer)
        else:
            comparison.replace(exp.Case(ifs=[exp.If(this=exp.Is(this=other.copy(), expression=exp.Null()),
                                                    true=exp.Null())], default=answer))


def select_item_texts(sql: str) -> list[str] | None:
    """Each select item's text as typed, from its first token to its last: the name the server
    gives an item without an alias (``PTI_expr_with_alias::itemize`` copies the expression's
    span of the query, so ``1.5*2`` is named ``1.5*2`` and ``count(*)`` keeps its letter
    case), the select options before the list left out (``SELECT ALL 1.5*2`` names it
    ``1.5*2``: :data:`.clause_order.SELECT_OPTIONS`). None when the select list cannot be read so (the caller
    names items otherwise)."""
    from sqlglot.dialects.mysql import MySQL
    from sqlglot.tokens import TokenType

    try:
        tokens = MySQL().tokenize(sql)
    except Exception:  # the parser reported the statement's own error already
        return None
    if not tokens or tokens[0].token_type != TokenType.SELECT:
        return None
    items: list[list] = [[]]
    depth = 0
    for token in tokens[1:]:
        kind = token.token_type
        if depth == 0 and kind in (TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING,
                                   TokenType.ORDER_BY, TokenType.LIMIT, TokenType.SEMICOLON, TokenType.INTO,
                                   TokenType.UNION, TokenType.WINDOW, TokenType.FOR):
            break
        if not items[0] and len(items) == 1 and sql[token.start:token.end + 1].upper() in SELECT_OPTIONS:
            continue
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            depth -= 1
        if kind == TokenType.COMMA and depth == 0:
            items.append([])
            continue
        items[-1].append(token)
    if any(not item for item in items):
        return None
    return [sql[item[0].start:item[-1].end + 1] for item in items]


_MYSQL_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def split_numbers(sql: str) -> str:
    """``sql`` with a space after each number that sqlglot's tokenizer reads too far: after an
    exponent's digits it takes a ``+`` or ``-`` and what follows into the number (``1e0+1.5``
    is one token there, ``1e0-1e0`` an identifier). MySQL's lexer ends the number at the exponent's last digit
    (``sql_lex.cc``: a FLOAT_NUM is digits, point, digits, ``e``, sign, digits), so
    ``1e0+1.5`` is ``1e0 + 1.5``. The space goes between tokens, never inside a string."""
    from sqlglot.dialects.mysql import MySQL
    from sqlglot.tokens import TokenType

    while True:  # a pass cuts every token once; what a cut leaves is read again in the next
        try:
            tokens = MySQL().tokenize(sql)
        except Exception:  # the parser reports the statement's own error
            return sql
        cuts = []
        for token in tokens:
            if token.token_type not in (TokenType.NUMBER, TokenType.VAR):  # 1e0-1e0 is a VAR there
                continue
            text = sql[token.start:token.end + 1]
            match = _MYSQL_NUMBER.match(text)
            if match is not None and 0 < match.end() < len(text) and text[match.end()] in "+-":
                cuts.append(token.start + match.end())
        if not cuts:
            return sql
        for cut in reversed(cuts):
            sql = f"{sql[:cut]} {sql[cut:]}"
