"""Where a binary or relay log may be cut: the ends of its transactions, found by framing the
file and reading only the few events that open or close a transaction.

A stream over log files (``replfilter stream``, START REPLICA on a relay-log directory) commits
its progress as a place in a file (:class:`Cut`): the end of the last complete transaction, and
the Format_description in force there, so a later read resumes at that place without reading
what precedes it (:func:`~.framing.read_frames`, ``formats_at``). Cutting only there is what makes
a restart neither apply a transaction twice nor lose one: the applier's own unit is the
transaction (mysql-filter-evaluation.md, section 3), and a replica restarted mid-transaction
re-reads it from its start.

Transactions end as :func:`~.as_events.transactions` groups them, decided here from the event
types and the text of Query events only (:func:`~.as_events.sql_boundary`): a GTID opens one
(MariaDB's, unless standalone, stands for ``BEGIN`` too); ``BEGIN`` and ``XA START`` open one;
Xid, exactly ``COMMIT`` or ``ROLLBACK`` (not ``ROLLBACK TO <savepoint>``), XA_prepare, ``XA
COMMIT``, ``XA ROLLBACK``, MariaDB's ``XA PREPARE``, Incident (even inside a transaction) and
MySQL's Transaction_payload (which holds a whole transaction) end it, as MySQL's
``Transaction_boundary_parser`` finds them (libbinlogevents/src/trx_boundary_parser.cpp); a statement outside ``BEGIN`` is a transaction of its own; the log's own events
(Format_description, Rotate, Stop, Previous_gtids, Gtid_list...) outside a transaction are
groups of one. A GTID arriving while a transaction is open ends the open one before it, as the
grouping does (its end event was lost, e.g. to a checksum error).

The last file of a log is still being written: it is read up to the end of its last complete
transaction, and a truncated last event (its bytes not all written yet) is waited for, not an
error (:attr:`Scan.waiting`). A file followed by another one in the log is closed: it is read to
its end, whatever is there (a truncated or unframeable end is then a problem the reader reports
with file and position).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlparse

from . import event_types as T
from .as_events import ENDS, OPENS, sql_boundary
from .bodies import MariaGtid, Query, Rotate
from .framing import ENCRYPTED_MAGIC, MAGIC, FormatDescription, ReadProblem, read_frames
from .reader import DEFAULT_FDE, BinlogEvent, parse_frame

SPLIT_BYTES = 8 << 20
"""A file's range is split into pieces of about this size (at transaction ends) so that one big
file is parsed by several tasks."""

_OPENS = frozenset({T.GTID, T.ANONYMOUS_GTID, T.GTID_TAGGED})
_ENDS = frozenset({T.XID, T.XA_PREPARE, T.TRANSACTION_PAYLOAD, T.INCIDENT})
_INSIDE = frozenset({
    T.TABLE_MAP, T.INTVAR, T.RAND, T.USER_VAR, T.ROWS_QUERY, T.MARIA_ANNOTATE_ROWS, T.BEGIN_LOAD_QUERY,
    *T.ROWS_TYPES,
})
"""Events that belong to the statement or transaction around them: never a place to cut."""


@dataclass(frozen=True, order=True)
class Cut:
    """A place in one file where a transaction has ended: the next event starts at ``pos``,
    and ``format_pos`` is the Format_description in force there (4, or in a relay log the
    source's, written after the replica's own)."""

    pos: int = 4
    format_pos: int = 4

    @property
    def formats_at(self) -> tuple[int, ...]:
        return (4,) if self.format_pos == 4 else (4, self.format_pos)


NO_TRANSACTION, IN_TRANSACTION, IN_BEGIN = 0, 1, 2
"""Whether a transaction is open where a scan ends (and, carried, where the next file's begins):
a replica's receiver may rotate its relay log in the middle of a transaction (MariaDB does:
a file ends with a GTID and a Rotate, the next one goes on with the transaction's rows)."""


@dataclass(frozen=True)
class Scan:
    """What a scan from a cut found: the transaction ends after it, about :data:`SPLIT_BYTES`
    apart, the last being where a read may stop now (none when no transaction ended);
    ``waiting`` the truncated event a file still being written ends with; ``size`` the bytes
    the file had; ``open_at_end`` whether a transaction goes on past them."""

    cuts: tuple[Cut, ...]
    waiting: ReadProblem | None
    size: int
    open_at_end: int = NO_TRANSACTION

    @property
    def last(self) -> Cut | None:
        return self.cuts[-1] if self.cuts else None


def scan(
    path: str, start: Cut = Cut(), closed: bool = False, split_bytes: int = SPLIT_BYTES, limit: int | None = None,
    open_at_start: int = NO_TRANSACTION,
) -> Scan:
    """The transaction ends of ``path`` after ``start``. A ``closed`` file (another follows it)
    ends with a cut at its end unless a transaction is open there (it then goes on in the next
    file: ``open_at_start`` of that file's scan); a truncated or unframeable end of a closed
    file is read as it is. An event that cannot be framed (an impossible size: the rest of the
    file cannot be read) ends any file with a cut at its end, so that its problem is read and
    reported rather than waited on. ``limit`` reads the file as if it had only that many bytes
    (what it held when a query began). Raises :class:`~.framing.NotABinlog` and ``OSError`` as
    the reader does."""
    name = os.path.basename(path)
    cuts: list[Cut] = []
    waiting: ReadProblem | None = None
    fde: FormatDescription = DEFAULT_FDE
    format_pos = start.format_pos
    in_trx = open_at_start != NO_TRANSACTION
    in_begin = open_at_start == IN_BEGIN
    standalone = False
    broken = False

    def cut(pos: int) -> None:
        """A transaction ends at ``pos``: the last cut moves there while its piece is small."""
        if cuts and cuts[-1].pos >= pos:
            return
        anchor = cuts[-2].pos if len(cuts) > 1 else start.pos
        if cuts and cuts[-1].pos - anchor < split_bytes:
            cuts[-1] = Cut(pos, format_pos)
        else:
            cuts.append(Cut(pos, format_pos))

    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if limit is not None and limit < size:
            size = limit
            closed = False
        for frame in read_frames(handle, name, start.pos, None, start.formats_at):
            if (frame.end_pos or frame.pos) > size:  # past what this scan may read: wait for it
                break
            if isinstance(frame, ReadProblem):
                if frame.kind == "truncated" and not closed:
                    waiting = frame
                    break
                if frame.fatal:  # nothing after it can be framed: read to the end, as a dead letter
                    broken = True
                    break
                if not in_trx:  # a bad event outside a transaction is a group of its own
                    cut(frame.end_pos or frame.pos)
                continue
            kind = frame.type_code
            if kind == T.FORMAT_DESCRIPTION:
                parsed = parse_frame(frame, fde)
                if isinstance(parsed, BinlogEvent):
                    fde = parsed.body
                if frame.pos < start.pos:
                    continue
                format_pos = frame.pos
            ends = False
            if kind in _OPENS or kind == T.MARIA_GTID:
                if in_trx:
                    cut(frame.pos)
                in_trx = True
                in_begin = standalone = False
                if kind == T.MARIA_GTID:
                    body = _body(frame, fde)
                    standalone = isinstance(body, MariaGtid) and body.standalone
                    in_begin = not standalone
            elif kind in (T.QUERY, T.MARIA_QUERY_COMPRESSED):
                body = _body(frame, fde)
                boundary = sql_boundary(body.sql) if isinstance(body, Query) else None
                if boundary == OPENS:
                    in_trx = in_begin = True
                elif boundary == ENDS or not in_begin:
                    ends = True
            elif kind in _ENDS:
                ends = True
            elif kind not in _INSIDE and not in_trx:
                ends = True  # the log's own event, a group of one
            if ends:
                in_trx = in_begin = standalone = False
                cut(frame.end_pos)
    if (broken or (closed and not in_trx)) and size > (cuts[-1].pos if cuts else start.pos):
        cut(size)
    state = IN_BEGIN if in_begin else IN_TRANSACTION if in_trx else NO_TRANSACTION
    return Scan(tuple(cuts), waiting, size, state)


def _body(frame, fde: FormatDescription):
    parsed = parse_frame(frame, fde)
    return parsed.body if isinstance(parsed, BinlogEvent) else None


def local_log_directory(location: str) -> str:
    """The local directory a log is read from: ``location`` itself, or the path of a
    ``file://`` URL. Log files are framed and scanned with the operating system's file calls
    (a file being written is read up to its last complete transaction), so another file
    system's URL (``s3a://``, ``hdfs://``) is refused with the reason, never listed as an empty
    directory forever. Raises ``ValueError``."""
    parsed = urlparse(location)
    if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
        return parsed.path
    if parsed.scheme == "" or len(parsed.scheme) == 1:  # a path ("C:" on Windows)
        return location
    raise ValueError(
        f"binary logs are read from a local directory, not '{location}': copy or mount the log files "
        "into a local directory and give its path"
    )


def log_files(directory: str) -> list[str]:
    """The binary or relay log files of ``directory``, in the order of its ``*.index`` file
    (a server's ``binlog.index``, a replica's ``relay-bin.index``, which wins when both are
    there) when it has one, else the
    files that start with the binlog magic, in name order (which is the numbering order of
    ``name.000001``, ``name.000002``...). A binlog MySQL encrypted (its encryption header
    instead of the magic) is listed too, so that it is refused by name, not passed over."""
    names = sorted(os.listdir(directory))
    # a replica's datadir may hold both its binlog.index and its relay-bin.index: the relay log's wins
    for name in sorted((n for n in names if n.endswith(".index")), key=lambda n: "relay" not in n):
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                listed = [os.path.join(directory, os.path.basename(line.strip())) for line in handle if line.strip()]
            return [p for p in listed if os.path.isfile(p)]
    out = []
    for name in names:
        full = os.path.join(directory, name)
        if os.path.isfile(full):
            with open(full, "rb") as handle:
                if handle.read(4) in (MAGIC, ENCRYPTED_MAGIC):
                    out.append(full)
    return out


def source_position(files: list[str], log: str, pos: int) -> tuple[str, int] | None:
    """Where the relay log's place (``log``, ``pos``) is in the source's binary log:
    ``(Relay_Source_Log_File, Exec_Source_Log_Pos)`` as SHOW REPLICA STATUS names them.

    A relay log holds the replica's own events (its Format_description, the Rotate to its next
    file: its own server id) and the source's, whose header ``log_pos`` is their end in the
    source's file; the receiver names that file in a Rotate with ``log_pos`` 0 when it connects
    (not repeated in every relay file: earlier files are read back until one is found). None
    when the relay log does not say (a server's own binlog directory names no source)."""
    names = [os.path.basename(p) for p in files]
    if log not in names:
        return None
    source_file: str | None = None
    exec_pos: int | None = None
    for path in reversed(files[: names.index(log) + 1]):
        found_file, found_pos = _source_events(path, pos if os.path.basename(path) == log else None)
        exec_pos = found_pos if exec_pos is None else exec_pos
        if found_file is not None:
            source_file = found_file[0]
            if exec_pos is None:
                exec_pos = found_file[1]
            break
    if source_file is None or exec_pos is None:
        return None
    return source_file, exec_pos


def _source_events(path: str, stop: int | None) -> tuple[tuple[str, int] | None, int | None]:
    """In one relay file up to ``stop``: the last source Rotate (file, position) and the
    ``log_pos`` after the last source event (a Rotate after it gives its position instead)."""
    rotate: tuple[str, int] | None = None
    last_pos: int | None = None
    own_id: int | None = None
    fde = DEFAULT_FDE
    try:
        with open(path, "rb") as handle:
            for frame in read_frames(handle, os.path.basename(path), 4, stop):
                if isinstance(frame, ReadProblem):
                    continue
                if own_id is None:
                    own_id = frame.server_id  # the Format_description the replica wrote
                if frame.type_code == T.FORMAT_DESCRIPTION:
                    parsed = parse_frame(frame, fde)
                    fde = parsed.body if isinstance(parsed, BinlogEvent) else fde
                    continue
                if frame.type_code == T.ROTATE and frame.log_pos == 0:
                    body = _body(frame, fde)
                    if isinstance(body, Rotate):
                        rotate = (body.next_file, body.position)
                        last_pos = body.position
                    continue
                if frame.server_id != own_id and frame.log_pos:
                    last_pos = frame.log_pos
    except (OSError, ValueError):
        return None, None
    return rotate, last_pos
