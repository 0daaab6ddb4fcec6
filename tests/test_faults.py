"""Faults a user meets at the edges of the program: names the operating system cannot take, an
interrupted or closed output, files that start oddly. Each gets one clear line in MySQL's
manner and the exit status a script can test, never a Python traceback."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replfilter.cli import main as cli
from replfilter.core.errors import MySQLError
from replfilter.server.session import Session

# names with a NUL byte somewhere: raw in the text, or written as the \0 escape of a string
_PARTS = st.text(alphabet=st.characters(whitelist_categories=("L", "N"), whitelist_characters="-_.,/"), max_size=12)
NUL_NAMES = st.tuples(_PARTS, _PARTS).map(lambda parts: "/tmp/" + parts[0] + "\0" + parts[1])


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@settings(max_examples=25, deadline=None)
@given(name=NUL_NAMES, statement=st.sampled_from(["LOAD SCHEMA FROM", "REPLAY EVENTS FROM"]), escaped=st.booleans())
def test_a_nul_byte_in_a_file_name_of_a_statement_is_1016(name: str, statement: str, escaped: bool) -> None:
    """The kernel takes no NUL in a name: the error the open would give (EINVAL), the byte
    shown as \\0, the state unchanged."""
    literal = name.replace("\0", "\\0") if escaped else name
    session = Session()
    before = session.state
    try:
        session.execute_text(f"{statement} '{literal}'")
    except MySQLError as error:
        assert error.code == 1016
        assert error.message == (f"Can't open file: '{name.replace(chr(0), chr(92) + '0')}' "
                                 "(errno: 22 - Invalid argument: a file name cannot hold a NUL byte)")
    else:
        raise AssertionError("accepted a file name with a NUL byte")
    assert session.state == before


@settings(max_examples=15, deadline=None)
@given(name=NUL_NAMES)
def test_a_nul_byte_in_source_or_system_is_the_client_error_and_force_goes_on(name: str) -> None:
    script = f"source {name}\n\\. {name}\nsystem echo {name}\n\\! echo {name}\nSHOW WARNINGS;\n"
    status, out, err = run(["--force"], stdin=script)
    shown = name.replace("\0", "\\0")
    assert status == 1
    assert err.splitlines() == [
        f"ERROR: Failed to open file '{shown}', error: 22",
        f"ERROR: Failed to open file '{shown}', error: 22",
        f"ERROR at line 3: a shell command cannot hold a NUL byte; not run: 'echo {shown}'",
        f"ERROR at line 4: a shell command cannot hold a NUL byte; not run: 'echo {shown}'",
    ]
    assert out == ""  # SHOW WARNINGS after them ran: an empty result prints nothing in batch mode


# ---- output that fails, and Ctrl-C: the real program, a real pipe, a real full device --------------

ROW_EVENT = '{"v": 1, "type": "row", "channel": "", "db": "d", "table": "t"}\n'
# each writes far more than a pipe holds (64 KiB), so the reader can leave before the end
COMMANDS = {
    "evaluate": ["evaluate", "EVENTS"],
    "lint": ["lint", *[f"--replicate-wild-do-table=db_{i}.t_%" for i in range(100)]],
    "-e": ["--replicate-do-db=a", "-e", "SELECT * FROM performance_schema.replication_applier_global_filters;" * 1500],
    "--format json": ["--format", "json", "-e", "SHOW WARNINGS;" * 5000],
}


def _command(name: str, events: Path) -> list[str]:
    return [sys.executable, "-m", "replfilter", *[str(events) if a == "EVENTS" else a for a in COMMANDS[name]]]


@pytest.fixture(scope="module")
def many_events(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("events") / "many.jsonl"
    path.write_text(ROW_EVENT * 200_000)
    return path


@pytest.mark.e2e
@pytest.mark.parametrize("name", COMMANDS)
def test_a_full_device_is_one_line_and_status_1(name: str, many_events: Path) -> None:
    with open("/dev/full", "w") as full:
        ran = subprocess.run(_command(name, many_events), stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert ran.returncode == 1
    assert ran.stderr == "replfilter: error writing to standard output: No space left on device (errno 28)\n"


@pytest.mark.e2e
@pytest.mark.parametrize("name", COMMANDS)
def test_a_closed_pipe_ends_the_run_quietly_with_status_1(name: str, many_events: Path) -> None:
    """``| head -1``: the reader has what it wants; the writer stops without a word, status 1."""
    process = subprocess.Popen(_command(name, many_events), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # head -1 exits
    errors = process.stderr.read()
    assert process.wait(timeout=120) == 1
    assert errors == ""


@pytest.mark.e2e
def test_ctrl_c_during_evaluate_exits_as_mysql_does_on_complete_lines(many_events: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with open(out, "w") as handle:
        process = subprocess.Popen(_command("evaluate", many_events), stdout=handle, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while out.stat().st_size == 0 and time.monotonic() < deadline:  # it is deciding lines
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=60)
    assert process.returncode == 1
    assert errors == "Ctrl-C -- exit!\n"
    text = out.read_text()
    assert text.endswith("\n") and 0 < text.count("\n") < 200_000
    assert all(json.loads(line)["decision"] == "APPLY" for line in text.splitlines())


def test_the_readme_event_example_pastes_as_one_event_per_line(tmp_path: Path) -> None:
    """README, "The event model": each line of the example is an event as written."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### The event model"):]
    example = section[section.index("```json\n") + len("```json\n"):section.index("```\n", section.index("```json"))]
    events = tmp_path / "example.jsonl"
    events.write_text(example)
    status, out, err = run(["evaluate", str(events)])
    assert (status, err) == (0, "")
    assert [json.loads(line)["line"] for line in out.splitlines()] == [1, 2, 3]


