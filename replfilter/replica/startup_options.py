"""Server startup: the ``--replicate-*`` options, option files, and the filters they build.

This is MySQL 8.4's ``mysqld`` start-up as far as replication filters go (spec sections 5.1 and
6, ``sql/mysqld.cc``, ``mysys/my_default.cc``):

* :func:`parse_rule` turns one ``--replicate-*=[channel:]value`` occurrence into a
  :class:`StartupRule`, failing with the server's own start-up messages;
* :func:`read_option_file` reads the server groups of an option file (``my.cnf``) the way
  ``my_load_defaults`` does;
* :func:`collect_startup_settings` keeps, from everything the option files and the command line
  said, ``lower_case_table_names`` and the replicate rules, in the order mysqld sees them;
* :func:`apply_startup` rebuilds the global and per-channel filters of a replica from those rules
  and returns the error-log warnings a real server would write.

Nothing here touches the executor; the state machine only sees the resulting
:class:`~replfilter.replica.state.ReplicaState`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from typing import BinaryIO, Iterable, Sequence

from ..core.filters import EMPTY_FILTERS, ConfiguredBy, FilterSet, FilterType, Rule
from .state import ReplicaState, channel_sort_key, is_group_replication_channel

# ------------------------------------------------------------------------------------------------
# Errors and rules
# ------------------------------------------------------------------------------------------------


class StartupError(Exception):
    """The server refuses to start. ``message`` is what mysqld would log; ``path`` and ``line``
    say where in an option file the problem is, when it is in one."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line


REPLICATE_OPTIONS: dict[str, FilterType] = {ftype.option: ftype for ftype in FilterType}
"""``replicate-do-db`` -> :attr:`FilterType.DO_DB`, and the other six."""

LOWER_CASE_TABLE_NAMES = "lower-case-table-names"

_WHITESPACE = " \t\n\v\f\r"  # my_isspace() of latin1 for the ASCII range

_TABLE_RULE_FAILURES = {
    FilterType.DO_TABLE: "Could not add do table rule '%s'!",
    FilterType.IGNORE_TABLE: "Could not add ignore table rule '%s'!",
    FilterType.WILD_DO_TABLE: "Could not add wild do table rule '%s'!",
    FilterType.WILD_IGNORE_TABLE: "Could not add wild ignore table rule '%s'!",
}
REWRITE_MISSING_ARROW = "Bad syntax in replicate-rewrite-db - missing '->'!"
REWRITE_EMPTY_FROM = "Bad syntax in replicate-rewrite-db - empty FROM db!"
REWRITE_EMPTY_TO = "Bad syntax in replicate-rewrite-db - empty TO db!"

GROUP_REPLICATION_CHANNEL_WARNING = (
    "There are per-channel replication filter(s) configured for group replication channel "
    "'%s' which is disallowed. The filter(s) have been discarded."
)
CHANNEL_DOES_NOT_EXIST_WARNING = (
    "There are per-channel replication filter(s) configured for channel '%s' which does not "
    "exist. The filter(s) have been discarded."
)


@dataclass(frozen=True)
class StartupRule:
    """One ``--replicate-*`` occurrence: ``channel`` None is a global rule; ``''`` is the default
    channel (written ``:value``). ``rule`` is a name, a ``db.table``, a pattern or, for rewrite, a
    ``(from, to)`` pair."""

    channel: str | None
    ftype: FilterType
    rule: Rule

    @property
    def configured_by(self) -> ConfiguredBy:
        if self.channel is None:
            return ConfiguredBy.STARTUP_OPTIONS
        return ConfiguredBy.STARTUP_OPTIONS_FOR_CHANNEL


# ------------------------------------------------------------------------------------------------
# Option names
# ------------------------------------------------------------------------------------------------


