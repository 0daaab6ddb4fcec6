"""The mark under a syntax error: the statement line, and a caret where the error starts.

MySQL's 1064 text says ``near '<the next 80 characters>' at line N``; that is enough to find the
position again in the statement text (which the parser sees stripped, as the splitter hands it
over). The mark is printed under the error line, which itself stays byte-for-byte mysql's:

    ERROR 1064 (42000): You have an error in your SQL syntax; ... near 'FILTR ...' at line 1
    CHANGE REPLICATION FILTR REPLICATE_DO_DB = (db1)
                       ^
"""

from __future__ import annotations

import re

from prompt_toolkit.utils import get_cwidth

from ..client.formatting import undecodable_as_hex
from ..core.errors import MySQLError

PARSE_ERROR = 1064
NEAR_LENGTH = 80
_NEAR = re.compile(r"near '(.*)' at line (\d+)\Z", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")



def error_position(text: str, error: MySQLError) -> int | None:
    """Offset in ``text`` where a 1064 error starts, or None when it cannot be told."""
    if error.code != PARSE_ERROR:
        return None
    match = _NEAR.search(error.message)
    if match is None:
        return None
    near, line = match.group(1), int(match.group(2))
    text = text.strip()
    if len(near) < NEAR_LENGTH:
        # The quoted text ran to the end of the statement: the position is exact.
        return len(text) - len(near) if text.endswith(near) else None
    position = text.find(near)
    while position >= 0:
        if text.count("\n", 0, position) + 1 == line:
            return position
        position = text.find(near, position + 1)
    return None


def visible(text: str) -> str:
    """The text with tabs as spaces and control characters (which would move the cursor or
    change the terminal) as U+FFFD, one cell each, so the caret still lines up."""
    return _CONTROL.sub("\ufffd", undecodable_as_hex(text).replace("\t", " "))


def syntax_error_mark(text: str, error: MySQLError, width: int = 120) -> str:
    """Two lines (statement line, caret line) for a 1064 error, or "" when there is nothing to mark."""
    position = error_position(text, error)
    if position is None:
        return ""
    text = text.strip()
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    column = position - line_start
    prefix, suffix = "", ""
    start = 0
    if get_cwidth(visible(line)) > width:
        start = max(0, column - width // 2)
        if start:
            prefix = "..."
        end = start + width
        if end < len(line):
            suffix = "..."
        line = line[start:end]
        column -= start
    shown = prefix + visible(line) + suffix
    caret_at = len(prefix) + get_cwidth(visible(line[:column]))
    return shown + "\n" + " " * caret_at + "^\n"


def printable(text: str) -> str:
    """Text for the terminal: line breaks and tabs kept, other control characters shown as U+FFFD
    (binary garbage typed or pasted must not reach the terminal as escape sequences)."""
    return _CONTROL.sub("\ufffd", undecodable_as_hex(text))
