"""DDL text -> changes to a schema catalog, with the errors the server would raise.

One statement at a time, as the server executes it: ``CREATE/DROP DATABASE``, ``USE``,
``CREATE TABLE`` (with columns, ``LIKE`` and ``... SELECT``), ``CREATE/ALTER VIEW`` (columns and
base tables), ``ALTER TABLE`` (columns added, dropped, changed, renamed; the table renamed),
``RENAME TABLE``, ``DROP TABLE/VIEW``, ``CREATE/DROP TRIGGER`` and the routines and events. A
statement that changes no object (``INSERT``, ``SET``, ``CREATE INDEX``, ``GRANT`` ...) changes
nothing here.

A statement the server would refuse (the table exists, the database is unknown, the text is not
SQL) changes nothing and yields the server's error (number, SQLSTATE, text): the caller decides
whether that is a warning (loading a schema file) or the applier stopping (replaying events).
Atomic DDL (8.0+): ``DROP TABLE a, missing`` and ``RENAME TABLE`` with a bad pair change nothing.

How text is read: the statement head (object kind, names, ``IF [NOT] EXISTS``) by the project's
tokenizer (``sql_tokens.tokenize``); view queries, ``CREATE TABLE ... SELECT``/``LIKE`` and any
table body with more than column and key definitions, by sqlglot's MySQL dialect, which yields
column definitions and the tables a query reads. A plain ``CREATE TABLE t (...) options`` (every
table of a mysqldump) has its columns read by one quote-aware regular-expression pass over the
body: the first name of each element that is not a key or constraint. That is the answer sqlglot
gives (a property test checks it) at a fraction of the cost, which is what lets a 50,000-table
dump load in seconds. Versioned comments are resolved first (:func:`execute_versioned_comments`).

Choices (README, "Where replfilter chooses"): temporary tables are session objects and are not
kept; a view's columns are its select list's names (``*`` expanded from the catalog); the trigger,
routine and event bodies are not read.
"""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Sequence

from ..dialect.lexical import expand_executable_comments
from ..core.errors import MySQLError
from ..core.filters import fold_case
from ..core.version import DEFAULT_VERSION
from ..replica.catalog import Catalog, CatalogBuilder, RoutineDef, RoutineKind, TableDef, TriggerDef
from .sql_tokens import SqlEventsError, Token, TokenCursor, tokenize

# --- the server's errors (number, SQLSTATE, 8.4 text) ------------------------------------------


def _error(code: int, sqlstate: str, message: str) -> MySQLError:
    return MySQLError(code, sqlstate, message)


def no_database_selected() -> MySQLError:
    return _error(1046, "3D000", "No database selected")


def unknown_database(db: str) -> MySQLError:
    return _error(1049, "42000", f"Unknown database '{db[:192]}'")


def database_exists(db: str) -> MySQLError:
    return _error(1007, "HY000", f"Can't create database '{db[:192]}'; database exists")


def database_missing(db: str) -> MySQLError:
    return _error(1008, "HY000", f"Can't drop database '{db[:192]}'; database doesn't exist")


def table_exists(name: str) -> MySQLError:
    return _error(1050, "42S01", f"Table '{name[:192]}' already exists")


def unknown_table(names: str) -> MySQLError:
    return _error(1051, "42S02", f"Unknown table '{names[:129]}'")


def no_such_table(db: str, name: str) -> MySQLError:
    return _error(1146, "42S02", f"Table '{db}.{name}' doesn't exist")


def duplicate_column(name: str) -> MySQLError:
    return _error(1060, "42S21", f"Duplicate column name '{name[:192]}'")


def unknown_column(name: str, table: str) -> MySQLError:
    return _error(1054, "42S22", f"Unknown column '{name}' in '{table}'")


def cant_drop_column(name: str) -> MySQLError:
    return _error(1091, "42000", f"Can't DROP '{name[:192]}'; check that column/key exists")


def wrong_object(db: str, name: str, what: str) -> MySQLError:
    return _error(1347, "HY000", f"'{db[:192]}.{name[:192]}' is not {what}")