# ---- event lines a user's file holds: a byte order mark, a key given twice, JSON's spelling --------

BOM_FILE = (
    "\ufeff" + ROW_EVENT.replace('"t"', '"first"')
    + '{"v": 1, "type": "row", "channel": "", "db": "d", "table": "a", "table": "b"}\n'
    + '{"v": true, "type": "row", "db": "d", "table": "t"}\n'
    + '{"v": 1, "type": "row", "db": null, "table": "t"}\n'
)
WANT_ERRORS = [
    (2, "field 'table': given twice in one object (a JSON reader may keep either value)"),
    (3, "field 'v': unsupported version true (this reader understands 1)"),
    (4, "field 'db': expected a string, got null"),
]


def test_evaluate_reads_a_bom_refuses_duplicate_keys_and_spells_values_as_json(tmp_path: Path) -> None:
    events = tmp_path / "bom.jsonl"
    events.write_text(BOM_FILE, encoding="utf-8")
    status, out, err = run(["evaluate", str(events), "--replicate-do-table=d.first"])
    results = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert results[0]["event"]["table"] == "first" and results[0]["decision"] == "APPLY"
    assert [(r["line"], r["error"]) for r in results[1:]] == WANT_ERRORS
    assert err.splitlines() == [f"replfilter: {events}: line {n}: {message}" for n, message in WANT_ERRORS]


def test_replay_events_reads_the_same_lines_the_same_way(tmp_path: Path) -> None:
    events = tmp_path / "bom.jsonl"
    events.write_text(BOM_FILE, encoding="utf-8")
    session = Session()
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.first)")
    result = session.execute_text(f"REPLAY EVENTS FROM '{events}'")
    assert [tuple(row) for row in result.rows] == [("", "APPLY", 1)]  # type: ignore[union-attr]
    assert [w.message for w in result.warnings] == [  # type: ignore[union-attr]
        f"Incorrect event value: '{events}: line {n}: {message}'" for n, message in WANT_ERRORS
    ]


@pytest.mark.parametrize("value, spelled", [(True, "true"), (None, "null"), ("1", '"1"'), (1.5, "1.5"), ([1], "[1]")])
def test_an_unsupported_version_is_quoted_as_json_writes_it(value: object, spelled: str) -> None:
    from replfilter.evaluation.event_json import EventFormatError, from_json

    with pytest.raises(EventFormatError) as refused:
        from_json(json.dumps({"v": value, "type": "row", "db": "d", "table": "t"}))
    assert str(refused.value) == f"field 'v': unsupported version {spelled} (this reader understands 1)"


@pytest.mark.e2e
@pytest.mark.parametrize("where", ["output", "checkpoint", "under-output", "--dead-letter"])
def test_stream_checks_its_directories_before_spark_starts(tmp_path: Path, where: str) -> None:
    """A file where a directory must be is said at once, and no JVM starts (it would make
    its scratch directory under TMPDIR, and fail only in its first batch)."""
    (tmp_path / "events").mkdir()
    (tmp_path / "scratch").mkdir()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    dirs = {"output": str(tmp_path / "out"), "checkpoint": str(tmp_path / "ckpt")}
    extra: list[str] = []
    if where == "--dead-letter":
        extra = ["--dead-letter", str(blocker)]
    else:
        dirs[where.removeprefix("under-")] = str(blocker) + ("/sub" if where.startswith("under") else "")
    given = extra[1] if extra else dirs[where.removeprefix("under-")]
    ran = subprocess.run([sys.executable, "-m", "replfilter", "stream", str(tmp_path / "events"), dirs["output"],
                          dirs["checkpoint"], *extra], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TMPDIR": str(tmp_path / "scratch")})
    name = {"under-output": "output"}.get(where, where)
    assert ran.returncode == 1
    assert ran.stderr == f"replfilter stream: {name} directory '{given}': '{blocker}' is a file, not a directory\n"
    assert list((tmp_path / "scratch").iterdir()) == []


@pytest.mark.parametrize("options", [[], ["-t"], ["-N"]])
def test_show_replica_status_on_a_fresh_replica_prints_nothing_as_mysql_batch_mode(options: list[str]) -> None:
    """README, "Running it": an empty result has no header line in batch mode."""
    assert run([*options, "-e", "SHOW REPLICA STATUS"]) == (0, "", "")


# ---- start-up: what a first result needs, and nothing more --------------------------------------


@pytest.mark.parametrize("statements, needs_sqlglot", [
    ("SELECT * FROM performance_schema.replication_applier_global_filters; SHOW REPLICA STATUS", False),
    ("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a); REPLAY EVENTS FROM '/nonexistent'", False),
    ("EXPLAIN REPLICATION OF 'INSERT INTO t VALUES (1)' DEFAULT DATABASE d", True),
])
def test_sqlglot_is_imported_only_when_sql_text_must_be_read(statements: str, needs_sqlglot: bool) -> None:
    """README, "Benchmarks": sqlglot is a third of the start-up's imports; a script of the
    dialect's own statements never reads SQL text with it (nor does the shell's start)."""
    probe = ("import io, sys\nfrom replfilter.cli.main import main\nimport replfilter.shell.app\n"
             f"main(['--force', '-e', {statements!r}], stdout=io.StringIO(), stderr=io.StringIO())\n"
             "print('sqlglot' in sys.modules, 'pyspark' in sys.modules)\n")
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert ran.stdout.split() == [str(needs_sqlglot), "False"], ran.stderr
