"""The real ``replfilter`` binary in a real terminal (tmux): what a person sees.

Each test starts the shell in its own tmux server (a private socket, 200x50), types with
``send-keys`` and reads the screen with ``capture-pane``, polling until the expected text shows up
(never a fixed sleep). HOME is a temporary directory, so the real history file is never touched.
Skipped only where tmux is missing.
"""

from __future__ import annotations

import re
import shlex
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

TMUX = shutil.which("tmux")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed; these tests drive the real binary in a tmux terminal"),
]

WAIT_SECONDS = 15.0


def replfilter_command() -> list[str]:
    """The installed console script next to this Python, else the one on PATH, else ``-m``."""
    beside = Path(sys.executable).with_name("replfilter")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("replfilter")
    return [found] if found else [sys.executable, "-m", "replfilter"]


def _tmux_argument(text: str) -> str:
    """tmux takes an argument ending in ';' for a command separator: escape that semicolon."""
    return text[:-1] + "\\;" if text.endswith(";") else text


def _at_fresh_prompt(screen: str) -> bool:
    lines = [line for line in screen.splitlines() if line.strip() and not line.startswith(" channels:")]
    return bool(lines) and lines[-1] == "replfilter>"


class Terminal:
    """One tmux session running ``replfilter``; the pane stays after the program ends and shows
    its exit status as ``[exit N]``."""

    def __init__(self, home: Path, args: tuple[str, ...] = (), env: dict[str, str] | None = None) -> None:
        self.socket = str(home / "tmux.sock")
        variables = {"HOME": str(home), "TERM": "xterm-256color", "LANG": "C.UTF-8", **(env or {})}
        program = shlex.join(["env", *(f"{k}={v}" for k, v in variables.items()), *replfilter_command(), *args])
        script = f'{program}; echo "[exit $?]"; sleep 600'
        self.started = time.monotonic()
        self._tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "rf", "sh", "-c", script)

    def _tmux(self, *args: str) -> str:
        result = subprocess.run([TMUX, "-S", self.socket, *args], capture_output=True, text=True, timeout=10)
        if result.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout

    def type(self, text: str) -> None:
        """Type ``text`` literally."""
        self._tmux("send-keys", "-t", "rf", "-l", "--", _tmux_argument(text))

    def paste(self, text: str) -> None:
        """Paste ``text`` as a terminal does (bracketed paste): control characters arrive as text."""
        self._tmux("set-buffer", "-b", "rfpaste", "--", _tmux_argument(text))
        self._tmux("paste-buffer", "-p", "-d", "-b", "rfpaste", "-t", "rf")

    def press(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "rf", *keys)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-J", "-t", "rf")

    def wait_for(self, expected: str | Callable[[str], bool], timeout: float = WAIT_SECONDS) -> str:
        """Poll the screen until ``expected`` (a regex, or a predicate) matches it."""
        check = expected if callable(expected) else (lambda screen: re.search(expected, screen, re.M) is not None)
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.03)
        raise AssertionError(f"timed out waiting for {expected!r}; the screen shows:\n{screen}")

    def wait_for_prompt(self, timeout: float = WAIT_SECONDS) -> str:
        """Wait until a fresh, empty ``replfilter>`` prompt is the last thing on the screen (keys
        typed before it is drawn would be echoed by the terminal, not edited by the shell)."""
        return self.wait_for(_at_fresh_prompt, timeout)

    def close(self) -> None:
        try:
            self._tmux("kill-server")
        except (RuntimeError, subprocess.TimeoutExpired):
            pass


@pytest.fixture
def terminal(tmp_path: Path):
    opened: list[Terminal] = []

    def open_terminal(*args: str, env: dict[str, str] | None = None) -> Terminal:
        term = Terminal(tmp_path, args, env)
        opened.append(term)
        return term

    yield open_terminal
    for term in opened:
        term.close()


