"""The interactive shell, in process: prompt_toolkit's pipe input, a dummy (or recorded) output.

Keys are sent as a terminal would send them (``\\r`` is Enter, ``\\t`` Tab, ``\\x03`` Ctrl-C,
``\\x12`` Ctrl-R); the pipe is closed afterwards, which the shell sees as Ctrl-D. What the shell
prints goes to StringIO streams, so the assertions read exactly what a person would read.
"""

from __future__ import annotations

import io
import os
import re
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from replfilter.cli.main import build_parser
from replfilter.dialect.parser import parse_statement
from replfilter.dialect.splitter import StatementBuffer, StatementText, split_statements
from replfilter.core.errors import MySQLError
from replfilter.core.filters import FILTER_TYPES, FilterType
from replfilter.replica.perfschema import CHANNEL_COLUMNS, GLOBAL_COLUMNS
from replfilter.server.session import Session
from replfilter.shell import commands, helptext
from replfilter.shell.app import CONTINUATION, PROMPT, Shell, ShellSettings, run_shell
from replfilter.shell.buffer import CompletenessCheck, is_complete, split_paste
from replfilter.shell.completion import Kind, ReplFilterCompleter, is_viable_prefix, quote_name, suggest
from replfilter.shell.errormark import error_position, syntax_error_mark
from replfilter.shell.history import PrivateFileHistory, history_path, is_ignored, open_history
from replfilter.shell.lexer import ReplFilterLexer, grammar_keywords
from replfilter.shell.toolbar import toolbar_fragments

ENTER = "\r"
CTRL_C = "\x03"
CTRL_R = "\x12"
TAB = "\t"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
STATUS_LINE = r"\(\d+\.\d\d sec\)"

SETUP = (
    "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h1' FOR CHANNEL 'ch1';"
    " CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h2' FOR CHANNEL 'other';"
    " CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales, `my db`), REPLICATE_IGNORE_TABLE = (sales.audit, hr.secret),"
    " REPLICATE_WILD_DO_TABLE = ('inv%.t%'), REPLICATE_REWRITE_DB = ((a, b)) FOR CHANNEL 'ch1'"
)


@dataclass
class Run:
    out: str
    err: str
    status: int
    session: Session
    histfile: Path

    @property
    def text(self) -> str:
        return self.out + self.err


@pytest.fixture
def histfile(tmp_path: Path) -> Path:
    return tmp_path / "history"


@pytest.fixture
def shell(histfile: Path):
    """Run the shell on some keystrokes; returns what it printed and the session it ran on."""

    def run(keys: str, session: Session | None = None, argv: tuple[str, ...] = (), output=None, environ=None) -> Run:
        session = session if session is not None else Session()
        env = {"REPLFILTER_HISTFILE": str(histfile), "HOME": str(histfile.parent)} if environ is None else environ
        out, err = io.StringIO(), io.StringIO()
        if TAB in keys:  # the first Tab builds the completion grammar (seconds on a loaded machine):
            suggest("")  # pay it here, so the wait after each Tab covers only the completion itself
        with create_pipe_input() as pipe:
            # A writer thread: an OS pipe holds only 64 KiB until the shell reads it.
            writer = threading.Thread(target=_send_and_close, args=(pipe, keys), daemon=True)
            writer.start()
            status = run_shell(
                session, build_parser().parse_args(list(argv)), input=pipe, output=output or DummyOutput(),
                stdout=out, stderr=err, environ=env, warm_up=False,
            )
            writer.join(timeout=10)
        return Run(out.getvalue(), err.getvalue(), status, session, histfile)

    return run


def _send_and_close(pipe, keys: str) -> None:
    """Send the keys, then close the pipe (the shell sees Ctrl-D). prompt_toolkit completes in a
    background task, so after each Tab the rest waits until that task has had time to run (1.5 s:
    0.5 s was seen to fall short at a load average of 10)."""
    for part in re.split(r"(?<=\t)", keys):
        for start in range(0, len(part), 16384):
            pipe.send_text(part[start : start + 16384])
        if part.endswith(TAB):
            time.sleep(1.5)
    pipe.close()


def configured_session() -> Session:
    session = Session()
    session.execute_sql(SETUP)
    return session


# ---- the loop --------------------------------------------------------------------------------------


def test_banner_statement_and_bye(shell):
    run = shell("SHOW WARNINGS;" + ENTER)
    assert run.status == 0
    assert run.out.startswith("Welcome to replfilter")
    assert "Commands end with ; or \\g." in run.out
    assert re.search(r"^Empty set " + STATUS_LINE + "\n\n", run.out, re.M)
    assert run.out.endswith("Bye\n")
    assert run.err == ""


def test_statement_typed_over_two_lines_runs_once(shell):
    run = shell("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'" + ENTER + "  FOR CHANNEL 'ch1';" + ENTER)
    assert len(re.findall(r"^Query OK, 0 rows affected " + STATUS_LINE, run.out, re.M)) == 1
    assert run.session.state.channel("ch1").configured


def test_prompt_and_continuation_prompt_are_drawn():
    recorded = io.StringIO()
    output = Vt100_Output(recorded, lambda: Size(rows=30, columns=100), term="xterm", enable_cpr=False)
    out = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text("SHOW REPLICA" + ENTER + "STATUS;" + ENTER)
        pipe.close()
        run_shell(Session(), build_parser().parse_args([]), input=pipe, output=output, stdout=out,
                  stderr=io.StringIO(), environ={"REPLFILTER_HISTFILE": ""}, warm_up=False)
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", recorded.getvalue())
    assert PROMPT == "replfilter> " and CONTINUATION == "    -> "
    assert "replfilter> SHOW REPLICA" in screen
    assert "    -> STATUS;" in screen


