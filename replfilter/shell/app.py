"""``run_shell``: the interactive loop, and only that.

Read an input (one or several lines: Enter runs it once every statement in it is terminated, see
:mod:`.buffer`), cut it into statements and client commands with the same splitter scripts use,
run each, print what the mysql client prints. Nothing that goes wrong in between -- a syntax error,
a bad file for ``source``, a bug -- ends the shell or shows a Python traceback: each input is
wrapped, and the next prompt comes back. Ctrl-C abandons the input, Ctrl-D / ``quit`` leave.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, Mapping, TextIO

from .. import __version__
from ..core.version import DEFAULT_VERSION, ServerVersion
from ..client.formatting import OutputMode, format_error, format_result, format_warnings
from ..dialect.splitter import DEFAULT_DELIMITER, UNKNOWN_COMMAND, ClientCommand, StatementBuffer, StatementText
from ..core.errors import MySQLError
from ..server.session import Session
from . import commands
from .buffer import CompletenessCheck
from .errormark import printable, syntax_error_mark
from .history import PrivateFileHistory, open_history
from .output import ShellOutput
from .warmup import start_warm_up

PROMPT = "replfilter> "
CONTINUATION = "    -> "


def continuation_prompts(text: str, delimiter: str = DEFAULT_DELIMITER) -> list[str]:
    """mysql's continuation prompt for each line of ``text`` after the first: ``    -> ``, or the
    quote or comment still open there (``    '> ``, ``    "> ``, ``    `> ``, ``   /*> ``).
    One pass over the text, so a pasted dump of many lines stays cheap to draw."""
    buffer = StatementBuffer(delimiter=delimiter)
    prompts = []
    for line in text.split("\n")[:-1]:
        buffer.feed_line(line)
        quote = buffer.open_quote
        prompts.append(CONTINUATION if quote is None else f"{quote:>5}> ")
    return prompts

def banner(version: ServerVersion) -> str:
    return (
        f"Welcome to replfilter {__version__}, a simulated MySQL {version.value} replica for trying replication filters.\n"
        "Commands end with ; or \\g. Type 'help;' or '\\h' for help. "
        "Type '\\c' to clear the current input statement.\n\n"
    )


BANNER = banner(DEFAULT_VERSION)
MAX_PROMPT_FAILURES = 3


@dataclass
class ShellSettings:
    """What the startup options and the client commands switch."""

    show_warnings: bool = False
    vertical: bool = False
    toolbar: bool = True
    history: bool = True
    datadir: str | None = None

    @classmethod
    def from_args(cls, args: Any, datadir: str | None = None) -> "ShellSettings":
        return cls(
            show_warnings=bool(getattr(args, "show_warnings", False)),
            vertical=bool(getattr(args, "vertical", False)),
            toolbar=not getattr(args, "no_toolbar", False),
            history=not getattr(args, "no_history", False),
            datadir=datadir if datadir is not None else getattr(args, "datadir", None),
        )


def internal_error(exc: BaseException) -> str:
    """A bug, told in the client's error shape instead of a traceback."""
    detail = printable(f"{type(exc).__name__}: {exc}")[:300]
    return f"ERROR 1105 (HY000): Unknown error in replfilter ({detail})\n"


class Shell:
    def __init__(
        self,
        session: Session,
        settings: ShellSettings,
        stdout: TextIO,
        stderr: TextIO,
        environ: Mapping[str, str] | None = None,
        warm_up: bool = True,
    ) -> None:
        self.session = session
        self.warm_up = warm_up
        self.settings = settings
        self.out = ShellOutput(stdout, stderr)
        self.buffer = StatementBuffer()
        self.history = open_history(settings.history, environ)
        self.history_description = str(self.history.path) if isinstance(self.history, PrivateFileHistory) else "off (in memory only)"
        self._carry = ""  # statement text left unterminated by the last input, offered again

    # ---- the loop
    def run(self, input: Any = None, output: Any = None) -> int:
        prompt = self.prompt_session(input, output)
        self.out.write(banner(self.session.state.version))
        if self.warm_up:
            start_warm_up()
        failures = 0
        try:
            while True:
                try:
                    text = prompt.prompt(PROMPT, default=self._carry)
                    failures = 0
                except KeyboardInterrupt:
                    self._carry = ""
                    continue
                except EOFError:
                    self.out.write("Bye\n")
                    return 0
                except Exception as exc:  # the terminal itself failed; do not spin on it
                    failures += 1
                    self.out.error(internal_error(exc))
                    if failures >= MAX_PROMPT_FAILURES:
                        return 1
                    continue
                self._carry = ""
                try:
                    self.handle(text)
                except commands.QuitShell:
                    self.out.write("Bye\n")
                    return 0
                except KeyboardInterrupt:
                    self.buffer.clear()
                    self.out.error("ERROR 1317 (70100): Query execution was interrupted\n")
                except Exception as exc:
                    self.buffer.clear()
                    self.out.error(internal_error(exc))
        finally:
            self.out.close()

    def prompt_session(self, input: Any = None, output: Any = None):  # type: ignore[no-untyped-def]
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.filters import Condition

        from .completion import ReplFilterCompleter
        from .helptext import topic_names
        from .keybindings import shell_key_bindings
        from .lexer import prompt_lexer
        from .style import shell_style
        from .toolbar import make_toolbar

        complete = CompletenessCheck(lambda: self.buffer.delimiter)

        @Condition
        def multiline() -> bool:
            return not complete(session.default_buffer.text)

        drawn: dict[str, list[str]] = {}

        def continuation(width: int, line_number: int, wrap_count: int) -> str:
            if wrap_count:
                return ""
            text = session.default_buffer.text
            if text not in drawn:
                drawn.clear()
                drawn[text] = continuation_prompts(text, self.buffer.delimiter)
            prompts = drawn[text]
            return prompts[line_number - 1] if 0 < line_number <= len(prompts) else CONTINUATION

        session: PromptSession[str] = PromptSession(
            multiline=multiline,
            prompt_continuation=continuation,
            lexer=prompt_lexer(),
            completer=ReplFilterCompleter(
                lambda: self.session.state, commands.command_words(), topic_names(), lambda: self.buffer.delimiter
            ),
            complete_while_typing=False,
            auto_suggest=AutoSuggestFromHistory(),
            history=self.history,
            search_ignore_case=True,
            style=shell_style(),
            include_default_pygments_style=False,
            bottom_toolbar=make_toolbar(self.session) if self.settings.toolbar else None,
            key_bindings=shell_key_bindings(),
            input=input,
            output=output,
        )
        return session

    # ---- one input
    def handle(self, text: str) -> None:
        """Run everything a (possibly multi-line) input holds."""
        self.out.log_input(PROMPT + text.replace("\n", "\n" + CONTINUATION) + "\n")
        for line in text.split("\n"):
            for item in self.buffer.feed_line(line):
                self.dispatch(item)
        if self.buffer.in_progress:
            # Only when the input was forced through unfinished (Esc Enter): give it back to edit.
            self._carry = self.buffer.pending_text.rstrip("\n")
        self.buffer.clear()

    def dispatch(self, item: StatementText | ClientCommand) -> None:
        if isinstance(item, ClientCommand):
            if item.name == UNKNOWN_COMMAND:
                self.out.error(f"Unknown command '{item.argument}'.\n")
                return
            cmd = commands.lookup(item.name)
            if cmd is None:
                self.out.error(f"ERROR: The client command '{item.name}' is not available in replfilter. Type 'help;' for the list.\n")
                return
            cmd.handler(self, item.argument)
            return
        with self.out.paged():
            self.run_statement(item)

    def run_statement(self, item: StatementText) -> None:
        if not item.text:
            self.out.error("ERROR: \nNo query specified\n\n")
            return
        started = time.perf_counter()
        try:
            result = self.session.execute_text(item.text)
        except MySQLError as error:
            self.out.error(printable(format_error(error)) + "\n")
            self.out.error(syntax_error_mark(item.text, error))
            if self.settings.show_warnings:
                self.out.write(format_warnings(self.session.diagnostics, error_code=error.code))
            return
        elapsed = time.perf_counter() - started
        mode = OutputMode(
            batch=False,
            vertical=self.settings.vertical or item.vertical,
            show_warnings=self.settings.show_warnings,
        )
        self.out.write(format_result(result, mode, elapsed))


def run_shell(
    session: Session,
    args: Any = None,
    datadir: str | None = None,
    *,
    input: Any = None,
    output: Any = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
    warm_up: bool = True,
) -> int:
    """The interactive shell on ``session``; returns the exit status (0 after quit or Ctrl-D).

    ``input``/``output`` are prompt_toolkit's (default: the terminal); tests pass a pipe input and
    a dummy output, and ``stdout``/``stderr`` streams to read what was printed.
    """
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        shell = Shell(session, ShellSettings.from_args(args, datadir), stdout, stderr, environ, warm_up)
        return shell.run(input, output)
    except Exception as exc:  # the shell could not start (no usable terminal...)
        stderr.write(internal_error(exc))
        return 1
