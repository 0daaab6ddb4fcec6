"""``replfilter serve`` over a raw socket after a PyMySQL login: a COM_QUERY gets the same reply
whether it comes as one segment (answered in the protocol's callback), split across segments,
pipelined with other commands, or to a client that reads its replies late (the transport's
writing paused); a misnumbered packet still gets 1156 and the connection ends."""

from __future__ import annotations

import socket
import struct
import threading
import time
from pathlib import Path

import pytest

from serve_process import ServeProcess

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    process = ServeProcess(tmp_path_factory.mktemp("serve"))
    yield process
    assert process.stop() == 0


def _packet(sequence: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload) | (sequence << 24)) + payload


def _read_packet(sock: socket.socket) -> tuple[int, bytes]:
    header = _read_exactly(sock, 4)
    word = struct.unpack("<I", header)[0]
    return word >> 24, _read_exactly(sock, word & 0xFFFFFF)


def _read_exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def _is_eof(payload: bytes) -> bool:
    return payload[0] == 0xFE and len(payload) < 9


def _read_reply(sock: socket.socket) -> list[tuple[int, bytes]]:
    """One reply (PyMySQL's login does not ask for CLIENT_DEPRECATE_EOF): an OK or an error, or a
    result set ending in its second EOF."""
    first = _read_packet(sock)
    if first[1][0] in (0x00, 0xFF):
        return [first]
    reply, eofs = [first], 0
    while eofs < 2:
        reply.append(_read_packet(sock))
        eofs += _is_eof(reply[-1][1])
    return reply


_KEPT: list[object] = []
"""The PyMySQL connections whose sockets the tests use (the socket closes with its connection)."""


def _raw(server: ServeProcess) -> socket.socket:
    connection = server.connect()
    _KEPT.append(connection)
    sock = connection._sock  # the logged-in socket; the test speaks the protocol on it itself
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


QUERY = _packet(0, b"\x03SELECT @@version")


def test_a_query_split_pipelined_or_failing_gets_the_same_reply(server: ServeProcess):
    sock = _raw(server)
    sock.sendall(QUERY)
    whole = _read_reply(sock)
    assert [number for number, _ in whole] == [1, 2, 3, 4, 5] and b"@@version" in whole[1][1]
    assert whole[3][1][1:].decode().startswith("8.4")  # the row: the version's length, then the text
    sock.sendall(QUERY[:7])
    time.sleep(0.05)
    sock.sendall(QUERY[7:])
    assert _read_reply(sock) == whole
    sock.sendall(QUERY + QUERY + _packet(0, b"\x0e"))  # two queries and a COM_PING in one segment
    assert _read_reply(sock) == whole and _read_reply(sock) == whole
    [(number, ok)] = _read_reply(sock)
    assert number == 1 and ok[0] == 0x00  # the ping's OK, after both replies
    sock.sendall(_packet(0, b"\x03SELECT FROM"))
    [(number, error)] = _read_reply(sock)
    assert number == 1 and struct.unpack("<H", error[1:3])[0] == 1064
    sock.sendall(_packet(0, b"\x03SHOW WARNINGS"))
    assert any(b"1064" in payload for _, payload in _read_reply(sock))  # the failed statement's diagnostics
    sock.sendall(_packet(1, b"\x03SELECT @@version"))  # numbered 1 where 0 is due
    [(number, error)] = _read_reply(sock)
    assert struct.unpack("<H", error[1:3])[0] == 1156
    assert sock.recv(16) == b""  # and the connection ends, as before


def test_a_client_that_reads_its_replies_late_gets_every_one_in_order(server: ServeProcess):
    sock = _raw(server)
    setup = "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + ",".join(f"d{i:04d}" for i in range(2000)) + ")"
    sock.sendall(_packet(0, b"\x03" + setup.encode()))
    assert _read_reply(sock)[0][1][0] == 0x00
    query = _packet(0, b"\x03SELECT FILTER_RULE FROM performance_schema.replication_applier_global_filters")
    sock.sendall(query)
    expected = _read_reply(sock)
    assert len(expected[3][1]) > 11000  # one row of about 12 KB
    count = 600  # about 7 MB of replies: more than the socket buffers and the transport's high-water mark
    sender = threading.Thread(target=lambda: [sock.sendall(query) for _ in range(count)])
    sender.start()
    time.sleep(1.0)  # replies pile up unread: the server's writing pauses
    replies = [_read_reply(sock) for _ in range(count)]
    sender.join(timeout=60)
    assert all(reply == expected for reply in replies)
    sock.sendall(QUERY)
    assert b"@@version" in _read_reply(sock)[1][1]


def test_the_log_has_no_error_after_the_raw_clients(server: ServeProcess, tmp_path: Path):
    assert not [line for line in server.log if "[ERROR]" in line]
