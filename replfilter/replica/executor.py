"""Statement execution: (state, statement, statement time) -> (new state, result), MySQL 8.4's way.

Each handler follows the order of checks of the server function named in its docstring, so an
input that breaks two rules gets the error MySQL would report first. Handlers never mutate: they
return a new :class:`ReplicaState` or raise :class:`MySQLError`, and the caller keeps the old state
on error. SHOW WARNINGS lives in :mod:`.session` because it reads the session, not the replica.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..dialect import ast
from ..core.errors import ER, Condition, MySQLError, deprecated_syntax
from ..core.gtid_sets import is_gtid_set
from ..core.filters import EMPTY_FILTERS, ConfiguredBy, FilterSet, FilterType, NameCollation, Rule, fold_case
from .perfschema import query_performance_schema, select_performance_schema
from ..core.results import Ok, Result, ResultSet
from .show_status import ProgressSource, show_replica_status
from ..dialect.source_options import RECEIVER_OPTIONS, SUPPORTED_OPTIONS, stored_value
from .show_catalog import show_catalog
from .state import (
    DEFAULT_CHANNEL,
    MAX_CHANNELS,
    Channel,
    ReplicaState,
    channel_sort_key,
    is_group_replication_channel,
)

MAX_CHANNEL_NAME_CHARS = 64
MAX_CHANNEL_NAME_BYTES = 192


@dataclass(frozen=True)
class Execution:
    state: ReplicaState
    result: Result


REPLICAS_COLUMNS = ("Server_Id", "Host", "Port", "Source_Id", "Replica_UUID")
LEGACY_REPLICAS_COLUMNS = ("Server_id", "Host", "Port", "Master_id", "Slave_UUID")
"""SHOW REPLICAS (8.4) and 8.0's SHOW SLAVE HOSTS."""


def execute(state: ReplicaState, statement: ast.Statement, now_us: int, progress: ProgressSource | None = None) -> Execution:
    """Run one statement at statement time ``now_us`` (one timestamp per statement, as NOW(6)).

    The 1287 warnings of legacy spellings come first: MySQL pushes them while parsing.
    ``progress`` gives SHOW REPLICA STATUS the live columns of a running applier (Spark)."""
    execution = _execute(state, statement, now_us, progress)
    warnings = deprecation_warnings(statement)
    if warnings:
        execution = Execution(execution.state, replace(execution.result, warnings=warnings + execution.result.warnings))
    return execution


def deprecation_warnings(statement: ast.Statement) -> tuple[Condition, ...]:
    """Warning 1287 for each 8.0 legacy spelling in ``statement``, in the order the 8.0 grammar
    pushes them (statement keyword first, then each MASTER_* option). They are raised while
    parsing, so they stay in the diagnostics area even when the statement then fails."""
    match statement:
        case ast.ChangeReplicationSource():
            warnings = [deprecated_syntax("CHANGE MASTER", "CHANGE REPLICATION SOURCE")] if statement.legacy else []
            warnings += [deprecated_syntax(o.written, o.name) for o in statement.options if o.written != o.name]
            return tuple(warnings)
        case ast.StartReplica(legacy=True):
            return (deprecated_syntax("START SLAVE", "START REPLICA"),)
        case ast.StopReplica(legacy=True):
            return (deprecated_syntax("STOP SLAVE", "STOP REPLICA"),)
        case ast.ResetReplica(legacy=True):
            # The 8.0 grammar warns for the SLAVE keyword of RESET, with or without ALL.
            return (deprecated_syntax("RESET SLAVE", "RESET REPLICA"),)
        case ast.ShowReplicaStatus(legacy=True):
            return (deprecated_syntax("SHOW SLAVE STATUS", "SHOW REPLICA STATUS"),)
        case ast.ShowReplicas(legacy=True):
            return (deprecated_syntax("SHOW SLAVE HOSTS", "SHOW REPLICAS"),)
    return ()


def _execute(state: ReplicaState, statement: ast.Statement, now_us: int, progress: ProgressSource | None = None) -> Execution:
    match statement:
        case ast.ChangeReplicationFilter():
            return Execution(change_replication_filter(state, statement, now_us), Ok())
        case ast.ChangeReplicationSource():
            return change_replication_source(state, statement, now_us)
        case ast.StartReplica():
            return start_replica(state, statement)
        case ast.StopReplica():
            return stop_replica(state, statement)
        case ast.ResetReplica():
            return reset_replica(state, statement)
        case ast.ShowReplicas():
            # No replica connects to a simulated server: the columns, no rows.
            return Execution(state, ResultSet(LEGACY_REPLICAS_COLUMNS if statement.legacy else REPLICAS_COLUMNS, ()))
        case ast.ShowReplicaStatus():
            return Execution(state, show_replica_status(state, statement.channel, statement.legacy, progress))
        case ast.SelectPerformanceSchema():
            return Execution(state, select_performance_schema(state, statement))
        case ast.QueryPerformanceSchema():
            return Execution(state, query_performance_schema(state, statement.sql, statement.parameters))  # type: ignore[arg-type]
        case ast.ShowCatalog():
            return Execution(state, show_catalog(state, statement))
    raise TypeError(f"not a statement the executor runs: {statement!r}")


