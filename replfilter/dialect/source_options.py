"""The options of CHANGE REPLICATION SOURCE TO that the simulated replica keeps, and their spellings.

A replica here has no network connection; it keeps what SHOW REPLICA STATUS shows and what makes a
channel *configured* (a non-empty SOURCE_HOST). The 8.0 ``MASTER_*`` spellings map to the 8.4
``SOURCE_*`` names and earn warning 1287, as in 8.0. Options MySQL has but this replica does not
simulate (SSL, compression, ...) are refused with 1235 rather than silently ignored.
"""

from __future__ import annotations

from . import ast
from .grammar import ascii_upper
from ..core.errors import ER, MySQLError

# 8.4 name -> value kind ("string" or "number").
SUPPORTED_OPTIONS: dict[str, str] = {
    "SOURCE_HOST": "string",
    "SOURCE_USER": "string",
    "SOURCE_PASSWORD": "string",
    "SOURCE_PORT": "number",
    "SOURCE_CONNECT_RETRY": "number",
    "SOURCE_RETRY_COUNT": "number",
    "SOURCE_DELAY": "number",
    "SOURCE_LOG_FILE": "string",
    "SOURCE_LOG_POS": "number",
    "RELAY_LOG_FILE": "string",
    "RELAY_LOG_POS": "number",
    "SOURCE_AUTO_POSITION": "number",
    "SOURCE_BIND": "string",
}

# Options of MySQL 8.4's CHANGE REPLICATION SOURCE TO that are valid SQL but not simulated, with
# the value kinds 8.4's grammar (sql_yacc.yy, source_def) takes for each: parsed, then refused
# with 1235 by the executor. A value of another kind is a syntax error, as there.
_TEXT = frozenset({"string"})
_NUMBER = frozenset({"number"})
UNSIMULATED_KINDS: dict[str, frozenset[str]] = {
    "PRIVILEGE_CHECKS_USER": frozenset({"string", "user", "word", "null"}),
    "REQUIRE_ROW_FORMAT": _NUMBER,
    "REQUIRE_TABLE_PRIMARY_KEY_CHECK": frozenset({"word:STREAM", "word:ON", "word:OFF", "word:GENERATE"}),
    "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS": frozenset({"string", "word:OFF", "word:LOCAL"}),
    "SOURCE_HEARTBEAT_PERIOD": frozenset({"number", "decimal"}),
    "SOURCE_CONNECTION_AUTO_FAILOVER": _NUMBER,
    "SOURCE_COMPRESSION_ALGORITHMS": _TEXT,
    "SOURCE_ZSTD_COMPRESSION_LEVEL": _NUMBER,
    "SOURCE_SSL": _NUMBER,
    "SOURCE_SSL_CA": _TEXT,
    "SOURCE_SSL_CAPATH": _TEXT,
    "SOURCE_SSL_CERT": _TEXT,
    "SOURCE_SSL_CRL": _TEXT,
    "SOURCE_SSL_CRLPATH": _TEXT,
    "SOURCE_SSL_KEY": _TEXT,
    "SOURCE_SSL_CIPHER": _TEXT,
    "SOURCE_SSL_VERIFY_SERVER_CERT": _NUMBER,
    "SOURCE_TLS_VERSION": _TEXT,
    "SOURCE_TLS_CIPHERSUITES": frozenset({"string", "null"}),
    "SOURCE_PUBLIC_KEY_PATH": _TEXT,
    "GET_SOURCE_PUBLIC_KEY": _NUMBER,
    "NETWORK_NAMESPACE": _TEXT,
    "IGNORE_SERVER_IDS": frozenset({"ids"}),
    "GTID_ONLY": _NUMBER,
}
UNSIMULATED_OPTIONS = frozenset(UNSIMULATED_KINDS)
ZERO_OR_ONE_OPTIONS = frozenset({"SOURCE_CONNECTION_AUTO_FAILOVER", "GTID_ONLY"})
"""``real_ulong_num`` options whose other values are a syntax error in the grammar itself."""