def test_vertical_output_with_backslash_G(shell):
    run = shell("SELECT FILTER_NAME, FILTER_RULE FROM performance_schema.replication_applier_filters"
                " WHERE CHANNEL_NAME = 'ch1' LIMIT 1\\G" + ENTER, session=configured_session())
    assert "*************************** 1. row ***************************\n" in run.out
    assert "FILTER_NAME: REPLICATE_DO_DB\nFILTER_RULE: sales,my db\n" in run.out
    assert re.search(r"^1 row in set " + STATUS_LINE, run.out, re.M)


def test_boxed_table(shell):
    run = shell("SELECT CHANNEL_NAME, COUNTER FROM performance_schema.replication_applier_filters"
                " WHERE FILTER_NAME = 'REPLICATE_DO_DB';" + ENTER, session=configured_session())
    assert "+--------------+---------+\n| CHANNEL_NAME | COUNTER |\n+--------------+---------+\n| ch1          |       0 |\n" in run.out


def test_clear_discards_the_statement_being_typed(shell):
    session = configured_session()
    before = session.state
    run = shell("CHANGE REPLICATION FILTER REPLICATE_DO_DB = ()" + ENTER + "FOR CHANNEL 'ch1' \\c" + ENTER
                + "SHOW COUNT(*) WARNINGS;" + ENTER, session=session)
    assert session.state == before
    assert "Query OK" not in run.out
    assert "| @@session.warning_count |" in run.out


def test_ctrl_c_cancels_the_input_not_the_shell(shell):
    session = configured_session()
    before = session.state
    run = shell("CHANGE REPLICATION FILTER REPLICATE_DO_DB = ()" + ENTER + CTRL_C + "SHOW WARNINGS;" + ENTER, session=session)
    assert session.state == before
    assert re.search(r"^Empty set " + STATUS_LINE, run.out, re.M)
    assert run.out.endswith("Bye\n") and run.status == 0


@pytest.mark.parametrize("word", ["quit", "exit", "\\q", "quit;"])
def test_quit_words_leave(shell, word):
    run = shell(word + ENTER + "SHOW WARNINGS;" + ENTER)
    assert run.status == 0
    assert run.out.endswith("Bye\n")
    assert "Empty set" not in run.out  # nothing after quit ran


def test_input_forced_through_unfinished_stays_pending(shell):
    """Esc Enter accepts even an unterminated statement; it stays pending (mysql's statement
    buffer, prompt ``    -> ``), neither lost nor run, and the next line continues it."""
    run = shell("SHOW REPLICA" + "\x1b" + ENTER + " STATUS;" + ENTER, session=configured_session())
    assert re.search(r"^2 rows in set " + STATUS_LINE, run.out, re.M)
    assert run.err == ""


def test_several_statements_on_one_line_and_pasted(shell):
    run = shell(PASTE_START + "SHOW WARNINGS; SHOW COUNT(*)\nWARNINGS;\n" + PASTE_END + ENTER)
    assert "Empty set" in run.out and "@@session.warning_count" in run.out


def test_vertical_and_show_warnings_options(shell):
    session = configured_session()
    run = shell("START REPLICA FOR CHANNEL 'ch1';" + ENTER + "START REPLICA FOR CHANNEL 'ch1';" + ENTER
                + "SHOW REPLICA STATUS FOR CHANNEL 'ch1';" + ENTER,
                session=session, argv=("--show-warnings", "--vertical"))
    assert "Query OK, 0 rows affected, 1 warning" in run.out
    assert "Note (Code 3083): Replication thread(s) for channel 'ch1' are already runnning.\n" in run.out
    assert "*************************** 1. row ***************************" in run.out


# ---- errors and bad input ---------------------------------------------------------------------------


def test_syntax_error_is_mysql_shaped_with_a_caret(shell):
    run = shell("CHANGE REPLICATION FILTR REPLICATE_DO_DB = (db1);" + ENTER + "SHOW WARNINGS;" + ENTER)
    assert ("ERROR 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your "
            "MySQL server version for the right syntax to use near 'FILTR REPLICATE_DO_DB = (db1)' at line 1\n"
            "CHANGE REPLICATION FILTR REPLICATE_DO_DB = (db1)\n"
            "                   ^\n") in run.err
    assert "| Error | 1064 |" in run.out  # the error is in the diagnostics area, the shell goes on
    assert "Traceback" not in run.text


def test_semantic_error_leaves_state_unchanged(shell):
    session = configured_session()
    session.execute_text("START REPLICA FOR CHANNEL 'ch1'")
    before = session.state
    run = shell("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'ch1';" + ENTER
                + "START REPLICA FOR CHANNEL 'nope';" + ENTER, session=session)
    assert ("ERROR 3085 (HY000): This operation cannot be performed with a running replica sql thread; "
            "run STOP REPLICA SQL_THREAD FOR CHANNEL 'ch1' first.\n") in run.err
    assert "ERROR 3074 (HY000): Replica channel 'nope' does not exist.\n" in run.err
    assert "^" not in run.err  # only syntax errors get a mark
    assert session.state == before


def test_half_statement_then_end_of_input(shell):
    run = shell("CHANGE REPLICATION FILTER" + ENTER)
    assert run.status == 0 and run.out.endswith("Bye\n") and run.err == ""


