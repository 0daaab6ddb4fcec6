"""The frames of a binary log file: the magic, each event's 19-byte common header, its checksum,
and the Format_description event that says how to read the rest.

The v4 format (libbinlogevents ``binlog_event.h``, "Binary log format"; MariaDB's is the same):
a file starts with ``\\xfebin``; each event starts with ``timestamp(4) type(1) server_id(4)
event_size(4) log_pos(4) flags(2)``, little-endian, ``log_pos`` being the position just after the
event. The first event is a Format_description: its last five bytes are the checksum algorithm
(0 off, 1 CRC32) and a CRC32 of its own; from it on, every event of a CRC32 file ends with the
CRC32 of the rest of the event, which :func:`read_frames` verifies on every event.

The file is read in chunks (:data:`CHUNK` bytes), never whole: memory is flat in the file size.
A problem never raises: it is yielded as a :class:`ReadProblem` naming file and position, and
the reader goes on when the event's length can still be trusted (a bad checksum) and stops
when it cannot (a header that is cut off or whose size is impossible).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import IO, Iterator, Sequence, Union

from . import event_types as T

MAGIC = b"\xfebin"
HEADER_LEN = 19
CHECKSUM_LEN = 4
CHUNK = 1 << 20
MAX_EVENT_SIZE = 1 << 30
"""The server's ``max_allowed_packet`` ceiling (1 GiB): no event is larger."""

ALG_OFF = 0
ALG_CRC32 = 1

_HEADER = struct.Struct("<IBIIIH")
IN_USE_F = 0x1
"""``LOG_EVENT_BINLOG_IN_USE_F``: set in the Format_description of a file being written and
cleared when it is closed, without rewriting the checksum, which is therefore computed with the
flag clear (libbinlogevents ``Log_event_footer::event_checksum_test``)."""
FLAGS_OFFSET = 17
IGNORABLE_F = 0x80
"""``LOG_EVENT_IGNORABLE_F``. A MariaDB server sending an encrypted binlog to a client
(``mariadb-binlog --read-from-remote-server --raw``, a replica) decrypts the events and keeps the
Start_encryption event with this flag set: a file holding it so flagged is in clear after it, as
``mariadb-binlog`` reads it ("Ignorable event type 164 (Start_encryption)")."""

ENCRYPTED_MAGIC = b"\xfdbin"
"""The start of a binary log that MySQL 8.0.14+ encrypted (``binlog_encryption=ON``): its
encryption header replaces the magic (``Rpl_encryption_header``, sql/rpl_log_encryption.h)."""


def _crc_without_in_use(event: bytes) -> int:
    data = bytearray(event)
    data[FLAGS_OFFSET] &= ~IN_USE_F & 0xFF
    return zlib.crc32(data)


class NotABinlog(ValueError):
    """The file does not start with the binary log magic: refused in one line."""


@dataclass(frozen=True, slots=True)
class RawEvent:
    """One event as framed: where it is, its common header, and its bytes without the checksum
    (``data`` includes the 19-byte header, so body offsets are ``HEADER_LEN + n``).

    ``end_pos`` is where the event ends in this file; ``log_pos`` is the header's own
    ``log_pos``, which SHOW ... EVENTS prints as End_log_pos: the same in a binary log, the
    source's position in a relay log (0 for the events the replica wrote itself)."""

    log_name: str
    pos: int
    end_pos: int
    timestamp: int
    type_code: int
    server_id: int
    flags: int
    data: bytes
    log_pos: int = 0

    @property
    def type_name(self) -> str:
        return T.type_name(self.type_code)


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """An event that could not be read. ``kind`` is ``truncated`` (the file ends inside the
    event: a file still being written, or cut), ``checksum`` (the CRC32 does not match),
    ``malformed`` (the event does not parse) or ``unknown`` (an event type this reader does not
    know, skipped by its length). ``fatal`` when the reader cannot go past it."""

    log_name: str
    pos: int
    kind: str
    message: str
    end_pos: int | None = None
    fatal: bool = False

    def text(self) -> str:
        return f"{self.log_name}: at {self.pos}: {self.message}"


Frame = Union[RawEvent, ReadProblem]


@dataclass(frozen=True)
class FormatDescription:
    """What the Format_description event says: the checksum algorithm and the post-header
    length of each event type (index ``type - 1``)."""

    binlog_version: int
    server_version: str
    created: int
    header_length: int
    post_header_lengths: bytes
    checksum_alg: int

    def post_header_len(self, type_code: int, default: int) -> int:
        if 0 < type_code <= len(self.post_header_lengths):
            return self.post_header_lengths[type_code - 1]
        return default


