"""The one start-up every front-end shares: mysqld's options, the data directory, the ``--init`` script.

``replfilter`` (a script or the shell), ``replfilter evaluate`` and ``replfilter stream`` each
build their replica here, so a ``--replicate-*`` option, a ``--defaults-file`` or a ``--datadir``
means the same thing whichever command is run. The order is mysqld's (mysql-filter-statements.md,
"Startup options"): option files first, then the command line; channels come from the data
directory; filters are rebuilt from the options at every start. Nothing here imports pyspark.
"""

from __future__ import annotations

import argparse
import io
from dataclasses import dataclass, replace
from typing import Sequence, TextIO

from ..client.runner import RunOptions, ScriptRunner
from ..replica.datadir import DataDirectory, DataDirError
from ..replica.option_files import read_option_file
from ..replica.startup_options import (
    StartupError,
    apply_startup,
    canonical_option_name,
    collect_startup_settings,
    split_command_line_option,
)
from ..replica.state import ReplicaState
from ..server.session import Session, wall_clock_us
from .schema_option import add_schema_argument, load_schema_options

STARTUP_OPTION_PREFIXES = ("replicate-", "lower-case-table-names", "mysql-version", "gtid-mode", "enforce-gtid-consistency",
                           "skip-replica-start", "skip-slave-start")
OPTION_FILE_HELP = "read startup options from the [mysqld], [server] and [mysqld-8.4] groups of FILE"


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
    ``loose-`` prefix, value in the same or the next argument) from the command's own options.

    They are taken out before argparse sees the command line because mysqld's spelling rules
    (``_`` for ``-``, ``loose-``, any number of repeats) are more than argparse can declare."""
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


def add_startup_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every front-end takes to build its replica (the ``--replicate-*`` options are
    split off before argparse, by :func:`split_startup_arguments`)."""
    parser.add_argument("--defaults-file", metavar="FILE", help=OPTION_FILE_HELP)
    parser.add_argument("--datadir", metavar="DIR", help="keep channels (connection metadata) in DIR across runs")
    add_schema_argument(parser)


def add_replica_arguments(parser: argparse.ArgumentParser) -> None:
    """The options the subcommands (evaluate, stream) share to build their replica: the start-up
    ones, and an ``--init`` script that sets up channels and filters before the work starts."""
    parser.add_argument("--init", metavar="SCRIPT", help="run this SQL script first (channels, filters)")
    add_startup_arguments(parser)


def start_replica(startup_arguments: list[tuple[str, str | None]], defaults_file: str | None, datadir_path: str | None) -> Startup:
    """mysqld's start: option files, then the command line; channels from the data directory;
    filters rebuilt from the options. Raises StartupError / DataDirError."""
    warnings: list[str] = []
    file_options = read_option_file(defaults_file, warnings=warnings) if defaults_file else []
    settings = collect_startup_settings(file_options, startup_arguments)
    warnings.extend(settings.warnings)
    datadir = DataDirectory(datadir_path).open() if datadir_path else None
    if datadir is not None:
        warnings.extend(datadir.startup_warnings)
    try:
        state = (datadir.load_state(settings.lower_case_table_names, settings.version) if datadir
                 else ReplicaState.fresh(settings.lower_case_table_names, settings.version))
        state = replace(state, gtid_mode=settings.gtid_mode, enforce_gtid_consistency=settings.enforce_gtid_consistency,
                        skip_replica_start=settings.skip_replica_start)
        state, filter_warnings = apply_startup(state, settings.rules, wall_clock_us())
    except BaseException:
        if datadir is not None:
            datadir.close()
        raise
    warnings.extend(filter_warnings)
    session = Session(state, observers=[datadir.observer] if datadir else [])
    return Startup(session, datadir, warnings)


def start_reporting(startup_arguments: list[tuple[str, str | None]], args: argparse.Namespace, stderr: TextIO) -> Startup | None:
    """:func:`start_replica`, with its failure or its warnings written as mysqld logs them.
    None when the start failed; the reason is already on ``stderr``."""
    try:
        startup = start_replica(startup_arguments, args.defaults_file, args.datadir)
    except StartupError as error:
        stderr.write(startup_error_text(error) + "\n")
        return None
    except DataDirError as error:
        stderr.write(f"replfilter: [ERROR] {error}\n")
        return None
    for warning in startup.warnings:
        stderr.write(f"replfilter: [Warning] {warning}\n")
    return startup


def start_with_schemas(startup_arguments: list[tuple[str, str | None]], args: argparse.Namespace,
                       stderr: TextIO) -> Startup | None:
    """:func:`start_reporting`, then the ``--schema`` files loaded into the started replica (the
    shell's and serve's start). None when either failed; the reason is already on ``stderr``."""
    startup = start_reporting(startup_arguments, args, stderr)
    if startup is not None and not load_schema_options(startup.session, args.schema, stderr):
        startup.close()
        return None
    return startup


def startup_error_text(error: StartupError) -> str:
    """mysqld's ``[ERROR]`` log line, with the option file and line when the message lacks them."""
    where = ""
    if error.path and error.path not in error.message:
        where = f" (in '{error.path}'" + (f", line {error.line}" if error.line else "") + ")"
    return f"replfilter: [ERROR] {error.message}{where}"


def prepare_replica(argv: Sequence[str], parser: argparse.ArgumentParser, stderr: TextIO) -> tuple[argparse.Namespace, Startup | None]:
    """A subcommand's arguments, and its replica started with the ``--init`` script run (its
    output discarded, its errors shown). The replica is None when that failed; the reason is
    already on ``stderr``."""
    startup_arguments, rest = split_startup_arguments(list(argv))
    args = parser.parse_args(rest)
    startup = start_reporting(startup_arguments, args, stderr)
    if startup is not None and args.init:
        if ScriptRunner(startup.session, io.StringIO(), stderr, RunOptions()).run_file(args.init):
            startup.close()
            return args, None
    if startup is not None and not load_schema_options(startup.session, args.schema, stderr):
        startup.close()
        return args, None
    return args, startup


def install_applier_for(startup: Startup, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Hook the Spark applier into the session: a channel with a relay log (RELAY_LOG_FILE) is
    applied with Spark from START REPLICA on, in the background. Imports no pyspark until a
    channel starts."""
    import os

    from ..spark_runtime.applier import install_applier

    applier_dir = args.applier_dir or (os.path.join(args.datadir, "applier") if args.datadir else None)
    return install_applier(startup.session, master=args.master, applier_dir=applier_dir)
