"""The cursor a DDL statement is read with: :class:`TokenCursor`'s moves with this reader's own
errors (a malformed statement is :class:`SqlSyntaxError`, MySQL's 1064), the clauses every
``CREATE``/``ALTER`` shares (``IF [NOT] EXISTS``, ``DEFINER = ...``, ``OR REPLACE`` ...), and
object names resolved against the session's default database and the catalog being changed.

The statement families (:mod:`.tables`, :mod:`.objects`) build on it.
"""

from __future__ import annotations

from typing import Sequence

from ...replica.catalog import CatalogBuilder
from .ddl_errors import Refused, SqlSyntaxError, no_database_selected, unknown_database
from ..sql.tokens import Token, TokenCursor

_CREATE_MODIFIERS = frozenset({"OR", "REPLACE", "TEMPORARY", "UNIQUE", "FULLTEXT", "SPATIAL", "AGGREGATE",
                               "ONLINE", "OFFLINE", "UNDO", "EXTERNAL", "IGNORE"})


class NeedAllTokens(Exception):
    """The head alone did not do: read the whole statement's tokens."""


class StatementCursor(TokenCursor):
    """One statement's tokens, read left to right against a catalog builder."""

    def __init__(self, builder: CatalogBuilder, sql: str, tokens: Sequence[Token], default_db: str,
                 body: int | None = None):
        self.body = body            # where a CREATE TABLE body starts when only the head was read
        self.definer: str | None = None
        self.b = builder
        self.sql = sql
        super().__init__(tokens)
        self.default_db = default_db

    # -- token moves: TokenCursor's, with this reader's own errors --

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise SqlSyntaxError

    def name(self, what: str = "name") -> str:
        tok = self.peek()
        if tok is None or tok.kind not in ("word", "ident", "string"):
            raise SqlSyntaxError
        self.pos += 1
        return tok.text

    def if_exists(self) -> bool:
        if self.word() == "IF" and self.word(1) == "EXISTS":
            self.pos += 2
            return True
        return False

    def if_not_exists(self) -> bool:
        if self.word() == "IF" and self.word(1) == "NOT" and self.word(2) == "EXISTS":
            self.pos += 3
            return True
        return False

    def near(self) -> str:
        """What the server's 1064 quotes: the text from where the reading stopped."""
        return self.rest_text()

    def rest_text(self) -> str:
        tok = self.peek()
        return self.sql[tok.start:] if tok is not None else ""

    def skip_definer(self) -> None:
        """``user@host`` / ``CURRENT_USER[()]`` in any quoting."""
        if self.accept("CURRENT_USER"):
            if self.word() == "" and self.accept_op("("):
                self.accept_op(")")
            return
        self.name()
        tok = self.peek()
        if tok is not None and tok.kind == "var":       # @'host' / @host
            self.pos += 1
        elif self.accept_op("@"):
            self.name()

    def skip_modifiers(self) -> set[str]:
        """The words between ``CREATE``/``ALTER`` and the object's kind; ``DEFINER = ...`` is kept
        in :attr:`definer` (a trigger records it)."""
        seen: set[str] = set()
        self.definer = None
        while True:
            word = self.word()
            if word in _CREATE_MODIFIERS:
                seen.add(word)
                self.pos += 1
            elif word in ("ALGORITHM", "DEFINER") and self.peek(1) is not None and self.peek(1).text == "=":
                self.pos += 2
                if word == "DEFINER":
                    start = self.peek().start if self.peek() is not None else 0
                    self.skip_definer()
                    end = self.tokens[self.pos - 1].end
                    self.definer = self.sql[start:end].replace("`", "")
                else:
                    self.pos += 1
            elif word == "SQL" and self.word(1) == "SECURITY":
                self.pos += 3
            else:
                return seen

    # -- names against the session --

    def db_of(self, db: str | None) -> str:
        """The database an object name lives in: its qualifier, else the default database."""
        if db is not None:
            return db
        if not self.default_db:
            raise Refused(no_database_selected())
        return self.default_db

    def existing_db(self, db: str | None) -> str:
        name = self.db_of(db)
        if not self.b.has_database(name):
            raise Refused(unknown_database(name))
        return name

    def db_name(self, db: str) -> str:
        """The database's name as the catalog spells it (``db`` as written when it is new)."""
        return self.b.database_name(db) or db