def trigger_exists() -> MySQLError:
    return _error(1359, "HY000", "Trigger already exists")


def trigger_missing() -> MySQLError:
    return _error(1360, "HY000", "Trigger does not exist")


def routine_exists(kind: str, name: str) -> MySQLError:
    if kind == RoutineKind.EVENT:
        return _error(1537, "HY000", f"Event '{name[:192]}' already exists")
    return _error(1304, "42000", f"{kind} {name} already exists")


def routine_missing(kind: str, db: str, name: str) -> MySQLError:
    if kind == RoutineKind.EVENT:
        return _error(1539, "HY000", f"Unknown event '{name[:192]}'")
    return _error(1305, "42000", f"{kind} {db}.{name} does not exist")


def syntax_error(near: str, line: int = 1) -> MySQLError:
    return _error(
        1064, "42000",
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use near '{near[:80]}' at line {line}",
    )


class _Refused(Exception):
    """The server refuses the statement with ``error``; nothing changes."""

    def __init__(self, error: MySQLError):
        super().__init__(error.message)
        self.error = error


SERVER_VERSION_ID = DEFAULT_VERSION.number
"""The simulated server's ``MYSQL_VERSION_ID`` (8.4.3: 80403) unless the replica's version says
otherwise: ``/*!NNNNN ... */`` runs when NNNNN is at or below it, as the server's lexer decides
(a comment with a higher number is skipped)."""

# --- public API --------------------------------------------------------------------------------


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
    body = _plain_table_body(sql)
    try:
        tokens = _tokens(sql if body is None else sql[:body])
    except SqlEventsError:
        return DdlOutcome(syntax_error(sql), default_db)
    if not tokens:
        return DdlOutcome(None, default_db)
    session = _Session(builder, sql, tokens, default_db, body)
    try:
        try:
            session.run()
        except _NeedAllTokens:
            session = _Session(builder, sql, _tokens(sql), default_db, None)
            session.run()
    except _Refused as refused:
        return DdlOutcome(refused.error, default_db)
    except _SyntaxError:
        return DdlOutcome(syntax_error(session.near()), default_db)
    except SqlEventsError:
        return DdlOutcome(syntax_error(sql), default_db)
    return DdlOutcome(None, session.default_db)


class _NeedAllTokens(Exception):
    """The head alone did not do: read the whole statement's tokens."""


_COARSE = re.compile(r"""'(?:[^'\\]|\\.|'')*+'|"(?:[^"\\]|\\.|"")*+"|`(?:[^`]|``)*+`|[(),]|[^'"`(),]+""", re.S)
_CREATE_TABLE_HEAD = re.compile(r"\s*CREATE\s+TABLE\s", re.I)
_NOT_PLAIN_REST = re.compile(r"\b(?:SELECT|AS|IGNORE|REPLACE|WITH|TABLE|VALUES|LIKE)\b|/\*|--|#", re.I)
_ELEMENT_WORD = re.compile(r"\s*([0-9A-Za-z_$\u0080-\uffff]+)")


