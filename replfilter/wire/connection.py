"""One client connection of ``replfilter serve``: mysql-mimic speaks the protocol, our Session runs
every statement.

mysql-mimic (a kept library) does the handshake, the ``mysql_native_password`` scramble, TLS,
packet framing and the column and row encodings. Its higher ``Session`` would answer ``SHOW``,
``SET`` and ``information_schema`` itself through sqlglot; replfilter uses its ``BaseSession``
instead, so raw SQL goes to :class:`replfilter.server.session.Session`, the one place where
statements run, and every answer is the one a script or the shell gets.

What the connection adds to mimic's is what mysqld does and mimic does not (README, "replfilter
serve"): OK packets and EOFs with the statement's warning count; errors with our SQLSTATE;
multi-statements with ``SERVER_MORE_RESULTS_EXISTS``; a failed login closes the connection
(mimic would go on to the command phase); ``max_allowed_packet``, ``wait_timeout``,
``require_secure_transport``; garbage, a truncated packet or a bad sequence number end this
connection only.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass
from functools import lru_cache
from ssl import SSLContext
from typing import Any

from mysql_mimic import packets
from mysql_mimic.auth import IdentityProvider
from mysql_mimic.connection import Connection
from mysql_mimic.control import Control
from mysql_mimic.errors import ErrorCode, MysqlError
from mysql_mimic.prepared import PreparedStatement
from mysql_mimic.session import BaseSession
from mysql_mimic.stream import ConnectionClosed
from mysql_mimic.types import Capabilities, Commands, ServerStatus, str_fixed, uint_1, uint_2
from mysql_mimic.variables import GlobalVariables, SessionVariables

from ..core.errors import ER, MySQLError
from ..core.results import Ok, Result, ResultSet
from ..dialect.parser import split_multi_statements
from ..server.session import Session
from .columns import result_columns, result_header, wire_rows
from .packet_stream import IdleTimer, LimitedStream, PacketTooLarge
from .prepared import ParameterType, execute_parameters, prepare
from .replies import ReplyWriter

SERVER_CAPABILITIES = (
    Capabilities.CLIENT_PROTOCOL_41
    | Capabilities.CLIENT_DEPRECATE_EOF
    | Capabilities.CLIENT_CONNECT_WITH_DB
    | Capabilities.CLIENT_CONNECT_ATTRS
    | Capabilities.CLIENT_PLUGIN_AUTH
    | Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capabilities.CLIENT_SECURE_CONNECTION
    | Capabilities.CLIENT_LONG_PASSWORD
    | Capabilities.CLIENT_LONG_FLAG
    | Capabilities.CLIENT_TRANSACTIONS
    | Capabilities.CLIENT_INTERACTIVE
    | Capabilities.CLIENT_IGNORE_SPACE
    | Capabilities.CLIENT_MULTI_STATEMENTS
    | Capabilities.CLIENT_MULTI_RESULTS
    | Capabilities.CLIENT_PS_MULTI_RESULTS
)
"""What the server offers; the client's choice is the intersection (query attributes are not
offered: no statement of the dialect reads them)."""


# The errors the protocol itself sends (not a statement's), from the error catalogue.
BAD_HANDSHAKE = MySQLError.of(ER.HANDSHAKE_ERROR)
UNKNOWN_COMMAND = MySQLError.of(ER.UNKNOWN_COM_ERROR)
PACKET_TOO_LARGE = MySQLError.of(ER.NET_PACKET_TOO_LARGE)
PACKETS_OUT_OF_ORDER = MySQLError.of(ER.NET_PACKETS_OUT_OF_ORDER)
TOO_MANY_CONNECTIONS = MySQLError.of(ER.CON_COUNT_ERROR)
SERVER_SHUTDOWN = MySQLError.of(ER.SERVER_SHUTDOWN)
INACTIVITY = MySQLError.of(ER.CLIENT_INTERACTION_TIMEOUT)
INSECURE_TRANSPORT = MySQLError.of(ER.SECURE_TRANSPORT_REQUIRED)
MALFORMED_PACKET = MySQLError.of(ER.MALFORMED_PACKET)
_MIMIC_CODES = {ErrorCode.UNKNOWN_COM_ERROR: UNKNOWN_COMMAND, ErrorCode.HANDSHAKE_ERROR: BAD_HANDSHAKE}


def error_packet(error: MySQLError) -> bytes:
    """ERR_Packet with the ``#SQLSTATE`` marker (every client that gets this far speaks 4.1)."""
    message = error.message.encode("utf-8", "surrogateescape")
    return uint_1(0xFF) + uint_2(error.code) + str_fixed(1, b"#") + str_fixed(5, error.sqlstate.encode()) + message


