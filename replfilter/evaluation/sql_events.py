"""SQL text -> the binlog events a source would write for it (issue 4, "SQL text to events").

Given a statement, the session's default database and a binlog format, derive what the replica's
filters will see:

* STATEMENT (and MIXED, taken as a safe statement): one :class:`QueryEvent` with the
  statement's command kind and its table list (updating flags as the server's parser sets them).
* ROW: DDL stays a :class:`QueryEvent` (judged by the default database); DML becomes one
  :class:`RowEvent` per table it changes, with the table's written database or the default one.
  ``CREATE TABLE ... SELECT`` is both: the CREATE as a query event, the rows as row events.
  CREATE/DROP TEMPORARY TABLE are not logged under ROW (8.0+).

How the statement is read: a small tokenizer (quotes, backticks, comments, ``/*! */``) finds the
statement head and its command kind; sqlglot's MySQL dialect then reads the statement (DML,
CREATE/ALTER/DROP TABLE and VIEW, indexes, databases, TRUNCATE). When sqlglot cannot parse a
statement, or does not support its kind at all (RENAME TABLE, GRANT/REVOKE, LOAD DATA, CREATE
TRIGGER, ALTER DATABASE, XA ...), the tokenizer reads the statement head itself.

When the tables cannot be known from the text — DROP TRIGGER (the replica looks the trigger up),
a multi-table UPDATE assigning unqualified columns, a CALL, an unrecognised statement — the
result says so (``tables_known=False`` plus a note) instead of guessing. Assumptions the spec
marks unverified (GRANT ... ON db.tbl listing its table, ANALYZE/OPTIMIZE/REPAIR tables being
updating) are stated in ``notes``. Unparseable text raises :class:`SqlEventsError`, never
another exception.

Names are kept as written (no case folding); comparing them is the evaluator's business.
``"`` delimits strings (the default ``sql_mode``, not ``ANSI_QUOTES``).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Iterator, Sequence

import sqlglot
from sqlglot import exp

from .events import CommandKind, Event, QueryEvent, RowEvent, TableRef

CK = CommandKind


class SqlEventsError(ValueError):
    """The SQL text cannot be read (unterminated quote, empty statement, malformed head)."""


class BinlogFormat(Enum):
    STATEMENT = "STATEMENT"
    ROW = "ROW"
    MIXED = "MIXED"

    @classmethod
    def parse(cls, value: "BinlogFormat | str") -> "BinlogFormat":
        if isinstance(value, BinlogFormat):
            return value
        try:
            return cls(str(value).upper())
        except ValueError:
            raise SqlEventsError(f"unknown binlog format {value!r}; expected STATEMENT, ROW or MIXED") from None


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


# --- splitting ------------------------------------------------------------------------------

_ROUTINE_OBJECTS = {"PROCEDURE", "FUNCTION", "TRIGGER", "EVENT"}


def split_statements(sql: str) -> list[str]:
    """Cut a script at ``;`` outside quotes, comments and the BEGIN ... END body of a CREATE
    PROCEDURE/FUNCTION/TRIGGER/EVENT (so a routine body is one statement, as with DELIMITER)."""
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


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatementAnalysis:
    """What the text of one statement says, independent of binlog format.

    ``tables`` is the server's table list in statement order with updating flags; ``event_db``
    is the named database of CREATE/ALTER/DROP DATABASE (the source logs it as the event's db);
    ``logged`` is False for statements the source does not write to the binlog (SELECT, USE,
    SHOW ...); ``use_db`` is set by USE.
    """

    command: CommandKind
    tables: tuple[TableRef, ...] = ()
    logged: bool = True
    event_db: str | None = None
    temporary: bool = False
    if_exists: bool = False
    create_select: bool = False
    tables_known: bool = True
    notes: tuple[str, ...] = ()
    use_db: str | None = None
    parsed_by: str = "tokens"

    def with_note(self, note: str, known: bool | None = None) -> "StatementAnalysis":
        return replace(
            self,
            notes=self.notes + (note,),
            tables_known=self.tables_known if known is None else known,
        )


@dataclass(frozen=True)
class DerivedStatement:
    """One statement's events under one format. ``tables_known=False`` means the events could
    not be derived with certainty (see ``note``); the decision on them is then a best effort."""

    sql: str
    default_db: str
    binlog_format: BinlogFormat
    command: CommandKind
    events: tuple[Event, ...]
    tables_known: bool = True
    note: str | None = None
    analysis: StatementAnalysis = field(default=None, repr=False, compare=False)  # type: ignore[assignment]


# --- public API -----------------------------------------------------------------------------


def statement_events(
    sql: str,
    default_db: str = "",
    binlog_format: BinlogFormat | str = BinlogFormat.STATEMENT,
    channel: str = "",
) -> DerivedStatement:
    """The events one statement produces (a trailing ``;`` is allowed)."""
    fmt = BinlogFormat.parse(binlog_format)
    parts = split_statements(sql)
    if len(parts) > 1:
        raise SqlEventsError(f"expected one statement, got {len(parts)}; use script_events for a script")
    text = parts[0] if parts else ""
    analysis = analyse_statement(text, default_db)
    return _derive(text, analysis, default_db, fmt, channel)


def script_events(
    sql: str,
    default_db: str = "",
    binlog_format: BinlogFormat | str = BinlogFormat.STATEMENT,
    channel: str = "",
) -> tuple[DerivedStatement, ...]:
    """Events for every statement of a script, following ``USE`` as a session would."""
    fmt = BinlogFormat.parse(binlog_format)
    out = []
    for text in split_statements(sql):
        analysis = analyse_statement(text, default_db)
        derived = _derive(text, analysis, default_db, fmt, channel)
        out.append(derived)
        if analysis.use_db is not None:
            default_db = analysis.use_db
    return tuple(out)


def analyse_event_sql(sql: str, default_db: str = "") -> StatementAnalysis:
    """The analysis of a query event's SQL text, for an event that has no table list: every
    reader (the JSON reader here, the Spark runtime in batches) reads it this way, so they
    derive the same tables. A trailing ``;`` and surrounding blanks are not part of it."""
    return analyse_statement(sql.strip().rstrip(";").strip(), default_db)


def analyse_statement(sql: str, default_db: str = "") -> StatementAnalysis:
    """Read one statement's command kind and table list (format-independent)."""
    tokens, markers = tokenize(sql)
    if tokens and tokens[-1].kind == "op" and tokens[-1].text == ";":
        tokens = tokens[:-1]
    if not tokens:
        raise SqlEventsError("empty statement")
    command, handler = _classify(tokens)
    try:
        return handler(_Context(sql, tokens, markers, command, default_db))
    except _HeadError as err:
        raise SqlEventsError(f"cannot read {command.value} statement: {err}") from None


def events_for(
    sql: str,
    default_db: str = "",
    binlog_format: BinlogFormat | str = BinlogFormat.STATEMENT,
    channel: str = "",
) -> tuple[Event, ...]:
    """Just the events of a script (all statements, USE followed)."""
    return tuple(ev for d in script_events(sql, default_db, binlog_format, channel) for ev in d.events)


# --- from analysis to events ----------------------------------------------------------------


def _derive(
    sql: str, a: StatementAnalysis, default_db: str, fmt: BinlogFormat, channel: str
) -> DerivedStatement:
    notes = list(a.notes)
    events: tuple[Event, ...] = ()
    effective_default = a.use_db if a.use_db is not None else default_db
    if not a.logged:
        pass
    elif default_db == "" and a.event_db is None and any(t.db is None for t in a.tables):
        notes.append("no database selected: the statement fails on the source (error 1046) and is not logged")
    elif fmt is BinlogFormat.ROW:
        events = _row_events(sql, a, default_db, channel, notes)
    else:
        if fmt is BinlogFormat.MIXED:
            notes.append("MIXED: assumed logged in statement format (an unsafe statement would be logged as rows)")
        events = (_query_event(sql, a, default_db, channel),)
    return DerivedStatement(
        sql, effective_default, fmt, a.command, events, a.tables_known, "; ".join(notes) or None, a
    )


def _query_event(sql: str, a: StatementAnalysis, default_db: str, channel: str, tables=None) -> QueryEvent:
    return QueryEvent(
        channel=channel,
        default_db=a.event_db if a.event_db is not None else default_db,
        command=a.command,
        tables=a.tables if tables is None else tables,
        sql=sql,
        temporary=a.temporary,
        if_exists=a.if_exists,
    )


def _row_events(sql: str, a: StatementAnalysis, default_db: str, channel: str, notes: list[str]) -> tuple[Event, ...]:
    if a.temporary and a.command in (CK.CREATE_TABLE, CK.DROP_TABLE):
        notes.append("temporary table DDL is not written to the binary log under ROW format")
        return ()
    if a.command.is_dml or a.create_select:
        changed = _changed_tables(a.tables, default_db)
        rows = tuple(RowEvent(channel, db, table) for db, table in changed)
        if a.create_select:
            target = tuple(t for t in a.tables if t.updating)[:1]
            return (_query_event(sql, a, default_db, channel, tables=target),) + rows
        return rows
    return (_query_event(sql, a, default_db, channel),)


def _changed_tables(tables: Sequence[TableRef], default_db: str) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    for t in tables:
        if t.updating:
            key = (t.db if t.db is not None else default_db, t.table)
            if key not in seen:
                seen.append(key)
    return seen


# --- classification -------------------------------------------------------------------------


class _HeadError(Exception):
    """Malformed statement head (becomes :class:`SqlEventsError`)."""


@dataclass
class _Context:
    sql: str
    tokens: list[Token]
    markers: list[tuple[int, int]]
    command: CommandKind
    default_db: str


def _words(tokens: Sequence[Token], limit: int = 16) -> list[str]:
    return [t.upper for t in tokens[:limit]]


_CREATE_MODIFIERS = {"OR", "REPLACE", "TEMPORARY", "UNIQUE", "FULLTEXT", "SPATIAL", "AGGREGATE", "ONLINE", "OFFLINE", "UNDO", "EXTERNAL"}
_ALTER_MODIFIERS = {"ONLINE", "OFFLINE", "IGNORE"}


def _object_word(tokens: Sequence[Token], start: int) -> tuple[str, int]:
    """Skip CREATE/ALTER/DROP modifiers (OR REPLACE, ALGORITHM=x, DEFINER=u@h, SQL SECURITY x,
    TEMPORARY ...) and return the object keyword and its index."""
    i = start
    n = len(tokens)
    while i < n:
        word = tokens[i].upper
        if word in _CREATE_MODIFIERS or word in _ALTER_MODIFIERS:
            i += 1
        elif word in ("ALGORITHM", "DEFINER") and i + 1 < n and tokens[i + 1].text == "=":
            i = _skip_definer(tokens, i + 2) if word == "DEFINER" else i + 3
        elif word == "SQL" and i + 1 < n and tokens[i + 1].upper == "SECURITY":
            i += 3
        else:
            return word, i
    return "", i


def _skip_definer(tokens: Sequence[Token], i: int) -> int:
    """Skip ``user@host`` / ``CURRENT_USER[()]`` in any quoting."""
    n = len(tokens)
    if i < n and tokens[i].upper == "CURRENT_USER":
        i += 1
        if i + 1 < n and tokens[i].text == "(" and tokens[i + 1].text == ")":
            i += 2
        return i
    if i < n:
        i += 1
    if i < n and tokens[i].kind == "var":  # @'host' / @host lexed as a variable
        i += 1
    elif i + 1 < n and tokens[i].text == "@":
        i += 2
    return i


def _classify(tokens: list[Token]):
    """Command kind and the handler that reads the rest."""
    w = _words(tokens)
    first = w[0]
    second = w[1] if len(w) > 1 else ""
    if tokens[0].kind == "op" and tokens[0].text == "(":
        return CK.OTHER, _not_logged("a parenthesised query is not written to the binary log")
    if first == "INSERT":
        return CK.INSERT, _dml
    if first == "REPLACE":
        return CK.REPLACE, _dml
    if first in ("UPDATE", "DELETE"):
        return (CK.UPDATE if first == "UPDATE" else CK.DELETE), _dml
    if first == "WITH":
        return CK.OTHER, _dml
    if first == "LOAD" and second in ("DATA", "XML"):
        return CK.LOAD, _load
    if first == "CREATE":
        return _classify_create(tokens)
    if first == "ALTER":
        return _classify_alter(tokens)
    if first == "DROP":
        return _classify_drop(tokens)
    if first == "RENAME":
        if second in ("TABLE", "TABLES"):
            return CK.RENAME_TABLE, _rename
        return (CK.RENAME_USER if second == "USER" else CK.OTHER), _no_tables
    if first == "TRUNCATE":
        return CK.TRUNCATE, _truncate
    if first in ("GRANT", "REVOKE"):
        return (CK.GRANT if first == "GRANT" else CK.REVOKE), _grant
    if first in ("ANALYZE", "OPTIMIZE", "REPAIR"):
        return CK[first], _admin_tables
    if first in ("BEGIN", "START") or (first == "XA"):
        return _classify_transaction(w)
    if first in ("COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"):
        return _classify_transaction(w)
    if first == "SET":
        if second == "PASSWORD":
            return CK.SET_PASSWORD, _no_tables
        if second in ("ROLE", "DEFAULT") or second == "RESOURCE":
            return CK.OTHER, _no_tables
        return CK.SET_OPTION, _not_logged(
            "SET is not written to the binary log as a statement (session values travel in event headers)"
        )
    if first == "USE":
        return CK.OTHER, _use
    if first == "CALL":
        return CK.OTHER, _unknown(
            "CALL is not logged itself; the statements the procedure runs are logged one by one",
            logged=False,
        )
    if first in _NOT_LOGGED:
        return CK.OTHER, _not_logged(f"{first} is not written to the binary log")
    if first in ("FLUSH", "INSTALL", "UNINSTALL", "PURGE", "RESET", "CHANGE", "STOP", "KILL"):
        return CK.OTHER, _no_tables
    return CK.OTHER, _unknown(f"statement kind {first or tokens[0].text!r} is not modelled; its tables are unknown")


_NOT_LOGGED = {
    "SELECT", "TABLE", "VALUES", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "HELP", "LOCK", "UNLOCK",
    "CHECK", "CHECKSUM", "HANDLER", "PREPARE", "EXECUTE", "DEALLOCATE", "DO", "CACHE", "SHUTDOWN",
    "RESTART", "CLONE", "IMPORT", "GET", "SIGNAL", "RESIGNAL",
}


def _classify_create(tokens: list[Token]):
    word, _ = _object_word(tokens, 1)
    kinds = {
        "TABLE": (CK.CREATE_TABLE, _create_table),
        "DATABASE": (CK.CREATE_DB, _database),
        "SCHEMA": (CK.CREATE_DB, _database),
        "VIEW": (CK.CREATE_VIEW, _view),
        "INDEX": (CK.CREATE_INDEX, _index),
        "TRIGGER": (CK.CREATE_TRIGGER, _create_trigger),
        "PROCEDURE": (CK.CREATE_PROCEDURE, _no_tables),
        "FUNCTION": (CK.CREATE_FUNCTION, _no_tables),
        "EVENT": (CK.CREATE_EVENT, _no_tables),
        "USER": (CK.CREATE_USER, _no_tables),
        "ROLE": (CK.CREATE_ROLE, _no_tables),
    }
    return kinds.get(word, (CK.OTHER, _no_tables))


def _classify_alter(tokens: list[Token]):
    word, _ = _object_word(tokens, 1)
    kinds = {
        "TABLE": (CK.ALTER_TABLE, _alter_table),
        "DATABASE": (CK.ALTER_DB, _database),
        "SCHEMA": (CK.ALTER_DB, _database),
        "VIEW": (CK.CREATE_VIEW, _view),
        "PROCEDURE": (CK.ALTER_PROCEDURE, _no_tables),
        "FUNCTION": (CK.ALTER_FUNCTION, _no_tables),
        "EVENT": (CK.ALTER_EVENT, _no_tables),
        "USER": (CK.ALTER_USER, _no_tables),
    }
    return kinds.get(word, (CK.OTHER, _no_tables))


def _classify_drop(tokens: list[Token]):
    word, _ = _object_word(tokens, 1)
    kinds = {
        "TABLE": (CK.DROP_TABLE, _drop_tables),
        "TABLES": (CK.DROP_TABLE, _drop_tables),
        "DATABASE": (CK.DROP_DB, _database),
        "SCHEMA": (CK.DROP_DB, _database),
        "VIEW": (CK.DROP_VIEW, _drop_tables),
        "INDEX": (CK.DROP_INDEX, _index),
        "TRIGGER": (CK.DROP_TRIGGER, _drop_trigger),
        "PROCEDURE": (CK.DROP_PROCEDURE, _no_tables),
        "FUNCTION": (CK.DROP_FUNCTION, _no_tables),
        "EVENT": (CK.DROP_EVENT, _no_tables),
        "USER": (CK.DROP_USER, _no_tables),
        "ROLE": (CK.DROP_ROLE, _no_tables),
    }
    return kinds.get(word, (CK.OTHER, _no_tables))


def _classify_transaction(w: list[str]):
    first, second = w[0], (w[1] if len(w) > 1 else "")
    rest = [x for x in w[1:] if x]
    if first == "BEGIN" or (first == "START" and second == "TRANSACTION"):
        return CK.BEGIN, _no_tables
    if first == "COMMIT":
        return CK.COMMIT, _no_tables
    if first == "ROLLBACK":
        if "TO" in rest:
            return CK.ROLLBACK_TO_SAVEPOINT, _no_tables
        return CK.ROLLBACK, _no_tables
    if first == "SAVEPOINT":
        return CK.SAVEPOINT, _no_tables
    if first == "RELEASE" and second == "SAVEPOINT":
        return CK.RELEASE_SAVEPOINT, _no_tables
    if first == "XA":
        xa = {
            "START": CK.XA_START, "BEGIN": CK.XA_START, "END": CK.XA_END, "PREPARE": CK.XA_PREPARE,
            "COMMIT": CK.XA_COMMIT, "ROLLBACK": CK.XA_ROLLBACK,
        }
        if second in xa:
            return xa[second], _no_tables
        return CK.OTHER, _not_logged(f"XA {second} is not written to the binary log")
    return CK.OTHER, _unknown(f"statement kind {first!r} is not modelled; its tables are unknown")


# --- simple handlers ------------------------------------------------------------------------


def _no_tables(ctx: _Context) -> StatementAnalysis:
    return StatementAnalysis(ctx.command)


def _not_logged(note: str):
    def handler(ctx: _Context) -> StatementAnalysis:
        return StatementAnalysis(ctx.command, logged=False, notes=(note,))

    return handler


def _unknown(note: str, logged: bool = True):
    def handler(ctx: _Context) -> StatementAnalysis:
        return StatementAnalysis(ctx.command, logged=logged, tables_known=False, notes=(note,))

    return handler


def _use(ctx: _Context) -> StatementAnalysis:
    cur = _Cursor(ctx.tokens, 1)
    db = cur.name("database name")
    cur.expect_end()
    return StatementAnalysis(
        CK.OTHER, logged=False, use_db=db,
        notes=("USE is not logged; it sets the default database of the statements that follow",),
    )


# --- token cursor ---------------------------------------------------------------------------


class _Cursor:
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
            raise _HeadError(f"expected {' or '.join(words)} near {self._near()}")

    def skip_words(self, *words: str) -> None:
        while self.accept(*words):
            pass

    def _near(self) -> str:
        tok = self.peek()
        return repr(tok.text) if tok else "the end"

    def name(self, what: str = "name") -> str:
        tok = self.peek()
        if tok is None or not tok.is_name:
            raise _HeadError(f"expected a {what} near {self._near()}")
        self.pos += 1
        return tok.text

    def qualified(self, what: str = "table name") -> tuple[str | None, str]:
        first = self.name(what)
        if self.accept_op("."):
            return first, self.name(what)
        return None, first

    def expect_end(self) -> None:
        if not self.done:
            raise _HeadError(f"unexpected {self._near()}")

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


def _ref(db: str | None, table: str, updating: bool = True) -> TableRef:
    return TableRef(db, table, updating)


# --- sqlglot plumbing -----------------------------------------------------------------------


class _QuietSqlglot(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


@contextmanager
def _quiet() -> Iterator[None]:
    """sqlglot warns when it falls back to a generic Command; we detect that ourselves."""
    logger = logging.getLogger("sqlglot")
    quiet = _QuietSqlglot()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


_HEAD_MODIFIERS = {"LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "QUICK", "IGNORE"}


def _sqlglot_text(ctx: _Context) -> str:
    """The statement as sqlglot can read it: executable-comment markers blanked, REPLACE read
    as INSERT, head modifiers (LOW_PRIORITY, IGNORE ...) and ``t.*`` delete targets dropped —
    none of which changes which tables a statement names."""
    edits: list[tuple[int, int, str]] = [(s, e, " " * (e - s)) for s, e in ctx.markers]
    toks = ctx.tokens
    head = toks[0].upper
    if head in ("INSERT", "REPLACE", "UPDATE", "DELETE"):
        if head == "REPLACE":
            edits.append((toks[0].start, toks[0].end, "INSERT"))
        i = 1
        while i < len(toks) and toks[i].upper in _HEAD_MODIFIERS:
            edits.append((toks[i].start, toks[i].end, ""))
            i += 1
        if head == "DELETE":  # DELETE t1.* FROM ... / DELETE FROM t1.* USING ...
            depth = 0
            for k in range(i, len(toks) - 1):
                if toks[k].kind == "op" and toks[k].text in "()":
                    depth += 1 if toks[k].text == "(" else -1
                elif depth == 0 and toks[k].text == "." and toks[k + 1].text == "*" and toks[k].kind == toks[k + 1].kind == "op":
                    edits += [(toks[k].start, toks[k].end, ""), (toks[k + 1].start, toks[k + 1].end, "")]
    text = ctx.sql
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _parse(ctx: _Context) -> exp.Expression | None:
    """sqlglot's tree, or None when it cannot parse or only produced a generic Command."""
    try:
        with _quiet():
            trees = sqlglot.parse(_sqlglot_text(ctx), read="mysql")
    except Exception:  # sqlglot raises ParseError, TokenError and occasionally others
        return None
    trees = [t for t in trees if t is not None]
    if len(trees) != 1 or isinstance(trees[0], exp.Command):
        return None
    return trees[0]


def _table_ref(table: exp.Table, updating: bool) -> TableRef | None:
    name = table.name
    if not name or table.args.get("catalog") is not None:
        return None
    db = table.text("db") or None
    return TableRef(db, name, updating)


def _cte_names(tree: exp.Expression) -> set[str]:
    return {cte.alias for cte in tree.find_all(exp.CTE) if cte.alias}


def _read_tables(tree: exp.Expression, exclude: set[int], ctes: set[str]) -> list[TableRef]:
    """Every table the statement mentions that is not one of ``exclude`` (read, not updating)."""
    out = []
    for table in tree.find_all(exp.Table, bfs=False):
        if id(table) in exclude or not isinstance(table.this, exp.Identifier):
            continue
        if table.args.get("db") is None and (table.name in ctes or table.name.upper() == "DUAL"):
            continue
        ref = _table_ref(table, False)
        if ref is not None:
            out.append(ref)
    return out


def _from_refs(node: exp.Expression | None) -> list[exp.Table] | None:
    """Tables of a FROM/UPDATE table-reference list in written order; derived tables (subqueries)
    contribute nothing here (their tables are read tables). None if the shape is unexpected."""
    if node is None:
        return None
    out: list[exp.Table] = []
    if isinstance(node, exp.Table):
        out.append(node)
    elif not isinstance(node, exp.Subquery):
        return None
    for join in node.args.get("joins") or []:
        inner = _from_refs(join.this)
        if inner is None:
            return None
        out.extend(inner)
    return out


def _same(a: str, b: str) -> bool:
    return a == b


def _resolve(
    refs: Sequence[exp.Table], qualifier_db: str | None, qualifier: str, default_db: str
) -> list[exp.Table]:
    """Which table(s) of the list a ``[db.]name`` qualifier designates: an alias, or an
    un-aliased table by name (and database when given). Exact match first, then
    case-insensitive (table names and aliases are case-insensitive under lctn != 0)."""
    for same in (_same, lambda a, b: a.lower() == b.lower()):
        found = []
        for ref in refs:
            alias = ref.alias
            ref_db = ref.text("db") or default_db
            if qualifier_db is not None:
                if not alias and same(ref.name, qualifier) and same(ref_db, qualifier_db):
                    found.append(ref)
            elif (alias and same(alias, qualifier)) or (not alias and same(ref.name, qualifier)):
                found.append(ref)
        if found:
            return found
    return []


# --- DML ------------------------------------------------------------------------------------


def _dml(ctx: _Context) -> StatementAnalysis:
    tree = _parse(ctx)
    if isinstance(tree, exp.Insert):
        return _insert_tree(ctx, tree)
    if isinstance(tree, exp.Update):
        return _update_tree(ctx, tree)
    if isinstance(tree, exp.Delete):
        return _delete_tree(ctx, tree)
    if ctx.tokens[0].upper == "WITH":
        if tree is not None:  # WITH ... SELECT: not logged
            return StatementAnalysis(CK.OTHER, logged=False, notes=("a query is not written to the binary log",))
        return StatementAnalysis(
            CK.OTHER, tables_known=False,
            notes=("cannot parse WITH ... statement; its tables are unknown",),
        )
    return _dml_tokens(ctx)


def _insert_tree(ctx: _Context, tree: exp.Insert) -> StatementAnalysis:
    target_node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if not isinstance(target_node, exp.Table) or _table_ref(target_node, True) is None:
        return _dml_tokens(ctx)
    target = _table_ref(target_node, True)
    source = tree.expression
    is_select = source is not None and not isinstance(source, exp.Values)
    replace_ = ctx.tokens[0].upper == "REPLACE"
    if is_select:
        command = CK.REPLACE_SELECT if replace_ else CK.INSERT_SELECT
    else:
        command = CK.REPLACE if replace_ else CK.INSERT
    reads = _read_tables(tree, {id(target_node)}, _cte_names(tree))
    return StatementAnalysis(command, (target, *reads), parsed_by="sqlglot")  # type: ignore[arg-type]


def _update_tree(ctx: _Context, tree: exp.Update) -> StatementAnalysis:
    refs = _from_refs(tree.this)
    if not refs:
        return _dml_tokens(ctx)
    ctes = _cte_names(tree)
    if len(refs) == 1 and not (tree.this.args.get("joins")):
        only = refs[0]
        target = _table_ref(only, True)
        if target is None:  # e.g. UPDATE `` — a name sqlglot cannot give; let the tokenizer judge
            return _dml_tokens(ctx)
        reads = _read_tables(tree, {id(only)}, ctes)
        return StatementAnalysis(CK.UPDATE, (target, *reads), parsed_by="sqlglot")
    assigned: set[int] = set()
    unknown: list[str] = []
    for assignment in tree.expressions:
        column = assignment.this if isinstance(assignment, exp.EQ) else None
        if not isinstance(column, exp.Column):
            unknown.append(assignment.sql("mysql"))
            continue
        if not column.table:
            unknown.append(column.sql("mysql"))
            continue
        found = _resolve(refs, column.text("db") or None, column.table, ctx.default_db)
        if len(found) != 1:
            unknown.append(column.sql("mysql"))
            continue
        assigned.add(id(found[0]))
    listed = [_table_ref(ref, id(ref) in assigned) for ref in refs]
    reads = _read_tables(tree, {id(ref) for ref in refs}, ctes)
    analysis = StatementAnalysis(CK.UPDATE_MULTI, tuple(t for t in listed + reads if t), parsed_by="sqlglot")
    if unknown:
        analysis = analysis.with_note(
            "multi-table UPDATE: cannot tell which table is assigned by "
            + ", ".join(unknown) + " (the source's bitmap decides)",
            known=False,
        )
    return analysis


def _delete_tree(ctx: _Context, tree: exp.Delete) -> StatementAnalysis:
    targets_nodes = tree.args.get("tables")
    using = tree.args.get("using")
    ctes = _cte_names(tree)
    if not targets_nodes and not using:
        this = tree.this
        if not isinstance(this, exp.Table) or this.args.get("joins") or _table_ref(this, True) is None:
            return _dml_tokens(ctx)
        reads = _read_tables(tree, {id(this)}, ctes)
        return StatementAnalysis(CK.DELETE, (_table_ref(this, True), *reads), parsed_by="sqlglot")  # type: ignore[arg-type]
    if targets_nodes:
        targets = list(targets_nodes)
        refs = _from_refs(tree.this)
    else:
        targets = _from_refs(tree.this) or []
        refs = []
        for item in using if isinstance(using, list) else [using]:
            part = _from_refs(item)
            if part is None:
                refs = None
                break
            refs.extend(part)
    if not refs or not targets:
        return _dml_tokens(ctx)
    deleting: set[int] = set()
    unknown: list[str] = []
    for target in targets:
        found = _resolve(refs, target.text("db") or None, target.name, ctx.default_db)
        if len(found) != 1:
            unknown.append(target.sql("mysql"))
        else:
            deleting.add(id(found[0]))
    listed = [_table_ref(ref, id(ref) in deleting) for ref in refs]
    exclude = {id(ref) for ref in refs} | {id(t) for t in targets}
    reads = _read_tables(tree, exclude, ctes)
    analysis = StatementAnalysis(CK.DELETE_MULTI, tuple(t for t in listed + reads if t), parsed_by="sqlglot")
    if unknown:
        analysis = analysis.with_note(
            "multi-table DELETE: target(s) " + ", ".join(unknown) + " match no single table of the FROM list",
            known=False,
        )
    return analysis


def _dml_tokens(ctx: _Context) -> StatementAnalysis:
    """Fallback when sqlglot cannot read a DML statement: the head names the target table of
    single-table forms; multi-table forms are reported as unknown."""
    cur = _Cursor(ctx.tokens, 1)
    head = ctx.tokens[0].upper
    cur.skip_words(*_HEAD_MODIFIERS)
    note = "read by the fallback tokenizer: tables the statement only reads are not listed"
    if head in ("INSERT", "REPLACE"):
        cur.accept("INTO")
        db, table = cur.qualified()
        rest = _Cursor(ctx.tokens, cur.pos)
        if rest.accept("PARTITION"):
            rest.skip_parens()
        rest.skip_parens()  # column list (or a parenthesised SELECT)
        selects = any(
            rest.find_word(word) is not None for word in ("SELECT", "TABLE")
        ) or any(t.upper == "SELECT" for t in ctx.tokens[cur.pos : cur.pos + 3])
        if head == "INSERT":
            command = CK.INSERT_SELECT if selects else CK.INSERT
        else:
            command = CK.REPLACE_SELECT if selects else CK.REPLACE
        return StatementAnalysis(command, (_ref(db, table),), notes=(note,))
    if head == "UPDATE":
        if cur.accept_op("("):
            return StatementAnalysis(
                CK.UPDATE_MULTI, tables_known=False,
                notes=("cannot parse this multi-table UPDATE; which tables it changes is unknown",),
            )
        db, table = cur.qualified()
        cur.accept("AS")
        if cur.peek() is not None and cur.peek().is_name and cur.word() != "SET":  # type: ignore[union-attr]
            cur.pos += 1
        if cur.word() == "SET":
            return StatementAnalysis(CK.UPDATE, (_ref(db, table),), notes=(note,))
        return StatementAnalysis(
            CK.UPDATE_MULTI, tables_known=False,
            notes=("cannot parse this multi-table UPDATE; which tables it changes is unknown",),
        )
    if head == "DELETE" and cur.accept("FROM"):
        db, table = cur.qualified()
        if cur.accept_op(".") or cur.accept_op(","):
            return StatementAnalysis(
                CK.DELETE_MULTI, tables_known=False,
                notes=("cannot parse this multi-table DELETE; which tables it changes is unknown",),
            )
        cur.accept("AS")
        if cur.peek() is not None and cur.peek().is_name and cur.word() not in ("WHERE", "ORDER", "LIMIT", "PARTITION", "USING"):  # type: ignore[union-attr]
            cur.pos += 1
        if cur.done or cur.word() in ("WHERE", "ORDER", "LIMIT", "PARTITION"):
            return StatementAnalysis(CK.DELETE, (_ref(db, table),), notes=(note,))
    if head == "DELETE":
        return StatementAnalysis(
            CK.DELETE_MULTI, tables_known=False,
            notes=("cannot parse this multi-table DELETE; which tables it changes is unknown",),
        )
    raise _HeadError(f"cannot read the statement near {cur._near()}")


def _load(ctx: _Context) -> StatementAnalysis:
    """LOAD DATA|XML [LOW_PRIORITY|CONCURRENT] [LOCAL] INFILE 'f' [REPLACE|IGNORE] INTO TABLE t."""
    cur = _Cursor(ctx.tokens, 2)
    cur.skip_words("LOW_PRIORITY", "CONCURRENT", "LOCAL")
    cur.expect("INFILE")
    tok = cur.peek()
    if tok is None or tok.kind != "string":
        raise _HeadError("expected the file name after INFILE")
    cur.pos += 1
    cur.skip_words("REPLACE", "IGNORE")
    cur.expect("INTO")
    cur.expect("TABLE")
    db, table = cur.qualified()
    return StatementAnalysis(CK.LOAD, (_ref(db, table),))


# --- DDL ------------------------------------------------------------------------------------


def _create_table(ctx: _Context) -> StatementAnalysis:
    tree = _parse(ctx)
    if isinstance(tree, exp.Create) and (tree.args.get("kind") or "").upper() == "TABLE":
        target_node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        target = _table_ref(target_node, True) if isinstance(target_node, exp.Table) else None
        if target is not None:
            props = list(tree.find_all(exp.TemporaryProperty))
            reads = _read_tables(tree, {id(target_node)}, _cte_names(tree))
            is_select = isinstance(tree.expression, exp.Query)
            return StatementAnalysis(
                CK.CREATE_TABLE, (target, *reads), temporary=bool(props),
                if_exists=bool(tree.args.get("exists")), create_select=is_select, parsed_by="sqlglot",
            )
    return _create_table_tokens(ctx)


def _create_table_tokens(ctx: _Context) -> StatementAnalysis:
    cur = _Cursor(ctx.tokens, 1)
    temporary = False
    while cur.word() != "TABLE" and not cur.done:
        temporary |= cur.word() == "TEMPORARY"
        cur.pos += 1
    cur.expect("TABLE")
    if_not_exists = cur.word() == "IF"
    if if_not_exists:
        cur.expect("IF")
        cur.expect("NOT")
        cur.expect("EXISTS")
    db, table = cur.qualified()
    tables = [_ref(db, table)]
    notes: list[str] = []
    like_at = _Cursor(ctx.tokens, cur.pos).find_word("LIKE")
    if cur.accept_op("(") and cur.word() == "LIKE":
        like_at = cur.pos
    if like_at is not None:
        src = _Cursor(ctx.tokens, like_at + 1)
        sdb, stable = src.qualified()
        tables.append(_ref(sdb, stable, False))
    create_select = any(t.upper == "SELECT" for t in ctx.tokens[cur.pos :])
    if create_select:
        notes.append("read by the fallback tokenizer: tables the SELECT reads are not listed")
    return StatementAnalysis(
        CK.CREATE_TABLE, tuple(tables), temporary=temporary, if_exists=if_not_exists,
        create_select=create_select, notes=tuple(notes),
    )


def _alter_table(ctx: _Context) -> StatementAnalysis:
    tree = _parse(ctx)
    if isinstance(tree, exp.Alter) and isinstance(tree.this, exp.Table):
        target = _table_ref(tree.this, True)
        if target is not None:
            return StatementAnalysis(CK.ALTER_TABLE, (target,), parsed_by="sqlglot")
    cur = _Cursor(ctx.tokens, 1)
    cur.skip_words(*_ALTER_MODIFIERS)
    cur.expect("TABLE")
    db, table = cur.qualified()
    return StatementAnalysis(CK.ALTER_TABLE, (_ref(db, table),))


def _truncate(ctx: _Context) -> StatementAnalysis:
    tree = _parse(ctx)
    if isinstance(tree, exp.TruncateTable) and len(tree.expressions) == 1:
        target = _table_ref(tree.expressions[0], True) if isinstance(tree.expressions[0], exp.Table) else None
        if target is not None:
            return StatementAnalysis(CK.TRUNCATE, (target,), parsed_by="sqlglot")
    cur = _Cursor(ctx.tokens, 1)
    cur.accept("TABLE")
    db, table = cur.qualified()
    cur.expect_end()
    return StatementAnalysis(CK.TRUNCATE, (_ref(db, table),))


def _drop_tables(ctx: _Context) -> StatementAnalysis:
    """DROP [TEMPORARY] TABLE|TABLES [IF EXISTS] a, b ... / DROP VIEW [IF EXISTS] v, w."""
    tree = _parse(ctx)
    kind = (tree.args.get("kind") or "").upper() if isinstance(tree, exp.Drop) else ""
    if isinstance(tree, exp.Drop) and kind in ("TABLE", "VIEW"):
        refs = [_table_ref(t, True) for t in tree.args.get("tables") or []]
        if refs and all(refs):
            return StatementAnalysis(
                ctx.command, tuple(refs), temporary=bool(tree.args.get("temporary")),  # type: ignore[arg-type]
                if_exists=bool(tree.args.get("exists")), parsed_by="sqlglot",
            )
    cur = _Cursor(ctx.tokens, 1)
    temporary = cur.accept("TEMPORARY")
    cur.expect("TABLE", "TABLES", "VIEW")
    if_exists = cur.accept("IF")
    if if_exists:
        cur.expect("EXISTS")
    tables = [_ref(*cur.qualified())]
    while cur.accept_op(","):
        tables.append(_ref(*cur.qualified()))
    cur.skip_words("RESTRICT", "CASCADE")
    cur.expect_end()
    return StatementAnalysis(ctx.command, tuple(tables), temporary=temporary, if_exists=if_exists)


def _rename(ctx: _Context) -> StatementAnalysis:
    """RENAME TABLE a TO b [, c TO d]: every name, old and new, is an updating table."""
    cur = _Cursor(ctx.tokens, 2)
    tables = []
    while True:
        tables.append(_ref(*cur.qualified()))
        cur.expect("TO")
        tables.append(_ref(*cur.qualified()))
        if not cur.accept_op(","):
            break
    cur.expect_end()
    return StatementAnalysis(CK.RENAME_TABLE, tuple(tables))


def _database(ctx: _Context) -> StatementAnalysis:
    """CREATE/ALTER/DROP DATABASE|SCHEMA [IF [NOT] EXISTS] [name]: the source logs the named
    database as the event's db (ALTER without a name: the default database)."""
    cur = _Cursor(ctx.tokens, 1)
    _, index = _object_word(ctx.tokens, 1)
    cur.pos = index + 1
    if_exists = False
    if cur.accept("IF"):
        cur.accept("NOT")
        cur.expect("EXISTS")
        if_exists = True
    name: str | None = None
    tok = cur.peek()
    options = {"DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "ENCRYPTION", "READ", "UPGRADE"}
    if tok is not None and tok.is_name and not (tok.kind == "word" and tok.upper in options):
        name = tok.text
    if name is None and ctx.command is not CK.ALTER_DB:
        raise _HeadError("expected a database name")
    if name is None:
        if not ctx.default_db:
            return StatementAnalysis(
                CK.ALTER_DB, logged=False,
                notes=("ALTER DATABASE without a name and no default database fails on the source",),
            )
        name = ctx.default_db
    return StatementAnalysis(ctx.command, event_db=name, if_exists=if_exists)


def _view(ctx: _Context) -> StatementAnalysis:
    """CREATE/ALTER VIEW v AS SELECT ...: v updating, the SELECT's tables read."""
    tree = _parse(ctx)
    if isinstance(tree, (exp.Create, exp.Alter)) and isinstance(tree.this, exp.Table):
        kind = (tree.args.get("kind") or "").upper()
        target = _table_ref(tree.this, True)
        if kind == "VIEW" and target is not None:
            reads = _read_tables(tree, {id(tree.this)}, _cte_names(tree))
            return StatementAnalysis(CK.CREATE_VIEW, (target, *reads), parsed_by="sqlglot")
    _, index = _object_word(ctx.tokens, 1)
    cur = _Cursor(ctx.tokens, index + 1)
    db, view = cur.qualified("view name")
    return StatementAnalysis(
        CK.CREATE_VIEW, (_ref(db, view),),
        notes=("read by the fallback tokenizer: tables the view's SELECT reads are not listed",),
    )


def _index(ctx: _Context) -> StatementAnalysis:
    """CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX i [USING x] ON t (...) / DROP INDEX i ON t."""
    tree = _parse(ctx)
    table_node = None
    if isinstance(tree, exp.Create) and isinstance(tree.this, exp.Index):
        table_node = tree.this.args.get("table")
    elif isinstance(tree, exp.Drop) and isinstance(tree.args.get("cluster"), exp.OnProperty):
        table_node = tree.args["cluster"].this
    if isinstance(table_node, exp.Table) and _table_ref(table_node, True) is not None:
        return StatementAnalysis(ctx.command, (_table_ref(table_node, True),), parsed_by="sqlglot")  # type: ignore[arg-type]
    cur = _Cursor(ctx.tokens, 1)
    on = cur.find_word("ON")
    if on is None:
        raise _HeadError("expected ON table_name")
    cur.pos = on + 1
    return StatementAnalysis(ctx.command, (_ref(*cur.qualified()),))


def _create_trigger(ctx: _Context) -> StatementAnalysis:
    """CREATE [DEFINER=u] TRIGGER [IF NOT EXISTS] [db.]name BEFORE|AFTER event ON t FOR EACH ROW:
    the subject table ``t`` is in the list, updating (the parser adds it TL_OPTION_UPDATING)."""
    _, index = _object_word(ctx.tokens, 1)
    cur = _Cursor(ctx.tokens, index + 1)
    if cur.accept("IF"):
        cur.expect("NOT")
        cur.expect("EXISTS")
    cur.qualified("trigger name")
    cur.expect("BEFORE", "AFTER")
    cur.expect("INSERT", "UPDATE", "DELETE")
    cur.expect("ON")
    db, table = cur.qualified()
    return StatementAnalysis(
        CK.CREATE_TRIGGER, (_ref(db, table),),
        notes=("tables the trigger body changes are not in the list: they never influence the decision",),
    )


def _drop_trigger(ctx: _Context) -> StatementAnalysis:
    cur = _Cursor(ctx.tokens, 2)
    if_exists = cur.accept("IF")
    if if_exists:
        cur.expect("EXISTS")
    cur.qualified("trigger name")
    return StatementAnalysis(
        CK.DROP_TRIGGER, if_exists=if_exists, tables_known=False,
        notes=(
            "DROP TRIGGER is decided by the trigger's table as found on the replica; the event "
            "carries none, which the evaluator reads as 'trigger not found there' (skipped)",
        ),
    )


def _grant(ctx: _Context) -> StatementAnalysis:
    """GRANT/REVOKE privileges ON [TABLE|FUNCTION|PROCEDURE] level TO|FROM ...

    Only a table-level target (``db.tbl`` or ``tbl``) puts a table in the list; ``*``, ``*.*``,
    ``db.*``, routines, PROXY and role grants have none. Whether 8.4 really lists the table is
    unverified (spec section 11); we follow the parser rule that adds it as updating.
    """
    cur = _Cursor(ctx.tokens, 1)
    on = cur.find_word("ON")
    until = cur.find_word("TO" if ctx.command is CK.GRANT else "FROM")
    if on is None or (until is not None and until < on):
        return StatementAnalysis(ctx.command)  # role grant: GRANT r TO u
    if any(t.upper == "PROXY" for t in ctx.tokens[1:on]):
        return StatementAnalysis(ctx.command)
    cur.pos = on + 1
    if cur.accept("FUNCTION", "PROCEDURE"):
        return StatementAnalysis(ctx.command)
    cur.accept("TABLE")
    if cur.accept_op("*"):
        if cur.accept_op("."):
            if not cur.accept_op("*"):
                raise _HeadError("expected * after *.")
        return StatementAnalysis(ctx.command)
    first = cur.name("privilege level")
    if cur.accept_op("."):
        if cur.accept_op("*"):
            return StatementAnalysis(ctx.command)
        ref = _ref(first, cur.name("table name"))
    else:
        ref = _ref(None, first)
    return StatementAnalysis(
        ctx.command, (ref,),
        notes=("assumed: a table-level GRANT/REVOKE lists its table as updating (unverified, spec section 11)",),
    )


def _admin_tables(ctx: _Context) -> StatementAnalysis:
    """ANALYZE/OPTIMIZE/REPAIR [NO_WRITE_TO_BINLOG|LOCAL] TABLE t, ...: logged unless
    NO_WRITE_TO_BINLOG/LOCAL; tables assumed updating (unverified)."""
    cur = _Cursor(ctx.tokens, 1)
    if cur.accept("NO_WRITE_TO_BINLOG", "LOCAL"):
        return StatementAnalysis(ctx.command, logged=False, notes=("NO_WRITE_TO_BINLOG/LOCAL: not logged",))
    cur.expect("TABLE", "TABLES")
    tables = [_ref(*cur.qualified())]
    while cur.accept_op(","):
        tables.append(_ref(*cur.qualified()))
    return StatementAnalysis(
        ctx.command, tuple(tables),
        notes=("assumed: the named tables are listed as updating (unverified, spec section 11)",),
    )
