"""The ``replfilter`` command as scripts use it: inputs, outputs, errors, startup options, datadir.

Most tests call ``cli.main`` in-process with real files; a few run the installed console script
in a child process where a second process or the real exit status matters.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from replfilter.cli import main as cli

CONFIGURE = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h1' FOR CHANNEL 'ch1';\n"


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(argv: list[str], stdin: str = "", tty: bool = False) -> tuple[int, str, str]:
    out = FakeTty() if tty else io.StringIO()
    err = io.StringIO()
    status = cli.main(argv, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---- where statements come from -------------------------------------------------------------------


def test_execute_option_runs_statements_and_prints_tab_separated_when_not_a_terminal() -> None:
    status, out, err = run(["--replicate-do-db=db1", "-e", "SELECT FILTER_NAME, FILTER_RULE FROM performance_schema.replication_applier_global_filters"])
    assert (status, err) == (0, "")
    assert out == "FILTER_NAME\tFILTER_RULE\nREPLICATE_DO_DB\tdb1\n"


def test_script_file_argument(tmp_path: Path) -> None:
    script = write(tmp_path, "s.sql", CONFIGURE + "SHOW REPLICA STATUS;\n")
    status, out, _ = run([script])
    assert status == 0
    header, row = out.splitlines()
    assert header.split("\t")[0] == "Replica_IO_State" and len(header.split("\t")) == 60
    assert row.split("\t")[1] == "h1"


def test_standard_input() -> None:
    status, out, _ = run([], stdin=CONFIGURE + "SELECT COUNT(*) FROM performance_schema.replication_applier_filters;")
    assert (status, out) == (0, "COUNT(*)\n0\n")


def test_boxed_table_on_a_terminal_and_with_dash_t() -> None:
    sql = "SELECT FILTER_RULE FROM performance_schema.replication_applier_global_filters"
    expected = "+-------------+\n| FILTER_RULE |\n+-------------+\n| db1         |\n+-------------+\n"
    assert run(["--replicate-do-db=db1", "-e", sql], tty=True)[1] == expected
    assert run(["--replicate-do-db=db1", "-t", "-e", sql])[1] == expected


def test_vertical_with_backslash_g_in_a_script() -> None:
    status, out, _ = run(["--replicate-do-db=db1", "-e", "SELECT FILTER_NAME FROM performance_schema.replication_applier_global_filters\\G"])
    assert out == "*************************** 1. row ***************************\nFILTER_NAME: REPLICATE_DO_DB\n"


def test_batch_escaping_of_tab_newline_and_backslash() -> None:
    sql = CONFIGURE + "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(`a\tb`, `c\\d`) FOR CHANNEL 'ch1';" \
        "SELECT FILTER_RULE FROM performance_schema.replication_applier_filters"
    status, out, _ = run(["-B", "-N", "-e", sql])
    assert out == "a\\tb,c\\\\d\n"


# ---- errors ------------------------------------------------------------------------------------------


def test_error_reports_line_of_statement_start_and_stops(tmp_path: Path) -> None:
    script = write(tmp_path, "s.sql", "-- comment\n\nSHOW REPLICA\n  STATUS FOR CHANNEL 'x';\nSHOW WARNINGS;\n")
    status, out, err = run([script])
    assert status == 1
    assert out == ""
    assert err == "ERROR 3074 (HY000) at line 3: Replica channel 'x' does not exist.\n"


def test_force_goes_on_after_errors_and_exit_status_is_still_1() -> None:
    status, out, err = run(["-f", "-e", "SHOW REPLICA STATUS FOR CHANNEL 'x'; SHOW WARNINGS"])
    assert status == 1
    assert "ERROR 3074 (HY000) at line 1" in err
    assert out == "Level\tCode\tMessage\nError\t3074\tReplica channel 'x' does not exist.\n"


def test_syntax_error_shape() -> None:
    status, _, err = run(["-e", "CHANGE REPLICATION FILTER REPLICATE_DO_DB = db1"])
    assert status == 1
    assert err == (
        "ERROR 1064 (42000) at line 1: You have an error in your SQL syntax; check the manual that "
        "corresponds to your MySQL server version for the right syntax to use near 'db1' at line 1\n"
    )


def test_source_inside_a_script_names_the_file_in_errors(tmp_path: Path) -> None:
    inner = write(tmp_path, "inner.sql", CONFIGURE + "\nRESET REPLICA FOR CHANNEL 'nope';\n")
    outer = write(tmp_path, "outer.sql", f"SHOW WARNINGS;\nsource {inner}\nSHOW WARNINGS;\n")
    status, _, err = run([outer])
    assert status == 1
    assert err == f"ERROR 3074 (HY000) at line 3 in file: '{inner}': Replica channel 'nope' does not exist.\n"


def test_delimiter_in_scripts_and_across_source(tmp_path: Path) -> None:
    """``DELIMITER //`` as mysql reads it: statements end at ``//``; a delimiter set in a sourced
    file holds after it (one delimiter per run); a refused one is reported and the script goes on."""
    inner = write(tmp_path, "inner.sql", "DELIMITER $$\n")
    script = write(
        tmp_path,
        "outer.sql",
        "DELIMITER //\n"
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) //\n"
        "DELIMITER\n"
        f"source {inner}\n"
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db2)$$\n"
        "delimiter ;\n"
        "SELECT FILTER_NAME, FILTER_RULE FROM performance_schema.replication_applier_global_filters;\n",
    )
    status, out, err = run([script])
    assert (status, err) == (0, "ERROR at line 3: DELIMITER must be followed by a 'delimiter' character or string\n")
    assert out == "FILTER_NAME\tFILTER_RULE\nREPLICATE_DO_DB\tdb1\nREPLICATE_IGNORE_DB\tdb2\n"


def test_source_of_a_missing_file_is_the_mysql_client_error(tmp_path: Path) -> None:
    status, _, err = run(["-e", f"source {tmp_path}/missing.sql"])
    assert status == 1
    assert err == f"ERROR: Failed to open file '{tmp_path}/missing.sql', error: 2\n"


def test_missing_script_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    status, _, err = run([str(tmp_path / "nope.sql")])
    assert status == 1 and "Failed to open file" in err and "Traceback" not in err


def test_state_survives_a_failed_statement() -> None:
    sql = CONFIGURE + (
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(a) FOR CHANNEL 'ch1';"
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(b), REPLICATE_WILD_DO_TABLE=('nodot') FOR CHANNEL 'ch1';"
        "SELECT FILTER_RULE FROM performance_schema.replication_applier_filters"
    )
    status, out, err = run(["-f", "-N", "-e", sql])
    assert "ERROR 3067" in err
    assert out == "a\n"


# ---- --format json ------------------------------------------------------------------------------------


def test_json_format_one_object_per_statement() -> None:
    status, out, _ = run(["--format", "json", "-f", "-e", "START REPLICA;\nSHOW REPLICA STATUS FOR CHANNEL 'x';\nSHOW WARNINGS"])
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert records[0]["line"] == 1 and records[0]["error"]["code"] == 1200
    assert records[1] == {
        "line": 2,
        "statement": "SHOW REPLICA STATUS FOR CHANNEL 'x'",
        "error": {"code": 3074, "sqlstate": "HY000", "message": "Replica channel 'x' does not exist."},
        "warnings": [],
    }
    assert records[2]["columns"] == ["Level", "Code", "Message"]
    assert records[2]["rows"] == [["Error", 3074, "Replica channel 'x' does not exist."]]


def test_json_format_carries_warnings() -> None:
    _, out, _ = run(["--mysql-version=8.0", "--format", "json", "-e", "CHANGE MASTER TO MASTER_HOST='h'"])
    record = json.loads(out)
    assert record["ok"] == 0
    assert [w["code"] for w in record["warnings"]] == [1287, 1287]


# ---- startup options and option files ----------------------------------------------------------------


def test_startup_options_global_and_per_channel_with_a_datadir(tmp_path: Path) -> None:
    datadir = str(tmp_path / "data")
    assert run(["--datadir", datadir, "-e", CONFIGURE])[0] == 0
    status, out, err = run([
        "--datadir", datadir,
        "--replicate-do-db=g1", "--replicate_ignore_table", "gdb.t", "--replicate-do-db=ch1:c1",
        "-N", "-e", "SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_filters",
    ])
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "ch1\tREPLICATE_DO_DB\tc1\tSTARTUP_OPTIONS_FOR_CHANNEL",
        "ch1\tREPLICATE_IGNORE_TABLE\tgdb.t\tSTARTUP_OPTIONS",
    ]


def test_startup_warning_for_unknown_channel_and_error_for_bad_rule() -> None:
    status, _, err = run(["--replicate-do-db=nochannel:x", "-e", "SHOW WARNINGS"])
    assert status == 0
    assert err == (
        "replfilter: [Warning] There are per-channel replication filter(s) configured for channel "
        "'nochannel' which does not exist. The filter(s) have been discarded.\n"
    )
    status, out, err = run(["--replicate-rewrite-db=a-b", "-e", "SHOW WARNINGS"])
    assert (status, out) == (1, "")
    assert err == "replfilter: [ERROR] Bad syntax in replicate-rewrite-db - missing '->'!\n"


def test_defaults_file_mysqld_group(tmp_path: Path) -> None:
    extra = write(tmp_path, "extra.cnf", "[mysqld]\nreplicate_ignore_db = from_include\n")
    cnf = write(tmp_path, "my.cnf", f"[client]\nuser=x\n[mysqld]\nreplicate-do-db = db1\nloose-replicate-do-db=db2\nserver-id=2\n!include {extra}\n")
    status, out, _ = run(["--defaults-file", cnf, "-N", "-e", "SELECT FILTER_NAME, FILTER_RULE FROM performance_schema.replication_applier_global_filters"])
    assert status == 0
    assert out.splitlines() == ["REPLICATE_DO_DB\tdb1,db2", "REPLICATE_IGNORE_DB\tfrom_include"]


def test_missing_defaults_file(tmp_path: Path) -> None:
    status, _, err = run(["--defaults-file", str(tmp_path / "none.cnf"), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert "none.cnf" in err and err.startswith("replfilter: [ERROR]")


def test_lower_case_table_names_startup_setting() -> None:
    sql = CONFIGURE + "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE=(DB1.T1, db1.t1) FOR CHANNEL 'ch1'; SHOW REPLICA STATUS"
    _, out, _ = run(["--lower-case-table-names=1", "-e", sql])
    row = dict(zip(*[line.split("\t") for line in out.splitlines()]))
    assert row["Replicate_Do_Table"] == "db1.T1"


# ---- the data directory -----------------------------------------------------------------------------


def test_channels_persist_but_statement_filters_do_not(tmp_path: Path) -> None:
    datadir = str(tmp_path / "d")
    run(["--datadir", datadir, "-e", CONFIGURE + "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(x) FOR CHANNEL 'ch1'"])
    status, out, _ = run(["--datadir", datadir, "-N", "-e",
                          "SHOW REPLICA STATUS; SELECT COUNT(*) FROM performance_schema.replication_applier_filters"])
    lines = out.splitlines()
    assert status == 0
    assert lines[0].split("\t")[1] == "h1" and lines[0].split("\t")[55] == "ch1"
    assert lines[1] == "0"


def test_reset_replica_all_persists_removal(tmp_path: Path) -> None:
    datadir = str(tmp_path / "d")
    run(["--datadir", datadir, "-e", CONFIGURE])
    run(["--datadir", datadir, "-e", "RESET REPLICA ALL"])
    status, _, err = run(["--datadir", datadir, "-e", "SHOW REPLICA STATUS FOR CHANNEL 'ch1'"])
    assert status == 1 and "3074" in err


def test_corrupt_datadir_is_reported_and_left_alone(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    datadir.mkdir()
    metadata = datadir / "connection_metadata.json"
    metadata.write_text('{"version": 1, "channels": [', encoding="utf-8")
    status, _, err = run(["--datadir", str(datadir), "-e", CONFIGURE])
    assert status == 1
    assert err.startswith(f"replfilter: [ERROR] Corrupt '{metadata}' at line 1, column 29")
    assert metadata.read_text(encoding="utf-8") == '{"version": 1, "channels": ['


def test_wrong_shape_datadir_names_the_problem(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    datadir.mkdir()
    (datadir / "connection_metadata.json").write_text('{"version": 1, "channels": [{"name": "a", "source": {"port": "x"}}]}')
    status, _, err = run(["--datadir", str(datadir), "-e", "SHOW WARNINGS"])
    assert status == 1 and "source setting 'port' must be int" in err


def test_a_second_process_on_the_same_datadir_is_refused(tmp_path: Path) -> None:
    datadir = str(tmp_path / "d")
    holder = subprocess.Popen(
        [sys.executable, "-m", "replfilter", "--datadir", datadir],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        lock = Path(datadir) / "replfilter.lock"
        for _ in range(200):
            if lock.exists() and lock.read_text().startswith("replfilter pid"):
                break
            import time

            time.sleep(0.05)
        second = subprocess.run(
            [sys.executable, "-m", "replfilter", "--datadir", datadir, "-e", "SHOW WARNINGS"],
            capture_output=True, text=True,
        )
        assert second.returncode == 1
        assert f"data directory '{datadir}' is in use by replfilter pid {holder.pid}" in second.stderr
    finally:
        holder.communicate("", timeout=30)
    assert holder.returncode == 0


def test_atomic_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    run(["--datadir", str(datadir), "-e", CONFIGURE])
    assert sorted(os.listdir(datadir)) == ["connection_metadata.json", "replfilter.lock"]
    document = json.loads((datadir / "connection_metadata.json").read_text())
    assert [c["name"] for c in document["channels"]] == ["", "ch1"]


def test_console_script_and_python_dash_m_do_not_start_spark() -> None:
    probe = "import sys, replfilter.cli.main; replfilter.cli.main.main(['-e','SHOW WARNINGS']); sys.exit('pyspark' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


@pytest.mark.parametrize("argv", [["--bogus-flag"], ["--replicate-do-table"]])
def test_bad_command_line_is_an_error_not_a_traceback(argv: list[str]) -> None:
    result = subprocess.run([sys.executable, "-m", "replfilter", *argv, "-e", "SHOW WARNINGS"], capture_output=True, text=True)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and result.stderr.strip()


def test_unknown_backslash_command_stops_a_script_as_mysql_does() -> None:
    status, out, err = run(["-e", "SHOW WARNINGS \\k"])
    assert (status, out) == (1, "")
    assert err == "ERROR at line 1: Unknown command '\\k'.\n"


def test_a_lookalike_keyword_is_a_syntax_error_and_force_goes_on() -> None:
    """A keyword spelled with U+0130 is 1064 (MySQL's keywords are ASCII), and --force runs the
    statements after it."""
    script = "CHANGE REPLICATION FILTER REPL\u0130CATE_DO_DB = (d);\nSHOW WARNINGS;\n"
    status, out, err = run(["-f"], stdin=script)
    assert status == 1
    assert err.startswith("ERROR 1064 (42000) at line 1: You have an error in your SQL syntax")
    assert "near 'REPL\u0130CATE_DO_DB = (d)' at line 1" in err
    assert out.startswith("Level\tCode\tMessage\nError\t1064\t")


def test_empty_queries_in_a_script_are_ignored_as_mysql_batch_does() -> None:
    """com_go in batch mode returns at once on an empty buffer: ``;;``, a lone ``;`` or ``\\g``
    are not errors in a script (the shell says "No query specified")."""
    status, out, err = run(["-e", "SHOW WARNINGS;;\n;\n\\g\nSHOW COUNT(*) WARNINGS;"])
    assert status == 0 and err == ""
    assert out.endswith("0\n")


# ---- usage and help ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["evaluate"], ["stream"], ["lint"]])
def test_help_names_every_option_file_group_read(command: list[str], capsys) -> None:
    """--defaults-file reads [mysqld], [server] and [mysqld-8.4] (README, "Startup options and
    option files"); every front-end's --help says so, not [mysqld] alone."""
    with pytest.raises(SystemExit) as exited:
        cli.main([*command, "--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--defaults-file FILE read startup options from the [mysqld], [server] and [mysqld-8.4] groups of FILE" in text


def test_usage_shows_the_subcommands(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--no-such-option"])
    usage = capsys.readouterr().err
    assert usage.startswith("usage: replfilter [-h]")
    for name in cli.SUBCOMMANDS:
        assert f"\n       replfilter {name} [startup options] [options]" in usage


# ---- --mysql-version ---------------------------------------------------------------------------------


def test_removed_spellings_are_syntax_errors_by_default_and_run_with_mysql_version_80(tmp_path: Path) -> None:
    script = "CHANGE MASTER TO MASTER_HOST='h';\nSTART SLAVE SQL_THREAD;\n"
    status, _, err = run(["-f", "-e", script])
    assert status == 1
    assert err.splitlines() == [
        "ERROR 1064 (42000) at line 1: You have an error in your SQL syntax; check the manual that corresponds "
        "to your MySQL server version for the right syntax to use near 'MASTER TO MASTER_HOST='h'' at line 1",
        "ERROR 1064 (42000) at line 2: You have an error in your SQL syntax; check the manual that corresponds "
        "to your MySQL server version for the right syntax to use near 'SLAVE SQL_THREAD' at line 1",
    ]
    status, out, err = run(["--mysql-version", "8.0", "--show-warnings", "-e", script])
    assert (status, err) == (0, "")
    assert "Warning (Code 1287): 'START SLAVE' is deprecated and will be removed in a future release. " in out
    cnf = write(tmp_path, "my.cnf", "[mysqld]\nmysql_version = 8.0.36\n")
    status, _, err = run(["--defaults-file", cnf, "-e", script])
    assert (status, err) == (0, "")


def test_a_bad_mysql_version_stops_the_start() -> None:
    status, _, err = run(["--mysql-version=5.7", "-e", "SELECT 1"])
    assert status == 1
    assert "Invalid value '5.7' for mysql_version: it must be 8.4 or 8.0." in err


def test_system_command_in_a_script(tmp_path: Path) -> None:
    """``\\!`` and ``system`` run in scripts too, as in mysql's batch mode; never statement text;
    ``--skip-system-command`` refuses them with mysql's message (an error: the script stops)."""
    import subprocess
    import sys

    script = tmp_path / "s.sql"
    script.write_text("SHOW WARNINGS;\n\\! echo from-script\nsystem echo again\nSHOW COUNT(*) WARNINGS;\n")
    command = [sys.executable, "-m", "replfilter"]
    ran = subprocess.run([*command, str(script)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and ran.stderr == ""
    assert ran.stdout.startswith("from-script\nagain\n")
    refused = subprocess.run([*command, "--skip-system-command", str(script)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "from-script" not in refused.stdout
    assert refused.stderr == "ERROR at line 2: 'system' command received, but the --system-command option is off. Skipping.\n"


def test_bytes_that_are_not_utf8_show_as_the_server_shows_them(tmp_path: Path) -> None:
    """Standard input with a 0xFF byte: the error quotes it as ``\\xFF``, never ``\\udcff``."""
    import subprocess
    import sys

    ran = subprocess.run([sys.executable, "-m", "replfilter"], input=b"SHOW \xff WARNINGS;\n", capture_output=True, timeout=60)
    assert b"near '\\xFF WARNINGS' at line 1" in ran.stderr
    assert b"udc" not in ran.stderr


def test_executable_comments_in_a_script(tmp_path: Path) -> None:
    script = write(tmp_path, "ec.sql", "/*!80000 SELECT @@version */;\n/*!99999 SHOW WARNINGS */;\nSHOW /*!80000 COUNT(*) */ WARNINGS;\n")
    status, out, err = run(["-f", script])
    assert status == 1
    assert out == "@@version\n8.4.3\n@@session.warning_count\n1\n"
    assert err == "ERROR 1065 (42000) at line 2: Query was empty\n"


# ---- USE db -------------------------------------------------------------------------------------------


def test_use_sets_the_default_database_of_explain_replication() -> None:
    status, out, err = run(["--replicate-do-db=db1", "-e",
                            "USE db1;\nEXPLAIN REPLICATION OF 'INSERT INTO t VALUES (1)' FORMAT STATEMENT;\n"
                            "use `db2`\nEXPLAIN REPLICATION OF 'INSERT INTO t VALUES (1)' FORMAT STATEMENT"])
    assert (status, err) == (0, "")
    decisions = [line.split("\t")[3] for line in out.splitlines() if "\tSTATEMENT\t" in line]
    assert decisions == ["APPLY", "SKIP"]


def test_use_of_a_database_the_loaded_schema_lacks_is_1049(tmp_path: Path) -> None:
    schema = write(tmp_path, "s.sql", "CREATE DATABASE db1;\nCREATE TABLE db1.t (a INT);\n")
    status, out, err = run(["--schema", schema, "-f", "-e", "USE db1;\nUSE nope;\nUSE db1"])
    assert status == 1
    assert err == "ERROR 1049 (42000) at line 2: Unknown database 'nope'\n"


def test_a_script_file_with_bytes_that_are_not_utf8_reads_as_standard_input_does(tmp_path: Path) -> None:
    # README (the shell next to the mysql client): such bytes pass through and errors quote
    # them as \xFF, for a script file and a sourced one as for standard input (a script file
    # used to be refused whole).
    script = tmp_path / "bad.sql"
    script.write_bytes(b"SHOW \xff WARNINGS;\n")
    status, _out, err = run([str(script)])
    assert status == 1
    assert err == ("ERROR 1064 (42000) at line 1: You have an error in your SQL syntax; check the manual that "
                   "corresponds to your MySQL server version for the right syntax to use near '\\xFF WARNINGS' at line 1\n")
    status, _out, err = run([], stdin=f"SOURCE {script};\n")
    assert status == 1 and f"in file: '{script}'" in err and "near '\\xFF WARNINGS'" in err
