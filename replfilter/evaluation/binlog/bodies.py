"""The bodies of the events that are not rows: Query with its status variables, Rotate, Xid,
Intvar, Rand, User var, XA prepare, Rows_query/Annotate_rows, MySQL's GTID events (8.4's
tagged ones too) and Previous_gtids, MariaDB's GTID, GTID list and binlog checkpoint, Incident, and
Transaction_payload (whose zstd payload is opened with the ``zstandard`` library), and
MariaDB's compressed Query and rows events (``log_bin_compress``: zlib).

Layouts from libbinlogevents (``statement_events.h``, ``control_events.h``,
``compression/payload_event_buffer_istream``) and, for MariaDB's types, its ``log_event.h``.
"""

from __future__ import annotations

import re
import struct
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from . import event_types as T
from . import serialization as S
from .framing import HEADER_LEN, FormatDescription, RawEvent, parse_format_description
from .rows import RowsHeader, TableMap, parse_rows_header, parse_table_map
from .wire import read_packed


class EventFormatProblem(ValueError):
    """An event body that does not parse."""


@dataclass(frozen=True)
class Query:
    """A Query event. ``updated_dbs`` is ``Q_UPDATED_DB_NAMES`` (None when absent or when the
    source wrote "more than 16"); ``table_map_for_update`` is ``Q_TABLE_MAP_FOR_UPDATE_CODE``,
    the bitmap of the multi-table UPDATE's updated tables in the statement's table order."""

    thread_id: int
    exec_time: int
    error_code: int
    db: str
    sql: str
    flags2: int | None = None
    sql_mode: int | None = None
    charset: tuple[int, int, int] | None = None
    updated_dbs: tuple[str, ...] | None = None
    table_map_for_update: int | None = None


@dataclass(frozen=True)
class Rotate:
    position: int
    next_file: str


@dataclass(frozen=True)
class Xid:
    xid: int


@dataclass(frozen=True)
class Intvar:
    kind: int  # 1 LAST_INSERT_ID, 2 INSERT_ID
    value: int


@dataclass(frozen=True)
class Rand:
    seed1: int
    seed2: int


@dataclass(frozen=True)
class UserVar:
    """``User_var_event``: ``value_type`` is the Item_result (0 STRING, 1 REAL, 2 INT,
    4 DECIMAL), ``charset`` the collation id, ``flags`` the byte after the value (bit 0:
    UNSIGNED_F), absent before 5.1 and for non-integers."""

    name: str
    is_null: bool
    value_type: int = 0
    charset: int = 0
    value: bytes = b""
    flags: int = 0

    UNSIGNED_F = 1


@dataclass(frozen=True)
class XaPrepare:
    one_phase: bool
    format_id: int
    gtrid: bytes
    bqual: bytes


@dataclass(frozen=True)
class TextEvent:
    """Rows_query (MySQL) and Annotate_rows (MariaDB): the statement text of the rows after it."""

    text: str


@dataclass(frozen=True)
class Gtid:
    """MySQL's Gtid, Anonymous_Gtid or Gtid_tagged event; ``gtid`` is ``uuid:gno``, or
    ``uuid:tag:gno`` for 8.4's tagged GTIDs (``Gtid::to_string`` with its TSID), None when
    anonymous. The commit timestamps (microseconds), transaction length and server versions
    are None when the event does not carry them (servers before 8.0)."""

    anonymous: bool
    sid: str
    gno: int
    last_committed: int | None = None
    sequence_number: int | None = None
    tag: str = ""
    immediate_commit_timestamp: int | None = None
    original_commit_timestamp: int | None = None
    transaction_length: int | None = None
    immediate_server_version: int | None = None
    original_server_version: int | None = None

    @property
    def gtid(self) -> str | None:
        if self.anonymous:
            return None
        return f"{self.sid}:{self.tag}:{self.gno}" if self.tag else f"{self.sid}:{self.gno}"


