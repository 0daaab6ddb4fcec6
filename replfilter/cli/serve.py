"""``replfilter serve``: the simulated replica on the MySQL client/server protocol.

The replica starts as every front-end starts it (:mod:`.startup`: startup options, option file,
``--datadir``, ``--schema``); then a listener (:mod:`replfilter.wire`) accepts clients until
SIGTERM or SIGINT. The server's own options come from the command line or, as mysqld reads them,
from the ``[mysqld]`` group of ``--defaults-file`` (``port``, ``bind-address``, ``socket``,
``max_connections``, ``wait_timeout``, ``max_allowed_packet``, ``ssl-cert``, ``ssl-key``,
``require_secure_transport``, ``skip-grant-tables``); the command line wins. Accounts:
:mod:`replfilter.wire.accounts`. No JVM starts here: Spark starts when a channel with a relay log
is started, as in the shell.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import signal
import ssl
import sys
from dataclasses import dataclass
from typing import Sequence, TextIO

from ..replica.option_files import read_option_file
from ..replica.startup_options import StartupError, canonical_option_name
from ..wire.accounts import CLIENT_GROUPS, AccountError, AccountProvider, Accounts, SkipGrantProvider, read_password_file
from ..wire.connection import Limits
from ..wire.listener import ListenSettings, ReplicaListener, event_loop_factory
from .startup import add_startup_arguments, install_applier_for, split_startup_arguments, start_with_schemas, startup_error_text

SERVER_OPTIONS = {
    "port": "port", "bind-address": "bind_address", "socket": "socket", "max-connections": "max_connections",
    "wait-timeout": "wait_timeout", "max-allowed-packet": "max_allowed_packet", "ssl-cert": "ssl_cert",
    "ssl-key": "ssl_key", "require-secure-transport": "require_secure_transport",
    "skip-grant-tables": "skip_grant_tables",
}
"""``[mysqld]`` option (canonical spelling) -> argument; the ones ``replfilter serve`` honours."""
SWITCHES = frozenset({"require_secure_transport", "skip_grant_tables"})
NUMBERS = frozenset({"port", "max_connections", "wait_timeout", "max_allowed_packet"})
DEFAULTS = {"port": 3306, "bind_address": "127.0.0.1", "max_connections": 151, "wait_timeout": 28800,
            "max_allowed_packet": 67108864, "require_secure_transport": False, "skip_grant_tables": False}
"""mysqld 8.4's defaults, except the address: loopback unless told otherwise."""