def test_unknown_backslash_command_and_unsupported_client_command(shell):
    run = shell("\\k;" + ENTER + "use sales" + ENTER + "SHOW WARNINGS;" + ENTER)
    assert "Unknown command '\\k'." in run.err  # as mysql, which then sends the text on
    assert "ERROR 1064 (42000)" in run.err and "near '\\k' at line 1" in run.err
    assert "Database changed" in run.out and run.session.default_database == "sales"
    assert run.out.index("Database changed") < run.out.index("Empty set")  # use ran USE: it cleared the 1064


def test_lone_delimiter_is_no_query_specified(shell):
    run = shell(";" + ENTER + "SHOW WARNINGS;;" + ENTER)
    assert run.err.count("ERROR: \nNo query specified\n\n") == 2  # put_info puts "ERROR: " on its own line


def test_backslash_q_in_a_line_quits_before_anything_is_sent(shell):
    session = configured_session()
    run = shell("STOP REPLICA FOR CHANNEL 'ch1'; START REPLICA FOR CHANNEL 'ch1' \\q" + ENTER + "SHOW WARNINGS;" + ENTER, session=session)
    assert run.out.count("Query OK") == 1 and run.out.endswith("Bye\n")  # STOP ran, START did not
    assert not session.state.channel("ch1").sql_running


def test_client_commands_wherever_they_are_on_the_line(shell, tmp_path):
    run = shell("SHOW \\W" + ENTER + "WARNINGS \\p" + ENTER + ";" + ENTER, argv=("--skip-system-command",))
    assert run.out.index("Show warnings enabled.") < run.out.index("--------------\nSHOW \nWARNINGS \n--------------\n\n")
    assert re.search(r"^Empty set " + STATUS_LINE, run.out, re.M)
    run = shell("\\! echo x" + ENTER + "system echo y" + ENTER, argv=("--skip-system-command",))
    assert run.err.count("ERROR: \n'system' command received, but the --system-command option is off. Skipping.\n") == 2
    run = shell("\\!" + ENTER + "\\x" + ENTER + "rehash" + ENTER + "\\r" + ENTER)
    assert "ERROR: \nUsage: \\! shell-command\n" in run.err
    assert "Connection id:    2\nCurrent database: *** NONE ***\n\n" in run.out
    assert "Unknown command" not in run.err


def test_prompt_escapes():
    import time as _time

    from replfilter.shell.prompt import PromptFacts, render_prompt

    facts = PromptFacts(counter=3, database=None, delimiter="//", version="8.4.0")
    now = _time.strptime("2026-11-04 09:05:07", "%Y-%m-%d %H:%M:%S")
    assert render_prompt("\\u@\\h:\\p [\\d] \\c\\_\\l\\S\\v> ", facts, now) == "root@localhost:3306 [(none)] 3 //;8.4.0> "
    assert render_prompt("\\R:\\m:\\s \\y-\\o \\O \\w \\P \\D \\\\ \\z", facts, now) == (
        "09:05:07 26-11 Nov Wed am Wed Nov  4 09:05:07 2026 \\ z")
    assert render_prompt("\\d> ", PromptFacts(1, "sales", ";", "8.4.0"), now) == "sales> "


def test_go_without_statement(shell):
    run = shell("\\g" + ENTER)
    assert "ERROR: \nNo query specified\n" in run.err


def test_binary_garbage_typed(shell):
    garbage = "".join(chr(c) for c in range(0x20, 0x7f) if chr(c) not in "\\'\"`#;-/") + "\u0080\u009b\ufffd\U0001f600"
    run = shell(garbage + ";" + ENTER + "SHOW COUNT(*) WARNINGS;" + ENTER)
    assert "ERROR 1064 (42000)" in run.err
    assert "Traceback" not in run.text
    assert "|                       1 |" in run.out
    assert "\x9b" not in run.err  # a C1 control character never reaches the terminal


def test_binary_garbage_handed_to_the_loop():
    shell = Shell(Session(), ShellSettings(history=False), io.StringIO(), io.StringIO(), environ={})
    err = shell.out._stderr
    shell.handle("\x00\x01\x02\x1b[31m\x7f\xff garbage;")
    text = err.getvalue()
    assert text.startswith("ERROR 1064 (42000): ")
    assert "\x1b" not in text and "\x00" not in text
    assert "^" in text


def test_one_megabyte_paste(shell):
    """A paste of a megabyte is cut, echoed, kept in history and run without hanging the prompt;
    how long it takes is a figure of bench/shell_paste.py, not an assertion here. The 1 MB
    statement misspells its verb so the parser refuses it at once: this test is about the shell,
    the parser's time on a 1 MB statement is in the benchmark."""
    session = configured_session()
    before = session.state
    big_line = "CHANGE REPLICATION FILTR REPLICATE_DO_DB = (" + "x," * 500_000 + ";"
    many_lines = "\n".join(["SELECT * FROM performance_schema.replication_applier_filters WHERE"] + ["x" * 48] * 20_000) + ";"
    run = shell(PASTE_START + big_line + "\n" + many_lines + "\n" + PASTE_END + "SHOW COUNT(*) WARNINGS;" + ENTER,
                session=session)
    assert run.err.count("ERROR 1064 (42000)") == 2
    assert "|                       1 |" in run.out  # a fresh prompt took the next statement
    assert session.state == before


def test_an_internal_failure_is_reported_not_raised(shell, monkeypatch):
    session = Session()

    def boom(text: str):
        raise RuntimeError("boom")

    monkeypatch.setattr(session, "execute_text", boom)
    run = shell("SHOW WARNINGS;" + ENTER + "status" + ENTER, session=session)
    assert "ERROR 1105 (HY000): Unknown error in replfilter (RuntimeError: boom)\n" in run.err
    assert "Traceback" not in run.text
    assert "lower_case_table_names:" in run.out  # the shell went on


