"""The reader against binary logs written by a real MariaDB server (started once per test
session in a temporary datadir, tests/mariadb_server.py): our SHOW BINLOG EVENTS equals the
server's on the same files, and the decoded rows equal ``mariadb-binlog -v``'s."""

from __future__ import annotations

import struct
import subprocess
from decimal import Decimal

import pytest

import mariadb_server
from binlog_builder import read_back_rows
from replfilter.evaluation.binlog import column_values as C
from replfilter.evaluation.binlog.rows import TableMap
from replfilter.evaluation.binlog.as_events import EventMapper, Mapped, mapped_items, transactions
from replfilter.evaluation.binlog.decide import decide_files
from replfilter.evaluation.binlog.reader import read_binlog
from replfilter.evaluation.binlog.selection import Selection
from replfilter.evaluation.event_lines import LineEvaluator
from replfilter.evaluation.events import QueryEvent, RowEvent
from replfilter.server.session import Session

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not mariadb_server.available(), reason="needs Debian's mariadb-server and mariadb-client"),
]


SOURCE_OPTIONS = ("--log-bin-compress=ON", "--log-bin-compress-min-len=100")
"""MariaDB's binlog compression for events of 100 bytes or more: the files hold both
Query_compressed / Write_rows_compressed_v1... and plain events."""

REPLICA_FILTERS = ("--replicate-wild-ignore-table=audit.%",)
"""The replica's filters: a wildcard rule (no database rules, so none of the cases where MariaDB
decides otherwise than MySQL 8.4, shared/data/README.md)."""


@pytest.fixture(scope="session")
def mariadb_run(tmp_path_factory):
    """A source and a filtering replica (log_slave_updates: its binlog holds what it applied);
    the workload run on the source and applied by the replica. The source's binlog files with
    the server's SHOW BINLOG EVENTS of each, and the replica's binlog files (all copied)."""
    source = mariadb_server.MariaDB.start(*SOURCE_OPTIONS)
    replica = None
    try:
        replica = mariadb_server.MariaDB.start("--server-id=2", "--log-slave-updates", *REPLICA_FILTERS)
        start = replica.replicate_from(source)
        source.sql(mariadb_server.WORKLOAD)
        replica.wait_for(source)
        source.sql("FLUSH BINARY LOGS")
        out = tmp_path_factory.mktemp("binlogs")
        files = []
        for path in source.binlog_files():
            shown = source.sql(f"SHOW BINLOG EVENTS IN '{path.name}'", "--raw", "--skip-column-names")
            copy = out / path.name
            copy.write_bytes(path.read_bytes())
            files.append((copy, shown))
        replica_files = []
        for path in replica.binlog_files():
            copy = out / f"replica-{path.name}"
            copy.write_bytes(path.read_bytes())
            replica_files.append(copy)
        return files, replica_files, start
    finally:
        source.stop()
        if replica is not None:
            replica.stop()


@pytest.fixture(scope="session")
def mariadb_binlogs(mariadb_run):
    return mariadb_run[0]


def test_show_binlog_events_equals_the_servers(mariadb_binlogs):
    session = Session()
    for path, shown in mariadb_binlogs:
        ours = session.execute_text(f"SHOW BINLOG EVENTS IN '{path}'").rows
        text = "".join("\t".join(str(c) for c in row) + "\n" for row in ours)
        assert text == shown, path.name
    assert any("Annotate_rows" in shown and "Gtid_list" in shown for _, shown in mariadb_binlogs)
    assert any("Query_compressed" in shown and "Write_rows_compressed_v1" in shown and "Write_rows_v1" in shown
               for _, shown in mariadb_binlogs)


_decoded = read_back_rows


_VERBS = {"Write": ("INSERT INTO", "SET"), "Update": ("UPDATE", "WHERE"), "Delete": ("DELETE FROM", "WHERE")}


def _as_mariadb_binlog(kind: str, table: TableMap, rows: list) -> list[str]:
    """Our rows in ``mariadb-binlog -v``'s form (log_event_client.cc, ``log_event_print_value``)."""
    verb, first = _VERBS[kind.split("_", 1)[0]]
    lines = []
    for before, after in rows:
        lines.append(f"### {verb} `{table.db}`.`{table.table}`")
        images = [(first, before if before is not None else after)]
        if kind.startswith("Update"):
            images.append(("SET", after))
        for word, image in images:
            lines.append(f"### {word}")
            for column, value in image.items():
                lines.append(f"###   @{column + 1}={_value_text(table, column, value)}")
    return lines


