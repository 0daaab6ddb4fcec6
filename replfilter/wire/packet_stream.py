"""The packets of one ``replfilter serve`` connection: mysql-mimic's stream with the limits mysqld
keeps (``max_allowed_packet`` on what a client sends), the short way for a whole command packet
armed while a read waits at a packet boundary (:mod:`.protocol`), and ``wait_timeout``'s timer."""

from __future__ import annotations

import asyncio
import struct
from typing import Any, Callable

from mysql_mimic.errors import ErrorCode, MysqlError
from mysql_mimic.stream import ConnectionClosed, MysqlStream

from .protocol import CommandProtocol


class PacketTooLarge(Exception):
    pass


class LimitedStream:
    """mysql-mimic's stream, reading no packet longer than ``max_allowed_packet`` (mimic reads
    whatever length a header announces). Mimic's class is compiled and cannot be subclassed, so
    this one reads packets itself and hands everything else to it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_allowed_packet: int) -> None:
        self.inner = MysqlStream(reader, writer)
        self.max_allowed_packet = max_allowed_packet
        # the methods every statement calls, bound once (not looked up through __getattr__)
        self.write_many = self.inner.write_many
        self.write_text_rows = self.inner.write_text_rows
        self.drain = self.inner.drain
        self.reset_seq = self.inner.reset_seq
        protocol = writer.transport.get_protocol()
        self.protocol = protocol if isinstance(protocol, CommandProtocol) else None
        self.on_command: Callable[[bytes], bool] | None = None
        """The connection's short way for a whole command packet (:mod:`.protocol`), armed while
        a read waits at a packet boundary."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def flush(self) -> None:
        """The buffered reply to the transport, without waiting for it to drain (the short way
        runs inside the protocol's callback; the protocol stops taking it when writing pauses)."""
        inner = self.inner
        buffer = inner._buffer
        if buffer:
            inner._buffer = bytearray()
            inner.writer.write(buffer)

    async def read(self) -> bytes:
        data = b""
        reader = self.inner.reader
        while True:
            if not data and self.on_command is not None and self.protocol is not None:
                self.protocol.command = self.on_command
                try:
                    header = await reader.read(4)
                finally:
                    self.protocol.command = None
            else:
                header = await reader.read(4)
            if not header:
                raise ConnectionClosed()
            if len(header) < 4:
                header += await reader.readexactly(4 - len(header))
            word = struct.unpack("<I", header)[0]
            length, sequence = word & 0x00FFFFFF, word >> 24
            expected = next(self.inner.seq)
            if sequence != expected:
                raise MysqlError(f"Expected seq({expected}) got seq({sequence})", ErrorCode.MALFORMED_PACKET)
            if len(data) + length > self.max_allowed_packet:
                raise PacketTooLarge()
            if length == 0:
                return data
            data += await reader.readexactly(length)
            if length < 0xFFFFFF:
                return data


class IdleTimer:
    """``wait_timeout``: one timer for the connection, not one per command. Each wait for a
    command moves the deadline; the timer, when it fires early (the client spoke since), is
    armed again for the deadline, so a busy connection re-arms it about once per timeout."""

    def __init__(self, loop: asyncio.AbstractEventLoop, task: "asyncio.Task[None]") -> None:
        self.loop = loop
        self.task = task
        self.deadline: float | None = None
        self.handle: asyncio.TimerHandle | None = None
        self.fired = False

    def reading(self, timeout: float) -> None:
        """A wait for the client's next command starts: it may last ``timeout`` seconds."""
        self.deadline = deadline = self.loop.time() + timeout
        if self.handle is not None and self.handle.when() > deadline:  # the timeout was lowered
            self.handle.cancel()
            self.handle = None
        if self.handle is None:
            self.handle = self.loop.call_at(deadline, self._check)

    def busy(self) -> None:
        """The command arrived (or the wait ended otherwise): no deadline while it runs."""
        self.deadline = None

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _check(self) -> None:
        self.handle = None
        if self.deadline is None:
            return  # a command is running; the next wait arms the timer again
        if self.loop.time() < self.deadline:
            self.handle = self.loop.call_at(self.deadline, self._check)
            return
        self.fired = True
        self.task.cancel()
