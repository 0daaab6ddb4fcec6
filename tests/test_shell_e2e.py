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
        # the pane's sh outlives a Ctrl-C as a login shell does (a trap, not an ignored signal,
        # so the program still gets SIGINT), and reports the program's exit status
        script = f'trap : INT; {program}; echo "[exit $?]"; sleep 600'
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
        home = tmp_path
        if opened:  # a second terminal in one test: its own home, so its own tmux server
            home = tmp_path / f"home{len(opened)}"
            home.mkdir()
        term = Terminal(home, args, env)
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


# ---- the shell as the mysql client: each behaviour as a person meets it ---------------------------


def _prompts(screen: str) -> int:
    return len(re.findall(r"^replfilter>", screen, re.M))


def _after_last_prompt(screen: str) -> str:
    return screen[screen.rindex("replfilter>") :]


def test_what_was_typed_is_kept_as_typed(terminal, tmp_path):
    """An indented first line does not indent the next one: the string literal keeps its text,
    on the screen, in the error and in history."""
    term = terminal(env={"REPLFILTER_HISTFILE": str(tmp_path / "hist")})
    term.wait_for_prompt()
    term.type("  START REPLICA FOR CHANNEL 'a")
    term.press("Enter")
    term.wait_for(r"^    '>$")
    term.type("b.c';")
    term.press("Enter")
    screen = term.wait_for(r"^ERROR 1525")
    assert "\n    '> b.c';\n" in screen
    assert "Incorrect argument contains not-allowed LF value: 'a\nb.c'" in screen  # no spaces added
    term.wait_for_prompt()
    term.type("quit")
    term.press("Enter")
    term.wait_for(r"^\[exit 0\]$")
    assert "+  START REPLICA FOR CHANNEL 'a\n+b.c';\n" in (tmp_path / "hist").read_text()


