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
_PYTHON_PROXY = "An exception was raised by the Python Proxy"
_TRACEBACK = "Traceback (most recent call last):"
_PYTHON_ERROR = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*(?:Error|Exception|Exit|Requested|Interrupt)): (.+?)\s*$")
_PLAIN = {"RuntimeError", "StopRequested"}  # replfilter's own messages: shown without the class
_HINTS = {
    "is not a Parquet file": " (are the files Parquet? --format names their format)",
}


def failure_line(error: BaseException) -> str:
    """The innermost cause of ``error`` in one line.

    A Java ``Caused by:`` chain gives its innermost message; a failure inside a micro-batch
    function carries the Python traceback of the batch (after "Return Message:"), whose last
    exception line is what the function raised. Else the first line of the message."""
    text = str(error)
    causes = [cause for cause in _CAUSE.findall(text) if _PYTHON_PROXY not in cause]
    if causes:
        line = causes[-1]
    elif _TRACEBACK in text:
        line = _python_error(text.rsplit(_TRACEBACK, 1)[1]) or _first_line(text, error)
    else:
        line = _first_line(text, error)
    for marker, hint in _HINTS.items():
        if marker in line:
            line += hint
    return line


def _python_error(traceback: str) -> str | None:
    """The exception line that ends a Python traceback (frames are indented; Spark appends its
    SQLSTATE and the query's description after it)."""
    found = None
    for line in traceback.splitlines():
        if line.startswith((" SQLSTATE", "=== Streaming Query")):
            break
        match = _PYTHON_ERROR.match(line)
        if match:
            name, message = match.groups()
            found = message if name in _PLAIN else f"{name}: {message}"
    return found


def _first_line(text: str, error: BaseException) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


__all__ = ["failure_line"]