def value_kind(value: ast.SourceValue) -> str:
    """``string``, ``number``, ``null``, or an :class:`ast.OtherValue`'s kind (a bare word:
    ``word:OFF``, its upper-case spelling after the colon)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "number"
    if value.kind == "word":
        return "word:" + ascii_upper(value.text)
    return value.kind


# Options the receiver (IO) thread uses: changing them needs that thread stopped; the others
# need the applier (SQL) thread stopped.
RECEIVER_OPTIONS = frozenset(
    {"SOURCE_HOST", "SOURCE_USER", "SOURCE_PASSWORD", "SOURCE_PORT", "SOURCE_CONNECT_RETRY",
     "SOURCE_RETRY_COUNT", "SOURCE_LOG_FILE", "SOURCE_LOG_POS", "SOURCE_AUTO_POSITION", "SOURCE_BIND"}
)


def canonical_name(written: str) -> str:
    """``master_host`` -> ``SOURCE_HOST``; other names upper-cased."""
    name = ascii_upper(written)
    if name.startswith("MASTER_"):
        return "SOURCE_" + name[len("MASTER_"):]
    if name == "GET_MASTER_PUBLIC_KEY":
        return "GET_SOURCE_PUBLIC_KEY"
    return name


def is_known_option(written: str) -> bool:
    name = canonical_name(written)
    return name in SUPPORTED_OPTIONS or name in UNSIMULATED_OPTIONS


ULONG_MAX = 2**64 - 1
MAX_SOURCE_DELAY = 2**31 - 1
"""MASTER_DELAY_MAX: the largest SOURCE_DELAY (seconds) the grammar accepts."""
UINT_OPTIONS = frozenset({"SOURCE_PORT", "SOURCE_CONNECT_RETRY"})
"""Options the server keeps in a 32-bit ``uint`` (LEX_MASTER_INFO::port, ::connect_retry)."""


def resolve_source_option(written: str, value: ast.SourceValue) -> ast.SourceOption | None:
    """The option node, or None when MySQL's grammar would not accept this name/value pair
    (unknown name, or a number where a string belongs and the reverse): a syntax error. A
    SOURCE_DELAY above 2**31-1 fails with 1729 here, as it does while MySQL parses, before any
    other check. The node keeps the number as written; :func:`stored_value` is what is kept."""
    name = canonical_name(written)
    if name in UNSIMULATED_KINDS:
        kinds = UNSIMULATED_KINDS[name]
        kind_of = value_kind(value)
        if kind_of not in kinds and not (kind_of.startswith("word:") and "word" in kinds):
            return None
        if name in ZERO_OR_ONE_OPTIONS and value not in (0, 1):
            return None  # the grammar's action: syntax_error_at the value
        return ast.SourceOption(name, value, ascii_upper(written))
    if isinstance(value, ast.OtherValue):
        return None
    kind = SUPPORTED_OPTIONS.get(name)
    if kind is None:
        return None
    if kind == "string" and not isinstance(value, str):
        return None
    if kind == "number":
        if not isinstance(value, int):
            return None
        if name == "SOURCE_DELAY" and value > MAX_SOURCE_DELAY:
            raise MySQLError.of(ER.SOURCE_DELAY_VALUE_OUT_OF_RANGE, str(value), MAX_SOURCE_DELAY)
    return ast.SourceOption(name, value, ascii_upper(written))


def stored_value(name: str, value: ast.SourceValue) -> ast.SourceValue:
    """A number as the server keeps it: ``ulong_num`` saturates at 2**64-1 (``my_strtoll10``),
    SOURCE_PORT and SOURCE_CONNECT_RETRY wrap at 2**32 (the grammar checks no range), and
    SOURCE_AUTO_POSITION is on for any non-zero value."""
    if not isinstance(value, int):
        return value
    value = min(value, ULONG_MAX)
    if name in UINT_OPTIONS:
        return value % 2**32
    if name == "SOURCE_AUTO_POSITION":
        return 1 if value else 0
    return value
