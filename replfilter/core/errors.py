"""MySQL errors and notes, numbered and worded as MySQL 8.4 sends them to clients.

Every refusal the interpreter produces is a :class:`MySQLError` built from this catalogue, so the
number, SQLSTATE and text a user sees are the server's, not ours. Texts are ``share/messages_to_clients.txt``
of 8.4 (see ``mysql-filter-statements.md`` section 4.1), including the server's own typo in 3083.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class ErrorSpec:
    code: int
    sqlstate: str
    template: str


class ER(Enum):
    """The catalogue: symbol -> (number, SQLSTATE, printf-style 8.4 text).

    Precisions such as ``%-.128s`` are MySQL's own and cut long arguments the way the server does
    (Python's ``%`` honours them too)."""

    PARSE_ERROR = ErrorSpec(
        1064,
        "42000",
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        "server version for the right syntax to use near '%s' at line %d",
    )
    TOO_LONG_IDENT = ErrorSpec(1059, "42000", "Identifier name '%-.100s' is too long")
    WRONG_DB_NAME = ErrorSpec(1102, "42000", "Incorrect database name '%-.100s'")
    WRONG_VALUE = ErrorSpec(1525, "HY000", "Incorrect %-.32s value: '%-.128s'")
    INVALID_CHARACTER_STRING = ErrorSpec(1300, "HY000", "Invalid %s character string: '%.64s'")
    INVALID_RPL_WILD_TABLE_FILTER_PATTERN = ErrorSpec(
        3067,
        "HY000",
        "Supplied filter list contains a value which is not in the required format "
        "'db_pattern.table_pattern'",
    )
    REPLICA_CONFIGURATION = ErrorSpec(
        1794,
        "HY000",
        "Replica is not configured or failed to initialize properly. You must at least set "
        "--server-id to enable either a source or a replica. Additional error messages can be "
        "found in the MySQL error log.",
    )
    BAD_REPLICA = ErrorSpec(
        1200,
        "HY000",
        "The server is not configured as replica; fix in config file or with CHANGE REPLICATION "
        "SOURCE TO",
    )
    BAD_REPLICA_UNTIL_COND = ErrorSpec(
        1277, "HY000", "Incorrect parameter or combination of parameters for START REPLICA UNTIL"
    )
    MISSING_SKIP_REPLICA = ErrorSpec(
        1278, "HY000",
        "It is recommended to use --skip-replica-start when doing step-by-step replication with START REPLICA "
        "UNTIL; otherwise, you will get problems if you get an unexpected replica's mysqld restart",
    )
    UNTIL_COND_IGNORED = ErrorSpec(1279, "HY000", "SQL thread is not to be started so UNTIL options are ignored")
    MALFORMED_GTID_SET_SPECIFICATION = ErrorSpec(1772, "HY000", "Malformed GTID set specification '%s'.")
    SQLTHREAD_WITH_SECURE_REPLICA = ErrorSpec(
        1687, "HY000", "Setting authentication options is not possible when only the Replica SQL Thread is being started."
    )
    BAD_REPLICA_AUTO_POSITION = ErrorSpec(
        1776,
        "HY000",
        "Parameters SOURCE_LOG_FILE, SOURCE_LOG_POS, RELAY_LOG_FILE and RELAY_LOG_POS cannot be set when "
        "SOURCE_AUTO_POSITION is active.",
    )
    AUTO_POSITION_REQUIRES_GTID_MODE_NOT_OFF = ErrorSpec(
        1777, "HY000",
        "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1 cannot be executed because @@GLOBAL.GTID_MODE = OFF.",
    )
    REPLICA_CHANNEL_DOES_NOT_EXIST = ErrorSpec(3074, "HY000", "Replica channel '%s' does not exist.")
    REPLICA_CHANNEL_NAME_INVALID_OR_TOO_LONG = ErrorSpec(
        3076, "HY000", "Couldn't create channel: Channel name is either invalid or too long."
    )
    REPLICA_MULTIPLE_CHANNELS_CMD = ErrorSpec(
        3079,
        "HY000",
        "Multiple channels exist on the replica. Please provide channel name as an argument.",
    )
    REPLICA_MAX_CHANNELS_EXCEEDED = ErrorSpec(
        3080, "HY000", "Maximum number of replication channels allowed exceeded."
    )
    REPLICA_CHANNEL_MUST_STOP = ErrorSpec(
        3081,
        "HY000",
        "This operation cannot be performed with running replication threads; run STOP REPLICA "
        "FOR CHANNEL '%s' first",
    )
    REPLICA_CHANNEL_WAS_RUNNING = ErrorSpec(
        3083, "HY000", "Replication thread(s) for channel '%s' are already runnning."
    )
    REPLICA_CHANNEL_WAS_NOT_RUNNING = ErrorSpec(
        3084, "HY000", "Replication thread(s) for channel '%s' are already stopped."
    )
    REPLICA_CHANNEL_SQL_THREAD_MUST_STOP = ErrorSpec(
        3085,
        "HY000",
        "This operation cannot be performed with a running replica sql thread; run STOP REPLICA "
        "SQL_THREAD FOR CHANNEL '%s' first.",
    )
    REPLICA_CHANNEL_IO_THREAD_MUST_STOP = ErrorSpec(
        3086,
        "HY000",
        "This operation cannot be performed with a running replica io thread; run STOP REPLICA "
        "IO_THREAD FOR CHANNEL '%s' first.",
    )
    INSECURE_PLAIN_TEXT = ErrorSpec(
        1759, "HY000", "Sending passwords in plain text without SSL/TLS is extremely insecure."
    )
    INSECURE_CHANGE_SOURCE = ErrorSpec(
        1760,
        "HY000",
        "Storing MySQL user name or password information in the connection metadata repository "
        "is not secure and is therefore not recommended. Please consider using the USER and "
        "PASSWORD connection options for START REPLICA; see the 'START REPLICA Syntax' in the "
        "MySQL Manual for more information.",
    )
    REPLICA_CHANNEL_OPERATION_NOT_ALLOWED = ErrorSpec(
        3139, "HY000", "%-.192s cannot be performed on channel '%-.192s'."
    )
    WARN_DEPRECATED_SYNTAX = ErrorSpec(
        1287,
        "HY000",
        "'%s' is deprecated and will be removed in a future release. Please use %s instead",
    )
    NO_DB_ERROR = ErrorSpec(1046, "3D000", "No database selected")
    # the protocol's own errors (replfilter serve), in 8.4's words
    CON_COUNT_ERROR = ErrorSpec(1040, "08004", "Too many connections")
    HANDSHAKE_ERROR = ErrorSpec(1043, "08S01", "Bad handshake")
    ACCESS_DENIED_ERROR = ErrorSpec(1045, "28000", "Access denied for user '%-.48s'@'%-.64s' (using password: %s)")
    UNKNOWN_COM_ERROR = ErrorSpec(1047, "08S01", "Unknown command")
    SERVER_SHUTDOWN = ErrorSpec(1053, "08S01", "Server shutdown in progress")
    NET_PACKET_TOO_LARGE = ErrorSpec(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes")
    NET_PACKETS_OUT_OF_ORDER = ErrorSpec(1156, "08S01", "Got packets out of order")
    UNKNOWN_STMT_HANDLER = ErrorSpec(1243, "HY000", "Unknown prepared statement handler (%s) given to %s")
    MALFORMED_PACKET = ErrorSpec(1835, "HY000", "Malformed communication packet.")
    SECURE_TRANSPORT_REQUIRED = ErrorSpec(3159, "HY000", "Connections using insecure transport are prohibited while --require_secure_transport=ON.")
    CLIENT_INTERACTION_TIMEOUT = ErrorSpec(4031, "HY000", "The client was disconnected by the server because of inactivity. See wait_timeout and interactive_timeout for configuring this behavior.")
    NO_SUCH_TABLE = ErrorSpec(1146, "42S02", "Table '%s.%s' doesn't exist")
    NO_REFERENCED_ROW_2 = ErrorSpec(1452, "23000", "Cannot add or update a child row: a foreign key constraint fails (%.192s)")
    FK_CANNOT_OPEN_PARENT = ErrorSpec(1824, "HY000", "Failed to open the referenced table '%s'")
    BAD_FIELD_ERROR = ErrorSpec(1054, "42S22", "Unknown column '%s' in '%s'")
    WRONG_FIELD_WITH_GROUP = ErrorSpec(  # the number of ER_WRONG_FIELD_WITH_GROUP, the text of its _V2
        1055, "42000", "Expression #%u of %s is not in GROUP BY clause and contains nonaggregated column '%s' "
        "which is not functionally dependent on columns in GROUP BY clause; this is incompatible with "
        "sql_mode=only_full_group_by")
    MIX_OF_GROUP_FUNC_AND_FIELDS = ErrorSpec(  # the number of ER_MIX_OF_GROUP_FUNC_AND_FIELDS, the text of its _V2
        1140, "42000", "In aggregated query without GROUP BY, expression #%u of %s contains nonaggregated column "
        "'%s'; this is incompatible with sql_mode=only_full_group_by")
    WRONG_USAGE = ErrorSpec(1221, "HY000", "Incorrect usage of %s and %s")
    FIELD_IN_ORDER_NOT_SELECT = ErrorSpec(
        3065, "HY000", "Expression #%u of ORDER BY clause is not in SELECT list, references column '%s' which is not "
        "in SELECT list; this is incompatible with %s")
    AGGREGATE_IN_ORDER_NOT_SELECT = ErrorSpec(
        3066, "HY000", "Expression #%u of ORDER BY clause is not in SELECT list, contains aggregate function; this is "
        "incompatible with %s")
    NON_UNIQ_ERROR = ErrorSpec(1052, "23000", "Column '%s' in %s is ambiguous")
    EMPTY_QUERY = ErrorSpec(1065, "42000", "Query was empty")
    UNKNOWN_TABLE = ErrorSpec(1109, "42S02", "Unknown table '%s' in %s")
    NOT_SUPPORTED_YET = ErrorSpec(
        1235, "42000", "This version of MySQL doesn't yet support '%s'"
    )
    # Number and symbol as in 8.4's client libraries; the text is 8.0's with "master" become
    # "source", as the other renamed texts did (not checked against an 8.4 server).
    SOURCE_DELAY_VALUE_OUT_OF_RANGE = ErrorSpec(
        1729, "HY000", "The requested value %s for the source delay exceeds the maximum %d"
    )
    WRONG_ARGUMENTS = ErrorSpec(1210, "HY000", "Incorrect arguments to %s")
    TRUNCATED_WRONG_VALUE = ErrorSpec(1292, "22007", "Truncated incorrect %-.32s value: '%-.128s'")
    UNSUPPORTED_PS = ErrorSpec(1295, "HY000", "This command is not supported in the prepared statement protocol yet")
    ILLEGAL_VALUE_FOR_TYPE = ErrorSpec(1367, "22007", "Illegal %s '%s' value found during parsing")
    DIVISION_BY_ZERO = ErrorSpec(1365, "22012", "Division by 0")
    DATA_OUT_OF_RANGE = ErrorSpec(1690, "22003", "%s value is out of range in '%s'")
    FILE_NOT_FOUND = ErrorSpec(29, "HY000", "File '%s' not found (OS errno %d - %s)")
    REPLICA_FATAL_ERROR = ErrorSpec(1593, "HY000", "Fatal error: %s")
    CANT_OPEN_FILE = ErrorSpec(1016, "HY000", "Can't open file: '%s' (errno: %d - %s)")
    ERROR_WHEN_EXECUTING_COMMAND = ErrorSpec(1220, "HY000", "Error when executing command %s: %s")

    @property
    def code(self) -> int:
        return self.value.code


class MySQLError(Exception):
    """A statement's refusal: the client sees ``ERROR code (sqlstate): message``."""

    def __init__(self, code: int, sqlstate: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.sqlstate = sqlstate
        self.message = message
        self.warnings: tuple[Condition, ...] = ()
        """Conditions the parser had raised before this error (1287 for legacy spellings): they
        stay in the diagnostics area in front of it, as in MySQL."""
        self.following: tuple[Condition, ...] = ()
        """Errors the server raised after this one in the same statement: the first error stays
        the statement's (``THD::raise_condition`` sets the status only once), the later ones are
        only listed by SHOW WARNINGS, after it."""

    @classmethod
    def of(cls, spec: ER, *args: object) -> "MySQLError":
        return cls(spec.value.code, spec.value.sqlstate, render(spec, *args))

    def __repr__(self) -> str:
        return f"MySQLError({self.code}, {self.sqlstate!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MySQLError) and (self.code, self.sqlstate, self.message) == (
            other.code,
            other.sqlstate,
            other.message,
        )

    def __hash__(self) -> int:
        return hash((self.code, self.message))


def render(spec: ER, *args: object) -> str:
    return spec.value.template % args if args else spec.value.template


def error_line(spec: ER, *args: object) -> str:
    """The error as the mysql client prints it: ``ERROR 1146 (42S02): Table 't.x' doesn't exist``."""
    return f"ERROR {spec.value.code} ({spec.value.sqlstate}): {render(spec, *args)}"


@dataclass(frozen=True)
class Condition:
    """One row of the diagnostics area, as SHOW WARNINGS lists it: Level, Code, Message."""

    level: str  # "Note" | "Warning" | "Error"
    code: int
    message: str

    @classmethod
    def note(cls, spec: ER, *args: object) -> "Condition":
        return cls("Note", spec.value.code, render(spec, *args))

    @classmethod
    def warning(cls, spec: ER, *args: object) -> "Condition":
        return cls("Warning", spec.value.code, render(spec, *args))

    @classmethod
    def from_error(cls, error: MySQLError) -> "Condition":
        return cls("Error", error.code, error.message)


def deprecated_syntax(old: str, new: str) -> Condition:
    """Warning 1287 for a legacy spelling: the parser's (before a syntax error) and the executor's."""
    return Condition.warning(ER.WARN_DEPRECATED_SYNTAX, old, new)
