"""BETWEEN, IN, ``SELECT DISTINCT`` and ``COUNT(DISTINCT ...)`` on the filter tables' text columns
compare under the columns' collation, utf8mb4_0900_ai_ci, as every other comparison does:
``Item_func_between`` and ``Item_func_in`` aggregate their arguments' collations (the column's
implicit derivation wins over a literal's), and DISTINCT and ``Item_sum_count_distinct`` keep
rows in a temporary table whose unique key compares the fields under their collation. So
``Db1`` and ``dB1`` are one value, and DISTINCT shows the first row's spelling."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.replica.perfschema_collation import collation_key
from replfilter.server.session import Session

TABLE = "performance_schema.replication_applier_filters"


def _session(rules: dict[str, tuple[str, str]]) -> Session:
    """Channels in name order, each with a REPLICATE_DO_DB and a REPLICATE_IGNORE_DB rule."""
    session = Session()
    for channel, (do, ignore) in rules.items():
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{channel}'")
        session.execute_text(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`{do}`), "
                             f"REPLICATE_IGNORE_DB = (`{ignore}`) FOR CHANNEL '{channel}'")
    return session


SPELLINGS = {"a": ("Db1", "db1"), "b": ("DB1", "dÉ2")}


@pytest.fixture(scope="module")
def session() -> Session:
    return _session(SPELLINGS)


def _rows(session: Session, sql: str):
    return session.execute_text(sql.format(t=TABLE)).rows  # type: ignore[union-attr]


def test_between_compares_under_the_collation(session):
    assert _rows(session, "SELECT CHANNEL_NAME, FILTER_RULE FROM {t} WHERE FILTER_RULE BETWEEN 'DB0' AND 'DB1'") == (
        ("a", "Db1"), ("a", "db1"), ("b", "DB1"))
    assert _rows(session, "SELECT FILTER_RULE FROM {t} WHERE FILTER_RULE NOT BETWEEN 'db1' AND 'DB1'") == (("dÉ2",),)
    assert _rows(session, "SELECT FILTER_RULE BETWEEN 'DE2' AND 'de2' FROM {t}") == ((0,), (0,), (0,), (1,))
    assert _rows(session, "SELECT CHANNEL_NAME FROM {t} WHERE CHANNEL_NAME BETWEEN 'A' AND 'A'") == (("a",), ("a",))


def test_in_compares_under_the_collation(session):
    assert _rows(session, "SELECT FILTER_RULE FROM {t} WHERE FILTER_RULE IN ('DE2', 'x')") == (("dÉ2",),)
    assert _rows(session, "SELECT FILTER_RULE NOT IN ('DB1') FROM {t}") == ((0,), (0,), (0,), (1,))


def test_distinct_keeps_the_first_spelling_of_each_value(session):
    assert _rows(session, "SELECT DISTINCT FILTER_RULE FROM {t}") == (("Db1",), ("dÉ2",))
    assert _rows(session, "SELECT DISTINCT CHANNEL_NAME, FILTER_RULE FROM {t}") == (
        ("a", "Db1"), ("b", "DB1"), ("b", "dÉ2"))
    assert _rows(session, "SELECT DISTINCT FILTER_RULE AS r FROM {t} ORDER BY r DESC LIMIT 1") == (("dÉ2",),)


def test_count_distinct_counts_collation_keys(session):
    assert _rows(session, "SELECT COUNT(DISTINCT FILTER_RULE) FROM {t}") == ((2,),)
    assert _rows(session, "SELECT COUNT(DISTINCT CHANNEL_NAME, FILTER_RULE) FROM {t}") == ((3,),)
    assert _rows(session, "SELECT CHANNEL_NAME, COUNT(DISTINCT FILTER_RULE) FROM {t} GROUP BY CHANNEL_NAME") == (
        ("a", 1), ("b", 2))


NAMES = st.text(alphabet="abAB_1é", min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAMES, NAMES), min_size=1, max_size=3))
def test_distinct_and_count_distinct_agree_with_the_collation_key(pairs):
    rules = {f"c{n}": pair for n, pair in enumerate(pairs)}
    session = _session(rules)
    stored = [value for (_, value) in _rows(session, "SELECT CHANNEL_NAME, FILTER_RULE FROM {t}")]
    first: dict[str, str] = {}
    for value in stored:
        first.setdefault(collation_key(value), value)
    assert _rows(session, "SELECT COUNT(DISTINCT FILTER_RULE) FROM {t}") == ((len(first),),)
    assert sorted(_rows(session, "SELECT DISTINCT FILTER_RULE FROM {t}")) == sorted((v,) for v in first.values())
    low, high = sorted(stored, key=collation_key)[0], sorted(stored, key=collation_key)[-1]
    between = _rows(session, f"SELECT FILTER_RULE FROM {{t}} WHERE FILTER_RULE BETWEEN '{low.upper()}' AND '{high.upper()}'")
    assert len(between) == len(stored)
