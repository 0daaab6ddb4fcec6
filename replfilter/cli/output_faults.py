"""What every front-end does when its standard output fails or the user presses Ctrl-C.

Output is written through :class:`GuardedOutput`, which turns an ``OSError`` of the output (a
full disk, ``ENOSPC`` from ``> /dev/full``; a reader gone, ``EPIPE`` from ``| head -1``) into
:class:`OutputFailed`, so that :func:`run_guarded` can tell it from an error reading an input
file, which each command reports itself. Then:

* a closed pipe ends the run silently with status 1: the reader asked for no more (script mode
  always did so, as ``mysql`` does, killed by SIGPIPE);
* any other output error is one line on standard error, ``replfilter: error writing to standard
  output: <reason> (errno N)``, and status 1;
* Ctrl-C ends the run as the ``mysql`` client ends it when no statement is running
  (``handle_kill_signal`` in ``client/mysql.cc``: ``Ctrl-C -- exit!``), written to standard error
  so that standard output keeps its format, and status 1. What was written so far ends on a
  complete line: every result is written whole, in one ``write``, and the buffer is flushed.

In each case the process's standard output is then pointed at ``/dev/null``, so that the
interpreter's own flush at exit cannot fail a second time and print a traceback of its own.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Callable, TextIO


class OutputFailed(Exception):
    """Standard output could not be written; ``error`` is the operating system's."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


class GuardedOutput:
    """A text stream whose write errors are :class:`OutputFailed`; everything else is the
    stream's own (``isatty``, ``fileno``, ``encoding``...)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as error:
            raise OutputFailed(error) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as error:
            raise OutputFailed(error) from None

    def __getattr__(self, name: str):  # noqa: ANN204 - the stream's own attributes
        return getattr(self.stream, name)


INTERRUPTED = "Ctrl-C -- exit!"
"""What ``mysql`` prints when Ctrl-C comes with no statement running."""


def run_guarded(command: Callable[[TextIO], int], stdout: TextIO, stderr: TextIO) -> int:
    """Run ``command`` with a guarded ``stdout``; its status, or 1 after an output error or
    Ctrl-C (see the module's docstring)."""
    guarded = stdout if isinstance(stdout, GuardedOutput) else GuardedOutput(stdout)
    try:
        status = command(guarded)  # type: ignore[arg-type]
        guarded.flush()
        return status
    except OutputFailed as failed:
        _silence(stdout)
        if failed.error.errno != errno.EPIPE:
            reason = failed.error.strerror or str(failed.error)
            stderr.write(f"replfilter: error writing to standard output: {reason} (errno {failed.error.errno})\n")
        return 1
    except KeyboardInterrupt:
        try:
            guarded.flush()  # the complete lines written so far
        except (OutputFailed, KeyboardInterrupt):
            _silence(stdout)
        stderr.write(INTERRUPTED + "\n")
        return 1


def _silence(stdout: TextIO) -> None:
    """Point the process's standard output at /dev/null, when ``stdout`` is it: the bytes still
    buffered cannot be written, and the interpreter's flush at exit must not try again."""
    if stdout is not sys.stdout and stdout is not sys.__stdout__:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - no descriptor: nothing will flush it
        pass
