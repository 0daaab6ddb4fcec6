"""Where a stream over log files may commit (replfilter/evaluation/binlog/tail.py): the ends of
transactions as the applier groups them, across a relay log rotated mid-transaction, in a file
still being written (cut at every byte), and resumed reads that equal whole reads."""

from __future__ import annotations

import os

import binlog_builder as W
from replfilter.evaluation.binlog import column_values as C
from replfilter.evaluation.binlog import event_types as T
from replfilter.evaluation.binlog.as_events import EventMapper, mapped_items, transactions
from replfilter.evaluation.binlog.framing import ReadProblem
from replfilter.evaluation.binlog.reader import BinlogEvent, read_binlog
from replfilter.evaluation.binlog.tail import IN_BEGIN, NO_TRANSACTION, Cut, log_files, scan, source_position
from test_binlog_reader import SID, mysql84_file

COLUMNS = [(C.LONG, 0)]


SOURCE_ID = 7
"""The source's server id in :func:`relay_log` (the replica's own events have the builder's 1)."""


def _transaction(w: W.BinlogWriter, gno: int, table_id: int = 90, db: str = "d", **header) -> None:
    w.add(T.GTID, W.gtid(SID, gno), **header)
    w.add(T.QUERY, W.query("BEGIN", db), **header)
    w.add(T.TABLE_MAP, W.table_map(table_id, db, "t", COLUMNS), **header)
    w.add(T.WRITE_ROWS, W.rows_event(table_id, 1, [W.image(COLUMNS, [gno])]), **header)
    w.add(T.XID, W.xid(gno), **header)


def relay_log(tmp_path) -> list[str]:
    """A replica's relay log in two files with an index: the first starts with the receiver's
    Rotate naming the source's binlog (``log_pos`` 0) and ends in the middle of a transaction
    (GTID, BEGIN, Table_map, then the replica's Rotate), the second starts with the replica's own
    Format_description, then the source's (no checksums), and goes on with that transaction's
    rows and Xid, then a DDL and one more transaction. The source's events carry their end in
    the source's binlog (``log_pos``: 1000 + their end here)."""
    first = W.BinlogWriter()
    first.add(T.ROTATE, (4).to_bytes(8, "little") + b"source-bin.000001", log_pos=0, server_id=SOURCE_ID)
    source = {"server_id": SOURCE_ID}
    _transaction(first, 1, **source)
    first.add(T.GTID, W.gtid(SID, 2), **source)
    first.add(T.QUERY, W.query("BEGIN", "d"), **source)
    first.add(T.TABLE_MAP, W.table_map(91, "d", "t", COLUMNS), **source)
    first.add(T.ROTATE, (4).to_bytes(8, "little") + b"relay-bin.000002")
    second = W.BinlogWriter()
    second.add(T.FORMAT_DESCRIPTION, W.format_description("8.4.3", checksum=False), log_pos=0, checksum=False, server_id=SOURCE_ID)

    def add(code: int, body: bytes) -> None:
        end = len(second.data) + 19 + len(body)
        second.add(code, body, checksum=False, server_id=SOURCE_ID, log_pos=1000 + end)

    add(T.WRITE_ROWS, W.rows_event(91, 1, [W.image(COLUMNS, [2])]))
    add(T.XID, W.xid(2))
    add(T.GTID, W.gtid(SID, 3))
    add(T.QUERY, W.query("CREATE TABLE d.u (a INT)", "d"))
    add(T.GTID, W.gtid(SID, 4))
    add(T.QUERY, W.query("BEGIN", "d"))
    add(T.TABLE_MAP, W.table_map(92, "d", "t", COLUMNS))
    add(T.WRITE_ROWS, W.rows_event(92, 1, [W.image(COLUMNS, [4])]))
    add(T.XID, W.xid(4))
    for name, w in (("relay-bin.000001", first), ("relay-bin.000002", second)):
        (tmp_path / name).write_bytes(bytes(w))
    (tmp_path / "relay-bin.index").write_text("./relay-bin.000001\n./relay-bin.000002\n")
    (tmp_path / "relay-log.info").write_text("7\n./relay-bin.000002\n4\n")
    return [str(tmp_path / "relay-bin.000001"), str(tmp_path / "relay-bin.000002")]