def test_a_session_as_a_person_sees_it(terminal, tmp_path):
    term = terminal(env={"REPLFILTER_HISTFILE": str(tmp_path / "hist")})
    screen = term.wait_for_prompt()
    assert "Welcome to replfilter" in screen

    # A statement typed over two lines: the continuation prompt, then one result.
    term.type("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h1'")
    term.press("Enter")
    term.wait_for(r"^    ->$")
    term.type("FOR CHANNEL 'ch1';")
    term.press("Enter")
    screen = term.wait_for(r"^Query OK, 0 rows affected \(\d+\.\d\d sec\)$")
    assert "replfilter> CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h1'\n    -> FOR CHANNEL 'ch1';\n" in screen

    # A table.
    term.wait_for_prompt()
    term.type("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales, hr) FOR CHANNEL 'ch1';")
    term.press("Enter")
    term.wait_for(lambda s: s.count("Query OK") == 2 and _at_fresh_prompt(s))
    term.type("SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE FROM performance_schema.replication_applier_filters;")
    term.press("Enter")
    screen = term.wait_for(r"^1 row in set")
    assert (
        "+--------------+-----------------+-------------+\n"
        "| CHANNEL_NAME | FILTER_NAME     | FILTER_RULE |\n"
        "+--------------+-----------------+-------------+\n"
        "| ch1          | REPLICATE_DO_DB | sales,hr    |\n"
        "+--------------+-----------------+-------------+\n"
    ) in screen

    # An error, with the mark under where it starts.
    term.wait_for_prompt()
    term.type("CHANGE REPLICATION FILTR x;")
    term.press("Enter")
    term.wait_for(r"^ERROR 1064 \(42000\): You have an error in your SQL syntax")
    term.wait_for(r"^CHANGE REPLICATION FILTR x\n {19}\^$")

    # Tab completes a channel name, quoted.
    term.wait_for_prompt()
    term.type("START REPLICA FOR CHANNEL 'c")
    term.press("Tab")
    term.wait_for(r"^replfilter> START REPLICA FOR CHANNEL 'ch1'$")
    term.type(";")
    term.press("Enter")
    term.wait_for(lambda s: s.count("Query OK, 0 rows affected") == 3 and _at_fresh_prompt(s))
    term.wait_for(r"'ch1' SQL on")  # the bottom toolbar follows the state

    # quit.
    term.type("quit")
    term.press("Enter")
    screen = term.wait_for(r"^\[exit 0\]$")
    assert "Bye" in screen
    assert "Traceback" not in screen


def test_ctrl_c_keeps_the_shell_and_ctrl_d_leaves(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("SHOW REPLICA")
    term.press("Enter")
    term.wait_for(r"^    ->$")
    term.press("C-c")  # abandons the statement being typed
    term.wait_for(lambda s: len(re.findall(r"^replfilter>", s, re.M)) == 2 and _at_fresh_prompt(s))
    term.type("SHOW COUNT(*) WARNINGS;")
    term.press("Enter")
    term.wait_for(r"^1 row in set")
    term.wait_for_prompt()
    term.press("C-d")
    screen = term.wait_for(r"^\[exit 0\]$")
    assert re.search(r"^Bye$", screen, re.M)


def test_history_file_in_home_is_private(terminal, tmp_path):
    term = terminal()
    term.wait_for_prompt()
    term.type("SHOW WARNINGS;")
    term.press("Enter")
    term.wait_for(r"^Empty set")
    term.wait_for_prompt()
    term.type("\\q")
    term.press("Enter")
    term.wait_for(r"^\[exit 0\]$")
    history = tmp_path / ".replfilter_history"
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    assert "+SHOW WARNINGS;" in history.read_text()


def test_bad_input_gets_an_error_and_a_fresh_prompt(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    garbage = "".join(chr(c) for c in range(1, 32) if c not in (10, 13)) + "\x1b[31m\x7f\u0080\u009b\xff\ufffd"
    term.paste("\\k " + garbage + " 'unterminated")
    term.press("Enter")
    term.wait_for(r"^    '>$")  # inside the open quote, as mysql shows it
    term.type("';")
    term.press("Enter")
    term.wait_for(lambda s: "ERROR 1064 (42000)" in s and _at_fresh_prompt(s))
    term.type("nosuchcommand;")
    term.press("Enter")
    term.wait_for(lambda s: s.count("ERROR 1064 (42000)") == 2 and _at_fresh_prompt(s))
    term.type("SHOW COUNT(*) WARNINGS;")
    term.press("Enter")
    screen = term.wait_for(r"^1 row in set")
    assert "Traceback" not in screen


def test_first_prompt_well_under_a_second(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    elapsed = time.monotonic() - term.started
    assert elapsed < 1.5, f"first prompt after {elapsed:.2f} s"  # bench/startup_shell.py measures it precisely
