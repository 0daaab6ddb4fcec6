"""DDL text -> changes to a schema catalog, with the errors the server would raise.

One statement at a time, as the server executes it: ``CREATE/DROP DATABASE``, ``USE``, the table
statements (:mod:`.tables`), the views, triggers, routines and events
(:mod:`.objects`). A statement that changes no object (``INSERT``, ``SET``, ``CREATE
INDEX``, ``GRANT`` ...) changes nothing here.

A statement the server would refuse (the table exists, the database is unknown, the text is not
SQL) changes nothing and yields the server's error (:mod:`.ddl_errors`): the caller decides
whether that is a warning (loading a schema file) or the applier stopping (replaying events).

How text is read: versioned comments are resolved first; a plain ``CREATE TABLE t (...)`` has only
its head tokenized and its body read by the quick reader (:mod:`.text`); any other
statement's head (object kind, names, ``IF [NOT] EXISTS``) by the project's tokenizer
(:mod:`..sql.tokens`), and view queries, ``CREATE TABLE ... SELECT``/``LIKE`` and any table body
with more than column and key definitions by sqlglot's MySQL dialect (:mod:`.queries`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.errors import MySQLError
from ...replica.catalog import Catalog, CatalogBuilder, RoutineKind
from .cursor import NeedAllTokens
from .ddl_errors import (Refused, SqlSyntaxError, database_exists, database_missing, syntax_error,
                            unknown_database)
from .objects import ObjectStatements
from .tables import TableStatements
from .text import SERVER_VERSION_ID, execute_versioned_comments, plain_table_body, statement_tokens
from ..sql.tokens import SqlEventsError


@dataclass(frozen=True)
class DdlOutcome:
    """What one statement did: the server's error (None when it succeeded) and the session's
    default database afterwards (changed by ``USE``)."""

    error: MySQLError | None
    default_db: str


def apply_statement(catalog: Catalog, sql: str, default_db: str) -> tuple[Catalog, tuple[MySQLError, ...]]:
    """Apply one statement's text to ``catalog``: the new catalog, and the server's error if it
    refused the statement (then the catalog is unchanged)."""
    builder = CatalogBuilder(catalog)
    outcome = apply_to_builder(builder, sql, default_db)
    if outcome.error is not None:
        return catalog, (outcome.error,)
    return builder.freeze(), ()


def apply_to_builder(builder: CatalogBuilder, sql: str, default_db: str, version: int = SERVER_VERSION_ID) -> DdlOutcome:
    """Apply one statement to a mutable catalog (the loader's fast path)."""
    if "/*!" in sql:
        sql = execute_versioned_comments(sql, version)
    body = plain_table_body(sql)
    try:
        tokens = statement_tokens(sql if body is None else sql[:body])
    except SqlEventsError:
        return DdlOutcome(syntax_error(sql), default_db)
    if not tokens:
        return DdlOutcome(None, default_db)
    session = _Session(builder, sql, tokens, default_db, body)
    try:
        try:
            session.run()
        except NeedAllTokens:
            session = _Session(builder, sql, statement_tokens(sql), default_db, None)
            session.run()
    except Refused as refused:
        return DdlOutcome(refused.error, default_db)
    except SqlSyntaxError:
        return DdlOutcome(syntax_error(session.near()), default_db)
    except SqlEventsError:
        return DdlOutcome(syntax_error(sql), default_db)
    return DdlOutcome(None, session.default_db)


class _Session(TableStatements, ObjectStatements):
    """One statement against the catalog: its first words choose the statement family."""

    def run(self) -> None:
        word = self.word()
        self.pos += 1
        if word == "USE":
            name = self.name()
            if not self.b.has_database(name):
                raise Refused(unknown_database(name))
            self.default_db = name
        elif word == "CREATE":
            self.create()
        elif word == "ALTER":
            self.alter()
        elif word == "DROP":
            self.drop()
        elif word == "RENAME":
            if self.accept("TABLE", "TABLES"):
                self.rename_tables()

    def create(self) -> None:
        modifiers = self.skip_modifiers()
        what = self.word()
        self.pos += 1
        if what in ("DATABASE", "SCHEMA"):
            quiet = self.if_not_exists()
            name = self.name()
            if self.b.has_database(name):
                if not quiet:
                    raise Refused(database_exists(name))
                return
            self.b.add_database(name)
        elif what == "TABLE":
            if "TEMPORARY" in modifiers:
                return                                   # a session object, never in the catalog
            self.create_table()
        elif what == "VIEW":
            self.create_view(or_replace="REPLACE" in modifiers, must_exist=False)
        elif what == "TRIGGER":
            self.create_trigger()
        elif what in RoutineKind.ALL:
            self.create_routine(what)

    def alter(self) -> None:
        self.skip_modifiers()
        what = self.word()
        self.pos += 1
        if what == "TABLE":
            self.alter_table()
        elif what == "VIEW":
            self.create_view(or_replace=False, must_exist=True)

    def drop(self) -> None:
        temporary = self.accept("TEMPORARY")
        what = self.word()
        self.pos += 1
        if what in ("DATABASE", "SCHEMA"):
            quiet = self.if_exists()
            name = self.name()
            if not self.b.has_database(name):
                if not quiet:
                    raise Refused(database_missing(name))
                return
            self.b.drop_database(name)
        elif what in ("TABLE", "TABLES", "VIEW"):
            if temporary:
                return
            self.drop_tables(view=what == "VIEW")
        elif what == "TRIGGER":
            self.drop_trigger()
        elif what in RoutineKind.ALL:
            self.drop_routine(what)