def _group_ends(paths: list[str]) -> list[tuple[str, int]]:
    """Where each of the applier's transaction groups ends, the files read as one log."""
    items = (item for path in paths for item in read_binlog(path))
    ends = []
    for group in transactions(mapped_items(items, EventMapper())):
        last = group.items[-1]
        if isinstance(last, ReadProblem):
            ends.append((last.log_name, last.end_pos))
        else:
            ends.append((last.source.raw.log_name, last.source.raw.end_pos))
    return ends


def _cuts(paths: list[str]) -> list[tuple[str, int]]:
    out = []
    carried = NO_TRANSACTION
    for k, path in enumerate(paths):
        found = scan(path, closed=k < len(paths) - 1, split_bytes=1, open_at_start=carried)
        carried = found.open_at_end
        out += [(os.path.basename(path), cut.pos) for cut in found.cuts]
    return out


def test_the_cuts_are_the_ends_of_the_appliers_transaction_groups(tmp_path):
    (tmp_path / "one").mkdir()
    single = tmp_path / "one" / "binlog.000001"
    single.write_bytes(mysql84_file())  # GTIDs, a DDL, a Transaction_payload, a Rotate
    assert _cuts([str(single)]) == _group_ends([str(single)])
    paths = relay_log(tmp_path)
    assert _cuts(paths) == _group_ends(paths)
    # the first relay file ends inside transaction 2: no cut at its end, the transaction is
    # carried into the next file, whose first cut is after that transaction's Xid
    first = scan(paths[0], closed=True, split_bytes=1)
    assert first.open_at_end == IN_BEGIN and first.cuts[-1].pos < first.size


def _xa_prepare(gtrid: bytes) -> bytes:
    return bytes([0]) + (1).to_bytes(4, "little") + len(gtrid).to_bytes(4, "little") + (0).to_bytes(4, "little") + gtrid


def test_savepoints_xa_and_incidents_end_transactions_as_mysqls_boundary_parser(tmp_path):
    """``ROLLBACK TO <savepoint>`` does not end a transaction; ``XA START`` opens one as ``BEGIN``
    does, so that GTID, XA START, rows, XA END, XA_prepare is one group (then GTID, XA COMMIT);
    an Incident ends the transaction it is in (libbinlogevents/src/trx_boundary_parser.cpp).
    The scan's cuts and the applier's groups agree on each."""
    w = W.BinlogWriter()
    w.add(T.GTID, W.gtid(SID, 1))
    w.add(T.QUERY, W.query("BEGIN", "d"))
    w.add(T.TABLE_MAP, W.table_map(90, "d", "t", COLUMNS))
    w.add(T.WRITE_ROWS, W.rows_event(90, 1, [W.image(COLUMNS, [1])]))
    w.add(T.QUERY, W.query("SAVEPOINT s", "d"))
    w.add(T.QUERY, W.query("ROLLBACK TO s", "d"))
    w.add(T.QUERY, W.query("rollback to savepoint s", "d"))
    w.add(T.XID, W.xid(1))
    w.add(T.GTID, W.gtid(SID, 2))
    w.add(T.QUERY, W.query("XA START X'78',X'',1", "d"))
    w.add(T.TABLE_MAP, W.table_map(91, "d", "t", COLUMNS))
    w.add(T.WRITE_ROWS, W.rows_event(91, 1, [W.image(COLUMNS, [2])]))
    w.add(T.QUERY, W.query("XA END X'78',X'',1", "d"))
    w.add(T.XA_PREPARE, _xa_prepare(b"x"))
    w.add(T.GTID, W.gtid(SID, 3))
    w.add(T.QUERY, W.query("XA COMMIT X'78',X'',1", "d"))
    w.add(T.GTID, W.gtid(SID, 4))
    w.add(T.QUERY, W.query("BEGIN", "d"))
    w.add(T.INCIDENT, b"\x01\x00" + bytes([4]) + b"lost")
    w.add(T.GTID, W.gtid(SID, 5))
    w.add(T.QUERY, W.query("CREATE TABLE d.u (a INT)", "d"))
    path = tmp_path / "binlog.000001"
    path.write_bytes(bytes(w))
    groups = list(transactions(mapped_items(read_binlog(str(path)), EventMapper())))
    kinds = [[i.source.raw.type_code for i in g.items] for g in groups]
    assert kinds == [
        [T.FORMAT_DESCRIPTION],
        [T.GTID, T.QUERY, T.TABLE_MAP, T.WRITE_ROWS, T.QUERY, T.QUERY, T.QUERY, T.XID],
        [T.GTID, T.QUERY, T.TABLE_MAP, T.WRITE_ROWS, T.QUERY, T.XA_PREPARE],
        [T.GTID, T.QUERY],
        [T.GTID, T.QUERY, T.INCIDENT],
        [T.GTID, T.QUERY],
    ]
    assert _cuts([str(path)]) == _group_ends([str(path)])
    # the same file cut anywhere (still being written): every cut is a group end
    ends = {pos for _name, pos in _group_ends([str(path)])}
    for size in range(4, len(w.data) + 1, 7):
        assert {c.pos for c in scan(str(path), limit=size, split_bytes=1).cuts} <= ends