def _version_tuple(text: str) -> tuple[int, int, int]:
    parts = []
    for piece in text.split("-", 1)[0].split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    while len(parts) < 3:
        parts.append(0)
    return parts[0], parts[1], parts[2]


def parse_format_description(data: bytes) -> FormatDescription:
    """The body of a Format_description event (``data`` with its header and checksum).

    The checksum algorithm byte exists from MySQL 5.6.1 and MariaDB 5.3 on (libbinlogevents
    ``Log_event_footer::get_checksum_alg``); it sits five bytes before the end whatever the
    algorithm, so the post-header array ends there."""
    body = data[HEADER_LEN:]
    if len(body) < 57:
        raise ValueError("Format_description event too short")
    binlog_version = struct.unpack_from("<H", body, 0)[0]
    server_version = body[2:52].split(b"\0", 1)[0].decode("latin-1")
    created = struct.unpack_from("<I", body, 52)[0]
    header_length = body[56]
    version = _version_tuple(server_version)
    mariadb = "MariaDB" in server_version
    has_alg = version >= ((5, 3, 0) if mariadb else (5, 6, 1))
    if has_alg:
        alg = body[-5]
        post = bytes(body[57:-5])
    else:
        alg = ALG_OFF
        post = bytes(body[57:])
    return FormatDescription(binlog_version, server_version, created, header_length, post, alg)


def check_magic(head: bytes, log_name: str) -> None:
    if head == ENCRYPTED_MAGIC:  # mysqlbinlog: "Reading encrypted log files directly is not supported."
        raise NotABinlog(
            f"{log_name}: an encrypted MySQL binary log (binlog_encryption=ON): replfilter cannot read encrypted binary "
            f"logs; copy it decrypted through the server that holds its keyring: mysqlbinlog --read-from-remote-server "
            f"--raw {log_name}"
        )
    if head != MAGIC:
        raise NotABinlog(f"{log_name}: not a binary log or relay log (no binlog magic at its start)")


def encrypted(log_name: str, pos: int, end_pos: int) -> ReadProblem:
    """A MariaDB binlog written with ``encrypt_binlog=ON``: every event after its
    Start_encryption event is encrypted with the server's key (only the event length stays in
    clear), which replfilter does not have; ``mariadb-binlog`` cannot read such a file either
    ("The rest of the binlog is encrypted!", then "Could not read entry"), but the server that
    holds the key sends the events decrypted."""
    return ReadProblem(
        log_name, pos, "encrypted",
        f"the file is encrypted from here on (MariaDB's Start_encryption event, encrypt_binlog=ON): replfilter cannot "
        f"read encrypted binary logs; copy it decrypted through the server that holds its key: mariadb-binlog "
        f"--read-from-remote-server --raw {log_name}",
        end_pos, fatal=True,
    )


def _encryption_at(handle: IO[bytes], log_name: str, pos: int) -> ReadProblem | None:
    """The problem of an encrypted file when the event at ``pos`` is a Start_encryption event
    (looked at when a read resumes after it: the events read from there are encrypted too)."""
    handle.seek(pos)
    head = handle.read(HEADER_LEN)
    if len(head) < HEADER_LEN:
        return None
    _ts, type_code, _server, size, _end, flags = _HEADER.unpack_from(head, 0)
    if type_code == T.MARIA_START_ENCRYPTION and not flags & IGNORABLE_F:
        return encrypted(log_name, pos, pos + size)
    return None


def read_frames(
    handle: IO[bytes], log_name: str, start: int = 4, stop: int | None = None, formats_at: Sequence[int] = ()
) -> Iterator[Frame]:
    """The events of an open binary log file, from its magic to its end (or ``stop``).

    The Format_description at position 4 is always read (it says whether events carry a
    checksum) and yielded; events before ``start`` are then skipped unread but for their
    header. Raises :class:`NotABinlog` before yielding anything when the magic is missing.

    ``formats_at`` resumes a read without framing what comes before ``start``: the positions of
    the Format_description events in force there (4, and in a relay log the source's, which
    may change the checksum algorithm) are read and yielded, then the file is read from
    ``start``, which must be where an event begins (a position an earlier read ended at)."""
    check_magic(handle.read(4), log_name)
    checksum = [ALG_OFF]  # until a Format_description says otherwise (in a relay log, the source's follows the replica's)
    if not formats_at:
        yield from _frames(handle, log_name, 4, start, stop, checksum)
        return
    for at in formats_at:
        if at >= start:
            break
        handle.seek(at)
        after = None
        for frame in _frames(handle, log_name, at, at, at + 1, checksum):
            yield frame
            if isinstance(frame, ReadProblem) and frame.fatal:
                return
            if isinstance(frame, RawEvent):
                after = frame.end_pos
        # MariaDB writes its Start_encryption event right after the Format_description
        problem = _encryption_at(handle, log_name, after) if after is not None and after < start else None
        if problem is not None:
            yield problem
            return
    handle.seek(start)
    yield from _frames(handle, log_name, start, start, stop, checksum)


