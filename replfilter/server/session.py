"""A client session on the simulated replica: the current state, the diagnostics area, the clock.

This is the one object the CLI, the shell, ``replfilter serve``, Python callers and the Spark
runtime share. It swaps in a new state only after a statement fully succeeded (observers such as
``--datadir`` persistence included), and it is thread-safe because the Spark applier moves
counters from its own thread.

What belongs to the server and what to one connection is split as in mysqld: the replica (its
state, the lock every statement takes, observers, listeners, the applier's progress) is shared by
every :meth:`Session.connect`-ed session; the diagnostics area, the default database and the
session system variables are each connection's own.
"""

from __future__ import annotations

import threading
from dataclasses import replace
import time
from typing import Callable, Iterable

from ..dialect import ast
from ..core.errors import Condition, MySQLError
from ..core.errors import ER
from ..core.paths import check_path, shown
from ..replica.executor import Execution, PartialChange, deprecation_warnings, execute
from .load_schema import load_schema_statement
from .session_variables import GLOBAL_READ_ONLY, SESSION_DEFAULTS, SessionVariables
from ..core.results import Ok, Result, ResultSet, Value
from ..replica.show_status import ProgressSource
from ..replica.state import ReplicaState

Clock = Callable[[], int]
StateObserver = Callable[[ReplicaState, ReplicaState], None]
"""Called with (old, new) before a change is committed; raising MySQLError vetoes the change."""
StateListener = Callable[[ReplicaState, ReplicaState], None]
"""Called with (old, new) after a change is committed, outside the session lock, in the thread
that made the change: it may wait for another thread that itself needs the session (the Spark
applier stopping at a batch boundary moves counters with ``update``)."""


def wall_clock_us() -> int:
    return time.time_ns() // 1000


class _Replica:
    """The server's part of a session: one per replica, shared by all its connections."""

    def __init__(self, state: ReplicaState, clock: Clock, observers: Iterable[StateObserver]) -> None:
        self.state = state
        self.clock = clock
        self.observers = list(observers)
        self.listeners: list[StateListener] = []
        self.lock = threading.RLock()
        self.progress: ProgressSource | None = None
        self.server_variables: dict[str, Value] = dict(GLOBAL_READ_ONLY)
        self.session_defaults: dict[str, Value] = dict(SESSION_DEFAULTS)
        """The global values each new session starts from (``serve --wait-timeout`` sets one)."""


