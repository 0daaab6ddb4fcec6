"""Text -> AST: the Lark LALR parser with :class:`.to_ast.ToAst` as its transformer, statement
splitting, and MySQL-shaped syntax errors (1064 with MySQL's ``near '...' at line N``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from lark.lexer import LexerThread
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast
from .clause_order import misplaced_clause, quantifier_conflicts
from .other_statements import reads_filter_tables_only, statement_kind, unparenthesized
from .grammar import ascii_upper, lark_parser
from ..core.errors import ER, Condition, MySQLError, deprecated_syntax
from ..core.version import DEFAULT_VERSION, ServerVersion
from .lexical import expand_executable_comments, invalid_utf8
from .source_options import canonical_name, is_known_option
from .long_statements import LONG_STATEMENT, skeleton
from .splitter import StatementText, split_statements, ClientCommand
from .to_ast import SOURCE_TEXT, ParseFailure, ToAst


@lru_cache(maxsize=None)
def _lark(version: ServerVersion = DEFAULT_VERSION):  # type: ignore[no-untyped-def]
    return lark_parser(ToAst(version))


def _near(text: str, position: int) -> tuple[str, int]:
    """MySQL's ``near '%-.80s' at line %d``: the text from the error on, and its line."""
    position = max(0, min(position, len(text)))
    return text[position : position + 80], text.count("\n", 0, position) + 1


def syntax_error(text: str, position: int, version: ServerVersion = DEFAULT_VERSION) -> MySQLError:
    near, line = _near(text, position)
    error = MySQLError.of(ER.PARSE_ERROR, near, line)
    error.warnings = parse_time_warnings(text, position, version)
    return error


def parse_time_warnings(text: str, position: int, version: ServerVersion = DEFAULT_VERSION) -> tuple[Condition, ...]:
    """Warning 1287 for each legacy spelling MySQL's parser has taken in before ``position``.

    The 8.0 grammar pushes the warning for ``CHANGE MASTER`` and for each ``MASTER_*`` option
    name in the rule that reads that one word (``change_replication_source_host: MASTER_HOST_SYM
    {push_deprecated_warn...}``), a default reduction made without reading further: so a syntax
    error later in the statement finds them already in the diagnostics area. START/STOP/RESET/
    SHOW ... SLAVE only mark the statement, and warn when it runs: not here. 8.4 has no legacy
    spellings, so nothing."""
    if not version.legacy_spellings:
        return ()
    words: list[str] = []
    try:
        for token in _tokens(text, version):
            if token.start_pos is not None and token.start_pos >= position:
                break
            words.append(ascii_upper(token.value))
    except UnexpectedInput:
        pass  # what was lexed before the bad character still counts
    if words[:2] not in (["CHANGE", "MASTER"], ["CHANGE", "REPLICATION"]):
        return ()
    warnings = []
    if words[1] == "MASTER":
        warnings.append(deprecated_syntax("CHANGE MASTER", "CHANGE REPLICATION SOURCE"))
    for before, word in zip(words, words[1:]):
        if before in ("TO", ",") and is_known_option(word) and canonical_name(word) != word:
            warnings.append(deprecated_syntax(word, canonical_name(word)))
    return tuple(warnings)


def _error_position(text: str, exc: UnexpectedInput) -> int:
    if isinstance(exc, UnexpectedEOF):
        return len(text)
    if isinstance(exc, UnexpectedToken):
        if exc.token.type == "$END":
            return len(text)
        return exc.token.start_pos if exc.token.start_pos is not None else len(text)
    if isinstance(exc, UnexpectedCharacters):
        return exc.pos_in_stream
    return len(text)


def parse_statement(text: str, version: ServerVersion = DEFAULT_VERSION) -> ast.Statement:
    """Parse one statement (no terminator needed). Raises :class:`MySQLError` (1064 and the
    parse-time checks). An empty text is MySQL's "Query was empty" (1065)."""
    statements = parse_many(text, version)
    if not statements:
        raise MySQLError(1065, "42000", "Query was empty")
    if len(statements) > 1:
        stripped = text.strip()
        position = _second_statement_position(expand_executable_comments(stripped, version.number), version)
        raise syntax_error(stripped, position, version)
    return statements[0]