def test_completeness_decides_when_enter_runs():
    assert is_complete("")
    assert is_complete("   ")
    assert is_complete("SHOW WARNINGS;")
    assert is_complete("SHOW WARNINGS\\G")
    assert is_complete("SHOW WARNINGS\\g")
    assert is_complete("SHOW\nWARNINGS;")
    assert is_complete("quit")
    assert is_complete("source x.sql")
    assert is_complete("SHOW WARNINGS \\c")
    assert not is_complete("SHOW WARNINGS")
    assert not is_complete("SELECT 'a;")
    assert not is_complete("SHOW /* ; */ WARNINGS")
    # mysql acts on each line at once: a line that ends a statement or holds a client command
    # runs, even with a statement left open after it (it stays pending, "    -> ")
    assert is_complete("SELECT 1; SHOW")
    assert is_complete("SHOW REPLICA STATUS \\q")
    assert is_complete("SHOW REPLICA \\W")
    assert is_complete("SHOW \\k")
    assert not is_complete("SHOW\nREPLICA")
    pending = StatementBuffer()
    pending.feed_line("SELECT 'a")
    assert not is_complete("b", pending=pending) and is_complete("b';", pending=pending)
    check = CompletenessCheck()
    assert check("SHOW") is False and check("SHOW") is False and check("SHOW;") is True


def test_a_paste_is_cut_into_inputs_that_end_with_nothing_pending():
    assert split_paste("SHOW WARNINGS;\nSHOW\nWARNINGS;\n\nSELECT 'a\nb") == (
        ["SHOW WARNINGS;", "SHOW\nWARNINGS;"], "SELECT 'a\nb")
    assert split_paste("SHOW WARNINGS") == ([], "SHOW WARNINGS")
    assert split_paste("quit\nSHOW WARNINGS;\n") == (["quit", "SHOW WARNINGS;"], "")


# ---- history --------------------------------------------------------------------------------------


def test_history_file_is_written_with_mode_0600(shell, histfile):
    old_umask = os.umask(0o022)
    try:
        shell("SHOW WARNINGS;" + ENTER + "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'," + ENTER
              + "SOURCE_PASSWORD='secret' FOR CHANNEL 'c';" + ENTER)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(histfile.stat().st_mode) == 0o600
    text = histfile.read_text()
    assert "+SHOW WARNINGS;" in text
    assert "secret" not in text  # password-bearing statements stay out of the file


def test_history_default_path_and_overrides(tmp_path):
    assert history_path({"HOME": str(tmp_path)}) == tmp_path / ".replfilter_history"
    assert history_path({"HOME": str(tmp_path), "REPLFILTER_HISTFILE": str(tmp_path / "h")}) == tmp_path / "h"
    assert history_path({"REPLFILTER_HISTFILE": ""}) is None
    assert history_path({"REPLFILTER_HISTFILE": os.devnull}) is None
    assert is_ignored("change master to master_password='x'")
    assert not is_ignored("SHOW WARNINGS")
    assert not isinstance(open_history(False, {"HOME": str(tmp_path)}), PrivateFileHistory)


def test_no_history_writes_nothing(shell, tmp_path, histfile):
    shell("SHOW WARNINGS;" + ENTER, argv=("--no-history",))
    assert not histfile.exists()
    assert not (tmp_path / ".replfilter_history").exists()


def test_history_lives_in_home_by_default(shell, tmp_path):
    shell("SHOW WARNINGS;" + ENTER, environ={"HOME": str(tmp_path)})
    path = tmp_path / ".replfilter_history"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "+SHOW WARNINGS;" in path.read_text()


def test_ctrl_r_searches_history(shell, histfile):
    shell("SHOW REPLICA STATUS;" + ENTER + "SHOW WARNINGS;" + ENTER)
    run = shell(CTRL_R + "REPLICA ST" + ENTER + ENTER, session=configured_session())
    assert "Replica_IO_State" in run.out
    assert re.search(r"^2 rows in set " + STATUS_LINE, run.out, re.M)


def test_up_arrow_recalls_a_multi_line_statement(shell):
    shell("SHOW" + ENTER + "COUNT(*) WARNINGS;" + ENTER)
    run = shell("\x1b[A" + ENTER)
    assert "@@session.warning_count" in run.out


# ---- completion ---------------------------------------------------------------------------------------


def complete(text: str, session: Session | None = None) -> list[str]:
    session = session or configured_session()
    completer = ReplFilterCompleter(lambda: session.state, commands.command_words(), helptext.topic_names())
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


