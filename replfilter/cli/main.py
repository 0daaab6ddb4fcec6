"""``replfilter``: start a simulated replica from startup options, then run a script or the shell.

Startup follows mysqld: option file (``--defaults-file``) first, then the command line; filters
are rebuilt from ``--replicate-*`` options at every start; channels come from ``--datadir`` when
given. Then statements come from ``-e``, a script file, standard input, or the interactive shell
on a terminal. Nothing here imports pyspark: the JVM starts only when a statement needs it.
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import dataclass
from typing import Sequence, TextIO

from .. import __version__
from ..replica.datadir import DataDirectory, DataDirError
from ..client.formatting import OutputMode
from ..server.session import Session, wall_clock_us
from ..replica.startup_options import (
    StartupError,
    apply_startup,
    canonical_option_name,
    collect_startup_settings,
    read_option_file,
    split_command_line_option,
)
from ..replica.state import ReplicaState
from ..client.runner import RunOptions, ScriptRunner

STARTUP_OPTION_PREFIXES = ("replicate-", "lower-case-table-names")


@dataclass
class Startup:
    """A started replica: the session, and the data directory it holds locked (if any)."""

    session: Session
    datadir: DataDirectory | None
    warnings: list[str]

    def close(self) -> None:
        if self.datadir is not None:
            self.datadir.close()


def _is_startup_option(argument: str) -> bool:
    if not argument.startswith("--"):
        return False
    name, _ = split_command_line_option(argument)
    canonical, _loose = canonical_option_name(name)
    return canonical.startswith(STARTUP_OPTION_PREFIXES)


def split_startup_arguments(argv: Sequence[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Separate mysqld-style startup options (``--replicate-do-db=x``, repeatable, ``_`` or ``-``,
    ``loose-`` prefix, value in the same or the next argument) from the client's own options."""
    startup: list[tuple[str, str | None]] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        argument = argv[i]
        if argument == "--":
            rest.extend(argv[i:])
            break
        if _is_startup_option(argument):
            name, value = split_command_line_option(argument)
            if value is None and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                value = argv[i + 1]
                i += 1
            startup.append((name, value))
        else:
            rest.append(argument)
        i += 1
    return startup, rest


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replfilter",
        description="MySQL 8.4 replication filters: a simulated replica you can script, query and explore.",
        epilog=(
            "Startup options as mysqld takes them: --replicate-do-db, --replicate-ignore-db, "
            "--replicate-do-table, --replicate-ignore-table, --replicate-wild-do-table, "
            "--replicate-wild-ignore-table, --replicate-rewrite-db (each =[channel:]value, "
            "repeatable) and --lower-case-table-names=0|1|2. "
            "Subcommands: 'replfilter evaluate EVENTS.jsonl' decides a file of events; "
            "'replfilter stream EVENTS_DIR OUTPUT_DIR CHECKPOINT_DIR' applies the filters with Spark "
            "(each with --help)."
        ),
    )
    parser.add_argument("script", nargs="?", help="SQL script to run (default: standard input, or the shell on a terminal)")
    parser.add_argument("-e", "--execute", metavar="SQL", help="run these statements and exit")
    parser.add_argument("--defaults-file", metavar="FILE", help="read startup options from the [mysqld] group of FILE")
    parser.add_argument("--datadir", metavar="DIR", help="keep channels (connection metadata) in DIR across runs")
    output = parser.add_argument_group("output")
    output.add_argument("-B", "--batch", action="store_true", help="tab-separated output, as mysql -B")
    output.add_argument("-t", "--table", action="store_true", help="boxed tables even when not on a terminal")
    output.add_argument("-E", "--vertical", action="store_true", help="one line per column, as \\G")
    output.add_argument("-N", "--skip-column-names", action="store_true", help="no header line")
    output.add_argument("-r", "--raw", action="store_true", help="no escaping in batch output")
    output.add_argument("--format", choices=("text", "json"), default="text", help="json: one object per statement")
    output.add_argument("--show-warnings", action="store_true", help="print warnings after each statement")
    parser.add_argument("-f", "--force", action="store_true", help="go on after an error")
    shell = parser.add_argument_group("shell")
    shell.add_argument("--no-history", action="store_true", help="do not read or write ~/.replfilter_history")
    shell.add_argument("--no-toolbar", action="store_true", help="hide the bottom toolbar")
    shell.add_argument("--skip-system-command", dest="system_command", action="store_false",
                       help="refuse \\! and system, as mysql --skip-system-command")
    parser.add_argument("--master", metavar="URL", default=None, help="Spark master URL (default local[*]); Spark starts only when needed")
    parser.add_argument(
        "--applier-dir",
        metavar="DIR",
        default=None,
        help="where START REPLICA's Spark applier writes each channel's applied/skipped/dead-letter events and checkpoint "
        "(default DATADIR/applier with --datadir, else a directory in the system temp dir)",
    )
    parser.add_argument("-V", "--version", action="version", version=f"replfilter {__version__}")
    return parser


