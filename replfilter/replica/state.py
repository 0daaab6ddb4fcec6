"""The replica's state: channels (with their source settings, threads and filters) and the global filter.

Immutable on purpose: the executor computes a new state and the caller swaps it in only when the
whole statement succeeded, so "a failed statement changes nothing" holds by construction. No I/O
happens here; persistence (``--datadir``) and the Spark runtime observe state changes from outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Iterator

from ..core.filters import EMPTY_FILTERS, FilterSet, NameCollation
from ..core.version import DEFAULT_VERSION, ServerVersion
from ..dialect.ast import UntilCondition
from .catalog import Catalog

DEFAULT_CHANNEL = ""
GROUP_REPLICATION_CHANNELS = ("group_replication_applier", "group_replication_recovery")
MAX_CHANNELS = 256


def channel_sort_key(name: str) -> bytes:
    """MySQL keeps channels in a map ordered by the bytes of the name; ``''`` sorts first."""
    return name.encode("utf-8")


def is_group_replication_channel(name: str) -> bool:
    return name in GROUP_REPLICATION_CHANNELS


@dataclass(frozen=True)
class SourceSettings:
    """What CHANGE REPLICATION SOURCE TO stored for a channel (its connection metadata).

    Field names are the option names without ``SOURCE_`` (``SOURCE_HOST`` -> ``host``,
    ``RELAY_LOG_FILE`` -> ``relay_log_file``); defaults are MySQL 8.4's.
    """

    host: str = ""
    user: str = ""
    password: str = ""
    port: int = 3306
    connect_retry: int = 60
    retry_count: int = 10
    delay: int = 0
    log_file: str = ""
    log_pos: int = 4
    relay_log_file: str = ""
    relay_log_pos: int = 0
    auto_position: int = 0
    bind: str = ""

    @staticmethod
    def field_for(option_name: str) -> str:
        name = option_name.lower()
        return name[len("source_"):] if name.startswith("source_") else name

    def with_option(self, option_name: str, value: object) -> "SourceSettings":
        return replace(self, **{self.field_for(option_name): value})

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> "SourceSettings":
        known = {f.name: f for f in fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            raise ValueError(f"unknown source setting(s): {', '.join(sorted(unknown))}")
        for key, value in data.items():
            expected = type(getattr(cls(), key))
            if not isinstance(value, expected) or isinstance(value, bool):
                raise ValueError(f"source setting {key!r} must be {expected.__name__}, not {value!r}")
        return cls(**data)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Channel:
    name: str
    source: SourceSettings = field(default_factory=SourceSettings)
    io_running: bool = False
    sql_running: bool = False
    filters: FilterSet = EMPTY_FILTERS
    last_sql_error: tuple[int, str] | None = None  # (errno, text) the applier stopped with
    last_sql_error_at: int = 0
    """When the applier stopped with ``last_sql_error`` (µs since the epoch; 0: not known): the
    server stamps the error as it reports it (``Last_SQL_Error_Timestamp``)."""
    until: UntilCondition | None = None
    """START REPLICA ... UNTIL of the running applier; cleared when the SQL thread stops."""

    @property
    def configured(self) -> bool:
        """MySQL's ``is_configured``: the channel exists and has a non-empty source host."""
        return self.source.host != ""

    @property
    def is_group_replication(self) -> bool:
        return is_group_replication_channel(self.name)

    @property
    def any_thread_running(self) -> bool:
        return self.io_running or self.sql_running