@dataclass(frozen=True)
class Limits:
    """The server's per-connection limits (mysqld's variables of the same names)."""

    max_allowed_packet: int = 67108864
    connect_timeout: float = 10.0
    require_secure_transport: bool = False


AUTOCOMMIT = ServerStatus.SERVER_STATUS_AUTOCOMMIT
NO_STATUS = ServerStatus(0)
AUTOCOMMIT_BITS = int(AUTOCOMMIT)
MORE_RESULTS = int(ServerStatus.SERVER_MORE_RESULTS_EXISTS)
"""Status flags built once (mimic's compiled packets take the status as ServerStatus, extra
flags as an int)."""
COM_QUERY = int(Commands.COM_QUERY)
STATUS_CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_TRANSACTIONS
"""The capabilities that decide how OK and EOF packets carry the status and warnings."""


@lru_cache(maxsize=1024)
def ok_packet(capabilities: Capabilities, status: ServerStatus, affected_rows: int = 0, warnings: int = 0,
              more: int = 0, eof: bool = False) -> bytes:
    """OK_Packet (with ``eof``, the one that ends a result set under CLIENT_DEPRECATE_EOF), built
    once per values: a client repeats its statements, and mimic builds it field by field."""
    return packets.make_ok(capabilities=capabilities, status_flags=status, eof=eof, affected_rows=affected_rows,
                           warnings=warnings, flags=more)


@lru_cache(maxsize=1024)
def eof_packet(capabilities: Capabilities, status: ServerStatus, warnings: int = 0, more: int = 0) -> bytes:
    return packets.make_eof(capabilities=capabilities, status_flags=status, warnings=warnings, flags=more)


SSL_REQUEST_BYTES = 4 + 32
"""An SSLRequest packet: header and payload (capabilities, max packet, character set, filler)."""


class ShortPathFailure(Exception):
    """An unexpected error of a command answered the short way (:meth:`ReplicaConnection._short_command`),
    raised where the command loop reads: none of the read's own handlers (a malformed packet's
    1156, a closed connection) takes it, so the connection ends and the listener logs it, as a
    failure inside the loop does."""


class LoginRefused(Exception):
    """Authentication failed; the 1045 is already sent and the connection ends, as in mysqld."""


