"""SHOW BINLOG EVENTS and SHOW RELAYLOG EVENTS over a file: MySQL 8.4's columns and each
event's Info text (the server's ``pack_info`` of each event class in ``sql/log_event.cc``;
MariaDB's for MariaDB's own types).
"""

from __future__ import annotations

from typing import Any, Iterator

from . import bodies as B
from . import event_types as T
from .framing import FormatDescription
from .reader import BinlogEvent, Item
from .rows import TableMap

COLUMNS = ("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info")

_INTVAR = {1: "LAST_INSERT_ID", 2: "INSERT_ID"}
_INCIDENTS = {0: "NONE", 1: "LOST_EVENTS"}


def quote_identifier(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def info(event: BinlogEvent) -> str:
    """The Info column of one event."""
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
    if isinstance(body, B.Intvar):
        return f"{_INTVAR.get(body.kind, 'INVALID_INT')}={body.value}"
    if isinstance(body, B.Rand):
        return f"rand_seed1={body.seed1},rand_seed2={body.seed2}"
    if isinstance(body, B.UserVar):
        return _user_var(body)
    if isinstance(body, B.XaPrepare):
        xid = f"X'{body.gtrid.hex()}',X'{body.bqual.hex()}',{body.format_id}"
        return f"XA COMMIT {xid} ONE PHASE" if body.one_phase else f"XA PREPARE {xid}"
    if isinstance(body, B.TransactionPayload):
        name = {0: "ZSTD", 255: "NONE"}.get(body.compression, "UNKNOWN")
        return f"compression='{name}', decompressed_size={body.uncompressed_size or 0} bytes"
    if isinstance(body, B.Incident):
        return f"#{body.number} ({_INCIDENTS.get(body.number, 'UNKNOWN')})" + (f" {body.message}" if body.message else "")
    return ""


def _user_var(body: B.UserVar) -> str:
    name = "@" + quote_identifier(body.name)
    if body.is_null:
        return f"{name}=NULL"
    if body.value_type == 2:  # INT_RESULT
        return f"{name}={int.from_bytes(body.value[:8], 'little', signed=True)}"
    if body.value_type == 0:  # STRING_RESULT
        return f"{name}=_binary 0x{body.value.hex()}" if body.value else f"{name}=''"
    return f"{name}=0x{body.value.hex()}"


def show_rows(items: Iterator[Item], offset: int = 0, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
    """The result rows, ``LIMIT [offset,] n`` applied; problems are not rows (the caller
    reports them)."""
    seen = 0
    for item in items:
        if not isinstance(item, BinlogEvent):
            continue
        if seen < offset:
            seen += 1
            continue
        if limit is not None and seen - offset >= limit:
            return
        seen += 1
        raw = item.raw
        yield (raw.log_name, raw.pos, raw.type_name, raw.server_id, raw.log_pos, info(item))