class ServeError(Exception):
    """A setting ``serve`` cannot start with; the message says which and why."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replfilter serve",
        description="Serve the simulated replica on the MySQL client/server protocol (mysql, mariadb, drivers).",
        epilog="Startup options (--replicate-*, --lower-case-table-names, --mysql-version) as for replfilter. "
               "[mysqld] options of --defaults-file: port, bind-address, socket, max_connections, wait_timeout, "
               "max_allowed_packet, ssl-cert, ssl-key, require_secure_transport, skip-grant-tables. "
               "Accounts: --user with --password-file, or user/password in [client] of --defaults-file.",
    )
    add_startup_arguments(parser)
    net = parser.add_argument_group("network")
    net.add_argument("--bind-address", metavar="ADDR", help="address to listen on (default 127.0.0.1)")
    net.add_argument("-P", "--port", type=int, help="TCP port (default 3306; 0 picks a free one)")
    net.add_argument("-S", "--socket", metavar="PATH", help="also listen on this Unix socket")
    net.add_argument("--max-connections", type=int, help="clients at once (default 151); one more gets 1040")
    net.add_argument("--wait-timeout", type=int, help="seconds an idle client is kept (default 28800)")
    net.add_argument("--max-allowed-packet", type=int, help="largest packet a client may send (default 64 MiB)")
    security = parser.add_argument_group("accounts and TLS")
    security.add_argument("-u", "--user", help="the account's user name (its password from --password-file)")
    security.add_argument("--password-file", metavar="FILE", help="the account's password: the file's first line")
    security.add_argument("-p", "--password", nargs="?", const="", help=argparse.SUPPRESS)
    security.add_argument("--skip-grant-tables", action="store_const", const=True,
                          help="any user, any password; listens on loopback only")
    security.add_argument("--ssl-cert", metavar="FILE", help="the server's TLS certificate (PEM)")
    security.add_argument("--ssl-key", metavar="FILE", help="the certificate's private key (PEM)")
    security.add_argument("--require-secure-transport", action="store_const", const=True,
                          help="refuse clients that connect over TCP without TLS (3159)")
    parser.add_argument("--master", metavar="URL", default=None, help="Spark master URL for START REPLICA (default local[*])")
    parser.add_argument("--applier-dir", metavar="DIR", default=None,
                        help="where START REPLICA's Spark applier writes (default DATADIR/applier with --datadir)")
    return parser


@dataclass(frozen=True)
class ServeOptions:
    bind_address: str
    port: int
    socket: str | None
    max_connections: int
    wait_timeout: int
    max_allowed_packet: int
    ssl_cert: str | None
    ssl_key: str | None
    require_secure_transport: bool
    skip_grant_tables: bool


def resolve_options(args: argparse.Namespace, warnings: list[str]) -> ServeOptions:
    """The command line over ``[mysqld]`` of the option file over mysqld's defaults."""
    values: dict[str, object] = dict(DEFAULTS)
    values.update(socket=None, ssl_cert=None, ssl_key=None)
    if args.defaults_file:
        for written, value in read_option_file(args.defaults_file):
            name, _loose = canonical_option_name(written)
            key = SERVER_OPTIONS.get(name)
            if key is not None:
                values[key] = _option_value(key, name, value)
    for key in list(values):
        given = getattr(args, key, None)
        if given is not None:
            values[key] = given
    options = ServeOptions(**values)  # type: ignore[arg-type]
    if options.skip_grant_tables and not _is_loopback(options.bind_address):
        warnings.append(f"--skip-grant-tables: listening on 127.0.0.1, not on '{options.bind_address}' "
                        "(no remote client may log in without a password)")
        options = ServeOptions(**{**values, "bind_address": "127.0.0.1"})  # type: ignore[arg-type]
    if not 0 <= options.port <= 65535:
        raise ServeError(f"port {options.port} is not a TCP port (0-65535)")
    if options.max_connections < 1:
        raise ServeError("max_connections must be at least 1")
    if (options.ssl_cert is None) != (options.ssl_key is None):
        raise ServeError("--ssl-cert and --ssl-key go together")
    if options.require_secure_transport and options.ssl_cert is None and options.socket is None:
        raise ServeError("Server is started with --require-secure-transport=ON but no secure transport "
                         "(SSL or a Unix socket) is configured.")
    return options


def _option_value(key: str, name: str, value: str | None) -> object:
    if key in SWITCHES:
        return value is None or value.upper() in ("1", "ON", "TRUE")
    if value is None:
        raise ServeError(f"option '{name}' in the option file needs a value")
    if key in NUMBERS:
        try:
            return int(value)
        except ValueError:
            raise ServeError(f"option '{name}' in the option file: '{value}' is not a number") from None
    return value


def _is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def read_accounts(args: argparse.Namespace, options: ServeOptions):  # type: ignore[no-untyped-def]
    """--user/--password-file, else ``[client]`` user/password of --defaults-file; none at all is
    an error unless --skip-grant-tables (no anonymous login otherwise)."""
    if args.password is not None:
        raise ServeError("a password is not taken on the command line (ps would show it): "
                         "use --password-file, or password in the [client] group of --defaults-file")
    if options.skip_grant_tables:
        return Accounts(None)
    if args.user is not None:
        if args.password_file is None:
            raise ServeError("--user needs --password-file")
        return Accounts.of({args.user: read_password_file(args.password_file)})
    if args.password_file is not None:
        raise ServeError("--password-file needs --user")
    if args.defaults_file:
        client = dict((canonical_option_name(n)[0], v) for n, v in read_option_file(args.defaults_file, CLIENT_GROUPS))
        if client.get("user"):
            return Accounts.of({client["user"]: client.get("password") or ""})  # type: ignore[dict-item]
    raise ServeError("no account to log in with: give --user with --password-file, user and password in the "
                     "[client] group of --defaults-file, or --skip-grant-tables")


