"""The stream's remembered keys (one pass for batches of known keys): what is remembered, when
a plan is reused, and that the counts read back from the packed observed sums equal the
two-pass counts. The Spark side (lookup, observe, fall back) is tested on a real stream in
test_spark_stream.py."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent
from replfilter.core.filters import FilterType
from replfilter.server.session import Session
from replfilter.spark_runtime.known_keys import FIELD_BITS, MAX_ROWS, KnownKeys
from replfilter.spark_runtime.sql_tables import key_needs_sql
from replfilter.spark_runtime.transform import HASH_COLUMN, KEY_COLUMNS, decide_keys
from spark_helpers import event_row, events, states

SETUP = """
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'a';
CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(db1) FOR CHANNEL 'a';
"""


def _key(event) -> dict:
    row = event_row(event)
    return {c: row[c] for c in KEY_COLUMNS}


def _state(sql: str = SETUP):
    session = Session()
    session.execute_sql(sql)
    return session


def test_a_hash_seen_with_two_keys_is_never_looked_up():
    known = KnownKeys()
    known.remember([(7, _key(RowEvent("a", "db1", "t")), 0), (8, _key(RowEvent("a", "db2", "t")), 0)])
    known.remember([(7, _key(RowEvent("a", "db3", "t")), 0)])  # another key with hash 7
    known.remember([(7, _key(RowEvent("a", "db1", "t")), 0)])  # and 7 comes back: still refused
    plan = known.plan(_state().state)
    assert [h for h, _, _ in plan.decisions.key_rows] == [8]


def test_keys_that_may_wait_for_sql_text_are_not_remembered():
    known = KnownKeys()
    waiting = {**_key(QueryEvent("a", "db2", CommandKind.INSERT, ())), "tables": None}
    known.remember([(1, waiting, 0), (2, _key(RowEvent("a", "db2", "t")), 0)])
    assert len(known) == 1


def test_keys_with_tables_whose_updating_flag_is_not_known_are_not_remembered():
    """Another batch's rules may leave such a key undecided: each batch's readers decide it."""
    from replfilter.evaluation.events import TableRef

    known = KnownKeys()
    unknown = _key(QueryEvent("a", "db2", CommandKind.UPDATE_MULTI, (TableRef(None, "t", None), TableRef(None, "u", True))))
    known.remember([(1, unknown, 0), (2, _key(QueryEvent("a", "db2", CommandKind.UPDATE_MULTI, (TableRef(None, "t"),))), 0)])
    assert len(known) == 1


def test_remembering_past_the_limit_starts_over_from_the_latest_keys():
    known = KnownKeys(limit=3)
    known.remember([(h, _key(RowEvent("a", f"db{h}", "t")), 0) for h in (1, 2)])
    known.remember([(h, _key(RowEvent("a", f"db{h}", "t")), 0) for h in (3, 4)])
    assert sorted(h for h, _, _ in known.plan(_state().state).decisions.key_rows) == [3, 4]


def test_remembered_keys_are_bounded_by_their_memory():
    one = KnownKeys()
    one.remember([(1, _key(RowEvent("a", "db1", "t")), 0)])
    per_key = one.size_bytes
    known = KnownKeys(max_bytes=3 * per_key + per_key // 2)  # room for three such keys
    known.remember([(h, _key(RowEvent("a", f"db{h}", "t")), 0) for h in (1, 2)])
    assert len(known) == 2 and known.size_bytes == 2 * per_key
    known.remember([(h, _key(RowEvent("a", f"db{h}", "t")), 0) for h in (3, 4)])  # over: start over
    assert sorted(h for h, _, _ in known.plan(_state().state).decisions.key_rows) == [3, 4]
    assert known.size_bytes == 2 * per_key


@settings(max_examples=20, deadline=None)
@given(evs=st.lists(events, max_size=20), ambiguous=st.booleans())
def test_spilled_keys_load_back_as_they_were(tmp_path_factory, evs, ambiguous):
    path = str(tmp_path_factory.mktemp("ckpt") / "known_keys.parquet")
    known = KnownKeys()
    known.remember([(h, _key(e), 0) for h, e in enumerate(evs)])
    if ambiguous and evs:
        known.remember([(0, _key(RowEvent("x", "other", "t")), 0)])  # hash 0 seen with two keys
    known.spill(path)
    assert not known.dirty
    loaded = KnownKeys()
    assert loaded.load(path) and not KnownKeys().load(path + ".missing")
    assert loaded._keys == known._keys and loaded._ambiguous == known._ambiguous
    assert loaded.worth_trying == bool(known._keys)


def test_keys_of_channels_the_replica_lacks_are_left_out():
    known = KnownKeys()
    known.remember([(1, _key(RowEvent("gone", "db2", "t")), 0)])
    assert known.plan(_state().state) is None
    known.remember([(2, _key(RowEvent("a", "db2", "t")), 0)])
    assert [h for h, _, _ in known.plan(_state().state).decisions.key_rows] == [2]
    assert known.plan(_state().state, relay_channel="other") is None


def test_a_plan_is_reused_while_the_rules_stay_and_made_again_when_they_change():
    session = _state()
    known = KnownKeys()
    known.remember([(1, _key(RowEvent("a", "db1", "t")), 0)])
    plan = known.plan(session.state)
    session.update(lambda s: decide_keys([{**_key(RowEvent("a", "db1", "t")), HASH_COLUMN: 1, "count": 5}], s).new_state())
    assert session.state.channel("a").filters[FilterType.IGNORE_DB].counter == 5  # counters moved ...
    assert known.plan(session.state) is plan  # ... same rules: same plan
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=() FOR CHANNEL 'a'")
    again = known.plan(session.state)
    assert again is not plan and again.decisions.outcomes[0][0] == "APPLY"
    known.remember([(2, _key(RowEvent("a", "db2", "t")), 0)])
    assert known.plan(session.state) is not again


def _observed(plan, counts: dict[int, int], unknown: int = 0) -> dict:
    """What Spark's observe gives for rows with these per-hash counts (as the expressions do)."""
    codes = {h: code for h, _, code in plan.decisions.key_rows}
    metrics = {"rows": sum(counts.values()) + unknown, "unknown": unknown}
    for first in range(0, len(plan.classes), 2):
        total = None
        for h, n in counts.items():
            count_class = plan.pair_classes[codes[h]]
            if count_class in (first, first + 1) and n:
                total = (total or 0) + (n << (FIELD_BITS * (count_class - first)))
            elif n:
                total = total or 0
        metrics[f"classes_{first}"] = total
    return metrics