@dataclass(frozen=True)
class MariaGtid:
    """MariaDB's GTID event: ``domain-server-seq``; not standalone means it opens a transaction
    (it stands for BEGIN)."""

    domain: int
    server_id: int
    seq_no: int
    flags: int
    commit_id: int | None = None

    STANDALONE = 1

    @property
    def gtid(self) -> str:
        return f"{self.domain}-{self.server_id}-{self.seq_no}"

    @property
    def standalone(self) -> bool:
        return bool(self.flags & self.STANDALONE)


@dataclass(frozen=True)
class GtidSetBody:
    """Previous_gtids (MySQL: ``uuid:1-5,...``) or Gtid_list (MariaDB: ``d-s-n,...``)."""

    text: str


@dataclass(frozen=True)
class Checkpoint:
    file: str


@dataclass(frozen=True)
class StartEncryption:
    """MariaDB's Start_encryption event (type 164, no post-header): ``scheme(1) key_version(4)
    nonce(12)`` (sql/log_event.h, ``Start_encryption_log_event``); the events after it are
    encrypted unless the event carries ``LOG_EVENT_IGNORABLE_F`` (:mod:`.framing`)."""

    scheme: int
    key_version: int
    nonce: bytes


@dataclass(frozen=True)
class Incident:
    number: int
    message: str


@dataclass(frozen=True)
class TransactionPayload:
    compression: int  # 0 ZSTD, 255 NONE
    uncompressed_size: int | None
    payload: bytes

    def events(self) -> bytes:
        """The inner events' bytes: zstd-decompressed with ``zstandard``."""
        if self.compression == 255:
            return self.payload
        if self.compression != 0:
            raise EventFormatProblem(f"Transaction_payload compression type {self.compression} is not known")
        import zstandard  # the payload is rare: load the library only when one comes

        try:
            return zstandard.ZstdDecompressor().decompress(self.payload, max_output_size=self.uncompressed_size or (1 << 30))
        except zstandard.ZstdError as err:
            raise EventFormatProblem(f"Transaction_payload does not decompress: {err}") from None


@dataclass(frozen=True)
class TransactionContext:
    """Group Replication's ``Transaction_context_event`` (only what its Info text shows)."""

    server_uuid: str
    thread_id: int


@dataclass(frozen=True)
class ViewChange:
    """Group Replication's ``View_change_event``: view_id[40] and seq_number."""

    view_id: str
    seq_number: int


def parse_transaction_context(body: bytes) -> TransactionContext:
    """``Transaction_context_event``: server_uuid_len[1], thread_id[4], gtid_specified[1],
    snapshot length[4], write set items[4], read set items[4], then the server UUID."""
    uuid_len, thread_id = struct.unpack_from("<BI", body, 0)
    return TransactionContext(_cstring(body, 18, uuid_len), thread_id)


@dataclass(frozen=True)
class Rows:
    header: RowsHeader
    body: bytes


def _cstring(data: bytes, pos: int, length: int) -> str:
    return data[pos:pos + length].decode("utf-8", "replace")


def maria_uncompress(data: bytes) -> bytes:
    """MariaDB's compressed binlog parts (``log_bin_compress``; ``binlog_buf_uncompress`` in its
    log_event.cc): a byte ``0x80 | n``, the uncompressed length in ``n`` bytes, then a zlib
    stream."""
    import zlib

    if not data or not data[0] & 0x80:
        raise EventFormatProblem("compressed part without its header byte")
    length_bytes = data[0] & 0x07
    try:
        return zlib.decompress(bytes(data[1 + length_bytes:]))
    except zlib.error as err:
        raise EventFormatProblem(f"compressed part does not decompress: {err}") from None


def parse_query(body: bytes, fde: FormatDescription, compressed: bool = False) -> Query:
    thread_id, exec_time, db_len, error_code, status_len = struct.unpack_from("<IIBHH", body, 0)
    post = fde.post_header_len(T.QUERY, 13)
    status = body[post:post + status_len]
    values = _status_vars(status)
    pos = post + status_len
    db = _cstring(body, pos, db_len)
    text = body[pos + db_len + 1:]
    sql = (maria_uncompress(text) if compressed else text).decode("utf-8", "replace")
    return Query(thread_id, exec_time, error_code, db, sql, **values)


