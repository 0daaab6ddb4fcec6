"""Parse tree -> AST: the transformer that runs inside the LALR parse (``transformer=``), so the
rest of the program never sees a parse tree.

Checks MySQL makes while parsing (1059, 1102, 1525, 3067, reserved words) are made here, so such
a statement never reaches the executor and changes nothing (mysql-filter-statements.md, section 2).
"""

from __future__ import annotations

from contextvars import ContextVar

from lark import Token, Transformer, v_args

from . import ast
from .grammar import ascii_lower, ascii_upper, is_reserved
from ..core.errors import ER, MySQLError
from ..core.filters import FilterType, fold_case
from ..core.version import DEFAULT_VERSION, ServerVersion
from .lexical import quote_string, unescape_string, unquote_identifier
from .source_options import resolve_source_option

SOURCE_TEXT: ContextVar[str] = ContextVar("SOURCE_TEXT", default="")
"""The text being parsed (set by :func:`.parser.parse_many`): an item the server names by its
text as typed takes its name from it."""
MAX_IDENT_CHARS = 64
MAX_IDENT_BYTES = 192


class ParseFailure(Exception):
    """A syntax error at a position of the statement text (turned into 1064 by :func:`.parser.parse`)."""

    def __init__(self, position: int) -> None:
        super().__init__(position)
        self.position = position


def _check_no_linefeed(value: str) -> str:
    """MySQL's TEXT_STRING_sys_nonewline: a line feed, even from ``\\n``, is refused with 1525."""
    if "\n" in value:
        raise MySQLError.of(ER.WRONG_VALUE, "argument contains not-allowed LF", value)
    return value


def _check_db_part(name: str) -> str:
    """The grammar's ``schema`` check on the db part of DO/IGNORE_TABLE (mysql-filter-statements.md, section 2.2)."""
    if not name or len(name.encode("utf-8")) > MAX_IDENT_BYTES or name.endswith(" "):
        raise MySQLError.of(ER.WRONG_DB_NAME, name[:100])
    if len(name) > MAX_IDENT_CHARS:
        raise MySQLError.of(ER.TOO_LONG_IDENT, name[:100])
    return name