def _frames(handle: IO[bytes], log_name: str, pos: int, start: int, stop: int | None, checksum: list[int]) -> Iterator[Frame]:
    """The frames from ``pos`` (where ``handle`` stands) on; ``checksum[0]`` is the algorithm in
    force, updated by each Format_description read."""
    buf = b""
    off = 0
    alg = checksum[0]
    crc32 = zlib.crc32
    unpack = _HEADER.unpack_from
    while stop is None or pos < stop:
        if len(buf) - off < HEADER_LEN:
            buf = buf[off:] + handle.read(CHUNK)
            off = 0
            if not buf:
                return
            if len(buf) < HEADER_LEN:
                yield ReadProblem(log_name, pos, "truncated", f"truncated event: the file ends {len(buf)} bytes into its header", fatal=True)
                return
        timestamp, type_code, server_id, size, end_pos, flags = unpack(buf, off)
        if size < HEADER_LEN or size > MAX_EVENT_SIZE:
            yield ReadProblem(log_name, pos, "malformed", f"impossible event size {size}: the rest of the file cannot be framed", fatal=True)
            return
        if len(buf) - off < size:
            buf = buf[off:] + handle.read(max(CHUNK, size))
            off = 0
            if len(buf) < size:
                yield ReadProblem(
                    log_name, pos, "truncated",
                    f"truncated {T.type_name(type_code)} event: {len(buf)} of its {size} bytes are in the file",
                    fatal=True,
                )
                return
        event_end = off + size
        if type_code == T.FORMAT_DESCRIPTION:  # each one says how the events after it are checked
            try:
                fde = parse_format_description(buf[off:event_end])
            except (ValueError, struct.error, IndexError) as err:
                yield ReadProblem(log_name, pos, "malformed", f"Format_description: {err}", fatal=True)
                return
            alg = checksum[0] = fde.checksum_alg
        body_end = event_end
        if alg == ALG_CRC32:
            body_end = event_end - CHECKSUM_LEN
            expected = int.from_bytes(buf[body_end:event_end], "little")
            if type_code == T.FORMAT_DESCRIPTION and flags & IN_USE_F:
                actual = _crc_without_in_use(buf[off:body_end])
            else:
                actual = crc32(memoryview(buf)[off:body_end])
            if actual != expected:
                yield ReadProblem(
                    log_name, pos, "checksum",
                    f"checksum mismatch in {T.type_name(type_code)} event ending at {pos + size}", end_pos=pos + size,
                )
                off = event_end
                pos += size
                continue
        if pos >= start or type_code == T.FORMAT_DESCRIPTION:
            yield RawEvent(log_name, pos, pos + size, timestamp, type_code, server_id, flags, buf[off:body_end], end_pos)
        if type_code == T.MARIA_START_ENCRYPTION and not flags & IGNORABLE_F:  # the rest is encrypted
            yield encrypted(log_name, pos, pos + size)
            return
        off = event_end
        pos += size


def frames_in(payload: bytes, log_name: str, pos: int, end_pos: int, log_pos: int = 0) -> Iterator[Frame]:
    """The events inside a Transaction_payload: they carry no checksum (mysqlbinlog.cc,
    ``Transaction_payload_log_event::print``, reads them with checksums off) and all stand at
    the payload event's own position."""
    off = 0
    unpack = _HEADER.unpack_from
    while off < len(payload):
        if len(payload) - off < HEADER_LEN:
            yield ReadProblem(log_name, pos, "malformed", "Transaction_payload: an inner event header is cut off", end_pos=end_pos)
            return
        timestamp, type_code, server_id, size, _end, flags = unpack(payload, off)
        if size < HEADER_LEN or off + size > len(payload):
            yield ReadProblem(log_name, pos, "malformed", f"Transaction_payload: inner event of impossible size {size}", end_pos=end_pos)
            return
        yield RawEvent(log_name, pos, end_pos, timestamp, type_code, server_id, flags, payload[off:off + size], log_pos)
        off += size