def start_replica(startup_arguments: list[tuple[str, str | None]], defaults_file: str | None, datadir_path: str | None) -> Startup:
    """mysqld's start: option files, then the command line; channels from the data directory;
    filters rebuilt from the options (spec 5.1). Raises StartupError / DataDirError."""
    warnings: list[str] = []
    file_options = read_option_file(defaults_file, warnings=warnings) if defaults_file else []
    settings = collect_startup_settings(file_options, startup_arguments)
    warnings.extend(settings.warnings)
    datadir = DataDirectory(datadir_path).open() if datadir_path else None
    try:
        state = datadir.load_state(settings.lower_case_table_names) if datadir else ReplicaState.fresh(settings.lower_case_table_names)
        state, filter_warnings = apply_startup(state, settings.rules, wall_clock_us())
    except BaseException:
        if datadir is not None:
            datadir.close()
        raise
    warnings.extend(filter_warnings)
    session = Session(state, observers=[datadir.observer] if datadir else [])
    return Startup(session, datadir, warnings)


def add_replica_arguments(parser: argparse.ArgumentParser) -> None:
    """The options the subcommands (evaluate, stream) share to build their replica."""
    parser.add_argument("--init", metavar="SCRIPT", help="run this SQL script first (channels, filters)")
    parser.add_argument("--defaults-file", metavar="FILE", help="read startup options from the [mysqld] group of FILE")
    parser.add_argument("--datadir", metavar="DIR", help="channels (connection metadata) from DIR")


def prepare_replica(argv: Sequence[str], parser: argparse.ArgumentParser, stderr: TextIO) -> tuple[argparse.Namespace, Startup | None]:
    """A subcommand's arguments, and its replica started with the ``--init`` script run (its
    output discarded, its errors shown). The replica is None when that failed; the reason is
    already on ``stderr``."""
    startup_arguments, rest = split_startup_arguments(list(argv))
    args = parser.parse_args(rest)
    startup = _start_reporting(startup_arguments, args, stderr)
    if startup is not None and args.init:
        if ScriptRunner(startup.session, io.StringIO(), stderr, RunOptions()).run_file(args.init):
            startup.close()
            return args, None
    return args, startup


def _start_reporting(startup_arguments: list[tuple[str, str | None]], args: argparse.Namespace, stderr: TextIO) -> Startup | None:
    """:func:`start_replica`, with its failure or its warnings written as mysqld logs them."""
    try:
        startup = start_replica(startup_arguments, args.defaults_file, args.datadir)
    except StartupError as error:
        stderr.write(_startup_error_text(error) + "\n")
        return None
    except DataDirError as error:
        stderr.write(f"replfilter: [ERROR] {error}\n")
        return None
    for warning in startup.warnings:
        stderr.write(f"replfilter: [Warning] {warning}\n")
    return startup


def _startup_error_text(error: StartupError) -> str:
    where = ""
    if error.path and error.path not in error.message:
        where = f" (in '{error.path}'" + (f", line {error.line}" if error.line else "") + ")"
    return f"replfilter: [ERROR] {error.message}{where}"


def _output_mode(args: argparse.Namespace, stdout: TextIO) -> OutputMode:
    on_terminal = stdout.isatty()
    return OutputMode(
        batch=True,
        table=args.table or (on_terminal and not args.batch),
        vertical=args.vertical,
        column_names=not args.skip_column_names,
        raw=args.raw,
        show_warnings=args.show_warnings,
    )


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:], stdin, stdout, stderr)
    startup_arguments, rest = split_startup_arguments(argv)
    args = build_parser().parse_args(rest)
    startup = _start_reporting(startup_arguments, args, stderr)
    if startup is None:
        return 1
    applier = _install_applier(startup, args)
    try:
        interactive = args.execute is None and args.script is None and stdin.isatty() and stdout.isatty()
        if interactive:
            from ..shell.app import run_shell  # the shell is only imported when it is used

            return run_shell(startup.session, args, datadir=args.datadir)
        options = RunOptions(mode=_output_mode(args, stdout), json=args.format == "json", force=args.force)
        runner = ScriptRunner(startup.session, stdout, stderr, options)
        if args.execute is not None:
            return runner.run_text(args.execute)
        if args.script is not None:
            return runner.run_file(args.script)
        return runner.run_lines(stdin)
    except KeyboardInterrupt:
        stderr.write("Aborted\n")
        return 1
    except BrokenPipeError:
        return 1
    finally:
        applier.shutdown()  # channels applying with Spark stop at a batch boundary
        startup.close()


def _install_applier(startup: Startup, args: argparse.Namespace):
    """Hook the Spark applier into the session: a channel with a relay log (RELAY_LOG_FILE) is
    applied with Spark from START REPLICA on. Imports no pyspark until a channel starts."""
    import os

    from ..spark_runtime.applier import install_applier

    applier_dir = args.applier_dir or (os.path.join(args.datadir, "applier") if args.datadir else None)
    return install_applier(startup.session, master=args.master, applier_dir=applier_dir)


def _evaluate_command(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from .evaluate import main as evaluate_main

    return evaluate_main(argv, stdout=stdout, stderr=stderr, stdin=stdin)


def _stream_command(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from .stream import main as stream_main  # imports pyspark: only here

    return stream_main(argv, stdout=stdout, stderr=stderr)


SUBCOMMANDS = {"evaluate": _evaluate_command, "stream": _stream_command}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
