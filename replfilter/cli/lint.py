"""``replfilter lint``: check the filters a replica would start with, before they lose data.

The replica is built as ``replfilter`` builds it (startup options, ``--defaults-file``,
``--datadir``, ``--init``); every finding of :mod:`replfilter.lint` is written as text, JSON lines
or SARIF. Exit status as linters have it: 0 no findings (notes do not count), 1 warnings only,
2 errors -- and 2 when there is nothing to lint because mysqld would refuse to start or a file
cannot be read (the reason is on standard error).
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Sequence, TextIO

from ..lint.codes import CODES, resolve
from ..lint.linter import BINLOG_FORMATS, LintOptions, RuleOrigin, exit_status, lint_state
from ..lint.output import to_json_lines, to_sarif, to_text
from ..lint.workload import WorkloadError, read_workload
from ..replica.option_files import read_option_lines
from ..replica.startup_options import REPLICATE_OPTIONS, StartupError, canonical_option_name, parse_rule
from .startup import add_replica_arguments, prepare_replica, split_startup_arguments

IGNORE_COMMENT = re.compile(r"#\s*replfilter:\s*ignore\s*=\s*([A-Za-z0-9_,\- ]+)")
USAGE_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replfilter lint",
        description="Find replication-filter mistakes in the filters the replica starts with.",
        epilog=(
            "Startup options (--replicate-*=[channel:]value, --lower-case-table-names) are accepted as for "
            "replfilter. Exit status: 0 no findings, 1 warnings only, 2 errors. Codes: "
            + ", ".join(f"{c.code} {c.name}" for c in CODES.values())
        ),
    )
    add_replica_arguments(parser)
    parser.add_argument("--workload", metavar="FILE", help="SQL text (as EXPLAIN REPLICATION reads it) or a JSON-lines events file")
    parser.add_argument("--binlog-format", type=str.upper, choices=BINLOG_FORMATS, default=None,
                        help="the source's binlog_format (default: not known, so statements may arrive)")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("--ignore", metavar="CODE", action="append", default=[],
                        help="silence a code (RF101 or its name); repeatable, or comma-separated")
    parser.add_argument("--channel", metavar="NAME", help="lint only this channel")
    return parser


def _codes(values: Sequence[str]) -> frozenset[str]:
    codes = set()
    for value in values:
        for item in value.split(","):
            if item.strip():
                codes.add(resolve(item))
    return frozenset(codes)


class UnknownIgnoredCode(ValueError):
    """A ``# replfilter: ignore=`` comment names no code; the message says which file and line."""


def rule_origins(defaults_file: str | None, startup_arguments: Sequence[tuple[str, str | None]]) -> tuple[RuleOrigin, ...]:
    """Every replicate rule with where it was written and what its line silences."""
    origins: list[RuleOrigin] = []
    if defaults_file:
        for line in read_option_lines(defaults_file):
            name, _loose = canonical_option_name(line.name)
            if name not in REPLICATE_OPTIONS:
                continue
            rule = parse_rule(name, line.value)
            match = IGNORE_COMMENT.search(line.text)
            try:
                ignored = frozenset(resolve(c) for c in match.group(1).replace(" ", ",").split(",") if c.strip()) if match else frozenset()
            except KeyError as error:
                raise UnknownIgnoredCode(f"{line.path}:{line.line}: unknown code {error.args[0]!r} in a '# replfilter: ignore=' comment") from None
            origins.append(RuleOrigin(rule.channel, rule.ftype, rule.rule, line.path, line.line, ignored))
    for position, (name, value) in enumerate(startup_arguments, start=1):
        canonical, _loose = canonical_option_name(name)
        if canonical in REPLICATE_OPTIONS:
            rule = parse_rule(canonical, value)
            origins.append(RuleOrigin(rule.channel, rule.ftype, rule.rule, None, position))
    return tuple(origins)


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None, stdin: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = build_parser()
    startup_arguments, _rest = split_startup_arguments(list(argv))
    args, startup = prepare_replica(argv, parser, stderr)
    if startup is None:
        return 2
    try:
        try:
            ignore = _codes(args.ignore)
        except KeyError as error:
            parser.error(f"--ignore: unknown code {error.args[0]!r}")
        try:
            origins = rule_origins(args.defaults_file, startup_arguments)
        except UnknownIgnoredCode as error:
            stderr.write(f"replfilter: {error}\n")
            return 2
        except StartupError as error:  # already reported by the start-up; kept for safety
            stderr.write(f"replfilter: [ERROR] {error.message}\n")
            return 2
        workload = None
        if args.workload:
            try:
                with open(args.workload, encoding="utf-8") as handle:
                    workload = read_workload(args.workload, handle.read())
            except OSError as error:
                stderr.write(f"replfilter: can't read workload '{args.workload}': {error.strerror}\n")
                return 2
            except UnicodeDecodeError as error:
                stderr.write(f"replfilter: workload '{args.workload}' is not UTF-8 text (byte {error.start})\n")
                return 2
            except WorkloadError as error:
                stderr.write(f"replfilter: {error}\n")
                return 2
        state = startup.session.state
        if args.channel is not None and state.channel(args.channel) is None:
            stderr.write(f"replfilter: channel '{args.channel}' does not exist\n")
            return 2
        options = LintOptions(args.binlog_format, ignore, args.channel, origins, workload)
        findings = lint_state(state, options)
        writer = {"text": to_text, "json": to_json_lines, "sarif": to_sarif}[args.format]
        stdout.write(writer(findings))
        return exit_status(findings)
    finally:
        startup.close()
