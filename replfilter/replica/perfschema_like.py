"""LIKE in a SELECT on the filter tables with MySQL's escape character.

sqlglot's executor turns a pattern into a regular expression with ``%`` and ``_`` as the only
special characters, so ``LIKE 'db\\_%'`` looked for a backslash and matched nothing. In MySQL:

* The string literal ``'db\\_%'`` keeps its backslash: the lexer drops the backslash of an
  escape sequence except before ``%`` and ``_`` (``sql/sql_lex.cc``, ``get_text``: ``\\%`` and
  ``\\_`` are kept as two characters so that LIKE sees them), as sqlglot's MySQL reader does.
* ``Item_func_like`` (``sql/item_cmpfunc.cc``) matches with ``my_wildcmp`` under the
  comparison's collation, ``%`` any run of characters, ``_`` one character, and the escape
  character making the character after it literal (an escape at the pattern's end is itself
  literal: ``my_wildcmp_uca_impl`` only escapes when a character follows). The escape is ``\\``
  unless ``ESCAPE`` names one (``Item_func_like::eval_escape_clause``): a constant of at most
  one character, else error 1210 ``Incorrect arguments to ESCAPE``; an empty one is ``\\``
  again. replfilter does not read ``sql_mode``, so NO_BACKSLASH_ESCAPES (no default escape) is
  not simulated; ``ESCAPE NULL`` is taken as the default.

The text columns and literals are folded for the tables' utf8mb4_0900_ai_ci before matching
(``RF_CI_LIKE``, :mod:`.perfschema_collation`); a letter as ``ESCAPE`` is folded with them, so
it also escapes after its other case (MySQL compares the escape code point exactly: a
documented difference no DBA is likely to meet).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..core.errors import ER, MySQLError
from ..core.wildcard import like_to_regex

if TYPE_CHECKING:
    from sqlglot import exp

DEFAULT_ESCAPE = "\\"


@lru_cache(maxsize=1024)
def _pattern(pattern: str, escape: str) -> "re.Pattern[str]":
    """The pattern as the filter rules' wild patterns are read (:func:`.core.wildcard.like_to_regex`),
    with this LIKE's escape character."""
    return re.compile(like_to_regex(pattern, escape), re.DOTALL)


def _text(value: Any) -> str:
    from .perfschema_values import double_text

    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return double_text(value)
    if isinstance(value, int):
        return str(int(value))
    return str(value)


def mysql_like(value: Any, pattern: Any, escape: Any = DEFAULT_ESCAPE) -> bool | None:
    """``value LIKE pattern ESCAPE escape`` as ``Item_func_like::val_int``: NULL when either
    side is NULL."""
    if value is None or pattern is None:
        return None
    return _pattern(_text(pattern), escape or DEFAULT_ESCAPE).fullmatch(_text(value)) is not None


def like_calls(tree: "exp.Expr") -> None:
    """Each ``LIKE`` (with its ``ESCAPE``) becomes a call of :func:`mysql_like` (``RF_LIKE``), a
    ``NOT LIKE`` the ``NOT`` of one (``Item_func_like`` negated is ``Item_func_not`` of it; made
    MySQL's by :func:`.perfschema_arith.mysql_operators`, so this runs before that); 1210 for an ``ESCAPE`` that is not a constant of at most one character."""
    from sqlglot import exp

    for like in list(tree.find_all(exp.Like)):
        escape: exp.Expr = exp.Literal.string(DEFAULT_ESCAPE)
        node: exp.Expr = like
        if isinstance(like.parent, exp.Escape) and like.arg_key == "this":
            node = like.parent
            given = node.expression
            if isinstance(given, exp.Null):
                pass
            elif not isinstance(given, exp.Literal) or len(given.this) > 1:
                raise MySQLError.of(ER.WRONG_ARGUMENTS, "ESCAPE")
            elif given.this:
                escape = exp.Literal.string(given.this)
            if isinstance(like.expression, exp.Anonymous) and like.expression.name == "RF_CI_LIKE":
                escape = exp.Anonymous(this="RF_CI_LIKE", expressions=[escape])
        call: exp.Expr = exp.Anonymous(this="RF_LIKE", expressions=[like.this, like.expression, escape])
        node.replace(exp.Not(this=call) if like.args.get("negate") else call)  # NOT LIKE: a NOT of it
