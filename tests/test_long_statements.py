"""A long statement's syntax error is found in its skeleton (dialect/long_statements.py): the
outcome must be the one the whole parse gives, for any text. Here the skeleton is used for
statements of any length, so that short generated ones exercise it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replfilter.core.errors import MySQLError
from replfilter.core.version import ServerVersion
from replfilter.dialect import parser
from replfilter.dialect.long_statements import skeleton

PREFIXES = [
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (",
    "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (",
    "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = (",
    "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = (",
    "CHANGE REPLICATION SOURCE TO IGNORE_SERVER_IDS = (",
    "SELECT ",
    "EXPLAIN REPLICATION OF 'INSERT INTO t VALUES (",
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), REPLICATE_WILD_IGNORE_TABLE = (",
    "CHANGE MASTER TO MASTER_HOST = 'h', IGNORE_SERVER_IDS = (",
]
_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True)
GOOD = st.one_of(
    _name,
    st.builds(lambda a, b: f"{a}.{b}", _name, _name),
    st.builds(lambda a, b: f"'{a}.{b}%'", _name, _name),
    st.builds(lambda a, b: f"({a}, {b})", _name, _name),
    st.integers(0, 10**12).map(str),
)
ODD = st.sampled_from([
    "FILTER", "channel", "select", "TABLE", "'nodot'", "'a\nb.c'", "1x", "x.select", "x . y", "`q`",
    "-- c\n", "/* c */", "@v", ")", "(", ";", "é", "x'41'", "1.5", "'", "\\", "0x1F", "1e5", "x" * 70, "",
    "MASTER_HOST", "source_port", "MASTER_LOG_POS",
])
SEPARATORS = st.sampled_from([",", ", ", " ,\n", ",,", " "])
SUFFIXES = st.sampled_from(["", ")", ") FOR CHANNEL 'c'", ") garbage", ";", "'", ")'", "), x"])


@st.composite
def statements(draw) -> str:
    elements = draw(st.lists(st.one_of(GOOD, GOOD, GOOD, ODD), min_size=1, max_size=12))
    repeated = st.builds(lambda element, times: [element] * times, GOOD, st.integers(3, 8))
    run = draw(st.one_of(st.just([]), repeated, repeated, repeated))
    at = draw(st.integers(0, len(elements)))
    elements[at:at] = run
    parts = [elements[0]]
    for element in elements[1:]:
        parts.append(draw(SEPARATORS))
        parts.append(element)
    return draw(st.sampled_from(PREFIXES)) + "".join(parts) + draw(SUFFIXES)


def _outcome(text: str, version: ServerVersion, long_from: int) -> object:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parser, "LONG_STATEMENT", long_from)
        try:
            return ("ok", repr(parser.parse_statement(text, version)))
        except MySQLError as error:
            return (error.code, error.message, tuple(str(w) for w in error.warnings))


@settings(max_examples=300, deadline=None)
@given(text=statements(), version=st.sampled_from(ServerVersion))
def test_the_skeleton_gives_the_whole_parse_s_outcome(text: str, version: ServerVersion) -> None:
    """The same AST, or the same error (number, text with its position, parse-time warnings)."""
    assert _outcome(text, version, 0) == _outcome(text, version, 10**9)


def test_a_long_list_is_cut_to_two_elements_and_positions_map_back() -> None:
    text = "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + "x, " * 1000 + "select)"
    short = skeleton(text)
    assert short is not None and short.text == "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x, x, select)"
    assert text[short.position(short.text.index("select")):] == "select)"


@pytest.mark.parametrize("element", ["select", "FILTER", "'nodot'"])
def test_runs_holding_a_word_that_lexes_or_checks_apart_are_kept(element: str) -> None:
    text = "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + f"{element}, " * 5 + ")"
    assert skeleton(text) is None