# ---- CHANGE REPLICATION FILTER ------------------------------------------------------------------


def _stored_rules(ftype: FilterType, rules: tuple[Rule | ast.QualifiedName, ...], collation: NameCollation) -> list[Rule]:
    """Statement values -> stored rules. With lower_case_table_names != 0 the db part of a table
    rule is lower-cased (the grammar's ``schema`` rule); nothing else is folded (mysql-filter-statements.md, 9.2)."""
    stored: list[Rule] = []
    for rule in rules:
        if isinstance(rule, ast.QualifiedName):
            db = fold_case(rule.db) if collation.case_insensitive else rule.db
            stored.append(f"{db}.{rule.table}")
        else:
            stored.append(rule)
    return stored


def _replace_types(
    filters: FilterSet,
    lists: dict[FilterType, tuple[Rule | ast.QualifiedName, ...]],
    configured_by: ConfiguredBy,
    now_us: int,
    collation: NameCollation,
) -> FilterSet:
    for ftype, rules in lists.items():
        filters = filters.set_type(ftype, _stored_rules(ftype, rules, collation), configured_by, now_us, collation)
    return filters


def change_replication_filter(state: ReplicaState, stmt: ast.ChangeReplicationFilter, now_us: int) -> ReplicaState:
    """``Sql_cmd_change_repl_filter::change_rpl_filter`` (mysql-filter-statements.md, 4.2)."""
    lists = stmt.effective()
    collation = state.collation
    if stmt.channel is None:
        if not state.channels:
            raise MySQLError.of(ER.REPLICA_CONFIGURATION)
        targets = state.configured_channels()
        for channel in targets:
            if channel.sql_running:
                raise MySQLError.of(ER.REPLICA_CHANNEL_SQL_THREAD_MUST_STOP, channel.name)
        for channel in targets:
            new_filters = _replace_types(channel.filters, lists, ConfiguredBy.CHANGE_REPLICATION_FILTER, now_us, collation)
            state = state.with_channel(replace(channel, filters=new_filters))
        return state.with_global_filters(
            _replace_types(state.global_filters, lists, ConfiguredBy.CHANGE_REPLICATION_FILTER, now_us, collation)
        )
    name = stmt.channel
    if is_group_replication_channel(name):
        raise MySQLError.of(ER.REPLICA_CHANNEL_OPERATION_NOT_ALLOWED, "CHANGE REPLICATION FILTER", name)
    channel = state.channel(name)
    if channel is None or not channel.configured:
        raise MySQLError.of(ER.REPLICA_CONFIGURATION)
    if channel.sql_running:
        raise MySQLError.of(ER.REPLICA_CHANNEL_SQL_THREAD_MUST_STOP, name)
    new_filters = _replace_types(
        channel.filters, lists, ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL, now_us, collation
    )
    return state.with_channel(replace(channel, filters=new_filters))


# ---- CHANGE REPLICATION SOURCE TO -----------------------------------------------------------------

# What the group replication channels accept (mysql-filter-statements.md, 4.4 step 2): the applier takes none of the
# options simulated here, the recovery channel only its credentials.
_GR_ALLOWED_OPTIONS = {
    "group_replication_applier": frozenset(),
    "group_replication_recovery": frozenset({"SOURCE_USER", "SOURCE_PASSWORD"}),
}


def valid_channel_name(name: str) -> bool:
    """The table-name check MySQL applies when creating a channel (mysql-filter-statements.md, section 3)."""
    return (
        name != ""
        and len(name) <= MAX_CHANNEL_NAME_CHARS
        and len(name.encode("utf-8")) <= MAX_CHANNEL_NAME_BYTES
        and not name.endswith(" ")
    )


POSITION_OPTIONS = frozenset({"SOURCE_LOG_FILE", "SOURCE_LOG_POS", "RELAY_LOG_FILE", "RELAY_LOG_POS"})


