"""Server startup: the ``--replicate-*`` options, option files, and the filters they build.

This is MySQL 8.4's ``mysqld`` start-up as far as replication filters go
(mysql-filter-statements.md, sections 5.1 and 6; ``sql/mysqld.cc``). Option files are read by
:mod:`.option_files`; their ``(name, value)`` pairs come in here like the command line's:

* :func:`parse_rule` turns one ``--replicate-*=[channel:]value`` occurrence into a
  :class:`StartupRule`, failing with the server's own start-up messages;
* :func:`collect_startup_settings` keeps, from everything the option files and the command line
  said, ``lower_case_table_names`` and the replicate rules, in the order mysqld sees them;
* :func:`apply_startup` rebuilds the global and per-channel filters of a replica from those rules
  and returns the error-log warnings a real server would write.

Nothing here touches the executor; the state machine only sees the resulting
:class:`~replfilter.replica.state.ReplicaState`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from ..core.filters import EMPTY_FILTERS, ConfiguredBy, FilterSet, FilterType, Rule
from ..core.version import DEFAULT_VERSION, ServerVersion
from ..dialect.lexical import invalid_utf8
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
MYSQL_VERSION = "mysql-version"
"""replfilter's own option (not mysqld's): the server version to simulate, 8.4 or 8.0."""

WHITESPACE = " \t\n\v\f\r"
"""``my_isspace()`` of latin1 for the ASCII range: what mysqld trims around names and values."""

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
    """Parse ``--<option_name>=<value>`` as mysqld does (mysql-filter-statements.md, section 6).

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
    bad = invalid_utf8(value)
    if bad is not None:  # argv's undecodable bytes arrive as lone surrogates; no rule may hold them
        raise StartupError(f"Invalid utf8mb4 character string in --{name}: '{bad}'")
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
    source = source.rstrip(WHITESPACE)
    if not source:
        raise StartupError(REWRITE_EMPTY_FROM)
    target = target.lstrip(WHITESPACE)
    if not target:
        raise StartupError(REWRITE_EMPTY_TO)
    return source, target


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
    version: ServerVersion = DEFAULT_VERSION
    gtid_mode: str = "OFF"
    enforce_gtid_consistency: str = "OFF"
    skip_replica_start: bool = False


SKIP_REPLICA_START = ("skip-replica-start", "skip-slave-start")
GTID_MODE = "gtid-mode"
ENFORCE_GTID_CONSISTENCY = "enforce-gtid-consistency"
_GTID_MODES = ("OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON")
_CONSISTENCY = ("OFF", "ON", "WARN")


def parse_enum_option(name: str, value: str | None, values: tuple[str, ...]) -> str:
    """An enumeration option as my_getopt reads it: a name (any letter case) or its index."""
    if value is None:
        raise StartupError(f"option '--{name}' requires an argument")
    upper = value.upper()
    if upper in values:
        return upper
    if value.isdigit() and int(value) < len(values):
        return values[int(value)]
    raise StartupError(f"Invalid value '{value}' for {name.replace('-', '_')}: it must be one of {', '.join(values)}.")


def check_gtid_settings(settings: "StartupSettings") -> None:
    """mysqld refuses to start with ``gtid_mode=ON`` unless ``enforce_gtid_consistency=ON``
    (ER_GTID_MODE_ON_REQUIRES_ENFORCE_GTID_CONSISTENCY_ON, sql/rpl_gtid_mode.cc)."""
    if settings.gtid_mode == "ON" and settings.enforce_gtid_consistency != "ON":
        raise StartupError("GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON.")


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
    **command line accepts only** the replicate options, ``lower-case-table-names``,
    ``gtid-mode``, ``enforce-gtid-consistency`` and ``mysql-version``; anything
    else is an error (``unknown option '--x'``), and an unknown ``loose-`` option is skipped with
    mysqld's warning.
    """
    lower_case_table_names = 0
    version = DEFAULT_VERSION
    gtid = {GTID_MODE: "OFF", ENFORCE_GTID_CONSISTENCY: "OFF"}
    skip_replica_start = False
    rules: list[StartupRule] = []
    warnings: list[str] = []
    sources = [(pair, True) for pair in file_options] + [(pair, False) for pair in command_line]
    for (written, value), from_file in sources:
        name, loose = canonical_option_name(written)
        if name in REPLICATE_OPTIONS:
            rules.append(parse_rule(name, value))
        elif name == LOWER_CASE_TABLE_NAMES:
            lower_case_table_names = parse_lower_case_table_names(value)
        elif name == MYSQL_VERSION:
            version = parse_mysql_version(value)
        elif name in SKIP_REPLICA_START:
            flag = value.upper() if value is not None else "ON"  # my_getopt's booleans
            skip_replica_start = parse_enum_option(name, {"TRUE": "ON", "FALSE": "OFF"}.get(flag, flag), ("OFF", "ON")) == "ON"
        elif name in gtid:
            gtid[name] = parse_enum_option(name, value, _GTID_MODES if name == GTID_MODE else _CONSISTENCY)
        elif from_file and not _looks_like_filter_option(name):
            continue
        elif loose:
            warnings.append(_unknown_option_message(written, value))
        else:
            raise StartupError(_unknown_option_message(written, value))
    settings = StartupSettings(lower_case_table_names, tuple(rules), tuple(warnings), version,
                               gtid[GTID_MODE], gtid[ENFORCE_GTID_CONSISTENCY], skip_replica_start)
    check_gtid_settings(settings)
    return settings


def _looks_like_filter_option(name: str) -> bool:
    return name.startswith("replicate-") and name not in KNOWN_NON_FILTER_REPLICATE_OPTIONS


def _unknown_option_message(written: str, value: str | None) -> str:
    """my_getopt's wording: ``unknown option '--x'`` / ``unknown variable 'x=v'``."""
    bare = written[2:] if written.startswith("--") else written
    if value is None:
        return f"unknown option '--{bare}'"
    return f"unknown variable '{bare}={value}'"


def parse_mysql_version(value: str | None) -> ServerVersion:
    """``8.4`` (the default) or ``8.0`` (a full version such as ``8.0.36`` names its series)."""
    if value is None:
        raise StartupError(f"option '--{MYSQL_VERSION}' requires an argument")
    try:
        return ServerVersion.from_option(value)
    except ValueError:
        raise StartupError(f"Invalid value '{value}' for mysql_version: it must be 8.4 or 8.0.") from None


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
# Building the filters (mysql-filter-statements.md, 5.1)
# ------------------------------------------------------------------------------------------------


def apply_startup(
    state: ReplicaState, rules: Iterable[StartupRule], now_us: int
) -> tuple[ReplicaState, list[str]]:
    """Rebuild every filter of ``state`` from the start-up rules, as a server restart does.

    Filters never persist, so whatever filters ``state`` holds are dropped; channels, their
    source settings and thread states are kept. In order (mysql-filter-statements.md, 5.1):

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
    "REPLICATE_OPTIONS",
    "StartupError",
    "StartupRule",
    "StartupSettings",
    "apply_startup",
    "canonical_option_name",
    "collect_startup_settings",
    "parse_lower_case_table_names",
    "parse_mysql_version",
    "parse_rewrite",
    "parse_rule",
    "split_command_line_option",
]
