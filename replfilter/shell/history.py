"""The shell's history file: ``~/.replfilter_history``, private to its owner.

Like ``~/.mysql_history``: created with mode 0600 (it holds every statement typed), the path can
be overridden (``REPLFILTER_HISTFILE``, as ``MYSQL_HISTFILE``; an empty value or ``/dev/null``
turns the file off), and statements that look like they carry a password are kept in memory for
the session but never written (the mysql client's built-in ``*IDENTIFIED*:*PASSWORD*`` pattern).
``--no-history`` keeps history in memory only. Ctrl-R searches it (prompt_toolkit's emacs mode).
"""

from __future__ import annotations

import os
import sys
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Mapping

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

HISTFILE_ENV = "REPLFILTER_HISTFILE"
DEFAULT_FILE_NAME = ".replfilter_history"
IGNORE_PATTERNS = ("*IDENTIFIED*", "*PASSWORD*")


def history_path(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where history is kept, or None when the environment turns the file off."""
    environ = os.environ if environ is None else environ
    override = environ.get(HISTFILE_ENV)
    if override is not None:
        if override.strip() in ("", os.devnull):
            return None
        return Path(override).expanduser()
    home = environ.get("HOME") or str(Path.home())
    return Path(home) / DEFAULT_FILE_NAME


def is_ignored(statement: str) -> bool:
    """Statements never written to the file (they may hold a password)."""
    upper = statement.upper()
    return any(fnmatchcase(upper, pattern) for pattern in IGNORE_PATTERNS)


def ensure_private_file(path: Path) -> None:
    """Create ``path`` with mode 0600 if it does not exist (whatever the umask says)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


class PrivateFileHistory(FileHistory):
    """prompt_toolkit's file history, but the file is created 0600, password-bearing statements
    are not written, and a file that cannot be written is reported once instead of failing."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path
        self.write_failed: str | None = None
        try:
            ensure_private_file(path)
        except OSError as exc:
            self._fail(exc)

    def load_history_strings(self):  # type: ignore[no-untyped-def]
        try:
            yield from super().load_history_strings()
        except OSError as exc:
            self._fail(exc)

    def store_string(self, string: str) -> None:
        if self.write_failed is not None or is_ignored(string):
            return
        try:
            ensure_private_file(self.path)
            super().store_string(string)
        except OSError as exc:
            self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        if self.write_failed is None:
            self.write_failed = f"{exc.strerror or exc}"
            sys.stderr.write(f"replfilter: [Warning] history file '{self.path}' is not usable ({self.write_failed}); history is kept in memory only\n")


def open_history(enabled: bool = True, environ: Mapping[str, str] | None = None) -> History:
    """The history for a new shell: the private file, or memory only."""
    path = history_path(environ) if enabled else None
    if path is None:
        return InMemoryHistory()
    return PrivateFileHistory(path)