def _check_auto_position(state: ReplicaState, channel: Channel, options: tuple[ast.SourceOption, ...]) -> None:
    """``change_master`` (sql/rpl_replica.cc): SOURCE_AUTO_POSITION = 1 needs a GTID_MODE other
    than OFF (1777, checked first); positions cannot be given while auto-positioning is on after
    the statement (SOURCE_AUTO_POSITION = 1 in it, or already on and not turned off): 1776."""
    auto = channel.source.auto_position
    for option in options:
        if option.name == "SOURCE_AUTO_POSITION":
            auto = 1 if option.value else 0
            if auto and state.gtid_mode == "OFF":
                raise MySQLError.of(ER.AUTO_POSITION_REQUIRES_GTID_MODE_NOT_OFF)
    if auto and any(option.name in POSITION_OPTIONS for option in options):
        raise MySQLError.of(ER.BAD_REPLICA_AUTO_POSITION)


def change_replication_source(state: ReplicaState, stmt: ast.ChangeReplicationSource, now_us: int) -> Execution:
    """``change_master_cmd`` / ``change_master`` (mysql-filter-statements.md, 4.4)."""
    for option in stmt.options:
        if option.name not in SUPPORTED_OPTIONS:
            raise MySQLError.of(ER.NOT_SUPPORTED_YET, f"CHANGE REPLICATION SOURCE option {option.name} in replfilter")
    name = stmt.channel
    if name is not None and is_group_replication_channel(name):
        allowed = _GR_ALLOWED_OPTIONS[name]
        if any(option.name not in allowed for option in stmt.options):
            command = "CHANGE MASTER" if state.version.legacy_spellings else "CHANGE REPLICATION SOURCE"
            raise MySQLError.of(ER.REPLICA_CHANNEL_OPERATION_NOT_ALLOWED, f"{command} with the given parameters", name)
    if name is None:
        if len([c for c in state.channels if not c.is_group_replication]) > 1:
            raise MySQLError.of(ER.REPLICA_MULTIPLE_CHANNELS_CMD)
        name = DEFAULT_CHANNEL
    channel = state.channel(name)
    if channel is None:
        if len(state.channels) >= MAX_CHANNELS:
            raise MySQLError.of(ER.REPLICA_MAX_CHANNELS_EXCEEDED)
        if not valid_channel_name(name):
            raise MySQLError.of(ER.REPLICA_CHANNEL_NAME_INVALID_OR_TOO_LONG)
        channel = Channel(name)
    given = _given_options(stmt.options)
    for option in stmt.options:
        if option.name not in given:
            continue  # e.g. SOURCE_PORT = 0: changes nothing, so needs no thread stopped
        if option.name in RECEIVER_OPTIONS and channel.io_running:
            raise MySQLError.of(ER.REPLICA_CHANNEL_IO_THREAD_MUST_STOP, name)
        if option.name not in RECEIVER_OPTIONS and channel.sql_running:
            raise MySQLError.of(ER.REPLICA_CHANNEL_SQL_THREAD_MUST_STOP, name)
        if option.name == "SOURCE_HOST" and option.value == "":
            raise MySQLError.of(ER.WRONG_ARGUMENTS, option.written)
    _check_auto_position(state, channel, stmt.options)

    was_configured = channel.configured
    source = channel.source
    if ("SOURCE_HOST" in given or "SOURCE_PORT" in given) and not ({"SOURCE_LOG_FILE", "SOURCE_LOG_POS"} & given.keys()):
        # A different source: the old coordinates mean nothing there (MySQL resets them too).
        source = replace(source, log_file="", log_pos=4)
    for option_name, value in given.items():
        source = source.with_option(option_name, value)
    channel = replace(channel, source=source)
    if not was_configured and channel.configured and not channel.is_group_replication:
        channel = replace(channel, filters=channel.filters.with_global_copy(state.global_filters, now_us))

    warnings: list[Condition] = []
    if {"SOURCE_USER", "SOURCE_PASSWORD"} & given.keys():
        warnings.append(Condition.note(ER.INSECURE_PLAIN_TEXT))
        warnings.append(Condition.note(ER.INSECURE_CHANGE_SOURCE))
    return Execution(state.with_channel(channel), Ok(warnings=tuple(warnings)))


ZERO_MEANS_NOT_GIVEN = frozenset({"SOURCE_PORT", "SOURCE_CONNECT_RETRY", "SOURCE_LOG_POS", "RELAY_LOG_POS"})
"""LEX_MASTER_INFO keeps 0 for "not given" in these, and change_receive_options and
change_execute_options copy them only when non-zero (``if (lex_mi->port) mi->port = ...``):
``SOURCE_PORT = 0`` changes nothing, and does not count as a new source."""
BIN_LOG_HEADER_SIZE = 4
"""A position below the first event's is taken as the first event's (``max(4, pos)``)."""


