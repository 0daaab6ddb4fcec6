"""``replfilter serve`` driven by real clients: Debian's ``mariadb``, PyMySQL and mysql-connector.

Every answer over the wire must be the one a script gets from ``replfilter`` itself (the same
Session runs both), so the client's output is compared with replfilter's own for the same
statements. Limits and security are checked as a client meets them: 1045, 1040, 4031, 1153, a
garbage handshake, TLS. Each test uses its own channel names on a shared server, or its own
server when it needs its own options.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import datetime
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pymysql
import pytest

from serve_process import PASSWORD, USER, ServeProcess

pytestmark = pytest.mark.e2e
MARIADB = shutil.which("mariadb")
needs_mariadb = pytest.mark.skipif(MARIADB is None, reason="the mariadb client (Debian's mariadb-client) is not installed")

README_EXAMPLE = """\
CHANGE REPLICATION SOURCE TO SOURCE_HOST='source-1' FOR CHANNEL 'ch_1';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='source-2' FOR CHANNEL 'ch_2';
START REPLICA;
CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1);
STOP REPLICA SQL_THREAD;
CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1);
CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (db1.t2), REPLICATE_REWRITE_DB = ((db9, db1)) FOR CHANNEL 'ch_2';
SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_filters;
"""
STARTUP = "--replicate-wild-ignore-table=%.tmp\\_%"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    process = ServeProcess(tmp_path_factory.mktemp("serve"), STARTUP)
    yield process
    assert process.stop() == 0


@pytest.fixture
def fresh_server(tmp_path: Path):
    """A server of its own, for tests whose statements touch every channel."""
    process = ServeProcess(tmp_path, STARTUP)
    yield process
    process.stop()


def replfilter(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replfilter", STARTUP, *args], capture_output=True, text=True, timeout=60)


def _error_lines(text: str) -> list[str]:
    """The ERROR lines (the mariadb client also echoes a failed statement between dashes)."""
    return [line for line in text.splitlines() if line.startswith("ERROR")]


# ---- the mariadb client --------------------------------------------------------------------------


@needs_mariadb
def test_mariadb_batch_script_prints_what_replfilter_prints(fresh_server: ServeProcess, tmp_path: Path):
    script = tmp_path / "example.sql"
    script.write_text(README_EXAMPLE)
    over_wire = fresh_server.mariadb("--force", "-t", stdin=README_EXAMPLE)
    local = replfilter("--force", "-t", str(script))
    assert over_wire.stdout == local.stdout
    assert _error_lines(over_wire.stderr) == _error_lines(local.stderr) == [
        "ERROR 3085 (HY000) at line 4: This operation cannot be performed with a running replica sql thread; "
        "run STOP REPLICA SQL_THREAD FOR CHANNEL 'ch_1' first."]


@needs_mariadb
def test_mariadb_vertical_output_matches_replfilter(server: ServeProcess):
    setup = ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='eu', SOURCE_PORT=3307 FOR CHANNEL 'vert'; "
             "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales), REPLICATE_REWRITE_DB = ((a, b)) FOR CHANNEL 'vert';")
    query = "SHOW REPLICA STATUS FOR CHANNEL 'vert'\\G"
    over_wire = server.mariadb("-e", setup + query)
    local = replfilter("-e", setup + query)
    assert over_wire.returncode == local.returncode == 0, over_wire.stderr
    assert over_wire.stdout == local.stdout
    assert "Replicate_Rewrite_DB: (a,b)" in over_wire.stdout


@needs_mariadb
def test_mariadb_errors_and_warnings(server: ServeProcess):
    failed = server.mariadb("-e", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) FOR CHANNEL 'missing'")
    assert failed.returncode == 1
    local = replfilter("-e", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) FOR CHANNEL 'missing'")
    assert _error_lines(failed.stderr) == _error_lines(local.stderr) != []
    warned = server.mariadb("--show-warnings", "-e",
                            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PASSWORD='pw' FOR CHANNEL 'warn'")
    assert "Note (Code 1759): Sending passwords in plain text without SSL/TLS is extremely insecure." in warned.stdout


@needs_mariadb
def test_mariadb_wrong_password_is_1045(server: ServeProcess):
    refused = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{server.port}", f"-u{USER}", "-pwrong", "-e", "SHOW WARNINGS"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 1
    assert refused.stderr.strip() == f"ERROR 1045 (28000): Access denied for user '{USER}'@'localhost' (using password: YES)"


# ---- drivers ---------------------------------------------------------------------------------------


def _driver_connection(driver: str, server: ServeProcess):  # type: ignore[no-untyped-def]
    if driver == "pymysql":
        return server.connect(), pymysql.err.MySQLError
    connector = pytest.importorskip("mysql.connector")
    return (connector.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD, use_pure=True),
            connector.Error)


@pytest.mark.parametrize("driver", ["pymysql", "mysql-connector"])
def test_drivers_run_the_worked_example(fresh_server: ServeProcess, driver: str):
    connection, driver_error = _driver_connection(driver, fresh_server)
    errors = []
    cursor = connection.cursor()
    for statement in README_EXAMPLE.strip().splitlines():
        try:
            cursor.execute(statement.rstrip(";"))
        except driver_error as error:
            errors.append((error.args[0] if driver == "pymysql" else error.errno))
    rows = [tuple(row) for row in cursor.fetchall()]
    assert errors == [3085]
    assert rows == [
        ("ch_1", "REPLICATE_DO_DB", "db1", "CHANGE_REPLICATION_FILTER"),
        ("ch_1", "REPLICATE_WILD_IGNORE_TABLE", "%.tmp\\_%", "STARTUP_OPTIONS"),
        ("ch_2", "REPLICATE_DO_DB", "db1", "CHANGE_REPLICATION_FILTER"),
        ("ch_2", "REPLICATE_IGNORE_TABLE", "db1.t2", "CHANGE_REPLICATION_FILTER_FOR_CHANNEL"),
        ("ch_2", "REPLICATE_WILD_IGNORE_TABLE", "%.tmp\\_%", "STARTUP_OPTIONS"),
        ("ch_2", "REPLICATE_REWRITE_DB", "(db9,db1)", "CHANGE_REPLICATION_FILTER_FOR_CHANNEL"),
    ]
    connection.close()


def test_pymysql_errors_warnings_types_and_commands(server: ServeProcess):
    connection = server.connect(database="anydb", client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    cursor = connection.cursor()
    with pytest.raises(pymysql.err.ProgrammingError) as caught:
        cursor.execute("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) FOR CHANNEL")
    assert caught.value.args[0] == 1064
    cursor.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PASSWORD='pw' FOR CHANNEL 'py'")
    assert [w[1] for w in connection.show_warnings()] == [1759, 1760]
    cursor.execute("SELECT COUNTER FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME = 'py'")
    assert cursor.description[0][:2] == ("COUNTER", pymysql.constants.FIELD_TYPE.LONGLONG)
    assert cursor.fetchall() == ((0,),)
    # multi-statements: a result per statement; the first error ends the batch
    cursor.execute("SELECT @@version_comment LIMIT 1; SHOW COUNT(*) WARNINGS")
    assert cursor.fetchall() == (("replfilter: a simulated MySQL replica",),)
    assert cursor.nextset() and cursor.fetchall() == ((0,),)
    with pytest.raises(pymysql.err.OperationalError) as caught:
        cursor.execute("SET autocommit = 1; SET nonesuch = 1; SET autocommit = 0")
        while cursor.nextset():
            pass
    assert caught.value.args == (1193, "Unknown system variable 'nonesuch'")
    cursor.execute("SELECT @@autocommit")
    assert cursor.fetchall() == ((1,),)  # the statement after the error never ran
    connection.ping(reconnect=False)
    connection.select_db("otherdb")  # COM_INIT_DB
    connection.close()  # COM_QUIT


def test_mysql_connector_errors_warnings_reset_change_user_prepared(server: ServeProcess):
    mysql_connector = pytest.importorskip("mysql.connector")
    connection = mysql_connector.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                                         use_pure=True, get_warnings=True)
    cursor = connection.cursor()
    with pytest.raises(mysql_connector.Error) as caught:
        cursor.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_DELAY = 4294967296 FOR CHANNEL 'mc'")
    assert (caught.value.errno, caught.value.sqlstate) == (1729, "HY000")
    cursor.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PASSWORD='pw' FOR CHANNEL 'mc'")
    assert [w[1] for w in cursor.warnings] == [1759, 1760]
    cursor.execute("SET SESSION sql_mode = 'ANSI_QUOTES'")
    connection.cmd_reset_connection()  # COM_RESET_CONNECTION: the session's variables are back to defaults
    cursor = connection.cursor()
    cursor.execute("SELECT @@sql_mode")
    assert cursor.fetchall()[0][0].startswith("ONLY_FULL_GROUP_BY,")
    old = connection.cmd_stmt_prepare(b"SELECT @@sql_mode")["statement_id"]
    connection.cmd_change_user(username=USER, password=PASSWORD)  # deallocates the statements
    with pytest.raises(mysql_connector.Error) as caught:
        connection.cmd_stmt_execute(old)
    assert (caught.value.errno, caught.value.msg) == (
        1243, f"Unknown prepared statement handler ({old}) given to mysql_stmt_precheck")
    prepared = connection.cursor(prepared=True)
    prepared.execute("SELECT FILTER_NAME, COUNTER FROM performance_schema.replication_applier_filters "
                     "WHERE CHANNEL_NAME = 'mc'")
    assert prepared.fetchall() == [("REPLICATE_WILD_IGNORE_TABLE", 0)]
    # a ? where 8.4 takes an expression: the filter tables' WHERE; each value binds as itself
    query = ("SELECT FILTER_NAME, COUNTER FROM performance_schema.replication_applier_filters "
             "WHERE CHANNEL_NAME = ? AND COUNTER = ? AND FILTER_NAME <> '?'")
    prepared.execute(query, ("mc", 0))
    assert prepared.fetchall() == [("REPLICATE_WILD_IGNORE_TABLE", 0)]
    for value in ("it's", "mc' OR 'a' = 'a", "mc\\"):
        prepared.execute(query, (value, 0))
        assert prepared.fetchall() == []
    # numbers compare as MySQL's (a double, a DECIMAL); TIME and DATE values bind as their text
    counter_query = "SELECT FILTER_NAME FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME = 'mc' AND COUNTER = ?"
    for value, rows in ((1.5, []), (0.0, [("REPLICATE_WILD_IGNORE_TABLE",)]), (Decimal("0.5"), []),
                        (Decimal("0.000"), [("REPLICATE_WILD_IGNORE_TABLE",)]), (float("inf"), []),
                        (datetime.timedelta(days=-1, hours=1), []), (datetime.date(2020, 1, 2), [])):
        prepared.execute(counter_query, (value,))
        assert prepared.fetchall() == rows, value
    with pytest.raises(mysql_connector.Error) as caught:
        prepared.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST = ? FOR CHANNEL 'mc'", ("x",))
    assert caught.value.errno == 1064  # the dialect's statements take no placeholder, as in sql_yacc.yy
    connection.close()


# ---- limits and security ---------------------------------------------------------------------------


def test_unknown_user_and_wrong_password_are_the_same_1045(server: ServeProcess):
    for user, password in (("nobody", PASSWORD), (USER, "wrong"), (USER, "")):
        with pytest.raises(pymysql.err.OperationalError) as caught:
            server.connect(user=user, password=password)
        using = "YES" if password else "NO"
        assert caught.value.args == (1045, f"Access denied for user '{user}'@'localhost' (using password: {using})")


def test_garbage_truncated_and_oversized_packets_end_that_connection_only(tmp_path: Path):
    server = ServeProcess(tmp_path, "--max-allowed-packet", "4096")
    try:
        survivor = server.connect()
        with socket.create_connection(("127.0.0.1", server.port)) as raw:
            raw.recv(4096)  # the handshake
            raw.sendall(struct.pack("<I", 5 | (1 << 24)) + b"\xff\xfe\xfd\xfc\xfb")
            reply = raw.recv(4096)
            assert reply[4] == 0xFF and struct.unpack("<H", reply[5:7])[0] == 1043  # Bad handshake
        with socket.create_connection(("127.0.0.1", server.port)) as raw:
            raw.recv(4096)
            raw.sendall(struct.pack("<I", 200 | (1 << 24)) + b"\x01\x02")  # announces 200 bytes, sends 2
        big = server.connect()
        with pytest.raises(pymysql.err.MySQLError) as caught:
            big.cursor().execute("SELECT @@version -- " + "x" * 8000)
        assert caught.value.args[0] in (1153, 2013)  # the error, or the closed connection the client saw first
        cursor = survivor.cursor()
        cursor.execute("SELECT @@max_allowed_packet")
        assert cursor.fetchall() == ((4096,),)
    finally:
        server.stop()


def test_max_connections_and_wait_timeout(tmp_path: Path):
    server = ServeProcess(tmp_path, "--max-connections", "2", "--wait-timeout", "1")
    try:
        first, second = server.connect(), server.connect()
        with pytest.raises(pymysql.err.OperationalError) as caught:
            server.connect()
        assert caught.value.args[0] == 1040
        time.sleep(1.6)  # both idle past wait_timeout: the server closes them
        with pytest.raises(pymysql.err.OperationalError) as caught:
            first.cursor().execute("SELECT @@version")
        assert caught.value.args[0] in (4031, 2013)
        third = server.connect()  # their slots are free again
        cursor = third.cursor()
        cursor.execute("SET SESSION wait_timeout = 30")
        cursor.execute("SELECT @@wait_timeout, @@max_connections")
        assert cursor.fetchall() == ((30, 2),)
        del second
    finally:
        server.stop()


def test_wait_timeout_counts_from_the_last_command_and_a_lowered_one_applies(server: ServeProcess):
    """The idle clock restarts at every command, and ``SET SESSION wait_timeout`` lowered below
    the server's setting closes the connection after the lower one, as in mysqld."""
    connection = server.connect()
    cursor = connection.cursor()
    cursor.execute("SET SESSION wait_timeout = 1")
    for _ in range(4):  # 2 s of commands 0.5 s apart: never idle for 1 s
        time.sleep(0.5)
        cursor.execute("SELECT @@wait_timeout")
        assert cursor.fetchall() == ((1,),)
    time.sleep(1.6)
    with pytest.raises(pymysql.err.OperationalError) as caught:
        cursor.execute("SELECT @@wait_timeout")
    assert caught.value.args[0] in (4031, 2013)


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test certificate")
def test_tls_and_require_secure_transport(tmp_path: Path):
    cert, key = _self_signed(tmp_path)
    socket_path = tmp_path / "replfilter.sock"
    server = ServeProcess(tmp_path, "--ssl-cert", str(cert), "--ssl-key", str(key), "--require-secure-transport",
                          "--socket", str(socket_path))
    try:
        local = pymysql.connect(unix_socket=str(socket_path), user=USER, password=PASSWORD, ssl_disabled=True)
        local.close()  # a Unix socket is secure transport, as in mysqld
        with pytest.raises(pymysql.err.OperationalError) as caught:
            server.connect(ssl_disabled=True)
        assert caught.value.args == (3159, "Connections using insecure transport are prohibited while "
                                           "--require_secure_transport=ON.")
        secure = server.connect(ssl={"ca": str(cert)})
        cursor = secure.cursor()
        cursor.execute("SELECT @@have_ssl, @@require_secure_transport")
        assert cursor.fetchall() == (("YES", 1),)
        assert secure._sock.version() is not None  # type: ignore[attr-defined]
    finally:
        server.stop()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test certificate")