FILTER_TYPE_NAMES = sorted(t.keyword for t in FILTER_TYPES)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("CHANGE REPLICATION FILTER ", FILTER_TYPE_NAMES),
        ("change replication filter ", FILTER_TYPE_NAMES),
        ("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), ", FILTER_TYPE_NAMES),
        ("change replication filter replicate_ig", ["replicate_ignore_db", "replicate_ignore_table"]),
        ("START REPLICA FOR CHANNEL ", ["'ch1'", "'other'"]),  # not '': unconfigured, 1200
        ("STOP REPLICA FOR CHANNEL ", ["''", "'ch1'", "'other'"]),
        ("CHANGE REPLICATION FILTER REPLICATE_DO_DB = () FOR CHANNEL '", ["'ch1'", "'other'"]),  # not '': 1794
        ("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '", ["''", "'ch1'", "'other'"]),
        ("CHANGE REPLICATION FILTER REPLICATE_DO_DB = () FOR CHANNEL 'o", ["'other'"]),
        ("STOP REPLICA FOR CHANNEL c", ["'ch1'"]),
        ("SELECT * FROM ", ["performance_schema.replication_applier_filters",
                            "performance_schema.replication_applier_global_filters"]),
        ("SELECT * FROM performance_schema.replication_applier_g", ["performance_schema.replication_applier_global_filters"]),
        ("SELECT * FROM performance_schema.replication_applier_filters WHERE ", list(CHANNEL_COLUMNS)),
        ("SELECT * FROM performance_schema.replication_applier_global_filters ORDER BY ", list(GLOBAL_COLUMNS)),
        ("SELECT * FROM performance_schema.replication_applier_filters WHERE COUNTER = 1 AND filter_n", ["filter_name"]),
        ("SELECT * FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME = ", ["''", "'ch1'", "'other'"]),
        ("SELECT ", ["*", "COUNT(*)", *CHANNEL_COLUMNS]),
        ("SELECT * ", ["FROM"]),
        ("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (", ["a", "b", "hr", "`my db`", "sales"]),
        ("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((sales, ", ["a", "b", "hr", "`my db`", "sales"]),
        ("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (sales.", ["sales.audit", "sales."]),
        ("CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('inv", ["'inv%.t%'"]),
        ("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) ", ["FOR"]),
        ("START REPLICA ", ["DEFAULT_AUTH", "FOR", "IO_THREAD", "PASSWORD", "PLUGIN_DIR", "RELAY_THREAD", "SQL_THREAD", "UNTIL", "USER"]),
        ("RESET REPLICA ", ["ALL", "FOR"]),
        ("SHOW REPLICA STATUS ", ["FOR"]),
        ("sta", ["start", "status"]),
        ("SHOW WARNINGS; sh", ["show"]),
        ("CHANGE REPLICATION SOURCE TO SOURCE_H", ["SOURCE_HOST"]),
        ("CHANGE MASTER TO MASTER_HOST = 'x', master_p", ["master_password", "master_port"]),
        ("help change repl", ["change replication filter", "change replication source to"]),
    ],
)
def test_completion_candidates(text, expected):
    assert complete(text) == expected


def test_completion_at_the_start_of_a_line():
    """Statement keywords (whatever the grammar starts statements with), then client commands."""
    candidates = complete("")
    keywords = [c for c in candidates if c.isupper()]
    assert {"CHANGE", "RESET", "SELECT", "SHOW", "START", "STOP"} <= set(keywords)
    assert keywords == sorted(keywords)
    assert candidates[len(keywords):] == commands.command_words()
    assert "help" not in complete("SHOW ")  # client commands only where a line starts


@pytest.mark.parametrize(
    "text",
    [
        "CHANGE REPLICATION FILTR ",  # already a syntax error
        "START REPLICA FOR CHANNEL 'ch1' ",  # the statement is complete: only ; could follow
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB ",  # only "=" fits
        "SELECT * FROM x LIMIT ",  # a number, nothing to offer
        "SHOW WARNINGS # a comment",
        "SHOW /* open comment ",
        "SELECT * FROM performance_schema.replication_applier_filters WHERE COUNTER = ",
    ],
)
def test_no_completion_where_nothing_fits(text):
    assert complete(text) == []


def test_candidates_never_make_a_syntax_error():
    """Every candidate offered after a prefix keeps the text a prefix the grammar accepts."""
    session = configured_session()
    prefixes = ["", "CHANGE REPLICATION FILTER ", "START REPLICA ", "SELECT ", "SELECT * FROM ",
                "SELECT * FROM performance_schema.replication_applier_filters WHERE ", "RESET REPLICA ",
                "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (", "STOP REPLICA FOR CHANNEL "]
    for prefix in prefixes:
        for candidate in complete(prefix, session):
            if candidate in commands.command_words():
                continue
            assert is_viable_prefix(prefix + candidate + " "), (prefix, candidate)
    assert not is_viable_prefix("CHANGE REPLICATION FILTR ")


def test_names_are_quoted_when_they_must_be():
    assert quote_name("sales") == "sales"
    assert quote_name("my db") == "`my db`"
    assert quote_name("select") == "`select`"
    assert quote_name("123") == "`123`"
    assert quote_name("a`b") == "`a``b`"


def test_source_completes_file_names(tmp_path):
    (tmp_path / "filters.sql").write_text("SHOW WARNINGS;\n")
    assert complete(f"source {tmp_path}/fil") == ["ters.sql"]
    assert complete(f"\\. {tmp_path}/fil") == ["ters.sql"]


def test_suggestions_follow_the_current_delimiter():
    assert Kind.CHANNEL in suggest("SHOW WARNINGS// START REPLICA FOR CHANNEL ", "//").kinds
    assert Kind.CHANNEL not in suggest("SHOW WARNINGS// START REPLICA FOR CHANNEL ").kinds  # ';': one statement


def test_suggest_kinds():
    assert Kind.CHANNEL in suggest("START REPLICA FOR CHANNEL ").kinds
    assert Kind.PS_TABLE in suggest("SELECT * FROM ").kinds
    assert suggest("SELECT * FROM performance_schema.replication_applier_global_filters WHERE ").table == \
        "replication_applier_global_filters"


def test_tab_completes_a_channel_name_at_the_prompt(shell):
    session = configured_session()
    run = shell("START REPLICA FOR CHANNEL 'c" + TAB + ";" + ENTER, session=session)
    assert run.err == ""
    assert session.state.channel("ch1").sql_running


def test_tab_completes_a_filter_type_at_the_prompt(shell):
    session = configured_session()
    run = shell("CHANGE REPLICATION FILTER REPLICATE_IGNORE_D" + TAB + " = (x) FOR CHANNEL 'other';" + ENTER, session=session)
    assert run.err == ""
    assert session.state.channel("other").filters.rules(FILTER_TYPES[1]) == ("x",)


