"""``replfilter serve``'s listener: the sockets, the connections, the limits, the shutdown.

One asyncio event loop serves every connection, and a statement runs to its end inside the loop
(``Session.execute_text`` never awaits): statements of different connections are serialised
without a lock of their own, each is atomic (the Session swaps in the new state only when the
statement succeeded), and with ``--datadir`` the observer has written and fsynced the change
before the OK packet is queued. The Session's lock still guards against the Spark applier's
thread.

mysql-mimic's own ``MysqlServer`` is not used: its accept callback has no ``max_connections``
seen from the outside, no per-connection peer address (for 1045's ``'user'@'host'``), and no way
to close open connections on shutdown; this module is that callback with those three added.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import os
import socket
from dataclasses import dataclass, field
from ssl import SSLContext
from typing import Callable

from mysql_mimic.auth import IdentityProvider
from mysql_mimic.control import LocalControl

from ..server.session import Session
from .protocol import command_protocol_factory
from .connection import SERVER_SHUTDOWN, TOO_MANY_CONNECTIONS, Limits, ReplicaConnection, error_packet
from .packet_stream import LimitedStream


@dataclass(frozen=True)
class ListenSettings:
    bind_address: str = "127.0.0.1"
    port: int = 3306
    socket_path: str | None = None
    max_connections: int = 151
    limits: Limits = field(default_factory=Limits)
    ssl: SSLContext | None = None


class ReplicaListener:
    """Accepts clients for one replica; every connection gets its own Session on it."""

    def __init__(self, session: Session, identity: IdentityProvider, settings: ListenSettings,
                 log: Callable[[str], None] = lambda line: None) -> None:
        self.session = session
        self.log = log
        self.identity = identity
        self.settings = settings
        self._servers: list[asyncio.AbstractServer] = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)
        self._control = LocalControl()
        self.closing = False

    @property
    def connection_count(self) -> int:
        return len(self._writers)

    async def start(self) -> list[tuple[str, int] | str]:
        """Bind every listening socket; returns their addresses (the port a test asked 0 for)."""
        settings = self.settings
        loop = asyncio.get_running_loop()
        tcp = await loop.create_server(command_protocol_factory(self._accept), host=settings.bind_address,
                                       port=settings.port, reuse_address=True, backlog=max(128, settings.max_connections))
        self._servers.append(tcp)
        addresses: list[tuple[str, int] | str] = [s.getsockname()[:2] for s in tcp.sockets]
        if settings.socket_path:
            if os.path.exists(settings.socket_path) and _is_stale_socket(settings.socket_path):
                os.unlink(settings.socket_path)
            unix = await loop.create_unix_server(command_protocol_factory(self._accept), path=settings.socket_path)
            self._servers.append(unix)
            addresses.append(settings.socket_path)
        return addresses

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if self.closing:
            writer.close()
            return
        stream = LimitedStream(reader, writer, self.settings.limits.max_allowed_packet)
        if len(self._writers) >= self.settings.max_connections:
            await stream.write(error_packet(TOO_MANY_CONNECTIONS))
            writer.close()
            return
        self._writers.add(writer)
        if task is not None:
            self._tasks.add(task)
        peer = writer.get_extra_info("peername")
        local = not isinstance(peer, tuple)
        connection = ReplicaConnection(stream, self.session.connect(), self.identity, self._control,
                                       self.settings.ssl, self.settings.limits, _host_name(peer), local)
        connection.connection_id = next(self._ids)
        try:
            await connection.serve()
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # a bug must end this connection only, said in the log, not as a traceback
            self.log(f"[ERROR] connection {connection.connection_id}: {type(exc).__name__}: {exc}")
        finally:
            self._writers.discard(writer)
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def close(self) -> None:
        """Stop accepting, tell every client the server is going away (1053), close them all."""
        self.closing = True
        for server in self._servers:
            server.close()
        for writer in list(self._writers):
            try:
                writer.write(_shutdown_packet())
            except (ConnectionError, RuntimeError):
                pass
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        for server in self._servers:
            await server.wait_closed()
        if self.settings.socket_path and os.path.exists(self.settings.socket_path):
            os.unlink(self.settings.socket_path)


def event_loop_factory(ssl: SSLContext | None) -> Callable[[], asyncio.AbstractEventLoop]:
    """The event loop the listener runs on: uvloop's (libuv) where it is installed, which takes
    less of a short statement's CPU than asyncio's own (README, "replfilter serve", figures).
    With TLS configured, asyncio's own: a client sends its ClientHello right behind the
    SSLRequest, and only asyncio's transport can be told to read no further than that packet
    (``ReplicaConnection.serve``), which TLS needs to see the hello at all."""
    if ssl is None:
        try:
            import uvloop
        except ImportError:  # a platform without a uvloop wheel
            pass
        else:
            return uvloop.new_event_loop
    return asyncio.new_event_loop


def _shutdown_packet() -> bytes:
    """ER_SERVER_SHUTDOWN framed as the first packet of a reply (sequence 0)."""
    payload = error_packet(SERVER_SHUTDOWN)
    return len(payload).to_bytes(3, "little") + b"\x00" + payload


def _host_name(peer: object) -> str:
    """The host of ``'user'@'host'``: ``localhost`` for a Unix socket or a loopback address (as
    mysqld resolves them), else the client's address (as with ``skip_name_resolve``)."""
    if not isinstance(peer, tuple):
        return "localhost"
    try:
        if ipaddress.ip_address(peer[0]).is_loopback:
            return "localhost"
    except ValueError:
        pass
    return str(peer[0])


def _is_stale_socket(path: str) -> bool:
    """A socket file nobody listens on (a killed server's): mysqld removes it and goes on."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        return True
    finally:
        probe.close()
    return False
