"""MySQL statements replfilter does not simulate: told apart from text that is not MySQL at all.

A 1064 must mean the text is not MySQL. When the dialect's grammar cannot read a statement,
sqlglot's MySQL reader is asked whether it is an ordinary MySQL statement (``SELECT 1``, ``SHOW
VARIABLES``, ``SET @x = 1``, a performance_schema query with ``GROUP BY``...): such a statement is
refused with 1235 saying replfilter does not simulate it; anything else stays a syntax error.
sqlglot is imported only on this path (a failed parse), never at start-up.

sqlglot does not read MySQL's administrative statements (``FLUSH LOGS``, ``LOCK TABLES``,
``CALL p()``, ``CHECK TABLE``...): their shapes are in ``admin_statements.lark`` (Lark, built on
first use), and the expressions some of them carry (``CALL``'s arguments, ``DO``, ``PURGE BINARY
LOGS BEFORE``) are read by sqlglot as a ``SELECT`` list would be.
"""

from __future__ import annotations

import re

from .clause_order import canonical_options
from .grammar import RESERVED_WORDS, admin_parser, ascii_upper

# sqlglot statement nodes that are statements MySQL runs (a bare expression such as ``foo bar``
# parses as an alias in sqlglot, and unknown text as a Command: neither counts).
_STATEMENT_NODES = frozenset({
    "Select", "Union", "Intersect", "Except", "Show", "Set", "Use", "Create", "Drop", "Insert",
    "Update", "Delete", "Describe", "Alter", "TruncateTable", "Grant", "Revoke", "Analyze",
    "Commit", "Rollback", "Transaction", "LoadData", "Merge", "Kill",
})
# Statements whose arguments are expressions: the words before them, and the expressions' text.
_CALL = re.compile(r"\s*CALL\s+((?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?)\s*(?:\((.*)\))?\s*\Z",
                   re.IGNORECASE | re.DOTALL | re.ASCII)
_EXPRESSION_TAILS = (
    re.compile(r"\s*DO\s+(.+)\Z", re.IGNORECASE | re.DOTALL | re.ASCII),
    re.compile(r"\s*PURGE\s+BINARY\s+LOGS\s+BEFORE\s+(.+)\Z", re.IGNORECASE | re.DOTALL | re.ASCII),
)
# Letters that Unicode case-folding maps onto ASCII ones (sqlglot folds keywords with str.upper;
# MySQL does not): text holding one is judged by the grammar alone.
_LOOKALIKES = frozenset("\u0130\u0131\u017f\u212a")
# Second words of the SHOW statements the dialect reads: a malformed one is the dialect's syntax
# error, not some other statement (sqlglot's SHOW reader takes almost anything).
_DIALECT_SHOW_WORDS = frozenset({"REPLICA", "SLAVE", "WARNINGS", "COUNT", "COUNT(*)", "REPLICAS", "DATABASES",
                                 "TABLES", "TRIGGERS", "FULL"})
_DIALECT_SHOW_EVENTS = frozenset({"BINLOG", "RELAYLOG"})
"""SHOW BINLOG EVENTS / SHOW RELAYLOG EVENTS are the dialect's (SHOW BINLOG STATUS is not)."""
_DIALECT_FIRST_WORDS = frozenset({"CHANGE", "RESET", "STOP", "EXPLAIN", "REPLAY", "LINT", "USE"})
MAX_CHARS = 64 * 1024
"""Longer text (a pasted dump) is not worth a second reader: it stays a syntax error."""


FILTER_TABLES = ("replication_applier_filters", "replication_applier_global_filters")


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


def unparenthesized(text: str) -> str:
    """The query inside the parentheses that enclose all of ``text`` (``((SELECT 1))`` is
    ``SELECT 1``), else ``text``. MySQL reads a query block in parentheses as that query block
    (``sql_yacc.yy``: ``query_expression_parens: '(' query_expression_parens ')' | '('
    query_expression_with_opt_locking_clauses ')'``), so it runs as the query inside does."""
    from sqlglot.dialects.mysql import MySQL

    try:
        tokens = MySQL().tokenize(text)
    except Exception:  # noqa: BLE001 - the reader reports an unterminated quote
        return text
    start, end = 0, len(tokens)
    while end - start >= 2 and tokens[start].token_type.name == "L_PAREN" and tokens[end - 1].token_type.name == "R_PAREN":
        depth = 0
        for index in range(start, end - 1):
            depth += {"L_PAREN": 1, "R_PAREN": -1}.get(tokens[index].token_type.name, 0)
            if depth == 0:  # the first "(" closes before the end: (SELECT 1) UNION (SELECT 2)
                return text if start == 0 else text[tokens[start - 1].end + 1:tokens[end].start]
        start, end = start + 1, end - 1
    return text if start == 0 else text[tokens[start - 1].end + 1:tokens[end].start]


