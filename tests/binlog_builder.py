"""Binary log files built byte by byte, for the MySQL 8.x event types MariaDB does not write
(Gtid/Anonymous_Gtid, Previous_gtids, v2 rows events, Partial_update_rows, Transaction_payload)
and for property tests of the row image decoders.

Sources of each layout (mysql/mysql-server, libbinlogevents, read with the ``search`` tool):

* common header, checksum, Format_description: ``libbinlogevents/include/binlog_event.h``
  (``Log_event_header``, ``Log_event_footer``) and ``control_events.h``
  (``Format_description_event``: binlog_version, server_version[50], create_timestamp,
  header_length, post_header_len[], checksum_alg);
* Query: ``statement_events.h`` (``Query_event``: thread_id, query_exec_time, db_len,
  error_code, status_vars_len; status vars; db; NUL; query);
* Gtid / Anonymous_Gtid: ``control_events.h`` (``Gtid_event``: gtid_flags, SID[16], GNO[8],
  lt_type(=2), last_committed[8], sequence_number[8]);
* Gtid_tagged (8.4) and tagged Previous_gtids: the serialization library, see the functions;
* Previous_gtids: ``control_events.h`` (n_sids[8], then per SID: SID[16], n_intervals[8],
  intervals (start, end exclusive)[16 each]);
* Table_map and rows events: ``rows_event.h`` (``Table_map_event``, ``Rows_event``: table_id[6],
  flags[2], v2 extra_row_info_len[2]...; ``columns_present`` bitmaps; row images
  null-bitmap + packed fields as ``sql/rpl_record.cc`` ``pack_row``; Partial_update_rows'
  after image starts with value_options and the partial-JSON bitmap);
* Transaction_payload: ``compression/payload_event.h``/``control_events.h``
  (``Transaction_payload_event``: TLV fields COMPRESSION_TYPE=2, PAYLOAD_SIZE=1,
  UNCOMPRESSED_SIZE=3, END_MARK=0, then the zstd frame of the inner events, which carry no
  checksum: ``client/mysqlbinlog.cc``, ``Transaction_payload_log_event::print``);
* JSON binary: ``sql-common/json_binary.cc`` header comment.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from decimal import Decimal, localcontext
from typing import Any, Sequence

from replfilter.evaluation.binlog import column_values as C
from replfilter.evaluation.binlog import event_types as T
from replfilter.evaluation.binlog.wire import write_packed

MAGIC = b"\xfebin"

POST_HEADER = [0] * 42  # 8.4's Format_description lists 42 types (through Gtid_tagged)
for _code, _len in {
    T.QUERY: 13, T.ROTATE: 8, T.INTVAR: 0, T.FORMAT_DESCRIPTION: 98, T.TABLE_MAP: 8,
    T.WRITE_ROWS_V1: 8, T.UPDATE_ROWS_V1: 8, T.DELETE_ROWS_V1: 8, T.ROWS_QUERY: 0,
    T.WRITE_ROWS: 10, T.UPDATE_ROWS: 10, T.DELETE_ROWS: 10, T.GTID: 42, T.ANONYMOUS_GTID: 42,
    T.PREVIOUS_GTIDS: 0, T.PARTIAL_UPDATE_ROWS: 10, T.TRANSACTION_PAYLOAD: 0, T.GTID_TAGGED: 0,
}.items():
    POST_HEADER[_code - 1] = _len


def event(type_code: int, body: bytes, pos: int, server_id: int = 1, timestamp: int = 1700000000,
          flags: int = 0, checksum: bool = True, log_pos: int | None = None) -> bytes:
    """One event at ``pos``: header, body and (when ``checksum``) its CRC32. ``log_pos`` is the
    header's end position (a relay log keeps the source's): ``pos`` + size by default."""
    size = 19 + len(body) + (4 if checksum else 0)
    end = pos + size if log_pos is None else log_pos
    data = struct.pack("<IBIIIH", timestamp, type_code, server_id, size, end, flags) + body
    return data + struct.pack("<I", zlib.crc32(data)) if checksum else data


def format_description(version: str = "8.4.3", checksum: bool = True) -> bytes:
    body = struct.pack("<H", 4) + version.encode().ljust(50, b"\0") + struct.pack("<I", 1700000000)
    body += bytes([19]) + bytes(POST_HEADER) + bytes([1 if checksum else 0])
    return body


class BinlogWriter:
    """Appends events at the right positions; ``bytes()`` is the file."""

    def __init__(self, version: str = "8.4.3", checksum: bool = True):
        self.data = bytearray(MAGIC)
        self.checksum = checksum
        self.positions: list[int] = []
        self.add(T.FORMAT_DESCRIPTION, format_description(version, checksum))

    def add(self, type_code: int, body: bytes, **header: Any) -> int:
        pos = len(self.data)
        self.positions.append(pos)
        checksum = header.pop("checksum", self.checksum)
        self.data += event(type_code, body, pos, checksum=checksum, **header)
        return pos

    def __bytes__(self) -> bytes:
        return bytes(self.data)


def query(sql: str, db: str = "", status: bytes = b"", error_code: int = 0) -> bytes:
    return struct.pack("<IIBHH", 7, 0, len(db.encode()), error_code, len(status)) + status + db.encode() + b"\0" + sql.encode()


def table_map_for_update(bitmap: int) -> bytes:
    return bytes([9]) + struct.pack("<Q", bitmap)


def updated_db_names(names: Sequence[str]) -> bytes:
    return bytes([12, len(names)]) + b"".join(n.encode() + b"\0" for n in names)


def gtid(sid: str | None, gno: int, last_committed: int = 0, sequence_number: int = 1) -> bytes:
    raw = uuid.UUID(sid).bytes if sid else bytes(16)
    return bytes([1]) + raw + struct.pack("<q", gno) + bytes([2]) + struct.pack("<qq", last_committed, sequence_number)


# --- MySQL 8.4's tagged GTIDs: the serialization library's encoding -------------------------
# libs/mysql/serialization/variable_length_integers.h (write_varlen_bytes_unsigned/_signed),
# primitive_type_codec.h (strings: length then bytes), serializer_default_impl.hpp (message:
# version 1 as the top-level id, the size counted from the version's first byte, the last
# non-ignorable field id + 1, then id/data pairs), control_events.h Gtid_event::define_fields
# (field ids 0-11) and rpl_gtid_set.cc encode_nsids_format (tagged Previous_gtids).

def varlen_unsigned(value: int) -> bytes:
    count = ((value.bit_length() * 575) >> 12) + 1  # get_size_integer_varlen_unsigned
    first = ((1 << (count - 1)) - 1) | ((value << count) & 0xFF)
    if count == 1:
        return bytes([first])
    rest = value >> (8 - count + ((count + 7) >> 4))
    return bytes([first]) + rest.to_bytes(8, "little")[:count - 1]


def varlen_signed(value: int) -> bytes:
    return varlen_unsigned(value << 1 if value >= 0 else ((-(value + 1)) << 1) | 1)


def serialized_string(raw: bytes) -> bytes:
    return varlen_unsigned(len(raw)) + raw


def message(fields: dict[int, bytes], last_non_ignorable: int, extra: bytes = b"") -> bytes:
    """One top-level message; ``extra`` (unknown trailing fields) counts in the size."""
    body = b"".join(varlen_unsigned(i) + data for i, data in sorted(fields.items())) + extra
    head = varlen_unsigned(1)  # serialization_format_version
    tail = varlen_unsigned(last_non_ignorable) + body
    size = len(head) + len(tail) + 1
    while len(head) + len(varlen_unsigned(size)) + len(tail) != size:
        size = len(head) + len(varlen_unsigned(size)) + len(tail)
    return head + varlen_unsigned(size) + tail


def tagged_gtid(sid: str, tag: str, gno: int, last_committed: int = 0, sequence_number: int = 1,
                immediate: int = 1700000000123456, original: int | None = None, length: int = 300,
                immediate_version: int = 80403, original_version: int | None = None,
                flags: int = 1, extra: bytes = b"") -> bytes:
    """A Gtid_tagged body; the original timestamp/version are written only when they differ
    from the immediate ones (the fields' encode predicates)."""
    fields = {
        0: varlen_unsigned(flags),
        1: b"".join(varlen_unsigned(b) for b in uuid.UUID(sid).bytes),
        2: varlen_signed(gno),
        3: serialized_string(tag.encode()),
        4: varlen_signed(last_committed),
        5: varlen_signed(sequence_number),
        6: varlen_unsigned(immediate),
        8: varlen_unsigned(length),
        9: varlen_unsigned(immediate_version),
    }
    if original is not None and original != immediate:
        fields[7] = varlen_unsigned(original)
    if original_version is not None and original_version != immediate_version:
        fields[10] = varlen_unsigned(original_version)
    return message(fields, last_non_ignorable=10, extra=extra)


def tagged_previous_gtids(sets: list[tuple[str, str, list[tuple[int, int]]]]) -> bytes:
    """Previous_gtids in the tagged format: (uuid, tag, inclusive intervals) per TSID."""
    out = struct.pack("<Q", (1 << 56) | (len(sets) << 8) | 1)
    for sid, tag, intervals in sets:
        out += uuid.UUID(sid).bytes + serialized_string(tag.encode()) + struct.pack("<Q", len(intervals))
        for start, end in intervals:
            out += struct.pack("<QQ", start, end + 1)
    return out


def previous_gtids(sets: dict[str, list[tuple[int, int]]]) -> bytes:
    out = struct.pack("<Q", len(sets))
    for sid, intervals in sets.items():
        out += uuid.UUID(sid).bytes + struct.pack("<Q", len(intervals))
        for start, end in intervals:
            out += struct.pack("<QQ", start, end + 1)
    return out


def xid(value: int) -> bytes:
    return struct.pack("<Q", value)


# --- Table_map and rows -----------------------------------------------------------------------

def column_metadata(column_type: int, meta: int) -> tuple[int, bytes]:
    """(the type code written, its metadata bytes) for a real type and its metadata value."""
    if column_type in (C.ENUM, C.SET):
        return C.STRING, bytes([column_type, meta])
    if column_type == C.STRING:
        if meta < 256:
            return C.STRING, bytes([C.STRING, meta])
        return C.STRING, bytes([C.STRING ^ ((meta >> 4) & 0x30), meta & 0xFF])
    size = C.metadata_size(column_type)
    if size == 0:
        return column_type, b""
    if size == 1:
        return column_type, bytes([meta])
    if column_type == C.NEWDECIMAL:
        return column_type, bytes([meta >> 8, meta & 0xFF])
    if column_type == C.BIT:
        return column_type, bytes([meta & 0xFF, meta >> 8])
    return column_type, struct.pack("<H", meta)


def table_map(table_id: int, db: str, table: str, columns: Sequence[tuple[int, int]],
              names: Sequence[str] | None = None, unsigned: Sequence[bool] | None = None,
              nullable: Sequence[bool] | None = None, members: dict[int, Sequence[bytes]] | None = None) -> bytes:
    """``nullable`` per column (all nullable by default); ``members`` the ENUM and SET member
    lists by column, written as the ENUM_STR_VALUE and SET_STR_VALUE optional metadata (one
    list per column of that type, in column order)."""
    types, metas = b"", b""
    for column_type, meta in columns:
        code, meta_bytes = column_metadata(column_type, meta)
        types += bytes([code])
        metas += meta_bytes
    out = table_id.to_bytes(6, "little") + struct.pack("<H", 1)
    db_bytes, table_bytes = db.encode(), table.encode()
    out += bytes([len(db_bytes)]) + db_bytes + b"\0" + bytes([len(table_bytes)]) + table_bytes + b"\0"
    out += write_packed(len(columns)) + types + write_packed(len(metas)) + metas
    out += bitmap(list(nullable) if nullable is not None else [True] * len(columns))
    if unsigned is not None:
        numeric = [u for (t, _), u in zip(columns, unsigned) if t in C.NUMERIC_TYPES]
        value = bytearray((len(numeric) + 7) // 8)
        for i, flag in enumerate(numeric):
            if flag:
                value[i // 8] |= 0x80 >> (i % 8)
        out += bytes([1]) + write_packed(len(value)) + bytes(value)
    if names is not None:
        value = b"".join(write_packed(len(n.encode())) + n.encode() for n in names)
        out += bytes([4]) + write_packed(len(value)) + value
    for field, kind in ((6, C.ENUM), (5, C.SET)):
        lists = [(members or {}).get(i) for i, (t, _) in enumerate(columns) if t == kind]
        if members and any(v is not None for v in lists):
            value = b"".join(write_packed(len(v or ())) + b"".join(write_packed(len(m)) + m for m in v or ()) for v in lists)
            out += bytes([field]) + write_packed(len(value)) + value
    return out


def bitmap(flags: Sequence[bool]) -> bytes:
    value = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            value[i // 8] |= 1 << (i % 8)
    return bytes(value)


def image(columns: Sequence[tuple[int, int]], values: Sequence[Any], unsigned: Sequence[bool] | None = None,
          partial_json: Sequence[bool] | None = None) -> bytes:
    """One row image. ``partial_json`` (an after image of Partial_update_rows): value_options,
    then one bit per JSON column, set where the value is a list of diffs."""
    out = b""
    if partial_json is not None:
        out += write_packed(1 if any(partial_json) else 0)
        if any(partial_json):
            out += bitmap(list(partial_json))
    out += bitmap([v is None for v in values])
    json_index = 0
    for i, ((column_type, meta), value) in enumerate(zip(columns, values)):
        is_partial = False
        if column_type == C.JSON:
            is_partial = bool(partial_json and partial_json[json_index])
            json_index += 1
        if value is None:
            continue
        if is_partial:
            out += encode_json_diffs(value, meta)
        else:
            out += encode_value(column_type, meta, value, bool(unsigned and unsigned[i]))
    return out


def rows_event(table_id: int, column_count: int, rows: Sequence[bytes], v2: bool = True, flags: int = 1,
               update: bool = False, present: Sequence[int] | None = None,
               present_after: Sequence[int] | None = None) -> bytes:
    """``present`` (and for an update ``present_after``): the columns the images hold, all by
    default; each image then holds exactly those, in column order."""
    out = table_id.to_bytes(6, "little") + struct.pack("<H", flags)
    if v2:
        out += struct.pack("<H", 2)
    every = range(column_count)
    before = set(every if present is None else present)
    out += write_packed(column_count) + bitmap([i in before for i in every])
    if update:
        after = set(every if present_after is None else present_after)
        out += bitmap([i in after for i in every])
    return out + b"".join(rows)


def transaction_payload(inner: bytes, compress: bool = True) -> bytes:
    import zstandard

    payload = zstandard.ZstdCompressor().compress(inner) if compress else inner
    fields = b""
    fields += write_packed(2) + write_packed(1) + write_packed(0 if compress else 255)
    fields += write_packed(3) + write_packed(len(write_packed(len(inner)))) + write_packed(len(inner))
    fields += write_packed(1) + write_packed(len(write_packed(len(payload)))) + write_packed(len(payload))
    return fields + write_packed(0) + payload


def inner_events(*events: tuple[int, bytes]) -> bytes:
    """Events as a Transaction_payload carries them: no checksum, positions unused (0)."""
    return b"".join(event(code, body, 0, checksum=False) for code, body in events)


# --- values -------------------------------------------------------------------------------

_INT_FORMATS = {C.TINY: "b", C.SHORT: "h", C.LONG: "i", C.LONGLONG: "q"}


def encode_value(column_type: int, meta: int, value: Any, unsigned: bool = False) -> bytes:
    if column_type in _INT_FORMATS:
        fmt = _INT_FORMATS[column_type]
        return struct.pack("<" + (fmt.upper() if unsigned else fmt), value)
    if column_type == C.INT24:
        return value.to_bytes(3, "little", signed=not unsigned)
    if column_type == C.FLOAT:
        return struct.pack("<f", value)
    if column_type == C.DOUBLE:
        return struct.pack("<d", value)
    if column_type == C.YEAR:
        return bytes([value - 1900 if value else 0])
    if column_type == C.DATE:
        y, m, d = (int(p) for p in value.split("-"))
        return ((y << 9) | (m << 5) | d).to_bytes(3, "little")
    if column_type == C.DATETIME2:
        return encode_datetime2(value, meta)
    if column_type == C.TIMESTAMP2:
        seconds, _, frac = str(value).partition(".")
        return int(seconds).to_bytes(4, "big") + _frac_bytes(int((frac + "000000")[:6]) if frac else 0, meta)
    if column_type == C.TIME2:
        return encode_time2(value, meta)
    if column_type in (C.VARCHAR, C.VAR_STRING, C.STRING):
        return (bytes([len(value)]) if meta < 256 else struct.pack("<H", len(value))) + value
    if column_type in (C.BLOB, C.GEOMETRY):
        return len(value).to_bytes(meta, "little") + value
    if column_type == C.JSON:
        data = encode_json(value)
        return len(data).to_bytes(meta, "little") + data
    if column_type in (C.ENUM, C.SET):
        return value.to_bytes(meta, "little")
    if column_type == C.BIT:
        return value.to_bytes((meta >> 8) + (1 if meta & 0xFF else 0), "big")
    if column_type == C.NEWDECIMAL:
        return encode_decimal(value, meta)
    raise ValueError(f"no encoder for type {column_type}")


def _frac_bytes(micro: int, fsp: int) -> bytes:
    n = (fsp + 1) // 2
    if not n:
        return b""
    return (micro // (10000, 100, 1)[n - 1]).to_bytes(n, "big")


def encode_datetime2(text: str, fsp: int) -> bytes:
    date, _, time = text.partition(" ")
    y, mo, d = (int(p) for p in date.split("-"))
    hms, _, frac = time.partition(".")
    h, mi, s = (int(p) for p in hms.split(":"))
    packed = ((((y * 13 + mo) << 5) | d) << 17) | (h << 12) | (mi << 6) | s
    micro = int((frac + "000000")[:6]) if frac else 0
    return (packed + 0x8000000000).to_bytes(5, "big") + _frac_bytes(micro, fsp)


def encode_time2(text: str, fsp: int) -> bytes:
    """``my_time_packed_to_binary`` (mysys/my_time.cc)."""
    negative = text.startswith("-")
    hms, _, frac = text.lstrip("-").partition(".")
    h, mi, s = (int(p) for p in hms.split(":"))
    micro = int((frac + "000000")[:6]) if frac else 0
    packed = (((h << 12) | (mi << 6) | s) << 24) + micro
    if negative:
        packed = -packed
    if fsp >= 5:
        return (packed + 0x800000000000).to_bytes(6, "big")
    # MY_PACKED_TIME_GET_INT_PART is an arithmetic shift (floor), GET_FRAC_PART C's remainder
    # (the sign of the time), and the fraction is written as an unsigned byte or two
    intpart = packed >> 24
    frac = packed % (1 << 24) if packed >= 0 else -((-packed) % (1 << 24))
    if fsp == 0:
        return (intpart + 0x800000).to_bytes(3, "big")
    if fsp <= 2:
        return (intpart + 0x800000).to_bytes(3, "big") + (_trunc(frac, 10000) & 0xFF).to_bytes(1, "big")
    return (intpart + 0x800000).to_bytes(3, "big") + (_trunc(frac, 100) & 0xFFFF).to_bytes(2, "big")


def _trunc(value: int, divisor: int) -> int:
    return value // divisor if value >= 0 else -((-value) // divisor)


def encode_decimal(value: Decimal, meta: int) -> bytes:
    """``decimal2bin`` (strings/decimal.cc)."""
    precision, scale = meta >> 8, meta & 0xFF
    dig2bytes = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
    negative = value < 0
    with localcontext(prec=100):  # the default 28 digits would round DECIMAL(65, 30)
        text = format(abs(value), f".{scale}f")
    integer, _, frac = text.partition(".")
    intg = precision - scale
    integer = integer.rjust(intg, "0")[-intg:] if intg else ""
    out = bytearray()
    lead = intg % 9
    if lead:
        out += int(integer[:lead]).to_bytes(dig2bytes[lead], "big")
    for i in range(lead, intg, 9):
        out += int(integer[i:i + 9]).to_bytes(4, "big")
    for i in range(0, scale - scale % 9, 9):
        out += int(frac[i:i + 9]).to_bytes(4, "big")
    if scale % 9:
        out += int(frac[scale - scale % 9:]).to_bytes(dig2bytes[scale % 9], "big")
    if negative:
        out = bytearray(b ^ 0xFF for b in out)
    out[0] ^= 0x80
    return bytes(out)


def encode_json(value: Any) -> bytes:
    """The large form throughout (simplest to write; the reader reads both forms)."""
    kind, data = _json_value(value)
    return bytes([kind]) + data


def _json_value(value: Any) -> tuple[int, bytes]:
    if value is None:
        return 4, b"\0"
    if value is True:
        return 4, b"\1"
    if value is False:
        return 4, b"\2"
    if isinstance(value, int):
        return (9, struct.pack("<q", value)) if value < 1 << 63 else (10, struct.pack("<Q", value))
    if isinstance(value, float):
        return 11, struct.pack("<d", value)
    if isinstance(value, str):
        raw = value.encode()
        return 12, _varlen(len(raw)) + raw
    if isinstance(value, list):
        return 3, _container([], value)
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (len(k.encode()), k.encode()))
        return 1, _container(keys, [value[k] for k in keys])
    if isinstance(value, tuple):  # (mysql_type, bytes): an opaque scalar (json_binary.cc, OPAQUE)
        mysql_type, data = value
        return 15, bytes([mysql_type]) + _varlen(len(data)) + data
    raise ValueError(f"no JSON encoding for {value!r}")


def _varlen(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _container(keys: list[str], values: list[Any]) -> bytes:
    count = len(values)
    header = 8 + len(keys) * 6 + count * 5
    key_bytes = b""
    key_entries = b""
    for key in keys:
        raw = key.encode()
        key_entries += struct.pack("<IH", header + len(key_bytes), len(raw))
        key_bytes += raw
    value_entries = b""
    value_bytes = b""
    for value in values:
        kind, data = _json_value(value)
        if kind == 4:  # literals are inlined in the entry
            value_entries += bytes([kind]) + data.ljust(4, b"\0")
            continue
        offset = header + len(key_bytes) + len(value_bytes)
        value_entries += bytes([kind]) + struct.pack("<I", offset)
        value_bytes += data
    body = key_entries + value_entries + key_bytes + value_bytes
    return struct.pack("<II", count, 8 + len(body)) + body


def encode_json_diffs(diffs: Sequence[tuple[str, str, Any]], length_bytes: int) -> bytes:
    ops = {"REPLACE": 0, "INSERT": 1, "REMOVE": 2}
    out = b""
    for op, path, value in diffs:
        out += bytes([ops[op]]) + write_packed(len(path)) + path.encode()
        if op != "REMOVE":
            data = encode_json(value)
            out += write_packed(len(data)) + data
    return len(out).to_bytes(length_bytes, "little") + out


def read_back_rows(path) -> list[tuple[str, Any, list]]:
    """Every rows event of a file as ``(event type name, its TableMap, [(before, after)...])``,
    with the reader under test (a problem in the file fails the calling test)."""
    from replfilter.evaluation.binlog.bodies import Rows
    from replfilter.evaluation.binlog.reader import BinlogEvent, read_binlog
    from replfilter.evaluation.binlog.rows import TableMap, read_rows

    tables: dict[int, TableMap] = {}
    out = []
    for item in read_binlog(str(path)):
        assert isinstance(item, BinlogEvent), item
        if isinstance(item.body, TableMap):
            tables[item.body.table_id] = item.body
        elif isinstance(item.body, Rows):
            table = tables[item.body.header.table_id]
            out.append((item.raw.type_name, table, read_rows(item.body.header, table, item.body.body)))
    return out
