"""The client commands of the shell: a registry of decorated functions.

Each command is registered with its name, its backslash shortcut, word aliases and a one-line
description, so ``help`` (and completion) are generated from the registry, in the mysql client's
layout. The splitter decides *that* a line is a command (``source f``, ``\\.  f``, ``quit``) and
hands over its long name; this module decides what it does. Messages are the mysql client's.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from .. import __version__
from ..client.formatting import OutputMode, format_table
from ..dialect.splitter import BACKSLASH_COMMANDS, parse_delimiter
from ..client.runner import NUL_COMMAND, RunOptions, ScriptRunner
from ..core.paths import check_path, shown
from . import helptext

if TYPE_CHECKING:
    from .app import Shell

Handler = Callable[["Shell", str], None]


class QuitShell(Exception):
    """Raised by ``quit`` / ``exit`` / ``\\q`` to leave the shell."""


@dataclass(frozen=True)
class Command:
    name: str
    shortcut: str  # the backslash letter, e.g. "h" for \h
    description: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    argument: str = ""  # how the argument is shown in help, e.g. "<filename>"


REGISTRY: dict[str, Command] = {}


def command(name: str, shortcut: str, description: str, *, aliases: tuple[str, ...] = (), argument: str = "") -> Callable[[Handler], Handler]:
    """Register the decorated function as the client command ``name``."""

    def register(handler: Handler) -> Handler:
        REGISTRY[name] = Command(name, shortcut, description, handler, aliases, argument)
        return handler

    return register


def lookup(name: str) -> Command | None:
    return REGISTRY.get(name)


def command_words() -> list[str]:
    """Every word that starts a client command at the beginning of a line."""
    words = []
    for cmd in REGISTRY.values():
        words.append(cmd.name)
        words.extend(cmd.aliases)
    return words


def help_listing() -> str:
    """What ``help`` prints: the mysql client's list, generated from the registry."""
    lines = ["", "List of all client commands:",
             "Note that all text commands must be first on line and end with ';'"]
    entries: list[tuple[str, Command]] = []
    for cmd in REGISTRY.values():
        entries.append((cmd.name, cmd))
        entries.extend((alias, cmd) for alias in cmd.aliases)
    for word, cmd in sorted(entries, key=lambda e: e[0]):
        text = cmd.description if word == cmd.name else f"Synonym for `{cmd.name}'."
        shortcut = word if BACKSLASH_COMMANDS.get(word) == cmd.name else cmd.shortcut
        lines.append(f"{word:<10}(\\{shortcut}) {text}")
    lines += ["",
              "For help on a statement, type 'help <statement>', for example "
              "'help change replication filter'.",
              "Statements: " + ", ".join(t.name for t in helptext.TOPICS) + ".",
              ""]
    return "\n".join(lines) + "\n"


# ---- the commands ---------------------------------------------------------------------------------


@command("help", "h", "Display this help, or 'help <statement>' for a statement's syntax.", aliases=("?",), argument="[statement]")
def _help(shell: "Shell", argument: str) -> None:
    if not argument:
        shell.out.write(help_listing())
        return
    cmd = REGISTRY.get(argument.lower().rstrip(";").strip())
    if cmd is not None:
        shell.out.write(f"{cmd.name:<10}(\\{cmd.shortcut}) {cmd.description}\n\n")
        return
    shell.out.write(helptext.lookup(argument))


@command("clear", "c", "Clear the current input statement.")
def _clear(shell: "Shell", argument: str) -> None:
    shell.buffer.clear()  # \c is also handled inside the splitter, mid-line


@command("quit", "q", "Exit replfilter.", aliases=("exit",))
def _quit(shell: "Shell", argument: str) -> None:
    raise QuitShell


