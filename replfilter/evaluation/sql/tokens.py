"""The lexical layer of reading SQL text: tokens, where one statement of a script ends, and a
cursor the statement readers move over the tokens.

The tokenizer knows what MySQL's lexer knows about where text is *not* SQL: quotes (``"``
delimits strings under the default ``sql_mode``, not ``ANSI_QUOTES``), backticks, doubled quotes
and backslash escapes, ``#``/``-- ``/``/* */`` comments, and ``/*!NNNNN ... */`` executable
comments, whose markers it reports so the reader can blank them (MySQL executes what they
enclose). It never interprets keywords: that is the readers' job (:mod:`.readers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


class SqlEventsError(ValueError):
    """The SQL text cannot be read (unterminated quote, empty statement, malformed head)."""


class HeadError(Exception):
    """A malformed statement head, met by a reader; :func:`~.readers.analyse_statement`
    turns it into :class:`SqlEventsError` naming the command."""


# --- tokenizer ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    """``kind``: word (unquoted identifier or keyword), ident (backticked), string, number, var
    (``@x``/``@@x``) or op (one punctuation character). ``text`` is the value (backticks and
    quotes removed, doubled quotes undone); ``start``/``end`` index the original SQL."""

    kind: str
    text: str
    start: int
    end: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""

    @property
    def is_name(self) -> bool:
        return self.kind in ("word", "ident")


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$" or ord(ch) >= 0x80


def tokenize(sql: str) -> tuple[list[Token], list[tuple[int, int]]]:
    """Tokens plus the spans of ``/*!NNNNN`` and matching ``*/`` markers (to blank out before
    handing the text to sqlglot, since MySQL executes what they enclose)."""
    tokens: list[Token] = []
    markers: list[tuple[int, int]] = []
    i, n = 0, len(sql)
    in_exec = False
    while i < n:
        ch = sql[i]
        if ch.isspace():
            i += 1
        elif ch == "#" or (sql.startswith("--", i) and (i + 2 == n or sql[i + 2].isspace())):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif sql.startswith("/*!", i):
            j = i + 3
            while j < n and j < i + 9 and sql[j].isdigit():
                j += 1
            markers.append((i, j))
            in_exec = True
            i = j
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            if end < 0:
                raise SqlEventsError(f"unterminated comment starting at offset {i}")
            i = end + 2
        elif in_exec and sql.startswith("*/", i):
            markers.append((i, i + 2))
            in_exec = False
            i += 2
        elif ch in "'\"`":
            text, end = _read_quoted(sql, i)
            tokens.append(Token("ident" if ch == "`" else "string", text, i, end))
            i = end
        elif ch == "@":
            j = i + 1
            if j < n and sql[j] == "@":
                j += 1
            if j < n and sql[j] in "'\"`":
                _, j = _read_quoted(sql, j)
            else:
                while j < n and (_is_word_char(sql[j]) or sql[j] == "."):
                    j += 1
            tokens.append(Token("var", sql[i:j], i, j))
            i = j
        elif _is_word_char(ch):
            j = i
            while j < n and _is_word_char(sql[j]):
                j += 1
            word = sql[i:j]
            tokens.append(Token("number" if word.isdigit() else "word", word, i, j))
            i = j
        else:
            tokens.append(Token("op", ch, i, i + 1))
            i += 1
    return tokens, markers


def _read_quoted(sql: str, start: int) -> tuple[str, int]:
    quote = sql[start]
    out: list[str] = []
    i, n = start + 1, len(sql)
    while i < n:
        ch = sql[i]
        if ch == "\\" and quote != "`" and i + 1 < n:
            out.append(sql[i : i + 2])
            i += 2
        elif ch == quote:
            if i + 1 < n and sql[i + 1] == quote:
                out.append(quote)
                i += 2
            else:
                return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    what = "identifier" if quote == "`" else "string"
    raise SqlEventsError(f"unterminated quoted {what} starting at offset {start}")


# --- splitting a script -----------------------------------------------------------------------

_ROUTINE_OBJECTS = {"PROCEDURE", "FUNCTION", "TRIGGER", "EVENT"}


def split_sql_script(sql: str) -> list[str]:
    """The statement texts of a SQL script: cut at ``;`` outside quotes, comments and the
    BEGIN ... END body of a CREATE PROCEDURE/FUNCTION/TRIGGER/EVENT, so that a routine body is
    one statement, as the server receives it after the client's ``DELIMITER``.

    Not the client's splitter (:func:`replfilter.dialect.splitter.split_statements`): that one
    reads what a user types into the mysql client (``DELIMITER``, ``\\G``, client commands);
    this one reads SQL text that reaches the server, such as an EXPLAIN REPLICATION argument."""
    tokens, _ = tokenize(sql)
    pieces: list[str] = []
    start = 0
    depth = 0
    head: list[str] = []
    has_tokens = False  # a piece of only comments and blanks is no statement
    for index, tok in enumerate(tokens):
        if tok.kind == "op" and tok.text == ";" and depth <= 0:
            if has_tokens:
                pieces.append(sql[start : tok.start])
            start, depth, head, has_tokens = tok.end, 0, [], False
            continue
        has_tokens = True
        if len(head) < 12 and tok.kind == "word":
            head.append(tok.upper)
        if head[:1] == ["CREATE"] and _ROUTINE_OBJECTS & set(head):
            word = tok.upper
            previous = tokens[index - 1].upper if index else ""
            following = tokens[index + 1].upper if index + 1 < len(tokens) else ""
            if word in ("BEGIN", "CASE") and following != "WORK" and previous != "END":
                depth += 1
            elif word == "END" and following not in ("IF", "LOOP", "WHILE", "REPEAT"):
                depth -= 1  # END and END CASE close BEGIN and CASE; END IF etc. were never opened
    if has_tokens:
        pieces.append(sql[start:])
    return [p.strip() for p in pieces]


# --- token cursor ---------------------------------------------------------------------------


class TokenCursor:
    """A read position in the token list with the few moves the head readers need."""

    def __init__(self, tokens: Sequence[Token], pos: int = 0):
        self.tokens = tokens
        self.pos = pos

    @property
    def done(self) -> bool:
        return self.pos >= len(self.tokens)

    def peek(self, offset: int = 0) -> Token | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def word(self, offset: int = 0) -> str:
        tok = self.peek(offset)
        return tok.upper if tok else ""

    def accept(self, *words: str) -> bool:
        if self.word() in words:
            self.pos += 1
            return True
        return False

    def accept_op(self, op: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text == op:
            self.pos += 1
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise HeadError(f"expected {' or '.join(words)} near {self.near()}")

    def skip_words(self, *words: str) -> None:
        while self.accept(*words):
            pass

    def near(self) -> str:
        tok = self.peek()
        return repr(tok.text) if tok else "the end"

    def name(self, what: str = "name") -> str:
        tok = self.peek()
        if tok is None or not tok.is_name:
            raise HeadError(f"expected a {what} near {self.near()}")
        self.pos += 1
        return tok.text

    def qualified(self, what: str = "table name") -> tuple[str | None, str]:
        first = self.name(what)
        if self.accept_op("."):
            return first, self.name(what)
        return None, first

    def expect_end(self) -> None:
        if not self.done:
            raise HeadError(f"unexpected {self.near()}")

    def skip_parens(self) -> None:
        """Skip one balanced ``( ... )`` group if the cursor is on ``(``."""
        if not self.accept_op("("):
            return
        depth = 1
        while not self.done and depth:
            tok = self.tokens[self.pos]
            if tok.kind == "op" and tok.text in "()":
                depth += 1 if tok.text == "(" else -1
            self.pos += 1

    def find_word(self, word: str) -> int | None:
        """Index of ``word`` at parenthesis depth 0 from the cursor on, else None."""
        depth = 0
        for i in range(self.pos, len(self.tokens)):
            tok = self.tokens[i]
            if tok.kind == "op" and tok.text == "(":
                depth += 1
            elif tok.kind == "op" and tok.text == ")":
                depth -= 1
            elif depth == 0 and tok.upper == word:
                return i
        return None


def head_words(tokens: Sequence[Token], limit: int = 16) -> list[str]:
    """The first ``limit`` tokens upper-cased ("" for non-words): what classification reads."""
    return [t.upper for t in tokens[:limit]]
