"""AST -> SQL text that parses back to an equal AST (the round trip is a tested property).

Used by the shell's history and help, by ``--format json`` and by the property tests. Names are
always backtick-quoted and strings single-quoted, so any value survives the trip.
"""

from __future__ import annotations

from functools import singledispatch

from . import ast
from ..core.filters import FilterType
from .lexical import quote_identifier, quote_string


def _channel(channel: str | None) -> str:
    return "" if channel is None else f" FOR CHANNEL {quote_string(channel)}"


def _replica(legacy: bool) -> str:
    return "SLAVE" if legacy else "REPLICA"


def _rule(ftype: FilterType, rule: object) -> str:
    if isinstance(rule, ast.QualifiedName):
        return f"{quote_identifier(rule.db)}.{quote_identifier(rule.table)}"
    if ftype is FilterType.REWRITE_DB:
        source, target = rule  # type: ignore[misc]
        return f"({quote_identifier(source)}, {quote_identifier(target)})"
    if ftype in (FilterType.WILD_DO_TABLE, FilterType.WILD_IGNORE_TABLE):
        return quote_string(str(rule))
    return quote_identifier(str(rule))


def _value(value: ast.SourceValue) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, ast.OtherValue):
        return value.text
    return quote_string(value)


@singledispatch
def to_sql(statement: object) -> str:
    raise TypeError(f"cannot print {statement!r}")


@to_sql.register
def _(stmt: ast.ChangeReplicationFilter) -> str:
    defs = ", ".join(
        f"{fdef.ftype.keyword} = ({', '.join(_rule(fdef.ftype, r) for r in fdef.rules)})" for fdef in stmt.filters
    )
    return f"CHANGE REPLICATION FILTER {defs}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ChangeReplicationSource) -> str:
    options = ", ".join(f"{o.written} = {_value(o.value)}" for o in stmt.options)
    head = "CHANGE MASTER TO" if stmt.legacy else "CHANGE REPLICATION SOURCE TO"
    return f"{head} {options}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ResetReplica) -> str:
    return f"RESET {_replica(stmt.legacy)}{' ALL' if stmt.all else ''}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ShowReplicaStatus) -> str:
    return f"SHOW {_replica(stmt.legacy)} STATUS{_channel(stmt.channel)}"


def _threads(threads: tuple[str, ...]) -> str:
    return f" {', '.join(threads)}" if threads else ""


@to_sql.register
def _(stmt: ast.StartReplica) -> str:
    until = ""
    if stmt.until is not None:
        u = stmt.until
        if u.kind in ("Source", "Relay"):
            prefix = "SOURCE" if u.kind == "Source" else "RELAY"
            until = f" UNTIL {prefix}_LOG_FILE = {quote_string(u.log_file)}, {prefix}_LOG_POS = {u.log_pos}"
        elif u.kind == "SQL_AFTER_MTS_GAPS":
            until = " UNTIL SQL_AFTER_MTS_GAPS"
        else:
            until = f" UNTIL {u.kind} = {quote_string(u.gtids)}"
    connection = "".join(
        f" {word} = {quote_string(value)}"
        for word, value in (("USER", stmt.user), ("PASSWORD", None if stmt.password is None else "***"),
                            ("DEFAULT_AUTH", stmt.default_auth), ("PLUGIN_DIR", stmt.plugin_dir))
        if value is not None
    )
    return f"START {_replica(stmt.legacy)}{_threads(stmt.threads)}{until}{connection}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.StopReplica) -> str:
    return f"STOP {_replica(stmt.legacy)}{_threads(stmt.threads)}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.SelectPerformanceSchema) -> str:
    if stmt.count:
        columns = stmt.count_name
    elif stmt.columns is None:
        columns = "*"
    else:
        columns = ", ".join(quote_identifier(c) for c in stmt.columns)
    table = quote_identifier(stmt.table)
    if stmt.schema is not None:
        table = f"{quote_identifier(stmt.schema)}.{table}"
    sql = f"SELECT {columns} FROM {table}"
    if stmt.where:
        sql += " WHERE " + " AND ".join(
            f"{quote_identifier(c.column)} {c.operator} {_value(c.value)}" for c in stmt.where
        )
    if stmt.order_by:
        sql += " ORDER BY " + ", ".join(
            f"{quote_identifier(o.column)}{' DESC' if o.descending else ''}" for o in stmt.order_by
        )
    if stmt.limit is not None:
        sql += f" LIMIT {stmt.limit}"
    return sql


