"""Connections to one replica (Session.connect) and the session variables clients set on connect."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from replfilter.core.errors import MySQLError
from replfilter.core.results import Ok, ResultSet
from replfilter.dialect.parser import parse_statement
from replfilter.dialect.printer import to_sql
from replfilter.server.session import Session


def test_connections_share_the_replica_but_not_diagnostics_or_variables():
    first = Session()
    second = first.connect()
    first.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c1'")
    assert second.state is first.state
    with pytest.raises(MySQLError):
        second.execute_text("SET autocommit = 7")
    assert first.execute_text("SHOW COUNT(*) WARNINGS").rows == ((0,),)
    assert second.execute_text("SHOW COUNT(*) WARNINGS").rows == ((1,),)
    second.execute_text("SET autocommit = OFF")
    assert first.execute_text("SELECT @@autocommit").rows == ((1,),)
    assert second.execute_text("SELECT @@autocommit").rows == ((0,),)


def test_what_drivers_send_on_connect():
    session = Session()
    assert session.execute_text("SELECT @@version_comment LIMIT 1").columns == ("@@version_comment",)
    assert session.execute_text("SELECT @@version_comment LIMIT 0").rows == ()
    for text in ("SET NAMES utf8mb4", "SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'", "SET autocommit=0",
                 "SET @@session.autocommit = OFF", "SET SESSION sql_mode = ''", "SET NAMES DEFAULT"):
        assert session.execute_text(text) == Ok()
    session.execute_text("SET NAMES utf8")
    assert session.execute_text("SELECT @@character_set_client, @@collation_connection").rows == (
        ("utf8mb3", "utf8mb3_general_ci"),)


@pytest.mark.parametrize("text, code, sqlstate, message", [
    ("SET nonesuch = 1", 1193, "HY000", "Unknown system variable 'nonesuch'"),
    ("SET version = 'x'", 1238, "HY000", "Variable 'version' is a read only variable"),
    ("SET autocommit = 2", 1231, "42000", "Variable 'autocommit' can't be set to the value of '2'"),
    ("SET NAMES klingon", 1115, "42000", "Unknown character set: 'klingon'"),
    ("SET wait_timeout = 'soon'", 1232, "42000", "Incorrect argument type to variable 'wait_timeout'"),
])
def test_refused_settings_change_nothing(text, code, sqlstate, message):
    session = Session()
    session.execute_text("SET autocommit = 0")
    with pytest.raises(MySQLError) as caught:
        session.execute_text(f"SET autocommit = 1, {text.removeprefix('SET ')}")
    assert (caught.value.code, caught.value.sqlstate, caught.value.message) == (code, sqlstate, message)
    assert session.execute_text("SELECT @@autocommit").rows == ((0,),)
    assert session.execute_text("SHOW WARNINGS").rows == (("Error", code, message),)


def test_reset_connection_gives_back_the_defaults():
    session = Session()
    session.execute_text("SET autocommit = 0")
    session.reset_connection()
    assert session.execute_text("SELECT @@autocommit").rows == ((1,),)


@given(st.lists(st.sampled_from(["NAMES 'latin1'", "NAMES DEFAULT", "autocommit = 1", "SESSION wait_timeout = 5",
                                 "@@session.sql_mode = 'ANSI'", "LOCAL time_zone = DEFAULT"]), min_size=1, max_size=4))
def test_set_statements_print_back_to_what_they_parse_from(items):
    statement = parse_statement("SET " + ", ".join(items))
    assert parse_statement(to_sql(statement)) == statement
    assert isinstance(Session().execute(statement), Ok)


def test_a_prepared_select_given_the_wrong_number_of_values_is_1210_com_stmt_execute():
    """As ``mysql_stmt_precheck`` answers a parameter count unlike the statement's
    (``sql_prepare.cc``): 1210 "Incorrect arguments to COM_STMT_EXECUTE"."""
    session = Session()
    text = "SELECT FILTER_NAME FROM performance_schema.replication_applier_filters WHERE COUNTER = ?"
    with pytest.raises(MySQLError) as caught:
        session.execute_text(text, (1, 2))
    assert (caught.value.code, caught.value.message) == (1210, "Incorrect arguments to COM_STMT_EXECUTE")
    assert session.execute_text(text, (0,)).rows == ()
