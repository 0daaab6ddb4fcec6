"""A statement's reply in bytes: the OK, or a result set's packets, framed and appended to the
stream's buffer in as few steps as possible.

The packets are mysql-mimic's (``make_ok``, ``make_eof``, ``make_column_count``,
``make_column_definition_41``, and its compiled ``write_text_rows`` for the rows); what this
module adds is that everything but the rows is built and framed once per shape and sequence
number, and appended as one piece. Mimic's ``write_many`` frames packet by packet, each taking
the sequence number from a Python iterator: for a short result that framing, the column types
read from the values and the rows re-encoded before mimic encodes them again cost the server
about as much CPU as the rest of the reply (README, "replfilter serve", "Cost of the wire").

A reply to one COM_QUERY starts at sequence number 1, a multi-statement's later results where
the previous one ended; the cached pieces are keyed by that number, which wraps at 256 as the
protocol's does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mysql_mimic import packets
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import Capabilities, ServerStatus

from ..core.results import ResultSet
from .columns import result_header, wire_rows


def frame(payloads: tuple[bytes, ...], first: int) -> bytes:
    """``payloads`` as packets numbered from ``first`` (each under 16 MiB: headers, OK, EOF)."""
    out = bytearray()
    number = first
    for payload in payloads:
        out += (len(payload) | (number << 24)).to_bytes(4, "little")
        out += payload
        number = (number + 1) & 0xFF
    return bytes(out)


@lru_cache(maxsize=4096)
def ok_reply(capabilities: int, status: int, affected_rows: int, warnings: int, more: int, first: int,
             eof: bool = False) -> bytes:
    """The OK packet framed (with ``eof``, the one that ends a result set under
    CLIENT_DEPRECATE_EOF). Keyed by plain ints: hashing mimic's flag enums is a Python call."""
    payload = packets.make_ok(capabilities=Capabilities(capabilities), status_flags=ServerStatus(status), eof=eof,
                              affected_rows=affected_rows, warnings=warnings, flags=more)
    return frame((payload,), first)


@lru_cache(maxsize=4096)
def eof_reply(capabilities: int, status: int, warnings: int, more: int, first: int) -> bytes:
    payload = packets.make_eof(capabilities=Capabilities(capabilities), status_flags=ServerStatus(status),
                               warnings=warnings, flags=more)
    return frame((payload,), first)


def end_of_rows(capabilities: int, deprecate_eof: bool, status: int, warnings: int, more: int, first: int) -> bytes:
    """What ends a result set's rows: the OK with the EOF marker under CLIENT_DEPRECATE_EOF, else
    the EOF packet."""
    if deprecate_eof:
        return ok_reply(capabilities, status, 0, warnings, more, first, True)
    return eof_reply(capabilities, status, warnings, more, first)


@lru_cache(maxsize=4096)
def _framed_header(payloads: tuple[bytes, ...], eof: bytes | None, first: int) -> bytes:
    """The column count and definitions framed, and the EOF after them without
    CLIENT_DEPRECATE_EOF."""
    return frame(payloads + ((eof,) if eof is not None else ()), first)


@lru_cache(maxsize=64)
def _header_eof(capabilities: int, status: int) -> bytes:
    return packets.make_eof(capabilities=Capabilities(capabilities), status_flags=ServerStatus(status))


class ReplyWriter:
    """One connection's replies into mimic's stream buffer (``stream`` is mimic's compiled
    ``MysqlStream``: its buffer, sequence counter and row encoder)."""

    def __init__(self, stream: Any, capabilities: Capabilities, charset: CharacterSet) -> None:
        self.stream = stream
        self.all_capabilities = capabilities
        self.capabilities = int(capabilities & (Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_TRANSACTIONS))
        """The capabilities that decide how OK and EOF packets carry the status and warnings."""
        self.deprecate_eof = Capabilities.CLIENT_DEPRECATE_EOF in capabilities
        self.charset = charset

    def ok(self, status: int, affected_rows: int, warnings: int, more: int) -> None:
        seq = self.stream.seq
        first = seq.value
        self.stream._buffer += ok_reply(self.capabilities, status, affected_rows, warnings, more, first)
        seq.value = (first + 1) & 0xFF

    def result_set(self, result: ResultSet, status: int, warnings: int, more: int) -> None:
        """The column count, definitions, (EOF,) rows and the end of rows."""
        stream = self.stream
        seq = stream.seq
        first = seq.value
        header = result_header(result, self.charset, self.all_capabilities)
        eof = None if self.deprecate_eof else _header_eof(self.capabilities, status)
        buffer = stream._buffer
        buffer += _framed_header(header.packets, eof, first)
        seq.value = first = (first + len(header.packets) + (eof is not None)) & 0xFF
        mark = len(buffer)
        try:  # the rows as they are: text is valid UTF-8 nearly always
            stream.write_text_rows(result.rows, header.columns)
        except UnicodeEncodeError:  # bytes a script held that are not UTF-8: sent as those bytes
            del buffer[mark:]
            seq.value = first
            stream.write_text_rows(wire_rows(result), header.columns)
        last = seq.value
        buffer += end_of_rows(self.capabilities, self.deprecate_eof, status, warnings, more, last)
        seq.value = (last + 1) & 0xFF