def test_backslash_q_anywhere_quits_before_the_statement_is_sent(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'c1' \\q")
    term.press("Enter")
    screen = term.wait_for(r"^\[exit 0\]$")
    assert re.search(r"^Bye$", screen, re.M) and "Query OK" not in screen


def test_unknown_backslash_command_is_reported_at_once(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("SHOW REPLICA \\k")
    term.press("Enter")
    # mysql's add_line: the message at once, and the two characters stay in the statement
    screen = term.wait_for(r"^    ->$")
    assert "replfilter> SHOW REPLICA \\k\nERROR: \nUnknown command '\\k'.\n    ->" in screen
    term.type("\\c")
    term.press("Enter")
    term.wait_for_prompt()


def test_system_command_runs_and_can_be_refused(terminal, tmp_path):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("\\! echo hello-from-sh")
    term.press("Enter")
    term.wait_for(r"^hello-from-sh$")
    term.wait_for_prompt()
    term.type("system echo again-from-sh;")
    term.press("Enter")
    screen = term.wait_for(r"^again-from-sh;?$")
    assert "ERROR" not in screen  # never statement text
    term.wait_for_prompt()
    refused = terminal("--no-history", "--skip-system-command")
    refused.wait_for_prompt()
    refused.type("\\! echo not-run")
    refused.press("Enter")
    screen = refused.wait_for(r"option is off\. Skipping\.$")
    assert "ERROR: \n'system' command received, but the --system-command option is off. Skipping." in screen
    assert not re.search(r"^not-run$", screen, re.M)


def test_prompt_print_connect_and_rehash(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("prompt [\\d] \\c> ")
    term.press("Enter")
    term.wait_for(r"^PROMPT set to '\[\\d\] \\c> '$")
    term.wait_for(r"^\[\(none\)\] 1>$")
    term.type("SHOW REPLICA \\p")
    term.press("Enter")
    screen = term.wait_for(r"^    ->$")
    assert re.search(r"^--------------\nSHOW REPLICA \n--------------\n\n    ->$", screen, re.M)
    term.type("STATUS;")
    term.press("Enter")
    term.wait_for(r"^Empty set")
    term.wait_for(r"^\[\(none\)\] 2>$")
    term.type("\\R")
    term.press("Enter")
    term.wait_for(r"^Returning to default PROMPT of replfilter>\s*$")
    term.wait_for_prompt()
    term.type("connect")
    term.press("Enter")
    screen = term.wait_for(r"^Current database: \*\*\* NONE \*\*\*$")
    assert "Connection id:    2" in screen
    term.wait_for_prompt()
    term.type("rehash")
    term.press("Enter")
    term.wait_for(r"^replfilter> rehash *\nreplfilter> *$")  # silent, as mysql


def test_edit_opens_the_statement_in_the_editor(terminal, tmp_path):
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "SHOW COUNT(*)\\nWARNINGS" > "$1"\n')
    editor.chmod(0o755)
    term = terminal("--no-history", env={"EDITOR": str(editor)})
    term.wait_for_prompt()
    term.type("SHOW \\e")
    term.press("Enter")
    term.wait_for(r"^replfilter> SHOW COUNT\(\*\)\n    -> WARNINGS$")
    term.type(";")
    term.press("Enter")
    term.wait_for(r"^1 row in set")


def test_lone_delimiter_says_no_query_specified(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type(";")
    term.press("Enter")
    term.wait_for(r"^ERROR: \nNo query specified$")
    term.wait_for_prompt()


def test_a_pasted_script_runs_statement_by_statement(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.paste("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'\nFOR CHANNEL 'c1';\nSHOW COUNT(*) WARNINGS;\nSTART REPLICA FOR")
    screen = term.wait_for(r"^replfilter> START REPLICA FOR$")
    expected = ("replfilter> CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'\n    -> FOR CHANNEL 'c1';\n"
                "Query OK, 0 rows affected")
    assert expected in screen
    first, second = screen.index("Query OK"), screen.index("replfilter> SHOW COUNT(*) WARNINGS;")
    assert first < second < screen.index("1 row in set") < screen.index("replfilter> START REPLICA FOR")
    assert "    ->\n" not in screen  # no statement that had ended was prompted again
    term.type(" CHANNEL 'c1';")
    term.press("Enter")
    term.wait_for(lambda s: s.count("Query OK") == 2 and _at_fresh_prompt(s))


def test_ctrl_r_then_enter_runs_and_up_recalls_a_multi_line_entry(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("SHOW")
    term.press("Enter")
    term.type("COUNT(*) WARNINGS;")
    term.press("Enter")
    term.wait_for(lambda s: s.count("1 row in set") == 1 and _at_fresh_prompt(s))
    term.type("SHOW WARNINGS;")
    term.press("Enter")
    term.wait_for(lambda s: "Empty set" in s and _at_fresh_prompt(s))
    term.press("Up")
    term.press("Up")  # one press per entry, the two-line one included
    term.wait_for(r"^replfilter> SHOW\n    -> COUNT\(\*\) WARNINGS;$")
    term.press("Enter")
    term.wait_for(lambda s: s.count("1 row in set") == 2 and _at_fresh_prompt(s))
    term.press("C-r")
    term.type("SHOW WARN")
    term.wait_for(r"SHOW WARNINGS;$")
    term.press("Enter")  # runs what was found, at once
    term.wait_for(lambda s: s.count("Empty set") == 2 and _at_fresh_prompt(s))


def test_ctrl_c_shows_the_mark_and_clears(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("SHOW REPLICA")
    term.press("Enter")
    term.type("STAT")
    term.press("C-c")
    screen = term.wait_for(lambda s: _prompts(s) == 2 and _at_fresh_prompt(s))
    assert re.search(r"^replfilter> SHOW REPLICA *\n    -> STAT\^C *\nreplfilter> *$", screen, re.M), screen
    term.type("SHOW WARNINGS;")
    term.press("Enter")
    term.wait_for(r"^Empty set")


def test_toolbar_summarises_when_the_channels_do_not_fit(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    script = "".join(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'channel_{n:02d}';\n" for n in range(16))
    term.paste(script + "START REPLICA SQL_THREAD FOR CHANNEL 'channel_15';\nSTART REPLICA SQL_THREAD FOR CHANNEL 'channel_15';\n")
    screen = term.wait_for(r"^ 17 channels, 1 SQL running \('channel_15'\), 1 warning  \|  \\h help  \\q quit\s*$")
    assert "more" not in screen


def test_tab_offers_only_the_channels_the_statement_can_use(terminal):
    term = terminal("--no-history")
    term.wait_for_prompt()
    term.type("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'ch1';")
    term.press("Enter")
    term.wait_for(r"^Query OK")
    term.wait_for_prompt()
    term.type("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL '")
    term.press("Tab")  # '' is not offered (1794): the one usable channel is completed at once
    term.wait_for(r"^replfilter> CHANGE REPLICATION FILTER REPLICATE_DO_DB = \(a\) FOR CHANNEL 'ch1'$")


def test_invalid_utf8_shows_as_mysql_shows_it(terminal, tmp_path):
    term = terminal("--no-history")
    term.wait_for_prompt()
    raw = tmp_path / "raw"
    raw.write_bytes(b"SHOW \xff\xfe WARNINGS;")
    term._tmux("load-buffer", "-b", "raw", str(raw))
    term._tmux("paste-buffer", "-d", "-b", "raw", "-t", "rf")
    term.press("Enter")
    screen = term.wait_for(r"^ERROR 1064")
    assert "\\udc" not in screen
    assert "SHOW \\xFF\\xFE WARNINGS" in screen


def test_ctrl_c_during_evaluate_ends_it_as_mysql_on_a_complete_line(terminal, tmp_path):
    """Ctrl-C typed while ``replfilter evaluate`` writes to the terminal: mysql's words, status 1,
    no traceback, and the last result line whole."""
    events = tmp_path / "events.jsonl"
    events.write_text('{"v": 1, "type": "row", "channel": "", "db": "d", "table": "t"}\n' * 300_000)
    term = terminal("evaluate", str(events))
    term.wait_for(r'"decision": "APPLY"')
    term.press("C-c")
    screen = term.wait_for(r"^\[exit \d+\]$", timeout=60)
    lines = [line for line in screen.splitlines() if line.strip()]
    assert lines[-1] == "[exit 1]"
    assert lines[-2].endswith("Ctrl-C -- exit!")  # the terminal may echo ^C before it
    assert lines[-3].endswith("}")
    assert "Traceback" not in screen and "KeyboardInterrupt" not in screen
