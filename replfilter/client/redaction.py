"""Passwords out of echoed statements, as the server keeps them out of its logs.

The server rewrites a statement before the general and slow logs see it (sql/sql_rewrite.cc:
``CHANGE REPLICATION SOURCE TO ... SOURCE_PASSWORD = <secret>``, ``START REPLICA ... PASSWORD =
<secret>``); replfilter's ``--format json`` echoes each statement, so it writes the password the
same way. Only the literal is replaced: the rest of the statement stays as the user wrote it.
"""

from __future__ import annotations

import re

SECRET = "<secret>"

_PASSWORD = re.compile(
    r"""\b((?:SOURCE_|MASTER_)?PASSWORD)(\s*=\s*)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")""",
    re.IGNORECASE | re.DOTALL,
)


def redact_passwords(statement: str) -> str:
    """``statement`` with each ``[SOURCE_|MASTER_]PASSWORD = '...'`` literal written ``<secret>``."""
    if "assword" not in statement and "ASSWORD" not in statement:
        return statement
    return _PASSWORD.sub(lambda m: m.group(1) + m.group(2) + SECRET, statement)