# ---- client commands ----------------------------------------------------------------------------------


def test_help_lists_every_registered_command(shell):
    run = shell("help" + ENTER)
    assert "List of all client commands:" in run.out
    for cmd in commands.REGISTRY.values():
        # mysql pads names to 10 columns; a longer one ("resetconnection(\\x)") runs on
        assert re.search(rf"^{re.escape(cmd.name)}\s*\(\\{re.escape(cmd.shortcut)}\) {re.escape(cmd.description)}$", run.out, re.M)
    assert "?         (\\?) Synonym for `help'." in run.out


def test_registry_agrees_with_the_splitter():
    assert commands.check_shortcuts() == []
    for required in ("help", "source", "status", "warnings", "nowarning", "tee", "notee", "quit", "clear"):
        assert required in commands.REGISTRY
    if os.name == "posix":
        assert "pager" in commands.REGISTRY and "nopager" in commands.REGISTRY


@pytest.mark.parametrize("topic", helptext.TOPICS, ids=lambda t: t.name)
def test_help_for_each_statement_has_syntax_and_a_parsing_example(shell, topic):
    run = shell(f"help {topic.name.lower()}" + ENTER)
    assert f"Name: '{topic.name}'" in run.out
    assert "Syntax:" in run.out and "Example:" in run.out
    for item in split_statements(topic.example):
        assert isinstance(item, StatementText)
        parse_statement(item.text)  # raises if the example is not valid


def test_help_lookup_shapes():
    assert "Many help items for your request exist." in helptext.lookup("change")
    assert helptext.lookup("nothing like it").startswith("Nothing found")
    assert "Name: 'SHOW REPLICA STATUS'" in helptext.lookup("SHOW SLAVE STATUS")
    assert "topics:\n   CHANGE REPLICATION FILTER" in helptext.lookup("contents")
    assert "\\h" in commands.help_listing()


def test_help_question_mark_and_h(shell):
    run = shell("? start replica" + ENTER + "\\h stop replica" + ENTER)
    assert "Name: 'START REPLICA'" in run.out and "Name: 'STOP REPLICA'" in run.out


def test_source_runs_a_file_reports_errors_and_goes_on(shell, tmp_path):
    script = tmp_path / "f.sql"
    script.write_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'ch9';\nSHOW WARNINGZ;\nSTART REPLICA FOR CHANNEL 'ch9';\n")
    session = Session()
    run = shell(f"source {script}" + ENTER + f"\\. {tmp_path}/missing.sql" + ENTER + "source" + ENTER, session=session)
    assert f"ERROR 1064 (42000) at line 2 in file: '{script}': " in run.err
    assert session.state.channel("ch9").sql_running  # the statement after the error ran
    assert len(re.findall(r"^Query OK", run.out, re.M)) == 2
    assert f"ERROR: Failed to open file '{tmp_path}/missing.sql', error: 2\n" in run.err
    assert "ERROR: Usage: \\. <filename> | source <filename>\n" in run.err


def test_source_of_a_file_with_bytes_that_are_not_utf8_reads_it_as_scripts_do(shell, tmp_path):
    script = tmp_path / "ff.sql"
    script.write_bytes(b"SHOW \xff WARNINGS;\nCHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c';\n")
    session = Session()
    run = shell(f"source {script}" + ENTER, session=session)
    assert f"ERROR 1064 (42000) at line 1 in file: '{script}': " in run.err and "near '\\xFF WARNINGS'" in run.err
    assert session.state.channel("c") is not None  # the file was read, and went on after the error


def test_delimiter_in_the_shell(shell, tmp_path):
    """After ``delimiter //`` Enter runs the input only once ``//`` ends it (``;`` is text), a
    sourced file's delimiter stays, ``status`` shows it, and a refused one is the client's error."""
    sourced = tmp_path / "d.sql"
    sourced.write_text("delimiter $$\n")
    session = Session()
    run = shell(
        "delimiter //" + ENTER
        + "CHANGE REPLICATION FILTER" + ENTER + "REPLICATE_DO_DB = (db1)//" + ENTER
        + "\\d" + ENTER
        + f"source {sourced}" + ENTER
        + "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db2)$$" + ENTER
        + "status$$" + ENTER,
        session=session,
    )
    filters = session.state.global_filters
    assert [filters.rules(FilterType.DO_DB), filters.rules(FilterType.IGNORE_DB)] == [("db1",), ("db2",)]
    assert "ERROR: \nDELIMITER must be followed by a 'delimiter' character or string\n" in run.err
    assert "Using delimiter:\t$$\n" in run.out
    assert is_complete("SHOW WARNINGS;", "//") is False and is_complete("SHOW WARNINGS//", "//") is True
    assert is_complete("delimiter //\nSHOW WARNINGS;", ";") is False


def test_status(shell, tmp_path):
    run = shell("status" + ENTER + "\\s" + ENTER, session=configured_session(), argv=("--datadir", str(tmp_path)))
    assert run.out.count("lower_case_table_names:\t0") == 2
    assert f"Data directory:\t\t{tmp_path}" in run.out
    assert "| 'ch1'   | Yes        | h1          | No        | No         |            6 |" in run.out
    assert "Current database:\t\n" in run.out


def test_status_shows_the_database_use_chose(shell):
    run = shell("use sales" + ENTER + "status" + ENTER)
    assert "Database changed" in run.out and "Current database:\tsales\n" in run.out


