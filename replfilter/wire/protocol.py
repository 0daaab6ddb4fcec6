"""The transport's protocol for a ``replfilter serve`` connection: asyncio's stream protocol, with
a short way for the common command.

A connection waiting for its next command is a task parked in ``StreamReader.read``. With the
stream protocol alone, a short COM_QUERY costs the event loop a round of Python: the reader's
``feed_data``, the waiter's future, the task's wake-up, ``read`` and ``readexactly`` copying the
packet out of the reader's buffer, then the coroutine frames of the command loop; and each of
those runs cold, after the client's turn. While the task waits at a packet boundary, the
connection arms :attr:`CommandProtocol.command`: a chunk of bytes that is exactly one whole
command packet is then answered from ``data_received`` itself, the reply written to the
transport there, and the task stays parked (README, "replfilter serve", "Cost of the wire").
Anything else (part of a packet, several packets, a paused transport) goes to the reader as
before, and disarms the short way until the task waits again.
"""

from __future__ import annotations

import asyncio
from typing import Callable


class CommandProtocol(asyncio.StreamReaderProtocol):
    """asyncio's stream protocol with :attr:`command`, the connection's handler for one whole
    packet, set only while its task waits for a command at a packet boundary."""

    def __init__(self, reader: asyncio.StreamReader, connected: Callable[..., object],
                 loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(reader, connected, loop=loop)
        self.command: Callable[[bytes], bool] | None = None
        """Answers one packet (the chunk as received) and says whether it did; None: feed the
        reader."""
        self.writing_paused = False
        """The transport's buffer is over its high-water mark (the client reads no replies): no
        short way, so the task's ``drain`` waits as it did."""

    def data_received(self, data: bytes) -> None:
        command = self.command
        if command is not None:
            if not self.writing_paused and command(data):
                return
            self.command = None  # the task takes it from here, and arms again at its next wait
        super().data_received(data)

    def pause_writing(self) -> None:
        self.writing_paused = True
        super().pause_writing()

    def resume_writing(self) -> None:
        self.writing_paused = False
        super().resume_writing()


def command_protocol_factory(connected: Callable[..., object],
                             limit: int = 2 ** 16) -> Callable[[], CommandProtocol]:
    """What ``asyncio.start_server`` builds for each client (a reader, the protocol, the
    callback with the reader and writer), with :class:`CommandProtocol`."""
    loop = asyncio.get_running_loop()

    def factory() -> CommandProtocol:
        return CommandProtocol(asyncio.StreamReader(limit=limit, loop=loop), connected, loop)

    return factory
