"""The binary log reader on files built byte by byte (tests/binlog_builder.py cites the layouts):
MySQL 8.4's event types that MariaDB does not write, the checksum on every event, truncation at
every offset, files that are not binlogs, and a round-trip property for row values."""

from __future__ import annotations

import io
import struct
import json
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

import binlog_builder as W
from replfilter.evaluation.binlog import column_values as C
from replfilter.evaluation.binlog import event_types as T
from replfilter.evaluation.binlog.decide import decide_files
from replfilter.evaluation.binlog.framing import NotABinlog, ReadProblem
from replfilter.evaluation.binlog.reader import BinlogEvent, read_binlog, read_stream
from replfilter.evaluation.binlog.rows import JsonDiff
from replfilter.evaluation.binlog.show_events import show_rows
from replfilter.evaluation.event_lines import LineEvaluator
from replfilter.server.session import Session

SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
ORDERS = [(C.LONG, 0), (C.NEWDECIMAL, (10 << 8) | 2), (C.VARCHAR, 200), (C.JSON, 4)]


def mysql84_file() -> bytes:
    """A MySQL 8.4 binlog: Previous_gtids, a GTID transaction with v2 rows events and a
    partial JSON update, an anonymous DDL, a compressed transaction, and a Rotate."""
    w = W.BinlogWriter()
    w.add(T.PREVIOUS_GTIDS, W.previous_gtids({SID: [(1, 5)]}))
    w.add(T.GTID, W.gtid(SID, 6))
    w.add(T.QUERY, W.query("BEGIN", "shop"))
    w.add(T.TABLE_MAP, W.table_map(83, "shop", "orders", ORDERS, names=["id", "total", "note", "doc"]))
    w.add(T.WRITE_ROWS, W.rows_event(83, 4, [W.image(ORDERS, [1, Decimal("10.50"), b"first", {"a": [1, "x"]}])], flags=0))
    w.add(T.UPDATE_ROWS, W.rows_event(83, 4, [
        W.image(ORDERS, [1, Decimal("10.50"), b"first", {"a": 1}]) + W.image(ORDERS, [1, Decimal("-3.25"), None, {"a": 2}]),
    ], update=True, flags=0))
    w.add(T.PARTIAL_UPDATE_ROWS, W.rows_event(83, 4, [
        W.image(ORDERS, [1, Decimal("-3.25"), None, {"a": 2}])
        + W.image(ORDERS, [1, Decimal("-3.25"), None, [("REPLACE", "$.a", 3), ("REMOVE", "$.b", None)]], partial_json=[True]),
    ], update=True, flags=0))
    w.add(T.DELETE_ROWS, W.rows_event(83, 4, [W.image(ORDERS, [1, Decimal("-3.25"), None, None])]))
    w.add(T.XID, W.xid(1234))
    w.add(T.ANONYMOUS_GTID, W.gtid(None, 0))
    w.add(T.QUERY, W.query("CREATE TABLE audit.log (id INT)", "shop"))
    w.add(T.GTID, W.gtid(SID, 7))
    inner = W.inner_events(
        (T.QUERY, W.query("BEGIN", "audit")),
        (T.TABLE_MAP, W.table_map(84, "audit", "log", [(C.LONG, 0)])),
        (T.WRITE_ROWS, W.rows_event(84, 1, [W.image([(C.LONG, 0)], [5]), W.image([(C.LONG, 0)], [6])])),
        (T.XID, W.xid(1235)),
    )
    w.add(T.TRANSACTION_PAYLOAD, W.transaction_payload(inner))
    w.add(T.ROTATE, W.query("", "")[:0] + (4).to_bytes(8, "little") + b"binlog.000002")
    return bytes(w)


@pytest.fixture
def binlog(tmp_path):
    path = tmp_path / "binlog.000001"
    path.write_bytes(mysql84_file())
    return path


def test_show_binlog_events_names_and_info(binlog):
    rows = list(show_rows(read_binlog(str(binlog), open_payloads=False)))
    assert [(r[2], r[5]) for r in rows] == [
        ("Format_desc", "Server ver: 8.4.3, Binlog ver: 4"),
        ("Previous_gtids", f"{SID}:1-5"),
        ("Gtid", f"SET @@SESSION.GTID_NEXT= '{SID}:6'"),
        ("Query", "use `shop`; BEGIN"),
        ("Table_map", "table_id: 83 (shop.orders)"),
        ("Write_rows", "table_id: 83"),
        ("Update_rows", "table_id: 83"),
        ("Update_rows_partial", "table_id: 83"),
        ("Delete_rows", "table_id: 83 flags: STMT_END_F"),
        ("Xid", "COMMIT /* xid=1234 */"),
        ("Anonymous_Gtid", "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'"),
        ("Query", "use `shop`; CREATE TABLE audit.log (id INT)"),
        ("Gtid", f"SET @@SESSION.GTID_NEXT= '{SID}:7'"),
        ("Transaction_payload", f"compression='ZSTD', decompressed_size={rows[13][4] and _inner_size()} bytes"),
        ("Rotate", "binlog.000002;pos=4"),
    ]
    assert all(r[4] > r[1] for r in rows) and rows[0][1] == 4
    assert all(rows[i][4] == rows[i + 1][1] for i in range(len(rows) - 1))


def _inner_size() -> int:
    return len(W.inner_events(
        (T.QUERY, W.query("BEGIN", "audit")),
        (T.TABLE_MAP, W.table_map(84, "audit", "log", [(C.LONG, 0)])),
        (T.WRITE_ROWS, W.rows_event(84, 1, [W.image([(C.LONG, 0)], [5]), W.image([(C.LONG, 0)], [6])])),
        (T.XID, W.xid(1235)),
    ))


