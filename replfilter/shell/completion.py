"""Tab completion that knows the dialect.

Two parts, as in mycli: the *engine* (:func:`suggest`) decides what kind of word fits at the
cursor; the *completer* (:class:`ReplFilterCompleter`) lists which words of that kind exist now.

The engine asks the grammar. The current statement, up to the word being typed, goes through
Lark's LALR parser in interactive mode, and only the terminals the parser would accept next are
offered: after ``CHANGE REPLICATION FILTER`` the seven filter types, after ``START REPLICA`` the
thread types and ``FOR``, and nothing at all where any word would be a syntax error (or when what
was typed is already one). Where the grammar wants a name or a string, the clause decides which:
databases and tables already used in rules, channel names (quoted), the performance_schema tables
and their columns, source options. Lark is loaded on the first Tab, not at startup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from ..dialect.splitter import DEFAULT_DELIMITER, WORD_COMMANDS, StatementBuffer
from ..core.filters import FILTER_TYPES, ConfiguredBy, FilterType
from ..replica.perfschema import CHANNEL_COLUMNS, GLOBAL_COLUMNS, SCHEMA, TABLES
from ..dialect.grammar import is_reserved, keywords, nonreserved_keywords, plain_parser
from ..dialect.source_options import SUPPORTED_OPTIONS
from ..replica.state import ReplicaState

MAX_ANALYSED_CHARS = 64 * 1024  # beyond this (a huge paste) completion is not worth the wait
NAME_TERMINALS = frozenset({"IDENT", "QUOTED_IDENT"})
FILTER_TYPE_WORDS = frozenset(t.keyword for t in FILTER_TYPES)
COMMANDS_WITH_FILE = frozenset({"source", "tee"})
_PLAIN_NAME = re.compile(r"[^\x00-\x23\x25-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff]+")
_WORD = re.compile(r"(?:[\w$]+\.)*[\w$]*\Z")
_COMMAND_LINE = re.compile(r"\s*(\\[.?hT]|[A-Za-z?]+;?)(\s+)(.*)\Z", re.DOTALL)


class Kind(Enum):
    """What sort of word fits at the cursor (the value is the menu's description)."""

    KEYWORD = "keyword"
    COMMAND = "client command"
    CHANNEL = "channel"
    DATABASE = "database"
    TABLE = "table"
    WILD_PATTERN = "pattern"
    PS_TABLE = "performance_schema table"
    PS_COLUMN = "column"
    SELECT_ITEM = "select list"
    SOURCE_OPTION = "source option"
    VALUE = "value"
    FILE = "file"
    HELP_TOPIC = "help topic"


@dataclass(frozen=True)
class Suggestion:
    word: str = ""  # the text before the cursor that a completion replaces
    kinds: tuple[Kind, ...] = ()
    keywords: tuple[str, ...] = ()  # grammar keywords acceptable here
    select_items: tuple[str, ...] = ()  # "*" / "COUNT(*)" where the select list allows them
    table: str | None = None  # the performance_schema table named after FROM
    column: str | None = None  # the column a WHERE value is compared with
    qualifier: str | None = None  # a quoted `db`. typed before the name
    legacy: bool = False  # CHANGE MASTER TO: MASTER_* option names
    configured_only: bool = False  # FOR CHANNEL of a statement an unconfigured channel refuses


NOTHING = Suggestion()


# ---- the grammar ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Grammar:
    lark: object
    keywords: frozenset[str]
    nonreserved: frozenset[str]


@lru_cache(maxsize=1)
def _grammar() -> _Grammar:
    """The dialect's grammar without the AST transformer (completion only needs the parse states)."""
    return _Grammar(plain_parser(), keywords(), nonreserved_keywords())


def _next_terminals(head: str) -> tuple[list, set[str]] | None:
    """The tokens of ``head`` and the terminals the parser accepts after them (None: ``head`` is
    already a syntax error)."""
    try:
        parser = _grammar().lark.parse_interactive(head)  # type: ignore[attr-defined]
        tokens = parser.exhaust_lexer()
        return tokens, set(parser.accepts())
    except Exception:  # UnexpectedInput and friends: nothing can follow a syntax error
        return None


def is_viable_prefix(text: str) -> bool:
    """True when ``text`` can still be the beginning of valid statements (no syntax error yet)."""
    return _next_terminals(text) is not None


# ---- the engine: what kind of word fits -------------------------------------------------------------


def suggest(text_before_cursor: str, delimiter: str = DEFAULT_DELIMITER) -> Suggestion:
    """What may be typed at the end of ``text_before_cursor`` (all the input up to the cursor),
    statements ending at ``delimiter`` (the shell's current one)."""
    if len(text_before_cursor) > MAX_ANALYSED_CHARS:
        return NOTHING
    lines = text_before_cursor.split("\n")
    scanner = StatementBuffer(delimiter=delimiter)
    for line in lines[:-1]:
        scanner.feed_line(line)
    current = lines[-1]
    at_line_start = not scanner.in_progress
    if at_line_start:
        command = _command_argument(current)
        if command is not None:
            return command
    scanner.feed_line(current)
    # The splitter hands over the statement as mysql sends it (comments left out); the word being
    # typed is found in the raw text, where a comment or an open quote can still be seen.
    split = split_word(text_before_cursor)
    if split is None:
        return NOTHING
    word = split[1]
    statement = scanner.pending_text[:-1] if scanner.pending_text.endswith("\n") else scanner.pending_text
    if not statement.endswith(word):
        return NOTHING
    head = statement[: len(statement) - len(word)]
    commands_allowed = at_line_start and not head.strip() and word == current.strip()
    parsed = _next_terminals(head)
    if parsed is None:
        return NOTHING
    tokens, accepted = parsed
    return _suggestion(tokens, accepted - {"$END", "SEMICOLON"}, word, commands_allowed)


def _command_argument(line: str) -> Suggestion | None:
    """``source fi``, ``\\. fi``, ``help chan``: the argument of a client command."""
    match = _COMMAND_LINE.match(line)
    if match is None:
        return None
    word, argument = match.group(1).rstrip(";"), match.group(3)
    name = {"\\.": "source", "\\T": "tee", "\\h": "help", "\\?": "help", "?": "help"}.get(word, word.lower())
    if name not in WORD_COMMANDS and not word.startswith("\\"):
        return None
    if name in COMMANDS_WITH_FILE:
        return Suggestion(argument, (Kind.FILE,))
    if name == "help":
        return Suggestion(argument, (Kind.HELP_TOPIC,))
    return NOTHING


def split_word(statement: str) -> tuple[str, str] | None:
    """(text before the word being typed, the word). The word is a partial name (``db1.t``
    included), or an unterminated quoted string or name. None when the text ends in a comment."""
    i, n = 0, len(statement)
    quote: str | None = None
    quote_start = 0
    while i < n:
        ch = statement[i]
        if quote == "/*":
            end = statement.find("*/", i)
            if end < 0:
                return None
            i, quote = end + 2, None
            continue
        if quote is not None:
            if ch == "\\" and quote != "`":
                i += 2
                continue
            if ch == quote:
                if i + 1 < n and statement[i + 1] == quote:
                    i += 2
                    continue
                quote = None
            i += 1
            continue
        if ch in "'\"`":
            quote, quote_start = ch, i
        elif statement.startswith("/*", i):
            quote = "/*"
            i += 2
            continue
        elif ch == "#" or (statement.startswith("--", i) and (i + 2 == n or statement[i + 2] in " \t\r\n")):
            end = statement.find("\n", i)
            if end < 0:
                return None
            i = end
            continue
        i += 1
    if quote is not None:
        return statement[:quote_start], statement[quote_start:]
    match = _WORD.search(statement)
    start = match.start() if match else n
    return statement[:start], statement[start:]


def _is_name(token, grammar: _Grammar) -> bool:  # type: ignore[no-untyped-def]
    return token.type in NAME_TERMINALS or token.type in grammar.nonreserved


def _name_value(token) -> str:  # type: ignore[no-untyped-def]
    value = str(token)
    if token.type == "QUOTED_IDENT":
        return value[1:-1].replace("``", "`")
    return value


def _suggestion(tokens: list, accepted: set[str], word: str, commands_allowed: bool) -> Suggestion:
    grammar = _grammar()
    names_ok = bool(accepted & NAME_TERMINALS)
    strings_ok = "STRING" in accepted
    keywords = tuple(sorted(t for t in accepted if t in grammar.keywords and not (names_ok and t in grammar.nonreserved)))
    kinds: list[Kind] = [Kind.KEYWORD] if keywords else []
    if commands_allowed:
        kinds.append(Kind.COMMAND)
    base = Suggestion(word, tuple(kinds), keywords)
    if not tokens:
        return base
    first, last = tokens[0].type, tokens[-1].type
    extra: dict[str, object] = {}
    more: list[Kind] = []
    if last == "CHANNEL" and strings_ok:
        more.append(Kind.CHANNEL)
        # CHANGE REPLICATION FILTER ... FOR CHANNEL refuses an unconfigured channel (1794) and a
        # group replication one; START REPLICA an unconfigured one (1200)
        is_filter = first == "CHANGE" and len(tokens) >= 3 and tokens[2].type == "FILTER"
        extra["configured_only"] = is_filter or first == "START"
    elif first == "CHANGE" and len(tokens) >= 3 and tokens[1].type == "REPLICATION" and tokens[2].type == "FILTER":
        kind = _filter_list_kind(tokens[3:])
        if kind is Kind.WILD_PATTERN and strings_ok:
            more.append(kind)
        elif kind in (Kind.DATABASE, Kind.TABLE) and names_ok:
            more.append(kind)
            if kind is Kind.TABLE and last == "DOT" and len(tokens) >= 2 and _is_name(tokens[-2], grammar):
                extra["qualifier"] = _name_value(tokens[-2])
    elif first == "CHANGE" and last in ("TO", "COMMA") and names_ok:
        more.append(Kind.SOURCE_OPTION)
        extra["legacy"] = len(tokens) > 1 and tokens[1].type == "MASTER"
    elif first == "SELECT":
        _select_context(tokens, accepted, names_ok, strings_ok, more, extra, grammar)
    return Suggestion(word, tuple(kinds + more), keywords, **extra)  # type: ignore[arg-type]


def _filter_list_kind(tokens: list) -> Kind | None:
    """Inside ``REPLICATE_xxx = ( ... )``: what the list holds; None outside a list."""
    depth = 0
    ftype: FilterType | None = None
    for token in tokens:
        if token.type == "LPAR":
            depth += 1
        elif token.type == "RPAR":
            depth -= 1
        elif depth == 0 and token.type in FILTER_TYPE_WORDS:
            ftype = FilterType(token.type)
    if depth <= 0 or ftype is None:
        return None
    if ftype in (FilterType.WILD_DO_TABLE, FilterType.WILD_IGNORE_TABLE):
        return Kind.WILD_PATTERN
    if ftype in (FilterType.DO_TABLE, FilterType.IGNORE_TABLE):
        return Kind.TABLE
    return Kind.DATABASE


def _select_context(tokens, accepted, names_ok, strings_ok, more, extra, grammar) -> None:  # type: ignore[no-untyped-def]
    section = "select"
    table_parts: list[str] = []
    for token in tokens:
        kind = token.type
        if kind == "FROM":
            section = "from"
        elif kind in ("WHERE", "AND"):
            section = "where"
        elif kind in ("ORDER", "BY"):
            section = "order"
        elif kind == "LIMIT":
            section = "limit"
        elif section == "from" and _is_name(token, grammar):
            table_parts.append(_name_value(token))
    if table_parts:
        extra["table"] = table_parts[-1].lower()
    last = tokens[-1].type
    if section == "select":
        items = tuple(item for item, terminal in (("*", "STAR"), ("COUNT(*)", "COUNT")) if terminal in accepted)
        if items:
            more.append(Kind.SELECT_ITEM)
            extra["select_items"] = items
        if names_ok:
            more.append(Kind.PS_COLUMN)
            extra.pop("table", None)
    elif section == "from" and names_ok:
        more.append(Kind.PS_TABLE)
        if last == "DOT" and table_parts:
            extra["qualifier"] = table_parts[0]
    elif section == "where":
        if last in ("EQUAL", "NOT_EQUAL") and strings_ok and len(tokens) >= 2:
            more.append(Kind.VALUE)
            extra["column"] = _name_value(tokens[-2]).upper()
        elif names_ok:
            more.append(Kind.PS_COLUMN)
    elif section == "order" and names_ok:
        more.append(Kind.PS_COLUMN)


# ---- the completer: which words of that kind exist ----------------------------------------------------


@dataclass(frozen=True)
class RuleNames:
    """Names already used in filter rules (any channel or the global filter)."""

    databases: tuple[str, ...]
    tables: tuple[tuple[str, str], ...]
    patterns: tuple[str, ...]


def rule_names(state: ReplicaState) -> RuleNames:
    databases: set[str] = set()
    tables: set[tuple[str, str]] = set()
    patterns: set[str] = set()
    for filters in (state.global_filters, *(channel.filters for channel in state.channels)):
        for ftype, slot in filters.items():
            for rule in slot.rules:
                if ftype is FilterType.REWRITE_DB:
                    databases.update(rule)  # type: ignore[arg-type]
                elif ftype in (FilterType.DO_DB, FilterType.IGNORE_DB):
                    databases.add(str(rule))
                elif ftype in (FilterType.DO_TABLE, FilterType.IGNORE_TABLE):
                    db, _, table = str(rule).partition(".")
                    databases.add(db)
                    tables.add((db, table))
                else:
                    patterns.add(str(rule))
    return RuleNames(tuple(sorted(databases)), tuple(sorted(tables)), tuple(sorted(patterns)))


def quote_name(name: str) -> str:
    """A name as it must be typed: bare when MySQL allows it, else in backticks."""
    if _PLAIN_NAME.fullmatch(name) and not name.isdigit() and not is_reserved(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def quote_string(value: str, quote: str = "'") -> str:
    return quote + value.replace("\\", "\\\\").replace(quote, quote + quote) + quote


def _matches(word: str, candidate: str) -> bool:
    """Case-insensitive prefix match, on the candidate as written or without its quotes."""
    if not word:
        return True
    folded = word.casefold()
    if candidate.casefold().startswith(folded):
        return True
    if word[0] not in "'\"`" and candidate[:1] in ("'", '"', "`"):
        return candidate[1:].casefold().startswith(folded)
    return False


def _cased(word: str, keyword: str) -> str:
    """mycli's ``keyword_casing = auto``: lower case when the word is typed in lower case."""
    return keyword.lower() if word and word.islower() else keyword


class ReplFilterCompleter(Completer):
    def __init__(
        self,
        get_state: Callable[[], ReplicaState],
        commands: Iterable[str] = (),
        help_topics: Iterable[str] = (),
        get_delimiter: Callable[[], str] = lambda: DEFAULT_DELIMITER,
    ) -> None:
        self.get_state = get_state
        self.get_delimiter = get_delimiter
        self.commands = tuple(commands)
        self.help_topics = tuple(help_topics)
        self._paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        try:
            suggestion = suggest(document.text_before_cursor, self.get_delimiter())
            if Kind.FILE in suggestion.kinds:
                yield from self._paths.get_completions(Document(suggestion.word), complete_event)
                return
            seen: set[str] = set()
            for text, meta in self.candidates(suggestion):
                if text not in seen and _matches(suggestion.word, text):
                    seen.add(text)
                    yield Completion(text, -len(suggestion.word), display_meta=meta)
        except Exception:  # completion must never break the prompt
            return

    def candidates(self, s: Suggestion) -> Iterator[tuple[str, str]]:
        """Every word of the suggested kinds, before matching against what is typed."""
        state = self.get_state()
        quote = s.word[0] if s.word[:1] in ("'", '"') else "'"
        for kind in s.kinds:
            if kind is Kind.KEYWORD:
                for keyword in s.keywords:
                    yield _cased(s.word, keyword), "filter type" if keyword in FILTER_TYPE_WORDS else "keyword"
            elif kind is Kind.COMMAND:
                for name in self.commands:
                    yield name, kind.value
            elif kind is Kind.HELP_TOPIC:
                for topic in self.help_topics:
                    yield _cased(s.word, topic), kind.value
            elif kind is Kind.CHANNEL:
                usable = [c.name for c in state.configured_channels()] if s.configured_only else state.channel_names
                for name in usable:
                    yield quote_string(name, quote), kind.value
            elif kind is Kind.DATABASE:
                for db in rule_names(state).databases:
                    yield quote_name(db), kind.value
            elif kind is Kind.TABLE:
                yield from self._tables(state, s)
            elif kind is Kind.WILD_PATTERN:
                names = rule_names(state)
                for pattern in names.patterns:
                    yield quote_string(pattern, quote), kind.value
                for db in names.databases:
                    yield quote_string(f"{db}.%", quote), kind.value
            elif kind is Kind.PS_TABLE:
                for table in TABLES:
                    yield (table if s.qualifier else f"{SCHEMA}.{table}"), kind.value
            elif kind is Kind.PS_COLUMN:
                columns = TABLES[s.table][0] if s.table in TABLES else CHANNEL_COLUMNS + GLOBAL_COLUMNS
                for column in columns:
                    yield _cased(s.word, column), kind.value
            elif kind is Kind.SELECT_ITEM:
                for item in s.select_items:
                    yield _cased(s.word, item), kind.value
            elif kind is Kind.SOURCE_OPTION:
                for name in SUPPORTED_OPTIONS:
                    if s.legacy and name.startswith("SOURCE_"):
                        name = "MASTER_" + name[len("SOURCE_"):]
                    yield _cased(s.word, name), kind.value
            elif kind is Kind.VALUE:
                yield from self._values(state, s.column, quote)

    def _tables(self, state: ReplicaState, s: Suggestion) -> Iterator[tuple[str, str]]:
        names = rule_names(state)
        if s.qualifier is not None:
            for db, table in names.tables:
                if db == s.qualifier:
                    yield quote_name(table), "table"
            return
        for db, table in names.tables:
            yield f"{quote_name(db)}.{quote_name(table)}", "table"
        for db in names.databases:
            yield f"{quote_name(db)}.", "database"

    def _values(self, state: ReplicaState, column: str | None, quote: str) -> Iterator[tuple[str, str]]:
        if column == "CHANNEL_NAME":
            for name in state.channel_names:
                yield quote_string(name, quote), "channel"
        elif column == "FILTER_NAME":
            for ftype in FILTER_TYPES:
                yield quote_string(ftype.keyword, quote), "filter type"
        elif column == "CONFIGURED_BY":
            for how in ConfiguredBy:
                yield quote_string(how.value, quote), "configured by"
