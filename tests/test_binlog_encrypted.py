"""Encrypted binary logs: MariaDB's ``encrypt_binlog=ON`` (a Start_encryption event after the
Format_description, every event after it encrypted) and MySQL's ``binlog_encryption=ON`` (an
encryption header instead of the magic) are refused in one line naming file and position, by the
reader, ``evaluate``, SHOW BINLOG EVENTS and the stream's scan; never a traceback, never checksum
errors for every event. A copy decrypted by the server (``mariadb-binlog
--read-from-remote-server --raw``: its Start_encryption event flagged ignorable) reads whole.

The byte-built files follow the layout of a real one (tests at the end: a MariaDB started with
the file_key_management plugin): only each event's length stays in clear."""

from __future__ import annotations

import io
import json
import random
import struct
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

import binlog_builder as W
import mariadb_server
from replfilter.cli import evaluate
from replfilter.core.errors import MySQLError
from replfilter.evaluation.binlog import event_types as T
from replfilter.evaluation.binlog.bodies import StartEncryption
from replfilter.evaluation.binlog.framing import IGNORABLE_F, NotABinlog, ReadProblem
from replfilter.evaluation.binlog.reader import BinlogEvent, read_binlog, read_stream
from replfilter.evaluation.binlog.show_events import show_rows
from replfilter.evaluation.binlog.tail import scan
from replfilter.server.session import Session

MARIADB = "10.11.19-MariaDB-log"
START_ENCRYPTION = bytes([1]) + struct.pack("<I", 1) + bytes(range(12))  # scheme 1, key version 1, nonce


def encrypted_file(events: int = 6, seed: int = 0, flags: int = 0) -> tuple[bytes, int]:
    """A MariaDB binlog whose events after its Start_encryption event (at the returned
    position) are ciphertext: random bytes but for the event length (offset 9)."""
    w = W.BinlogWriter(MARIADB)
    at = w.add(T.MARIA_START_ENCRYPTION, START_ENCRYPTION, flags=flags)
    rng = random.Random(seed)
    for _ in range(events):
        size = rng.randrange(19, 120)
        data = bytearray(rng.randbytes(size))
        data[9:13] = struct.pack("<I", size)
        w.positions.append(len(w.data))
        w.data += data
    return bytes(w), at


def clear_copy() -> tuple[bytes, int]:
    """What the server sends (and ``--raw`` writes): the Start_encryption event flagged
    ignorable, the events after it in clear."""
    w = W.BinlogWriter(MARIADB)
    at = w.add(T.MARIA_START_ENCRYPTION, START_ENCRYPTION, flags=IGNORABLE_F)
    w.add(T.QUERY, W.query("CREATE DATABASE shop"))
    w.add(T.QUERY, W.query("CREATE TABLE shop.t (a INT)", "shop"))
    return bytes(w), at


def only_problem(items: list) -> ReadProblem:
    problems = [i for i in items if isinstance(i, ReadProblem)]
    assert len(problems) == 1 and problems[0] is items[-1]
    return problems[0]


@settings(max_examples=40, deadline=None)
@given(events=st.integers(0, 8), seed=st.integers(0, 1 << 30), start_after=st.integers(0, 8))
def test_an_encrypted_mariadb_binlog_is_refused_at_its_start_encryption_event(events, seed, start_after):
    data, at = encrypted_file(events, seed)
    items = list(read_stream(io.BytesIO(data), "binlog.000007", open_payloads=False))
    assert [i.raw.type_code for i in items[:-1]] == [T.FORMAT_DESCRIPTION, T.MARIA_START_ENCRYPTION]
    assert items[1].body == StartEncryption(1, 1, bytes(range(12)))
    problem = only_problem(items)
    assert (problem.kind, problem.pos, problem.fatal) == ("encrypted", at, True)
    assert problem.text().startswith(f"binlog.000007: at {at}: the file is encrypted")
    assert "mariadb-binlog --read-from-remote-server --raw binlog.000007" in problem.text() and "\n" not in problem.text()
    # a read that starts past it (a --start-position, a resumed stream) is refused alike
    starts = (events_after(data, at) or [len(data)])[: start_after + 1]
    for start in starts:
        for formats_at in ((), (4,)):
            later = list(read_stream(io.BytesIO(data), "binlog.000007", start=start, formats_at=formats_at))
            assert {i.raw.type_code for i in later if isinstance(i, BinlogEvent)} <= {T.FORMAT_DESCRIPTION}
            assert only_problem(later).pos == at


def events_after(data: bytes, at: int) -> list[int]:
    """The event starts after the Start_encryption event (framed by their clear lengths)."""
    out, pos = [], at + struct.unpack_from("<I", data, at + 9)[0]
    while pos < len(data):
        out.append(pos)
        pos += struct.unpack_from("<I", data, pos + 9)[0]
    return out