def test_tls_hello_sent_with_the_ssl_request_in_one_segment(tmp_path: Path):
    """A client may send its ClientHello in the same TCP segment as the SSLRequest packet (a busy
    machine coalesces them): the TLS handshake must still complete."""
    cert, key = _self_signed(tmp_path)
    server = ServeProcess(tmp_path, "--ssl-cert", str(cert), "--ssl-key", str(key))
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
            raw.recv(4096)  # the handshake
            capabilities = 0x00000200 | 0x00000800 | 0x00008000 | 0x00080000  # PROTOCOL_41, SSL, SECURE_CONNECTION, PLUGIN_AUTH
            ssl_request = struct.pack("<IIB23x", capabilities, 1 << 24, 45)
            context = ssl.create_default_context(cafile=str(cert))
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            tls = context.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
            with pytest.raises(ssl.SSLWantReadError):
                tls.do_handshake()
            raw.sendall(struct.pack("<I", len(ssl_request) | (1 << 24)) + ssl_request + outgoing.read())
            while True:
                try:
                    tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    if outgoing.pending:
                        raw.sendall(outgoing.read())
                    data = raw.recv(65536)
                    assert data, "the server closed the connection during the TLS handshake"
                    incoming.write(data)
            assert tls.version() is not None
    finally:
        server.stop()


