"""``replfilter serve``'s replies and its short way for a whole command: the bytes of an OK or a
result set are the ones mimic's packet functions give when framed packet by packet (the way
before :mod:`replfilter.wire.replies`), and the protocol hands a chunk to the connection only while
a read waits at a packet boundary and writing is not paused (:mod:`replfilter.wire.protocol`)."""

from __future__ import annotations

import asyncio
import socket
import struct

from hypothesis import given, settings, strategies as st
from mysql_mimic import packets
from mysql_mimic.charset import CharacterSet
from mysql_mimic.stream import MysqlStream
from mysql_mimic.types import Capabilities, ServerStatus

from replfilter.core.results import Ok, ResultSet
from replfilter.wire.columns import WireColumn, wire_rows
from replfilter.wire.connection import MORE_RESULTS, SERVER_CAPABILITIES, STATUS_CAPABILITIES
from replfilter.wire.packet_stream import LimitedStream
from replfilter.wire.protocol import command_protocol_factory
from replfilter.wire.replies import ReplyWriter


class _Sink:
    """The stream's writer: replies are read from the stream's buffer, nothing is sent."""

    def write(self, data: bytes) -> None:
        raise AssertionError("nothing is written to the transport here")


def _old_numeric(result: ResultSet) -> tuple[int, ...]:
    """Each column's kind read value by value: text 0, unsigned integers 1, integers with a
    negative one 2."""
    if not result.rows:
        return tuple(int(i) for i in result.integer_columns or (False,) * len(result.columns))
    kinds = []
    for index in range(len(result.columns)):
        values = [row[index] for row in result.rows if row[index] is not None]
        integers = bool(values) and all(isinstance(v, int) for v in values)
        if not integers:
            kinds.append(0)
        elif all(v >= 0 for v in values):
            kinds.append(1 if all(v < 2 ** 64 for v in values) else 0)
        else:
            kinds.append(2 if all(-(2 ** 63) <= v < 2 ** 63 for v in values) else 0)
    return tuple(kinds)


def _reference(result: Ok | ResultSet, capabilities: Capabilities, status: int, warnings: int, more: int,
               first: int) -> tuple[bytes, int]:
    """The reply as the connection built it before: each packet framed by mimic's ``write_many``,
    the column types read value by value, the rows re-encoded, then mimic's row encoder."""
    stream = MysqlStream(None, _Sink())  # type: ignore[arg-type]
    stream.seq.value = first
    reply_capabilities = capabilities & STATUS_CAPABILITIES
    deprecate_eof = Capabilities.CLIENT_DEPRECATE_EOF in capabilities
    flags = ServerStatus(status)
    if isinstance(result, Ok):
        stream.write_many([packets.make_ok(capabilities=reply_capabilities, status_flags=flags,
                                           affected_rows=result.affected_rows, warnings=warnings, flags=more)])
        return bytes(stream._buffer), stream.seq.value
    columns = [WireColumn.of(name, kind) for name, kind in zip(result.columns, _old_numeric(result))]
    stream.write_many([packets.make_column_count(capabilities=capabilities, column_count=len(columns))])
    stream.write_many([c.definition(CharacterSet.utf8mb4) for c in columns])
    if not deprecate_eof:
        stream.write_many([packets.make_eof(capabilities=reply_capabilities, status_flags=flags)])
    stream.write_text_rows(wire_rows(result), [c.column for c in columns])
    if deprecate_eof:
        end = packets.make_ok(capabilities=reply_capabilities, status_flags=flags, eof=True, warnings=warnings, flags=more)
    else:
        end = packets.make_eof(capabilities=reply_capabilities, status_flags=flags, warnings=warnings, flags=more)
    stream.write_many([end])
    return bytes(stream._buffer), stream.seq.value


_VALUE = st.one_of(
    st.none(),
    st.integers(-2**63, 2**64 - 1),
    st.text(max_size=300),  # past 250 bytes a value's length takes 3 bytes
    st.binary(max_size=20).map(lambda raw: raw.decode("utf-8", "surrogateescape")),  # bytes a script held
)


@st.composite
def _results(draw: st.DrawFn) -> Ok | ResultSet:
    if draw(st.booleans()):
        return Ok(affected_rows=draw(st.integers(0, 2**40)))
    width = draw(st.integers(1, 4))
    names = tuple(draw(st.lists(st.text(min_size=1, max_size=12), min_size=width, max_size=width)))
    rows = tuple(draw(st.lists(st.tuples(*[_VALUE] * width), max_size=6)))
    declared = draw(st.none() | st.tuples(*[st.booleans()] * width))
    return ResultSet(names, rows, integer_columns=declared)