def canonical_option_name(name: str) -> tuple[str, bool]:
    """``--loose_replicate_do_db`` -> (``replicate-do-db``, loose=True).

    my_getopt treats ``-`` and ``_`` alike and strips one ``loose-`` prefix (which only changes
    what happens when the option is unknown). Names stay case-sensitive, as in MySQL.
    """
    bare = name[2:] if name.startswith("--") else name
    bare = bare.replace("_", "-")
    if bare.startswith("loose-"):
        return bare[len("loose-"):], True
    return bare, False


def split_command_line_option(argument: str) -> tuple[str, str | None]:
    """``--replicate-do-db=a=b`` -> (``replicate-do-db``, ``a=b``); no ``=`` gives value None.
    The first ``=`` separates, as in my_getopt."""
    bare = argument[2:] if argument.startswith("--") else argument
    name, sep, value = bare.partition("=")
    return name, (value if sep else None)


# ------------------------------------------------------------------------------------------------
# One --replicate-* occurrence
# ------------------------------------------------------------------------------------------------


def parse_rule(option_name: str, value: str | None) -> StartupRule:
    """Parse ``--<option_name>=<value>`` as mysqld does (spec section 6).

    The value is never split at commas. Without ``:`` it is a global rule; otherwise the text
    before the first ``:`` is the channel (verbatim: not lower-cased, not validated) and the rest
    the rule. Table and wild rules need a ``.``; rewrite rules are ``from->to``.

    MySQL quirk kept on purpose: for a per-channel table or wild rule without a dot, the server's
    message shows the *channel name* (``parse_filter_arg`` cut the argument at the ``:`` before the
    message is printed), e.g. ``ch1:nodot`` fails with ``Could not add do table rule 'ch1'!``.
    """
    name, _loose = canonical_option_name(option_name)
    ftype = REPLICATE_OPTIONS.get(name)
    if ftype is None:
        raise StartupError(f"unknown option '--{name}'")
    if value is None:
        raise StartupError(f"option '--{name}' requires an argument")
    channel, text = _split_channel(value)
    shown_in_errors = value if channel is None else channel
    return StartupRule(channel, ftype, _parse_rule_text(ftype, text, shown_in_errors))


def _split_channel(value: str) -> tuple[str | None, str]:
    """``ch:a:b`` -> (``ch``, ``a:b``); ``:x`` -> (``''``, ``x``); ``x`` -> (None, ``x``)."""
    channel, sep, rest = value.partition(":")
    return (channel, rest) if sep else (None, value)


def _parse_rule_text(ftype: FilterType, text: str, shown_in_errors: str) -> Rule:
    if ftype is FilterType.REWRITE_DB:
        return parse_rewrite(text)
    if ftype in _TABLE_RULE_FAILURES and "." not in text:
        raise StartupError(_TABLE_RULE_FAILURES[ftype] % shown_in_errors)
    return text


def parse_rewrite(text: str) -> tuple[str, str]:
    """mysqld's ``parse_replicate_rewrite_db``: split at the first ``->``; FROM loses trailing and
    TO leading whitespace (nothing else is trimmed)."""
    source, arrow, target = text.partition("->")
    if not arrow:
        raise StartupError(REWRITE_MISSING_ARROW)
    source = source.rstrip(_WHITESPACE)
    if not source:
        raise StartupError(REWRITE_EMPTY_FROM)
    target = target.lstrip(_WHITESPACE)
    if not target:
        raise StartupError(REWRITE_EMPTY_TO)
    return source, target


# ------------------------------------------------------------------------------------------------
# Option files
# ------------------------------------------------------------------------------------------------

SERVER_GROUPS: tuple[str, ...] = ("mysqld", "server", "mysqld-8.4")
"""The groups ``mysqld`` 8.4 reads (``load_default_groups``: ``mysqld``, ``server`` and
``MYSQL_BASE_VERSION``); group names compare case-insensitively."""

OPTION_FILE_EXTENSIONS = (".cnf",)
"""What ``!includedir`` picks up on Unix (``f_extensions``)."""

