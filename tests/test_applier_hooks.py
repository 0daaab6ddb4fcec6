"""The applier's hooks see every channel a statement changed, found in one walk
(``changed_channels``): the same pairs as comparing the two states channel by channel by name."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError
from replfilter.server.session import Session
from replfilter.spark_runtime.applier import changed_channels

_NAMES = st.sampled_from(["a", "b", "c", "d"])
_STATEMENT = st.one_of(
    _NAMES.map(lambda c: f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL '{c}'"),
    st.tuples(_NAMES, st.sampled_from(["d1", "d2"])).map(
        lambda p: f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = ({p[1]}) FOR CHANNEL '{p[0]}'"),
    _NAMES.map(lambda c: f"START REPLICA SQL_THREAD FOR CHANNEL '{c}'"),
    _NAMES.map(lambda c: f"STOP REPLICA FOR CHANNEL '{c}'"),
    _NAMES.map(lambda c: f"RESET REPLICA ALL FOR CHANNEL '{c}'"),
    st.just("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (x)"),
)


def _by_name(old, new):  # type: ignore[no-untyped-def]
    names = [c.name for c in old.channels] + [c.name for c in new.channels if old.channel(c.name) is None]
    return {(name, old.channel(name), new.channel(name)) for name in names if old.channel(name) is not new.channel(name)}


@settings(max_examples=60, deadline=None)
@given(st.lists(_STATEMENT, min_size=1, max_size=12))
def test_changed_channels_are_the_channels_that_differ_by_name(statements):
    session = Session()
    for text in statements:
        old = session.state
        try:
            session.execute_text(text)
        except MySQLError:
            continue
        new = session.state
        pairs = changed_channels(old, new)
        assert {((b or n).name, b, n) for b, n in pairs} == _by_name(old, new)  # type: ignore[union-attr]
        assert len(pairs) == len({(b or n).name for b, n in pairs})  # type: ignore[union-attr]
