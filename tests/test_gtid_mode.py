"""``gtid_mode`` and ``enforce_gtid_consistency`` as mysqld start-up options (command line or
my.cnf), and the check 8.4 makes on channel statements: ``change_master`` in sql/rpl_replica.cc
refuses SOURCE_AUTO_POSITION = 1 while GTID_MODE = OFF (8.4's default) with 1777, before the
positions check (1776); mysqld does not start with GTID_MODE = ON unless
ENFORCE_GTID_CONSISTENCY = ON."""

from __future__ import annotations

import pytest

from replfilter.cli.startup import start_replica
from replfilter.core.errors import MySQLError
from replfilter.replica.startup_options import StartupError

ER_1777 = "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1 cannot be executed because @@GLOBAL.GTID_MODE = OFF."


def _session(*options: tuple[str, str], defaults_file: str | None = None):
    return start_replica(list(options), defaults_file, None).session


def test_auto_position_needs_gtid_mode_not_off() -> None:
    session = _session()
    with pytest.raises(MySQLError) as err:
        session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_AUTO_POSITION = 1")
    assert (err.value.code, str(err.value.message)) == (1777, ER_1777)
    assert not session.state.channel("").configured  # the failed statement changed nothing
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_AUTO_POSITION = 0")
    with pytest.raises(MySQLError) as err:  # 1777 comes before the positions check (1776)
        session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1, SOURCE_LOG_POS = 4")
    assert err.value.code == 1777


@pytest.mark.parametrize("mode", ["OFF_PERMISSIVE", "on_permissive", "ON", "3"])
def test_auto_position_with_gtid_mode_on(mode, tmp_path) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_text(f"[mysqld]\ngtid_mode = {mode}\nenforce-gtid-consistency = ON\n")
    session = _session(defaults_file=str(cnf))
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_AUTO_POSITION = 1")
    assert session.state.channel("").source.auto_position == 1
    with pytest.raises(MySQLError) as err:
        session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_LOG_POS = 4")
    assert err.value.code == 1776
    result = session.execute_sql("SELECT @@gtid_mode, @@enforce_gtid_consistency")[-1]
    assert result.rows[0][1] == "ON" and result.rows[0][0] in ("OFF_PERMISSIVE", "ON_PERMISSIVE", "ON")


def test_the_command_line_wins_over_the_option_file(tmp_path) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[mysqld]\ngtid_mode = ON_PERMISSIVE\n")
    session = _session(("--gtid-mode", "OFF"), defaults_file=str(cnf))
    assert session.execute_sql("SELECT @@gtid_mode")[-1].rows == (("OFF",),)


@pytest.mark.parametrize("options, message", [
    ([("--gtid-mode", "ON")], "GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON."),
    ([("--gtid-mode", "ON"), ("--enforce-gtid-consistency", "WARN")], "GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON."),
    ([("--gtid-mode", "sometimes")], "Invalid value 'sometimes' for gtid_mode"),
    ([("--enforce_gtid_consistency", "7")], "Invalid value '7' for enforce_gtid_consistency"),
])
def test_a_start_mysqld_refuses(options, message) -> None:
    with pytest.raises(StartupError) as err:
        start_replica(options, None, None)
    assert str(err.value.message).startswith(message)


# --- START REPLICA UNTIL: notes 1278 and 1279 (Relay_log_info::init_until_option, start_slave) ---

NOTE_1278 = ("Note", 1278, "It is recommended to use --skip-replica-start when doing step-by-step replication with "
             "START REPLICA UNTIL; otherwise, you will get problems if you get an unexpected replica's mysqld restart")
NOTE_1279 = ("Note", 1279, "SQL thread is not to be started so UNTIL options are ignored")


def _notes(session, sql: str) -> list[tuple]:
    session.execute_sql(sql)
    return [tuple(row) for row in session.execute_sql("SHOW WARNINGS")[-1].rows]


@pytest.mark.parametrize("options, until, expected", [
    ([], "SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 4", [NOTE_1278]),
    ([], "RELAY_LOG_FILE = 'r.000001', RELAY_LOG_POS = 4", [NOTE_1278]),
    ([], "SQL_AFTER_GTIDS = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1'", []),  # not a position
    ([("--skip-replica-start", None)], "SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 4", []),
    ([("--skip-slave-start", "TRUE")], "SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 4", []),
    ([("--skip-replica-start", "OFF")], "SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 4", [NOTE_1278]),
])
def test_until_a_position_without_skip_replica_start_is_note_1278(options, until, expected) -> None:
    session = _session(*options)
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    assert _notes(session, f"START REPLICA UNTIL {until}") == expected


def test_until_without_the_sql_thread_is_note_1279() -> None:
    session = _session()
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h'")
    assert _notes(session, "START REPLICA IO_THREAD UNTIL SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 4") == [NOTE_1279]