def test_skip_grant_tables_takes_anyone_on_loopback_only(tmp_path: Path):
    server = ServeProcess(tmp_path, "--skip-grant-tables", "--bind-address", "0.0.0.0", accounts=False)
    try:
        assert any("listening on 127.0.0.1, not on '0.0.0.0'" in line for line in server.log)
        anyone = server.connect(user="whoever", password="anything")
        anyone.close()
    finally:
        server.stop()


def test_no_account_and_password_on_the_command_line_are_refused(tmp_path: Path):
    for args in (["--port", "0"], ["--port", "0", "--user", "u", "--password=secret"]):
        refused = subprocess.run([sys.executable, "-m", "replfilter", "serve", *args], capture_output=True,
                                 text=True, timeout=60)
        assert refused.returncode == 1
        assert refused.stderr.startswith("replfilter: [ERROR] ") and "Traceback" not in refused.stderr


def test_sigterm_closes_clients_and_leaves_the_datadir_consistent(tmp_path: Path):
    datadir = tmp_path / "data"
    server = ServeProcess(tmp_path, "--datadir", str(datadir))
    client = server.connect()
    client.cursor().execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='kept', SOURCE_PORT=3310 FOR CHANNEL 'k'")
    assert server.stop(signal.SIGTERM) == 0
    with pytest.raises(pymysql.err.OperationalError) as caught:
        client.cursor().execute("SELECT @@version")
    assert caught.value.args[0] in (1053, 2013)
    again = subprocess.run([sys.executable, "-m", "replfilter", "--datadir", str(datadir), "-e",
                            "SELECT @@version; SHOW REPLICA STATUS FOR CHANNEL 'k'\\G"], capture_output=True, text=True, timeout=60)
    assert "Source_Host: kept" in again.stdout and "Source_Port: 3310" in again.stdout


