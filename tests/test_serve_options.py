"""``replfilter serve``'s settings, read as mysqld reads them, and the server's multi-statement cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from replfilter.cli.serve import ServeError, build_parser, read_accounts, resolve_options
from replfilter.dialect.parser import split_multi_statements
from replfilter.wire.accounts import Accounts
from replfilter.wire.listener import event_loop_factory


def _resolve(*argv: str) -> tuple[object, list[str]]:
    args = build_parser().parse_args(list(argv))
    warnings: list[str] = []
    return resolve_options(args, warnings), warnings


def test_mysqld_group_options_and_the_command_line_wins(tmp_path: Path):
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[mysqld]\nport = 3407\nbind_address=0.0.0.0\nmax_connections=7\nsocket=/tmp/x.sock\n"
                   "loose-wait_timeout=9\nreplicate-do-db=a\n[client]\nuser=dba\npassword=pw\n")
    options, _ = _resolve("--defaults-file", str(cnf), "--port", "3408")
    assert (options.port, options.bind_address, options.max_connections, options.socket, options.wait_timeout) == (
        3408, "0.0.0.0", 7, "/tmp/x.sock", 9)
    args = build_parser().parse_args(["--defaults-file", str(cnf)])
    assert read_accounts(args, options) == Accounts.of({"dba": "pw"})


def test_defaults_are_loopback_and_3306():
    options, _ = _resolve()
    assert (options.bind_address, options.port, options.max_connections) == ("127.0.0.1", 3306, 151)


def test_skip_grant_tables_listens_on_loopback_only():
    options, warnings = _resolve("--skip-grant-tables", "--bind-address", "10.1.2.3")
    assert options.bind_address == "127.0.0.1" and warnings
    assert read_accounts(build_parser().parse_args(["--skip-grant-tables"]), options).skip_grant_tables


@pytest.mark.parametrize("argv, message", [
    (["--password=x", "--user", "u"], "not taken on the command line"),
    (["--user", "u"], "--user needs --password-file"),
    ([], "no account to log in with"),
])
def test_accounts_are_never_anonymous_nor_on_the_command_line(argv, message):
    args = build_parser().parse_args(argv)
    options, _ = _resolve()
    with pytest.raises(ServeError, match=message):
        read_accounts(args, options)


def test_require_secure_transport_needs_tls_or_a_socket():
    with pytest.raises(ServeError, match="no secure transport"):
        _resolve("--require-secure-transport")


_PIECE = st.sampled_from(["SELECT @@version", "SHOW WARNINGS", "SELECT 'a;b'", "SELECT `x;y`", "/* ; */ SHOW WARNINGS",
                          "SELECT \"q;\"", "SET NAMES utf8mb4"])


@given(st.lists(_PIECE, min_size=1, max_size=5))
def test_multi_statements_cut_at_the_semicolons_outside_quotes_and_comments(pieces):
    assert [p.strip() for p in split_multi_statements(";".join(pieces) + ";")] == pieces


def test_the_event_loop_is_uvloops_unless_tls_is_configured():
    """uvloop's loop serves plain connections; with TLS, asyncio's own, whose transport can be
    told to read no further than the SSLRequest (the client's hello follows it)."""
    import asyncio
    import ssl

    uvloop = pytest.importorskip("uvloop")
    assert event_loop_factory(None) is uvloop.new_event_loop
    assert event_loop_factory(ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)) is asyncio.new_event_loop