def reads_filter_tables_only(text: str) -> bool:
    """True for a SELECT (``statement_kind`` said so) whose tables are all performance_schema
    filter tables, and that names at least one."""
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(canonical_options(text), read="mysql")
    if not isinstance(tree, exp.Select):
        return False
    tables = list(tree.find_all(exp.Table))
    return bool(tables) and all(
        t.name.lower() in FILTER_TABLES and (t.db or "performance_schema").lower() == "performance_schema"
        for t in tables
    )


def statement_words(text: str) -> list[str]:
    """The words the statement kind is read from: ``text``'s tokens as MySQL's lexer cuts them
    (``sql/sql_lex.cc``: ``*``, ``(``, ``)`` and ``,`` are tokens of their own, so
    ``select*from t`` starts with ``SELECT`` as ``select * from t`` does), upper-cased as typed
    (white space inside a token cuts it too);
    the text split at white space when it cannot be tokenized (an unterminated quote: no reader
    will take it, so the words only decide which error it gets). A query expression in
    parentheses (``(SELECT ...)``, ``sql_yacc.yy``'s ``query_expression_parens``) is of the kind
    of the query inside: its leading ``(`` are left out when a ``SELECT`` follows them."""
    from sqlglot.dialects.mysql import MySQL

    try:
        tokens = MySQL().tokenize(text)
    except Exception:  # noqa: BLE001 - TokenError and friends: white space is all there is to go by
        return ascii_upper(text).split()
    # A token may hold white space: sqlglot reads ``LOCK TABLES`` as one COMMAND token and the
    # rest of such a statement as one STRING; their words are cut at white space, as before.
    words = [word for token in tokens for word in ascii_upper(text[token.start:token.end + 1]).split()]
    opened = next((i for i, word in enumerate(words) if word != "("), len(words))
    return words[opened:] if opened and words[opened:opened + 1] == ["SELECT"] else words


def statement_kind(text: str) -> str | None:
    """The kind (``SELECT``, ``SHOW``...) of an ordinary MySQL statement ``text`` is, or None
    when it is not one (a syntax error)."""
    if len(text) > MAX_CHARS or _LOOKALIKES & set(text):
        return None
    words = statement_words(text)
    if not words or words[0] in _DIALECT_FIRST_WORDS:
        return None
    if words[0] == "SHOW" and (len(words) < 2 or words[1] in _DIALECT_SHOW_WORDS or words[1].startswith("COUNT")):
        return None
    if words[0] == "SHOW" and words[1] in _DIALECT_SHOW_EVENTS and words[2:3] == ["EVENTS"]:
        return None
    if words[0] == "START" and words[1:2] != ["TRANSACTION"]:
        return None  # START SLAVE / START GROUP_REPLICATION ...: sqlglot reads any as a transaction
    admin = _admin_statement_kind(text, words[0])
    if admin is not None:
        return admin
    try:
        import logging

        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import ErrorLevel

        logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its "falling back to Command" notes

        # options in any order and number are MySQL syntax (ALL with DISTINCT refused later, 1221):
        # clause_order.canonical_options puts them as sqlglot reads them
        readable = canonical_options(text) if words[0] == "SELECT" else text
        tree = sqlglot.parse_one(readable, read="mysql", error_level=ErrorLevel.RAISE)
    except Exception:  # ParseError, TokenError and friends: not MySQL as far as sqlglot can tell
        return None
    while isinstance(tree, exp.Subquery) and not tree.args.get("alias"):  # (SELECT ...): a SELECT
        tree = tree.this
    if tree is None or type(tree).__name__ not in _STATEMENT_NODES:
        return None
    return words[0]


def _admin_statement_kind(text: str, first_word: str) -> str | None:
    """The first word of an administrative statement ``text`` is (see ``admin_statements.lark``),
    or None. A reserved word used as a name is a syntax error, as in MySQL."""
    call = _CALL.match(text)
    if first_word == "CALL":
        if call is None or _reserved(call.group(1)):
            return None
        return "CALL" if call.group(2) is None or _expressions(call.group(2), allow_empty=True) else None
    for tail in _EXPRESSION_TAILS:
        match = tail.match(text)
        if match is not None:
            return first_word if _expressions(match.group(1)) else None
    from lark import Token
    from lark.exceptions import LarkError

    try:
        tree = admin_parser().parse(text)
    except LarkError:
        return None
    names = (t for t in tree.scan_values(lambda v: isinstance(v, Token)) if t.type == "NAME")
    if any(_reserved(name) for name in names):
        return None
    return first_word


def _reserved(name: str) -> bool:
    return any(ascii_upper(part.strip()) in RESERVED_WORDS for part in name.split(".") if not part.strip().startswith("`"))


def _expressions(text: str, allow_empty: bool = False) -> bool:
    """Whether ``text`` is a comma-separated list of expressions, read by sqlglot."""
    if not text.strip():
        return allow_empty
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ErrorLevel

    try:
        tree = sqlglot.parse_one(f"SELECT {text}", read="mysql", error_level=ErrorLevel.RAISE)
    except Exception:  # noqa: BLE001 - ParseError, TokenError: not expressions
        return False
    return isinstance(tree, exp.Select) and not any(isinstance(e, exp.Alias) for e in tree.expressions)
