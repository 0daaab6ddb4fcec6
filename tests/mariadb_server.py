"""A real MariaDB server in a temporary datadir, writing binary logs: the source of the binlog
files the reader is checked against (``tests/test_binlog_mariadb.py``) and measured on
(``bench/binlog.py``).

Debian's ``mariadb-server`` package gives ``mariadb-install-db`` and ``mariadbd``; the server
listens on a Unix socket in the datadir and on a free loopback port, and is stopped (and its
datadir removed) by :meth:`MariaDB.stop`. ``mariadb-install-db`` runs once per process: each
server starts on a copy of that freshly installed datadir (the system tables only: binary logs,
server ids and every other option are the server's, given when it starts).
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def available() -> bool:
    """Whether this machine has the server and its client tools."""
    return all(shutil.which(tool) for tool in ("mariadb-install-db", "mariadbd", "mariadb", "mariadb-binlog"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_INSTALLED: list[Path] = []
"""The datadir ``mariadb-install-db`` wrote, once per process (removed at exit)."""


def _installed_datadir() -> Path:
    """A datadir as ``mariadb-install-db`` leaves it, installed on the first call: about 4 s
    of bootstrap server that every later start spares by copying it."""
    if not _INSTALLED:
        root = Path(tempfile.mkdtemp(prefix="replfilter-mariadb-install-"))
        datadir = root / "data"
        user = ["--user=root"] if os.geteuid() == 0 else []
        install = subprocess.run(
            ["mariadb-install-db", "--no-defaults", f"--datadir={datadir}", "--skip-test-db",
             "--auth-root-authentication-method=normal", *user],
            capture_output=True, text=True,
        )
        if install.returncode != 0:
            shutil.rmtree(root, ignore_errors=True)
            raise RuntimeError(f"mariadb-install-db failed: {install.stderr[-2000:]}")
        atexit.register(shutil.rmtree, root, True)
        _INSTALLED.append(datadir)
    return _INSTALLED[0]


@dataclass
class MariaDB:
    """One running server. ``sql`` runs statements with Debian's ``mariadb`` client."""

    root: Path
    process: subprocess.Popen
    port: int = 0

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def socket(self) -> Path:
        return self.root / "mysqld.sock"

    @classmethod
    def start(cls, *extra_options: str) -> "MariaDB":
        installed = _installed_datadir()
        root = Path(tempfile.mkdtemp(prefix="replfilter-mariadb-"))
        datadir = root / "data"
        shutil.copytree(installed, datadir, symlinks=True)
        user = ["--user=root"] if os.geteuid() == 0 else []
        log = open(root / "error.log", "wb")
        port = _free_port()
        process = subprocess.Popen(
            ["mariadbd", "--no-defaults", f"--datadir={datadir}", f"--socket={root / 'mysqld.sock'}",
             f"--port={port}", "--bind-address=127.0.0.1", "--log-bin=binlog", "--server-id=1",
             "--skip-name-resolve", "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M",
             "--max-binlog-size=256M", f"--pid-file={root / 'mysqld.pid'}", *user, *extra_options],
            stdout=log, stderr=subprocess.STDOUT,
        )
        server = cls(root, process, port)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                server.stop()
                raise RuntimeError(f"mariadbd exited: {(root / 'error.log').read_text(errors='replace')[-2000:]}")
            if server.socket.exists() and server.try_sql("SELECT 1").returncode == 0:
                return server
            time.sleep(0.2)
        server.stop()
        raise RuntimeError("mariadbd did not start within 60 s")

    def try_sql(self, text: str, *options: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["mariadb", "--no-defaults", f"--socket={self.socket}", "-uroot", "--batch", *options],
            input=text, capture_output=True, text=True,
        )

    def sql(self, text: str, *options: str) -> str:
        """Run ``text`` (statements separated by ``;``); the client's tab-separated output."""
        done = self.try_sql(text, *options)
        if done.returncode != 0:
            raise RuntimeError(f"mariadb: {done.stderr.strip()}")
        return done.stdout

    def replicate_from(self, source: "MariaDB") -> tuple[str, int]:
        """Make this server a replica of ``source`` (a replication user is created there) and
        start it; the filters are this server's startup options. The source's binlog file and
        position the replica starts from."""
        source.sql("CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY 'repl'; GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1'")
        position = source.sql("SHOW MASTER STATUS", "--skip-column-names").split("\t")
        self.sql(
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={source.port}, MASTER_USER='repl', "
            f"MASTER_PASSWORD='repl', MASTER_LOG_FILE='{position[0]}', MASTER_LOG_POS={position[1]}, "
            "MASTER_USE_GTID=no; START SLAVE"
        )
        return position[0], int(position[1])

    def wait_for(self, source: "MariaDB", timeout: float = 60) -> None:
        """Until this replica has applied everything ``source`` wrote; RuntimeError with the
        replica's error when its SQL thread stopped."""
        file, pos = source.sql("SHOW MASTER STATUS", "--skip-column-names").split("\t")[:2]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.sql("SHOW SLAVE STATUS\\G")
            fields = {}
            for line in status.splitlines():
                key, _, value = line.strip().partition(":")
                fields[key] = value.strip()
            if fields.get("Slave_SQL_Running") == "No" or fields.get("Last_SQL_Errno", "0") != "0":
                raise RuntimeError(f"replica stopped: {fields.get('Last_SQL_Error')}")
            if fields.get("Relay_Master_Log_File") == file and fields.get("Exec_Master_Log_Pos") == pos:
                return
            time.sleep(0.2)
        raise RuntimeError("the replica did not catch up within the timeout")

    def binlog_files(self) -> list[Path]:
        """The binary log files, in the order of the index file."""
        index = self.datadir / "binlog.index"
        return [self.datadir / Path(line.strip()).name for line in index.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


COLUMN_TYPES_TABLE = """
CREATE TABLE shop.every_type (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, ii INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  de DECIMAL(20,6), de2 DECIMAL(5,0), de3 DECIMAL(30,15), fl FLOAT, db DOUBLE,
  d DATE, t TIME, t3 TIME(3), dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, ts2 TIMESTAMP(2) NULL, y YEAR,
  c CHAR(10), c4 CHAR(10) CHARACTER SET utf8mb4, vc VARCHAR(300), bn BINARY(4), vb VARBINARY(20),
  tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB, tx TEXT CHARACTER SET utf8mb4,
  en ENUM('small','medium','large'), st SET('a','b','c','d'), b1 BIT(1), b13 BIT(13),
  j JSON, g GEOMETRY
)"""

COLUMN_TYPES_ROWS = """
INSERT INTO shop.every_type VALUES
 (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,
  -9223372036854775808, 18446744073709551615, -12345678901234.567891, 99999, 123456789012345.123456789012345,
  1.5, -2.25e100, '2024-02-29', '-838:59:59', '12:34:56.789', '9999-12-31 23:59:59', '2001-02-03 04:05:06.000007',
  '2038-01-19 03:14:07', '1999-12-31 23:59:59.99', 2155,
  'abc', 'héllo', REPEAT('v', 300), 'ab', x'00ff10', x'01', 'blob', 'medium', 'long', 'texte ünïcode',
  'medium', 'a,c,d', b'1', b'1010101010101',
  '{"a": [1, 2.5, "x", true, null], "b": {"c": -7}}', ST_GeomFromText('POINT(1 2)')),
 (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '1000-01-01', '00:00:00', '-00:00:01.5', '1000-01-01 00:00:00',
  '1970-01-01 00:00:00.5', NULL, NULL, 1901, '', '', '', '', '', '', '', '', '', '', 'small', '', b'0', b'0',
  '[]', ST_GeomFromText('LINESTRING(0 0, 1 1, 2 3)')),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL);
UPDATE shop.every_type SET ii = ii + 1, vc = 'changed', j = '{"k": "v"}' WHERE id = 1;
DELETE FROM shop.every_type WHERE id = 2;
"""

WORKLOAD = f"""
SET SESSION binlog_format = 'STATEMENT';
CREATE DATABASE shop;
CREATE DATABASE audit;
USE shop;
CREATE TABLE orders (id INT PRIMARY KEY, total DECIMAL(10,2), note VARCHAR(50));
CREATE TABLE audit.log (id INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(100));
INSERT INTO orders VALUES (1, 10.50, 'first'), (2, 20.00, 'second');
INSERT INTO audit.log (msg) VALUES ('statement format');
UPDATE orders o JOIN audit.log l ON l.id = 1 SET o.note = 'joined', l.msg = 'both';
BEGIN; INSERT INTO orders VALUES (99, 0, 'rolled back'); ROLLBACK;
SET SESSION binlog_format = 'ROW';
SET GLOBAL binlog_row_metadata = 'MINIMAL';
INSERT INTO orders VALUES (3, 30.25, 'row minimal');
UPDATE orders SET total = total * 2 WHERE id <= 3;
DELETE FROM orders WHERE id = 2;
UPDATE orders o JOIN audit.log l ON l.id = 1 SET o.note = 'multi row', l.msg = 'multi row';
SET GLOBAL binlog_row_metadata = 'FULL';
{COLUMN_TYPES_TABLE};
{COLUMN_TYPES_ROWS}
BEGIN; INSERT INTO orders VALUES (4, 1, 'in tx'); INSERT INTO audit.log (msg) VALUES ('in tx'); COMMIT;
SET SESSION binlog_format = 'MIXED';
INSERT INTO orders VALUES (5, 5, 'mixed');
INSERT INTO audit.log (msg) VALUES (UUID());
ALTER TABLE orders ADD COLUMN extra INT;
RENAME TABLE audit.log TO audit.journal;
DROP TABLE audit.journal;
DROP DATABASE audit;
"""
"""Statements under STATEMENT, ROW (metadata MINIMAL, then FULL) and MIXED formats: every column
type, multi-table UPDATEs, DDL, and a rolled-back transaction (which writes nothing)."""
