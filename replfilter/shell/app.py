"""``run_shell``: the interactive loop, and only that.

Read an input (one or several lines: Enter runs it once its last line completes a statement or a
client command, see :mod:`.buffer`), cut it into statements and client commands with the same
splitter scripts use, run each, print what the mysql client prints. A statement left unterminated
stays pending, as in mysql's buffer, and the next prompt is the continuation prompt. A paste runs
each complete statement in it in turn, echoed after the prompt with its output after it. Nothing
that goes wrong in between -- a syntax error, a bad file for ``source``, a bug -- ends the shell or
shows a Python traceback: each input is wrapped, and the next prompt comes back. Ctrl-C abandons
the input, Ctrl-D / ``quit`` leave.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, TextIO

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from .. import __version__
from ..core.version import DEFAULT_VERSION, ServerVersion
from ..client.formatting import OutputMode, format_error, format_result, format_warnings, status_line
from ..dialect.splitter import DEFAULT_DELIMITER, UNKNOWN_COMMAND, ClientCommand, StatementBuffer, StatementText
from ..core.errors import MySQLError
from ..server.session import Session
from . import commands
from .buffer import CompletenessCheck, split_paste
from .errormark import printable, syntax_error_mark
from .history import PrivateFileHistory, open_history
from .output import ShellOutput
from .prompt import DEFAULT_PROMPT, PromptFacts, render_prompt
from .warmup import start_warm_up

PROMPT = DEFAULT_PROMPT
CONTINUATION = "    -> "


def continuation_prompt(buffer: StatementBuffer) -> str:
    """mysql's prompt for a line that continues a statement: ``    -> ``, or the quote or comment
    still open (``    '> ``, ``    "> ``, ``    `> ``, ``   /*> ``)."""
    quote = buffer.open_quote
    return CONTINUATION if quote is None else f"{quote:>5}> "


def continuation_prompts(text: str, delimiter: str = DEFAULT_DELIMITER, pending: StatementBuffer | None = None) -> list[str]:
    """The continuation prompt for each line of ``text`` after the first (``pending``: the statement
    an earlier input left open). One pass over the text, so a pasted dump stays cheap to draw."""
    buffer = pending.snapshot() if pending is not None else StatementBuffer(delimiter=delimiter)
    prompts = []
    for line in text.split("\n")[:-1]:
        buffer.feed_line(line)
        prompts.append(continuation_prompt(buffer))
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
    system_command: bool = True

    @classmethod
    def from_args(cls, args: Any, datadir: str | None = None) -> "ShellSettings":
        return cls(
            show_warnings=bool(getattr(args, "show_warnings", False)),
            vertical=bool(getattr(args, "vertical", False)),
            toolbar=not getattr(args, "no_toolbar", False),
            history=not getattr(args, "no_history", False),
            datadir=datadir if datadir is not None else getattr(args, "datadir", None),
            system_command=getattr(args, "system_command", True) is not False,
        )


class AfterPendingStatement(Completer):
    """A completer that reads the input as the continuation of the statement still pending (after
    a client command ran mid-statement, the next prompt is ``    -> `` with an empty line): Tab
    then knows it is after ``CHANGE REPLICATION FILTER``."""

    def __init__(self, inner: Completer, pending: Callable[[], str]) -> None:
        self.inner = inner
        self.pending = pending

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        before = self.pending()
        if before:
            document = Document(before + document.text_before_cursor)
        yield from self.inner.get_completions(document, complete_event)


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
        self._carry = ""  # text offered in the next prompt (the unfinished end of a paste, an edit)
        self._queued: list[str] = []  # inputs of a paste still to run, in order
        self.prompt_template = DEFAULT_PROMPT  # what ``prompt`` / ``\R`` set
        self.prompt_counter = 0  # mysql's ``\c``: prompts drawn since the last ``prompt``
        self.last_statement = ""  # what ``edit`` opens when nothing is pending (mysql's old_buffer)
        self.connection_id = 1  # mysql's thread id; ``connect`` takes a new one

    # ---- the prompt
    def prompt_text(self) -> str:
        """The prompt for the next input: the continuation prompt while a statement is pending,
        else the prompt string with its escapes expanded."""
        if self.buffer.in_progress:
            return continuation_prompt(self.buffer)
        self.prompt_counter += 1
        return render_prompt(self.prompt_template, self._prompt_facts())

    def _prompt_facts(self) -> PromptFacts:
        return PromptFacts(
            self.prompt_counter, self.default_database(), self.buffer.delimiter, self.session.state.version.value,
            connection_id=self.connection_id,
        )

    def carry(self, text: str) -> None:
        """Offer ``text`` in the next prompt, to edit and run (``edit`` uses it)."""
        self._carry = text

    def default_database(self) -> str | None:
        """The session's default database (None: mysql's ``(none)``)."""
        return self.session.default_database

    # ---- the loop
    def run(self, input: Any = None, output: Any = None) -> int:
        prompt = self.prompt_session(input, output)
        self.out.write(banner(self.session.state.version))
        if self.warm_up:
            start_warm_up()
        failures = 0
        try:
            while True:
                default, self._carry = self._carry, ""
                try:
                    text = prompt.prompt(self.prompt_text(), default=default)
                    failures = 0
                except KeyboardInterrupt:
                    # mysql's SIGINT at the prompt: "^C", and the statement buffer is emptied
                    self._carry = ""
                    self._queued.clear()
                    self.buffer.clear()
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
                try:
                    self.handle(text)
                    while self._queued:
                        self.run_pasted(self._queued.pop(0))
                except commands.QuitShell:
                    self.out.write("Bye\n")
                    return 0
                except KeyboardInterrupt:
                    self.buffer.clear()
                    self._queued.clear()
                    self.out.error("ERROR 1317 (70100): Query execution was interrupted\n")
                except Exception as exc:
                    self.buffer.clear()
                    self._queued.clear()
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

        complete = CompletenessCheck(lambda: self.buffer)

        @Condition
        def multiline() -> bool:
            return not complete(session.default_buffer.text)

        drawn: dict[tuple[str, str, str | None], list[str]] = {}

        def continuation(width: int, line_number: int, wrap_count: int) -> str:
            if wrap_count:
                return ""
            key = (session.default_buffer.text, self.buffer.pending_text, self.buffer.open_quote)
            if key not in drawn:
                drawn.clear()
                drawn[key] = continuation_prompts(key[0], pending=self.buffer)
            prompts = drawn[key]
            return prompts[line_number - 1] if 0 < line_number <= len(prompts) else CONTINUATION

        session: PromptSession[str] = PromptSession(
            multiline=multiline,
            prompt_continuation=continuation,
            lexer=prompt_lexer(),
            completer=AfterPendingStatement(
                ReplFilterCompleter(
                    lambda: self.session.state, commands.command_words(), topic_names(), lambda: self.buffer.delimiter
                ),
                lambda: self.buffer.pending_text,
            ),
            complete_while_typing=False,
            auto_suggest=AutoSuggestFromHistory(),
            history=self.history,
            search_ignore_case=True,
            style=shell_style(),
            include_default_pygments_style=False,
            bottom_toolbar=make_toolbar(self.session) if self.settings.toolbar else None,
            key_bindings=shell_key_bindings(multiline, self.paste, lambda: session.default_buffer),
            enable_open_in_editor=False,
            input=input,
            output=output,
        )
        return session

    # ---- one input
    def echo(self, text: str, prompt: str) -> str:
        """``text`` as the terminal shows it typed after ``prompt``: each further line after its
        continuation prompt."""
        prompts = continuation_prompts(text, pending=self.buffer)
        lines = text.split("\n")
        return prompt + "".join(line + "\n" + (prompts[i] if i < len(prompts) else "") for i, line in enumerate(lines))

    def handle(self, text: str, prompt: str | None = None) -> None:
        """Run everything a (possibly multi-line) input holds; a statement it leaves unterminated
        stays pending for the next input."""
        if self.out.tee_path is not None:  # the echo costs a pass over the text: only for a tee file
            self.out.log_input(self.echo(text, prompt if prompt is not None else self._last_prompt()))
        for line in text.split("\n"):
            for item in self.buffer.feed_line(line):
                self.dispatch(item)

    def _last_prompt(self) -> str:
        if self.buffer.in_progress:
            return continuation_prompt(self.buffer)
        return render_prompt(self.prompt_template, self._prompt_facts())

    def paste(self, buffer: Any, data: str) -> None:
        """A bracketed paste: its complete lines run as if typed, one input at a time (this one
        now, the others queued); the unfinished end stays in the prompt to go on typing."""
        data = data.replace("\r\n", "\n").replace("\r", "\n")
        document = buffer.document
        inputs, rest = split_paste(document.text_before_cursor + data, self.buffer.delimiter, self.buffer)
        if not inputs:
            buffer.insert_text(data)
            return
        self._queued = inputs[1:]
        self._carry = rest + document.text_after_cursor
        buffer.text = inputs[0]
        buffer.cursor_position = len(inputs[0])
        buffer.validate_and_handle()

    def run_pasted(self, text: str) -> None:
        """One input of a paste after the first: shown after its prompt, kept in history, run."""
        prompt = self.prompt_text()
        self.out.write_terminal(self.echo(text, prompt))
        self.history.append_string(text)
        self.handle(text, prompt)

    def dispatch(self, item: StatementText | ClientCommand) -> None:
        if isinstance(item, ClientCommand):
            if item.name == UNKNOWN_COMMAND:
                # put_info(INFO_ERROR): "ERROR: " on its own line; the two characters stay in the
                # statement, as mysql's add_line keeps them
                self.out.error(f"ERROR: \nUnknown command '{printable(item.argument)}'.\n")
                return
            cmd = commands.lookup(item.name)
            if cmd is None:
                self.out.error(f"ERROR: The client command '{item.name}' is not available in replfilter. Type 'help;' for the list.\n")
                return
            cmd.handler(self, item.argument)
            return
        self.run_statement(item)

    def run_statement(self, item: StatementText) -> None:
        if not item.text:
            self.out.error("ERROR: \nNo query specified\n\n")
            return
        self.last_statement = item.text
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
        # com_go: the rows go through the pager; "N rows in set" is printed after the pager has
        # closed, on the terminal; the warnings are paged again (print_warnings)
        text = format_result(result, mode, elapsed)
        tail = status_line(result, elapsed) + "\n\n"
        warnings = format_warnings(result.warnings) if mode.show_warnings else ""
        body = text[: len(text) - len(tail) - len(warnings)]
        with self.out.paged():
            self.out.write(body)
        self.out.write(tail)
        with self.out.paged():
            self.out.write(warnings)


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