def _status_vars(data: bytes) -> dict[str, Any]:
    """The status variables replfilter uses; the others are stepped over by their fixed sizes
    (``Query_event::Query_event``); an unknown code ends the list, as it does in the server."""
    out: dict[str, Any] = {}
    pos = 0
    sizes = {0: 4, 1: 8, 3: 4, 4: 6, 7: 2, 8: 2, 9: 8, 10: 4, 13: 3, 16: 1, 17: 8, 18: 2, 19: 1, 20: 1,
             128: 3, 129: 8, 130: 1}
    while pos < len(data):
        code = data[pos]
        pos += 1
        if code == 0:
            out["flags2"] = struct.unpack_from("<I", data, pos)[0]
        elif code == 1:
            out["sql_mode"] = struct.unpack_from("<Q", data, pos)[0]
        elif code == 4:
            out["charset"] = struct.unpack_from("<HHH", data, pos)
        elif code == 9:
            out["table_map_for_update"] = struct.unpack_from("<Q", data, pos)[0]
        if code in sizes:
            pos += sizes[code]
        elif code in (5, 6):  # time zone, catalog: length-prefixed
            pos += 1 + data[pos]
        elif code == 2:  # old catalog: length, text, NUL
            pos += 2 + data[pos]
        elif code == 11:  # invoker: user, host
            pos += 1 + data[pos]
            pos += 1 + data[pos]
        elif code == 12:
            count = data[pos]
            pos += 1
            if count == 254:  # OVER_MAX_DBS_IN_EVENT_MTS
                continue
            names = []
            for _ in range(count):
                end = data.index(b"\0", pos)
                names.append(data[pos:end].decode("utf-8", "replace"))
                pos = end + 1
            out["updated_dbs"] = tuple(names)
        elif code == 131:  # MariaDB Q_CHARACTER_SET_COLLATIONS: count, then 4-byte pairs
            pos += 1 + 4 * data[pos]
        else:
            break
    return out


def parse_gtid(body: bytes, anonymous: bool) -> Gtid:
    """The fixed layout (``Gtid_event::Gtid_event`` in control_events.cpp): flags, SID, GNO,
    then -- each only when the event is long enough -- typecode 2 with last_committed and
    sequence_number; the immediate commit timestamp (7 bytes, its bit 55 set when the original
    one follows); the transaction length (``net_field_length``); the immediate server version
    (4 bytes, bit 31 set when the original one follows)."""
    sid = str(uuid.UUID(bytes=bytes(body[1:17])))
    gno = struct.unpack_from("<q", body, 17)[0]
    if not (len(body) >= 42 and body[25] == 2):  # no logical timestamps (5.6, 5.7.4 and before)
        return Gtid(anonymous, sid, gno)
    last, seq = struct.unpack_from("<qq", body, 26)
    fields: dict[str, int] = {}
    pos = 42
    if len(body) >= pos + 7:
        raw = int.from_bytes(body[pos:pos + 7], "little")
        pos += 7
        original = immediate = raw & ~(1 << 55)
        if raw >> 55 & 1:
            original = int.from_bytes(body[pos:pos + 7], "little")
            pos += 7
        fields.update(immediate_commit_timestamp=immediate, original_commit_timestamp=original)
        if pos < len(body):
            fields["transaction_length"], pos = read_packed(body, pos)
        if len(body) >= pos + 4:
            (version,) = struct.unpack_from("<I", body, pos)
            pos += 4
            immediate_version = original_version = version & ~(1 << 31)
            if version >> 31:
                (original_version,) = struct.unpack_from("<I", body, pos)
            fields.update(immediate_server_version=immediate_version, original_server_version=original_version)
    return Gtid(anonymous, sid, gno, last, seq, **fields)


_TAG_MAX_LENGTH = 32  # mysql::gtid::tag_max_length
_TAG = re.compile(r"[a-z_][a-z0-9_]{0,31}")


