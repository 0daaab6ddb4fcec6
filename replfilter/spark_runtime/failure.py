"""One line for a Spark failure: what a user needs to read, not a JVM stack trace.

Why: a failure inside a micro-batch reaches the driver as a StreamingQueryException whose first
line is "An error occurred in the user provided function in foreach batch sink ... Traceback"
— the reason (``file:/x.jsonl is not a Parquet file``) sits in the innermost ``Caused by:`` of
the Java trace the message carries. The CLI and the shell's applier (``Last_SQL_Error``) both
report that.
"""

from __future__ import annotations

import re

_CAUSE = re.compile(r"^Caused by: (?:[\w.$]+(?:Exception|Error): )?(.+?)\s*$", re.M)
_HINTS = {
    "is not a Parquet file": " (are the files Parquet? --format names their format)",
}


def failure_line(error: BaseException) -> str:
    """The innermost ``Caused by:`` message of ``error``, else its first line."""
    text = str(error)
    causes = _CAUSE.findall(text)
    if causes:
        line = causes[-1]
    else:
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        line = lines[0] if lines else type(error).__name__
    for marker, hint in _HINTS.items():
        if marker in line:
            line += hint
    return line


__all__ = ["failure_line"]