def _decoded_rows(path) -> list:
    return [(name, rows) for name, _table, rows in W.read_back_rows(path)]


def test_rows_v2_partial_update_and_payload_decode(binlog):
    rows = _decoded_rows(binlog)
    assert rows[0] == ("Write_rows", [(None, {0: 1, 1: Decimal("10.50"), 2: b"first", 3: {"a": [1, "x"]}})])
    assert rows[1][1][0][1] == {0: 1, 1: Decimal("-3.25"), 2: None, 3: {"a": 2}}
    assert rows[2][0] == "Update_rows_partial"
    assert rows[2][1][0][1][3] == (JsonDiff("REPLACE", "$.a", 3), JsonDiff("REMOVE", "$.b", None))
    assert rows[3][1] == [({0: 1, 1: Decimal("-3.25"), 2: None, 3: None}, None)]
    # the compressed transaction's rows, read from inside the payload
    assert rows[4] == ("Write_rows", [(None, {0: 5}), (None, {0: 6})])


def test_evaluate_groups_transactions_and_gives_gtids(binlog):
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (audit)")
    results = [r.to_dict() for r in decide_files(LineEvaluator(session.state), [str(binlog)])]
    by_type = [(r["event_type"], r["gtid"], r.get("decision"), r["transaction"], r.get("rows")) for r in results]
    assert by_type[:3] == [("Gtid", f"{SID}:6", "APPLY", "APPLY", None), ("Query", f"{SID}:6", "APPLY", "APPLY", None),
                           ("Table_map", f"{SID}:6", "APPLY", "APPLY", None)]
    assert ("Write_rows", f"{SID}:6", "APPLY", "APPLY", 1) in by_type
    # the compressed transaction writes to an ignored database: all of it is skipped
    payload = [r for r in results if r["gtid"] == f"{SID}:7"]
    assert {r["transaction"] for r in payload} == {"SKIP"}
    assert [r["rows"] for r in payload if "rows" in r] == [2]
    assert all(r["pos"] == payload[-1]["pos"] for r in payload[1:])


def test_a_read_leaves_the_collectors_frozen_objects_as_it_found_them(binlog):
    """A host application (or a server process) may have moved its objects to the garbage
    collector's permanent generation (``gc.freeze``): a read, with or without row values,
    abandoned half-way or not, neither freezes nor unfreezes anything (an earlier reader froze
    the heap during a read and called ``gc.unfreeze`` after, unfreezing the host's objects too;
    measured on bench/binlog.py's file the freeze saved 0-1.5 % of the CPU time, within the
    noise, so it was dropped)."""
    import gc

    evaluator = LineEvaluator(Session().state)
    kept = [{"host": n} for n in range(1000)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept)
        # only gc.freeze() adds to the permanent generation, and only gc.unfreeze() empties it;
        # a frozen object freed by its reference count (another test's garbage) leaves it, so
        # the count may fall a little, but never rise, nor fall below the host's objects
        results = decide_files(evaluator, [str(binlog)], decode_rows=True)
        next(results)
        assert len(kept) <= gc.get_freeze_count() <= frozen
        assert list(decide_files(evaluator, [str(binlog)]))
        assert len(kept) <= gc.get_freeze_count() <= frozen
        results.close()
        assert len(kept) <= gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_the_checksum_is_verified_on_every_event(binlog):
    data = binlog.read_bytes()
    clean = [i for i in read_binlog(str(binlog), open_payloads=False)]
    for item in clean[1:]:  # corrupt one byte in the body of each event in turn
        assert isinstance(item, BinlogEvent)
        broken = bytearray(data)
        broken[item.raw.pos + 20] ^= 0x55
        items = list(read_stream(io.BytesIO(bytes(broken)), "binlog.000001", open_payloads=False))
        problems = [i for i in items if isinstance(i, ReadProblem)]
        assert [(p.kind, p.pos) for p in problems] == [("checksum", item.raw.pos)]
        assert len(items) == len(clean)  # the reader goes on after it


def test_truncation_at_every_offset_is_a_clean_truncated_result(binlog):
    data = binlog.read_bytes()
    ends = {4} | {i.raw.end_pos for i in read_binlog(str(binlog), open_payloads=False)}
    for cut in range(4, len(data)):
        items = list(read_stream(io.BytesIO(data[:cut]), "binlog.000001"))
        problems = [i for i in items if isinstance(i, ReadProblem)]
        if cut in ends:
            assert problems == []
        else:
            assert [p.kind for p in problems] == ["truncated"], cut
            assert problems[0].pos == max(e for e in ends if e <= cut)


def test_a_file_that_is_not_a_binlog_is_refused_in_one_line(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"v": 1}\n')
    with pytest.raises(NotABinlog) as err:
        list(read_binlog(str(path)))
    assert "\n" not in str(err.value) and "not a binary log" in str(err.value)


def test_an_unknown_event_type_is_skipped_by_its_length(tmp_path):
    w = W.BinlogWriter()
    w.add(99, b"\x00" * 10)
    w.add(T.XID, W.xid(1))
    path = tmp_path / "b"
    path.write_bytes(bytes(w))
    items = list(read_binlog(str(path)))
    assert isinstance(items[1], ReadProblem) and items[1].kind == "unknown"
    assert isinstance(items[2], BinlogEvent) and items[2].body.xid == 1


# --- the round-trip property -------------------------------------------------------------------

_INTS = {C.TINY: 8, C.SHORT: 16, C.INT24: 24, C.LONG: 32, C.LONGLONG: 64}