def _tag(raw: bytes) -> str:
    """A tag as ``Tag::from_cstring`` accepts it (a letter or ``_``, then letters, digits or
    ``_``; stored lower-cased)."""
    text = raw.decode("ascii", "replace").lower()
    if not _TAG.fullmatch(text):
        raise EventFormatProblem(f"GTID tag {text!r} is not a valid tag")
    return text


# Gtid_event::define_fields (control_events.h), in field-id order
_TAGGED_FIELDS = (
    S.read_varlen_unsigned,                          # 0 gtid_flags
    lambda d, p: S.read_byte_array(d, p, 16),        # 1 the UUID's 16 bytes
    S.read_varlen_signed,                            # 2 gno (int64)
    lambda d, p: S.read_string(d, p, _TAG_MAX_LENGTH),  # 3 tag
    S.read_varlen_signed,                            # 4 last_committed (int64)
    S.read_varlen_signed,                            # 5 sequence_number (int64)
    S.read_varlen_unsigned,                          # 6 immediate_commit_timestamp
    S.read_varlen_unsigned,                          # 7 original_commit_timestamp (absent: = immediate)
    S.read_varlen_unsigned,                          # 8 transaction_length
    S.read_varlen_unsigned,                          # 9 immediate_server_version
    S.read_varlen_unsigned,                          # 10 original_server_version (absent: = immediate)
    S.read_varlen_unsigned,                          # 11 commit_group_ticket
)


def parse_tagged_gtid(body: bytes) -> Gtid:
    """``Gtid_tagged_log_event`` (type 42, MySQL 8.4): the whole body is one message of MySQL's
    serialization library (``Gtid_event::read_gtid_tagged_log_event``); see serialization.py."""
    try:
        fields = S.read_message(bytes(body), _TAGGED_FIELDS)
    except S.SerializationProblem as err:
        raise EventFormatProblem(f"Gtid_tagged event does not decode: {err}") from None
    if 1 not in fields or 2 not in fields:
        raise EventFormatProblem("Gtid_tagged event without its UUID or GNO")
    gno = fields[2]
    if not 1 <= gno < (1 << 63) - 1:  # MIN_GNO, GNO_END
        raise EventFormatProblem(f"Gtid_tagged event with invalid GNO {gno}")
    immediate = fields.get(6)
    version = fields.get(9)
    return Gtid(
        anonymous=False,
        sid=str(uuid.UUID(bytes=fields[1])),
        gno=gno,
        last_committed=fields.get(4),
        sequence_number=fields.get(5),
        tag=_tag(fields[3]) if 3 in fields else "",
        immediate_commit_timestamp=immediate,
        original_commit_timestamp=fields.get(7, immediate),
        transaction_length=fields.get(8),
        immediate_server_version=version,
        original_server_version=fields.get(10, version),
    )


def parse_previous_gtids(body: bytes) -> GtidSetBody:
    """``Gtid_set::add_gtid_encoding`` (rpl_gtid_set.cc): the first 8 bytes hold the format in
    their top byte (0 untagged, 1 tagged) and the TSID count (tagged: in bits 8-55); each TSID
    is a UUID, its tag (tagged format: a serialization-library string), the interval count and
    the intervals (start, end exclusive). The text is ``Gtid_set::to_string``'s: TSIDs of one
    UUID share it, ``uuid:1-5:tag:1-3``."""
    (word,) = struct.unpack_from("<Q", body, 0)
    tagged = word >> 56
    if tagged not in (0, 1):
        raise EventFormatProblem(f"Previous_gtids encoding format {tagged} is not known")
    n_sids = (word & 0x00FFFFFFFFFFFF00) >> 8 if tagged else word & ((1 << 56) - 1)
    pos = 8
    parts: list[str] = []
    previous = None
    for _ in range(n_sids):
        sid = str(uuid.UUID(bytes=bytes(body[pos:pos + 16])))
        pos += 16
        tag = ""
        if tagged:
            try:
                raw, pos = S.read_string(body, pos, _TAG_MAX_LENGTH)
            except S.SerializationProblem as err:
                raise EventFormatProblem(f"Previous_gtids tag does not decode: {err}") from None
            tag = _tag(raw) if raw else ""
        (n_intervals,) = struct.unpack_from("<Q", body, pos)
        pos += 8
        ranges = []
        for _ in range(n_intervals):
            start, end = struct.unpack_from("<QQ", body, pos)
            pos += 16
            ranges.append(str(start) if end - 1 == start else f"{start}-{end - 1}")
        text = (f":{tag}" if tag else "") + ":" + ":".join(ranges)
        if sid == previous:
            parts[-1] += text
        else:
            parts.append(sid + text)
        previous = sid
    return GtidSetBody(",\n".join(parts))


