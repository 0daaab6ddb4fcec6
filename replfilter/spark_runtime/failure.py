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


_LOST_JVM = ("Error while sending or receiving", "Answer from Java side is empty", "Connection refused",
             "Connection reset")
"""py4j's words for a JVM that stopped answering."""


def jvm_exit_status(error: BaseException | None = None) -> int | None:
    """The exit status of the driver's JVM when it has ended (killed: minus the signal, as
    ``subprocess`` reports it), else None. The JVM is this process's child (pyspark's launcher
    starts it with ``Popen``), so its end is known for certain, not guessed from an error text.
    When ``error`` says the JVM stopped answering, its end is waited for a few seconds: the
    socket closes while the killed process is still being torn down."""
    import subprocess
    import sys

    context = getattr(sys.modules.get("pyspark"), "SparkContext", None)
    process = getattr(getattr(context, "_gateway", None), "proc", None)
    if process is None:
        return None
    if error is not None and any(words in str(error) for words in _LOST_JVM):
        try:
            return process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return None
    return process.poll()


def jvm_died_line(status: int, resume: str) -> str:
    """The one line for a JVM that ended under the driver, and how to go on: ``resume``."""
    how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
    memory = ", as the system's out-of-memory killer does: see dmesg" if status == -9 else ""
    return f"the Spark JVM died ({how}{memory}). {resume}"


def _not_py4j(record) -> bool:  # noqa: ANN001 - a logging.LogRecord
    """Drops py4j's records: it logs its connection errors on the root logger with a traceback
    (``logging.exception("Exception while sending command.")``), which a user must not see."""
    return "py4j" not in record.pathname and not record.name.startswith("py4j")


def quiet_py4j_logs() -> None:
    """No py4j tracebacks on standard error: a failure is reported in one line instead
    (:func:`failure_line`, :func:`jvm_died_line`). (logging is imported here: the shell
    imports this module at start-up, and logging costs 4 ms there.)"""
    import logging

    logging.getLogger("py4j").setLevel(logging.CRITICAL + 1)
    root = logging.getLogger()
    if _not_py4j not in root.filters:
        root.addFilter(_not_py4j)


__all__ = ["failure_line", "jvm_died_line", "jvm_exit_status", "quiet_py4j_logs"]
