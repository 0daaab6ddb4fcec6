"""Running scripts the way ``mysql`` runs them in batch mode: statements from a file, from ``-e``
or from standard input; ``source`` inside a script; ``--force``; errors on standard error with the
line (and file) where the statement starts; exit status 1 after any error.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, TextIO

from .formatting import OutputMode, format_error, format_result, statement_json
from ..dialect.splitter import DEFAULT_DELIMITER, UNKNOWN_COMMAND, ClientCommand, StatementBuffer, StatementText, parse_delimiter
from ..core.errors import MySQLError
from ..core.paths import check_path, shown
from ..server.session import Session

NUL_COMMAND = "a shell command cannot hold a NUL byte; not run"
MAX_SOURCE_DEPTH = 16  # mysql has no limit but recursion would never end; this says so instead


class StopScript(Exception):
    """Raised to end a run: an error without --force, or ``quit``."""


@dataclass(frozen=True)
class RunOptions:
    mode: OutputMode = OutputMode(batch=True)
    json: bool = False
    force: bool = False
    system_command: bool = True  # mysql --system-command: ``\!`` / ``system`` run in scripts too


class ScriptRunner:
    """Feeds a :class:`Session` from script text and prints what mysql prints."""

    def __init__(
        self, session: Session, out: TextIO, err: TextIO, options: RunOptions = RunOptions(), delimiter: str = DEFAULT_DELIMITER
    ) -> None:
        self.session = session
        self.out = out
        self.err = err
        self.options = options
        self.errors = 0
        self._depth = 0
        self.delimiter = delimiter
        """The statement delimiter: one for the whole run, as in mysql, so a ``delimiter`` command
        in a sourced file holds after it (the shell reads it back after ``source``)."""

    # ---- entry points
    def run_text(self, text: str, file_name: str | None = None) -> int:
        return self.run_lines(text.split("\n"), file_name)

    def run_lines(self, lines: Iterable[str], file_name: str | None = None) -> int:
        """Run everything; returns the process exit status (0, or 1 after any error)."""
        try:
            self._run(lines, file_name)
        except StopScript:
            pass
        return 1 if self.errors else 0

    def run_file(self, path: str) -> int:
        try:
            self._source(path, line=None, file_name=None)
        except StopScript:
            pass
        return 1 if self.errors else 0

    # ---- internals
    def _run(self, lines: Iterable[str], file_name: str | None) -> None:
        buffer = StatementBuffer(delimiter=self.delimiter)
        for line in lines:
            for item in buffer.feed_line(line.rstrip("\r")):
                self.delimiter = buffer.delimiter
                self._item(item, file_name)
                buffer.delimiter = self.delimiter  # a sourced file may have changed it
        for item in buffer.finish():
            self._item(item, file_name)

    def _item(self, item: StatementText | ClientCommand, file_name: str | None) -> None:
        if isinstance(item, ClientCommand):
            self._command(item, file_name)
        else:
            self._statement(item, file_name)

    def _statement(self, item: StatementText, file_name: str | None) -> None:
        if not item.text:
            return  # com_go in batch mode ignores an empty query (``;;``, a lone ``\g``)
        started = time.perf_counter()
        try:
            result = self.session.execute_text(item.text)
        except MySQLError as error:
            self._error(error, item, file_name)
            return
        elapsed = time.perf_counter() - started
        if self.options.json:
            self.out.write(statement_json(item.line, item.text, result) + "\n")
            return
        mode = replace(self.options.mode, vertical=self.options.mode.vertical or item.vertical)
        self.out.write(format_result(result, mode, elapsed))

    def _error(self, error: MySQLError, item: StatementText, file_name: str | None) -> None:
        self.errors += 1
        if self.options.json:
            self.out.write(statement_json(item.line, item.text, error) + "\n")
        else:
            self.out.flush()
            self.err.write(format_error(error, line=item.line, file=file_name) + "\n")
            self.err.flush()
        if not self.options.force:
            raise StopScript

    def _client_error(self, message: str) -> None:
        self.errors += 1
        self.out.flush()
        self.err.write(message)
        self.err.flush()
        if not self.options.force:
            raise StopScript

    def _command(self, command: ClientCommand, file_name: str | None) -> None:
        name = command.name
        if name == "quit":
            raise StopScript
        if name == "source":
            self._source(command.argument, command.line, file_name)
        elif name == "warnings":
            self.options = replace(self.options, mode=replace(self.options.mode, show_warnings=True))
        elif name == "nowarning":
            self.options = replace(self.options, mode=replace(self.options.mode, show_warnings=False))
        elif name == "delimiter":
            _delimiter, error = parse_delimiter(command.argument)  # the splitter has applied it
            if error is not None:
                # mysql reports it and goes on (com_delimiter returns 0): not a failed statement
                self.out.flush()
                self.err.write(f"ERROR{_where(command, file_name)}: {error}\n")
                self.err.flush()
        elif name == "system":
            self._system(command, file_name)
        elif name == "use":
            self._use(command, file_name)
        elif name == UNKNOWN_COMMAND:
            self._client_error(f"ERROR{_where(command, file_name)}: Unknown command '{command.argument}'.\n")
        else:
            self._client_error(f"ERROR{_where(command, file_name)}: the client command '{name}' is not available in scripts\n")

    def _system(self, command: ClientCommand, file_name: str | None) -> None:
        """com_shell: the command runs in a shell, its output straight to the terminal (or
        refused, as ``--skip-system-command``); never statement text."""
        if not self.options.system_command:
            self._client_error(
                f"ERROR{_where(command, file_name)}: 'system' command received, but the --system-command option is off. Skipping.\n"
            )
            return
        if not command.argument.strip():
            self._client_error(f"ERROR{_where(command, file_name)}: Usage: \\! shell-command\n")
            return
        if "\0" in command.argument:
            self._client_error(f"ERROR{_where(command, file_name)}: {NUL_COMMAND}: '{shown(command.argument)}'\n")
            return
        self.out.flush()
        subprocess.run(command.argument, shell=True, check=False, stdout=_fileno_or_none(self.out))

    def _use(self, command: ClientCommand, file_name: str | None) -> None:
        """com_use: the first word (quotes and backticks removed) becomes the session's default
        database, as mysql_select_db does; the server's refusal is reported as a statement's."""
        words = command.argument.split()
        if not words:
            self._client_error("ERROR: USE must be followed by a database name\n")
            return
        name = words[0].rstrip(";").strip("`'\"")  # mysql's get_arg: the first word, no ';'
        if self.delimiter != ";" and name.endswith(self.delimiter):
            name = name[: -len(self.delimiter)]
        try:
            self.session.use_database(name)
        except MySQLError as error:
            self._error(error, StatementText(f"USE {name}", command.line), file_name)

    def _source(self, path: str, line: int | None, file_name: str | None) -> None:
        if not path:
            self._client_error("ERROR: Usage: \\. <filename> | source <filename>\n")
            return
        if self._depth >= MAX_SOURCE_DEPTH:
            self._client_error(f"ERROR: Failed to open file '{path}': source nested more than {MAX_SOURCE_DEPTH} deep\n")
            return
        try:
            # bytes that are not UTF-8 pass through as on standard input and -e (README, "The
            # shell next to the mysql client"): errors quote them as the server does, \xFF
            text = Path(check_path(path)).read_text(encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            # mysql: "ERROR: Failed to open file 'x', error: 2"
            self._client_error(f"ERROR: Failed to open file '{shown(path)}', error: {exc.errno}\n")
            return
        self._depth += 1
        try:
            # Errors inside a sourced file name it; the top-level script file is not named.
            self._run(text.split("\n"), path if line is not None else None)
        finally:
            self._depth -= 1


def _fileno_or_none(stream: TextIO) -> int | None:
    """The descriptor a child process should write to: ``stream``'s, else (a StringIO) the
    inherited standard output."""
    try:
        return stream.fileno()
    except (OSError, ValueError, AttributeError):
        return None


def _where(command: ClientCommand, file_name: str | None) -> str:
    """mysql's `` at line N in file: 'f'`` for a client command's message."""
    return f" at line {command.line}" + (f" in file: '{file_name}'" if file_name else "")