def parse_maria_gtid(body: bytes, server_id: int) -> MariaGtid:
    seq_no, domain, flags = struct.unpack_from("<QIB", body, 0)
    commit_id = struct.unpack_from("<Q", body, 13)[0] if flags & 2 and len(body) >= 21 else None
    return MariaGtid(domain, server_id, seq_no, flags, commit_id)


def parse_gtid_list(body: bytes) -> GtidSetBody:
    (word,) = struct.unpack_from("<I", body, 0)
    count = word & ((1 << 28) - 1)
    items = []
    for i in range(count):
        domain, server, seq = struct.unpack_from("<IIQ", body, 4 + 16 * i)
        items.append(f"{domain}-{server}-{seq}")
    return GtidSetBody(",".join(items))


def parse_xa_prepare(body: bytes) -> XaPrepare:
    one_phase = bool(body[0])
    format_id, gtrid_len, bqual_len = struct.unpack_from("<iii", body, 1)
    data = bytes(body[13:13 + gtrid_len + bqual_len])
    return XaPrepare(one_phase, format_id, data[:gtrid_len], data[gtrid_len:])


def parse_user_var(body: bytes) -> UserVar:
    (name_len,) = struct.unpack_from("<I", body, 0)
    name = _cstring(body, 4, name_len)
    pos = 4 + name_len
    is_null = bool(body[pos])
    if is_null:
        return UserVar(name, True)
    value_type = body[pos + 1]
    charset, value_len = struct.unpack_from("<II", body, pos + 2)
    value = bytes(body[pos + 10:pos + 10 + value_len])
    flags_at = pos + 10 + value_len
    flags = body[flags_at] if flags_at < len(body) else 0
    return UserVar(name, False, value_type, charset, value, flags)


def parse_payload(body: bytes) -> TransactionPayload:
    """``type length value`` fields (packed integers) up to an END_MARK (0), then the payload
    (``Transaction_payload_event`` in ``compression/payload_event``)."""
    pos = 0
    size = compression = uncompressed = None
    while pos < len(body):
        kind, pos = read_packed(body, pos)
        if kind == 0:
            break
        length, pos = read_packed(body, pos)
        value, _ = read_packed(body, pos)
        if kind == 1:
            size = value
        elif kind == 2:
            compression = value
        elif kind == 3:
            uncompressed = value
        pos += length
    payload = bytes(body[pos:pos + size] if size is not None else body[pos:])
    return TransactionPayload(0 if compression is None else compression, uncompressed, payload)


def _table_map(event: RawEvent, body: bytes, fde: FormatDescription) -> TableMap:
    return parse_table_map(body, fde.post_header_len(T.TABLE_MAP, 8))


def _rows(event: RawEvent, body: bytes, fde: FormatDescription) -> Rows:
    default = 10 if event.type_code in T.ROWS_V2_TYPES else 8
    header = parse_rows_header(event.type_code, body, fde.post_header_len(event.type_code, default))
    if event.type_code in T.MARIA_COMPRESSED_ROWS_TYPES:  # the rows after the bitmaps are compressed
        body = bytes(body[:header.rows_at]) + maria_uncompress(body[header.rows_at:])
    return Rows(header, body)