MAX_INCLUDE_DEPTH = 10

_VALUE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}


def read_option_file(
    path: str | os.PathLike[str],
    groups: Sequence[str] = SERVER_GROUPS,
    warnings: list[str] | None = None,
) -> list[tuple[str, str | None]]:
    """The ``(name, value)`` pairs of the server groups of an option file, in file order.

    Follows ``search_default_file_with_ext``: ``#`` and ``;`` comment lines, ``#`` comments after
    a value (not inside quotes), ``[group]`` headers, ``name`` (value None) or ``name = value`` with
    surrounding whitespace removed, one pair of matching quotes removed, and the escapes ``\\n \\t
    \\r \\b \\s \\" \\' \\\\`` (any other backslash is kept). ``!include FILE`` and ``!includedir
    DIR`` (only ``*.cnf``, in sorted order) read further files, each of which needs its own group
    header; relative paths are relative to the working directory, as in MySQL. Repeated options
    all come back (they add up for ``replicate-*``); names are returned as written -- see
    :func:`canonical_option_name` for ``-``/``_`` and ``loose-``.

    A world-writable file is skipped with MySQL's warning (appended to ``warnings``), as is a
    directive nested more than ten includes deep. A missing or unreadable file, a bad group line,
    an option before any group, an empty or failing ``!include``/``!includedir`` or text that is
    not UTF-8 raise :class:`StartupError` naming the file (and line). Deviation: MySQL silently
    ignores an ``!include`` whose file cannot be opened; here it is an error, because silently
    losing replication rules is worse than refusing to start.
    """
    return [(line.name, line.value) for line in read_option_lines(path, groups, warnings)]


@dataclass(frozen=True)
class OptionLine:
    """One option of an option file with where it was written: the file (an included one when
    it came through ``!include``), the 1-based line, and the line's text as written (comments
    included: ``replfilter lint`` reads its ``# replfilter: ignore=CODE`` there)."""

    name: str
    value: str | None
    path: str
    line: int
    text: str


def read_option_lines(
    path: str | os.PathLike[str],
    groups: Sequence[str] = SERVER_GROUPS,
    warnings: list[str] | None = None,
) -> list[OptionLine]:
    """:func:`read_option_file`, keeping the file and line of every option."""
    sink: list[str] = warnings if warnings is not None else []
    reader = _OptionFileReader({g.lower() for g in groups}, sink)
    name = os.fspath(path)
    try:
        handle = open(name, "rb")
    except OSError as exc:
        raise StartupError(f"Failed to open required defaults file: {name}", name) from exc
    with handle:
        reader.read(name, handle, depth=0)
    return reader.options


