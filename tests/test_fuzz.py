"""Fuzz: whatever text reaches the interpreter, the answer is a result or a MySQL-style error
(``MySQLError``), never another exception, and a failing statement changes nothing.

Inputs: arbitrary Unicode (lone surrogates included), bytes decoded the ways a script reader
could decode them, soups of the dialect's own tokens (which get deep into the grammar and the
transformer's checks), mutations of valid statements, and a few huge inputs.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from replfilter.dialect.parser import parse
from replfilter.dialect.splitter import StatementText, split_statements
from replfilter.core.errors import MySQLError
from replfilter.core.filters import FilterType
from replfilter.core.results import Ok, ResultSet
from replfilter.server.session import Session
from replfilter.replica.executor import PartialChange
from replfilter.replica.state import ReplicaState

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID = [
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1, `db,2`), REPLICATE_IGNORE_TABLE = (d.t) FOR CHANNEL 'ch_1'",
    "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db\\_1.%'), REPLICATE_REWRITE_DB = ((a,b),(c,d))",
    "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', SOURCE_PORT = 3307 FOR CHANNEL 'ch_2'",
    "CHANGE MASTER TO MASTER_HOST = 'h', MASTER_LOG_POS = 4",
    "START REPLICA IO_THREAD, SQL_THREAD FOR CHANNEL 'ch_1'",
    "STOP SLAVE SQL_THREAD",
    "RESET REPLICA ALL FOR CHANNEL ''",
    "SHOW SLAVE STATUS FOR CHANNEL 'ch_1'",
    "SELECT CHANNEL_NAME, COUNTER FROM performance_schema.replication_applier_filters "
    "WHERE FILTER_NAME <> 'x' AND COUNTER = 0 ORDER BY CHANNEL_NAME DESC LIMIT 2",
    "SELECT COUNT(*) FROM performance_schema.replication_applier_global_filters",
    "SHOW COUNT(*) WARNINGS",
    "START REPLICA SQL_THREAD UNTIL SOURCE_LOG_FILE = 'b.000001', SOURCE_LOG_POS = 4 FOR CHANNEL 'ch_1'",
    "START REPLICA UNTIL SQL_BEFORE_GTIDS = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5' USER = 'u' PASSWORD = 'p' DEFAULT_AUTH = 'a' PLUGIN_DIR = 'd'",
    "CHANGE REPLICATION SOURCE TO PRIVILEGE_CHECKS_USER = 'u'@'h', IGNORE_SERVER_IDS = (1, 2), SOURCE_HEARTBEAT_PERIOD = 1.5",
    "SELECT @@version, @@session.warning_count",
]
TOKENS = (
    "CHANGE REPLICATION FILTER SOURCE MASTER TO FOR CHANNEL RESET REPLICA SLAVE ALL SHOW STATUS START STOP "
    "SQL_THREAD IO_THREAD RELAY_THREAD SELECT FROM WHERE AND ORDER BY ASC DESC LIMIT COUNT WARNINGS NULL "
    "REPLICATE_DO_DB REPLICATE_IGNORE_DB REPLICATE_DO_TABLE REPLICATE_IGNORE_TABLE REPLICATE_WILD_DO_TABLE "
    "REPLICATE_WILD_IGNORE_TABLE REPLICATE_REWRITE_DB SOURCE_HOST SOURCE_PORT MASTER_HOST SOURCE_SSL "
    "performance_schema replication_applier_filters replication_applier_global_filters CHANNEL_NAME COUNTER "
    "db1 t1 1 0 18446744073709551616 select `x` `` `a``b` 'a.b' 'x' '' 'a\\nb' \"q\" 'group_replication_applier' "
    "( ) (( )) , . = <> != * ; -- # /* */ \\G \\g \\c"
).split()

surrogate_text = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=200)
decoded_bytes = st.binary(max_size=300).flatmap(
    lambda raw: st.sampled_from(
        [raw.decode("latin-1"), raw.decode("utf-8", "surrogateescape"), raw.decode("utf-8", "replace")]
    )
)
token_soup = st.lists(st.sampled_from(TOKENS), max_size=40).flatmap(
    lambda words: st.sampled_from([" ".join(words), "".join(words), "\n".join(words)])
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        position = draw(st.integers(min_value=0, max_value=len(text)))
        action = draw(st.sampled_from(["insert", "delete", "duplicate"]))
        if action == "insert":
            text = text[:position] + draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=3))) + text[position:]
        elif action == "delete":
            end = draw(st.integers(min_value=position, max_value=min(len(text), position + 10)))
            text = text[:position] + text[end:]
        else:
            text = text[:position] + text[position:position + 20] + text[position:]
    return text


# Non-ASCII letters that Unicode case-folding maps onto ASCII ones: U+0131 (dotless i) and U+0130
# (I with dot) fold to I/i, U+017F (long s) to S, U+212A (Kelvin sign) to k. MySQL's keywords
# are ASCII, so a keyword spelled with one of them is not that keyword.
LOOKALIKES = {"i": "\u0131", "I": "\u0130", "s": "\u017f", "S": "\u017f", "k": "\u212a", "K": "\u212a"}


@st.composite
def with_lookalikes(draw: st.DrawFn) -> str:
    """A valid statement with some of its i, s and k letters swapped for their lookalikes."""
    text = draw(st.sampled_from(VALID))
    positions = [i for i, ch in enumerate(text) if ch in LOOKALIKES]
    chosen = draw(st.sets(st.sampled_from(positions), min_size=1, max_size=4)) if positions else set()
    return "".join(LOOKALIKES[ch] if i in chosen else ch for i, ch in enumerate(text))


any_text = st.one_of(surrogate_text, decoded_bytes, token_soup, mutated(), with_lookalikes(), st.sampled_from(VALID))


def configured_session() -> Session:
    session = Session(clock=lambda: 1_700_000_000_000_000)
    for sql in [
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h1' FOR CHANNEL 'ch_1'",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h2' FOR CHANNEL 'ch_2'",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1)",
        "START REPLICA FOR CHANNEL 'ch_2'",
    ]:
        session.execute_text(sql)
    return session


def check_one(session: Session, text: str) -> None:
    before = session.state
    try:
        result = session.execute_text(text)
    except MySQLError as error:
        assert isinstance(error.code, int) and len(error.sqlstate) == 5 and error.message
        # a failed statement changes nothing, except one the server runs channel by channel:
        # the channels before the failing one stay done (RESET REPLICA ALL past a running channel)
        assert session.state == (error.state if isinstance(error, PartialChange) else before)
    else:
        assert isinstance(result, (Ok, ResultSet))
    assert isinstance(session.state, ReplicaState)


@SETTINGS
@given(any_text)
@example("RESET REPLICA ALL")  # stops at the running channel ch_2, the channels before it reset
def test_execute_text_gives_a_result_or_a_mysql_error(text: str) -> None:
    check_one(configured_session(), text)


def _keyword_spans(text: str) -> list[tuple[int, int]]:
    from replfilter.dialect.grammar import keywords, plain_parser

    return [(t.start_pos, t.end_pos) for t in plain_parser().lex(text) if t.type in keywords()]


@SETTINGS
@given(st.sampled_from(VALID), st.data())
def test_a_keyword_with_a_lookalike_letter_is_a_syntax_error(text: str, data: st.DataObject) -> None:
    """Only ASCII case-folding makes a keyword: any keyword of a valid statement spelled with
    one lookalike letter turns the statement into a 1064 (as in MySQL), never a traceback and
    never the keyword."""
    spans = [(a, b) for a, b in _keyword_spans(text) if any(ch in LOOKALIKES for ch in text[a:b])]
    if not spans:
        return
    start, end = data.draw(st.sampled_from(spans))
    position = data.draw(st.sampled_from([i for i in range(start, end) if text[i] in LOOKALIKES]))
    changed = text[:position] + LOOKALIKES[text[position]] + text[position + 1:]
    session = configured_session()
    before = session.state
    with pytest.raises(MySQLError) as info:
        session.execute_text(changed)
    assert info.value.code == 1064, changed
    assert session.state == before


@SETTINGS
@given(any_text)
@example("RESET REPLICA ALL")
def test_script_path_gives_results_or_mysql_errors(text: str) -> None:
    """The splitter never raises; every statement it cuts out runs to a result or a MySQLError."""
    session = configured_session()
    items = split_statements(text)
    for item in items:
        if isinstance(item, StatementText) and item.text:
            check_one(session, item.text)
    try:
        parse(text)
    except MySQLError:
        pass


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(VALID), mutated()), min_size=1, max_size=8))
def test_sequences_of_statements(texts: list[str]) -> None:
    session = configured_session()
    for text in texts:
        check_one(session, text)


HUGE = [
    "x" * 1_000_000,
    "(" * 100_000,
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + ", ".join(f"db{i}" for i in range(20_000)) + ")",
    "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (" + ", ".join(f"d{i % 50}.t{i}" for i in range(20_000)) + ")",
    "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('" + "%" * 200_000 + ".x')",
    "SHOW REPLICA STATUS FOR CHANNEL '" + "c" * 500_000 + "'",
    "SHOW WARNINGS /*" + " comment" * 100_000 + " */",
    "'" + "\\" * 100_001,
    ";" * 100_000,
    "\n" * 100_000 + "SHOW oops",
    "\x00" * 10_000,
    "\ud800" * 10_000,
]


@pytest.mark.parametrize("text", HUGE, ids=[f"huge{i}" for i in range(len(HUGE))])
def test_huge_inputs(text: str) -> None:
    check_one(configured_session(), text)
    for item in split_statements(text[:200_000]):
        if isinstance(item, StatementText) and item.text:
            check_one(configured_session(), item.text)


def test_huge_list_is_stored() -> None:
    session = configured_session()
    session.execute_text(HUGE[2] + " FOR CHANNEL 'ch_1'")
    channel = session.state.channel("ch_1")
    assert channel is not None and len(channel.filters.rules(FilterType.DO_DB)) == 20_000


@pytest.mark.parametrize(
    "statement",
    [
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'ch_\udca8'",  # a byte 0xA8
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (\udbf6.t)",  # a lone surrogate
        "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('a\ud91b.%')",
        "EXPLAIN REPLICATION OF 'UPDATE t SET a = \udcff'",
    ],
)
def test_text_that_is_not_utf8_is_1300_and_stores_nothing(statement: str) -> None:
    """Found by bench/fuzz_statements.py: such text was stored (a rule, a channel name) and every
    later statement that compiled or showed it raised UnicodeEncodeError. The grammar reads these
    statements, so the server's utf8mb4 refusal (1300) answers, and nothing changes."""
    session = Session()
    before = session.state
    with pytest.raises(MySQLError) as refused:
        session.execute_text(statement)
    assert (refused.value.code, refused.value.sqlstate) == (1300, "HY000")
    assert refused.value.message.startswith("Invalid utf8mb4 character string: '")
    assert session.state == before
    session.execute_text("SELECT * FROM performance_schema.replication_applier_global_filters")


def test_a_startup_rule_that_is_not_utf8_stops_the_start() -> None:
    from replfilter.replica.startup_options import StartupError, parse_rule

    with pytest.raises(StartupError, match=r"Invalid utf8mb4 character string in --replicate-wild-do-table: 'FF2E25'"):
        parse_rule("replicate-wild-do-table", "a\udcff.%")