def _second_statement_position(text: str, version: ServerVersion = DEFAULT_VERSION) -> int:
    """Where the statement after the first ``;`` starts: without multi-statement support the
    server reports its syntax error there (``near 'SELECT 2'``). Semicolons inside quotes and
    comments do not count, so the text is lexed, comments kept, rather than searched."""
    ignored = {"COMMENT_DASH", "COMMENT_HASH", "COMMENT_BLOCK"}
    after_semicolon = False
    try:
        for token in _tokens(text, version, keep_ignored=True):
            if token.type == "SEMICOLON":
                after_semicolon = True
            elif after_semicolon and token.type not in ignored and not token.type.startswith("__IGNORE"):
                return token.start_pos if token.start_pos is not None else len(text)
    except UnexpectedInput:
        pass
    return len(text)


@lru_cache(maxsize=None)
def _statement_lexer(version: ServerVersion, keep_ignored: bool = False):  # type: ignore[no-untyped-def]
    """The grammar's basic lexer on its own, built once: ``Lark.lex`` builds a new one for every
    text when the Lark object also parses (about 3 ms, every regex compiled again)."""
    return _lark(version)._build_lexer(dont_ignore=keep_ignored)


def _tokens(text: str, version: ServerVersion, keep_ignored: bool = False):  # type: ignore[no-untyped-def]
    """The grammar's tokens of ``text``; with ``keep_ignored`` also the comments and spaces the
    parser skips. Raises lark's UnexpectedInput where no token matches."""
    return LexerThread.from_text(_statement_lexer(version, keep_ignored), text).lex(None)


def split_multi_statements(text: str, version: ServerVersion = DEFAULT_VERSION) -> list[str]:
    """The statements of a COM_QUERY sent with CLIENT_MULTI_STATEMENTS, as mysqld reads them: cut
    at each ``;`` the lexer sees (not one inside quotes or comments), the empty ones after the
    last dropped. Text the lexer cannot read stays in one piece from there on, so its statement
    gets the syntax error."""
    if ";" not in text:
        return [text]  # the common case, without lexing
    expanded = expand_executable_comments(text, version.number)
    cuts: list[int] = []
    try:  # the parser's own lexer, built once: comments and spaces are skipped, ";" is a token
        for token in _tokens(expanded, version):
            if token.type == "SEMICOLON" and token.start_pos is not None:
                cuts.append(token.start_pos)
    except UnexpectedInput:
        pass
    pieces, start = [], 0
    for cut in cuts:
        pieces.append(text[start:cut])
        start = cut + 1
    pieces.append(text[start:])
    while len(pieces) > 1 and not pieces[-1].strip():
        pieces.pop()
    return pieces


def parse_many(text: str, version: ServerVersion = DEFAULT_VERSION) -> list[ast.Statement]:
    """Parse ``;``-separated statements with the grammar itself (no client commands)."""
    text = text.strip()
    # Executable comments become statement text; the expansion keeps every position, so errors
    # quote the text as written.
    expanded = expand_executable_comments(text, version.number)
    early = _error_in_skeleton(expanded, version) if len(expanded) > LONG_STATEMENT else None
    if early is not None:
        return [_other_statement(expanded, early, text, version)]
    token = SOURCE_TEXT.set(expanded)
    try:
        statements = _lark(version).parse(expanded)
    except UnicodeEncodeError:  # a name's length check met bytes that are not UTF-8
        raise _not_utf8(text) from None
    except ParseFailure as exc:
        failure = syntax_error(text, exc.position, version)
    except UnexpectedInput as exc:
        failure = syntax_error(text, _error_position(text, exc), version)
    except MySQLError as error:
        # A check made while parsing (1729 for SOURCE_DELAY, 1525 for a line feed): MySQL goes
        # on parsing after 1729, so every legacy spelling of the statement has warned. (After
        # 1525 it stops; its rare later legacy options are counted too: a documented excess.)
        if not error.warnings:
            error.warnings = parse_time_warnings(text, len(text), version)
        raise
    else:
        if invalid_utf8(text) is not None:
            raise _not_utf8(text)
        return statements  # type: ignore[return-value]
    finally:  # the names taken from the text are taken during the parse
        SOURCE_TEXT.reset(token)
    return [_other_statement(expanded, failure, text, version)]