def test_executable_comments_in_the_shell(shell):
    run = shell("/*!80000 SELECT @@version */;" + ENTER + "/*!99999 SHOW WARNINGS */;" + ENTER)
    assert "| 8.4.3     |" in run.out
    assert "ERROR 1065 (42000): Query was empty" in run.err


def test_banner_and_status_show_the_simulated_version(shell):
    from replfilter.core.version import ServerVersion
    from replfilter.replica.state import ReplicaState

    run = shell("status" + ENTER, session=Session(ReplicaState.fresh(version=ServerVersion.MYSQL_8_0)))
    assert "a simulated MySQL 8.0.40 replica for trying replication filters." in run.out
    assert "replfilter " in run.out and "a simulated MySQL 8.0.40 replica (replication filters)" in run.out
    run = shell("status" + ENTER, session=Session())
    assert "a simulated MySQL 8.4.3 replica (replication filters)" in run.out
    shell_object = Shell(Session(ReplicaState.fresh(version=ServerVersion.MYSQL_8_0)), ShellSettings(history=False),
                         io.StringIO(), io.StringIO(), environ={})
    shell_object.prompt_template = "v\\v> "
    assert shell_object.prompt_text() == "v8.0.40> "


def test_warnings_and_nowarning(shell):
    session = configured_session()
    run = shell("\\W" + ENTER + "STOP REPLICA FOR CHANNEL 'ch1';" + ENTER + "nowarning" + ENTER
                + "STOP REPLICA FOR CHANNEL 'ch1';" + ENTER, session=session)
    assert "Show warnings enabled.\n" in run.out and "Show warnings disabled.\n" in run.out
    assert run.out.count("Note (Code 3084): Replication thread(s) for channel 'ch1' are already stopped.") == 1
    assert run.out.count("Query OK, 0 rows affected, 1 warning") == 2


def test_tee_copies_input_and_output(shell, tmp_path):
    log = tmp_path / "tee.log"
    run = shell(f"tee {log}" + ENTER + "SHOW WARNINGS;" + ENTER + "SHOW WARNINGZ;" + ENTER + "notee" + ENTER + "SHOW COUNT(*) WARNINGS;" + ENTER)
    assert f"Logging to file '{log}'" in run.out and "Outfile disabled." in run.out
    text = log.read_text()
    assert "replfilter> SHOW WARNINGS;\nEmpty set" in text
    assert "ERROR 1064 (42000)" in text
    assert "Logging to file" not in text  # init_tee prints it before the file is opened for copies
    assert "warning_count" not in text


def test_tee_to_an_unwritable_place(shell, tmp_path):
    run = shell(f"tee {tmp_path}/no/such/dir/x" + ENTER + "tee" + ENTER)
    assert f"Error logging to file '{tmp_path}/no/such/dir/x'" in run.err
    assert "No outfile specified!" in run.err


@pytest.mark.skipif(os.name != "posix", reason="pager needs a POSIX shell")
def test_pager_pipes_results(shell, tmp_path):
    """com_go: the rows go through the pager, "N rows in set" is printed after it, on the terminal;
    an empty set has no rows to page."""
    paged = tmp_path / "paged.txt"
    run = shell(f"pager cat > {paged}" + ENTER + "SHOW COUNT(*) WARNINGS;" + ENTER + "SHOW WARNINGS;" + ENTER
                + "nopager" + ENTER + "SHOW COUNT(*) WARNINGS;" + ENTER + "pager no-such-pager-program" + ENTER)
    assert f"PAGER set to 'cat > {paged}'" in run.out and "PAGER set to stdout" in run.out
    assert "| @@session.warning_count |" in paged.read_text()
    assert "rows in set" not in paged.read_text() and "row in set" not in paged.read_text()
    assert len(re.findall(r"^1 row in set " + STATUS_LINE, run.out, re.M)) == 2  # paged and not
    assert run.out.count("| @@session.warning_count |") == 1  # only the unpaged one
    assert re.search(r"^Empty set " + STATUS_LINE, run.out, re.M)
    assert "ERROR: pager 'no-such-pager-program' not found" in run.err


# ---- pieces ---------------------------------------------------------------------------------------------


def _error(text: str) -> MySQLError:
    with pytest.raises(MySQLError) as caught:
        parse_statement(text)
    return caught.value


@pytest.mark.parametrize(
    "text, position",
    [
        ("CHANGE REPLICATION FILTR x", 19),
        ("SHOW REPLICA", 12),
        ("SHOW\nREPLICA STATUZ", 13),
        ("START REPLICA FOR CHANNEL 'a' " + "x " * 100, 30),
    ],
)
def test_error_position(text, position):
    assert error_position(text, _error(text)) == position


def test_error_mark_under_a_wide_and_a_long_line():
    text = "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (数据库) x"
    mark = syntax_error_mark(text, _error(text))
    line, caret = mark.splitlines()
    assert caret.index("^") == len("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (数据库) ") + 3
    long_text = "START REPLICA FOR CHANNEL 'a' " + "y" * 500
    line, caret = syntax_error_mark(long_text, _error(long_text), width=80).splitlines()
    assert len(line) <= 90 and line[caret.index("^")] == "y"


def test_no_mark_for_other_errors():
    assert syntax_error_mark("x", MySQLError(3074, "HY000", "Replica channel 'x' does not exist.")) == ""


def test_toolbar_shows_channels_threads_and_warnings():
    session = configured_session()
    session.execute_text("START REPLICA SQL_THREAD FOR CHANNEL 'ch1'")
    session.execute_text("START REPLICA SQL_THREAD FOR CHANNEL 'ch1'")
    text = "".join(fragment[1] for fragment in toolbar_fragments(session.state, len(session.diagnostics)))
    assert "'' SQL off" in text and "'ch1' SQL on" in text and "'other' SQL off" in text
    assert text.endswith("  |  1 warning  |  \\h help  \\q quit ")


