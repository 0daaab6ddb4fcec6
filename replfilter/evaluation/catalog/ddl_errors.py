"""The errors the server raises for DDL it refuses: number, SQLSTATE and 8.4 text, and the two
exceptions a statement's reading stops with (refused by the server; not SQL, MySQL's 1064).

A refused statement changes nothing; the caller decides whether its error is a warning (loading
a schema file) or the applier stopping (replaying events).
"""

from __future__ import annotations

from ...core.errors import MySQLError
from ...replica.catalog import RoutineKind


def _error(code: int, sqlstate: str, message: str) -> MySQLError:
    return MySQLError(code, sqlstate, message)


def no_database_selected() -> MySQLError:
    return _error(1046, "3D000", "No database selected")


def unknown_database(db: str) -> MySQLError:
    return _error(1049, "42000", f"Unknown database '{db[:192]}'")


def database_exists(db: str) -> MySQLError:
    return _error(1007, "HY000", f"Can't create database '{db[:192]}'; database exists")


def database_missing(db: str) -> MySQLError:
    return _error(1008, "HY000", f"Can't drop database '{db[:192]}'; database doesn't exist")


def table_exists(name: str) -> MySQLError:
    return _error(1050, "42S01", f"Table '{name[:192]}' already exists")


def unknown_table(names: str) -> MySQLError:
    return _error(1051, "42S02", f"Unknown table '{names[:129]}'")


def no_such_table(db: str, name: str) -> MySQLError:
    return _error(1146, "42S02", f"Table '{db}.{name}' doesn't exist")


def duplicate_column(name: str) -> MySQLError:
    return _error(1060, "42S21", f"Duplicate column name '{name[:192]}'")


def unknown_column(name: str, table: str) -> MySQLError:
    return _error(1054, "42S22", f"Unknown column '{name}' in '{table}'")


def too_many_columns() -> MySQLError:
    return _error(1117, "HY000", "Too many columns")


def cant_drop_column(name: str) -> MySQLError:
    return _error(1091, "42000", f"Can't DROP '{name[:192]}'; check that column/key exists")


def wrong_object(db: str, name: str, what: str) -> MySQLError:
    return _error(1347, "HY000", f"'{db[:192]}.{name[:192]}' is not {what}")


def trigger_exists() -> MySQLError:
    return _error(1359, "HY000", "Trigger already exists")


def trigger_missing() -> MySQLError:
    return _error(1360, "HY000", "Trigger does not exist")


def routine_exists(kind: str, name: str) -> MySQLError:
    if kind == RoutineKind.EVENT:
        return _error(1537, "HY000", f"Event '{name[:192]}' already exists")
    return _error(1304, "42000", f"{kind} {name} already exists")


def routine_missing(kind: str, db: str, name: str) -> MySQLError:
    if kind == RoutineKind.EVENT:
        return _error(1539, "HY000", f"Unknown event '{name[:192]}'")
    return _error(1305, "42000", f"{kind} {db}.{name} does not exist")


def syntax_error(near: str, line: int = 1) -> MySQLError:
    return _error(
        1064, "42000",
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use near '{near[:80]}' at line {line}",
    )


class Refused(Exception):
    """The server refuses the statement with ``error``; nothing changes."""

    def __init__(self, error: MySQLError):
        super().__init__(error.message)
        self.error = error


class SqlSyntaxError(Exception):
    """The text is not a statement the server reads (its 1064, with the text from where the
    reading stopped as the error's ``near``)."""
