"""utf8mb4_0900_ai_ci orders ASCII as DUCET does (``strings/uca900_data.h``, generated from the
UCA's ``allkeys.txt``): white space, then punctuation and symbols (variable characters, weighed
as they are: non-ignorable), then ``$``, then digits, then letters; not by code point, where
``_`` (0x5F) comes after the digits and capitals. ORDER BY, MIN/MAX, ``<`` and BETWEEN on the
filter tables' text columns follow it; LIKE still sees ``%`` and ``_`` as wildcards."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.replica.perfschema_collation import collation_key
from replfilter.server.session import Session

from perfschema_sessions import channels_with_do_db

TABLE = "performance_schema.replication_applier_filters"
RULES = {"a": "db_2", "b": "db1", "c": "db-3", "d": "DB0", "e": "dbA", "f": "db 4", "g": "db$"}
PUNCTUATION = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~"
"""The variable characters of printable ASCII in DUCET's order (SPACE 0209, LOW LINE 020B,
HYPHEN-MINUS 020D, COMMA 0223 ... TILDE 0670)."""


def _rank(c: str) -> int:
    """DUCET's groups for printable ASCII: variable characters, the currency sign, digits, letters."""
    return 0 if c in PUNCTUATION else 1 if c == "$" else 2 if c.isdigit() else 3


@pytest.fixture(scope="module")
def session() -> Session:
    return channels_with_do_db(RULES)


def _column(session: Session, sql: str) -> list:
    return [row[0] for row in session.execute_text(sql.format(t=TABLE)).rows]  # type: ignore[union-attr]


def _ducet_sorted(rules) -> list[str]:
    return sorted(rules, key=lambda r: [(_rank(c), PUNCTUATION.index(c) if _rank(c) == 0 else c.lower()) for c in r])


@pytest.mark.parametrize("sql", ["SELECT FILTER_RULE FROM {t} ORDER BY FILTER_RULE",
                                 "SELECT FILTER_RULE FROM {t} WHERE COUNTER >= 0 ORDER BY 1"])
def test_order_by_puts_punctuation_before_digits_before_letters(session, sql):
    got = _column(session, sql)
    assert got == _ducet_sorted(RULES.values())
    assert got.index("db_2") < got.index("db1") < got.index("dbA")  # code-point order has _ after 1 and A


def test_descending_is_the_reverse(session):
    assert _column(session, "SELECT FILTER_RULE FROM {t} ORDER BY FILTER_RULE DESC") == list(
        reversed(_ducet_sorted(RULES.values())))


def test_min_and_max(session):
    assert _column(session, "SELECT MIN(FILTER_RULE) FROM {t}") == ["db 4"]
    assert _column(session, "SELECT MAX(FILTER_RULE) FROM {t}") == ["dbA"]


def test_comparisons_and_between(session):
    assert sorted(_column(session, "SELECT FILTER_RULE FROM {t} WHERE FILTER_RULE < 'db0'")) == sorted(
        r for r in RULES.values() if _rank(r[2]) < 2)
    assert sorted(_column(session, "SELECT FILTER_RULE FROM {t} WHERE FILTER_RULE BETWEEN 'db_' AND 'db2'")) == sorted(
        ["db_2", "db-3", "DB0", "db1", "db$"])


def test_like_keeps_its_wildcards(session):
    assert _column(session, "SELECT FILTER_RULE FROM {t} WHERE FILTER_RULE LIKE 'db%2'") == ["db_2"]
    assert sorted(_column(session, "SELECT FILTER_RULE FROM {t} WHERE FILTER_RULE LIKE 'DB_'")) == sorted(
        ["db1", "DB0", "dbA", "db$"])


PRINTABLE = st.sampled_from(string.printable[:95])


@settings(max_examples=200, deadline=None)
@given(PRINTABLE, PRINTABLE)
def test_the_key_orders_single_characters_by_ducet_groups(a, b):
    """Across groups the group decides; case never does (``_ci``)."""
    if _rank(a) != _rank(b):
        assert (collation_key(a) < collation_key(b)) == (_rank(a) < _rank(b))
    elif _rank(a) == 0:
        assert (collation_key(a) < collation_key(b)) == (PUNCTUATION.index(a) < PUNCTUATION.index(b))
    if a.isalpha() and b.isalpha():
        assert (collation_key(a) == collation_key(b)) == (a.lower() == b.lower())
        assert (collation_key(a) < collation_key(b)) == (a.lower() < b.lower())


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits + "_-. $", max_size=8),
       st.text(alphabet=string.ascii_letters + string.digits + "_-. $", max_size=8))
def test_the_key_is_a_total_order_consistent_with_case_folding(a, b):
    assert (collation_key(a) == collation_key(b)) == (a.lower() == b.lower())
