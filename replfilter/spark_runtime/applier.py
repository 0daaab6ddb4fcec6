"""The in-shell applier: ``START REPLICA`` applies a channel's events with Spark, in the background.

A channel gets its event source with MySQL's own option for where the SQL (applier) thread reads
events, the relay log::

    CHANGE REPLICATION SOURCE TO SOURCE_HOST='src', RELAY_LOG_FILE='/data/events/c1' FOR CHANNEL 'c1';
    START REPLICA FOR CHANNEL 'c1';          -- or START REPLICA SQL_THREAD ...

On a real replica the receiver (IO) thread writes the relay log and the SQL thread applies it; here
the relay log is a directory that something else fills — event files (JSON lines, Parquet or
Debezium JSON), or a real replica's relay-log directory (binary log files and their ``.index``,
read as they grow: :mod:`.binlog_stream`), detected from its files — and the SQL thread is a Spark
Structured Streaming query over it (:class:`~.stream.EventStream`). ``RELAY_LOG_POS`` keeps its
stored value and is not used: the position in the relay log is the stream's checkpoint. The IO
thread stays simulated.

* ``START REPLICA [SQL_THREAD] [FOR CHANNEL]`` starts the query for each channel whose SQL thread
  starts and that has a relay log; Spark itself starts then, not before (a channel without a
  relay log keeps the simulated behaviour). A relay log directory that does not exist makes the
  statement fail with error 29 and nothing starts.
* ``STOP REPLICA [SQL_THREAD]`` returns once the query has stopped at a batch boundary: a batch
  is either fully applied (outputs and counters) or not at all, and is then read again. Over
  binary log files a batch ends where a transaction ends, so STOP stops at a transaction
  boundary, and START goes on from there.
* ``SHOW REPLICA STATUS`` shows ``Replica_SQL_Running`` and the applier's progress:
  ``Replica_SQL_Running_State`` (starting Spark / applying batch N / waiting for more events),
  and on failure ``Last_SQL_Errno`` 1593 with the error, as a replica whose SQL thread stopped
  with an error shows it (``Replica_SQL_Running`` then goes to No). Over event files,
  ``Relay_Log_Pos`` counts the events read and ``Exec_Source_Log_Pos`` the events applied (the
  files have no positions); over binary log files they are MySQL's: ``Relay_Log_File`` and
  ``Relay_Log_Pos`` the place in the relay log where the last applied transaction ends, and
  ``Relay_Source_Log_File`` and ``Exec_Source_Log_Pos`` the same place in the source's binary
  log (the source's file named by the relay log's last Rotate, the position by the last event's
  ``log_pos``, :func:`~replfilter.evaluation.binlog.tail.source_position`).
* ``CHANGE REPLICATION FILTER`` on a channel whose SQL thread runs fails with 3085, exactly as in
  MySQL (the executor's own check); after STOP, CHANGE, START the new rules apply from the next
  batch. Each batch applies the state as it is when the batch starts.
* ``RESET REPLICA`` forgets the relay log (``RELAY_LOG_FILE`` becomes empty): the channel's
  checkpoint and outputs are moved aside, so a later START applies its relay log from the start.

Outputs, per channel, under the applier directory (``--applier-dir``; default
``<datadir>/applier`` with ``--datadir``, else ``<tmp>/replfilter-applier-<pid>``):
``<channel or _default>/applied`` (Parquet, ``batch_id=N`` directories), ``skipped``,
``dead-letter`` and ``checkpoint``.

Importing this module does not import pyspark.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ER, MySQLError
from ..server.session import Session
from ..replica.state import Channel, ReplicaState
from .failure import failure_line
from .installed import spark_missing_message

FATAL_ERRNO = ER.REPLICA_FATAL_ERROR.code
STATE_STARTING = "Starting the Spark applier"
STATE_WAITING = "Replica has read all relay log; waiting for more updates"


def _slug(channel: str) -> str:
    if channel == "":
        return "_default"
    return "".join(ch if ch.isalnum() or ch in "-_." else f"%{ord(ch):02x}" for ch in channel)


def detect_format(directory: str) -> str:
    """``parquet`` if the relay log holds Parquet files, ``binlog`` if it holds files that start
    with the binary log magic (a real replica's relay-log directory), ``debezium`` if its first
    JSON record is a Debezium envelope, else ``json`` (event JSON lines; also for an empty
    directory)."""
    try:
        names = sorted(n for n in os.listdir(directory) if not n.startswith((".", "_")))
    except OSError:
        return "json"
    if any(n.endswith(".parquet") for n in names):
        return "parquet"
    if any(_has_binlog_magic(os.path.join(directory, n)) for n in names):
        return "binlog"
    for name in names:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    if line.strip():
                        record = json.loads(line)
                        if isinstance(record, dict) and ("payload" in record or "op" in record or "ddl" in record):
                            return "debezium"
                        return "json"
        except (OSError, ValueError):
            return "json"
    return "json"


def _has_binlog_magic(path: str) -> bool:
    """The binlog magic, or an encrypted MySQL binlog's header (read as a binlog, refused as
    one: :func:`~replfilter.evaluation.binlog.framing.check_magic`)."""
    from ..evaluation.binlog.reader import is_binlog_file

    return is_binlog_file(path)


@dataclass
class ChannelProgress:
    state_text: str = STATE_STARTING
    batches: int = 0
    events: int = 0
    applied: int = 0
    skipped: int = 0
    dead: int = 0
    last_batch: int | None = None
    error: str | None = None
    error_time: str = ""
    files: set = field(default_factory=set)
    position: dict | None = None
    """Over binary log files: where the last committed batch ended (``{"log", "pos", ...}``)."""


class _ChannelRunner:
    """One channel's SQL thread: a thread owning one streaming query."""

    def __init__(self, applier: "ReplicaApplier", channel: str, relay_dir: str):
        self.applier = applier
        self.channel = channel
        self.relay_dir = relay_dir
        self.progress = ChannelProgress()
        self.input_format = detect_format(relay_dir)
        self.stream = None
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"replfilter-applier-{channel or 'default'}", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        try:
            from .session import get_spark
            from .stream import EventStream, StreamConfig

            spark = get_spark(self.applier.master, app_name="replfilter applier", conf=self.applier.spark_conf)
            if self._stop.is_set():
                return
            base = self.applier.channel_dir(self.channel)
            config = StreamConfig(
                events_dir=self.relay_dir,
                output_dir=os.path.join(base, "applied"),
                checkpoint_dir=os.path.join(base, "checkpoint"),
                skipped_dir=os.path.join(base, "skipped"),
                dead_letter_dir=os.path.join(base, "dead-letter"),
                input_format=self.input_format,
                trigger_seconds=self.applier.trigger_seconds,
                max_files_per_trigger=self.applier.max_files_per_trigger,
                relay_channel=self.channel,
            )
            self.stream = EventStream(spark, self.applier.session, config, on_batch=self._on_batch)
            self.stream.on_batch_start = self._on_batch_start
            if self._stop.is_set():
                return
            query = self.stream.start()
            self.progress.state_text = STATE_WAITING
            while query.isActive and not self._stop.is_set():
                query.awaitTermination(0.2)
            if self._stop.is_set():
                self.stream.request_stop()
                return
            error = query.exception()
            if error is not None:
                self._failed(failure_line(error))
        except Exception as exc:  # noqa: BLE001 - a failing applier must show, not vanish
            if not self._stop.is_set():
                self._failed(f"{type(exc).__name__}: {failure_line(exc)}")

    def _on_batch_start(self, batch_id: int) -> None:
        self.progress.state_text = f"Applying batch {batch_id} of the relay log"

    def _on_batch(self, stats) -> None:
        p = self.progress
        p.batches += 1
        p.events += stats.events + stats.dead
        p.applied += stats.applied
        p.skipped += stats.skipped
        p.dead += stats.dead
        p.last_batch = stats.batch_id
        p.files.update(stats.file_names)
        if stats.position is not None:
            p.position = stats.position
        p.state_text = STATE_WAITING

    def _failed(self, message: str) -> None:
        self.progress.error = message
        self.progress.error_time = time.strftime("%y%m%d %H:%M:%S")
        self.progress.state_text = ""
        # As a replica's SQL thread stopping on an error: Replica_SQL_Running goes to No.
        self.applier._thread_died(self.channel, self)

    def request_stop(self) -> None:
        self._stop.set()
        if self.stream is not None:
            self.stream.request_stop()

    def join(self, timeout: float | None = None) -> None:
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout)

    def pending_files(self) -> list[str]:
        """Relay log files not yet applied (the committed batches' manifests list theirs, so
        this holds across STOP/START and restarts); over binary log files, the file where
        complete transactions wait to be applied, if any."""
        if self.input_format == "binlog":
            from .binlog_stream import unread

            waiting = unread(self.relay_dir, self.position())
            return [waiting] if waiting is not None else []
        try:
            names = [n for n in os.listdir(self.relay_dir) if not n.startswith((".", "_"))]
        except OSError:
            return []
        done = set()
        manifests = os.path.join(self.applier.channel_dir(self.channel), "applied", "_replfilter")
        try:
            for name in os.listdir(manifests):
                if name.endswith(".json"):
                    with open(os.path.join(manifests, name), encoding="utf-8") as handle:
                        done.update(os.path.basename(f) for f in json.load(handle).get("file_names", []))
        except (OSError, ValueError):
            pass
        return [n for n in names if n not in done]

    def position(self) -> dict | None:
        """Over binary log files, where the applied transactions end: the last batch's, else
        the latest manifest's (a restarted shell with the same applier directory)."""
        if self.progress.position is None:
            self.progress.position = last_position(os.path.join(self.applier.channel_dir(self.channel), "applied"))
        return self.progress.position