def _plain_table_body(sql: str) -> int | None:
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
    dropped before ``sql_events`` reads it (reading a 6-column body costs more than deciding).
    Any other statement is returned as it is. A property test checks the two events agree."""
    body = _plain_table_body(sql)
    if body is None or _REFERENCES.search(sql, body) is not None:
        return sql
    try:
        if _body_columns(sql[body:]) is None:
            return sql
    except (_SyntaxError, _Refused):
        return sql
    return sql[:body] + "(`_` int)"


@lru_cache(maxsize=16)
def _body_columns(body: str) -> tuple[str, ...] | None:
    """(Cached: the replica's replay reads the same body right after the source's.) The columns of ``( column and key definitions ) [table options]``: the first name of
    each top-level element that is not a key, index or constraint. None when the text holds
    more than that (``... SELECT``, ``LIKE``, comments): the caller reads it with sqlglot."""
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
                raise _SyntaxError
            name = word.group(1)
            if name.upper() in _TABLE_ELEMENT_KEYWORDS or name.upper() == "LIKE":
                if name.upper() == "LIKE":
                    return None
                continue
        _add_column(columns, folded, name)
    raise _SyntaxError


def execute_versioned_comments(sql: str, version: int = SERVER_VERSION_ID) -> str:
    """The text the server executes: ``/*!NNNNN ... */`` opened up when NNNNN <= ``version``
    (or has no number), blanked otherwise; the dialect's one reading of executable comments
    (``replfilter.dialect.lexical``), shared with scripts and the shell."""
    return expand_executable_comments(sql, version)


@lru_cache(maxsize=16)
def _tokens(sql: str) -> tuple[Token, ...]:
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


# --- reading ----------------------------------------------------------------------------------


class _SyntaxError(Exception):
    pass


_CREATE_MODIFIERS = frozenset({"OR", "REPLACE", "TEMPORARY", "UNIQUE", "FULLTEXT", "SPATIAL", "AGGREGATE",
                               "ONLINE", "OFFLINE", "UNDO", "EXTERNAL", "IGNORE"})
_TABLE_ELEMENT_KEYWORDS = frozenset({"PRIMARY", "KEY", "INDEX", "UNIQUE", "CONSTRAINT", "FOREIGN", "FULLTEXT",
                                     "SPATIAL", "CHECK", "PERIOD"})


class _Session(TokenCursor):
    """One statement against the catalog, reading tokens left to right (the moves are
    :class:`TokenCursor`'s; a malformed statement is :class:`_SyntaxError`, MySQL's 1064)."""

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
            raise _SyntaxError

    def name(self, what: str = "name") -> str:
        tok = self.peek()
        if tok is None or tok.kind not in ("word", "ident", "string"):
            raise _SyntaxError
        self.pos += 1
        return tok.text

    def qualified(self, what: str = "table name") -> tuple[str | None, str]:
        first = self.name()
        if self.accept_op("."):
            return first, self.name()
        return None, first

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
        tok = self.peek()
        return self.sql[tok.start:] if tok is not None else ""

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
        seen: set[str] = set()
        self.definer: str | None = None
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
            raise _Refused(no_database_selected())
        return self.default_db

    def existing_db(self, db: str | None) -> str:
        name = self.db_of(db)
        if not self.b.has_database(name):
            raise _Refused(unknown_database(name))
        return name

    # -- dispatch --

    def run(self) -> None:
        word = self.word()
        self.pos += 1
        if word == "USE":
            name = self.name()
            if not self.b.has_database(name):
                raise _Refused(unknown_database(name))
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
                    raise _Refused(database_exists(name))
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
            quiet = self.if_not_exists()
            db, name = self.qualified()
            if what == RoutineKind.FUNCTION and db is None and self.word() == "RETURNS":
                if any(t.upper == "SONAME" for t in self.tokens[self.pos:]):
                    return                               # a loadable function: no database object
            database = self.existing_db(db)
            if self.b.routine(database, name, what) is not None:
                if not quiet:
                    raise _Refused(routine_exists(what, name))
                return
            self.b.put_routine(RoutineDef(self.b.database_name(database) or database, name, what))

    # -- tables --

    def create_table(self) -> None:
        quiet = self.if_not_exists()
        qualifier, name = self.qualified()
        db = self.existing_db(qualifier)
        if self.b.table(db, name) is not None:
            if not quiet:
                raise _Refused(table_exists(name))
            return
        if self.word() == "LIKE" or (self.peek() is not None and self.peek().text == "(" and self.word(1) == "LIKE"):
            parens = self.accept_op("(")
            self.expect("LIKE")
            source_db, source = self.qualified()
            source_db = self.db_of(source_db)
            found = self.b.table(source_db, source)
            if found is None or found.is_view:
                raise _Refused(no_such_table(source_db, source))
            if parens and not self.accept_op(")"):
                raise _SyntaxError
            self.b.put_table(TableDef(self._db_name(db), name, found.columns))
            return
        if self.body is not None:
            if not self.done:
                raise _NeedAllTokens          # more than a name before the body: read it all
            columns = _body_columns(self.sql[self.body:])
            if columns is None:
                raise _NeedAllTokens          # LIKE, ... SELECT, comments: the full reading
        else:
            columns = self._table_columns(self.sql[self.tokens[0].start:], db)
        self.b.put_table(TableDef(self._db_name(db), name, columns))

    def _db_name(self, db: str) -> str:
        return self.b.database_name(db) or db

    def _table_columns(self, text: str, db: str) -> tuple[str, ...]:
        """Defined columns, then a ``... SELECT``'s output columns not already defined."""
        from sqlglot import exp

        tree = _parse(text)
        if not isinstance(tree, exp.Create):
            raise _SyntaxError
        columns: list[str] = []
        folded: set[str] = set()
        if isinstance(tree.this, exp.Schema):
            for element in tree.this.expressions:
                if isinstance(element, exp.ColumnDef):
                    _add_column(columns, folded, element.name)
        query = tree.expression
        if query is not None:
            for column in self._query_columns(query, db):
                if fold_case(column) not in folded:
                    folded.add(fold_case(column))
                    columns.append(column)
        return tuple(columns)

    def _query_columns(self, query, db: str) -> list[str]:
        """The output column names of a query: alias, column name, or the expression's text;
        ``*`` and ``t.*`` expanded from the catalog."""
        from sqlglot import exp

        select = query
        while isinstance(select, exp.SetOperation):           # a UNION is named by its first part
            select = select.this
        if isinstance(select, exp.Subquery):
            select = select.this
        if not isinstance(select, exp.Select):
            return []
        sources = self._query_sources(select, db)
        out: list[str] = []
        for projection in select.expressions:
            if isinstance(projection, exp.Star):
                for table in sources.values():
                    out.extend(table.columns)
            elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
                table = sources.get(self.b.key(projection.table))
                if table is None:
                    raise _Refused(unknown_table(projection.table))
                out.extend(table.columns)
            elif isinstance(projection, exp.Alias):
                out.append(projection.alias)
            elif isinstance(projection, exp.Column):
                out.append(projection.name)
            else:
                out.append(projection.sql(dialect="mysql"))
        return out

    def _query_sources(self, select, db: str) -> dict[str, TableDef]:
        """The FROM/JOIN tables of a select, by the name the query calls them (alias or name)."""
        from sqlglot import exp

        found: dict[str, TableDef] = {}
        ctes = {fold_case(c.alias) for c in select.find_all(exp.CTE)}
        from_ = select.args.get("from") or select.args.get("from_")
        nodes = ([from_.this] if from_ is not None else []) + [j.this for j in select.args.get("joins") or []]
        for node in nodes:
            if not isinstance(node, exp.Table) or (not node.db and fold_case(node.name) in ctes):
                continue
            table_db = node.db or db
            table = self.b.table(table_db, node.name)
            if table is None:
                raise _Refused(no_such_table(table_db, node.name))
            found[self.b.key(node.alias_or_name)] = table
        return found

    def _base_tables(self, query, db: str) -> tuple[tuple[str, str], ...]:
        from sqlglot import exp

        ctes = {fold_case(c.alias) for c in query.find_all(exp.CTE)}
        out: list[tuple[str, str]] = []
        for node in query.find_all(exp.Table):
            if not node.name or (not node.db and fold_case(node.name) in ctes):
                continue
            table_db = node.db or db
            found = self.b.table(table_db, node.name)
            if found is None:
                raise _Refused(no_such_table(table_db, node.name))
            pair = (found.db, found.name)
            if pair not in out:
                out.append(pair)
        return tuple(out)

    def create_view(self, or_replace: bool, must_exist: bool) -> None:
        qualifier, name = self.qualified()
        db = self.existing_db(qualifier)
        existing = self.b.table(db, name)
        if existing is not None and not existing.is_view:
            if or_replace or must_exist:
                raise _Refused(wrong_object(db, name, "VIEW"))
            raise _Refused(table_exists(name))
        if existing is not None and not (or_replace or must_exist):
            raise _Refused(table_exists(name))
        if existing is None and must_exist:
            raise _Refused(no_such_table(db, name))
        listed: list[str] = []
        if self.accept_op("("):
            while not self.accept_op(")"):
                listed.append(self.name())
                self.accept_op(",")
        self.expect("AS")
        query = _parse(self.rest_text())
        if query is None:
            raise _SyntaxError
        columns = listed or self._query_columns(query, db)
        self.b.put_table(TableDef(self._db_name(db), name, tuple(columns), is_view=True,
                                  base_tables=self._base_tables(query, db)))

    def alter(self) -> None:
        self.skip_modifiers()
        what = self.word()
        self.pos += 1
        if what == "TABLE":
            self.alter_table()
        elif what == "VIEW":
            self.create_view(or_replace=False, must_exist=True)

    def alter_table(self) -> None:
        qualifier, name = self.qualified()
        db = self.db_of(qualifier)
        table = self.b.table(db, name)
        if table is None or table.is_view:
            raise _Refused(no_such_table(db, name))
        columns = list(table.columns)
        new_db, new_name = db, name
        for action in _split_top_level(self.tokens[self.pos:]):
            words = [t.upper for t in action[:3]]
            if not words:
                continue
            if words[0] == "ADD":
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN":
                    rest = rest[1:]
                if rest and rest[0].text == "(" and rest[0].kind == "op":
                    for element in _split_top_level(rest[1:-1]):
                        self._add(columns, element)
                elif rest and rest[0].upper not in _TABLE_ELEMENT_KEYWORDS and rest[0].upper != "PARTITION":
                    self._add(columns, rest)
            elif words[0] == "DROP":
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN":
                    rest = rest[1:]
                elif rest and rest[0].upper in _TABLE_ELEMENT_KEYWORDS | {"PARTITION"}:
                    continue
                if not rest:
                    raise _SyntaxError
                if self._exists_if(rest):
                    rest = rest[2:]
                    index = _find_column(columns, rest[0].text)
                    if index is not None:
                        del columns[index]
                    continue
                index = _find_column(columns, rest[0].text)
                if index is None:
                    raise _Refused(cant_drop_column(rest[0].text))
                del columns[index]
            elif words[0] in ("CHANGE", "MODIFY"):
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN":
                    rest = rest[1:]
                if not rest:
                    raise _SyntaxError
                old = rest[0].text
                index = _find_column(columns, old)
                if index is None:
                    raise _Refused(unknown_column(old, name))
                new = rest[1].text if words[0] == "CHANGE" and len(rest) > 1 else old
                del columns[index]
                if any(fold_case(new) == fold_case(c) for c in columns):
                    raise _Refused(duplicate_column(new))
                columns.insert(_position(columns, rest, index), new)
            elif words[0] == "RENAME":
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN" and len(rest) >= 4:
                    index = _find_column(columns, rest[1].text)
                    if index is None:
                        raise _Refused(unknown_column(rest[1].text, name))
                    if any(fold_case(rest[3].text) == fold_case(c) for i, c in enumerate(columns) if i != index):
                        raise _Refused(duplicate_column(rest[3].text))
                    columns[index] = rest[3].text
                elif rest and rest[0].upper in ("INDEX", "KEY"):
                    continue
                else:
                    if rest and rest[0].upper in ("TO", "AS"):
                        rest = rest[1:]
                    if len(rest) >= 3 and rest[1].text == ".":
                        new_db, new_name = rest[0].text, rest[2].text
                    elif rest:
                        new_name = rest[0].text
                    if not self.b.has_database(new_db):
                        raise _Refused(unknown_database(new_db))
                    clash = self.b.table(new_db, new_name)
                    if clash is not None and clash is not table:
                        raise _Refused(table_exists(new_name))
        renamed = (self.b.key(new_db), self.b.key(new_name)) != (self.b.key(db), self.b.key(name))
        if renamed:
            self._move_table(table, new_db, new_name)
            table = self.b.table(new_db, new_name)
        self.b.put_table(TableDef(table.db, table.name, tuple(columns)))

    def _exists_if(self, rest: Sequence[Token]) -> bool:
        return len(rest) >= 3 and rest[0].upper == "IF" and rest[1].upper == "EXISTS"

    def _add(self, columns: list[str], element: Sequence[Token]) -> None:
        if not element:
            raise _SyntaxError
        if element[0].upper in _TABLE_ELEMENT_KEYWORDS:
            return
        if element[0].upper == "IF" and len(element) > 3 and element[1].upper == "NOT":
            element = element[3:]
            if _find_column(columns, element[0].text) is not None:
                return
        new = element[0].text
        if _find_column(columns, new) is not None:
            raise _Refused(duplicate_column(new))
        columns.insert(_position(columns, element, len(columns)), new)

    def _move_table(self, table: TableDef, new_db: str, new_name: str) -> None:
        """RENAME: the table moves with its triggers' table name updated (MySQL keeps triggers
        with their table, and refuses to move a table with triggers to another database)."""
        triggers = self.b.triggers_on(table.db, table.name)
        self.b.drop_table(table.db, table.name)
        self.b.put_table(TableDef(self._db_name(new_db), new_name, table.columns, table.is_view, table.base_tables))
        for trigger in triggers:
            self.b.put_trigger(TriggerDef(trigger.db, trigger.name, new_name))

    def rename_tables(self) -> None:
        pairs: list[tuple[tuple[str, str], tuple[str | None, str]]] = []
        while True:
            source = self.qualified()
            self.expect("TO")
            target = self.qualified()
            pairs.append((source, target))
            if not self.accept_op(","):
                break
        # checked in order against the catalog as each earlier pair left it; all or nothing
        undo: list[tuple[TableDef, str, str]] = []
        try:
            for (source_db, source), (target_db, target) in pairs:
                sdb, tdb = self.db_of(source_db), self.db_of(target_db)
                table = self.b.table(sdb, source)
                if table is None:
                    raise _Refused(no_such_table(sdb, source))
                if not self.b.has_database(tdb):
                    raise _Refused(unknown_database(tdb))
                if self.b.table(tdb, target) is not None:
                    raise _Refused(table_exists(target))
                self._move_table(table, tdb, target)
                undo.append((table, tdb, target))
        except _Refused:
            for table, tdb, target in reversed(undo):
                moved = self.b.table(tdb, target)
                self._move_table(moved, table.db, table.name)
            raise

    # -- drops --

    def drop(self) -> None:
        temporary = self.accept("TEMPORARY")
        what = self.word()
        self.pos += 1
        if what in ("DATABASE", "SCHEMA"):
            quiet = self.if_exists()
            name = self.name()
            if not self.b.has_database(name):
                if not quiet:
                    raise _Refused(database_missing(name))
                return
            self.b.drop_database(name)
        elif what in ("TABLE", "TABLES", "VIEW"):
            if temporary:
                return
            self.drop_tables(view=what == "VIEW")
        elif what == "TRIGGER":
            quiet = self.if_exists()
            qualifier, name = self.qualified()
            db = self.db_of(qualifier)
            if self.b.trigger(db, name) is None:
                if not quiet:
                    raise _Refused(trigger_missing())
                return
            self.b.drop_trigger(db, name)
        elif what in RoutineKind.ALL:
            quiet = self.if_exists()
            qualifier, name = self.qualified()
            db = self.db_of(qualifier)
            if self.b.routine(db, name, what) is None:
                if not quiet:
                    raise _Refused(routine_missing(what, db, name))
                return
            self.b.drop_routine(db, name, what)

    def drop_tables(self, view: bool) -> None:
        quiet = self.if_exists()
        names: list[tuple[str, str]] = []
        while True:
            qualifier, name = self.qualified()
            names.append((self.db_of(qualifier), name))
            if not self.accept_op(","):
                break
        missing: list[str] = []
        for db, name in names:
            found = self.b.table(db, name)
            if found is not None and view and not found.is_view:
                raise _Refused(wrong_object(db, name, "VIEW"))
            if found is None or (found.is_view and not view):
                missing.append(f"{db}.{name}")
        if missing and not quiet:
            raise _Refused(unknown_table(",".join(missing)))
        for db, name in names:
            found = self.b.table(db, name)
            if found is not None and found.is_view == view:
                self.b.drop_table(db, name)

    # -- triggers --

    def create_trigger(self) -> None:
        quiet = self.if_not_exists()
        qualifier, name = self.qualified()
        db = self.existing_db(qualifier)
        timing, event = self.word(), self.word(1)
        self.expect("BEFORE", "AFTER")
        self.expect("INSERT", "UPDATE", "DELETE")
        self.expect("ON")
        table_db, table_name = self.qualified()
        table_db = table_db or db
        table = self.b.table(table_db, table_name)
        if table is None:
            raise _Refused(no_such_table(table_db, table_name))
        if table.is_view:
            raise _Refused(wrong_object(table_db, table_name, "BASE TABLE"))
        if self.b.trigger(db, name) is not None:
            if not quiet:
                raise _Refused(trigger_exists())
            return
        body = self._trigger_body()
        self.b.put_trigger(TriggerDef(self._db_name(db), name, table.name, timing, event, body, self.definer))

    def _trigger_body(self) -> str:
        """What follows ``FOR EACH ROW`` (and an optional FOLLOWS/PRECEDES other_trigger)."""
        self.expect("FOR")
        self.expect("EACH")
        self.expect("ROW")
        if self.accept("FOLLOWS", "PRECEDES"):
            self.name()
        return self.rest_text().strip()