# ---- prepared statements at the packet level --------------------------------------------------------

COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA, COM_STMT_RESET, COM_RESET_CONNECTION = (
    0x16, 0x17, 0x18, 0x1A, 0x1F)


def _prepare(connection: pymysql.connections.Connection, text: str) -> int:
    connection._execute_command(COM_STMT_PREPARE, text)
    ok = connection._read_packet().get_all_data()
    columns, params = struct.unpack("<HH", ok[5:9])
    for count in (params, columns):  # the parameters' definitions, the columns', each with an EOF
        for _ in range(count + (1 if count else 0)):
            connection._read_packet()
    return struct.unpack("<I", ok[1:5])[0]


def _execute(connection: pymysql.connections.Connection, payload: bytes) -> list[bytes]:
    """The binary rows' raw bytes (an error packet raises pymysql's error)."""
    connection._execute_command(COM_STMT_EXECUTE, payload)
    first = connection._read_packet()
    for _ in range(first.read_length_encoded_integer() + 1):  # definitions and EOF
        connection._read_packet()
    rows = []
    while not (packet := connection._read_packet()).is_eof_packet():
        rows.append(packet.get_all_data())
    return rows


def test_prepared_types_reused_long_data_and_reset_drops_statements(server: ServeProcess):
    from stmt_packets import execute_payload, long_data_payload

    connection = pymysql.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD)
    connection.cursor().execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'pk'")
    query = "SELECT FILTER_NAME FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME = ? AND COUNTER = ?"
    stmt_id = _prepare(connection, query)
    assert len(_execute(connection, execute_payload(stmt_id, ["pk", 0]))) == 1
    # the second execution sends no types (libmysqlclient, Connector/C, mysqlnd): the first ones hold
    assert len(_execute(connection, execute_payload(stmt_id, ["pk", 0], bound=False))) == 1
    assert _execute(connection, execute_payload(stmt_id, ["nope", 0], bound=False)) == []
    # long data stands for parameter 0 at the next execution only, its value left out of the packet
    connection._execute_command(COM_STMT_SEND_LONG_DATA, long_data_payload(stmt_id, 0, b"no"))
    connection._execute_command(COM_STMT_SEND_LONG_DATA, long_data_payload(stmt_id, 0, b"pe"))
    assert _execute(connection, execute_payload(stmt_id, ["pk", 0], bound=False, long_data=frozenset({0}))) == []
    assert len(_execute(connection, execute_payload(stmt_id, ["pk", 0], bound=False))) == 1
    # a parameter the statement has not: 1210 at each execution until COM_STMT_RESET (mysql_stmt_precheck)
    connection._execute_command(COM_STMT_SEND_LONG_DATA, long_data_payload(stmt_id, 5, b"x"))
    for _ in range(2):
        with pytest.raises(pymysql.err.MySQLError) as caught:
            _execute(connection, execute_payload(stmt_id, ["pk", 0]))
        assert caught.value.args == (1210, "Incorrect arguments to mysql_stmt_precheck")
    connection._execute_command(COM_STMT_RESET, struct.pack("<I", stmt_id))
    connection._read_packet()
    assert len(_execute(connection, execute_payload(stmt_id, ["pk", 0]))) == 1
    connection._execute_command(COM_STMT_RESET, struct.pack("<I", 999))
    with pytest.raises(pymysql.err.MySQLError) as caught:
        connection._read_packet()
    assert caught.value.args == (1243, "Unknown prepared statement handler (999) given to mysql_stmt_precheck")
    # a double binds as one; a ? sent as text (COM_QUERY) is the parser's 1064, as in mysqld
    assert _execute(connection, execute_payload(stmt_id, ["pk", 1.5])) == []
    assert len(_execute(connection, execute_payload(stmt_id, ["pk", 0.0]))) == 1
    with pytest.raises(pymysql.err.MySQLError) as caught:
        connection.cursor().execute(query.replace("CHANNEL_NAME = ?", "CHANNEL_NAME = 'pk'"))
    assert caught.value.args[0] == 1064 and "near '?' at line 1" in caught.value.args[1]
    # COM_RESET_CONNECTION and COM_CHANGE_USER deallocate the statements: the old id is 1243
    connection._execute_command(COM_RESET_CONNECTION, b"")
    connection._read_packet()
    with pytest.raises(pymysql.err.MySQLError) as caught:
        _execute(connection, execute_payload(stmt_id, ["pk", 0]))
    assert caught.value.args == (1243, f"Unknown prepared statement handler ({stmt_id}) given to mysql_stmt_precheck")
    connection.close()