@settings(max_examples=300, deadline=None)
@given(result=_results(), deprecate_eof=st.booleans(), status=st.sampled_from([0, int(ServerStatus.SERVER_STATUS_AUTOCOMMIT)]),
       warnings=st.integers(0, 0xFFFF), more=st.sampled_from([0, MORE_RESULTS]), first=st.integers(0, 255))
def test_a_reply_is_the_bytes_mimic_frames_packet_by_packet(result, deprecate_eof, status, warnings, more, first):
    capabilities = SERVER_CAPABILITIES if deprecate_eof else SERVER_CAPABILITIES & ~Capabilities.CLIENT_DEPRECATE_EOF
    stream = MysqlStream(None, _Sink())  # type: ignore[arg-type]
    stream.seq.value = first
    writer = ReplyWriter(stream, capabilities, CharacterSet.utf8mb4)
    if isinstance(result, Ok):
        writer.ok(status, result.affected_rows, warnings, more)
    else:
        writer.result_set(result, status, warnings, more)
    assert (bytes(stream._buffer), stream.seq.value) == _reference(result, capabilities, status, warnings, more, first)


# ---- the protocol's short way ---------------------------------------------------------------------

def _packet(sequence: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload) | (sequence << 24)) + payload


async def _connected(accept: bool) -> tuple[socket.socket, LimitedStream, list[bytes]]:
    """A real transport on one end of a socket pair, our protocol on it, and the stream the
    connection reads from; the handler records each chunk it is offered and takes it if
    ``accept`` (the connection takes whole COM_QUERY packets only)."""
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    streams: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    await loop.connect_accepted_socket(command_protocol_factory(lambda reader, writer: streams.append((reader, writer))),
                                       ours)
    stream = LimitedStream(*streams[0], max_allowed_packet=1 << 20)
    offered: list[bytes] = []
    stream.on_command = lambda chunk: offered.append(chunk) is None and accept
    return theirs, stream, offered


def test_a_whole_packet_offered_while_the_read_waits_is_taken_and_the_read_goes_on_waiting():
    async def run() -> None:
        peer, stream, offered = await _connected(accept=True)
        read = asyncio.ensure_future(stream.read())
        await asyncio.sleep(0.01)
        chunk = _packet(0, b"\x03SELECT 1")
        peer.sendall(chunk)
        await asyncio.sleep(0.05)
        assert offered == [chunk] and not read.done()
        read.cancel()
        peer.close()

    asyncio.run(run())


def test_a_declined_chunk_goes_to_the_read_and_the_rest_of_its_packet_is_not_offered():
    async def run() -> None:
        peer, stream, offered = await _connected(accept=False)
        read = asyncio.ensure_future(stream.read())
        await asyncio.sleep(0.01)
        whole = _packet(0, b"\x03SELECT @@version")
        peer.sendall(whole[:7])  # the header and part of the payload
        await asyncio.sleep(0.05)
        peer.sendall(whole[7:])
        assert await asyncio.wait_for(read, 5) == b"\x03SELECT @@version"
        assert offered == [whole[:7]]  # the read waited inside the packet: no short way there
        peer.close()

    asyncio.run(run())


def test_nothing_is_offered_while_writing_is_paused_nor_when_no_read_waits():
    async def run() -> None:
        peer, stream, offered = await _connected(accept=True)
        protocol = stream.protocol
        assert protocol is not None
        protocol.pause_writing()  # the client reads no replies: the task's drain must wait
        read = asyncio.ensure_future(stream.read())
        await asyncio.sleep(0.01)
        peer.sendall(_packet(0, b"\x0e"))
        assert await asyncio.wait_for(read, 5) == b"\x0e" and offered == []
        protocol.resume_writing()
        stream.reset_seq()
        peer.sendall(_packet(0, b"\x0e"))  # no read waits: the reader keeps it
        await asyncio.sleep(0.05)
        assert offered == [] and await asyncio.wait_for(stream.read(), 5) == b"\x0e"
        peer.close()

    asyncio.run(run())


def test_an_integer_column_is_typed_by_what_bigint_can_hold():
    """Unsigned when no value is negative, signed when one is and all fit BIGINT, else digits as
    text: the binary protocol packs a BIGINT in 8 bytes, and a column no BIGINT holds would
    fail there."""
    from replfilter.wire.columns import SIGNED, TEXT, UNSIGNED, _kinds

    def kinds(*column):
        return _kinds(ResultSet(("a",), tuple((v,) for v in column)))

    assert kinds(0, 2 ** 64 - 1) == (UNSIGNED,)
    assert kinds(-1, 2 ** 63 - 1, None) == (SIGNED,)
    assert kinds(-1, 2 ** 63) == (TEXT,)
    assert kinds(None) == (TEXT,)