def test_toolbar_fits_any_width():
    session = Session()
    for n in range(16):
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'channel_{n:02d}'")
    session.execute_text("START REPLICA SQL_THREAD FOR CHANNEL 'channel_07'")
    session.execute_text("START REPLICA SQL_THREAD FOR CHANNEL 'channel_07'")

    def shown(width: int) -> str:
        return "".join(f[1] for f in toolbar_fragments(session.state, len(session.diagnostics), width))

    assert "'channel_15' SQL off" in shown(1000)  # every channel when they fit
    assert shown(100) == " 17 channels, 1 SQL running ('channel_07'), 1 warning  |  \\h help  \\q quit "
    assert shown(60) == " 17 channels, 1 SQL running ('channel_07'), 1 warning"
    assert shown(40) == " 17 channels, 1 SQL running, 1 warning"
    assert shown(12) == " 1 warning"
    for width in range(1, 300):
        text = shown(width)
        assert "1 warning" in text and "more" not in text
        assert "SQL running" not in text or "1 SQL running" in text


def test_toolbar_can_be_turned_off(shell):
    shell_object = Shell(Session(), ShellSettings.from_args(build_parser().parse_args(["--no-toolbar", "--no-history"])),
                         io.StringIO(), io.StringIO(), environ={})
    assert shell_object.prompt_session(output=DummyOutput()).bottom_toolbar is None


def test_lexer_keywords_come_from_the_grammar():
    keywords = set(grammar_keywords())
    assert {t.keyword for t in FILTER_TYPES} <= keywords
    assert {"CHANGE", "REPLICATION", "FILTER", "FOR", "CHANNEL", "SELECT", "FROM"} <= keywords
    tokens = list(ReplFilterLexer().get_tokens("change replication filter replicate_do_db = (a) for channel 'x'; \x01"))
    kinds = {value: str(token) for token, value in tokens}
    assert kinds["change"] == "Token.Keyword" and kinds["replicate_do_db"] == "Token.Name.Builtin"
    assert kinds["'x'"] == "Token.Literal.String.Single" and kinds["\x01"] == "Token.Error"


def test_shell_import_is_light():
    """Opening the shell never imports pyspark; the parser (lark) is only loaded on first use."""
    code = ("import sys, replfilter.cli.main, replfilter.shell.app;"
            "bad = [m for m in ('pyspark', 'lark', 'py4j') if m in sys.modules];"
            "print(','.join(bad))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_cli_hands_the_terminal_to_the_shell(monkeypatch):
    """main() calls run_shell when standard input and output are terminals."""
    from replfilter.cli import main as cli
    from replfilter.shell import app

    seen = {}

    def fake_run_shell(session, args, datadir=None):
        seen.update(session=session, datadir=datadir, no_history=args.no_history)
        return 0

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(app, "run_shell", fake_run_shell)
    assert cli.main(["--no-history"], stdin=Tty(), stdout=Tty(), stderr=io.StringIO()) == 0
    assert isinstance(seen["session"], Session) and seen["no_history"] is True


def test_continuation_prompt_shows_the_open_quote_or_comment_as_mysql_does():
    from replfilter.shell.app import continuation_prompts

    text = "SELECT 'a\nb\nc' x\nFROM /* y\nz */ t\nWHERE `q\n` = \"r\ns\" AND\n1"
    assert continuation_prompts(text) == [
        "    '> ", "    '> ", "    -> ", "   /*> ", "    -> ", "    `> ", '    "> ', "    -> ",
    ]


def test_tab_after_a_pending_statement_knows_where_it_is(shell):
    """``CHANGE REPLICATION FILTER \\W`` runs \\W and leaves the statement pending; Tab on the next
    (continuation) line completes as its continuation."""
    run = shell("CHANGE REPLICATION FILTER \\W" + ENTER + "REPLICATE_IGNORE_D" + TAB + " = (x);" + ENTER + "SHOW WARNINGS;" + ENTER)
    assert "Show warnings enabled." in run.out
    assert "ERROR 1064" not in run.err and run.err == ""
    assert run.session.state.global_filters != Session().state.global_filters


def test_use_and_charset_answer_as_far_as_replfilter_can(shell):
    run = shell("use" + ENTER + "use sales" + ENTER + "charset utf8mb4" + ENTER + "\\C latin1" + ENTER + "\\C" + ENTER)
    assert "ERROR: \nUSE must be followed by a database name\n" in run.err
    assert "Charset changed\n" in run.out
    assert "Charset 'latin1' is not available" in run.err
    assert "ERROR: \nUsage: \\C charset_name | charset charset_name\n" in run.err
    assert "Database changed" in run.out and run.session.default_database == "sales"


def test_a_nul_byte_in_source_or_system_is_an_error_not_a_traceback(shell, tmp_path):
    """``\\.`` and ``\\!`` hand a name or command to the operating system, which takes no NUL (a
    terminal's NUL is a key, Ctrl-@, so the byte comes from a sourced file)."""
    script = tmp_path / "nul.sql"
    script.write_bytes(b"source x\0y\n\\! echo a\0b\nSHOW WARNINGS;\n")
    run = shell(f"source {script}" + ENTER)
    assert run.status == 0
    assert "ERROR: Failed to open file 'x\\0y', error: 22\n" in run.err
    assert f"ERROR at line 2 in file: '{script}': a shell command cannot hold a NUL byte; not run: 'echo a\\0b'\n" in run.err
    assert "Traceback" not in run.text and "Empty set" in run.out
