"""MIXED binlog format: which statements the source logs as rows.

Under ``binlog_format=MIXED`` the server logs a statement in statement format unless it is
*unsafe* for statement-based replication, and then logs its changes as rows (the MySQL manual,
"Mixed Binary Logging Format" and "Determination of Safe and Unsafe Statements in Binary
Logging"; the server's ``LEX::is_stmt_unsafe`` flags). The cases modelled here, read from the
statement's text:

* a nondeterministic function: UUID(), UUID_SHORT(), USER(), CURRENT_USER[()], SESSION_USER(),
  SYSTEM_USER(), FOUND_ROWS(), ROW_COUNT(), LOAD_FILE(), SLEEP(), SYSDATE(), GET_LOCK(),
  IS_FREE_LOCK(), IS_USED_LOCK(), RELEASE_LOCK(), SOURCE_POS_WAIT(), MASTER_POS_WAIT()
  (RAND() and NOW() are safe: the seed and the timestamp are logged with the statement);
* a system variable (``@@x``), which the replica would read from its own configuration;
* LIMIT without ORDER BY in UPDATE, DELETE or INSERT/REPLACE ... SELECT;
* INSERT IGNORE ... SELECT, INSERT ... SELECT ... ON DUPLICATE KEY UPDATE, REPLACE ... SELECT;
* a log table of the ``mysql`` schema (general_log, slow_log).

Unsafe cases that need the schema (AUTO_INCREMENT tables written by triggers or from several
tables, views, loadable functions) are not modelled: such a statement is taken as safe, and the
note says MIXED was decided from the text.
"""

from __future__ import annotations

import re

from ..events import CommandKind

_QUOTED = re.compile(r"""'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`(?:[^`]|``)*`|/\*.*?\*/|#[^\n]*|--\s[^\n]*""", re.S)
_UNSAFE_FUNCTION = re.compile(
    r"\b(UUID|UUID_SHORT|USER|SESSION_USER|SYSTEM_USER|FOUND_ROWS|ROW_COUNT|LOAD_FILE|SLEEP|SYSDATE|GET_LOCK"
    r"|IS_FREE_LOCK|IS_USED_LOCK|RELEASE_LOCK|SOURCE_POS_WAIT|MASTER_POS_WAIT)\s*\(|\b(CURRENT_USER)\b",
    re.I | re.A,
)
_SYSTEM_VARIABLE = re.compile(r"@@", re.A)
_LIMIT = re.compile(r"\bLIMIT\b", re.I | re.A)
_ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.I | re.A)
_INSERT_IGNORE = re.compile(r"^\s*INSERT\s+(?:LOW_PRIORITY\s+|HIGH_PRIORITY\s+|DELAYED\s+)?IGNORE\b", re.I | re.A)
_ON_DUPLICATE = re.compile(r"\bON\s+DUPLICATE\s+KEY\s+UPDATE\b", re.I | re.A)
_LOG_TABLE = re.compile(r"\bmysql\s*\.\s*(general_log|slow_log)\b", re.I | re.A)

_LIMITED = frozenset({CommandKind.UPDATE, CommandKind.UPDATE_MULTI, CommandKind.DELETE, CommandKind.DELETE_MULTI,
                      CommandKind.INSERT_SELECT, CommandKind.REPLACE_SELECT})


def unsafe_reason(sql: str, command: CommandKind) -> str | None:
    """Why the server would log ``sql`` as rows under MIXED, or None for a safe statement."""
    text = _QUOTED.sub(" ", sql)  # literals and comments cannot make a statement unsafe
    function = _UNSAFE_FUNCTION.search(text)
    if function:
        return f"{(function.group(1) or function.group(2)).upper()}() is nondeterministic"
    if _SYSTEM_VARIABLE.search(text):
        return "it reads a system variable"
    if command in _LIMITED and _LIMIT.search(text) and not _ORDER_BY.search(text):
        return "LIMIT without ORDER BY"
    if command is CommandKind.INSERT_SELECT and _INSERT_IGNORE.search(text):
        return "INSERT IGNORE ... SELECT"
    if command is CommandKind.INSERT_SELECT and _ON_DUPLICATE.search(text):
        return "INSERT ... SELECT ... ON DUPLICATE KEY UPDATE"
    if command is CommandKind.REPLACE_SELECT:
        return "REPLACE ... SELECT"
    if _LOG_TABLE.search(text):
        return "it uses a log table of the mysql schema"
    return None
