"""``--datadir``: the channels' connection metadata on disk, as MySQL keeps it across restarts.

What persists is what MySQL's connection metadata repository holds: each channel's name and
source settings (a channel is configured when its host is set). Filters set by CHANGE REPLICATION
FILTER do not persist, as in MySQL; startup options rebuild them at every start. Thread states do
not persist either: replfilter starts with all threads stopped (as ``--skip-replica-start``),
because there is no source to connect to.

Writes are atomic (temporary file, fsync, rename). One process at a time: an exclusive ``flock``
on ``replfilter.lock`` refuses a second process. A corrupt or unreadable file is an error that
names the file and the reason, and is never overwritten.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from pathlib import Path
from typing import IO

from ..core.version import DEFAULT_VERSION, ServerVersion
from ..core.errors import MySQLError
from .catalog_store import CatalogStoreError, load_catalog, save_catalog
from .state import DEFAULT_CHANNEL, Channel, ReplicaState, SourceSettings

METADATA_FILE = "connection_metadata.json"
LOCK_FILE = "replfilter.lock"
FORMAT_VERSION = 1


class DataDirError(Exception):
    """A data directory that cannot be used; the message says which file and why."""


class DataDirectory:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.metadata_path = self.path / METADATA_FILE
        self._lock_handle: IO[str] | None = None

    # ---- lifetime
    def open(self) -> "DataDirectory":
        """Create the directory if needed and take the lock (refused if another process has it)."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataDirError(f"Can't create data directory '{self.path}': {exc.strerror}") from None
        if not self.path.is_dir():
            raise DataDirError(f"Data directory '{self.path}' is not a directory")
        lock_path = self.path / LOCK_FILE
        try:
            handle = open(lock_path, "a+", encoding="utf-8")
        except OSError as exc:
            raise DataDirError(f"Can't open lock file '{lock_path}': {exc.strerror}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise DataDirError(
                f"Unable to lock '{lock_path}': data directory '{self.path}' is in use by {holder}"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"replfilter pid {os.getpid()}\n")
        handle.flush()
        self._lock_handle = handle
        return self

    def close(self) -> None:
        if self._lock_handle is not None:
            fcntl.flock(self._lock_handle, fcntl.LOCK_UN)
            self._lock_handle.close()
            self._lock_handle = None

    def __enter__(self) -> "DataDirectory":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- reading
    def load_channels(self) -> tuple[Channel, ...]:
        """The stored channels, or just the unconfigured default channel on a new directory."""
        if not self.metadata_path.exists():
            return (Channel(DEFAULT_CHANNEL),)
        try:
            text = self.metadata_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise DataDirError(f"Can't read '{self.metadata_path}': {reason}") from None
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataDirError(
                f"Corrupt '{self.metadata_path}' at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
        try:
            return _channels_from_document(document)
        except (ValueError, TypeError, KeyError) as exc:
            raise DataDirError(f"Corrupt '{self.metadata_path}': {exc}") from None

    def load_state(self, lower_case_table_names: int = 0, version: ServerVersion = DEFAULT_VERSION) -> ReplicaState:
        channels = self.load_channels()
        state = ReplicaState.fresh(lower_case_table_names, version)
        state = state.without_channel(DEFAULT_CHANNEL)
        for channel in channels:
            state = state.with_channel(channel)
        if state.channel(DEFAULT_CHANNEL) is None:
            state = state.with_channel(Channel(DEFAULT_CHANNEL))
        try:
            return state.with_replica_catalog(load_catalog(self.path, state.collation))
        except CatalogStoreError as exc:
            raise DataDirError(str(exc)) from None

    # ---- writing
    def save(self, state: ReplicaState) -> None:
        """Atomically replace the metadata file; failure is a MySQL-style error for the statement."""
        document = {
            "version": FORMAT_VERSION,
            "channels": [{"name": c.name, "source": c.source.to_dict()} for c in state.channels],
        }
        try:
            fd, tmp = tempfile.mkstemp(prefix=".connection_metadata.", dir=self.path)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(document, handle, indent=2, ensure_ascii=False)
                    handle.write("\n")
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, self.metadata_path)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            # ER_ERROR_ON_WRITE: "Error writing file '%s' (OS errno %d - %s)"
            raise MySQLError(3, "HY000", f"Error writing file '{self.metadata_path}' (OS errno {exc.errno} - {exc.strerror})") from None

    def observer(self, old: ReplicaState, new: ReplicaState) -> None:
        """Session observer: write only when the persistent part (names, sources) changed."""
        if _persistent(old) != _persistent(new):
            self.save(new)
        if old.replica_catalog is not new.replica_catalog:
            save_catalog(self.path, new.replica_catalog)


def _persistent(state: ReplicaState) -> tuple[tuple[str, SourceSettings], ...]:
    return tuple((c.name, c.source) for c in state.channels)


def _channels_from_document(document: object) -> tuple[Channel, ...]:
    if not isinstance(document, dict):
        raise ValueError("expected a JSON object at the top level")
    version = document.get("version")
    if version != FORMAT_VERSION:
        raise ValueError(f"unsupported format version {version!r} (expected {FORMAT_VERSION})")
    entries = document.get("channels")
    if not isinstance(entries, list):
        raise ValueError("'channels' must be a list")
    channels: list[Channel] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ValueError(f"channel #{index + 1}: expected an object with a string 'name'")
        name = entry["name"]
        if name in seen:
            raise ValueError(f"channel {name!r} is listed twice")
        seen.add(name)
        source = entry.get("source", {})
        if not isinstance(source, dict):
            raise ValueError(f"channel {name!r}: 'source' must be an object")
        try:
            settings = SourceSettings.from_dict(source)
        except ValueError as exc:
            raise ValueError(f"channel {name!r}: {exc}") from None
        channels.append(Channel(name, settings))
    return tuple(channels)