def _error_in_skeleton(text: str, version: ServerVersion) -> MySQLError | None:
    """The syntax error of a long ``text``, found by parsing its skeleton
    (:mod:`.long_statements`), or None: no skeleton, or it parses, or it meets an error that is
    not a syntax error (the whole text then decides). The error quotes ``text`` at the mapped
    position; 8.0's parse-time warnings come from the skeleton's words, which are the text's
    less plain names (never an option name)."""
    short = skeleton(text)
    if short is None:
        return None
    try:
        _lark(version).parse(short.text)
    except ParseFailure as exc:
        position = exc.position
    except UnexpectedInput as exc:
        position = _error_position(short.text, exc)
    except (MySQLError, UnicodeEncodeError):
        return None
    else:
        return None
    error = MySQLError.of(ER.PARSE_ERROR, *_near(text, short.position(position)))
    error.warnings = parse_time_warnings(short.text, position, version)
    return error


def _not_utf8(text: str) -> MySQLError:
    """1300 for a statement the grammar reads whose text holds bytes that are not UTF-8 (in a
    name, string or comment): the server's utf8mb4 connection refuses them, and nothing may
    store them (a channel name, a rule) to fail later. Where the grammar itself stops first, the
    1064 stays, quoting the bytes as ``\\xFF``."""
    return MySQLError.of(ER.INVALID_CHARACTER_STRING, "utf8mb4", invalid_utf8(text) or "")


def _other_statement(text: str, failure: MySQLError, written: str | None = None,
                     version: ServerVersion = DEFAULT_VERSION) -> ast.Statement:
    """Text the grammar cannot read: a query on the filter tables (answered with sqlglot), 1235
    for another ordinary MySQL statement, else the syntax error (other_statements.py). A SELECT
    whose clauses leave MySQL's order is the syntax error at the clause out of place
    (:mod:`.clause_order`), quoting the text as ``written`` (``text`` is it with its executable
    comments expanded, at the same positions), when what precedes that clause is a SELECT."""
    misplaced = _misplaced_clause(text)
    if misplaced is not None:
        raise syntax_error(written if written is not None else text, misplaced, version)
    kind = statement_kind(text)
    if kind is None:
        raise failure
    if kind == "SELECT" and quantifier_conflicts(text):  # the statement parsed: its query block refuses
        raise MySQLError.of(ER.WRONG_USAGE, "ALL", "DISTINCT")
    query = unparenthesized(text) if kind == "SELECT" else text
    if kind == "SELECT" and reads_filter_tables_only(query):
        return ast.QueryPerformanceSchema(query.strip())
    raise MySQLError.of(ER.NOT_SUPPORTED_YET, f"{kind} statements other than those of the replication "
                        "filter dialect in replfilter (it does not simulate them)")


_SELECT = re.compile(r"\s*SELECT\b", re.IGNORECASE | re.ASCII)


def _misplaced_clause(text: str) -> int | None:
    """Where a SELECT's first clause out of order starts, when the text before it is a SELECT
    MySQL reads (so the parser reaches that clause: an earlier error would be reported first)."""
    if _SELECT.match(text) is None:
        return None
    misplaced = misplaced_clause(text)
    if misplaced is None:
        return None
    if not misplaced.empty_list and statement_kind(text[:misplaced.position]) != "SELECT":
        return None
    return misplaced.position


def parse(text: str, version: ServerVersion = DEFAULT_VERSION) -> list[ast.Statement]:
    """Parse a script's statements, cut as the mysql client cuts them; client commands are not
    allowed here (use :mod:`replfilter.client.runner` for scripts that contain them)."""
    statements: list[ast.Statement] = []
    for item in split_statements(text):
        if isinstance(item, ClientCommand):
            raise syntax_error(item.name, 0)
        assert isinstance(item, StatementText)
        if item.text:
            statements.append(parse_statement(item.text, version))
    return statements