def _given_options(options: tuple[ast.SourceOption, ...]) -> dict[str, ast.SourceValue]:
    """The options that change something, with positions raised to the first event's; a repeated
    option: the last one wins, as in the grammar."""
    given: dict[str, ast.SourceValue] = {}
    for option in options:
        value = stored_value(option.name, option.value)
        if option.name in ZERO_MEANS_NOT_GIVEN and value == 0:
            continue
        if option.name in ("SOURCE_LOG_POS", "RELAY_LOG_POS") and isinstance(value, int):
            value = max(BIN_LOG_HEADER_SIZE, value)
        given[option.name] = value
    return given


# ---- START / STOP REPLICA ---------------------------------------------------------------------------


def _thread_words(threads: tuple[str, ...]) -> tuple[bool, bool]:
    """(io, sql) requested; no thread list means both."""
    if not threads:
        return True, True
    return "IO_THREAD" in threads, "SQL_THREAD" in threads


def _gr_thread_command(verb: str, threads: tuple[str, ...]) -> str:
    if threads == ("SQL_THREAD",):
        return f"{verb} REPLICA SQL_THREAD FOR CHANNEL"
    if threads == ("IO_THREAD",):
        return f"{verb} REPLICA IO_THREAD FOR CHANNEL"
    return f"{verb} REPLICA FOR CHANNEL"


def _thread_targets(state: ReplicaState, channel_name: str | None, verb: str, threads: tuple[str, ...]) -> list[Channel]:
    """The channels START/STOP act on (mysql-filter-statements.md, 4.5)."""
    if channel_name is None:
        targets = list(state.configured_channels())
        if not targets and verb == "START":
            raise MySQLError.of(ER.BAD_REPLICA)
        if not targets:
            default = state.channel(DEFAULT_CHANNEL)
            targets = [default] if default is not None else []
        return targets
    channel = state.channel(channel_name)
    if channel is None:
        if channel_name == DEFAULT_CHANNEL:
            return []
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, channel_name)
    if channel.is_group_replication:
        if channel.name == "group_replication_recovery" or set(threads) != {"SQL_THREAD"}:
            raise MySQLError.of(
                ER.REPLICA_CHANNEL_OPERATION_NOT_ALLOWED, _gr_thread_command(verb, threads), channel.name
            )
    elif verb == "START" and not channel.configured:
        raise MySQLError.of(ER.BAD_REPLICA)
    return [channel]


def start_replica(state: ReplicaState, stmt: ast.StartReplica) -> Execution:
    """``start_slave_cmd``: start the requested threads; already running ones earn note 3083."""
    want_io, want_sql = _thread_words(stmt.threads)
    warnings: list[Condition] = []
    for channel in _thread_targets(state, stmt.channel, "START", stmt.threads):
        already = (not want_io or channel.io_running) and (not want_sql or channel.sql_running)
        if already:
            warnings.append(Condition.note(ER.REPLICA_CHANNEL_WAS_RUNNING, channel.name))
            continue
        # UNTIL applies to an applier this statement starts (mysql-filter-statements.md, section
        # 4.5; the server's start_slave_threads sets the until condition only when it starts the
        # SQL thread).
        until = stmt.until if want_sql and not channel.sql_running else channel.until
        if stmt.until is not None and until is stmt.until:
            # Relay_log_info::init_until_option: a position condition without --skip-replica-start
            if stmt.until.kind in ("Source", "Relay") and not state.skip_replica_start:
                warnings.append(Condition.note(ER.MISSING_SKIP_REPLICA))
        elif stmt.until is not None and stmt.until.kind != "SQL_AFTER_MTS_GAPS":
            warnings.append(Condition.note(ER.UNTIL_COND_IGNORED))  # start_slave: no SQL thread to start
        if until is stmt.until and until is not None and until.gtids and not is_gtid_set(until.gtids):
            # Until_gtids::init: the set is read before any thread starts, so nothing starts.
            # Gtid_set::add_gtid_text raises 1772; init then returns ER_BAD_REPLICA_UNTIL_COND,
            # which start_replica raises too: the client sees 1772, SHOW WARNINGS both.
            malformed = MySQLError.of(ER.MALFORMED_GTID_SET_SPECIFICATION, until.gtids)
            malformed.following = (Condition.from_error(MySQLError.of(ER.BAD_REPLICA_UNTIL_COND)),)
            raise malformed
        state = state.with_channel(replace(
            channel, io_running=channel.io_running or want_io, sql_running=channel.sql_running or want_sql,
            last_sql_error=None if want_sql else channel.last_sql_error,  # a starting SQL thread clears it
            last_sql_error_at=0 if want_sql else channel.last_sql_error_at,
            until=until,
        ))
    return Execution(state, Ok(warnings=tuple(warnings)))


