"""SHOW BINLOG EVENTS and SHOW RELAYLOG EVENTS over a file: MySQL 8.4's columns and each
event's Info text (the server's ``pack_info`` of each event class in ``sql/log_event.cc``;
MariaDB's for MariaDB's own types).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from typing import Any, Iterator

from . import bodies as B
from . import column_values as C
from . import event_types as T
from .collations import collation
from .framing import FormatDescription
from .reader import BinlogEvent, Item
from .rows import TableMap

COLUMNS = ("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info")

_INTVAR = {1: "LAST_INSERT_ID", 2: "INSERT_ID"}
_INCIDENTS = {0: "NOTHING", 1: "LOST_EVENTS"}  # Incident_log_event::description()


def quote_identifier(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def written_by_mariadb(event: BinlogEvent, so_far: bool) -> bool:
    """Whether the events from this one on were written by MariaDB: the last
    Format_description says (a relay log holds the replica's, then the source's)."""
    body = event.body
    return "MariaDB" in body.server_version if isinstance(body, FormatDescription) else so_far


def info(event: BinlogEvent, mariadb: bool = False) -> str:
    """The Info column of one event; ``mariadb``: the file was written by MariaDB (collation
    ids are the writer's)."""
    body = event.body
    code = event.raw.type_code
    if isinstance(body, B.Query):
        if body.db and not event.raw.flags & 0x8:  # LOG_EVENT_SUPPRESS_USE_F
            return f"use {quote_identifier(body.db)}; {body.sql}"
        return body.sql
    if isinstance(body, FormatDescription):
        return f"Server ver: {body.server_version}, Binlog ver: {body.binlog_version}"
    if isinstance(body, TableMap):
        return f"table_id: {body.table_id} ({body.db}.{body.table})"
    if isinstance(body, B.Rows):
        text = f"table_id: {body.header.table_id}"
        return text + " flags: STMT_END_F" if body.header.stmt_end else text
    if isinstance(body, B.Xid):
        return f"COMMIT /* xid={body.xid} */"
    if isinstance(body, B.Rotate):
        return f"{body.next_file};pos={body.position}"
    if isinstance(body, B.Gtid):
        return f"SET @@SESSION.GTID_NEXT= '{'ANONYMOUS' if body.anonymous else body.gtid}'"
    if isinstance(body, B.MariaGtid):
        text = f"GTID {body.gtid}" if body.standalone else f"BEGIN GTID {body.gtid}"
        return text + (f" cid={body.commit_id}" if body.commit_id is not None else "")
    if isinstance(body, B.GtidSetBody):
        return f"[{body.text}]" if code == T.MARIA_GTID_LIST else body.text
    if isinstance(body, B.Checkpoint):
        return body.file
    if isinstance(body, B.TextEvent):
        return f"# {body.text}" if code == T.ROWS_QUERY else body.text
    if isinstance(body, B.Intvar):  # longlong10_to_str(val, -10): signed
        value = body.value - (1 << 64) if body.value >> 63 else body.value
        return f"{_INTVAR.get(body.kind, 'INVALID_INT')}={value}"
    if isinstance(body, B.Rand):
        return f"rand_seed1={body.seed1},rand_seed2={body.seed2}"
    if isinstance(body, B.UserVar):
        return _user_var(body, mariadb)
    if isinstance(body, B.XaPrepare):  # serialize_xid (xa_aux.h): lower-case hex, formatID as %lu
        xid = f"X'{body.gtrid.hex()}',X'{body.bqual.hex()}',{body.format_id % (1 << 64)}"
        return f"XA COMMIT {xid} ONE PHASE" if body.one_phase else f"XA PREPARE {xid}"
    if isinstance(body, B.TransactionPayload):
        name = {0: "ZSTD", 255: "NONE"}.get(body.compression, "UNKNOWN")
        return f"compression='{name}', decompressed_size={body.uncompressed_size or 0} bytes"
    if isinstance(body, B.TransactionContext):
        return f"server_uuid={body.server_uuid}\tthread_id={body.thread_id}"
    if isinstance(body, B.ViewChange):
        return f"view_id={body.view_id}"
    if code == T.IGNORABLE:
        return "# Unrecognized ignorable event"
    if isinstance(body, B.Incident):
        # Incident_log_event::pack_info prints the message only when it is empty (its test is
        # inverted in 8.4): "#1 (LOST_EVENTS)" with a message, "#1 (LOST_EVENTS): " without
        name = _INCIDENTS.get(body.number, f"incident {body.number}")
        return f"#{body.number} ({name})" if body.message else f"#{body.number} ({name}): "
    return ""


def _user_var(body: B.UserVar, mariadb: bool) -> str:
    """``User_var_log_event::pack_info``: ``@`name`=`` then NULL, the double as ``my_gcvt``
    writes it, the integer (signed unless UNSIGNED_F), the decimal with its scale, or the
    string as ``_charset 0xHEX COLLATE collation`` (``str_to_hex``: upper-case digits, ``""``
    when empty)."""
    name = "@" + quote_identifier(body.name) + "="
    if body.is_null:
        return name + "NULL"
    value = body.value
    if body.value_type == 1:  # REAL_RESULT
        return name + format_double(struct.unpack_from("<d", value)[0])
    if body.value_type == 2:  # INT_RESULT
        return name + str(int.from_bytes(value[:8], "little", signed=not body.flags & body.UNSIGNED_F))
    if body.value_type == 4:  # DECIMAL_RESULT: precision, scale, then the binary decimal
        decimal, _ = C.decoder_for(C.NEWDECIMAL)(value, 2, (value[0] << 8) | value[1], False)
        return name + str(decimal)
    known = collation(body.charset, mariadb)
    if known is None:  # not a guess: say which id it was
        return name + f"_? {_str_to_hex(value)} COLLATE (collation id {body.charset})"
    charset, collation_name = known
    return name + f"_{charset} {_str_to_hex(value)} COLLATE {collation_name}"


def _str_to_hex(value: bytes) -> str:
    return "0x" + value.hex().upper() if value else '""'


_DBL_DIG = 15
_GCVT_WIDTH = _DBL_DIG + 4 + max(5, _DBL_DIG)  # MY_GCVT_MAX_FIELD_WIDTH


def format_double(x: float, width: int = _GCVT_WIDTH) -> str:
    """``my_gcvt(x, MY_GCVT_ARG_DOUBLE, MY_GCVT_MAX_FIELD_WIDTH)`` (strings/dtoa.cc): the
    shortest digits that read back to ``x`` (Python's ``repr`` gives the same ones as dtoa mode
    0), in the 'f' format when they fit and the decimal point is within 15 places, else
    ``d.ddde[-]N``. At this width no digits are ever cut, so only the choice is modelled."""
    negative = math.copysign(1.0, x) < 0
    if x == 0:
        digits, decpt = "0", 1
    else:
        sign, raw, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
        digits = "".join(map(str, raw))
        decpt = len(digits) + exponent
    if negative:
        width -= 1
    length = len(digits)
    exp_len = 1 + (decpt >= 101 or decpt <= -99) + (decpt >= 11 or decpt <= -9)
    f_length = length - decpt + 2 if decpt <= 0 else length + 1 if decpt < length else decpt
    have_space = f_length <= width
    force_e = decpt <= 0 and width <= 2 - decpt and width >= 3 + exp_len
    use_f = (have_space or (decpt <= width and (decpt >= -1 or (decpt == -2 and (length > 1 or not force_e)))
                            and not force_e)) and \
        (not have_space or (decpt >= -_DBL_DIG + 1 and (decpt <= _DBL_DIG or length > decpt)))
    if use_f:
        if decpt <= 0:
            text = "0." + "0" * -decpt + digits
        elif decpt < length:
            text = digits[:decpt] + "." + digits[decpt:]
        else:
            text = digits + "0" * (decpt - length)
    else:
        power = decpt - 1
        text = digits[0] + ("." + digits[1:] if length > 1 else "") + "e" + ("-" if power < 0 else "") + str(abs(power))
    return ("-" if negative else "") + text


def show_rows(items: Iterator[Item], offset: int = 0, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
    """The result rows, ``LIMIT [offset,] n`` applied; problems are not rows (the caller
    reports them)."""
    seen = 0
    mariadb = False
    for item in items:
        if not isinstance(item, BinlogEvent):
            continue
        mariadb = written_by_mariadb(item, mariadb)
        if seen < offset:
            seen += 1
            continue
        if limit is not None and seen - offset >= limit:
            return
        seen += 1
        raw = item.raw
        yield (raw.log_name, raw.pos, raw.type_name, raw.server_id, raw.log_pos, info(item, mariadb))

