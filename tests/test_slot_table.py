"""The slot table: every key it was built with finds its own code, no other hash finds one,
and Spark's expression computes exactly what the Python model computes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from replfilter.spark_runtime import slot_table

LONGS = st.integers(min_value=-(2**63), max_value=2**63 - 1)
EXTREMES = [-(2**63), -(2**63) + 1, -1, 0, 1, 2**63 - 1, 2**40, -(2**40), 0x7FFFF_FFFFF, -0x100000]


@given(st.sets(LONGS, max_size=300), st.lists(LONGS, max_size=50))
def test_each_key_finds_its_code_and_others_find_none(keys, probes):
    entries = [(h, i + 1) for i, h in enumerate(sorted(keys))]
    table = slot_table.build(entries)
    if table is None:  # adversarial hashes may ask for the join; xxhash64 values never do (below)
        return
    for h, code in entries:
        assert table.code(h) == code
    for h in probes:
        if h not in keys:
            assert table.code(h) is None
    assert len(table.hashes) >= len(keys) / slot_table.LOAD - 1


@settings(max_examples=30)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=3000))
def test_random_hashes_always_place(seed, n):
    import random

    rng = random.Random(seed)  # hashes as xxhash64 makes them, not adversarial values
    keys = {rng.getrandbits(64) - 2**63 for _ in range(n)}
    table = slot_table.build([(h, 1) for h in keys])
    assert table is not None and all(table.code(h) == 1 for h in keys)


def test_thousands_of_keys_place_quickly():
    import random

    rng = random.Random(7)
    keys = {rng.getrandbits(64) - 2**63 for _ in range(50_000)}
    table = slot_table.build([(h, 1 + h % 28) for h in keys])
    assert table is not None
    assert all(table.code(h) == 1 + h % 28 for h in keys)
    assert len(table.hashes) == 1 << 17  # 50 000 / 0.75 rounded up to a power of two


def test_too_many_keys_ask_for_the_join():
    assert slot_table.build([(h, 1) for h in range(100)], max_slot_bits=6) is None
    assert slot_table.build([(h, 1) for h in range(40)], max_slot_bits=6) is not None


def test_empty_table_finds_nothing():
    table = slot_table.build([])
    assert table is not None and table.code(0) is None and table.code(-1) is None


@pytest.mark.spark
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sets(LONGS, min_size=1, max_size=400), st.lists(LONGS, max_size=40))
def test_spark_expression_equals_the_python_model(spark, keys, probes):
    from pyspark.sql.types import LongType, StructField, StructType

    keys |= {h for h in EXTREMES[::2]}
    entries = [(h, i + 1) for i, h in enumerate(sorted(keys))]
    table = slot_table.build(entries)
    assume(table is not None)
    hashes = sorted(keys | set(probes) | set(EXTREMES))
    df = spark.createDataFrame([(h,) for h in hashes], StructType([StructField("h", LongType(), False)]))
    got = {r.h: r.code for r in slot_table.with_code(df, table, "h", "code").collect()}
    assert got == {h: table.code(h) for h in hashes}
