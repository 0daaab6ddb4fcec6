"""``replfilter stream``: apply a replica's filters to a directory of events with Spark.

    replfilter stream [startup options | --init script.sql] EVENTS_DIR OUTPUT_DIR CHECKPOINT_DIR
                      [--skipped DIR] [--dead-letter DIR] [--master URL] [--available-now]
                      [--format json|parquet|debezium|binlog] [--channel NAME] [--rows]
                      [--trigger SECONDS] [--max-files-per-trigger N]

The replica is built as ``replfilter`` builds it (startup options, ``--defaults-file``,
``--datadir``, then ``--init``). Without ``--available-now`` the stream runs until interrupted
(Ctrl-C or SIGTERM stop it at a batch boundary); with it, every file present is processed and
the command ends (a backfill), one progress line per batch on standard error. Kill it at any
moment and run the same command again: the outputs hold every event exactly once.

EVENTS_DIR may be a directory of binary or relay log files (a server's binlog directory, a
replica's relay-log directory with its index): they are read in the index's order as they grow,
committed at transaction ends (:mod:`~replfilter.spark_runtime.binlog_stream`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Sequence, TextIO
from urllib.parse import urlparse

from ..spark_runtime.installed import spark_missing_message
from .startup import add_replica_arguments, prepare_replica, split_startup_arguments


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replfilter stream",
        description="Apply the replica's filters to a directory of events with Spark Structured Streaming.",
        epilog="Startup options (--replicate-*=[channel:]value, --lower-case-table-names) are accepted as for replfilter.",
    )
    parser.add_argument("events_dir", metavar="EVENTS_DIR", help="directory the event files arrive in (move files in atomically)")
    parser.add_argument("output_dir", metavar="OUTPUT_DIR", help="applied events, Parquet, one batch_id=N directory per batch")
    parser.add_argument("checkpoint_dir", metavar="CHECKPOINT_DIR", help="Structured Streaming checkpoint (keep it to resume)")
    parser.add_argument("--skipped", metavar="DIR", help="also write skipped events here")
    parser.add_argument("--dead-letter", metavar="DIR", help="malformed records (default OUTPUT_DIR/_dead_letter)")
    parser.add_argument("--master", metavar="URL", default=None, help="Spark master URL (default local[*])")
    parser.add_argument("--available-now", action="store_true", help="process the files present now, then exit")
    parser.add_argument(
        "--format", choices=("json", "parquet", "debezium", "binlog"), default=None,
        help="event file format (default: binlog when EVENTS_DIR holds binary or relay log files, else json lines)",
    )
    parser.add_argument(
        "--channel", default="", help="replication channel of Debezium or binlog events (default: the default channel)"
    )
    parser.add_argument(
        "--rows", action="store_true",
        help="binlog input: decode the row images into each row event's record (values), as evaluate --rows prints them",
    )
    parser.add_argument("--trigger", type=float, default=1.0, metavar="SECONDS", help="micro-batch interval (default 1)")
    parser.add_argument("--max-files-per-trigger", type=int, default=None, metavar="N")
    parser.add_argument(
        "--two-pass",
        action="store_true",
        help="decide every row by the reference evaluator per distinct key, in two passes (count the keys, "
        "then look each row's decision up); default: row and transaction events with ASCII names are decided "
        "by column expressions compiled from the filters, the other rows by the evaluator",
    )
    add_replica_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = build_parser()
    missing = spark_missing_message()
    if missing is not None:  # after --help (which works on a light install), before the replica starts
        parser.parse_args(split_startup_arguments(list(argv))[1])
        stderr.write(f"replfilter stream: {missing}\n")
        return 1
    args, startup = prepare_replica(argv, parser, stderr)
    if startup is None:
        return 1
    try:
        return _run(startup.session, args, stdout, stderr)
    finally:
        startup.close()


def _run(session, args, stdout: TextIO, stderr: TextIO) -> int:
    import os

    if urlparse(args.events_dir).scheme in ("", "file") and not os.path.isdir(urlparse(args.events_dir).path):
        stderr.write(f"replfilter stream: events directory '{args.events_dir}' does not exist\n")
        return 1
    for what, path in (("output", args.output_dir), ("checkpoint", args.checkpoint_dir),
                       ("--skipped", args.skipped), ("--dead-letter", args.dead_letter)):
        blocked = _file_in_the_way(path) if path else None
        if blocked is not None:
            stderr.write(f"replfilter stream: {what} directory '{path}': '{blocked}' is a file, not a directory\n")
            return 1
    refused = _refused_input(args)
    if refused is not None:
        stderr.write(f"replfilter stream: {refused}\n")
        return 1
    try:
        return _stream(session, args, stderr)
    except Exception as error:  # noqa: BLE001 - Spark's errors, reported in one line
        from ..spark_runtime.failure import failure_line, jvm_died_line, jvm_exit_status

        status = jvm_exit_status(error)
        line = failure_line(error) if status is None else jvm_died_line(status, RESUME)
        stderr.write(f"replfilter stream: {line}\n")
        return 1


RESUME = ("Run the same command again: the stream resumes from CHECKPOINT_DIR, and the outputs keep every "
          "event exactly once; to need less memory a batch, add --max-files-per-trigger N.")
"""How to go on after the JVM died (the checkpoint makes a restart safe: README, "Exactly once")."""


def _file_in_the_way(path: str) -> str | None:
    """The file at ``path``, or at the nearest of its parents that exists, when that is not a
    directory: Spark would fail on it only inside the first batch, seconds after starting,
    with a raw log line. Paths of other file systems (``s3a://``...) are Spark's to check."""
    import os
    from urllib.parse import urlparse

    parsed = urlparse(path)
    if parsed.scheme not in ("", "file"):
        return None
    probe = os.path.normpath(os.path.abspath(parsed.path))
    while not os.path.exists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    return None if os.path.isdir(probe) else probe


def _refused_input(args: argparse.Namespace) -> str | None:
    """Why EVENTS_DIR cannot be read as the options ask, before Spark starts: an empty local
    directory says nothing of the format of the files to come (guessed, binary logs arriving
    later would be read as JSON lines into a JSON checkpoint); binary logs are read from a
    local directory only; ``--rows`` decodes binlog row images, so it needs binlog input."""
    import os

    from ..evaluation.binlog.tail import local_log_directory

    fmt = args.format
    if fmt is None and urlparse(args.events_dir).scheme in ("", "file"):
        directory = urlparse(args.events_dir).path
        if not any(not name.startswith((".", "_")) for name in os.listdir(directory)):
            return (f"events directory '{args.events_dir}' is empty: give --format (json, parquet, debezium or "
                    "binlog), the format of the files that will arrive")
    if fmt == "binlog":
        try:
            local_log_directory(args.events_dir)
        except ValueError as error:
            return f"--format binlog: {error}"
    if args.rows and (fmt or _detected_format(args.events_dir)) != "binlog":
        return (f"--rows decodes binary log row images; the events are {fmt or 'json'} (give --format binlog, "
                "or an EVENTS_DIR of binary or relay log files)")
    return None


def config_from_args(args: argparse.Namespace):
    """The :class:`~.stream.StreamConfig` the command line asks for."""
    from ..spark_runtime.stream import StreamConfig

    return StreamConfig(
        events_dir=args.events_dir,
        output_dir=args.output_dir,
        checkpoint_dir=args.checkpoint_dir,
        skipped_dir=args.skipped,
        dead_letter_dir=args.dead_letter,
        input_format=args.format or _detected_format(args.events_dir),
        debezium_channel=args.channel,
        max_files_per_trigger=args.max_files_per_trigger,
        trigger_seconds=args.trigger,
        compiled=not args.two_pass,
        binlog_rows=args.rows,
    )


def _detected_format(events_dir: str) -> str:
    """``binlog`` for a directory of binary or relay log files (a server's binlog directory, a
    replica's relay-log directory), else ``json``."""
    import os

    from ..evaluation.binlog.tail import log_files

    directory = urlparse(events_dir).path if urlparse(events_dir).scheme == "file" else events_dir
    return "binlog" if os.path.isdir(directory) and log_files(directory) else "json"


def _stream(session, args, stderr: TextIO) -> int:
    from ..spark_runtime.failure import quiet_py4j_logs
    from ..spark_runtime.session import get_spark
    from ..spark_runtime.stream import EventStream

    quiet_py4j_logs()
    config = config_from_args(args)
    spark = get_spark(args.master, app_name="replfilter stream")
    stream = EventStream(spark, session, config, progress=None if args.quiet else stderr)
    stopped = threading.Event()

    def on_signal(signum, _frame):
        stderr.write(f"replfilter stream: {signal.Signals(signum).name}: stopping at a batch boundary\n")
        stopped.set()
        threading.Thread(target=stream.request_stop, daemon=True).start()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        query = stream.start(available_now=args.available_now)
        while query.isActive:
            query.awaitTermination(0.5)
        error = query.exception()
        if error is not None and not stream.stopping:
            from ..spark_runtime.failure import failure_line

            stderr.write(f"replfilter stream: the stream failed: {failure_line(error)}\n")
            return 1
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    _summary(stream, session, stderr)
    return 0


def _summary(stream, session, stderr: TextIO) -> None:
    batches = stream.batches
    events = sum(b.events for b in batches)
    applied = sum(b.applied for b in batches)
    skipped = sum(b.skipped for b in batches)
    dead = sum(b.dead for b in batches)
    stderr.write(
        f"replfilter stream: {len(batches)} batches, {events:,} events: {applied:,} applied, "
        f"{skipped:,} skipped, {dead:,} dead letters\n"
    )
    for channel in session.state.channels:
        moved = [(ftype.keyword, slot.counter) for ftype, slot in channel.filters.items() if slot.counter]
        if moved:
            counters = ", ".join(f"{name}={n:,}" for name, n in moved)
            stderr.write(f"replfilter stream: channel '{channel.name}' COUNTER: {counters}\n")