def test_a_copy_decrypted_by_the_server_reads_whole_and_shows_start_encryption():
    data, at = clear_copy()
    items = list(read_stream(io.BytesIO(data), "binlog.000001", open_payloads=False))
    assert not any(isinstance(i, ReadProblem) for i in items)
    rows = list(show_rows(items))
    assert [r[2] for r in rows] == ["Format_desc", "Start_encryption", "Query", "Query"]
    assert rows[1][1:] == (at, "Start_encryption", 1, at + 40, "")  # the server's Info for it is empty


def test_evaluate_and_show_binlog_events_refuse_it_in_one_line(tmp_path):
    data, at = encrypted_file()
    path = tmp_path / "binlog.000003"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    assert evaluate.main([str(path)], out, err) == 1
    [line] = [json.loads(x) for x in out.getvalue().splitlines()]
    assert (line["pos"], line["problem"]) == (at, "encrypted")
    assert err.getvalue().splitlines() == [f"replfilter: binlog.000003: at {at}: {line['error']}"]

    session = Session()
    with pytest.raises(MySQLError) as refused:
        session.execute_text(f"SHOW BINLOG EVENTS IN '{path}'")
    assert refused.value.code == 1220
    assert f"SHOW BINLOG EVENTS: binlog.000003: at {at}: the file is encrypted" in str(refused.value.message)
    shown = session.execute_text(f"SHOW BINLOG EVENTS IN '{path}' LIMIT 2").rows
    assert [tuple(r[1:3]) for r in shown] == [(4, "Format_desc"), (at, "Start_encryption")]


def test_replay_and_explain_binlog_say_it_is_encrypted(tmp_path):
    data, at = encrypted_file()
    path = tmp_path / "binlog.000004"
    path.write_bytes(data)
    session = Session()
    replayed = session.execute_text(f"REPLAY BINLOG '{path}'")
    assert replayed.rows == () and len(replayed.warnings) == 1
    assert f"binlog.000004: at {at}: the file is encrypted" in replayed.warnings[0].message
    past = events_after(data, at)[2]
    with pytest.raises(MySQLError) as refused:  # not "no event starts at": none can be found past it
        session.execute_text(f"EXPLAIN REPLICATION OF BINLOG '{path}' AT {past}")
    assert refused.value.code == 1220
    assert str(refused.value.message).startswith(f"Error when executing command EXPLAIN REPLICATION: binlog.000004: at {at}: the file is encrypted")


def test_the_streams_scan_and_a_resumed_read_of_a_growing_encrypted_file(tmp_path):
    """The driver's scan for transaction ends reads nothing past the encryption: the file to its
    end is one piece, which its task reads into the dead letter; when the file grows, the next
    batch resumes after that piece (the Start_encryption event is not read again) and is
    refused alike."""
    data, at = encrypted_file(20)
    path = tmp_path / "binlog.000001"
    path.write_bytes(data[:-30])  # still being written
    first = scan(str(path), closed=False)
    assert [c.pos for c in first.cuts] == [len(data) - 30] and first.waiting is None
    path.write_bytes(data)
    later = scan(str(path), first.cuts[-1], closed=False)
    assert [c.pos for c in later.cuts] == [len(data)]
    resumed = list(read_binlog(str(path), first.cuts[-1].pos, formats_at=first.cuts[-1].formats_at))
    assert len(resumed) == 1 and only_problem(resumed).pos == at


def test_an_encrypted_mysql_binlog_is_refused_by_its_header(tmp_path):
    path = tmp_path / "binlog.000002"
    path.write_bytes(b"\xfdbin" + bytes(508))  # Rpl_encryption_header v1 is 512 bytes
    with pytest.raises(NotABinlog) as refused:
        list(read_binlog(str(path)))
    text = str(refused.value)
    assert text.startswith("binlog.000002: an encrypted MySQL binary log") and "mysqlbinlog --read-from-remote-server --raw" in text
    out, err = io.StringIO(), io.StringIO()
    assert evaluate.main([str(path)], out, err) == 1  # recognised as a binlog, refused as one
    assert json.loads(out.getvalue())["problem"] == "not_binlog" and "\n" not in err.getvalue().strip()


# -- a real server ---------------------------------------------------------------------------------

needs_mariadb = pytest.mark.skipif(not mariadb_server.available(), reason="needs Debian's mariadb-server and mariadb-client")