class _OptionFileReader:
    """One ``my_load_defaults`` pass: the selected groups, the collected pairs, the warnings."""

    def __init__(self, groups: set[str], warnings: list[str]) -> None:
        self.groups = groups
        self.warnings = warnings
        self.options: list[OptionLine] = []

    def read(self, name: str, handle: BinaryIO, depth: int) -> None:
        """Read one opened file, unless MySQL would refuse to read it."""
        if _is_world_writable(name):
            self.warnings.append(f"World-writable config file '{name}' is ignored.")
            return
        group: str | None = None
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise StartupError(
                    f"Invalid UTF-8 in config file {name} at line {number}.", name, number
                ) from exc
            group = self._line(name, number, text, group, depth)

    def _line(self, name: str, number: int, text: str, group: str | None, depth: int) -> str | None:
        """Handle one line; return the group in force after it."""
        line = text.lstrip(_WHITESPACE)
        if not line or line[0] in "#;":
            return group
        if line[0] == "!":
            self._directive(name, number, line, depth)
            return group
        if line[0] == "[":
            return _group_name(name, number, line)
        if group is None:
            raise StartupError(
                f"Found option without preceding group in config file {name} at line {number}.",
                name,
                number,
            )
        if group.lower() in self.groups:
            option, value = _option(_remove_end_comment(line))
            self.options.append(OptionLine(option, value, name, number, text.rstrip("\r\n")))
        return group

    def _directive(self, name: str, number: int, line: str, depth: int) -> None:
        """``!include`` / ``!includedir``; any other ``!`` line is ignored, as in MySQL."""
        if depth >= MAX_INCLUDE_DEPTH:
            self.warnings.append(
                f"Skipping '{line.rstrip(_WHITESPACE)}' directive as maximum include recursion "
                f"level was reached in file {name} at line {number}."
            )
            return
        body = line[1:].lstrip(_WHITESPACE)
        for keyword in ("includedir", "include"):
            following = body[len(keyword):len(keyword) + 1]
            if body.startswith(keyword) and following != "" and following in _WHITESPACE:
                argument = body[len(keyword):].strip(_WHITESPACE)
                if not argument:
                    raise StartupError(
                        f"Wrong '!{keyword}' directive in config file {name} at line {number}.",
                        name,
                        number,
                    )
                target = os.path.expanduser(argument)
                if keyword == "includedir":
                    self._include_dir(name, number, target, depth)
                else:
                    self._include_file(name, number, target, depth)
                return

    def _include_file(self, name: str, number: int, target: str, depth: int) -> None:
        try:
            handle = open(target, "rb")
        except OSError as exc:
            raise StartupError(
                f"Failed to open included file {target} (OS errno {exc.errno} - {exc.strerror}) "
                f"in config file {name} at line {number}.",
                name,
                number,
            ) from exc
        with handle:
            self.read(target, handle, depth + 1)

    def _include_dir(self, name: str, number: int, directory: str, depth: int) -> None:
        try:
            entries = os.listdir(directory)
        except OSError as exc:
            raise StartupError(
                f"Can't read dir of '{directory}' (OS errno {exc.errno} - {exc.strerror}) "
                f"in config file {name} at line {number}.",
                name,
                number,
            ) from exc
        for entry in sorted(entries, key=os.fsencode):
            dot = entry.rfind(".")
            if dot < 0 or entry[dot:] not in OPTION_FILE_EXTENSIONS:
                continue
            target = os.path.join(directory, entry)
            if not os.path.isfile(target):
                continue  # a directory or dangling link reads as nothing in MySQL too
            try:
                handle = open(target, "rb")
            except OSError:
                continue  # MySQL ignores files of an included directory it cannot open
            with handle:
                self.read(target, handle, depth + 1)


def _is_world_writable(name: str) -> bool:
    """``check_file_permissions``: MySQL skips world-writable regular files."""
    try:
        info = os.stat(name)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and bool(info.st_mode & stat.S_IWOTH)


def _group_name(name: str, number: int, line: str) -> str:
    """``[name]`` -> ``name`` (text after ``]`` is ignored; trailing spaces dropped)."""
    end = line.find("]", 1)
    if end < 0:
        raise StartupError(
            f"Wrong group definition in config file {name} at line {number}.", name, number
        )
    return line[1:end].rstrip(_WHITESPACE)


def _remove_end_comment(line: str) -> str:
    """Cut the line at the first ``#`` outside single or double quotes (``remove_end_comment``;
    a backslash escapes a quote only inside quotes)."""
    quote = ""
    escape = False
    for index, char in enumerate(line):
        if char in "'\"" and not escape:
            if not quote:
                quote = char
            elif quote == char:
                quote = ""
        if not quote and char == "#":
            return line[:index]
        escape = bool(quote) and char == "\\" and not escape
    return line


def _option(line: str) -> tuple[str, str | None]:
    """``name = "value"`` -> (``name``, ``value``) with MySQL's trimming, unquoting and escapes."""
    name, equals, value = line.partition("=")
    name = name.rstrip(_WHITESPACE)
    if not equals:
        return name, None
    value = value.strip(_WHITESPACE)
    if len(value) > 1 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    return name, _unescape_value(value)