def test_a_rows_event_in_the_next_relay_file_keeps_its_table_map(tmp_path):
    paths = relay_log(tmp_path)
    mapped = list(mapped_items((i for p in paths for i in read_binlog(p)), EventMapper()))
    assert [m.error for m in mapped if not isinstance(m, ReadProblem) and m.error] == []
    rows = [m for m in mapped if not isinstance(m, ReadProblem) and m.rows_of is not None and m.event is None]
    assert [(m.rows_of.table_id, m.row_count) for m in rows] == [(90, 1), (91, 1), (92, 1)]


def test_log_files_follow_the_index_else_the_names(tmp_path):
    paths = relay_log(tmp_path)
    (tmp_path / "relay-bin.index").write_text("./relay-bin.000002\n./relay-bin.000001\n")
    assert log_files(str(tmp_path)) == paths[::-1]  # the index's order, other files left out
    (tmp_path / "binlog.000001").write_bytes(mysql84_file())  # a replica's own binlog beside its relay log
    (tmp_path / "binlog.index").write_text("./binlog.000001\n")
    assert log_files(str(tmp_path)) == paths[::-1]  # the relay log's index wins
    os.remove(tmp_path / "binlog.index")
    os.remove(tmp_path / "binlog.000001")
    os.remove(tmp_path / "relay-bin.index")
    assert log_files(str(tmp_path)) == paths  # the binlog files by name; relay-log.info is not one


def test_a_file_still_being_written_is_cut_at_its_last_complete_transaction(tmp_path):
    """At every byte where the writer may be, the scan never raises, its last cut is the end of
    the last transaction wholly written, and a partly written event is waited for."""
    data = mysql84_file()
    whole = tmp_path / "whole"
    whole.write_bytes(data)
    ends = [pos for _name, pos in _group_ends([str(whole)])]
    starts = {item.raw.pos for item in read_binlog(str(whole), open_payloads=False) if isinstance(item, BinlogEvent)}
    growing = tmp_path / "binlog.000001"
    for size in range(4, len(data) + 1):
        growing.write_bytes(data[:size])
        found = scan(str(growing))
        complete = [end for end in ends if end <= size]
        assert (found.last.pos if found.last else None) == (complete[-1] if complete else None), size
        mid_event = size not in starts and size != len(data)
        assert (found.waiting is not None) == (mid_event and size > 4), size
        if found.waiting is not None:
            assert found.waiting.kind == "truncated" and found.waiting.log_name == "binlog.000001"