@pytest.fixture(scope="module")
def encrypted_run(tmp_path_factory):
    """A MariaDB with ``encrypt_binlog=ON`` (the file_key_management plugin, a key file in the
    temporary directory) running a workload: its binlog (copied), the server's own SHOW BINLOG
    EVENTS of it (the server decrypts), and a copy decrypted through the server."""
    out = tmp_path_factory.mktemp("encrypted")
    keys = out / "keys.txt"
    keys.write_text("1;" + "0123456789abcdef" * 4 + "\n")
    server = mariadb_server.MariaDB.start(
        "--plugin-load-add=file_key_management", f"--file-key-management-filename={keys}", "--encrypt-binlog=ON",
        "--binlog-format=ROW",
    )
    try:
        server.sql("CREATE DATABASE shop; CREATE TABLE shop.t (a INT, b VARCHAR(20)); "
                   "INSERT INTO shop.t VALUES (1, 'one'), (2, 'two'); UPDATE shop.t SET b = 'deux' WHERE a = 2; "
                   "DROP TABLE shop.t; FLUSH BINARY LOGS")
        first = server.binlog_files()[0]
        shown = server.sql(f"SHOW BINLOG EVENTS IN '{first.name}'", "--raw", "--skip-column-names")
        copy = out / "encrypted" / first.name
        copy.parent.mkdir()
        copy.write_bytes(first.read_bytes())
        (out / "decrypted").mkdir()
        subprocess.run(["mariadb-binlog", "--no-defaults", "--read-from-remote-server", f"--socket={server.socket}",
                        "-uroot", "--raw", f"--result-file={out / 'decrypted'}/", first.name], check=True, capture_output=True)
        plain = subprocess.run(["mariadb-binlog", str(copy)], capture_output=True, text=True)
    finally:
        server.stop()
    rows = [tuple(line.split("\t")) for line in shown.splitlines()]
    return copy, out / "decrypted" / first.name, rows, plain


@pytest.mark.e2e
@needs_mariadb
def test_a_binlog_mariadb_encrypted_is_refused_where_its_encryption_starts(encrypted_run):
    copy, _decrypted, server_rows, plain = encrypted_run
    where = next(int(r[1]) for r in server_rows if r[2] == "Start_encryption")
    assert "The rest of the binlog is encrypted!" in plain.stdout and plain.returncode != 0  # mariadb-binlog cannot either
    items = list(read_binlog(str(copy), open_payloads=False))
    problem = only_problem(items)
    assert (problem.kind, problem.pos) == ("encrypted", where)
    ours = [tuple(map(str, r)) for r in show_rows(items[:-1])]
    assert ours == [r for r in server_rows if int(r[1]) <= where]  # Format_desc and Start_encryption, as the server


@pytest.mark.e2e
@needs_mariadb
def test_a_copy_decrypted_through_the_server_shows_as_the_server_shows_the_encrypted_file(encrypted_run):
    _copy, decrypted, server_rows, _plain = encrypted_run
    items = list(read_binlog(str(decrypted), open_payloads=False))
    assert not any(isinstance(i, ReadProblem) for i in items)
    assert [tuple(map(str, r)) for r in show_rows(items)] == server_rows


@pytest.mark.spark
def test_spark_reads_an_encrypted_file_as_one_dead_letter_and_the_next_file_whole(spark, tmp_path):
    from replfilter.spark_runtime.binlog_stream import LogPiece, piece_rows
    from replfilter.spark_runtime.ingest import read_events
    from test_binlog_reader import mysql84_file

    data, at = encrypted_file(12)
    (tmp_path / "binlog.000001").write_bytes(data)
    (tmp_path / "binlog.000002").write_bytes(mysql84_file())
    ingested = read_events(spark, str(tmp_path), "binlog")
    [dead] = ingested.dead.collect()
    assert dead.source_file == str(tmp_path / "binlog.000001")
    assert dead.reason.startswith("the file is encrypted") and json.loads(dead.record) == {"pos": at, "problem": "encrypted"}
    names = {json.loads(r.record)["log_name"] for r in ingested.events.collect()}
    assert names == {"binlog.000002"}
    # the stream's task over the same piece: its dead letter's reason names file and position
    piece = LogPiece(((str(tmp_path / "binlog.000001"), 4, None, ()),), "")
    reasons = [row[-1] for row in piece_rows(piece) if row[-1] is not None]
    assert reasons == [f"binlog.000001: at {at}: {dead.reason}"]


def test_a_directory_lists_an_encrypted_mysql_binlog_so_it_is_refused_not_passed_over(tmp_path):
    from replfilter.evaluation.binlog.tail import log_files

    (tmp_path / "binlog.000001").write_bytes(b"\xfdbin" + bytes(508))
    (tmp_path / "notes.txt").write_text("not a log")
    assert log_files(str(tmp_path)) == [str(tmp_path / "binlog.000001")]
    # and a relay-log directory holding it is taken for binary logs (the applier's detection)
    from replfilter.spark_runtime.applier import detect_format

    assert detect_format(str(tmp_path)) == "binlog"
