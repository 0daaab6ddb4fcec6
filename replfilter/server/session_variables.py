"""The session system variables a client sets and reads on connect, with MySQL 8.4's defaults.

Drivers and clients send ``SET NAMES utf8mb4``, ``SET autocommit = 0``, ``SELECT
@@version_comment LIMIT 1``, ``SELECT @@session.transaction_isolation``... before the first
statement of their user. replfilter simulates no data and no transactions, so these values change
nothing it decides; they are kept per connection so that what a client sets it reads back, and
refused as the server refuses them: a name the server does not have is 1193, a read-only one 1238,
a value the variable cannot take 1231, an unknown character set 1115 (``sql/sys_vars.cc``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..core.errors import MySQLError
from ..core.results import Value

SESSION_DEFAULTS: Mapping[str, Value] = {
    "autocommit": 1,
    "sql_mode": "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
                "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
    "character_set_client": "utf8mb4",
    "character_set_connection": "utf8mb4",
    "character_set_results": "utf8mb4",
    "collation_connection": "utf8mb4_0900_ai_ci",
    "time_zone": "SYSTEM",
    "transaction_isolation": "REPEATABLE-READ",
    "transaction_read_only": 0,
    "wait_timeout": 28800,
    "interactive_timeout": 28800,
    "net_write_timeout": 60,
    "net_read_timeout": 30,
    "sql_select_limit": 18446744073709551615,
    "auto_increment_increment": 1,
    "sql_auto_is_null": 0,
    "sql_safe_updates": 0,
}
"""8.4's defaults of the session variables clients set or read on connect."""

GLOBAL_READ_ONLY: Mapping[str, Value] = {
    "version_comment": "replfilter: a simulated MySQL replica",
    "version_compile_os": "Linux",
    "version_compile_machine": "x86_64",
    "license": "GPL",
    "max_connections": 151,
    "max_allowed_packet": 67108864,
    "port": 3306,
    "system_time_zone": "UTC",
    "init_connect": "",
    "performance_schema": 1,
    "have_ssl": "DISABLED",
    "require_secure_transport": 0,
    "character_set_server": "utf8mb4",
    "collation_server": "utf8mb4_0900_ai_ci",
    "lower_case_file_system": 0,
}
"""Server variables a client may read (``SELECT @@max_allowed_packet``) but not set per session;
``replfilter serve`` replaces the ones its options set (port, max_connections...)."""

CHARACTER_SETS = {"utf8mb4": "utf8mb4_0900_ai_ci", "utf8mb3": "utf8mb3_general_ci", "utf8": "utf8mb3_general_ci",
                  "latin1": "latin1_swedish_ci", "ascii": "ascii_general_ci", "binary": "binary"}
"""The character sets ``SET NAMES`` takes here, each with its default collation."""

_BOOLEAN_VARIABLES = frozenset({"autocommit", "transaction_read_only", "sql_auto_is_null", "sql_safe_updates"})
_NUMBER_VARIABLES = frozenset({"wait_timeout", "interactive_timeout", "net_write_timeout", "net_read_timeout",
                               "sql_select_limit", "auto_increment_increment"})
_BOOLEAN_WORDS = {"ON": 1, "TRUE": 1, "OFF": 0, "FALSE": 0}


@dataclass
class SessionVariables:
    """One connection's values, starting from the server's global ones (``defaults``)."""

    defaults: Mapping[str, Value] = field(default_factory=lambda: SESSION_DEFAULTS)
    values: dict[str, Value] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.values = {**self.defaults, **self.values}

    def set(self, name: str, value: Value, *, is_default: bool = False) -> None:
        """``SET [SESSION] name = value``; ``DEFAULT`` gives back 8.4's default."""
        key = name.lower()
        if key not in SESSION_DEFAULTS:
            if key in GLOBAL_READ_ONLY or key in {"version", "server_id", "lower_case_table_names",
                                                  "warning_count", "error_count"}:
                raise MySQLError(1238, "HY000", f"Variable '{key}' is a read only variable")
            raise MySQLError(1193, "HY000", f"Unknown system variable '{name[:64]}'")
        if is_default:
            self.values[key] = self.defaults[key]
        elif key in _BOOLEAN_VARIABLES:
            self.values[key] = _boolean(key, value)
        elif key in _NUMBER_VARIABLES:
            if not isinstance(value, int):
                raise MySQLError(1232, "42000", f"Incorrect argument type to variable '{key}'")
            self.values[key] = value
        elif key.startswith("character_set_"):
            self.values[key] = _character_set(value)
        else:
            self.values[key] = value if isinstance(value, int) else str(value)

    def set_names(self, charset: str | None, collation: str | None) -> None:
        """``SET NAMES cs [COLLATE co]``: the client, connection and results character sets."""
        name = _character_set(charset if charset is not None else "utf8mb4")
        for key in ("character_set_client", "character_set_connection", "character_set_results"):
            self.values[key] = name
        self.values["collation_connection"] = collation.lower() if collation else CHARACTER_SETS[name]


def _boolean(name: str, value: Value) -> int:
    if isinstance(value, int) and value in (0, 1):
        return value
    if isinstance(value, str) and value.upper() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[value.upper()]
    raise MySQLError(1231, "42000", f"Variable '{name}' can't be set to the value of '{str(value)[:200]}'")


def _character_set(value: Value) -> str:
    name = str(value).lower()
    if name not in CHARACTER_SETS:
        raise MySQLError(1115, "42000", f"Unknown character set: '{str(value)[:64]}'")
    return "utf8mb3" if name == "utf8" else name
