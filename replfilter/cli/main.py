"""``replfilter``: start a simulated replica, then run a script or the shell; or hand over to a subcommand.

The replica starts as every front-end starts it (:mod:`.startup`). Then statements come from
``-e``, a script file, standard input, or the interactive shell on a terminal. ``evaluate`` and
``stream`` are imported only when named. Nothing here imports pyspark: the JVM starts only when a
statement needs it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Sequence, TextIO

from .. import __version__
from ..client.formatting import OutputMode
from ..client.runner import RunOptions, ScriptRunner
from .output_faults import run_guarded
from .startup import Startup, add_startup_arguments, install_applier_for, split_startup_arguments, start_with_schemas


SUBCOMMAND_SYNOPSES = {
    "serve": "replfilter serve [startup options] [options] [--port N] [--user U --password-file F]",
    "evaluate": "replfilter evaluate [startup options] [options] EVENTS.jsonl",
    "stream": "replfilter stream [startup options] [options] EVENTS_DIR OUTPUT_DIR CHECKPOINT_DIR",
    "lint": "replfilter lint [startup options] [options] [--workload FILE] [--format text|json|sarif]",
}
"""The usage lines of the subcommands, shown under ``replfilter``'s own (each has its ``--help``)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replfilter",
        description="MySQL 8.4 replication filters: a simulated replica you can script, query and explore.",
        epilog=(
            "Startup options as mysqld takes them: --replicate-do-db, --replicate-ignore-db, "
            "--replicate-do-table, --replicate-ignore-table, --replicate-wild-do-table, "
            "--replicate-wild-ignore-table, --replicate-rewrite-db (each =[channel:]value, "
            "repeatable), --lower-case-table-names=0|1|2 and --mysql-version=8.4|8.0 (the server "
            "to simulate; also in the option file). "
            "Subcommands: 'replfilter evaluate EVENTS.jsonl' decides a file of events; "
            "'replfilter stream EVENTS_DIR OUTPUT_DIR CHECKPOINT_DIR' applies the filters with Spark "
            "(each with --help); 'replfilter lint' checks the filters for mistakes."
        ),
    )
    parser.add_argument("script", nargs="?", help="SQL script to run (default: standard input, or the shell on a terminal)")
    parser.add_argument("-e", "--execute", metavar="SQL", help="run these statements and exit")
    add_startup_arguments(parser)
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
    shell.add_argument("--skip-system-command", "--no-system", dest="system_command", action="store_false",
                       help="refuse \\! and system, as mysql --skip-system-command (--system-command=OFF)")
    parser.add_argument("--master", metavar="URL", default=None, help="Spark master URL (default local[*]); Spark starts only when needed")
    parser.add_argument(
        "--applier-dir",
        metavar="DIR",
        default=None,
        help="where START REPLICA's Spark applier writes each channel's applied/skipped/dead-letter events and checkpoint "
        "(default DATADIR/applier with --datadir, else a directory in the system temp dir)",
    )
    parser.add_argument("-V", "--version", action="version", version=f"replfilter {__version__}")
    own = parser.format_usage().removeprefix("usage: ").rstrip("\n")
    parser.usage = own + "".join(f"\n       {synopsis}" for synopsis in SUBCOMMAND_SYNOPSES.values())
    return parser


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
        command = SUBCOMMANDS[argv[0]]
        return run_guarded(lambda out: command(argv[1:], stdin, out, stderr), stdout, stderr)
    startup_arguments, rest = split_startup_arguments(argv)
    parser = build_parser()
    _refuse_late_subcommand(parser, argv, rest)
    args = parser.parse_args(rest)
    startup = start_with_schemas(startup_arguments, args, stderr)
    if startup is None:
        return 1
    return run_guarded(lambda out: _run_statements(startup, args, stdin, out, stderr), stdout, stderr)


def _run_statements(startup: Startup, args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """The statements of ``-e``, a script, standard input or the shell, on the started replica."""
    applier = install_applier_for(startup, args)
    try:
        interactive = args.execute is None and args.script is None and stdin.isatty() and stdout.isatty()
        if interactive:
            from ..shell.app import run_shell  # the shell is only imported when it is used

            return run_shell(startup.session, args, datadir=args.datadir)
        options = RunOptions(mode=_output_mode(args, stdout), json=args.format == "json", force=args.force,
                             system_command=args.system_command)
        runner = ScriptRunner(startup.session, stdout, stderr, options)
        if args.execute is not None:
            return runner.run_text(args.execute)
        if args.script is not None:
            return runner.run_file(args.script)
        return runner.run_lines(stdin)
    finally:
        applier.shutdown()  # channels applying with Spark stop at a batch boundary
        startup.close()


def _refuse_late_subcommand(parser: argparse.ArgumentParser, argv: list[str], rest: list[str]) -> None:
    """``replfilter --defaults-file=x evaluate f``: a subcommand's name where the script would
    be, and no file of that name, is a subcommand written after options. Each subcommand reads
    its own options, so it must come first: say so, with the command line in that order,
    rather than run the options with a script that does not exist."""
    known, _extra = parser.parse_known_args(rest)
    name = known.script
    if name not in SUBCOMMANDS or os.path.exists(name):
        return
    at = argv.index(name)
    ordered = " ".join(shlex.quote(word) for word in [name, *argv[:at], *argv[at + 1:]])
    parser.error(f"the subcommand comes first: replfilter {ordered}")


def _evaluate_command(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from .evaluate import main as evaluate_main

    return evaluate_main(argv, stdout=stdout, stderr=stderr, stdin=stdin)


def _stream_command(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from .stream import main as stream_main  # imports pyspark: only here

    return stream_main(argv, stdout=stdout, stderr=stderr)


def _lint_command(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from .lint import main as lint_main

    return lint_main(argv, stdout=stdout, stderr=stderr, stdin=stdin)


def _serve_command(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from .serve import main as serve_main  # imports mysql-mimic: only here

    return serve_main(argv, stdout=stdout, stderr=stderr)


SUBCOMMANDS = {"serve": _serve_command, "evaluate": _evaluate_command, "stream": _stream_command, "lint": _lint_command}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
