"""The statements of the dialect as frozen dataclasses: what the parser produces and the executor reads.

Nodes hold values after the parser's own processing (unquoted identifiers, unescaped strings,
lower-cased channel names), so two spellings MySQL treats alike give equal nodes. ``to_sql`` in
:mod:`replfilter.dialect.printer` prints any node back to text that parses to an equal node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..core.filters import FilterType, Rule


@dataclass(frozen=True)
class QualifiedName:
    """``db.table`` of a DO/IGNORE_TABLE list, kept in two parts so lower_case_table_names can
    fold the database part alone (the grammar's ``schema`` rule does that in MySQL)."""

    db: str
    table: str

    def __str__(self) -> str:
        return f"{self.db}.{self.table}"


@dataclass(frozen=True)
class FilterDef:
    """``REPLICATE_xxx = (...)``: one type and its list exactly as written (may be empty)."""

    ftype: FilterType
    rules: tuple[Rule | QualifiedName, ...]


@dataclass(frozen=True)
class ChangeReplicationFilter:
    """Definitions in statement order; a repeated type is kept here and resolved (last wins) by
    the executor, so printing the node reproduces the statement."""

    filters: tuple[FilterDef, ...]
    channel: str | None = None

    def effective(self) -> dict[FilterType, tuple[Rule | QualifiedName, ...]]:
        """Type -> list, the last occurrence of a type winning completely (mysql-filter-statements.md, section 2.3)."""
        result: dict[FilterType, tuple[Rule | QualifiedName, ...]] = {}
        for fdef in self.filters:
            result[fdef.ftype] = fdef.rules
        return result


@dataclass(frozen=True)
class OtherValue:
    """A source option value that is neither a string, a number nor NULL: a decimal
    (``SOURCE_HEARTBEAT_PERIOD = 1.5``), ``'u'@'h'`` (PRIVILEGE_CHECKS_USER), a server id list
    (IGNORE_SERVER_IDS), or a bare word (``OFF``, ``STREAM``). ``kind`` names which; ``text`` is
    as written."""

    kind: str  # "decimal" | "user" | "ids" | "word"
    text: str


SourceValue = Union[str, int, None, OtherValue]


@dataclass(frozen=True)
class SourceOption:
    """One ``NAME = value`` of CHANGE REPLICATION SOURCE; ``name`` is the 8.4 spelling
    (``SOURCE_HOST``), ``written`` the spelling used (``MASTER_HOST``) for warnings and printing."""

    name: str
    value: SourceValue
    written: str


@dataclass(frozen=True)
class ChangeReplicationSource:
    options: tuple[SourceOption, ...]
    channel: str | None = None
    legacy: bool = False  # CHANGE MASTER TO


@dataclass(frozen=True)
class ResetReplica:
    all: bool = False
    channel: str | None = None
    legacy: bool = False  # RESET SLAVE


@dataclass(frozen=True)
class ShowReplicaStatus:
    channel: str | None = None
    legacy: bool = False  # SHOW SLAVE STATUS: 8.0 column names


THREAD_TYPES = ("IO_THREAD", "SQL_THREAD")


@dataclass(frozen=True)
class UntilCondition:
    """START REPLICA ... UNTIL: where the applier stops. ``kind`` is what SHOW REPLICA STATUS
    calls it (``Source``, ``Relay``, ``SQL_BEFORE_GTIDS``, ``SQL_AFTER_GTIDS``,
    ``SQL_AFTER_MTS_GAPS``); ``log_file``/``log_pos`` for the first two, ``gtids`` for the GTID
    kinds."""

    kind: str
    log_file: str = ""
    log_pos: int = 0
    gtids: str = ""


@dataclass(frozen=True)
class StartReplica:
    threads: tuple[str, ...] = ()  # empty: both; RELAY_THREAD is normalised to IO_THREAD
    channel: str | None = None
    legacy: bool = False
    until: UntilCondition | None = None
    user: str | None = None
    # The password of START REPLICA ... PASSWORD='p' is kept for nothing: the server uses it for
    # the connection only. It is never shown (repr, printing).
    password: str | None = field(default=None, repr=False)
    default_auth: str | None = None
    plugin_dir: str | None = None


@dataclass(frozen=True)
class StopReplica:
    threads: tuple[str, ...] = ()
    channel: str | None = None
    legacy: bool = False


@dataclass(frozen=True)
class Comparison:
    """``column = 'value'`` (or ``<>``/``!=``) in a WHERE clause."""

    column: str
    operator: str
    value: str | int


@dataclass(frozen=True)
class OrderItem:
    column: str
    descending: bool = False


@dataclass(frozen=True)
class SelectPerformanceSchema:
    """A query on one of the two performance_schema filter tables.

    ``columns`` is ``None`` for ``*``; ``count`` is true for ``COUNT(*)``, ``count_name`` its
    text as typed (the result column's name, as the server names an unaliased item).
    """

    schema: str | None
    table: str
    columns: tuple[str, ...] | None = None
    count: bool = False
    where: tuple[Comparison, ...] = ()
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None
    count_name: str = "COUNT(*)"


@dataclass(frozen=True)
class CountStar:
    """``COUNT(*)`` in the grammar's select list, with its text as typed."""

    name: str


@dataclass(frozen=True)
class QueryPerformanceSchema:
    """A MySQL SELECT on the performance_schema filter tables that the grammar's SELECT does not
    read (other operators, aliases, GROUP BY, functions): answered with sqlglot.

    ``parameters`` are a prepared statement's values for its ``?``, in order (None: the text
    was sent as a query, where a ``?`` is a syntax error); each keeps its type (a DOUBLE stays
    a double), as the server binds them without going through text."""

    sql: str
    parameters: tuple[object, ...] | None = None


@dataclass(frozen=True)
class UseDatabase:
    """``USE db``: the session's default database (EXPLAIN REPLICATION's, when it names none)."""

    database: str


@dataclass(frozen=True)
class ShowReplicas:
    """``SHOW REPLICAS``; ``legacy`` for 8.0's ``SHOW SLAVE HOSTS`` (its column names)."""

    legacy: bool = False


@dataclass(frozen=True)
class SelectVariables:
    """``SELECT @@version, @@session.warning_count``: each item as written (the column name, as
    the server names an unaliased item) and the variable's lower-case name."""

    items: tuple[tuple[str, str], ...]
    limit: int | None = None


@dataclass(frozen=True)
class SetNames:
    """``SET NAMES charset [COLLATE collation]`` (``DEFAULT``: charset None)."""

    charset: str | None
    collation: str | None = None


@dataclass(frozen=True)
class SetSessionVariable:
    """``SET [SESSION] name = value``; ``DEFAULT`` gives the variable back its default."""

    name: str
    value: str | int | None
    is_default: bool = False


@dataclass(frozen=True)
class SetVariables:
    """``SET item, item...``: the session variables clients set on connect (README, "replfilter serve")."""

    items: tuple[SetNames | SetSessionVariable, ...]


@dataclass(frozen=True)
class ShowWarnings:
    count_only: bool = False


@dataclass(frozen=True)
class ExplainReplication:
    """replfilter extension, not MySQL: what each channel would do with ``sql`` under each binlog
    format, and which rule decides. Counters do not move."""

    sql: str
    default_db: str | None = None
    formats: tuple[str, ...] = ("STATEMENT", "ROW")
    channel: str | None = None


@dataclass(frozen=True)
class ReplayEvents:
    """replfilter extension, not MySQL: feed a JSON-lines file of events through the current
    filters (moving the COUNTERs); ``channel`` makes every event arrive on that channel."""

    path: str
    channel: str | None = None


@dataclass(frozen=True)
class ShowLogEvents:
    """``SHOW BINLOG EVENTS`` / ``SHOW RELAYLOG EVENTS`` (``relay``) ``[IN 'file'] [FROM pos]
    [LIMIT [offset,] n] [FOR CHANNEL c]``: the file is a path (replfilter has no logs of its own)."""

    relay: bool
    path: str | None = None
    position: int | None = None
    offset: int | None = None
    limit: int | None = None
    channel: str | None = None


@dataclass(frozen=True)
class ExplainBinlog:
    """replfilter extension, not MySQL: what each channel would do with the transaction holding
    the event at ``position`` of a binary or relay log file. Counters do not move."""

    path: str
    position: int
    channel: str | None = None


@dataclass(frozen=True)
class ReplayBinlog:
    """replfilter extension, not MySQL: REPLAY EVENTS over a binary or relay log file."""

    path: str
    position: int | None = None
    channel: str | None = None


@dataclass(frozen=True)
class LintReplication:
    """replfilter extension, not MySQL: the lint findings for the current filters, as rows;
    ``channel`` limits them to one channel."""

    channel: str | None = None


@dataclass(frozen=True)
class LoadSchema:
    """replfilter extension, not MySQL: a source's schema file (``channel`` None: every
    channel's source), replayed through the filters onto the replica's catalog."""

    path: str
    channel: str | None = None


@dataclass(frozen=True)
class ShowCatalog:
    """SHOW DATABASES / SHOW [FULL] TABLES / SHOW TRIGGERS, answered from the replica's catalog.
    ``what`` is ``DATABASES``, ``TABLES`` or ``TRIGGERS``."""

    what: str
    database: str | None = None
    like: str | None = None
    full: bool = False


Statement = Union[
    ChangeReplicationFilter,
    ChangeReplicationSource,
    ResetReplica,
    ShowReplicaStatus,
    StartReplica,
    StopReplica,
    SelectPerformanceSchema,
    SelectVariables,
    SetVariables,
    ShowReplicas,
    UseDatabase,
    QueryPerformanceSchema,
    ShowWarnings,
    ExplainReplication,
    ReplayEvents,
    ReplayBinlog,
    ExplainBinlog,
    ShowLogEvents,
    LintReplication,
    LoadSchema,
    ShowCatalog,
]
