"""Pass 1's result — an input's distinct decision keys and how many rows share each — kept
per snapshot of the files the input reads.

Why: deciding needs the keys before the data, so a first look at an input costs two passes
(count the keys, then decide every row). Deciding the same files again — the what-if runs
of candidate filter states over one archive of events, a re-run job — would count the same
keys again; with the keys remembered it is one pass. Decisions are not cached: they depend
on the state, and deciding a few thousand keys takes milliseconds.

An input has a snapshot only when its rows are a function of listed files: every leaf of the
optimised plan is a file relation (Parquet, JSON ... through ``spark.read``), the plan is
deterministic, and the snapshot covers the canonical plan, each relation's format, options,
schemas and file listing (path, length, modification time), and the session's SQL settings.
Executor-decided inputs (:func:`~.transform.apply_filters`) keep their checkpointed decided key
frame here instead (:mod:`.key_decisions`): the driver holds a reference, the executors the keys.

Spark itself reads exactly the listed files at the listed lengths, so a file rewritten in
place behind Spark's back breaks Spark before it breaks this cache; and even then a row whose
key was not counted gets no decision (NULL) from the lookup, never another key's decision.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

MAX_ENTRIES = 8
MAX_KEYS = 1_000_000
MAX_FILES = 20_000


def input_snapshot(df) -> str | None:
    """A digest identifying what ``df`` reads, or None when ``df`` does not qualify."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None or df.isStreaming:  # Spark Connect, or a stream
        return None
    try:
        plan = jdf.queryExecution().optimizedPlan()
        if not plan.deterministic():
            return None
        parts = [plan.canonicalized().toString()]
        leaves = plan.collectLeaves()
        for i in range(leaves.size()):
            leaf = leaves.apply(i)
            if leaf.getClass().getSimpleName() != "LogicalRelation":
                return None
            relation = leaf.relation()
            if relation.getClass().getSimpleName() != "HadoopFsRelation":
                return None
            files = relation.location().allFiles()
            if files.size() > MAX_FILES:
                return None
            parts += [
                relation.fileFormat().toString(),
                relation.options().toString(),
                relation.dataSchema().json(),
                relation.partitionSchema().json(),
                files.mkString("\n"),
            ]
        parts.append(jdf.sparkSession().sessionState().conf().getAllConfs().toString())
    except Exception:  # noqa: BLE001 - an unexpected plan shape: no snapshot, two passes
        return None
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class KeyCache:
    """The last :data:`MAX_ENTRIES` key countings, by snapshot (least recently used out first).
    Thread-safe: jobs of several threads may decide through one process's cache."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple) -> list[dict[str, Any]] | None:
        with self._lock:
            rows = self._entries.get(key)
            if rows is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return rows

    def put(self, key: tuple, rows: Any, driver_keys: int | None = None) -> None:
        """Remember ``rows``: a list of key rows held by the driver (at most :data:`MAX_KEYS`),
        or, with ``driver_keys=0``, a reference to a checkpointed frame the executors hold."""
        if (len(rows) if driver_keys is None else driver_keys) > MAX_KEYS:
            return
        with self._lock:
            self._entries[key] = rows
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


KEY_CACHE = KeyCache()
"""The process's cache, used by :func:`~.transform.apply_filters` and its companions."""