@command("source", ".", "Execute an SQL script file. Takes a file name as an argument.", argument="<filename>")
def _source(shell: "Shell", argument: str) -> None:
    path = os.path.expanduser(argument.strip().strip("'\"")) if argument else ""
    if not path:
        shell.out.error("ERROR: Usage: \\. <filename> | source <filename>\n")
        return
    try:
        # bytes that are not UTF-8 pass through as in scripts (errors quote them as \xFF)
        with open(check_path(path), encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError as exc:
        shell.out.error(f"ERROR: Failed to open file '{shown(path)}', error: {exc.errno}\n")
        return
    # As in the interactive mysql client, errors inside the file are reported with their line and
    # file name and do not stop it (the monitor runs with --force).
    mode = OutputMode(batch=False, vertical=shell.settings.vertical, show_warnings=shell.settings.show_warnings)
    runner = ScriptRunner(
        shell.session, shell.out.stdout, shell.out.stderr, RunOptions(mode=mode, force=True, system_command=shell.settings.system_command),
        delimiter=shell.buffer.delimiter,
    )
    runner.run_text(text, file_name=path)
    shell.buffer.delimiter = runner.delimiter  # one delimiter for the session, as in mysql


@command("delimiter", "d", "Set statement delimiter.", argument="<string>")
def _delimiter(shell: "Shell", argument: str) -> None:
    # the splitter has already applied a valid delimiter (it ends the statements that follow)
    _delimiter, error = parse_delimiter(argument)
    if error is not None:
        shell.out.error(f"ERROR: \n{error}\n")


@command("status", "s", "Get status information about the simulated replica.")
def _status(shell: "Shell", argument: str) -> None:
    state = shell.session.state
    settings = shell.settings
    out = shell.out
    rows = []
    for channel in state.channels:
        rule_count = sum(len(slot.rules) for _, slot in channel.filters.items())
        rows.append((repr_channel(channel.name), "Yes" if channel.configured else "No", channel.source.host or None,
                     "Yes" if channel.io_running else "No", "Yes" if channel.sql_running else "No", rule_count))
    global_rules = sum(len(slot.rules) for _, slot in state.global_filters.items())
    lines = [
        "--------------",
        f"replfilter {__version__}, a simulated MySQL {state.version.value} replica (replication filters)",
        "",
        f"Current database:\t{shell.default_database() or ''}",  # mysql's com_status: empty for none
        f"Data directory:\t\t{settings.datadir or '(none: channels are not kept after exit)'}",
        f"lower_case_table_names:\t{state.collation.lower_case_table_names}",
        f"Using delimiter:\t{shell.buffer.delimiter}",
        f"Show warnings:\t\t{'ON' if settings.show_warnings else 'OFF'}",
        f"Current pager:\t\t{out.pager or 'stdout'}",
        f"Using outfile:\t\t'{out.tee_path or ''}'",
        f"History:\t\t{shell.history_description}",
        f"Channels:\t\t{len(state.channels)}",
        f"Global filter rules:\t{global_rules}",
        "",
    ]
    out.write("\n".join(lines) + "\n")
    out.write(format_table(("Channel", "Configured", "Source_Host", "IO_Thread", "SQL_Thread", "Filter_Rules"), rows))
    out.write("--------------\n\n")


def repr_channel(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"


@command("warnings", "W", "Show warnings after every statement.")
def _warnings(shell: "Shell", argument: str) -> None:
    shell.settings.show_warnings = True
    shell.out.write("Show warnings enabled.\n")


@command("nowarning", "w", "Don't show warnings after every statement.")
def _nowarning(shell: "Shell", argument: str) -> None:
    shell.settings.show_warnings = False
    shell.out.write("Show warnings disabled.\n")


@command("tee", "T", "Set outfile [to_outfile]. Append everything into given outfile.", argument="<outfile>")
def _tee(shell: "Shell", argument: str) -> None:
    path = os.path.expanduser(argument.strip().strip("'\"")) if argument else (shell.out.last_tee_path or "")
    if not path:
        shell.out.error("No outfile specified!\n")
        return
    try:
        shell.out.start_tee(path)
    except OSError:
        shell.out.error(f"Error logging to file '{path}'\n")
        return
    shell.out.write_terminal(f"Logging to file '{path}'\n")  # init_tee prints it before opt_outfile is set


@command("notee", "t", "Don't write into outfile.")
def _notee(shell: "Shell", argument: str) -> None:
    shell.out.stop_tee()
    shell.out.write("Outfile disabled.\n")


def _pager_program(command_line: str) -> str | None:
    try:
        words = shlex.split(command_line)
    except ValueError:
        return None
    return shutil.which(words[0]) if words else None


if os.name == "posix":  # a pager exists where there is a shell to run it

    @command("pager", "P", "Set PAGER [to_pager]. Print the query results via PAGER.", argument="[command]")
    def _pager(shell: "Shell", argument: str) -> None:
        wanted = argument.strip() or os.environ.get("PAGER", "").strip()
        if not wanted:
            shell.out.pager = None
            shell.out.write("Default pager wasn't set, using stdout.\n")
            return
        if _pager_program(wanted) is None:
            shell.out.error(f"ERROR: pager '{wanted}' not found; PAGER stays {shell.out.pager or 'stdout'}\n")
            return
        shell.out.pager = wanted
        shell.out.write(f"PAGER set to '{wanted}'\n")

    @command("nopager", "n", "Disable pager, print to stdout.")
    def _nopager(shell: "Shell", argument: str) -> None:
        shell.out.pager = None
        shell.out.write("PAGER set to stdout\n")


@command("print", "p", "Print current command.")
def _print(shell: "Shell", argument: str) -> None:
    # com_print: the statement buffer between two dashed lines (the splitter passes it along)
    text = argument
    shell.out.write("--------------\n" + text + ("" if text.endswith("\n") else "\n") + "--------------\n\n")


@command("prompt", "R", "Change your replfilter prompt.", argument="[prompt]")
def _prompt(shell: "Shell", argument: str) -> None:
    from .prompt import DEFAULT_PROMPT

    shell.prompt_counter = 0
    if not argument:
        shell.prompt_template = DEFAULT_PROMPT
        shell.out.write(f"Returning to default PROMPT of {DEFAULT_PROMPT}\n")
        return
    shell.prompt_template = argument
    shell.out.write(f"PROMPT set to '{argument}'\n")


@command("rehash", "#", "Rebuild completion hash.")
def _rehash(shell: "Shell", argument: str) -> None:
    """Nothing to rebuild: completion reads the channels and rules afresh at each Tab, so, like
    mysql's com_rehash, this prints nothing."""


@command("connect", "r", "Reconnect to the server. Optional arguments are db and host.", argument="[db [host]]")
def _connect(shell: "Shell", argument: str) -> None:
    """com_connect on the simulated server: the replica (channels, filters) lives in the server
    and stays; the session starts anew (no warnings, a new connection id) in the database given,
    if any, which the server may refuse (1049 once a schema is loaded)."""
    from ..client.formatting import format_error
    from ..core.errors import MySQLError
    from .errormark import printable

    words = argument.split()
    if words:
        try:
            shell.session.use_database(words[0].strip("`'\""))
        except MySQLError as error:
            shell.out.error(printable(format_error(error)) + "\n")
            return
    shell.connection_id += 1
    shell.session.reset_connection()
    database = shell.default_database()
    shell.out.write(f"Connection id:    {shell.connection_id}\n")
    shell.out.write(f"Current database: {database if database is not None else '*** NONE ***'}\n\n")


@command("edit", "e", "Edit command with $EDITOR.")
def _edit(shell: "Shell", argument: str) -> None:
    """com_edit: the statement being typed (or, when none is, the last one sent) goes to a
    temporary .sql file, ``$EDITOR`` (else ``$VISUAL``, else ``vi``) opens it, and what it holds
    afterwards becomes the statement being typed, to finish with ``;``."""
    pending = shell.buffer.pending_text
    text = pending if pending.strip() else shell.last_statement
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
    fd, path = tempfile.mkstemp(suffix=".sql")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        shell.out.flush()
        subprocess.run(f"{editor} {shlex.quote(path)}", shell=True, check=False)
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            edited = handle.read()
    except OSError as exc:
        shell.out.error(f"ERROR: \n{exc.strerror or exc}\n")
        return
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    shell.buffer.clear()
    shell.carry(edited.rstrip("\n"))


@command("system", "!", "Execute a system shell command.", argument="<command>")
def _system(shell: "Shell", argument: str) -> None:
    """com_shell: the command runs in a shell on the terminal (its output is neither paged nor
    teed); with ``--skip-system-command`` it is refused with mysql's message."""
    if not shell.settings.system_command:
        shell.out.error("ERROR: \n'system' command received, but the --system-command option is off. Skipping.\n")
        return
    if not argument.strip():
        shell.out.error("ERROR: \nUsage: \\! shell-command\n")
        return
    if "\0" in argument:
        shell.out.error(f"ERROR: \n{NUL_COMMAND}: '{shown(argument)}'\n")
        return
    shell.out.flush()
    try:
        subprocess.run(argument, shell=True, check=False)
    except OSError as exc:
        shell.out.error(f"ERROR {exc.errno}: {exc.strerror}\n")


@command("use", "u", "Use another database. Takes database name as argument.", argument="<db>")
def _use(shell: "Shell", argument: str) -> None:
    """com_use: ``USE db`` on the server, then "Database changed"."""
    if not argument.strip():
        shell.out.error("ERROR: \nUSE must be followed by a database name\n")
        return
    from ..core.errors import MySQLError
    from ..client.formatting import format_error
    from .errormark import printable

    try:
        result = shell.session.execute_text("USE " + argument.strip())
    except MySQLError as error:
        shell.out.error(printable(format_error(error)) + "\n")
        return
    count = len(result.warnings)
    shell.out.write("Database changed" + (f", {count} warning{'s' if count > 1 else ''}" if count else "") + "\n")


@command("charset", "C", "Switch to another charset. Might be needed for processing binlog with multi-byte charsets.", argument="<charset>")
def _charset(shell: "Shell", argument: str) -> None:
    """com_charset: replfilter reads and writes UTF-8 only, so the UTF-8 names are accepted (as
    "Charset changed") and any other is refused, saying why."""
    name = argument.strip().strip("'\"`")
    if not name:
        shell.out.error("ERROR: \nUsage: \\C charset_name | charset charset_name\n")
        return
    if name.lower() in ("utf8mb4", "utf8mb3", "utf8"):
        shell.out.write("Charset changed\n")
        return
    shell.out.error(f"ERROR: \nCharset '{printable_name(name)}' is not available: replfilter reads and writes UTF-8 (utf8mb4) only.\n")


def printable_name(name: str) -> str:
    from .errormark import printable

    return printable(name)


@command("resetconnection", "x", "Clean session context.")
def _resetconnection(shell: "Shell", argument: str) -> None:
    """mysql_reset_connection: the session's warnings go; the replica stays. Silent, as in mysql."""
    shell.session.reset_connection()


def check_shortcuts() -> list[str]:
    """Registry entries whose shortcut the splitter maps to another command (a test runs this)."""
    return [f"\\{c.shortcut} is {BACKSLASH_COMMANDS.get(c.shortcut)!r} in the splitter, {c.name!r} here"
            for c in REGISTRY.values() if BACKSLASH_COMMANDS.get(c.shortcut) != c.name]
