"""The quick readers of DDL text: the parts of a statement read without tokenizing it whole.

A plain ``CREATE TABLE t (...) options`` (every table of a mysqldump) has its columns read by one
quote-aware regular-expression pass over the body: the first name of each element that is not a
key or constraint. That is the answer sqlglot gives (a property test checks it) at a fraction of
the cost, which is what lets a 50,000-table dump load in seconds. The same pass shortens such a
statement to the text its Query event needs (:func:`event_text`). Versioned comments are resolved
before any reading (:func:`execute_versioned_comments`), and the loader skips a statement that
cannot change the schema by its first word alone (:func:`first_word`, :func:`is_schema_statement`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from ...core.filters import fold_case
from ...core.version import DEFAULT_VERSION
from ...dialect.lexical import expand_executable_comments
from .ddl_errors import Refused, SqlSyntaxError, duplicate_column
from ..sql.tokens import Token, tokenize

SERVER_VERSION_ID = DEFAULT_VERSION.number
"""The simulated server's ``MYSQL_VERSION_ID`` (8.4.3: 80403) unless the replica's version says
otherwise: ``/*!NNNNN ... */`` runs when NNNNN is at or below it, as the server's lexer decides
(a comment with a higher number is skipped)."""

TABLE_ELEMENT_KEYWORDS = frozenset({"PRIMARY", "KEY", "INDEX", "UNIQUE", "CONSTRAINT", "FOREIGN", "FULLTEXT",
                                    "SPATIAL", "CHECK", "PERIOD"})
"""The words that open a table element that is a key, index or constraint, not a column."""


_COARSE = re.compile(r"""'(?:[^'\\]|\\.|'')*+'|"(?:[^"\\]|\\.|"")*+"|`(?:[^`]|``)*+`|[(),]|[^'"`(),]+""", re.S)
_CREATE_TABLE_HEAD = re.compile(r"\s*CREATE\s+TABLE\s", re.I)
_NOT_PLAIN_REST = re.compile(r"\b(?:SELECT|AS|IGNORE|REPLACE|WITH|TABLE|VALUES|LIKE)\b|/\*|--|#", re.I)
_ELEMENT_WORD = re.compile(r"\s*([^\x00-\x23\x25-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff]+)")


def plain_table_body(sql: str) -> int | None:
    """Where the ``(`` of a ``CREATE TABLE name (`` body starts, for the quick reading; None for
    any other statement."""
    if _CREATE_TABLE_HEAD.match(sql) is None:
        return None
    for match in _COARSE.finditer(sql):
        if match.group() == "(":
            return match.start()
    return None


_REFERENCES = re.compile(r"\bREFERENCES\b", re.I)


def event_text(sql: str) -> str:
    """The shortest text whose Query event is this statement's: a plain ``CREATE TABLE t (...)``
    whose body references no other table logs an event naming only ``t``, so its columns are
    dropped before ``sql.logged_events`` reads it (reading a 6-column body costs more than deciding).
    Any other statement is returned as it is. A property test checks the two events agree."""
    body = plain_table_body(sql)
    if body is None or _REFERENCES.search(sql, body) is not None:
        return sql
    try:
        if body_columns(sql[body:]) is None:
            return sql
    except (SqlSyntaxError, Refused):
        return sql
    return sql[:body] + "(`_` int)"


@lru_cache(maxsize=16)
def body_columns(body: str) -> tuple[str, ...] | None:
    """The columns of ``( column and key definitions ) [table options]``: the first name of
    each top-level element that is not a key, index or constraint (cached: the replica's replay
    reads the same body right after the source's). None when the text holds more than that
    (``... SELECT``, ``LIKE``, comments): the caller reads it with sqlglot."""
    columns: list[str] = []
    folded: set[str] = set()
    depth, expect_element = 0, True
    for match in _COARSE.finditer(body):
        chunk = match.group()
        first = chunk[0]
        if first == "(":
            depth += 1
            continue
        if first == ")":
            depth -= 1
            if depth == 0:
                if _NOT_PLAIN_REST.search(body, match.end()):
                    return None
                return tuple(columns)
            continue
        if first == "," and depth == 1:
            expect_element = True
            continue
        if first not in "'\"`" and ("/*" in chunk or "--" in chunk or "#" in chunk):
            return None
        if not expect_element or depth != 1 or chunk.isspace():
            continue
        expect_element = False
        if first == "`":
            name = chunk[1:-1].replace("``", "`")
        else:
            word = _ELEMENT_WORD.match(chunk)
            if word is None:
                raise SqlSyntaxError
            name = word.group(1)
            if name.upper() in TABLE_ELEMENT_KEYWORDS or name.upper() == "LIKE":
                if name.upper() == "LIKE":
                    return None
                continue
        add_column(columns, folded, name)
    raise SqlSyntaxError


def execute_versioned_comments(sql: str, version: int = SERVER_VERSION_ID) -> str:
    """The text the server executes: ``/*!NNNNN ... */`` opened up when NNNNN <= ``version``
    (or has no number), blanked otherwise; the dialect's one reading of executable comments
    (``replfilter.dialect.lexical``), shared with scripts and the shell."""
    return expand_executable_comments(sql, version)


@lru_cache(maxsize=16)
def statement_tokens(sql: str) -> tuple[Token, ...]:
    """The statement's tokens, trailing ``;`` dropped. Cached: loading a schema applies each
    statement to the source's catalog and then, when the filters pass it, to the replica's."""
    tokens, _markers = tokenize(sql)
    while tokens and tokens[-1].kind == "op" and tokens[-1].text == ";":
        tokens.pop()
    return tuple(tokens)


_FIRST_WORD = re.compile(r"\s*(?:/\*!\d*\s*)?([A-Za-z_]+)")


def first_word(text: str) -> str:
    """The statement's first word, upper-cased (a leading ``/*!NNNNN`` is looked through)."""
    match = _FIRST_WORD.match(text)
    return match.group(1).upper() if match else ""


def is_schema_statement(first_word: str) -> bool:
    """Whether a statement starting with this word can change the schema (or the default
    database): the loader skips every other statement without reading it."""
    return first_word.upper() in _SCHEMA_WORDS


_SCHEMA_WORDS = frozenset({"CREATE", "ALTER", "DROP", "RENAME", "USE"})


def add_column(columns: list[str], folded: set[str], name: str) -> None:
    """Append a column, refused as the server refuses a name already there (case-insensitive).
    ``folded`` holds the folded names of ``columns``: a set lookup keeps a table of thousands
    of columns linear."""
    key = fold_case(name)
    if key in folded:
        raise Refused(duplicate_column(name))
    folded.add(key)
    columns.append(name)


def find_column(columns: Sequence[str], name: str) -> int | None:
    """Where a column is, compared as the server compares column names; None when absent."""
    wanted = fold_case(name)
    for index, column in enumerate(columns):
        if fold_case(column) == wanted:
            return index
    return None
