"""A real ``replfilter serve`` process for the tests: started on a free port, stopped by signal.

The process is started as a user starts it (``python -m replfilter serve``); the test waits for
mysqld's ``ready for connections`` line on standard error and reads the port from it (``--port
0`` lets the kernel choose, so parallel test workers never collide).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

READY = re.compile(r"ready for connections\..* port: (\d+)")
START_SECONDS = 30.0
PASSWORD = "s3cret-pw"
USER = "dba"


class ServeProcess:
    def __init__(self, tmp: Path, *args: str, accounts: bool = True) -> None:
        self.tmp = tmp
        password_file = tmp / "password.txt"
        password_file.write_text(PASSWORD + "\n")
        command = [sys.executable, "-m", "replfilter", "serve", "--port", "0", *args]
        if accounts:
            command += ["--user", USER, "--password-file", str(password_file)]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, cwd=tmp,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.log: list[str] = []
        self.port = self._wait_ready()
        self._drain = threading.Thread(target=self._read_log, daemon=True)
        self._drain.start()

    def _wait_ready(self) -> int:
        deadline = time.monotonic() + START_SECONDS
        assert self.process.stderr is not None
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                raise AssertionError(f"replfilter serve ended before it was ready: {''.join(self.log)}")
            self.log.append(line)
            found = READY.search(line)
            if found:
                return int(found.group(1))
        raise AssertionError(f"replfilter serve not ready after {START_SECONDS}s: {''.join(self.log)}")

    def _read_log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)

    def connect(self, **kwargs: object):  # type: ignore[no-untyped-def]
        import pymysql

        options = {"host": "127.0.0.1", "port": self.port, "user": USER, "password": PASSWORD, **kwargs}
        return pymysql.connect(**options)  # type: ignore[arg-type]

    def mariadb(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["mariadb", "-h127.0.0.1", f"-P{self.port}", f"-u{USER}", f"-p{PASSWORD}", *args],
                              input=stdin, capture_output=True, text=True, timeout=60)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        code = self.process.wait(timeout=60)
        self._drain.join(timeout=5)
        return code


def serving_a_channel(tmp: Path, *args: str, channel: str = "t") -> Iterator[ServeProcess]:
    """A module fixture's body: a serve process whose replica has ``channel`` (so the filter
    tables have rows), stopped cleanly after the module's tests."""
    process = ServeProcess(tmp, *args)
    connection = process.connect()
    connection.cursor().execute(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL '{channel}'")
    connection.close()
    yield process
    assert process.stop() == 0
