"""A collision-free lookup table from 64-bit key hashes to small codes, evaluated by Spark
expressions on literal arrays instead of a join.

Why: the broadcast hash join that looked decisions up cost ~1.1 s per 10 M events on the
benchmark input (it copies every row through the join's output projection), while two
``element_at`` on literal arrays cost ~0.3 s. A plain ``hash mod N`` needs N ~ keys² to be
collision-free, so the slots are assigned with *hash and displace* (Belazzougui, Botelho and
Dietzfelbinger's CHD, simplified): keys fall into buckets, and each bucket gets one
displacement ``d`` that moves all its keys to free slots::

    bucket = h & (B - 1)
    slot   = ((h >> 20 & (N - 1)) + d[bucket] * (h >> 40 & (N - 1) | 1)) & (N - 1)

(other shifts when those bits cannot separate two keys of a bucket, see :data:`SHIFTS`).

``N`` and ``B`` are powers of two, so every step is a mask, a shift, one multiply and an add;
the step ``(h >> 40 ...) | 1`` is odd, so as ``d`` runs over ``0..N-1`` a key visits every
slot. Each slot also stores the full hash it was given: a row whose hash is not in the table
gets no code (NULL), never another key's code.

The Python functions here and the Spark expressions in :func:`with_code` compute the same
numbers (Java's ``>>`` is arithmetic like Python's, and the masks keep only bits both agree
on); ``tests/test_slot_table.py`` checks the two against each other on extreme hashes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

MAX_SLOT_BITS = 18
"""At most 262,144 slots (about 196,000 distinct keys; the arrays then take ~3 MB): literal arrays
travel inside every task's serialised plan, where a broadcast join's table goes to each executor
once, so beyond this :func:`build` returns None and the caller joins."""

LOAD = 0.75
KEYS_PER_BUCKET = 4
SLOT_COLUMN = "_rf_slot"
SHIFTS = ((20, 40), (0, 32), (8, 44), (28, 50), (12, 36))
"""Which hash bits give a key its first slot and its step, tried in this order: a placement
fails only when two keys of one bucket agree on both, which random hashes (the input is
xxhash64) make rare and the next pair of shifts makes independent. Patterned values (0, 4,
16 ...) can defeat every pair; then :func:`build` returns None and the caller joins."""


@dataclass(frozen=True)
class SlotTable:
    """Arrays for the Spark expression: ``displacements`` per bucket, and per slot the key hash
    it holds and that key's code (0 marks an empty slot; codes given to :func:`build` are >= 1)."""

    bucket_mask: int
    slot_mask: int
    f1_shift: int
    f2_shift: int
    displacements: tuple[int, ...]
    hashes: tuple[int, ...]
    codes: tuple[int, ...]

    def slot(self, h: int) -> int:
        """The slot (0-based) of hash ``h``; the same arithmetic as :func:`with_code`."""
        d = self.displacements[h & self.bucket_mask]
        f1 = (h >> self.f1_shift) & self.slot_mask
        f2 = ((h >> self.f2_shift) & self.slot_mask) | 1
        return (f1 + d * f2) & self.slot_mask

    def code(self, h: int) -> int | None:
        """The code stored for ``h``, or None for a hash the table was not built with."""
        s = self.slot(h)
        return self.codes[s] if self.codes[s] and self.hashes[s] == h else None


def _power_of_two_at_least(n: float) -> int:
    return 1 << (math.ceil(n) - 1).bit_length() if n > 1 else 1


def build(entries: Sequence[tuple[int, int]], max_slot_bits: int = MAX_SLOT_BITS) -> SlotTable | None:
    """A table for distinct ``(hash, code)`` pairs (codes >= 1), or None when there are too many
    keys or no pair of :data:`SHIFTS` places every bucket (the caller then joins)."""
    n = len(entries)
    slots = _power_of_two_at_least(max(n, 1) / LOAD)
    if slots > 1 << max_slot_bits:
        return None
    buckets_n = _power_of_two_at_least(max(n, 1) / KEYS_PER_BUCKET)
    buckets: list[list[tuple[int, int]]] = [[] for _ in range(buckets_n)]
    for h, code in entries:
        buckets[h & (buckets_n - 1)].append((h, code))
    # The fullest buckets first, while most slots are free (CHD's order).
    order = sorted((b for b in range(buckets_n) if buckets[b]), key=lambda b: -len(buckets[b]))
    # More slots use more hash bits: patterned hashes (0, 4, 8 ...) separate there.
    for size in (slots, slots * 2, slots * 4):
        if size > 1 << max_slot_bits:
            break
        for f1_shift, f2_shift in SHIFTS:
            placed = _place(buckets, order, size, f1_shift, f2_shift)
            if placed is not None:
                displacements, hashes, codes = placed
                return SlotTable(buckets_n - 1, size - 1, f1_shift, f2_shift, displacements, hashes, codes)
    return None


def _place(buckets, order, slots: int, f1_shift: int, f2_shift: int):
    mask = slots - 1
    displacements = [0] * len(buckets)
    hashes = [0] * slots
    codes = [0] * slots
    for b in order:
        members = buckets[b]
        steps = [((h >> f1_shift) & mask, ((h >> f2_shift) & mask) | 1) for h, _ in members]
        for d in range(slots):
            taken = [(f1 + d * f2) & mask for f1, f2 in steps]
            if len(set(taken)) == len(taken) and not any(codes[s] for s in taken):
                break
        else:
            return None
        displacements[b] = d
        for s, (h, code) in zip(taken, members):
            hashes[s] = h
            codes[s] = code
    return tuple(displacements), tuple(hashes), tuple(codes)


def with_code(df, table: SlotTable, hash_column: str, code_column: str):
    """``df`` with ``code_column``: the code of each row's hash in ``hash_column`` (NULL when the
    table does not hold it), and the helper column :data:`SLOT_COLUMN`, which the caller's final
    projection leaves out (dropping it here would cost one more analysis of the plan). Needs a
    classic session (:func:`.literals.has_jvm`).

    The arrays are literals built in the JVM (:mod:`.literals`). The slot is a column of its
    own so that the two lookups share it (written inline in both, Spark computed it twice)."""
    from pyspark.sql import functions as F

    from .literals import primitive_array

    spark = df.sparkSession

    def literal_array(values: list[int], kind: str):
        column = primitive_array(spark, values, kind)
        if column is None:
            raise ValueError("slot tables need a classic Spark session (a JVM gateway), not Spark Connect")
        return column

    h = F.col(hash_column)
    mask = F.lit(table.slot_mask).cast("long")
    bucket = (h.bitwiseAND(F.lit(table.bucket_mask).cast("long")) + 1).cast("int")
    d = F.element_at(literal_array(list(table.displacements), "int"), bucket).cast("long")
    f1 = F.shiftright(h, table.f1_shift).bitwiseAND(mask)
    f2 = F.shiftright(h, table.f2_shift).bitwiseAND(mask).bitwiseOR(F.lit(1).cast("long"))
    slot = F.col(SLOT_COLUMN)
    stored_hash = F.element_at(literal_array(list(table.hashes), "long"), slot)
    stored_code = F.element_at(literal_array(list(table.codes), "int"), slot)
    return df.withColumn(SLOT_COLUMN, ((f1 + d * f2).bitwiseAND(mask) + 1).cast("int")).withColumn(
        code_column, F.when(stored_hash == h, F.nullif(stored_code, F.lit(0)))
    )
