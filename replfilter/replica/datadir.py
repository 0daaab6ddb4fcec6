"""``--datadir``: the channels' connection metadata on disk, as MySQL keeps it across restarts.

What persists is what MySQL's connection metadata repository holds: each channel's name and
source settings (a channel is configured when its host is set). Filters set by CHANGE REPLICATION
FILTER do not persist, as in MySQL; startup options rebuild them at every start. Thread states do
not persist either: replfilter starts with all threads stopped (as ``--skip-replica-start``),
because there is no source to connect to.

Writes are atomic (temporary file, fsync, rename); a temporary file a killed process left behind
is removed at the next start. One process at a time: an exclusive ``flock`` on
``replfilter.lock`` refuses a second process. A corrupt or unreadable file, or one holding a value
``CHANGE REPLICATION SOURCE`` could never have stored, is an error that names the file, the
channel and the field, and is never overwritten. A symbolic link is followed: for the directory it
must lead to a directory, and ``connection_metadata.json`` is written through its link, atomically,
beside the link's target, so the link stays.

A data directory whose lock file cannot be written (a read-only file system or directory) is
opened read-only, as ``mysqld --read-only`` still serves reads: channels load, SHOW and SELECT
work, filters change in memory (they never persist), and a statement that would change the stored
channels fails with the write error and changes nothing. A writer holding the directory still
refuses a reader: the reader takes a shared lock on an existing lock file.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from pathlib import Path
from typing import IO

from ..core.version import DEFAULT_VERSION, ServerVersion
from ..core.errors import MySQLError
from ..dialect.source_options import MAX_SOURCE_DELAY, SUPPORTED_OPTIONS, UINT_OPTIONS, ULONG_MAX
from .atomic_file import write_atomically
from .catalog_store import CATALOG_FILE, CatalogStoreError, load_catalog, save_catalog
from .catalog_store import TEMPORARY_PREFIX as CATALOG_TEMPORARY_PREFIX
from .executor import valid_channel_name
from .stored_json import StoredFileError, read_stored_json
from .state import DEFAULT_CHANNEL, MAX_CHANNELS, Channel, ReplicaState, SourceSettings

METADATA_FILE = "connection_metadata.json"
LOCK_FILE = "replfilter.lock"
TEMPORARY_PREFIX = ".connection_metadata."
"""What :meth:`DataDirectory.save` names its temporary files; only this process writes them while
it holds the lock, so any found at start-up were left by a killed process."""
LEFTOVER_PREFIXES = (TEMPORARY_PREFIX, CATALOG_TEMPORARY_PREFIX)
"""The temporary files of both files kept here (``catalog_store.save_catalog`` writes the second)."""
FORMAT_VERSION = 1
READ_ONLY_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
"""Why a lock file could not be created when the directory is only readable."""

NUMBER_LIMITS: dict[str, int] = {
    SourceSettings.field_for(option): (
        2**32 - 1 if option in UINT_OPTIONS
        else MAX_SOURCE_DELAY if option == "SOURCE_DELAY"
        else 1 if option == "SOURCE_AUTO_POSITION"
        else ULONG_MAX
    )
    for option, kind in SUPPORTED_OPTIONS.items()
    if kind == "number"
}
"""The largest value CHANGE REPLICATION SOURCE can store in each numeric field (a 32-bit ``uint``
for the port and the connect retry, MASTER_DELAY_MAX for the delay, 0/1 for auto-position, a
``ulong`` otherwise; none is negative): a metadata file holding anything else was not written by
a replica, and is refused on load rather than shown as if MySQL had accepted it."""


class DataDirError(Exception):
    """A data directory that cannot be used; the message says which file and why."""


class DataDirectory:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.metadata_path = self.path / METADATA_FILE
        self._lock_handle: IO[str] | None = None
        self._read_only_error: OSError | None = None

    # ---- lifetime
    def open(self) -> "DataDirectory":
        """Create the directory if needed and take the lock (refused if another process has it);
        open it read-only when the lock file cannot be written. Leftover temporary files of a
        killed writer are removed."""
        self._check_path()
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
            if exc.errno not in READ_ONLY_ERRNOS:
                raise DataDirError(f"Can't open lock file '{lock_path}': {exc.strerror}") from None
            return self._open_read_only(lock_path, exc)
        self._lock(handle, lock_path, fcntl.LOCK_EX)
        try:  # through the descriptor: nothing stays buffered for close() to fail on again
            os.ftruncate(handle.fileno(), 0)
            os.pwrite(handle.fileno(), f"replfilter pid {os.getpid()}\n".encode(), 0)
        except OSError as exc:  # e.g. ENOSPC: a full disk
            handle.close()
            raise DataDirError(_write_error(lock_path, exc)) from None
        self._lock_handle = handle
        self._remove_leftover_temporaries()
        return self

    def _check_path(self) -> None:
        """A path that cannot be a data directory, said as what it is (``mkdir`` alone would
        answer "File exists" for a dangling link, a link loop and a file alike)."""
        if not os.path.lexists(self.path):
            return
        if os.path.islink(self.path):
            target = os.readlink(self.path)
            try:
                os.stat(self.path)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise DataDirError(f"Data directory '{self.path}' is a symbolic link that loops ('{target}')") from None
                raise DataDirError(
                    f"Data directory '{self.path}' is a symbolic link to '{target}', which does not exist"
                ) from None
            if not os.path.isdir(self.path):
                raise DataDirError(f"Data directory '{self.path}' is a symbolic link to '{target}', which is not a directory")
        elif not os.path.isdir(self.path):
            raise DataDirError(f"Data directory '{self.path}' is a file, not a directory")

    def _lock(self, handle: IO[str], lock_path: Path, mode: int) -> None:
        try:
            fcntl.flock(handle, mode | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise DataDirError(
                f"Unable to lock '{lock_path}': data directory '{self.path}' is in use by {holder}"
            ) from None

    def _open_read_only(self, lock_path: Path, why: OSError) -> "DataDirectory":
        """No lock file can be written: read the channels, refuse to change them. A writer may
        still hold the directory (with other permissions): a shared lock on its lock file, when
        there is one, refuses this reader while the writer runs."""
        try:
            handle = open(lock_path, "r", encoding="utf-8")
        except FileNotFoundError:
            handle = None
        except OSError as exc:
            raise DataDirError(f"Can't open lock file '{lock_path}': {exc.strerror}") from None
        if handle is not None:
            self._lock(handle, lock_path, fcntl.LOCK_SH)
            self._lock_handle = handle
        self._read_only_error = why
        return self

    def _remove_leftover_temporaries(self) -> None:
        """Temporary metadata files of a writer killed between writing and renaming. Under the
        exclusive lock no other writer exists, so every one found is stale."""
        for entry in os.scandir(self.path):
            if entry.name.startswith(LEFTOVER_PREFIXES) and entry.is_file(follow_symlinks=False):
                try:
                    os.unlink(entry.path)
                except FileNotFoundError:
                    pass

    @property
    def startup_warnings(self) -> list[str]:
        """What the start-up reports about this directory (mysqld logs a read-only start too)."""
        if self._read_only_error is None:
            return []
        return [
            f"Data directory '{self.path}' is read-only ({self._read_only_error.strerror}): its channels are loaded, "
            "and statements that would change them fail"
        ]

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
        if os.path.islink(self.metadata_path) and not self.metadata_path.exists():
            target = os.readlink(self.metadata_path)
            raise DataDirError(
                f"Can't read '{self.metadata_path}': a symbolic link to '{target}', which does not exist or loops"
            )
        if not self.metadata_path.exists():
            return (Channel(DEFAULT_CHANNEL),)
        try:
            document = read_stored_json(self.metadata_path)
        except StoredFileError as exc:
            raise DataDirError(str(exc)) from None
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
        """Atomically replace the metadata file; failure is a MySQL-style error for the statement.

        A symbolic link is written through: the temporary file goes beside the link's final
        target and is renamed over it, so the link keeps pointing at the current file."""
        if self._read_only_error is not None:
            raise MySQLError(3, "HY000", _write_error(self.metadata_path, self._read_only_error))
        document = {
            "version": FORMAT_VERSION,
            "channels": [{"name": c.name, "source": c.source.to_dict()} for c in state.channels],
        }
        try:
            write_atomically(self.metadata_path, json.dumps(document, indent=2, ensure_ascii=False) + "\n", TEMPORARY_PREFIX)
        except OSError as exc:
            raise MySQLError(3, "HY000", _write_error(self.metadata_path, exc)) from None

    def observer(self, old: ReplicaState, new: ReplicaState) -> None:
        """Session observer: write only when the persistent part (names, sources) changed."""
        if _persistent(old) != _persistent(new):
            self.save(new)
        if old.replica_catalog is not new.replica_catalog:
            if self._read_only_error is not None:
                raise MySQLError(3, "HY000", _write_error(self.path / CATALOG_FILE, self._read_only_error))
            save_catalog(self.path, new.replica_catalog)


def _write_error(path: Path, exc: OSError) -> str:
    """ER_ERROR_ON_WRITE (3): "Error writing file '%s' (OS errno %d - %s)"."""
    return f"Error writing file '{path}' (OS errno {exc.errno} - {exc.strerror})"


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
    if len(entries) > MAX_CHANNELS:
        raise ValueError(f"{len(entries)} channels, more than a replica can have ({MAX_CHANNELS})")
    channels: list[Channel] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ValueError(f"channel #{index + 1}: expected an object with a string 'name'")
        name = entry["name"]
        if name != DEFAULT_CHANNEL and not valid_channel_name(name):
            shown = name if len(name) <= 70 else name[:64] + "..."
            raise ValueError(
                f"channel #{index + 1}: field 'name': {shown!r} ({len(name)} characters) is not a channel name MySQL "
                "accepts (at most 64 characters, 192 bytes, no trailing space)"
            )
        if name in seen:
            raise ValueError(f"channel {name!r} is listed twice")
        seen.add(name)
        source = entry.get("source", {})
        if not isinstance(source, dict):
            raise ValueError(f"channel {name!r}: 'source' must be an object")
        try:
            settings = SourceSettings.from_dict(source)
            _check_numbers(settings)
        except ValueError as exc:
            raise ValueError(f"channel {name!r}: {exc}") from None
        channels.append(Channel(name, settings))
    return tuple(channels)


def _check_numbers(settings: SourceSettings) -> None:
    for field_name, limit in NUMBER_LIMITS.items():
        value = getattr(settings, field_name)
        if not 0 <= value <= limit:
            shown = str(value) if len(str(value)) <= 40 else f"a {len(str(value))}-digit number"
            raise ValueError(f"source setting {field_name!r} is {shown}, outside 0..{limit} (what MySQL stores)")