class ReplicaApplier:
    """Connects a :class:`Session` to Spark: starts and stops channel appliers as the state's
    SQL threads start and stop, and reports their progress to SHOW REPLICA STATUS."""

    def __init__(
        self,
        session: Session,
        master: str | None = None,
        applier_dir: str | None = None,
        trigger_seconds: float = 1.0,
        max_files_per_trigger: int | None = None,
        spark_conf: dict[str, str] | None = None,
    ):
        self.session = session
        self.master = master
        self._applier_dir = applier_dir
        self.trigger_seconds = trigger_seconds
        self.max_files_per_trigger = max_files_per_trigger
        self.spark_conf = spark_conf
        self.runners: dict[str, _ChannelRunner] = {}
        self.finished: dict[str, _ChannelRunner] = {}
        self._lock = threading.RLock()

    # -- wiring ----------------------------------------------------------------------------

    def install(self) -> "ReplicaApplier":
        self.session.add_observer(self._check)
        self.session.add_listener(self._changed)
        self.session.progress = self.progress
        return self

    @property
    def applier_dir(self) -> str:
        if self._applier_dir is None:
            self._applier_dir = os.path.join(tempfile.gettempdir(), f"replfilter-applier-{os.getpid()}")
        return self._applier_dir

    def channel_dir(self, channel: str) -> str:
        return os.path.join(self.applier_dir, _slug(channel))

    # -- state changes ---------------------------------------------------------------------

    @staticmethod
    def _starting(pairs: list[tuple[Channel | None, Channel | None]]) -> list[Channel]:
        return [now for before, now in pairs if now is not None and now.sql_running
                and not (before is not None and before.sql_running) and now.source.relay_log_file]

    def _check(self, old: ReplicaState, new: ReplicaState) -> None:
        """Before START commits: a relay log that does not exist fails the statement (29), and so
        does a light install without the Spark runtime (1593, as mysqld refuses START REPLICA
        when an applier thread cannot be initialised), with the line that says how to install it."""
        for channel in self._starting(changed_channels(old, new)):
            missing = spark_missing_message()
            if missing is not None:
                raise MySQLError.of(ER.REPLICA_FATAL_ERROR, f"the applier of channel '{channel.name}' cannot start: {missing}")
            path = channel.source.relay_log_file
            if not os.path.isdir(path):
                raise MySQLError.of(ER.FILE_NOT_FOUND, path, 2, "No such file or directory")

    def _changed(self, old: ReplicaState, new: ReplicaState) -> None:
        pairs = changed_channels(old, new)
        for before, now in pairs:
            if before is None:
                continue
            if before.sql_running and (now is None or not now.sql_running):
                self.stop_channel(before.name)
            if before.source.relay_log_file and (now is None or not now.source.relay_log_file):
                self._forget_relay_log(before.name)
        for channel in self._starting(pairs):
            self.start_channel(channel.name, channel.source.relay_log_file)

    # -- channels --------------------------------------------------------------------------

    def start_channel(self, channel: str, relay_dir: str) -> None:
        with self._lock:
            previous = self.runners.pop(channel, None)
        if previous is not None:
            previous.request_stop()
            previous.join()
        runner = _ChannelRunner(self, channel, relay_dir)
        earlier = previous or self.finished.get(channel)
        if earlier is not None:  # the counts go on across STOP/START, as relay log positions do
            p = earlier.progress
            runner.progress = ChannelProgress(
                batches=p.batches, events=p.events, applied=p.applied, skipped=p.skipped, dead=p.dead,
                last_batch=p.last_batch, files=set(p.files),
            )
        with self._lock:
            self.runners[channel] = runner
            self.finished.pop(channel, None)
        runner.start()

    def stop_channel(self, channel: str, timeout: float | None = None) -> None:
        """Stop at a batch boundary and wait for it (STOP REPLICA returns when stopped)."""
        with self._lock:
            runner = self.runners.pop(channel, None)
        if runner is None:
            return
        runner.request_stop()
        runner.join(timeout)
        with self._lock:
            self.finished[channel] = runner

    def _thread_died(self, channel: str, runner: _ChannelRunner) -> None:
        with self._lock:
            if self.runners.get(channel) is runner:
                del self.runners[channel]
                self.finished[channel] = runner
            else:
                return

        def sql_thread_stopped(state: ReplicaState) -> ReplicaState:
            from dataclasses import replace

            found = state.channel(channel)
            if found is None or not found.sql_running:
                return state
            return state.with_channel(replace(found, sql_running=False))

        self.session.update(sql_thread_stopped)

    def _forget_relay_log(self, channel: str) -> None:
        """RESET REPLICA: the relay log is gone; move the checkpoint and outputs aside."""
        path = self.channel_dir(channel)
        if os.path.isdir(path):
            os.rename(path, f"{path}.reset-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        with self._lock:
            self.finished.pop(channel, None)

    def shutdown(self, timeout: float | None = 120) -> None:
        """Stop every channel at a batch boundary (the program is ending)."""
        with self._lock:
            names = list(self.runners)
        for name in names:
            self.stop_channel(name, timeout)

    # -- progress --------------------------------------------------------------------------

    def runner(self, channel: str) -> _ChannelRunner | None:
        with self._lock:
            return self.runners.get(channel) or self.finished.get(channel)

    def progress(self, channel: str) -> dict[str, Any]:
        """SHOW REPLICA STATUS columns for ``channel`` (empty when it has no Spark applier)."""
        runner = self.runner(channel)
        if runner is None:
            return {}
        p = runner.progress
        if runner.input_format == "binlog":
            columns: dict[str, Any] = _relay_log_columns(runner.relay_dir, runner.position())
        else:
            columns = {"Relay_Log_Pos": p.events, "Exec_Source_Log_Pos": p.applied}
        running = channel in self.runners
        if running:
            columns["Replica_SQL_Running_State"] = p.state_text
        if p.error is not None:
            columns.update(
                Last_Errno=FATAL_ERRNO,
                Last_Error=f"Fatal error: {p.error}",
                Last_SQL_Errno=FATAL_ERRNO,
                Last_SQL_Error=f"Fatal error: {p.error}",
                Last_SQL_Error_Timestamp=p.error_time,
            )
        return columns

    def wait_idle(self, channel: str, timeout: float = 120.0) -> ChannelProgress:
        """Wait until every file now in the channel's relay log has been applied (tests,
        scripts embedding the applier)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            runner = self.runner(channel)
            if runner is None:
                raise RuntimeError(f"channel {channel!r} has no applier")
            if runner.progress.error is not None:
                raise RuntimeError(f"the applier of channel {channel!r} failed: {runner.progress.error}")
            busy = runner.stream is not None and runner.stream.running_batch is not None
            if runner.stream is not None and not runner.pending_files() and not busy:
                return runner.progress
            time.sleep(0.2)
        raise TimeoutError(f"channel {channel!r} did not catch up within {timeout} s")


def last_position(applied_dir: str) -> dict | None:
    """The ``position`` of the latest batch manifest in ``applied_dir`` (:mod:`.sink`)."""
    manifests = os.path.join(applied_dir, "_replfilter")
    try:
        names = [n for n in os.listdir(manifests) if n.startswith("batch_id=") and n.endswith(".json")]
    except OSError:
        return None
    for name in sorted(names, key=lambda n: int(n[len("batch_id="):-len(".json")]), reverse=True):
        try:
            with open(os.path.join(manifests, name), encoding="utf-8") as handle:
                position = json.load(handle).get("position")
        except (OSError, ValueError):
            continue
        if position:
            return position
    return None


def _relay_log_columns(relay_dir: str, position: dict | None) -> dict[str, Any]:
    """SHOW REPLICA STATUS's relay log coordinates over binary log files: where the applied
    transactions end in the relay log and in the source's binary log (nothing applied yet: the
    first relay log file, at 4). A relay directory that cannot be read (removed, say, while the
    applier ran on) leaves what the stream committed: the status never fails for it."""
    from ..evaluation.binlog.tail import log_files

    if position is None or not position.get("log"):
        try:
            files = log_files(relay_dir) if os.path.isdir(relay_dir) else []
        except OSError:
            files = []
        return {"Relay_Log_File": os.path.basename(files[0]) if files else "", "Relay_Log_Pos": 4}
    columns: dict[str, Any] = {"Relay_Log_File": position["log"], "Relay_Log_Pos": position["pos"]}
    source = _source_coordinates(relay_dir, position["log"], position["pos"])
    if source is not None:
        columns["Relay_Source_Log_File"], columns["Exec_Source_Log_Pos"] = source
    return columns


_SOURCE_COORDINATES: dict[tuple[str, str, int], tuple[str, int]] = {}
_SOURCE_COORDINATES_MAX = 64


def _source_coordinates(relay_dir: str, log: str, pos: int) -> tuple[str, int] | None:
    """The source's coordinates of a committed relay-log place, read once per place (the relay
    log up to it no longer changes). Only what was found is kept: None (the files not readable
    now, or not saying yet) is asked again next time."""
    from ..evaluation.binlog.tail import log_files, source_position

    key = (relay_dir, log, pos)
    found = _SOURCE_COORDINATES.get(key)
    if found is not None:
        return found
    try:
        found = source_position(log_files(relay_dir), log, pos)
    except OSError:
        return None
    if found is not None:
        if len(_SOURCE_COORDINATES) >= _SOURCE_COORDINATES_MAX:
            _SOURCE_COORDINATES.pop(next(iter(_SOURCE_COORDINATES)))
        _SOURCE_COORDINATES[key] = found
    return found


def changed_channels(old: ReplicaState, new: ReplicaState) -> list[tuple[Channel | None, Channel | None]]:
    """(before, now) for each channel that is not the same object in both states (None where a
    state lacks it), in one walk: the hooks run after every change, and a change keeps the
    channels it did not touch (the same objects, in the same name order), so a zip finds the
    one or two that moved. When the names differ (a channel created or removed), by name."""
    pairs: list[tuple[Channel | None, Channel | None]] = []
    if len(old.channels) == len(new.channels):
        for before, now in zip(old.channels, new.channels):
            if before is now:
                continue
            if before.name != now.name:
                break
            pairs.append((before, now))
        else:
            return pairs
    befores = {c.name: c for c in old.channels}
    nows = {c.name: c for c in new.channels}
    return [(befores.get(name), nows.get(name)) for name in {**befores, **nows}
            if befores.get(name) is not nows.get(name)]


def install_applier(session: Session, **kwargs: Any) -> ReplicaApplier:
    """Create a :class:`ReplicaApplier` for ``session`` and hook it in (no Spark yet)."""
    return ReplicaApplier(session, **kwargs).install()


__all__ = ["ReplicaApplier", "changed_channels", "detect_format", "install_applier"]
