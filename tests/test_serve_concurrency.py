"""One replica, many connections: every statement serialised and atomic, every acknowledged change
durable (``replfilter serve --datadir``), as on a server.

16 clients each change their own channel's filters 500 times while others read
performance_schema.replication_applier_filters; each statement sets two rules with the same
number, so a read that sees different numbers saw half a statement. The end state must equal the
same statements run one after another in one Session. Then writers change channels' connection
metadata (which ``--datadir`` keeps) until the server is killed with SIGKILL: the data directory
reopens to the last acknowledged value of each channel, or to the one still in flight.
"""

from __future__ import annotations

import signal
import time
import threading
from pathlib import Path

import pymysql
import pytest

from replfilter.replica.datadir import DataDirectory
from replfilter.server.session import Session
from serve_process import ServeProcess

pytestmark = pytest.mark.e2e
WRITERS = 16
CHANGES = 500
READERS = 4
READ_FILTERS = ("SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE, CONFIGURED_BY, COUNTER "
                "FROM performance_schema.replication_applier_filters")


def _setup(k: int) -> str:
    return f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='source-{k}' FOR CHANNEL 'ch_{k}'"


def _change(k: int, i: int) -> str:
    return f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d{k}_{i}), REPLICATE_IGNORE_DB = (i{k}_{i}) FOR CHANNEL 'ch_{k}'"


def test_concurrent_changes_are_atomic_and_end_as_a_serial_run(tmp_path: Path):
    server = ServeProcess(tmp_path, "--datadir", str(tmp_path / "data"))
    failures: list[BaseException] = []
    torn: list[tuple] = []
    done = threading.Event()

    def write(k: int) -> None:
        try:
            connection = server.connect(autocommit=True)
            cursor = connection.cursor()
            cursor.execute(_setup(k))
            for i in range(CHANGES):
                cursor.execute(_change(k, i))
            connection.close()
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    def read() -> None:
        try:
            connection = server.connect()
            cursor = connection.cursor()
            while not done.is_set():
                cursor.execute(READ_FILTERS)
                numbers: dict[str, set[str]] = {}
                for channel, _name, rule, *_ in cursor.fetchall():
                    numbers.setdefault(channel, set()).add(rule[1:])
                torn.extend((c, n) for c, n in numbers.items() if len(n) > 1)
            connection.close()
        except BaseException as exc:
            failures.append(exc)

    try:
        writers = [threading.Thread(target=write, args=(k,)) for k in range(WRITERS)]
        readers = [threading.Thread(target=read) for _ in range(READERS)]
        for thread in writers + readers:
            thread.start()
        for thread in writers:
            thread.join()
        done.set()
        for thread in readers:
            thread.join()
        assert failures == [] and torn == []
        cursor = server.connect().cursor()
        cursor.execute(READ_FILTERS)
        over_wire = cursor.fetchall()
    finally:
        server.stop()

    serial = Session()
    for k in range(WRITERS):
        serial.execute_text(_setup(k))
        for i in range(CHANGES):
            serial.execute_text(_change(k, i))
    assert over_wire == serial.execute_text(READ_FILTERS).rows


def test_after_sigkill_the_datadir_holds_every_acknowledged_change(tmp_path: Path):
    datadir = tmp_path / "data"
    server = ServeProcess(tmp_path, "--datadir", str(datadir))
    acknowledged: dict[int, int] = {}
    started = threading.Barrier(9)

    def write(k: int) -> None:
        connection = server.connect()
        cursor = connection.cursor()
        started.wait()
        port = 1
        try:
            while True:
                cursor.execute(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='h{k}', SOURCE_PORT={port} FOR CHANNEL 'k{k}'")
                acknowledged[k] = port
                port += 1
        except pymysql.err.MySQLError:
            return  # the server is gone

    writers = [threading.Thread(target=write, args=(k,)) for k in range(8)]
    for thread in writers:
        thread.start()
    started.wait()
    while min(acknowledged.values(), default=0) < 20:
        threading.Event().wait(0.05)
    server.stop(signal.SIGKILL)
    for thread in writers:
        thread.join()
    reopened = DataDirectory(datadir).open()
    try:
        state = reopened.load_state()
    finally:
        reopened.close()
    for k, port in acknowledged.items():
        channel = state.channel(f"k{k}")
        assert channel is not None and channel.source.port in (port, port + 1)


@pytest.mark.spark
def test_start_replica_applies_the_relay_log_in_the_background(tmp_path: Path):
    """START REPLICA over the wire starts the Spark applier as the shell does; other connections
    go on while it applies, and see its progress in SHOW REPLICA STATUS and the filter counters."""
    from replfilter.evaluation.event_json import to_json
    from replfilter.evaluation.events import RowEvent

    relay = tmp_path / "relay"
    relay.mkdir()
    (relay / "000.jsonl").write_text("".join(to_json(RowEvent("", f"db{k % 2}", f"t{k}")) + "\n" for k in range(10)))
    server = ServeProcess(tmp_path, "--applier-dir", str(tmp_path / "applier"))
    try:
        cursor = server.connect().cursor()
        cursor.execute(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='src', RELAY_LOG_FILE='{relay}' FOR CHANNEL 'c1'")
        cursor.execute("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db1) FOR CHANNEL 'c1'")
        cursor.execute("START REPLICA FOR CHANNEL 'c1'")
        other = server.connect(read_timeout=60).cursor()
        deadline = time.monotonic() + 300
        seen: tuple = ()
        while time.monotonic() < deadline:  # the applier moves the counters at the end of its batch
            other.execute("SHOW REPLICA STATUS FOR CHANNEL 'c1'")
            row = dict(zip([d[0] for d in other.description], other.fetchone()))
            other.execute("SELECT COUNTER FROM performance_schema.replication_applier_filters "
                          "WHERE CHANNEL_NAME = 'c1' AND FILTER_NAME = 'REPLICATE_IGNORE_DB'")
            seen = (row["Replica_SQL_Running"], row["Exec_Source_Log_Pos"], other.fetchall())
            if seen == ("Yes", 5, ((5,),)):
                break
            time.sleep(0.5)
        assert seen == ("Yes", 5, ((5,),))
        cursor.execute("STOP REPLICA FOR CHANNEL 'c1'")
    finally:
        assert server.stop() == 0