@st.composite
def column_and_value(draw):
    kind = draw(st.sampled_from([
        C.TINY, C.SHORT, C.INT24, C.LONG, C.LONGLONG, C.FLOAT, C.DOUBLE, C.NEWDECIMAL, C.DATE,
        C.TIME2, C.DATETIME2, C.TIMESTAMP2, C.YEAR, C.VARCHAR, C.STRING, C.BLOB, C.ENUM, C.SET,
        C.BIT, C.JSON, C.GEOMETRY,
    ]))
    unsigned = False
    if kind in _INTS:
        unsigned = draw(st.booleans())
        bits = _INTS[kind]
        low, high = (0, 2 ** bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        return kind, 0, draw(st.integers(low, high)), unsigned
    if kind == C.FLOAT:
        return kind, 4, draw(st.floats(width=32, allow_nan=False)), False
    if kind == C.DOUBLE:
        return kind, 8, draw(st.floats(allow_nan=False)), False
    if kind == C.NEWDECIMAL:
        precision = draw(st.integers(1, 65))
        scale = draw(st.integers(0, min(precision, 30)))
        digits = draw(st.integers(0, 10 ** precision - 1))
        sign = draw(st.sampled_from(["", "-"])) if digits else ""  # the server stores no negative zero
        text = str(digits).rjust(scale + 1, "0")
        value = Decimal(f"{sign}{text[:len(text) - scale]}.{text[len(text) - scale:]}" if scale else f"{sign}{text}")
        return kind, (precision << 8) | scale, value, False
    if kind == C.DATE:
        return kind, 0, f"{draw(st.integers(0, 9999)):04d}-{draw(st.integers(0, 12)):02d}-{draw(st.integers(0, 31)):02d}", False
    fsp = draw(st.integers(0, 6))
    micro = draw(st.integers(0, 999999)) // 10 ** (6 - fsp) * 10 ** (6 - fsp)
    frac = f".{micro:06d}"[:fsp + 1] if fsp else ""
    if kind == C.TIME2:
        sign = draw(st.sampled_from(["", "-"]))
        text = f"{draw(st.integers(0, 838)):02d}:{draw(st.integers(0, 59)):02d}:{draw(st.integers(0, 59)):02d}{frac}"
        if sign and text.strip("0:.") == "":
            sign = ""
        return kind, fsp, sign + text, False
    if kind == C.DATETIME2:
        return kind, fsp, (f"{draw(st.integers(0, 9999)):04d}-{draw(st.integers(1, 12)):02d}-{draw(st.integers(1, 31)):02d} "
                           f"{draw(st.integers(0, 23)):02d}:{draw(st.integers(0, 59)):02d}:{draw(st.integers(0, 59)):02d}{frac}"), False
    if kind == C.TIMESTAMP2:
        seconds = draw(st.integers(0, 2 ** 31 - 1))
        return kind, fsp, (Decimal(f"{seconds}{frac}") if fsp else seconds), False
    if kind == C.YEAR:
        return kind, 0, draw(st.sampled_from([0]) | st.integers(1901, 2155)), False
    if kind in (C.VARCHAR, C.STRING):
        max_len = draw(st.sampled_from([10, 255, 300, 1000]))
        return kind, max_len, draw(st.binary(max_size=min(max_len, 300))), False
    if kind in (C.BLOB, C.GEOMETRY):
        return kind, draw(st.integers(1, 4)), draw(st.binary(max_size=255)), False
    if kind == C.ENUM:
        size = draw(st.integers(1, 2))
        return kind, size, draw(st.integers(0, 2 ** (8 * size) - 1)), False
    if kind == C.SET:
        size = draw(st.integers(1, 8))
        return kind, size, draw(st.integers(0, 2 ** (8 * size) - 1)), False
    if kind == C.BIT:
        nbits = draw(st.integers(1, 64))
        return kind, ((nbits // 8) << 8) | (nbits % 8), draw(st.integers(0, 2 ** nbits - 1)), False
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers(-(2 ** 63), 2 ** 64 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
        lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
        max_leaves=10,
    )
    return C.JSON, 4, draw(json_values), False


@settings(max_examples=150, deadline=None)
@given(st.lists(column_and_value(), min_size=1, max_size=8), st.data())
def test_written_row_events_read_back_to_the_same_values(tmp_path_factory, columns, data):
    types = [(kind, meta) for kind, meta, _, _ in columns]
    unsigned = [u for _, _, _, u in columns]
    values = [data.draw(st.sampled_from([value, None])) for _, _, value, _ in columns]
    w = W.BinlogWriter()
    w.add(T.TABLE_MAP, W.table_map(7, "d", "t", types, unsigned=unsigned))
    w.add(T.WRITE_ROWS, W.rows_event(7, len(types), [W.image(types, values, unsigned)]))
    path = tmp_path_factory.mktemp("rt") / "b"
    path.write_bytes(bytes(w))
    [(name, rows)] = _decoded_rows(path)
    assert name == "Write_rows"
    decoded = rows[0][1]
    for i, value in enumerate(values):
        _assert_same_value(types[i][0], value, decoded[i])


def test_a_rows_event_with_no_column_present_and_bytes_left_is_an_error_not_a_hang(tmp_path):
    w = W.BinlogWriter()
    w.add(T.TABLE_MAP, W.table_map(7, "d", "t", [(C.LONG, 0)]))
    w.add(T.DELETE_ROWS, W.rows_event(7, 1, [b"\x00\x01"], present=[]))
    path = tmp_path / "binlog.000001"
    path.write_bytes(bytes(w))
    for decode in (False, True):
        [result] = [r for r in decide_files(LineEvaluator(Session().state), [str(path)], decode_rows=decode)
                    if r.item is not None and r.item.source.raw.type_code == T.DELETE_ROWS]
        assert result.error == "row image does not parse: rows event with no column present has bytes left"


def _assert_same_value(kind: int, expected, got) -> None:
    if isinstance(expected, float) and kind == C.FLOAT:
        assert got == struct.unpack("<f", struct.pack("<f", expected))[0]
    elif isinstance(expected, Decimal):
        assert format(got, "f") == format(expected, "f")
    elif isinstance(expected, (dict, list)):
        assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
    else:
        assert got == expected, (kind, expected, got)


_ROWS_KINDS = {T.WRITE_ROWS: (False, True), T.DELETE_ROWS: (True, False), T.UPDATE_ROWS: (True, True)}


@settings(max_examples=100, deadline=None)
@given(st.lists(column_and_value(), min_size=1, max_size=10), st.data())
def test_compiled_rows_readers_read_every_shape_back(tmp_path_factory, columns, data):
    """The generated readers' branches (row_codegen.py): runs of NOT NULL fixed-width columns
    read by one struct, nullable columns NULL or not, a NOT NULL column flagged NULL (read value
    by value instead), write, delete and update events holding a subset of the columns, several
    rows per event, and the JSON form built in the same pass equal to the typed values
    converted one by one (row_json.json_converter), ENUM and SET by their member names."""
    from replfilter.evaluation.binlog.bodies import Rows
    from replfilter.evaluation.binlog.row_json import json_converter
    from replfilter.evaluation.binlog.rows import TableMap, count_rows, read_rows, read_rows_json

    n = len(columns)
    types = [(kind, meta) for kind, meta, _, _ in columns]
    unsigned = [u for _, _, _, u in columns]
    nullable = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    kind = data.draw(st.sampled_from(sorted(_ROWS_KINDS)))
    has_before, has_after = _ROWS_KINDS[kind]
    subsets = st.lists(st.sampled_from(range(n)), min_size=1, unique=True).map(sorted)
    present = data.draw(subsets)
    present_after = data.draw(subsets) if kind == T.UPDATE_ROWS else None
    members = {i: [b"new", "pay\u00e9".encode(), b"x"] for i, (k, _) in enumerate(types) if k in (C.ENUM, C.SET)}
    members = {i: v for i, v in members.items() if data.draw(st.booleans())}
    names = [f"c\u00e9{i}" for i in range(n)]
    # mostly the drawn value; NULL now and then, also in a NOT NULL column (which the fast path hands on)
    value_or_null = lambda c: data.draw(st.sampled_from([columns[c][2]] * 3 + [None]))  # noqa: E731
    rows, images = [], []
    for _ in range(data.draw(st.integers(1, 4))):
        row = []
        for wanted, cols in ((has_before, present), (has_after, present_after if kind == T.UPDATE_ROWS else present)):
            if wanted:
                values = {c: value_or_null(c) for c in cols}
                images.append(W.image([types[c] for c in cols], [values[c] for c in cols], [unsigned[c] for c in cols]))
                row.append(values)
            else:
                row.append(None)
        rows.append(tuple(row))
    w = W.BinlogWriter()
    w.add(T.TABLE_MAP, W.table_map(7, "d", "t", types, names=names, unsigned=unsigned, nullable=nullable, members=members))
    w.add(kind, W.rows_event(7, n, images, update=kind == T.UPDATE_ROWS, present=present, present_after=present_after))
    path = tmp_path_factory.mktemp("shapes") / "b"
    path.write_bytes(bytes(w))
    [table] = [i.body for i in read_binlog(str(path)) if isinstance(i.body, TableMap)]
    [event] = [i.body for i in read_binlog(str(path)) if isinstance(i.body, Rows)]
    typed = read_rows(event.header, table, event.body)
    assert count_rows(event.header, table, event.body) == len(typed) == len(rows)
    for expected_row, got_row in zip(rows, typed):
        for expected, got in zip(expected_row, got_row):
            assert (expected is None) == (got is None)
            if expected is not None:
                assert list(got) == list(expected)
                for c, value in expected.items():
                    if value is None:
                        assert got[c] is None
                    else:
                        _assert_same_value(types[c][0], value, got[c])
    assert all(({**table.enum_values, **table.set_values})[i] == tuple(v) for i, v in members.items())
    convert = [json_converter(k, table.enum_values.get(i), table.set_values.get(i)) for i, (k, _) in enumerate(types)]
    as_json = [{side: {names[c]: convert[c](v) for c, v in image.items()}
                for side, image in (("before", before), ("after", after)) if image is not None}
               for before, after in typed]
    assert json.dumps(read_rows_json(event.header, table, event.body, tuple(names)), sort_keys=True) == json.dumps(as_json, sort_keys=True)


@pytest.mark.parametrize("bitmap, updating", [(0b11, (True, True)), (0b10, (False, True))])
def test_a_multi_table_update_takes_its_updating_tables_from_the_source_bitmap(bitmap, updating):
    """``UPDATE t1, t2 SET a = 1, t2.b = 2``: which table owns ``a`` is not in the text; the
    source's ``Q_TABLE_MAP_FOR_UPDATE`` says, as the replica reads it."""
    from replfilter.evaluation.binlog.as_events import EventMapper

    sql = "UPDATE t1, t2 SET a = 1, t2.b = 2"
    w = W.BinlogWriter()
    w.add(T.QUERY, W.query(sql, "d", W.table_map_for_update(bitmap) + W.updated_db_names(["d"])))
    w.add(T.QUERY, W.query(sql, "d"))
    items = [i for i in read_stream(io.BytesIO(bytes(w)), "b") if isinstance(i, BinlogEvent)]
    mapper = EventMapper()
    with_bitmap, without = (mapper.map(i).event for i in items[1:])
    assert items[1].body.updated_dbs == ("d",)
    assert tuple(t.updating for t in with_bitmap.tables) == updating
    assert tuple(t.updating for t in without.tables) == (None, True)  # undecided without it


def test_a_relay_log_switches_to_the_sources_format_description_and_keeps_its_positions(tmp_path):
    """A relay log: the replica's Format_description (CRC32), then the source's (here without
    checksums) after which the events are read as the source wrote them; End_log_pos is the
    header's log_pos (the source's position), 0 for what the replica wrote itself."""
    w = W.BinlogWriter()  # the replica's, CRC32
    w.add(T.ROTATE, (4).to_bytes(8, "little") + b"source-bin.000007", log_pos=0)
    w.add(T.FORMAT_DESCRIPTION, W.format_description("8.4.3", checksum=False), log_pos=0, checksum=False)
    w.add(T.QUERY, W.query("CREATE TABLE t (a INT)", "d"), log_pos=5000, checksum=False)
    path = tmp_path / "relay-bin.000002"
    path.write_bytes(bytes(w))
    session = Session()
    rows = session.execute_text(f"SHOW RELAYLOG EVENTS IN '{path}'").rows
    assert [(r[2], r[4]) for r in rows] == [("Format_desc", rows[1][1]), ("Rotate", 0), ("Format_desc", 0), ("Query", 5000)]
    assert rows[3][5] == "use `d`; CREATE TABLE t (a INT)"


# --- the round-trip property over event types -----------------------------------------------

_names = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF, exclude_characters="`\0"), min_size=1, max_size=12)
_sids = st.uuids().map(str)
_tags = st.from_regex(r"[a-z_][a-z0-9_]{0,31}", fullmatch=True)


@st.composite
def an_event(draw):
    """(type code, body bytes, the body the reader must give back)."""
    from replfilter.evaluation.binlog import bodies as B

    kind = draw(st.sampled_from(["query", "gtid", "anonymous", "tagged", "xid", "rotate", "intvar", "rand", "xa", "previous",
                                 "tagged_previous", "table_map"]))
    if kind == "query":
        db, sql = draw(st.sampled_from(["", "d"]) | _names), draw(st.text(max_size=60))
        bitmap = draw(st.none() | st.integers(0, 2 ** 64 - 1))
        dbs = draw(st.none() | st.lists(_names, max_size=3))
        status = (W.table_map_for_update(bitmap) if bitmap is not None else b"") + (W.updated_db_names(dbs) if dbs is not None else b"")
        expected = B.Query(7, 0, 0, db, sql, table_map_for_update=bitmap, updated_dbs=tuple(dbs) if dbs is not None else None)
        return T.QUERY, W.query(sql, db, status), expected
    if kind in ("gtid", "anonymous"):
        sid = None if kind == "anonymous" else draw(_sids)
        gno = 0 if sid is None else draw(st.integers(1, 2 ** 63 - 1))
        last, seq = draw(st.integers(0, 2 ** 62)), draw(st.integers(1, 2 ** 62))
        expected = B.Gtid(sid is None, sid or "00000000-0000-0000-0000-000000000000", gno, last, seq)
        return (T.ANONYMOUS_GTID if sid is None else T.GTID), W.gtid(sid, gno, last, seq), expected
    if kind == "tagged":
        sid, tag, gno = draw(_sids), draw(_tags), draw(st.integers(1, 2 ** 63 - 2))
        last, seq = draw(st.integers(0, 2 ** 63 - 1)), draw(st.integers(0, 2 ** 63 - 1))
        immediate, original = draw(st.integers(0, 2 ** 64 - 1)), draw(st.none() | st.integers(0, 2 ** 64 - 1))
        length, version, original_version = draw(st.integers(0, 2 ** 64 - 1)), draw(st.integers(0, 2 ** 32 - 1)), draw(st.none() | st.integers(0, 2 ** 32 - 1))
        body = W.tagged_gtid(sid, tag, gno, last, seq, immediate, original, length, version, original_version)
        expected = B.Gtid(False, sid, gno, last, seq, tag.lower(), immediate, immediate if original is None else original,
                          length, version, version if original_version is None else original_version)
        return T.GTID_TAGGED, body, expected
    if kind == "tagged_previous":
        tsids = draw(st.lists(st.tuples(_sids, st.just("") | _tags), min_size=1, max_size=4, unique=True))
        sets = [(sid, tag, [(start, start + extra)]) for (sid, tag), (start, extra)
                in zip(sorted(tsids), draw(st.lists(st.tuples(st.integers(1, 1000), st.integers(0, 9)), min_size=len(tsids), max_size=len(tsids))))]
        parts: list[str] = []
        for i, (sid, tag, [(a, b)]) in enumerate(sets):
            text = (f":{tag}" if tag else "") + ":" + (str(a) if a == b else f"{a}-{b}")
            if i and sets[i - 1][0] == sid:
                parts[-1] += text
            else:
                parts.append(sid + text)
        return T.PREVIOUS_GTIDS, W.tagged_previous_gtids(sets), B.GtidSetBody(",\n".join(parts))
    if kind == "xid":
        value = draw(st.integers(0, 2 ** 64 - 1))
        return T.XID, W.xid(value), B.Xid(value)
    if kind == "rotate":
        name, pos = draw(_names), draw(st.integers(4, 2 ** 63))
        return T.ROTATE, pos.to_bytes(8, "little") + name.encode(), B.Rotate(pos, name)
    if kind == "intvar":
        which, value = draw(st.sampled_from([1, 2])), draw(st.integers(0, 2 ** 64 - 1))
        return T.INTVAR, bytes([which]) + value.to_bytes(8, "little"), B.Intvar(which, value)
    if kind == "rand":
        a, b = draw(st.integers(0, 2 ** 64 - 1)), draw(st.integers(0, 2 ** 64 - 1))
        return T.RAND, a.to_bytes(8, "little") + b.to_bytes(8, "little"), B.Rand(a, b)
    if kind == "xa":
        one, fmt = draw(st.booleans()), draw(st.integers(-(2 ** 31), 2 ** 31 - 1))
        gtrid, bqual = draw(st.binary(min_size=1, max_size=64)), draw(st.binary(max_size=64))
        body = bytes([one]) + fmt.to_bytes(4, "little", signed=True) + len(gtrid).to_bytes(4, "little") + len(bqual).to_bytes(4, "little") + gtrid + bqual
        return T.XA_PREPARE, body, B.XaPrepare(one, fmt, gtrid, bqual)
    if kind == "previous":
        sets = draw(st.dictionaries(_sids, st.lists(st.tuples(st.integers(1, 1000), st.integers(0, 1000)), min_size=1, max_size=3), max_size=3))
        sets = {sid: [(start, start + extra) for start, extra in intervals] for sid, intervals in sets.items()}
        text = ",\n".join(sid + ":" + ":".join(str(a) if a == b else f"{a}-{b}" for a, b in iv) for sid, iv in sets.items())
        return T.PREVIOUS_GTIDS, W.previous_gtids(sets), B.GtidSetBody(text)
    columns = draw(st.lists(column_and_value(), min_size=1, max_size=6))
    types = [(k, m) for k, m, _, _ in columns]
    names = draw(st.none() | st.lists(_names, min_size=len(types), max_size=len(types)))
    table_id, db, table = draw(st.integers(0, 2 ** 48 - 1)), draw(_names), draw(_names)
    body = W.table_map(table_id, db, table, types, names=names)
    return T.TABLE_MAP, body, (table_id, db, table, tuple(k for k, _ in types), tuple(m for _, m in types), tuple(names) if names else None)


@settings(max_examples=200, deadline=None)
@given(st.lists(an_event(), min_size=1, max_size=6), st.booleans())
def test_generated_events_read_back_to_the_same_events(events, checksum):
    w = W.BinlogWriter(checksum=checksum)
    for code, body, _ in events:
        w.add(code, body)
    items = list(read_stream(io.BytesIO(bytes(w)), "binlog.000001"))
    assert all(isinstance(i, BinlogEvent) for i in items), items
    assert [i.raw.type_code for i in items[1:]] == [code for code, _, _ in events]
    for item, (code, _, expected) in zip(items[1:], events):
        body = item.body
        if code == T.TABLE_MAP:
            assert (body.table_id, body.db, body.table, body.types, body.metadata, body.names) == expected
        else:
            assert body == expected


# --- MySQL 8.4's tagged GTIDs (Gtid_tagged, tagged Previous_gtids) --------------------------------

OTHER = "4a7b2c1d-0000-4000-8000-00000000000f"


def tagged_file() -> bytes:
    """An 8.4 binlog after ``SET GTID_NEXT='SID:batch:3'``: the tagged Previous_gtids, then a
    tagged transaction, then an untagged one; the tagged event carries a different original
    timestamp and server version (a replica's relayed transaction), so fields 7 and 10 are there."""
    w = W.BinlogWriter()
    w.add(T.PREVIOUS_GTIDS, W.tagged_previous_gtids([(SID, "", [(1, 5)]), (SID, "batch", [(1, 2)]), (OTHER, "", [(1, 1)])]))
    w.add(T.GTID_TAGGED, W.tagged_gtid(SID, "batch", 3, 0, 1, immediate=1700000000200000, original=1700000000100000,
                                      immediate_version=80403, original_version=80036))
    w.add(T.QUERY, W.query("BEGIN", "audit"))
    w.add(T.TABLE_MAP, W.table_map(84, "audit", "log", [(C.LONG, 0)]))
    w.add(T.WRITE_ROWS, W.rows_event(84, 1, [W.image([(C.LONG, 0)], [5])]))
    w.add(T.XID, W.xid(10))
    w.add(T.GTID, W.gtid(SID, 6))
    w.add(T.QUERY, W.query("CREATE TABLE shop.t (a INT)", "shop"))
    return bytes(w)


@pytest.fixture
def tagged(tmp_path):
    path = tmp_path / "binlog.000003"
    path.write_bytes(tagged_file())
    return path


def test_a_tagged_gtid_is_read_and_shown_as_84_shows_it(tagged):
    items = list(read_binlog(str(tagged)))
    body = items[2].body
    assert (body.gtid, body.last_committed, body.sequence_number) == (f"{SID}:batch:3", 0, 1)
    assert (body.immediate_commit_timestamp, body.original_commit_timestamp) == (1700000000200000, 1700000000100000)
    assert (body.immediate_server_version, body.original_server_version, body.transaction_length) == (80403, 80036, 300)
    rows = Session().execute_text(f"SHOW BINLOG EVENTS IN '{tagged}'").rows
    assert [(r[2], r[5]) for r in rows[1:3]] == [
        ("Previous_gtids", f"{SID}:1-5:batch:1-2,\n{OTHER}:1"),
        ("Gtid_tagged_log_event", f"SET @@SESSION.GTID_NEXT= '{SID}:batch:3'"),
    ]


def test_a_tagged_gtid_keeps_its_transaction_and_selections_understand_tags(tagged):
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (audit)")
    results = [r.to_dict() for r in decide_files(LineEvaluator(session.state), [str(tagged)])]
    first = [r for r in results if r["gtid"] == f"{SID}:batch:3"]
    assert [r["event_type"] for r in first] == ["Gtid_tagged_log_event", "Query", "Table_map", "Write_rows", "Xid"]
    assert {r["transaction"] for r in first} == {"SKIP"}
    from replfilter.evaluation.binlog.selection import GtidSet, Selection

    def gtids(selection: Selection) -> set:
        return {r.to_dict()["gtid"] for r in decide_files(LineEvaluator(Session().state), [str(tagged)], selection)}

    assert gtids(Selection(include_gtids=GtidSet.parse(f"{SID}:BATCH:1-3"))) == {f"{SID}:batch:3"}
    assert gtids(Selection(include_gtids=GtidSet.parse(f"{SID}:3"))) == set()  # untagged 3 is another GTID
    assert gtids(Selection(exclude_gtids=GtidSet.parse(f"{SID}:batch:3"))) == {f"{SID}:6"}


def test_a_tagged_gtid_with_unknown_fields(tmp_path):
    """Unknown trailing fields are skipped by the message size when ignorable; an unknown
    non-ignorable one makes the event a parse error (``unknown_non_ignorable_fields``), never a
    traceback, and the reader goes on."""
    w = W.BinlogWriter()
    w.add(T.GTID_TAGGED, W.tagged_gtid(SID, "t", 1, extra=W.varlen_unsigned(100) + b"\x03"))
    body = W.tagged_gtid(SID, "t", 2)
    w.add(T.GTID_TAGGED, body[:2] + W.varlen_unsigned(101) + body[3:])  # last non-ignorable id beyond 11
    w.add(T.XID, W.xid(1))
    path = tmp_path / "b"
    path.write_bytes(bytes(w))
    items = list(read_binlog(str(path)))
    assert items[1].body.gtid == f"{SID}:t:1"
    assert isinstance(items[2], ReadProblem) and "non-ignorable" in items[2].message
    assert items[3].body.xid == 1


def _packed_datetime(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, micro: int = 0) -> bytes:
    """``TIME_to_longlong_datetime_packed`` (mysys/my_time.cc), as JSON stores it: 8 bytes, little-endian."""
    ymd, hms = (year * 13 + month) << 5 | day, hour << 12 | minute << 6 | second
    return (((ymd << 17 | hms) << 24) + micro).to_bytes(8, "little", signed=True)


def test_opaque_json_scalars_print_as_mysql_prints_them(tmp_path):
    """Json_wrapper::to_string (sql-common/json_dom.cc): DECIMAL by its digits, temporal values
    with six fractional digits, any other opaque type as base64:type<N>:<base64>."""
    doc = {
        "dec": (C.NEWDECIMAL, bytes([10, 2]) + W.encode_decimal(Decimal("-12.34"), (10 << 8) | 2)),
        "dt": (C.DATETIME, _packed_datetime(2024, 5, 7, 13, 5, 9, 120)),
        "d": (C.DATE, _packed_datetime(2024, 5, 7)),
        "t": (C.TIME, (-int.from_bytes(_packed_datetime(0, 0, 0, 838, 59, 59, 5), "little")).to_bytes(8, "little", signed=True)),
        "ts": (C.TIMESTAMP, _packed_datetime(1999, 12, 31, 23, 59, 59)),
        "blob": (C.BLOB, b"\x00\xffab"),
        "short": (C.DATETIME, b"\x01"),  # not a packed time: printed as its bytes
    }
    w = W.BinlogWriter()
    w.add(T.TABLE_MAP, W.table_map(7, "d", "t", [(C.JSON, 4)], names=["doc"]))
    w.add(T.WRITE_ROWS, W.rows_event(7, 1, [W.image([(C.JSON, 4)], [doc])]))
    path = tmp_path / "binlog.000001"
    path.write_bytes(bytes(w))
    [values] = [r.values for r in decide_files(LineEvaluator(Session().state), [str(path)], decode_rows=True) if r.values]
    assert values == [{"after": {"doc": {
        "dec": "-12.34", "dt": "2024-05-07 13:05:09.000120", "d": "2024-05-07", "t": "-838:59:59.000005",
        "ts": "1999-12-31 23:59:59.000000", "blob": "base64:type252:AP9hYg==", "short": "base64:type12:AQ==",
    }}}]


# --- Info texts as 8.4's pack_info writes them (sql/log_event.cc) ------------------------------

def _user_var(name: str, value_type: int | None, value: bytes = b"", charset: int = 255, flags: bytes = b"") -> bytes:
    """``User_var_log_event::write``: name length, name, is_null, then type, charset, value
    length, value, and for integers the flags byte."""
    head = len(name).to_bytes(4, "little") + name.encode()
    if value_type is None:
        return head + b"\x01"
    return head + b"\x00" + bytes([value_type]) + charset.to_bytes(4, "little") + len(value).to_bytes(4, "little") + value + flags


def _info_of(type_code: int, body: bytes) -> str:
    w = W.BinlogWriter()
    w.add(type_code, body)
    return [r[5] for r in show_rows(read_stream(io.BytesIO(bytes(w)), "binlog.000001"))][1]


@pytest.mark.parametrize("body, info", [
    (_user_var("a", None), "@`a`=NULL"),
    (_user_var("a", 2, (-5).to_bytes(8, "little", signed=True), flags=b"\x00"), "@`a`=-5"),
    (_user_var("a", 2, (2 ** 64 - 5).to_bytes(8, "little"), flags=b"\x01"), "@`a`=18446744073709551611"),  # UNSIGNED_F
    (_user_var("a", 1, struct.pack("<d", 2.5)), "@`a`=2.5"),
    (_user_var("a", 1, struct.pack("<d", 1e20)), "@`a`=1e20"),
    (_user_var("a", 1, struct.pack("<d", 1.2345e-20)), "@`a`=1.2345e-20"),
    (_user_var("a", 4, bytes([10, 2]) + W.encode_decimal(Decimal("-10.50"), (10 << 8) | 2)), "@`a`=-10.50"),
    (_user_var("b`q", 0, b"ab\xff", 255), "@`b``q`=_utf8mb4 0x6162FF COLLATE utf8mb4_0900_ai_ci"),
    (_user_var("a", 0, b"", 8), '@`a`=_latin1 "" COLLATE latin1_swedish_ci'),
    (_user_var("a", 0, b"x", 999), "@`a`=_? 0x78 COLLATE (collation id 999)"),
    (_user_var("a", 0, b"x", 76), "@`a`=_utf8mb3 0x78 COLLATE utf8mb3_tolower_ci"),
    (_user_var("a", 0, b"x", 245), "@`a`=_utf8mb4 0x78 COLLATE utf8mb4_croatian_ci"),
    (_user_var("a", 0, b"x", 323), "@`a`=_utf8mb4 0x78 COLLATE utf8mb4_mn_cyrl_0900_as_cs"),
    (_user_var("a", 0, b"x", 2304), "@`a`=_? 0x78 COLLATE (collation id 2304)"),  # MariaDB's, not MySQL's
])
def test_user_var_info(body, info):
    assert _info_of(T.USER_VAR, body) == info


@pytest.mark.parametrize("charset, named", [
    (245, "_utf8mb4 0x78 COLLATE utf8mb4_croatian_mysql561_ci"),  # MySQL's 245 is utf8mb4_croatian_ci
    (2304, "_utf8mb4 0x78 COLLATE utf8mb4_uca1400_ai_ci"),
    (1033, "_latin2 0x78 COLLATE latin2_general_nopad_ci"),
    (255, "_? 0x78 COLLATE (collation id 255)"),  # MySQL's utf8mb4_0900_ai_ci; not in MariaDB 10.11
])
def test_user_var_collations_are_the_writers(charset, named):
    """A file written by MariaDB (its Format_description says so) names collation ids as
    MariaDB does (collations.py: read from MariaDB 10.11's own tables)."""
    w = W.BinlogWriter(version="10.11.19-MariaDB-log")
    w.add(T.USER_VAR, _user_var("a", 0, b"x", charset))
    rows = list(show_rows(read_stream(io.BytesIO(bytes(w)), "binlog.000001")))
    assert rows[1][5] == "@`a`=" + named


def test_incident_intvar_xa_and_rows_query_info():
    # Incident_log_event::pack_info: the message shows only when it is empty (8.4's inverted test)
    assert _info_of(T.INCIDENT, b"\x01\x00" + bytes([4]) + b"lost") == "#1 (LOST_EVENTS)"
    assert _info_of(T.INCIDENT, b"\x01\x00\x00") == "#1 (LOST_EVENTS): "
    assert _info_of(T.INTVAR, bytes([2]) + (2 ** 64 - 1).to_bytes(8, "little")) == "INSERT_ID=-1"  # longlong10_to_str(-10)
    xa = bytes([0]) + (-1).to_bytes(4, "little", signed=True) + (2).to_bytes(4, "little") + (1).to_bytes(4, "little") + b"\xab\x01\x02"
    assert _info_of(T.XA_PREPARE, xa) == "XA PREPARE X'ab01',X'02',18446744073709551615"  # formatID as %lu
    assert _info_of(T.ROWS_QUERY, b"\x06" + b"INSERT INTO t VALUES (1)") == "# INSERT INTO t VALUES (1)"


def test_group_replication_and_ignorable_info():
    uid = SID.encode()
    context = struct.pack("<BIBIII", len(uid), 42, 1, 0, 0, 0) + uid
    assert _info_of(T.TRANSACTION_CONTEXT, context) == f"server_uuid={SID}\tthread_id=42"
    view = b"17000:1".ljust(40, b"\0") + (5).to_bytes(8, "little") + (0).to_bytes(4, "little")
    assert _info_of(T.VIEW_CHANGE, view) == "view_id=17000:1"
    assert _info_of(T.IGNORABLE, b"\x00\x01") == "# Unrecognized ignorable event"


_VALID_TAGGED = (
    (T.GTID_TAGGED, W.tagged_gtid(SID, "batch", 3, 1, 2, original=5, original_version=80036)),
    (T.PREVIOUS_GTIDS, W.tagged_previous_gtids([(SID, "", [(1, 5)]), (SID, "batch", [(1, 2)])])),
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_VALID_TAGGED), st.data())
def test_a_broken_gtid_tagged_or_previous_gtids_body_reads_or_is_a_problem(valid, data):
    """Valid bodies with bytes changed or cut (no checksum to catch it) are never a traceback:
    each reads, or is a parse problem at its position, and the reader goes on."""
    code, body = valid
    broken = bytearray(body)
    for _ in range(data.draw(st.integers(1, 4))):
        broken[data.draw(st.integers(0, len(broken) - 1))] = data.draw(st.integers(0, 255))
    broken = broken[:data.draw(st.integers(1, len(broken)))]
    w = W.BinlogWriter(checksum=False)
    w.add(code, bytes(broken))
    w.add(T.XID, W.xid(7))
    items = list(read_stream(io.BytesIO(bytes(w)), "binlog.000001"))
    assert isinstance(items[1], (BinlogEvent, ReadProblem))
    assert items[2].body.xid == 7