def _value_text(table: TableMap, column: int, value) -> str:
    kind, meta = table.types[column], table.metadata[column]
    if value is None:
        return "NULL"
    if kind in (C.TINY, C.SHORT, C.INT24, C.LONG, C.LONGLONG):
        bits = {C.TINY: 8, C.SHORT: 16, C.INT24: 24, C.LONG: 32, C.LONGLONG: 64}[kind]
        signed = value - (1 << bits) if value >= 1 << (bits - 1) else value
        return f"{signed} ({signed + (1 << bits)})" if signed < 0 else str(signed)
    if kind == C.NEWDECIMAL:
        return format(value, "f")
    if kind == C.FLOAT:
        return f"{value:<20g}"
    if kind == C.DOUBLE:
        return f"{value:.20g}"
    if kind in (C.DATE, C.NEWDATE):
        return "'" + value.replace("-", ":") + "'"
    if kind in (C.TIME2, C.DATETIME2):
        return f"'{value}'"
    if kind in (C.TIMESTAMP2, C.YEAR, C.ENUM):
        return str(value)
    if kind in (C.SET, C.BIT):
        nbits = meta * 8 if kind == C.SET else (meta >> 8) * 8 + (meta & 0xFF)
        return f"b'{value:0{nbits}b}'"
    # my_b_write_quoted: bytes above 0x1F as they are, the others as \\xNN
    return "'" + "".join(chr(b) if b > 0x1F else f"\\x{b:02x}" for b in value) + "'"


def test_decoded_rows_equal_mariadb_binlog_verbose(mariadb_binlogs):
    for path, _shown in mariadb_binlogs:
        done = subprocess.run(["mariadb-binlog", "-v", "--base64-output=decode-rows", str(path)], capture_output=True)
        assert done.returncode == 0, done.stderr
        theirs = [line for line in done.stdout.decode("latin-1").splitlines() if line.startswith("### ")]
        ours = [line for kind, table, rows in _decoded(path) for line in _as_mariadb_binlog(kind, table, rows)]
        assert ours == theirs
    assert any(rows for path, _ in mariadb_binlogs for rows in _decoded(path))


def test_every_column_type_of_the_workload_decodes(mariadb_binlogs):
    rows = [r for path, _ in mariadb_binlogs for r in _decoded(path) if r[1].table == "every_type" and r[0].startswith("Write_rows")]
    [(_, table, images)] = rows
    first = images[0][1]
    names = table.column_names()
    value = dict(zip(names, (first[i] for i in range(len(names)))))
    assert value["biu"] == 18446744073709551615 and value["bi"] == -9223372036854775808
    assert value["de"] == Decimal("-12345678901234.567891")
    assert value["t"] == "-838:59:59" and value["t3"] == "12:34:56.789" and value["dt6"] == "2001-02-03 04:05:06.000007"
    assert value["ts2"] == Decimal("946684799.99") and value["y"] == 2155
    assert value["en"] == 2 and value["st"] == 0b1101 and value["b13"] == 0b1010101010101
    assert value["g"][:4] == b"\0\0\0\0" and struct.unpack("<dd", value["g"][-16:]) == (1.0, 2.0)
    assert table.names is not None and table.unsigned is not None and table.unsigned[names.index("biu")]


def test_our_transaction_verdicts_equal_what_the_mariadb_replica_applied(mariadb_run):
    """A transaction the replica applied shows in its binlog (log_slave_updates) under the
    source's GTID with something in it; every other one was skipped."""
    files, replica_files, (start_file, start_pos) = mariadb_run
    applied_there = set()
    for group in transactions(mapped_items((i for f in replica_files for i in read_binlog(str(f))), EventMapper())):
        if group.gtid and any(isinstance(m, Mapped) and isinstance(m.event, (QueryEvent, RowEvent)) for m in group.items):
            applied_there.add(group.gtid.split("-", 1)[1])
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('audit.%')")
    ours = {}
    paths = [str(f) for f, _ in files if f.name >= start_file]
    for result in decide_files(LineEvaluator(session.state), paths, Selection(start_position=start_pos)):
        if result.item is not None and result.item.gtid is not None and result.transaction is not None:
            ours[result.item.gtid.split("-", 1)[1]] = result.transaction
    assert ours, "no transactions decided"
    assert {gtid for gtid, verdict in ours.items() if verdict == "APPLY"} == applied_there
    assert "SKIP" in ours.values()