class Session:
    def __init__(
        self,
        state: ReplicaState | None = None,
        *,
        clock: Clock = wall_clock_us,
        observers: Iterable[StateObserver] = (),
        _replica: _Replica | None = None,
    ) -> None:
        self._replica = _replica or _Replica(state if state is not None else ReplicaState.fresh(), clock, observers)
        self._lock = self._replica.lock
        self._diagnostics: tuple[Condition, ...] = ()
        self.default_database: str | None = None
        """The session's default database (``USE db``): EXPLAIN REPLICATION's when it names none;
        the shell's ``status`` and prompt show it."""
        self.variables = SessionVariables(self._replica.session_defaults)
        """This connection's session system variables (``SET NAMES``, ``SET autocommit``...)."""

    def connect(self) -> "Session":
        """Another connection to the same replica (``replfilter serve``): it sees every change the
        others make, with its own diagnostics, default database and session variables."""
        return Session(_replica=self._replica)

    @property
    def _state(self) -> ReplicaState:
        return self._replica.state

    @property
    def state(self) -> ReplicaState:
        return self._replica.state

    @property
    def progress(self) -> ProgressSource | None:
        """Live SHOW REPLICA STATUS columns per channel (set by the Spark applier)."""
        return self._replica.progress

    @progress.setter
    def progress(self, progress: ProgressSource | None) -> None:
        self._replica.progress = progress

    @property
    def server_variables(self) -> dict[str, Value]:
        """The server's read-only variables (``@@port``, ``@@max_connections``...): the front-end
        that listens sets them from its options."""
        return self._replica.server_variables

    @property
    def session_defaults(self) -> dict[str, Value]:
        """The global values of the session variables, which each new connection starts with."""
        return self._replica.session_defaults

    @property
    def diagnostics(self) -> tuple[Condition, ...]:
        """The conditions of the last statement (what SHOW WARNINGS lists)."""
        return self._diagnostics

    def reset_connection(self) -> None:
        """COM_RESET_CONNECTION (the client's ``resetconnection``, ``connect``): the session's
        diagnostics area is emptied; the replica's state is the server's and stays."""
        with self._lock:
            self._diagnostics = ()
            self.variables = SessionVariables(self._replica.session_defaults)

    def add_observer(self, observer: StateObserver) -> None:
        self._replica.observers.append(observer)

    def add_listener(self, listener: StateListener) -> None:
        self._replica.listeners.append(listener)

    def _notify(self, old: ReplicaState, new: ReplicaState) -> None:
        if new is not old:
            for listener in self._replica.listeners:
                listener(old, new)

    def execute(self, statement: ast.Statement) -> Result:
        """Run one parsed statement; raise MySQLError with the state untouched on failure (but
        for :class:`PartialChange`: the steps the server had done before failing are kept)."""
        if isinstance(statement, ast.ShowWarnings):
            return self._show_warnings(statement)
        if isinstance(statement, ast.SelectVariables):
            return self._select_variables(statement)
        if isinstance(statement, ast.UseDatabase):
            return self._use_database(statement)
        if isinstance(statement, ast.SetVariables):
            return self._set_variables(statement)
        failure: MySQLError | None = None
        with self._lock:
            old = self._state
            try:
                execution = self._execute_extension(statement) or execute(
                    self._state, statement, self._replica.clock(), self.progress
                )
                self._commit(execution.state)
                self._diagnostics = execution.result.warnings
            except MySQLError as error:
                failure = error
                if isinstance(error, PartialChange):
                    try:
                        self._commit(error.state)
                    except MySQLError as veto:
                        failure = veto
                # Parse-time warnings (legacy spellings) stay in front of the error, as in MySQL.
                self._diagnostics = (*deprecation_warnings(statement), Condition.from_error(failure), *failure.following)
            new = self._state
        self._notify(old, new)
        if failure is not None:
            raise failure
        return execution.result

    def _execute_extension(self, statement: ast.Statement) -> Execution | None:
        """The replfilter statements that are not MySQL; REPLAY reads its file here (the
        executor does no I/O). The evaluation modules load when first used, not at start-up."""
        if isinstance(statement, ast.ExplainReplication):
            from ..evaluation.extensions import explain_replication

            if statement.default_db is None and self.default_database is not None:
                statement = replace(statement, default_db=self.default_database)
            return Execution(self._state, explain_replication(self._state, statement))
        if isinstance(statement, ast.LintReplication):
            from ..lint.statement import lint_replication  # the checks load when first used

            return Execution(self._state, lint_replication(self._state, statement))
        if isinstance(statement, ast.ReplayEvents):
            from ..evaluation.extensions import replay_events

            result, state = replay_events(self._state, statement, _read_lines(statement.path), self._replica.clock())
            return Execution(state, result)
        if isinstance(statement, ast.ShowLogEvents):
            from ..evaluation.binlog_statements import show_log_events

            return Execution(self._state, show_log_events(self._state, statement))
        if isinstance(statement, ast.ExplainBinlog):
            from ..evaluation.binlog_statements import explain_binlog

            return Execution(self._state, explain_binlog(self._state, statement))
        if isinstance(statement, ast.ReplayBinlog):
            from ..evaluation.binlog_statements import replay_binlog

            result, state = replay_binlog(self._state, statement, self._replica.clock())
            return Execution(state, result)
        if isinstance(statement, ast.LoadSchema):
            return load_schema_statement(self._state, statement)
        return None

    def execute_sql(self, text: str) -> list[Result]:
        """Parse and run every statement of ``text``; stop at the first error (raised)."""
        from ..dialect.splitter import StatementText, split_statements

        results = []
        for item in split_statements(text):
            if not isinstance(item, StatementText) or not item.text:
                continue
            results.append(self.execute_text(item.text))
        return results

    def execute_text(self, statement_text: str, parameters: tuple[object, ...] | None = None) -> Result:
        """One statement's text (no terminator): a parse error also lands in the diagnostics.

        ``parameters`` are a prepared statement's values for the ``?`` of its text, each bound
        as itself (a double stays a double, not its text); only a SELECT on the filter tables
        takes a ``?`` (``replfilter serve`` finds them at prepare time)."""
        statement = self.parse_text(statement_text)
        if parameters is not None and isinstance(statement, ast.QueryPerformanceSchema):
            statement = replace(statement, parameters=parameters)
        return self.execute(statement)

    def parse_text(self, statement_text: str) -> ast.Statement:
        """The statement ``statement_text`` is; a parse error lands in the diagnostics."""
        from ..dialect.parser import parse_statement

        try:
            return parse_statement(statement_text, self._state.version)
        except MySQLError as error:
            self.refused(error)
            raise

    def refused(self, error: MySQLError) -> None:
        """A statement refused before it ran (a parse error, a statement the prepared-statement
        protocol refuses): the diagnostics hold the error, as in mysqld."""
        self._diagnostics = (*error.warnings, Condition.from_error(error), *error.following)

    def prepared(self, statement: ast.Statement) -> None:
        """A statement was prepared without running it: the diagnostics hold its parse-time
        warnings (1287 for a legacy spelling), as the server's prepare leaves them."""
        self._diagnostics = deprecation_warnings(statement)

    def update(self, change: Callable[[ReplicaState], ReplicaState]) -> ReplicaState:
        """Apply a state change that is not a statement (counters moved by the applier)."""
        with self._lock:
            old = self._state
            new_state = change(self._state)
            self._commit(new_state)
        self._notify(old, new_state)
        return new_state

    def _commit(self, new_state: ReplicaState) -> None:
        if new_state is self._state:
            return
        for observer in self._replica.observers:
            observer(self._state, new_state)
        self._replica.state = new_state

    def _show_warnings(self, statement: ast.ShowWarnings) -> Result:
        """SHOW WARNINGS reads, and does not reset, the previous statement's diagnostics."""
        if statement.count_only:
            return ResultSet(("@@session.warning_count",), ((len(self._diagnostics),),))
        rows = tuple((c.level, c.code, c.message) for c in self._diagnostics)
        return ResultSet(("Level", "Code", "Message"), rows, integer_columns=None if rows else (False, True, False))


    def _use_database(self, statement: ast.UseDatabase) -> Result:
        self.use_database(statement.database)
        return Ok()

    def use_database(self, database: str) -> None:
        """``USE db`` (and the client's ``use``): any name while no schema is known (replfilter
        cannot tell); once the replica's catalog is loaded, a database it does not have is 1049,
        as on the server, and the default database stays."""
        catalog = self._state.replica_catalog
        if catalog is not None and not catalog.has_database(database):
            error = MySQLError(1049, "42000", f"Unknown database '{database[:192]}'")
            self._diagnostics = (Condition.from_error(error),)
            raise error
        self.default_database = database
        self._diagnostics = ()

    def _select_variables(self, statement: ast.SelectVariables) -> Result:
        """``SELECT @@version``...: uses no table, so like SHOW WARNINGS it keeps the previous
        statement's diagnostics (``@@warning_count`` counts them). Variables replfilter does not
        model are refused with 1235 (the diagnostics then hold that error)."""
        state = self._state
        values: dict[str, object] = {
            **self._replica.server_variables,
            **self.variables.values,
            "version": state.version.value,
            "warning_count": len(self._diagnostics),
            "error_count": sum(1 for c in self._diagnostics if c.level == "Error"),
            "lower_case_table_names": state.collation.lower_case_table_names,
            "server_id": SERVER_ID,
            "gtid_mode": state.gtid_mode,
            "enforce_gtid_consistency": state.enforce_gtid_consistency,
        }
        for written, name in statement.items:
            if name not in values:
                error = MySQLError.of(ER.NOT_SUPPORTED_YET, f"system variable {written} in replfilter")
                self._diagnostics = (Condition.from_error(error),)
                raise error
        rows = (tuple(values[n] for _, n in statement.items),)
        return ResultSet(tuple(w for w, _ in statement.items), rows[: statement.limit])

    def _set_variables(self, statement: ast.SetVariables) -> Result:
        """``SET NAMES``, ``SET [SESSION] var = value``: all or nothing, as the server checks
        every assignment before it makes any."""
        variables = SessionVariables(self.variables.defaults, dict(self.variables.values))
        try:
            for item in statement.items:
                if isinstance(item, ast.SetNames):
                    variables.set_names(item.charset, item.collation)
                else:
                    variables.set(item.name, item.value, is_default=item.is_default)
        except MySQLError as error:
            self._diagnostics = (Condition.from_error(error),)
            raise
        self.variables = variables
        self._diagnostics = ()
        return Ok()


SERVER_ID = 1
"""``@@server_id``: mysqld's default (8.0 and 8.4)."""

__all__ = ["Session", "wall_clock_us", "Ok", "ResultSet"]


def _read_lines(path: str) -> list[bytes]:
    """The event file's lines as bytes, cut as ``replfilter evaluate`` cuts them (only ``\\n``
    ends a line), so a line that is not UTF-8 is that line's warning, not the whole file's refusal."""
    from ..evaluation.event_lines import split_lines

    try:
        with open(check_path(path), "rb") as handle:
            return list(split_lines(handle))
    except FileNotFoundError as exc:
        raise MySQLError.of(ER.FILE_NOT_FOUND, path, exc.errno, exc.strerror) from None
    except OSError as exc:
        raise MySQLError.of(ER.CANT_OPEN_FILE, shown(path), exc.errno or 0, exc.strerror or str(exc)) from None
