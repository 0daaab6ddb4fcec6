"""``JoinedSets`` (the large exact rule sets a compiled rule set looks up by a join) is a frozen
value: its sets are tuples, grown into a new value, so a cached ``CompiledRules`` shared by
streams' threads cannot change under a reader. No Spark session is needed: only the
compilation runs."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("pyspark")

from replfilter.server.session import Session  # noqa: E402
from replfilter.spark_runtime.compiled_rules import MAX_SET_RULES, compile_rules  # noqa: E402
from replfilter.spark_runtime.rule_sets import DO_BIT, IGNORE_BIT, JoinedSets  # noqa: E402


def _rules(count: int, prefix: str) -> str:
    return ", ".join(f"{prefix}{n}" for n in range(count))


def _state(large: int):
    session = Session()
    for name in ("a", "b"):
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{name}'")
    session.execute_text(f"CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = ({_rules(large, 'db.t')}), "
                         f"REPLICATE_IGNORE_DB = ({_rules(large, 'x')}) FOR CHANNEL 'b'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (small) FOR CHANNEL 'a'")
    return session.state


def test_the_sets_are_tuples_and_cannot_be_assigned():
    compiled = compile_rules(_state(MAX_SET_RULES + 1))
    joined, b = compiled._joined, compiled.channels.index("b")
    assert isinstance(joined.db, tuple) and isinstance(joined.table, tuple)
    assert [(channel, bit, len(rules)) for channel, bit, rules in joined.db] == [(b, IGNORE_BIT, MAX_SET_RULES + 1)]
    assert [(channel, bit, len(rules)) for channel, bit, rules in joined.table] == [(b, DO_BIT, MAX_SET_RULES + 1)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        joined.db = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        joined.bits_columns["db"] = "x"  # type: ignore[index]


def test_sets_at_the_limit_stay_out_of_the_join_and_the_value_is_empty():
    joined = compile_rules(_state(MAX_SET_RULES))._joined
    assert joined == JoinedSets() and not joined


def test_growing_makes_a_new_value_and_leaves_the_old_one():
    state = _state(MAX_SET_RULES + 1)
    empty = JoinedSets()
    from replfilter.evaluation.evaluator import channel_filters
    from replfilter.evaluation.rule_checks import compile_filters

    grown = empty.with_channel(compile_filters(channel_filters(state, "b"), state.collation), 1)
    assert empty == JoinedSets() and grown is not empty and len(grown.db) == len(grown.table) == 1
    small = compile_filters(channel_filters(state, "a"), state.collation)
    assert grown.with_channel(small, 0) is grown