def _start_encryption(body: bytes) -> StartEncryption:
    if len(body) < 17:
        raise EventFormatProblem(f"Start_encryption event does not parse: {len(body)} bytes, not 17")
    return StartEncryption(body[0], struct.unpack_from("<I", body, 1)[0], bytes(body[5:17]))


_PARSERS: dict[int, Callable[[RawEvent, bytes, FormatDescription], Any]] = {
    T.QUERY: lambda e, b, f: parse_query(b, f),
    T.MARIA_QUERY_COMPRESSED: lambda e, b, f: parse_query(b, f, compressed=True),
    T.ROTATE: lambda e, b, f: Rotate(struct.unpack_from("<Q", b, 0)[0], _cstring(b, 8, len(b) - 8)),
    T.XID: lambda e, b, f: Xid(struct.unpack_from("<Q", b, 0)[0]),
    T.INTVAR: lambda e, b, f: Intvar(b[0], struct.unpack_from("<Q", b, 1)[0]),
    T.RAND: lambda e, b, f: Rand(*struct.unpack_from("<QQ", b, 0)),
    T.USER_VAR: lambda e, b, f: parse_user_var(b),
    T.XA_PREPARE: lambda e, b, f: parse_xa_prepare(b),
    T.ROWS_QUERY: lambda e, b, f: TextEvent(b[1:].decode("utf-8", "replace")),
    T.MARIA_ANNOTATE_ROWS: lambda e, b, f: TextEvent(b.decode("utf-8", "replace")),
    T.GTID: lambda e, b, f: parse_gtid(b, False),
    T.ANONYMOUS_GTID: lambda e, b, f: parse_gtid(b, True),
    T.GTID_TAGGED: lambda e, b, f: parse_tagged_gtid(b),
    T.PREVIOUS_GTIDS: lambda e, b, f: parse_previous_gtids(b),
    T.MARIA_GTID: lambda e, b, f: parse_maria_gtid(b, e.server_id),
    T.MARIA_GTID_LIST: lambda e, b, f: parse_gtid_list(b),
    T.MARIA_BINLOG_CHECKPOINT: lambda e, b, f: Checkpoint(_cstring(b, 4, struct.unpack_from("<I", b, 0)[0])),
    T.INCIDENT: lambda e, b, f: Incident(struct.unpack_from("<H", b, 0)[0], _cstring(b, 3, b[2])),
    T.TRANSACTION_PAYLOAD: lambda e, b, f: parse_payload(b),
    T.TABLE_MAP: _table_map,
    T.FORMAT_DESCRIPTION: lambda e, b, f: parse_format_description(e.data),
    T.STOP: lambda e, b, f: None,
    T.HEARTBEAT: lambda e, b, f: None,
    T.HEARTBEAT_V2: lambda e, b, f: None,
    T.IGNORABLE: lambda e, b, f: None,
    T.MARIA_START_ENCRYPTION: lambda e, b, f: _start_encryption(b),
    T.TRANSACTION_CONTEXT: lambda e, b, f: parse_transaction_context(b),
    T.VIEW_CHANGE: lambda e, b, f: ViewChange(_cstring(b, 0, 40).split("\0", 1)[0], struct.unpack_from("<Q", b, 40)[0]),
}
for _code in T.ROWS_TYPES:
    _PARSERS[_code] = _rows

KNOWN_TYPES = frozenset(_PARSERS)


def parse_body(event: RawEvent, fde: FormatDescription) -> Any:
    """The event's body, or :class:`EventFormatProblem` when it does not parse. The caller
    checks ``event.type_code in KNOWN_TYPES`` first: an unknown type is skipped by its length."""
    body = event.data[HEADER_LEN:] if fde.header_length in (0, HEADER_LEN) else event.data[fde.header_length:]
    try:
        return _PARSERS[event.type_code](event, body, fde)
    except EventFormatProblem:
        raise
    except (ValueError, IndexError, struct.error, UnicodeDecodeError) as err:
        raise EventFormatProblem(f"{event.type_name} event does not parse: {err}") from None