def stop_replica(state: ReplicaState, stmt: ast.StopReplica) -> Execution:
    """``stop_slave_cmd``: stop the requested threads; already stopped ones earn note 3084."""
    want_io, want_sql = _thread_words(stmt.threads)
    warnings: list[Condition] = []
    for channel in _thread_targets(state, stmt.channel, "STOP", stmt.threads):
        running = (want_io and channel.io_running) or (want_sql and channel.sql_running)
        if not running:
            warnings.append(Condition.note(ER.REPLICA_CHANNEL_WAS_NOT_RUNNING, channel.name))
            continue
        sql_running = channel.sql_running and not want_sql
        state = state.with_channel(
            replace(channel, io_running=channel.io_running and not want_io, sql_running=sql_running,
                    until=channel.until if sql_running else None)
        )
    return Execution(state, Ok(warnings=tuple(warnings)))


# ---- RESET REPLICA [ALL] ----------------------------------------------------------------------------


def _reset_order(state: ReplicaState, reset_all: bool) -> list[Channel]:
    """Plain RESET walks channels in name order; RESET ALL does the default channel first, then the
    others, then the group replication channels (mysql-filter-statements.md, 4.6)."""
    if not reset_all:
        return list(state.channels)
    default = [c for c in state.channels if c.name == DEFAULT_CHANNEL]
    others = [c for c in state.channels if c.name != DEFAULT_CHANNEL and not c.is_group_replication]
    group = [c for c in state.channels if c.is_group_replication]
    return default + others + group


def _reset_one(state: ReplicaState, channel: Channel, reset_all: bool) -> ReplicaState:
    if reset_all:
        state = state.without_channel(channel.name)
        if channel.name == DEFAULT_CHANNEL:
            # The default channel is recreated at once: unconfigured, with a brand-new filter.
            state = state.with_channel(Channel(DEFAULT_CHANNEL, filters=EMPTY_FILTERS))
        return state
    # RESET REPLICA forgets positions and relay logs; connection settings and filters stay.
    source = replace(channel.source, log_file="", log_pos=4, relay_log_file="", relay_log_pos=0)
    return state.with_channel(replace(channel, source=source, last_sql_error=None, last_sql_error_at=0))


class PartialChange(MySQLError):
    """A statement the server runs step by step that failed partway: the steps before the failure
    stay done, so ``state`` (those steps applied) is kept, and the error is still reported."""

    def __init__(self, error: MySQLError, state: ReplicaState) -> None:
        super().__init__(error.code, error.sqlstate, error.message)
        self.state = state


def reset_replica(state: ReplicaState, stmt: ast.ResetReplica) -> Execution:
    """``reset_slave_cmd``. Without FOR CHANNEL the server resets channels one at a time in its
    order (``reset_slave(THD*)`` walks the channel map and stops at the first failure;
    mysql-filter-statements.md, 11.18): the
    channels before one with a running thread are reset (and, with ALL, dropped), and the
    statement then stops with 3081 at that channel (:class:`PartialChange`)."""
    warnings: tuple[Condition, ...] = ()
    if stmt.channel is not None:
        channel = state.channel(stmt.channel)
        if channel is None:
            if stmt.channel == DEFAULT_CHANNEL:
                return Execution(state, Ok(warnings=warnings))
            raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, stmt.channel)
        if channel.any_thread_running:
            raise MySQLError.of(ER.REPLICA_CHANNEL_MUST_STOP, channel.name)
        return Execution(_reset_one(state, channel, stmt.all), Ok(warnings=warnings))
    before = state
    for channel in _reset_order(state, stmt.all):
        if channel.any_thread_running:
            error = MySQLError.of(ER.REPLICA_CHANNEL_MUST_STOP, channel.name)
            if state is before:
                raise error
            raise PartialChange(error, state)
        state = _reset_one(state, channel, stmt.all)
    return Execution(state, Ok(warnings=warnings))


__all__ = [
    "Execution",
    "PartialChange",
    "execute",
    "deprecation_warnings",
    "change_replication_filter",
    "change_replication_source",
    "start_replica",
    "stop_replica",
    "reset_replica",
    "valid_channel_name",
    "channel_sort_key",
]
