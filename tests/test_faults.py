"""Faults a user meets at the edges of the program: names the operating system cannot take, an
interrupted or closed output, files that start oddly. Each gets one clear line in MySQL's
manner and the exit status a script can test, never a Python traceback."""

from __future__ import annotations

import io

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