class ReplicaSession(BaseSession):
    """mysql-mimic's session interface over our :class:`Session`: mimic keeps the handshake's
    variables (character set, version); statements, ``USE`` and resets go to ours."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.variables = SessionVariables(GlobalVariables())
        self.variables.set("version", session.state.version.value, force=True)
        self.username: str | None = None
        self.database: str | None = None

    async def use(self, database: str) -> None:
        self.session.use_database(database)

    async def reset(self) -> None:
        self.session.reset_connection()


class ReplicaConnection(Connection):
    """One client, from handshake to COM_QUIT."""

    def __init__(self, stream: LimitedStream, session: Session, identity: IdentityProvider, control: Control,
                 ssl: SSLContext | None, limits: Limits, peer_host: str, local: bool) -> None:
        super().__init__(stream=stream, session=ReplicaSession(session), control=control,
                         identity_provider=identity, server_capabilities=SERVER_CAPABILITIES, ssl=ssl)
        self.replica = session
        self.limits = limits
        self.peer_host = peer_host
        self.local = local
        """A Unix socket: secure transport, as mysqld counts it."""
        self.status_flags = ServerStatus.SERVER_STATUS_AUTOCOMMIT
        self._used_password = False
        self.secure = False
        self._placeholders: dict[int, tuple[int, ...]] = {}
        """Each prepared statement's ``?`` positions in its text."""
        self._parameter_types: dict[int, tuple[ParameterType, ...]] = {}
        """Each statement's parameter types at its last execution: a COM_STMT_EXECUTE with the
        new-params-bound flag 0 reuses them, as mysqld does."""
        self._long_data: dict[int, dict[int, bytearray]] = {}
        """COM_STMT_SEND_LONG_DATA's data per statement and parameter, until its next execution."""
        self._long_data_errors: dict[int, MySQLError] = {}
        """A long-data packet mysqld refused (a parameter the statement has not): every execution
        reports it until COM_STMT_RESET, as ``mysql_stmt_precheck`` puts the statement in
        STMT_ERROR and ``execute_loop`` checks it (sql_prepare.cc)."""

    # ---- the connection's life
    async def serve(self) -> None:
        """Handshake, then commands until the client quits or a limit ends the connection."""
        transport = self.stream.writer.transport
        if self.ssl is not None:
            # A client sends its TLS ClientHello right after the SSLRequest packet: read no further
            # than that packet, or the hello lands in the plain stream's buffer, where TLS never
            # sees it (mimic's start_tls hands over the transport only), and the login hangs.
            transport.max_size = SSL_REQUEST_BYTES  # type: ignore[attr-defined]
        self._plain_transport = transport
        try:
            try:
                await asyncio.wait_for(self.connection_phase(), self.limits.connect_timeout)
            except LoginRefused:
                return
            except PacketTooLarge:
                await self.send_error(PACKET_TOO_LARGE)
                return
            except (ConnectionClosed, asyncio.IncompleteReadError, ConnectionError, asyncio.TimeoutError):
                return
            except Exception:  # garbage where the handshake response should be
                await self.send_error(BAD_HANDSHAKE)
                return
            if Capabilities.CLIENT_INTERACTIVE in self.capabilities:
                # mysqld: an interactive client's wait_timeout is interactive_timeout
                variables = self.replica.variables
                variables.set("wait_timeout", variables.values["interactive_timeout"])
            if self.session.database:
                try:
                    self.replica.use_database(self.session.database)
                except MySQLError as error:
                    await self.send_error(error)
                    return
            await self.commands()
        except (ConnectionClosed, asyncio.IncompleteReadError, ConnectionError):
            return

    async def commands(self) -> None:
        task = asyncio.current_task()
        assert task is not None
        timer = IdleTimer(asyncio.get_running_loop(), task)
        self._reply_capabilities = self.capabilities & STATUS_CAPABILITIES
        self._deprecate_eof = Capabilities.CLIENT_DEPRECATE_EOF in self.capabilities
        self._multi_statements = Capabilities.CLIENT_MULTI_STATEMENTS in self.capabilities
        self._results_charset = self.server_charset
        """mimic's ``character_set_results``, which the handshake settles; mimic reads it from its
        session variables on every use (the statements' SET NAMES are our Session's)."""
        self._replies = ReplyWriter(self.stream.inner, self.capabilities, self._results_charset)
        self._timer = timer
        self.stream.on_command = self._short_command
        try:
            await self._command_loop(timer, task)
        finally:
            self.stream.on_command = None
            timer.cancel()

    async def _command_loop(self, timer: "IdleTimer", task: "asyncio.Task[None]") -> None:
        while True:
            timer.reading(float(self.replica.variables.values["wait_timeout"]))  # type: ignore[arg-type]
            try:
                data = await self.stream.read()
            except asyncio.CancelledError:
                if not timer.fired:
                    raise  # the server is shutting down
                task.uncancel()
                self.stream.reset_seq()
                await self.send_error(INACTIVITY)
                return
            except PacketTooLarge:
                await self.send_error(PACKET_TOO_LARGE)
                return
            except MysqlError:
                await self.send_error(PACKETS_OUT_OF_ORDER)
                return
            except ConnectionClosed:
                return
            finally:
                timer.busy()
            try:
                if data and data[0] == COM_QUERY:  # first: nearly every command is one
                    await self.handle_query(data[1:])
                elif not data:
                    await self.send_error(UNKNOWN_COMMAND)
                elif data[0] == Commands.COM_QUIT:
                    return
                elif data[0] == Commands.COM_INIT_DB:
                    await self.init_db(data[1:])
                elif data[0] == Commands.COM_RESET_CONNECTION:
                    self.replica.reset_connection()
                    self.forget_statements()
                    self.status_flags = ServerStatus.SERVER_STATUS_AUTOCOMMIT
                    await self.stream.write(self.ok())
                elif data[0] == Commands.COM_CHANGE_USER:
                    await self.change_user(data[1:])
                elif data[0] == Commands.COM_STMT_PREPARE:
                    await self.prepare(data[1:])
                elif data[0] == Commands.COM_STMT_EXECUTE:
                    await self.execute_prepared(data[1:])
                elif data[0] == Commands.COM_STMT_CLOSE:
                    self.forget_statement(int.from_bytes(data[1:5], "little"))  # no reply, as in mysqld
                elif data[0] == Commands.COM_STMT_RESET:
                    await self.reset_statement(int.from_bytes(data[1:5], "little"))
                elif data[0] in (Commands.COM_PING, Commands.COM_DEBUG):
                    await self.stream.write(self.ok())
                elif data[0] == Commands.COM_STMT_SEND_LONG_DATA:
                    self.send_long_data(data[1:])  # no reply, as in mysqld
                else:
                    await self.send_error(UNKNOWN_COMMAND)
            except LoginRefused:
                return
            finally:
                self.stream.reset_seq()

    # ---- authentication
    async def authenticate(self, username: str, auth_response: bytes, client_plugin_name: str | None,
                           connect_attrs: dict[str, str], auth_state: Any = None, server_plugin: Any = None) -> None:
        """mimic's authentication; a refusal ends the connection (mysqld closes it)."""
        self.secure = self.stream.writer.get_extra_info("ssl_object") is not None
        if self.ssl is not None:
            vars(self._plain_transport).pop("max_size", None)  # back to asyncio's read size
        if self.limits.require_secure_transport and not (self.secure or self.local):
            await self.send_error(INSECURE_TRANSPORT)  # instead of the OK, as acl_authenticate does
            raise LoginRefused(username)
        self.session.username = None
        self._used_password = bool(auth_response)
        await super().authenticate(username, auth_response, client_plugin_name, connect_attrs, auth_state, server_plugin)
        if self.session.username is None:
            raise LoginRefused(username)

    def error(self, **kwargs: Any) -> bytes:
        """Errors mimic itself sends (a refused login, a bad handshake), in 8.4's words."""
        code = kwargs.get("code")
        if code == ErrorCode.ACCESS_DENIED_ERROR:
            user = str(self.session.variables.get("external_user") or "")
            return error_packet(MySQLError.of(ER.ACCESS_DENIED_ERROR, user, self.peer_host,
                                              "YES" if self._used_password else "NO"))
        return error_packet(_MIMIC_CODES.get(code, BAD_HANDSHAKE))  # type: ignore[arg-type]

    async def change_user(self, data: bytes) -> None:
        """COM_CHANGE_USER: mimic re-authenticates; the session starts afresh (reset), and the
        database the packet names becomes the default one."""
        database = self.session.database
        await self.handle_change_user(data)
        self.forget_statements()
        self.status_flags = ServerStatus.SERVER_STATUS_AUTOCOMMIT
        if self.session.database and self.session.database != database:
            try:
                self.replica.use_database(self.session.database)
            except MySQLError:
                pass  # mysqld keeps the login and reports nothing more for the database here

    async def init_db(self, data: bytes) -> None:
        try:
            self.replica.use_database(data.decode("utf-8", "surrogateescape"))
        except MySQLError as error:
            await self.send_error(error)
            return
        await self.stream.write(self.ok())

    async def prepare(self, data: bytes) -> None:
        """COM_STMT_PREPARE: the text is parsed now, so a statement the server would refuse to
        prepare gets its refusal here (1064, 1235, 1295...). A ``?`` may stand where 8.4 takes
        one: in a SELECT on the filter tables (:mod:`.prepared`); the replication statements take
        literals only, so there it is the parser's 1064. The OK carries the prepare's warning
        count, one definition per parameter, and a SELECT's column definitions, as
        ``send_statement`` (``sql_prepare.cc``) sends them."""
        text = data.decode("utf-8", "surrogateescape")
        try:
            described = prepare(self.replica, text)
        except MySQLError as error:
            await self.send_error(error)
            return
        positions = described.positions
        statement = PreparedStatement(stmt_id=next(self.prepared_stmt_seq), sql=text, num_params=len(positions))
        self.prepared_stmts[statement.stmt_id] = statement
        self._placeholders[statement.stmt_id] = positions
        columns: tuple[bytes, ...] = ()
        if described.shape is not None:
            columns = result_header(described.shape, self._results_charset, self.capabilities).packets[1:]
        reply = [struct.pack("<BIHHBH", 0, statement.stmt_id, len(columns), len(positions), 0,
                             min(described.warnings, 0xFFFF))]
        for definitions in ([packets.make_column_definition_41(server_charset=self.server_charset, name="?")]
                            * len(positions), list(columns)):
            if definitions:
                reply += definitions
                if not self._deprecate_eof:
                    reply.append(eof_packet(self._reply_capabilities, self.status_flags))
        self.stream.write_many(reply)
        await self.stream.drain()

    def send_long_data(self, data: bytes) -> None:
        """COM_STMT_SEND_LONG_DATA: the chunk is appended to the parameter's data, which the
        statement's next execution binds. As ``mysql_stmt_precheck``: no reply ever; an unknown
        statement is ignored; a parameter the statement has not puts it in error (1210), reported
        by its executions until COM_STMT_RESET."""
        if len(data) < 6:
            return
        stmt_id, parameter = int.from_bytes(data[:4], "little"), int.from_bytes(data[4:6], "little")
        if stmt_id not in self.prepared_stmts:
            return
        if parameter >= len(self._placeholders.get(stmt_id, ())):
            self._long_data_errors[stmt_id] = MySQLError.of(ER.WRONG_ARGUMENTS, "mysql_stmt_precheck")
            return
        self._long_data.setdefault(stmt_id, {}).setdefault(parameter, bytearray()).extend(data[6:])

    async def reset_statement(self, stmt_id: int) -> None:
        """COM_STMT_RESET: the statement's long data and pending error are dropped (its types are
        kept, as mysqld keeps them); an unknown id is 1243."""
        if stmt_id not in self.prepared_stmts:
            await self.send_error(MySQLError.of(ER.UNKNOWN_STMT_HANDLER, stmt_id, "mysql_stmt_precheck"))
            return
        self._long_data.pop(stmt_id, None)
        self._long_data_errors.pop(stmt_id, None)
        await self.stream.write(self.ok())

    def forget_statement(self, stmt_id: int) -> None:
        for held in (self.prepared_stmts, self._placeholders, self._parameter_types, self._long_data,
                     self._long_data_errors):
            held.pop(stmt_id, None)

    def forget_statements(self) -> None:
        """COM_RESET_CONNECTION and COM_CHANGE_USER deallocate every prepared statement, as
        ``THD::cleanup_connection`` does: an old id is then 1243."""
        for stmt_id in list(self.prepared_stmts):
            self.forget_statement(stmt_id)

    async def execute_prepared(self, data: bytes) -> None:
        """COM_STMT_EXECUTE: the statement runs as its text would, the values bound in place of
        its ``?``; rows in the binary protocol."""
        stmt_id = int.from_bytes(data[:4], "little")
        statement = self.prepared_stmts.get(stmt_id)
        if statement is None:
            await self.send_error(MySQLError.of(ER.UNKNOWN_STMT_HANDLER, stmt_id, "mysql_stmt_precheck"))
            return
        positions = self._placeholders.get(stmt_id, ())
        long_data = self._long_data.pop(stmt_id, {})  # used by this execution only, as mysqld resets it
        values: tuple[Any, ...] | None = None
        if positions:
            try:
                bound = execute_parameters(self.capabilities, self.client_charset, data, len(positions),
                                           self._parameter_types.get(stmt_id, ()), long_data)
            except MySQLError as error:
                await self.send_error(error)
                return
            except Exception:  # a packet whose parameters cannot be read: the server's answer to a malformed one
                await self.send_error(MALFORMED_PACKET)
                return
            self._parameter_types[stmt_id] = bound.types
            values = bound.values
        refused = self._long_data_errors.get(stmt_id)  # checked after the parameters, as execute_loop is
        if refused is not None:
            await self.send_error(refused)
            return
        try:
            result = self.replica.execute_text(statement.sql, values)
        except MySQLError as error:
            await self.send_error(error)
            return
        if isinstance(result, Ok):
            self.send_result(result, 0)
            await self.stream.drain()
            return
        columns = [c.column for c in result_columns(result)]
        self._send_header(result_header(result, self._results_charset, self.capabilities).packets)
        self.stream.write_many([packets.make_binary_resultrow(row, columns) for row in wire_rows(result)])
        self.stream.write_many([self._end_of_rows(min(len(result.warnings), 0xFFFF), 0)])
        await self.stream.drain()

    # ---- statements
    async def handle_query(self, data: bytes) -> None:
        self._answer_query(data)
        await self.stream.drain()

    def _answer_query(self, data: bytes) -> None:
        """COM_QUERY: one statement, or with CLIENT_MULTI_STATEMENTS each ``;``-separated one in
        turn, stopping at the first error as mysqld does; the reply into the stream's buffer."""
        text = data.decode("utf-8", "surrogateescape")
        if not self._multi_statements:
            statements = [text]
        else:
            statements = split_multi_statements(text, self.replica.state.version)
        last = len(statements) - 1
        for index, statement in enumerate(statements):
            try:
                result = self.replica.execute_text(statement)
            except MySQLError as error:
                self.stream.write_many([error_packet(error)])
                return
            self.send_result(result, MORE_RESULTS if index < last else 0)

    def _short_command(self, data: bytes) -> bool:
        """A chunk the transport received while the command loop waits (:mod:`.protocol`): when
        it is exactly one whole COM_QUERY packet, numbered 0 and within ``max_allowed_packet``,
        it is answered here as the loop would answer it, the reply written to the transport and
        the idle timer moved; anything else is left to the loop (False). An unexpected error is
        raised where the loop waits, as if the command had run there."""
        if len(data) < 5 or data[4] != COM_QUERY or data[3] != 0:
            return False
        length = int.from_bytes(data[:3], "little")
        stream = self.stream
        if (length != len(data) - 4 or length >= 0xFFFFFF or length > stream.max_allowed_packet
                or stream.inner.seq.value != 0 or stream.inner.writer.transport.is_closing()
                or self._timer.fired):  # the idle timeout has cancelled the task: nothing more runs
            return False
        stream.inner.seq.value = 1  # the request was packet 0
        try:
            self._answer_query(data[5:])
            stream.flush()
        except Exception as error:  # a bug: no more commands here; the task ends with it, logged
            stream.on_command = None
            stream.inner._buffer = bytearray()  # no half-built reply goes out
            stream.inner.reader.set_exception(ShortPathFailure(error))
            return False
        finally:
            stream.reset_seq()
        self._timer.reading(float(self.replica.variables.values["wait_timeout"]))  # type: ignore[arg-type]
        return True

    def send_result(self, result: Result, more: int) -> None:
        """OK, or the result set, into the stream's buffer (:mod:`.replies`); the warning count is
        the conditions this statement raised (0 for SHOW WARNINGS, which lists the previous
        statement's and raises none, as in mysqld)."""
        if self.replica.variables.values["autocommit"]:
            self.status_flags, status = AUTOCOMMIT, AUTOCOMMIT_BITS
        else:
            self.status_flags, status = NO_STATUS, 0
        warnings = min(len(result.warnings), 0xFFFF)
        if result.__class__ is Ok:
            self._replies.ok(status, result.affected_rows, warnings, more)  # type: ignore[union-attr]
            return
        assert isinstance(result, ResultSet)
        self._replies.result_set(result, status, warnings, more)

    def _send_header(self, header: tuple[bytes, ...]) -> None:
        """The column count and definitions; without CLIENT_DEPRECATE_EOF, the EOF after them."""
        self.stream.write_many(header)
        if not self._deprecate_eof:
            self.stream.write_many([eof_packet(self._reply_capabilities, self.status_flags)])

    def _end_of_rows(self, warnings: int, more: int) -> bytes:
        if self._deprecate_eof:
            return ok_packet(self._reply_capabilities, self.status_flags, 0, warnings, more, eof=True)
        return eof_packet(self._reply_capabilities, self.status_flags, warnings, more)

    async def send_error(self, error: MySQLError) -> None:
        await self.stream.write(error_packet(error))