class _Bind(ctypes.Structure):
    """MariaDB Connector/C's MYSQL_BIND (mysql.h), for a real libmariadb client."""

    _fields_ = [("length", ctypes.POINTER(ctypes.c_ulong)), ("is_null", ctypes.c_void_p), ("buffer", ctypes.c_void_p),
                ("error", ctypes.c_void_p), ("row_ptr", ctypes.c_void_p), ("store_param_func", ctypes.c_void_p),
                ("fetch_result", ctypes.c_void_p), ("skip_result", ctypes.c_void_p), ("buffer_length", ctypes.c_ulong),
                ("offset", ctypes.c_ulong), ("length_value", ctypes.c_ulong), ("param_number", ctypes.c_uint),
                ("pack_length", ctypes.c_uint), ("buffer_type", ctypes.c_int), ("error_value", ctypes.c_char),
                ("is_unsigned", ctypes.c_char), ("long_data_used", ctypes.c_char), ("is_null_value", ctypes.c_char),
                ("extension", ctypes.c_void_p)]


def _libmariadb():  # type: ignore[no-untyped-def]
    path = ctypes.util.find_library("mariadb")
    if path is None:
        pytest.skip("libmariadb (MariaDB Connector/C, installed with Debian's mariadb-client) is not installed")
    lib = ctypes.CDLL(path)
    pointer, text = ctypes.c_void_p, ctypes.c_char_p
    signatures = {"mysql_init": (pointer, [pointer]), "mysql_real_connect": (pointer, [pointer, text, text, text, text, ctypes.c_uint, text, ctypes.c_ulong]),
                  "mysql_query": (ctypes.c_int, [pointer, text]), "mysql_stmt_init": (pointer, [pointer]),
                  "mysql_stmt_prepare": (ctypes.c_int, [pointer, text, ctypes.c_ulong]),
                  "mysql_stmt_bind_param": (ctypes.c_char, [pointer, pointer]), "mysql_stmt_execute": (ctypes.c_int, [pointer]),
                  "mysql_stmt_store_result": (ctypes.c_int, [pointer]), "mysql_stmt_num_rows": (ctypes.c_ulonglong, [pointer]),
                  "mysql_stmt_free_result": (ctypes.c_char, [pointer]), "mysql_stmt_errno": (ctypes.c_uint, [pointer]),
                  "mysql_stmt_send_long_data": (ctypes.c_char, [pointer, ctypes.c_uint, text, ctypes.c_ulong]),
                  "mysql_stmt_close": (ctypes.c_char, [pointer]), "mysql_close": (None, [pointer])}
    for name, (result, arguments) in signatures.items():
        getattr(lib, name).restype, getattr(lib, name).argtypes = result, arguments
    return lib