@dataclass(frozen=True)
class ReplicaState:
    """All channels in name order, the global filter, the start-up settings that change how
    statements behave (``lower_case_table_names``, the simulated server version), and what is
    known of the schemas: each channel's source's, and the replica's own.

    Schemas are optional: ``None`` means "not known" (no ``--schema`` was given), never "empty".
    The sources' catalogs are what ``--schema [channel:]FILE`` loaded; the replica has one catalog,
    built by replaying each source's DDL through that channel's filters.
    """

    channels: tuple[Channel, ...] = (Channel(DEFAULT_CHANNEL),)
    global_filters: FilterSet = EMPTY_FILTERS
    collation: NameCollation = field(default_factory=NameCollation)
    version: ServerVersion = DEFAULT_VERSION
    gtid_mode: str = "OFF"
    """``--gtid-mode`` (OFF, OFF_PERMISSIVE, ON_PERMISSIVE, ON; 8.4's default OFF): channel
    statements check it (SOURCE_AUTO_POSITION = 1 needs it not OFF, error 1777)."""
    enforce_gtid_consistency: str = "OFF"
    skip_replica_start: bool = False
    """``--skip-replica-start`` as given (mysqld's default OFF). replfilter's threads start
    stopped either way (there is no source to connect to); the option decides note 1278."""
    """``--enforce-gtid-consistency`` (OFF, ON, WARN): ``gtid_mode=ON`` needs it ON to start."""
    every_source_catalog: Catalog | None = None      # a --schema FILE without a channel prefix
    channel_source_catalogs: tuple[tuple[str, Catalog], ...] = ()   # --schema channel:FILE
    replica_catalog: Catalog | None = None

    @classmethod
    def fresh(cls, lower_case_table_names: int = 0, version: ServerVersion = DEFAULT_VERSION) -> "ReplicaState":
        """A new replica: only the unconfigured default channel exists."""
        return cls(collation=NameCollation(lower_case_table_names), version=version)

    def __iter__(self) -> Iterator[Channel]:
        return iter(self.channels)

    def channel(self, name: str) -> Channel | None:
        return self._channels_by_name.get(name)

    @cached_property
    def _channels_by_name(self) -> dict[str, Channel]:
        """Built on first lookup, once per state (a state never changes): the applier and the
        filter tables look up every channel after each statement, which a scan made quadratic."""
        return {channel.name: channel for channel in reversed(self.channels)}  # the first of a name wins

    @property
    def channel_names(self) -> tuple[str, ...]:
        return tuple(channel.name for channel in self.channels)

    def configured_channels(self) -> tuple[Channel, ...]:
        """Configured, non-group-replication channels in name order: the ones clause-less
        CHANGE REPLICATION FILTER, START/STOP and SHOW REPLICA STATUS act on."""
        return tuple(c for c in self.channels if c.configured and not c.is_group_replication)

    def with_channel(self, channel: Channel) -> "ReplicaState":
        others = [c for c in self.channels if c.name != channel.name]
        ordered = sorted([*others, channel], key=lambda c: channel_sort_key(c.name))
        return replace(self, channels=tuple(ordered))

    def without_channel(self, name: str) -> "ReplicaState":
        return replace(self, channels=tuple(c for c in self.channels if c.name != name))

    def with_global_filters(self, filters: FilterSet) -> "ReplicaState":
        return replace(self, global_filters=filters)

    def source_catalog(self, channel: str) -> Catalog | None:
        """The schema of ``channel``'s source: its own (``--schema channel:FILE``, which already
        includes the files given for every source) or else the one every source shares; None
        when no schema was given for it."""
        for name, catalog in self.channel_source_catalogs:
            if name == channel:
                return catalog
        return self.every_source_catalog

    def with_source_catalog(self, channel: str | None, catalog: Catalog) -> "ReplicaState":
        """``channel=None`` sets the catalog every channel's source shares."""
        if channel is None:
            return replace(self, every_source_catalog=catalog)
        others = tuple((n, c) for n, c in self.channel_source_catalogs if n != channel)
        ordered = tuple(sorted([*others, (channel, catalog)], key=lambda item: channel_sort_key(item[0])))
        return replace(self, channel_source_catalogs=ordered)

    def with_replica_catalog(self, catalog: Catalog | None) -> "ReplicaState":
        return replace(self, replica_catalog=catalog)