def _unescape_value(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        char = value[i]
        if char == "\\" and i < len(value) - 1:
            following = value[i + 1]
            out.append(_VALUE_ESCAPES.get(following, "\\" + following))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


# ------------------------------------------------------------------------------------------------
# Everything the server was told
# ------------------------------------------------------------------------------------------------

KNOWN_NON_FILTER_REPLICATE_OPTIONS = frozenset({"replicate-same-server-id"})
"""mysqld options that start with ``replicate-`` but are not filters."""


@dataclass(frozen=True)
class StartupSettings:
    """What start-up cares about: ``lower_case_table_names`` and the replicate rules in the order
    mysqld applies them (option files first, then the command line)."""

    lower_case_table_names: int = 0
    rules: tuple[StartupRule, ...] = ()
    warnings: tuple[str, ...] = ()


def collect_startup_settings(
    file_options: Iterable[tuple[str, str | None]] = (),
    command_line: Iterable[tuple[str, str | None]] = (),
) -> StartupSettings:
    """Combine the option-file pairs and the command-line pairs as mysqld does.

    Option files come first, then the command line; rules accumulate, the last
    ``lower_case_table_names`` wins (0, 1 or 2, anything else is an error).

    Unknown options: a real ``my.cnf`` names hundreds of server options this tool has no use for,
    so unknown options **from option files are ignored** -- except unknown ``replicate-*`` names
    (a misspelt filter must not vanish silently), which are errors unless ``loose-``. The
    **command line accepts only** the replicate options and ``lower-case-table-names``; anything
    else is an error (``unknown option '--x'``), and an unknown ``loose-`` option is skipped with
    mysqld's warning.
    """
    lower_case_table_names = 0
    rules: list[StartupRule] = []
    warnings: list[str] = []
    sources = [(pair, True) for pair in file_options] + [(pair, False) for pair in command_line]
    for (written, value), from_file in sources:
        name, loose = canonical_option_name(written)
        if name in REPLICATE_OPTIONS:
            rules.append(parse_rule(name, value))
        elif name == LOWER_CASE_TABLE_NAMES:
            lower_case_table_names = parse_lower_case_table_names(value)
        elif from_file and not _looks_like_filter_option(name):
            continue
        elif loose:
            warnings.append(_unknown_option_message(written, value))
        else:
            raise StartupError(_unknown_option_message(written, value))
    return StartupSettings(lower_case_table_names, tuple(rules), tuple(warnings))


def _looks_like_filter_option(name: str) -> bool:
    return name.startswith("replicate-") and name not in KNOWN_NON_FILTER_REPLICATE_OPTIONS


def _unknown_option_message(written: str, value: str | None) -> str:
    """my_getopt's wording: ``unknown option '--x'`` / ``unknown variable 'x=v'``."""
    bare = written[2:] if written.startswith("--") else written
    if value is None:
        return f"unknown option '--{bare}'"
    return f"unknown variable '{bare}={value}'"


def parse_lower_case_table_names(value: str | None) -> int:
    """``0``, ``1`` or ``2``; anything else stops the start-up."""
    if value is None:
        raise StartupError(f"option '--{LOWER_CASE_TABLE_NAMES}' requires an argument")
    if value not in ("0", "1", "2"):
        raise StartupError(
            f"Invalid value '{value}' for lower_case_table_names: it must be 0, 1 or 2."
        )
    return int(value)


# ------------------------------------------------------------------------------------------------
# Building the filters (spec 5.1)
# ------------------------------------------------------------------------------------------------


def apply_startup(
    state: ReplicaState, rules: Iterable[StartupRule], now_us: int
) -> tuple[ReplicaState, list[str]]:
    """Rebuild every filter of ``state`` from the start-up rules, as a server restart does.

    Filters never persist, so whatever filters ``state`` holds are dropped; channels, their
    source settings and thread states are kept. In order (spec 5.1):

    1. global rules -> the global filter (STARTUP_OPTIONS); per-channel rules -> a filter per
       literal channel text (STARTUP_OPTIONS_FOR_CHANNEL); every occurrence resets the type's
       statistics to ``now_us``; table rules collapse under ``state.collation``;
    2. filters for a group replication channel name are discarded with the GR warning;
    3. each existing channel takes its filter: a GR channel gets an empty one; a configured channel
       keeps its own rules and copies the global rules of each type it has none of; an existing
       but unconfigured channel that got rules logs the "does not exist" warning and is reset to a
       brand-new empty filter;
    4. filters for channels that do not exist are discarded with the same "does not exist"
       warning (in channel-name byte order).
    """
    global_filters, per_channel = _build_filters(rules, state, now_us)
    warnings = _discard_group_replication_filters(per_channel)
    channels = []
    for channel in state.channels:
        own = per_channel.pop(channel.name, None)
        filters, warning = _attach(channel.name, channel.configured, own, global_filters, now_us)
        if warning:
            warnings.append(warning)
        channels.append(replace(channel, filters=filters))
    for name in sorted(per_channel, key=channel_sort_key):
        warnings.append(CHANNEL_DOES_NOT_EXIST_WARNING % _truncate_192(name))
    new_state = replace(state, channels=tuple(channels), global_filters=global_filters)
    return new_state, warnings


def _build_filters(
    rules: Iterable[StartupRule], state: ReplicaState, now_us: int
) -> tuple[FilterSet, dict[str, FilterSet]]:
    global_filters = EMPTY_FILTERS
    per_channel: dict[str, FilterSet] = {}
    for rule in rules:
        if rule.channel is None:
            global_filters = global_filters.add_rule(
                rule.ftype, rule.rule, rule.configured_by, now_us, state.collation
            )
        else:
            current = per_channel.get(rule.channel, EMPTY_FILTERS)
            per_channel[rule.channel] = current.add_rule(
                rule.ftype, rule.rule, rule.configured_by, now_us, state.collation
            )
    return global_filters, per_channel


def _discard_group_replication_filters(per_channel: dict[str, FilterSet]) -> list[str]:
    warnings = []
    for name in sorted(per_channel, key=channel_sort_key):
        if is_group_replication_channel(name):
            del per_channel[name]
            warnings.append(GROUP_REPLICATION_CHANNEL_WARNING % _truncate_192(name))
    return warnings


def _attach(
    name: str,
    configured: bool,
    own: FilterSet | None,
    global_filters: FilterSet,
    now_us: int,
) -> tuple[FilterSet, str | None]:
    """The filter one existing channel ends up with, and the warning it causes, if any."""
    if is_group_replication_channel(name):
        return EMPTY_FILTERS, None
    if configured:
        return (own or EMPTY_FILTERS).with_global_copy(global_filters, now_us), None
    if own is not None and not own.is_empty:
        return EMPTY_FILTERS, CHANNEL_DOES_NOT_EXIST_WARNING % _truncate_192(name)
    return EMPTY_FILTERS, None


def _truncate_192(name: str) -> str:
    """``%.192s``: the error log shows at most 192 bytes of a channel name."""
    return name.encode("utf-8")[:192].decode("utf-8", "ignore")


__all__ = [
    "CHANNEL_DOES_NOT_EXIST_WARNING",
    "GROUP_REPLICATION_CHANNEL_WARNING",
    "OptionLine",
    "REPLICATE_OPTIONS",
    "SERVER_GROUPS",
    "StartupError",
    "StartupRule",
    "StartupSettings",
    "apply_startup",
    "canonical_option_name",
    "collect_startup_settings",
    "parse_lower_case_table_names",
    "parse_rewrite",
    "parse_rule",
    "read_option_file",
    "read_option_lines",
    "split_command_line_option",
]