def test_connector_c_reexecutes_without_types_and_sends_long_data(server: ServeProcess):
    """MariaDB Connector/C sends the new-params-bound flag 0 after the first execution (and so do
    libmysqlclient and mysqlnd): each execution still binds its values, with the first one's types."""
    lib = _libmariadb()
    connection = lib.mysql_init(None)
    assert lib.mysql_real_connect(connection, b"127.0.0.1", USER.encode(), PASSWORD.encode(), None, server.port, None, 0)
    assert lib.mysql_query(connection, b"CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'cc'") == 0
    stmt = lib.mysql_stmt_init(connection)
    query = (b"SELECT FILTER_NAME FROM performance_schema.replication_applier_filters "
             b"WHERE CHANNEL_NAME = 'cc' AND FILTER_NAME = ? AND COUNTER = ?")
    assert lib.mysql_stmt_prepare(stmt, query, len(query)) == 0
    name = ctypes.create_string_buffer(b"REPLICATE_WILD_IGNORE_TABLE")
    name_length, counter = ctypes.c_ulong(len(name.value)), ctypes.c_longlong(0)
    binds = (_Bind * 2)()
    binds[0].buffer_type, binds[0].buffer, binds[0].length = 254, ctypes.cast(name, ctypes.c_void_p), ctypes.pointer(name_length)
    binds[0].buffer_length = len(name.value)
    binds[1].buffer_type, binds[1].buffer = 8, ctypes.cast(ctypes.pointer(counter), ctypes.c_void_p)
    assert lib.mysql_stmt_bind_param(stmt, binds) == b"\x00"

    def rows() -> int:
        assert lib.mysql_stmt_execute(stmt) == 0, lib.mysql_stmt_errno(stmt)
        assert lib.mysql_stmt_store_result(stmt) == 0
        count = lib.mysql_stmt_num_rows(stmt)
        lib.mysql_stmt_free_result(stmt)
        return count

    found = []
    for value in (0, 0, 1, 0):  # the second and later executions send no types
        counter.value = value
        found.append(rows())
    assert found == [1, 1, 0, 1]
    # the name sent as long data in two pieces; its value is then left out of the packet
    assert lib.mysql_stmt_send_long_data(stmt, 0, b"REPLICATE_WILD_", 15) == b"\x00"
    assert lib.mysql_stmt_send_long_data(stmt, 0, b"IGNORE_TABLE", 12) == b"\x00"
    name_length.value = 0
    assert rows() == 1
    lib.mysql_stmt_close(stmt)
    lib.mysql_close(connection)