def test_a_read_resumed_at_a_cut_equals_the_whole_read(tmp_path):
    """Resumed without reading what precedes the cut: the Format_description in force (the
    source's in a relay log, without checksums) is read from where the cut says."""
    for path in relay_log(tmp_path):
        whole = [(i.raw.pos, i.raw.type_code, i.body) for i in read_binlog(path) if isinstance(i, BinlogEvent)]
        for cut in scan(path, closed=True, split_bytes=1).cuts:
            resumed = [
                (i.raw.pos, i.raw.type_code, i.body)
                for i in read_binlog(path, cut.pos, formats_at=cut.formats_at)
                if isinstance(i, BinlogEvent) and i.raw.pos >= cut.pos
            ]
            assert resumed == [e for e in whole if e[0] >= cut.pos], (path, cut)
            assert not [p for p in read_binlog(path, cut.pos, formats_at=cut.formats_at) if isinstance(p, ReadProblem)]


def test_a_bad_checksum_outside_a_transaction_is_a_group_of_its_own(tmp_path):
    w = W.BinlogWriter()
    w.add(T.GTID, W.gtid(SID, 1))
    w.add(T.QUERY, W.query("CREATE TABLE d.a (x INT)", "d"))
    bad = w.add(T.GTID, W.gtid(SID, 2))
    w.add(T.QUERY, W.query("CREATE TABLE d.b (x INT)", "d"))
    data = bytearray(bytes(w))
    data[bad + 25] ^= 0xFF  # inside the GTID's body: its checksum no longer matches
    path = tmp_path / "binlog.000001"
    path.write_bytes(bytes(data))
    found = scan(str(path), split_bytes=1)
    assert [c.pos for c in found.cuts] == [w.positions[1], w.positions[3], w.positions[4], len(data)]
    assert [c.pos for c in found.cuts] == [pos for _name, pos in _group_ends([str(path)])]
    assert found.waiting is None and found.cuts[-1] == Cut(len(data), 4)


def test_the_source_position_of_a_relay_log_place(tmp_path):
    """SHOW REPLICA STATUS's Relay_Source_Log_File / Exec_Source_Log_Pos: the source's file from
    the receiver's Rotate (in an earlier relay file), the position from the last source event's
    ``log_pos``; a server's own binlog names no source."""
    paths = relay_log(tmp_path)
    ends = [cut.pos for cut in scan(paths[1], split_bytes=1, open_at_start=IN_BEGIN).cuts]
    assert source_position(paths, "relay-bin.000002", ends[0]) == ("source-bin.000001", 1000 + ends[0])
    assert source_position(paths, "relay-bin.000002", ends[-1]) == ("source-bin.000001", 1000 + ends[-1])
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "binlog.000001").write_bytes(mysql84_file())
    own = str(tmp_path / "own" / "binlog.000001")
    assert source_position([own], "binlog.000001", scan(own).last.pos) is None


def test_an_unframeable_event_in_a_file_being_written_is_read_not_waited_on(tmp_path):
    """An impossible event size in the last file: the rest cannot be framed and waiting would
    stall the stream, so the scan cuts at the file's end and the read reports it with its
    position."""
    data = bytearray(mysql84_file())
    starts = sorted({i.raw.pos for i in read_binlog_items(data, tmp_path)})
    bad = starts[5]
    data[bad + 9:bad + 13] = (7).to_bytes(4, "little")  # event_size 7: less than a header
    path = tmp_path / "binlog.000001"
    path.write_bytes(bytes(data))
    found = scan(str(path))
    assert found.waiting is None and found.last.pos == len(data)
    problems = [p for p in read_binlog(str(path)) if isinstance(p, ReadProblem)]
    assert [(p.pos, p.kind, p.fatal) for p in problems] == [(bad, "malformed", True)]


def read_binlog_items(data: bytes, tmp_path) -> list[BinlogEvent]:
    path = tmp_path / "whole"
    path.write_bytes(bytes(data))
    return [i for i in read_binlog(str(path), open_payloads=False) if isinstance(i, BinlogEvent)]