# --- helpers ---------------------------------------------------------------------------------


def _add_column(columns: list[str], folded: set[str], name: str) -> None:
    """Append ``name`` unless it is already there (1060). ``folded`` holds the folded names of
    ``columns``, so a table of thousands of columns is read in linear time."""
    key = fold_case(name)
    if key in folded:
        raise _Refused(duplicate_column(name))
    folded.add(key)
    columns.append(name)


def _find_column(columns: Sequence[str], name: str) -> int | None:
    wanted = fold_case(name)
    for index, column in enumerate(columns):
        if fold_case(column) == wanted:
            return index
    return None


def _position(columns: Sequence[str], element: Sequence[Token], default: int) -> int:
    """Where ``FIRST`` / ``AFTER x`` at the end of a column definition puts it."""
    for i, tok in enumerate(element):
        if tok.upper == "FIRST" and i == len(element) - 1:
            return 0
        if tok.upper == "AFTER" and i == len(element) - 2:
            index = _find_column(columns, element[i + 1].text)
            if index is None:
                raise _Refused(unknown_column(element[i + 1].text, ""))
            return index + 1
    return default


def _split_top_level(tokens: Sequence[Token]) -> list[list[Token]]:
    """Split at commas outside parentheses."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.kind == "op" and tok.text == "(":
            depth += 1
        elif tok.kind == "op" and tok.text == ")":
            depth -= 1
        elif tok.kind == "op" and tok.text == "," and depth == 0:
            parts.append([])
            continue
        parts[-1].append(tok)
    return [p for p in parts if p]


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


@contextmanager
def _quiet() -> Iterator[None]:
    logger = logging.getLogger("sqlglot")
    quiet = _Quiet()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def _parse(text: str):
    """One statement read by sqlglot's MySQL dialect; text sqlglot cannot read is a syntax
    error (the server's 1064 or a construct neither reads: either way the statement is not
    applied, and the caller reports it)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        with _quiet():
            tree = sqlglot.parse_one(text, read="mysql")
    except (SqlglotError, RecursionError, ValueError):
        raise _SyntaxError from None
    if isinstance(tree, exp.Command):
        raise _SyntaxError
    return tree