@to_sql.register
def _(stmt: ast.QueryPerformanceSchema) -> str:
    return stmt.sql


@to_sql.register
def _(stmt: ast.UseDatabase) -> str:
    return f"USE {quote_identifier(stmt.database)}"


@to_sql.register
def _(stmt: ast.ShowReplicas) -> str:
    return "SHOW SLAVE HOSTS" if stmt.legacy else "SHOW REPLICAS"


@to_sql.register
def _(stmt: ast.SelectVariables) -> str:
    limit = f" LIMIT {stmt.limit}" if stmt.limit is not None else ""
    return "SELECT " + ", ".join(written for written, _ in stmt.items) + limit


@to_sql.register
def _(stmt: ast.SetVariables) -> str:
    return "SET " + ", ".join(_set_item(item) for item in stmt.items)


def _set_item(item: ast.SetNames | ast.SetSessionVariable) -> str:
    if isinstance(item, ast.SetNames):
        names = "NAMES " + (quote_string(item.charset) if item.charset is not None else "DEFAULT")
        return names + (f" COLLATE {quote_string(item.collation)}" if item.collation is not None else "")
    if item.is_default:
        value = "DEFAULT"
    elif isinstance(item.value, int):
        value = str(item.value)
    else:
        value = quote_string(str(item.value))
    return f"SESSION {quote_identifier(item.name)} = {value}"


@to_sql.register
def _(stmt: ast.ShowWarnings) -> str:
    return "SHOW COUNT(*) WARNINGS" if stmt.count_only else "SHOW WARNINGS"


@to_sql.register
def _(stmt: ast.ExplainReplication) -> str:
    sql = f"EXPLAIN REPLICATION OF {quote_string(stmt.sql)}"
    if stmt.default_db is not None:
        sql += f" DEFAULT DATABASE {quote_identifier(stmt.default_db)}"
    formats = "BOTH" if stmt.formats == ("STATEMENT", "ROW") else stmt.formats[0]
    return sql + f" FORMAT {formats}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ReplayEvents) -> str:
    return f"REPLAY EVENTS FROM {quote_string(stmt.path)}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.LintReplication) -> str:
    return f"LINT REPLICATION{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ExplainBinlog) -> str:
    return f"EXPLAIN REPLICATION OF BINLOG {quote_string(stmt.path)} AT {stmt.position}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ReplayBinlog) -> str:
    position = f" FROM {stmt.position}" if stmt.position is not None else ""
    return f"REPLAY BINLOG {quote_string(stmt.path)}{position}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ShowLogEvents) -> str:
    text = "SHOW RELAYLOG EVENTS" if stmt.relay else "SHOW BINLOG EVENTS"
    if stmt.path is not None:
        text += f" IN {quote_string(stmt.path)}"
    if stmt.position is not None:
        text += f" FROM {stmt.position}"
    if stmt.limit is not None:
        text += f" LIMIT {stmt.offset}, {stmt.limit}" if stmt.offset is not None else f" LIMIT {stmt.limit}"
    return text + _channel(stmt.channel)


@to_sql.register
def _(stmt: ast.LoadSchema) -> str:
    return f"LOAD SCHEMA FROM {quote_string(stmt.path)}{_channel(stmt.channel)}"


@to_sql.register
def _(stmt: ast.ShowCatalog) -> str:
    sql = "SHOW FULL TABLES" if stmt.full else f"SHOW {stmt.what}"
    if stmt.database is not None:
        sql += f" FROM {quote_identifier(stmt.database)}"
    if stmt.like is not None:
        sql += f" LIKE {quote_string(stmt.like)}"
    return sql