@settings(max_examples=60, deadline=None)
@given(states(), st.lists(st.tuples(events, st.integers(0, 3_000_000)), min_size=1, max_size=25))
def test_counts_read_from_packed_sums_equal_the_two_pass_counts(state, weighted):
    keys: dict[int, dict] = {}
    counts: dict[int, int] = {}
    for event, n in weighted:
        values = _key(event)
        if key_needs_sql(values):  # never remembered (KnownKeys.remember): its batch takes two passes
            continue
        h = next((k for k, v in keys.items() if v == values), len(keys) + 1)
        keys[h] = values
        counts[h] = counts.get(h, 0) + n
    assume(keys)
    known = KnownKeys()
    known.remember([(h, v, 0) for h, v in keys.items()])
    plan = known.plan(state)
    two_pass = decide_keys([{**v, HASH_COLUMN: h, "count": counts[h]} for h, v in keys.items()], state)
    one_pass = plan.counted(_observed(plan, counts), state)
    assert (one_pass.events, one_pass.applied, one_pass.skipped) == (two_pass.events, two_pass.applied, two_pass.skipped)
    drop_zero = lambda c: {ch: {f: n for f, n in inc.items() if n} for ch, inc in c.items() if any(inc.values())}  # noqa: E731
    assert drop_zero(one_pass.counts) == drop_zero(two_pass.counts)
    assert plan.counted(_observed(plan, counts, unknown=1), state) is None


def test_batches_too_large_to_count_exactly_take_two_passes():
    known = KnownKeys()
    known.remember([(1, _key(RowEvent("a", "db1", "t")), 0)])
    plan = known.plan(_state().state)
    assert plan.counted(_observed(plan, {1: 10}), _state().state).events == 10
    assert plan.counted(_observed(plan, {1: MAX_ROWS}), _state().state) is None
    overflowed = {**_observed(plan, {1: 10}), "classes_0": None}  # try_sum overflowed
    assert plan.counted(overflowed, _state().state) is None


def test_two_pass_flag_of_the_stream_command():
    from replfilter.cli.stream import build_parser, config_from_args

    args = ["events", "out", "ckpt", "--format", "parquet"]
    assert config_from_args(build_parser().parse_args(args)).one_pass is True
    assert config_from_args(build_parser().parse_args([*args, "--two-pass"])).one_pass is False


def test_after_a_miss_one_pass_waits_for_a_clean_batch_with_nothing_new():
    known = KnownKeys()
    assert not known.worth_trying  # nothing remembered yet
    key = (1, _key(RowEvent("a", "db1", "t")), 0)
    known.remember([key])
    assert known.worth_trying
    known.missed()
    assert not known.worth_trying
    known.remember([key, (2, _key(RowEvent("a", "db2", "t")), 0)])  # brought a new key
    assert not known.worth_trying
    known.remember([key], clean=False)  # nothing new, but dead letters
    assert not known.worth_trying
    known.remember([key, (2, _key(RowEvent("a", "db2", "t")), 0)])
    assert known.worth_trying