def tls_context(options: ServeOptions) -> ssl.SSLContext | None:
    if options.ssl_cert is None:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(options.ssl_cert, options.ssl_key)
    except (OSError, ssl.SSLError) as exc:
        raise ServeError(f"Can't load the TLS certificate '{options.ssl_cert}' with key '{options.ssl_key}': "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    return context


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    startup_arguments, rest = split_startup_arguments(list(sys.argv[2:] if argv is None else argv))
    args = build_parser().parse_args(rest)
    warnings: list[str] = []
    try:
        options = resolve_options(args, warnings)
        accounts = read_accounts(args, options)
        context = tls_context(options)
    except StartupError as error:
        stderr.write(startup_error_text(error) + "\n")
        return 1
    except (ServeError, AccountError) as error:  # said as mysqld says a bad option
        stderr.write(f"replfilter: [ERROR] {error}\n")
        return 1
    for warning in warnings:
        stderr.write(f"replfilter: [Warning] {warning}\n")
    startup = start_with_schemas(startup_arguments, args, stderr)
    if startup is None:
        return 1
    applier = install_applier_for(startup, args)
    try:
        with asyncio.Runner(loop_factory=event_loop_factory(context)) as runner:
            return runner.run(_serve(startup.session, accounts, options, context, stderr))
    finally:
        applier.shutdown()  # channels applying with Spark stop at a batch boundary
        startup.close()  # the datadir's lock goes last: every acknowledged change is on disk


async def _serve(session, accounts, options: ServeOptions, context, stderr: TextIO) -> int:  # type: ignore[no-untyped-def]
    identity = SkipGrantProvider(accounts) if accounts.skip_grant_tables else AccountProvider(accounts)
    settings = ListenSettings(
        bind_address=options.bind_address, port=options.port, socket_path=options.socket,
        max_connections=options.max_connections, ssl=context,
        limits=Limits(max_allowed_packet=options.max_allowed_packet,
                      require_secure_transport=options.require_secure_transport),
    )
    listener = ReplicaListener(session, identity, settings, log=lambda line: _log(stderr, line))
    try:
        addresses = await listener.start()
    except OSError as exc:
        stderr.write(f"replfilter: [ERROR] Can't start server: Bind on {options.bind_address}:{options.port}"
                     f"{' or ' + options.socket if options.socket else ''}: {exc.strerror or exc}\n")
        return 1
    port = next((a[1] for a in addresses if isinstance(a, tuple)), options.port)
    variables = session.server_variables
    variables.update(port=port, max_connections=options.max_connections, max_allowed_packet=options.max_allowed_packet,
                     require_secure_transport=int(options.require_secure_transport),
                     have_ssl="YES" if context else "DISABLED")
    session.session_defaults["wait_timeout"] = options.wait_timeout
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    stderr.write(f"replfilter: ready for connections. Version: '{session.state.version.value}'  "
                 f"socket: '{options.socket or ''}'  port: {port}  bind-address: {options.bind_address}\n")
    stderr.flush()
    await stop.wait()
    stderr.write("replfilter: Received SHUTDOWN; closing connections\n")
    await listener.close()
    stderr.write("replfilter: Shutdown complete\n")
    stderr.flush()
    return 0



def _log(stderr: TextIO, line: str) -> None:
    stderr.write(f"replfilter: {line}\n")
    stderr.flush()