@v_args(inline=True)
class ToAst(Transformer):
    """Parse tree -> :mod:`replfilter.dialect.ast` nodes, for one server version: 8.4's grammar
    has no SLAVE/MASTER spellings, so there they are a syntax error at the word itself."""

    def __init__(self, version: ServerVersion = DEFAULT_VERSION) -> None:
        super().__init__()
        self.version = version

    def _legacy(self, token: Token) -> None:
        """A SLAVE / MASTER / MASTER_* word: 1064 at it in 8.4, accepted (1287) in 8.0."""
        if not self.version.legacy_spellings:
            raise ParseFailure(token.start_pos or 0)

    # ---- leaves
    def ident(self, token: Token | str) -> str:
        if not isinstance(token, Token):
            return token  # a non-reserved keyword used as a name
        if token.type == "IDENT" and is_reserved(token.value):
            raise ParseFailure(token.start_pos or 0)
        return unquote_identifier(token.value)

    def nonreserved(self, token: Token) -> str:
        return token.value

    def text_string(self, token: Token) -> str:
        return unescape_string(token.value)

    def number(self, token: Token) -> int:
        return int(token.value)

    def null(self, _token: Token) -> None:
        return None

    def decimal(self, token: Token) -> ast.OtherValue:
        return ast.OtherValue("decimal", token.value)

    def word(self, token: Token) -> ast.OtherValue:
        return ast.OtherValue("word", token.value)

    def user_part(self, part: Token | str) -> str:
        return part.value if isinstance(part, Token) else quote_string(part)

    def user_at_host(self, user: str, host: str) -> ast.OtherValue:
        return ast.OtherValue("user", f"{user}@{host}")

    def server_ids(self, *ids: Token | None) -> ast.OtherValue:
        return ast.OtherValue("ids", "(" + ", ".join(t.value for t in ids if t is not None) + ")")

    # ---- CHANGE REPLICATION FILTER
    def db_filter_type(self, token: Token) -> FilterType:
        return FilterType.from_keyword(token.value)

    table_filter_type = db_filter_type
    wild_filter_type = db_filter_type

    def db_filter(self, ftype: FilterType, *names: str | None) -> ast.FilterDef:
        return ast.FilterDef(ftype, tuple(n for n in names if n is not None))

    def table_part(self, token: Token | str) -> Token | str:
        return token

    def reserved_keyword(self, token: Token) -> Token:
        return token

    def table_ident(self, db: str, dot: Token, table: Token | str) -> ast.QualifiedName:
        """``schema '.' ident``. A reserved word or an all-digit name is a table name only right
        after the dot (MySQL's lexer state after ``ident.``); with a space it is the keyword or
        number again, a syntax error."""
        if isinstance(table, Token):
            if table.type == "QUOTED_IDENT":
                table = unquote_identifier(table.value)
            else:
                bare_name_only = table.type == "NUMBER" or is_reserved(table.value)
                if bare_name_only and table.start_pos != dot.end_pos:
                    raise ParseFailure(table.start_pos or 0)
                table = table.value
        return ast.QualifiedName(_check_db_part(db), table)

    table_filter = db_filter

    def wild_filter(self, ftype: FilterType, *patterns: str | None) -> ast.FilterDef:
        values = tuple(p for p in patterns if p is not None)
        for pattern in values:
            _check_no_linefeed(pattern)
            if "." not in pattern:
                raise MySQLError.of(ER.INVALID_RPL_WILD_TABLE_FILTER_PATTERN)
        return ast.FilterDef(ftype, values)

    def db_pair(self, source: str, target: str) -> tuple[str, str]:
        return (source, target)

    def rewrite_filter(self, _kw: Token, *pairs: tuple[str, str] | None) -> ast.FilterDef:
        return ast.FilterDef(FilterType.REWRITE_DB, tuple(p for p in pairs if p is not None))

    def opt_channel(self, *children: object) -> str | None:
        name = children[-1] if children else None
        if name is None:
            return None
        assert isinstance(name, str)
        return fold_case(_check_no_linefeed(name))

    def change_filter(self, _c: Token, _r: Token, _f: Token, *rest: object) -> ast.ChangeReplicationFilter:
        *defs, channel = rest
        return ast.ChangeReplicationFilter(tuple(defs), channel)  # type: ignore[arg-type]

    # ---- CHANGE REPLICATION SOURCE / CHANGE MASTER
    def source_option(self, name: Token, value: ast.SourceValue) -> ast.SourceOption:
        option = resolve_source_option(name.value, value)
        if option is None:
            raise ParseFailure(name.start_pos)
        if option.written != option.name:
            self._legacy(name)
        return option

    def change_source(self, *children: object) -> ast.ChangeReplicationSource:
        *options, channel = [c for c in children if not isinstance(c, Token)]
        return ast.ChangeReplicationSource(tuple(options), channel)  # type: ignore[arg-type]

    def master_word(self, token: Token) -> Token:
        self._legacy(token)
        return token

    def change_master(self, *children: object) -> ast.ChangeReplicationSource:
        *options, channel = [c for c in children if not isinstance(c, Token)]
        return ast.ChangeReplicationSource(tuple(options), channel, legacy=True)  # type: ignore[arg-type]

    # ---- RESET / SHOW / START / STOP
    def replica_word(self, token: Token) -> bool:
        """True for the legacy SLAVE spelling."""
        if token.type == "SLAVE":
            self._legacy(token)
        return token.type == "SLAVE"

    def reset_replica(self, _kw: Token, legacy: bool, all_kw: Token | None, channel: str | None) -> ast.ResetReplica:
        return ast.ResetReplica(all_kw is not None, channel, legacy)

    def show_status(self, _kw: Token, legacy: bool, _status: Token, channel: str | None) -> ast.ShowReplicaStatus:
        return ast.ShowReplicaStatus(channel, legacy)

    def use_database(self, _use: Token, name: str) -> ast.UseDatabase:
        return ast.UseDatabase(name)

    def show_replicas(self, _show: Token, _replicas: Token) -> ast.ShowReplicas:
        return ast.ShowReplicas()

    def show_slave_hosts(self, _show: Token, legacy: bool, hosts: Token) -> ast.ShowReplicas:
        if not legacy:  # SHOW REPLICA HOSTS is no statement in either version
            raise ParseFailure(hosts.start_pos or 0)
        return ast.ShowReplicas(legacy=True)

    def thread_type(self, token: Token) -> str:
        word = ascii_upper(token.value)
        return "IO_THREAD" if word == "RELAY_THREAD" else word

    def thread_types(self, *threads: str) -> tuple[str, ...]:
        return tuple(threads)

    def start_replica(self, _kw: Token, legacy: bool, threads: tuple[str, ...] | None,
                      until: ast.UntilCondition | None, *rest: object) -> ast.StartReplica:
        """``start_replica_stmt``: USER/PASSWORD/DEFAULT_AUTH/PLUGIN_DIR, in that order, are for
        the receiver's connection, so starting only the SQL thread with one of them is 1687 (a
        check the grammar makes)."""
        *connection, channel = rest  # (keyword, value) pairs, both None when absent
        user, password, default_auth, plugin_dir = connection[1::2]
        threads = threads or ()
        if any(connection[0::2]) and set(threads) == {"SQL_THREAD"}:
            raise MySQLError.of(ER.SQLTHREAD_WITH_SECURE_REPLICA)
        return ast.StartReplica(threads, channel, legacy, until, user, password, default_auth, plugin_dir)  # type: ignore[arg-type]

    def until_item(self, name: Token, value: str | Token | None) -> tuple[Token, str | int | None]:
        if isinstance(value, Token):
            value = int(value.value)
        return (name, value)

    def until_clause(self, _until: Token, *items: object) -> ast.UntilCondition:
        """``opt_replica_until``: a file and a position of the same log, or one GTID set, or
        SQL_AFTER_MTS_GAPS alone. A name or value the grammar does not take there is 1064; a
        combination it takes but the action refuses is 1277."""
        conditions: dict[str, str | int] = {}
        first = True
        for item in items:
            if isinstance(item, Token):  # the comma
                first = False
                continue
            name, value = item  # type: ignore[misc]
            word = ascii_upper(name.value)
            if word.startswith("MASTER_"):
                self._legacy(name)
                word = "SOURCE_" + word[len("MASTER_"):]
            if word in ("SOURCE_LOG_FILE", "RELAY_LOG_FILE"):
                if not isinstance(value, str):
                    raise ParseFailure(name.end_pos or 0)
                conditions[word] = _check_no_linefeed(value)
            elif word in ("SOURCE_LOG_POS", "RELAY_LOG_POS"):
                if not isinstance(value, int):
                    raise ParseFailure(name.end_pos or 0)
                conditions[word] = value
            elif word in ("SQL_BEFORE_GTIDS", "SQL_AFTER_GTIDS") and first and isinstance(value, str):
                conditions[word] = value
            elif word == "SQL_AFTER_MTS_GAPS" and first and value is None:
                conditions[word] = 1
            else:
                raise ParseFailure(name.start_pos or 0)
            if word.startswith("SQL_") and len(items) > 1:
                raise ParseFailure(items[1].start_pos or 0)  # type: ignore[union-attr]
        if "SQL_AFTER_MTS_GAPS" in conditions:
            return ast.UntilCondition("SQL_AFTER_MTS_GAPS")
        for kind in ("SQL_BEFORE_GTIDS", "SQL_AFTER_GTIDS"):
            if kind in conditions:
                return ast.UntilCondition(kind, gtids=str(conditions[kind]))
        source = {"SOURCE_LOG_FILE", "SOURCE_LOG_POS"} & conditions.keys()
        relay = {"RELAY_LOG_FILE", "RELAY_LOG_POS"} & conditions.keys()
        if source and relay or len(source | relay) != 2:
            raise MySQLError.of(ER.BAD_REPLICA_UNTIL_COND)
        prefix = "SOURCE" if source else "RELAY"
        return ast.UntilCondition("Source" if source else "Relay", str(conditions[f"{prefix}_LOG_FILE"]),
                                  int(conditions[f"{prefix}_LOG_POS"]))

    def stop_replica(self, _kw: Token, legacy: bool, threads: tuple[str, ...] | None, channel: str | None) -> ast.StopReplica:
        return ast.StopReplica(threads or (), channel, legacy)

    # ---- SELECT ... FROM performance_schema.*
    def column(self, name: str) -> str:
        return name

    def select_star(self) -> tuple[str, ...] | None:
        return None

    def count_star(self, count: Token, *tokens: Token) -> str:
        """``COUNT(*)`` named as the server names an unaliased item: by its text as typed
        (``PTI_expr_with_alias::itemize`` copies the expression's span of the query), so
        ``count( * )`` is the column ``count( * )``."""
        text, end = SOURCE_TEXT.get(), tokens[-1].end_pos
        if text and count.start_pos is not None and end is not None and text[count.start_pos:end]:
            return text[count.start_pos:end]
        return f"{count.value}(*)"

    def select_count(self, name: str) -> ast.CountStar:
        return ast.CountStar(name)

    def select_columns(self, *columns: str) -> tuple[str, ...]:
        return tuple(columns)

    def table_name(self, first: str, _dot: Token | None = None, second: str | None = None) -> tuple[str | None, str]:
        return (first, second) if second is not None else (None, first)

    def comparator(self, token: Token) -> str:
        return "<>" if token.value == "!=" else token.value

    def condition(self, column: str, operator: str, value: str | int) -> ast.Comparison:
        return ast.Comparison(column, operator, value)

    def where_clause(self, _kw: Token, *parts: object) -> tuple[ast.Comparison, ...]:
        return tuple(p for p in parts if isinstance(p, ast.Comparison))

    def direction(self, token: Token) -> bool:
        return token.type == "DESC"

    def order_item(self, column: str, descending: bool | None) -> ast.OrderItem:
        return ast.OrderItem(column, bool(descending))

    def order_clause(self, _o: Token, _b: Token, *items: ast.OrderItem) -> tuple[ast.OrderItem, ...]:
        return items

    def limit_clause(self, _kw: Token, number: Token) -> int:
        return int(number.value)

    def select_ps(self, _sel: Token, columns: object, _from: Token, table: tuple[str | None, str],
                  where: tuple[ast.Comparison, ...] | None, order: tuple[ast.OrderItem, ...] | None,
                  limit: int | None) -> ast.SelectPerformanceSchema:
        schema, name = table
        return ast.SelectPerformanceSchema(
            schema=schema,
            table=name,
            columns=None if columns is None or isinstance(columns, ast.CountStar) else columns,  # type: ignore[arg-type]
            count=isinstance(columns, ast.CountStar),
            count_name=columns.name if isinstance(columns, ast.CountStar) else "COUNT(*)",
            where=where or (),
            order_by=order or (),
            limit=limit,
        )

    def select_variables(self, _select: Token, *items: Token | int | None) -> ast.SelectVariables:
        """``@@global.x`` / ``@@session.x`` / ``@@x``: the name after the scope, lower case."""
        *variables, limit = items
        return ast.SelectVariables(
            tuple((v.value, ascii_lower(v.value[2:]).rsplit(".", 1)[-1]) for v in variables if isinstance(v, Token)),
            limit if isinstance(limit, int) else None,
        )

    def set_variables(self, _set: Token, *items: ast.SetNames | ast.SetSessionVariable) -> ast.SetVariables:
        return ast.SetVariables(items)

    def set_names(self, _names: Token, charset: str | Token, _collate: Token | None, collation: str | None) -> ast.SetNames:
        return ast.SetNames(None if isinstance(charset, Token) else charset, collation)

    def set_word(self, word: str) -> str:
        return word

    def set_session(self, _scope: Token | None, name: str, value: tuple[str | int | None, bool]) -> ast.SetSessionVariable:
        return ast.SetSessionVariable(name, *value)

    def set_system_variable(self, variable: Token, value: tuple[str | int | None, bool]) -> ast.SetSessionVariable:
        """``@@session.x = v`` / ``@@x = v``; ``@@global.x`` is not a session setting (1229 on
        the server for a session variable): replfilter sets no global variable, so it refuses it."""
        name = ascii_lower(variable.value[2:])
        scope, _, bare = name.rpartition(".")
        if scope == "global":
            raise MySQLError.of(ER.NOT_SUPPORTED_YET, "SET GLOBAL in replfilter")
        return ast.SetSessionVariable(bare, *value)

    def set_value(self, value: str | Token) -> tuple[str | int | None, bool]:
        """(value, is DEFAULT): a number is an int, ON and words are their text."""
        if isinstance(value, Token):
            if value.type == "NUMBER":
                return int(value.value), False
            return None if value.type == "DEFAULT" else value.value, value.type == "DEFAULT"
        return value, False

    def show_warnings(self, *_tokens: Token) -> ast.ShowWarnings:
        return ast.ShowWarnings()

    def show_warning_count(self, *_tokens: Token) -> ast.ShowWarnings:
        return ast.ShowWarnings(count_only=True)

    # ---- replfilter extensions
    def binlog_format(self, token: Token) -> tuple[str, ...]:
        word = ascii_upper(token.value)
        return ("STATEMENT", "ROW") if word == "BOTH" else (word,)

    def explain_database(self, _default: Token, _database: Token, name: str) -> tuple[str, object]:
        return ("default_db", name)

    def explain_format(self, _format: Token, formats: tuple[str, ...]) -> tuple[str, object]:
        return ("formats", formats)

    def explain_channel(self, _for: Token, _channel: Token, name: str) -> tuple[str, object]:
        return ("channel", fold_case(_check_no_linefeed(name)))

    def explain_replication(self, _e: Token, _r: Token, _of: Token, sql: str, *options: tuple[str, object]) -> ast.ExplainReplication:
        """Options may come in any order; a repeated option: the last one wins."""
        return ast.ExplainReplication(sql, **dict(options))  # type: ignore[arg-type]

    def replay_events(self, _r: Token, _e: Token, _from: Token, path: str, channel: str | None) -> ast.ReplayEvents:
        return ast.ReplayEvents(path, channel)

    def explain_binlog(self, _e: Token, _r: Token, _of: Token, _b: Token, path: str, _at: Token, position: Token,
                       channel: str | None) -> ast.ExplainBinlog:
        return ast.ExplainBinlog(path, int(position), channel)

    def replay_binlog(self, _r: Token, _b: Token, path: str, _from: Token | None, position: Token | None,
                      channel: str | None) -> ast.ReplayBinlog:
        return ast.ReplayBinlog(path, int(position) if position is not None else None, channel)

    def log_limit(self, _limit: Token, first: Token, second: Token | None) -> tuple[int | None, int]:
        """``LIMIT n`` or ``LIMIT offset, n``."""
        return (None, int(first)) if second is None else (int(first), int(second))

    def show_binlog_events(self, _s: Token, _b: Token, _e: Token, _in: Token | None, path: str | None,
                           _from: Token | None, position: Token | None, limit: tuple | None) -> ast.ShowLogEvents:
        offset, count = limit if limit is not None else (None, None)
        return ast.ShowLogEvents(False, path, int(position) if position is not None else None, offset, count)

    def show_relaylog_events(self, _s: Token, _r: Token, _e: Token, _in: Token | None, path: str | None,
                             _from: Token | None, position: Token | None, limit: tuple | None,
                             channel: str | None) -> ast.ShowLogEvents:
        offset, count = limit if limit is not None else (None, None)
        return ast.ShowLogEvents(True, path, int(position) if position is not None else None, offset, count, channel)

    def lint_replication(self, _l: Token, _r: Token, channel: str | None) -> ast.LintReplication:
        return ast.LintReplication(channel)

    def load_schema(self, _l: Token, _s: Token, _from: Token, path: str, channel: str | None) -> ast.LoadSchema:
        return ast.LoadSchema(path, channel)

    def from_database(self, _from: Token, name: str) -> str:
        return name

    def like_clause(self, _like: Token, pattern: str) -> str:
        return pattern

    def show_databases(self, _show: Token, _kw: Token, like: str | None) -> ast.ShowCatalog:
        return ast.ShowCatalog("DATABASES", like=like)

    def show_tables(self, _show: Token, full: Token | None, _kw: Token, db: str | None, like: str | None) -> ast.ShowCatalog:
        return ast.ShowCatalog("TABLES", db, like, full is not None)

    def show_triggers(self, _show: Token, _kw: Token, db: str | None, like: str | None) -> ast.ShowCatalog:
        return ast.ShowCatalog("TRIGGERS", db, like)

    def start(self, *statements: object) -> list[object]:
        return [s for s in statements if s is not None]
