"""The sources' schemas, shipped to the Python workers that read SQL text.

``replfilter evaluate`` reads the SQL text of a query event that has no table list with the
schema of its channel's source (:meth:`~replfilter.replica.state.ReplicaState.source_catalog`),
so that a multi-table UPDATE assigning unqualified columns gets the table that owns each column
instead of being undecided. The Spark runtime reads the same texts on executors
(:mod:`.sql_tables`), so it needs the same schemas there.

A :class:`~replfilter.replica.catalog.Catalog` holds read-only mappings, which do not pickle: the
schemas travel as their ``--datadir`` documents (:mod:`replfilter.replica.catalog_store`) and are
rebuilt once per worker process (keyed by a digest of the documents), not once per batch.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..core.filters import NameCollation
from ..replica.catalog import Catalog
from ..replica.catalog_store import catalog_from_document, catalog_to_document
from ..replica.state import ReplicaState

_REBUILT: dict[str, tuple[Catalog | None, dict[str, Catalog]]] = {}
"""Per worker process: digest -> (every source's catalog, channel -> catalog)."""


@dataclass(frozen=True)
class SourceSchemas:
    """Picklable: what :meth:`ReplicaState.source_catalog` answers, for every channel."""

    lower_case_table_names: int
    every: dict[str, Any] | None
    channels: tuple[tuple[str, dict[str, Any]], ...]
    digest: str

    @classmethod
    def of(cls, state: ReplicaState) -> "SourceSchemas | None":
        """None when no source schema was given (then nothing changes: no extra work)."""
        if state.every_source_catalog is None and not state.channel_source_catalogs:
            return None
        every = catalog_to_document(state.every_source_catalog) if state.every_source_catalog is not None else None
        channels = tuple((name, catalog_to_document(c)) for name, c in state.channel_source_catalogs)
        text = json.dumps([state.collation.lower_case_table_names, every, channels], sort_keys=True)
        return cls(state.collation.lower_case_table_names, every, channels, hashlib.sha256(text.encode()).hexdigest())

    def to_json(self) -> str:
        """The text a Spark data source option carries (options are strings)."""
        return json.dumps([self.lower_case_table_names, self.every, self.channels, self.digest])

    @classmethod
    def from_json(cls, text: str) -> "SourceSchemas":
        lower, every, channels, digest = json.loads(text)
        return cls(lower, every, tuple((name, doc) for name, doc in channels), digest)

    def _catalogs(self) -> tuple[Catalog | None, dict[str, Catalog]]:
        found = _REBUILT.get(self.digest)
        if found is None:
            collation = NameCollation(self.lower_case_table_names)
            every = catalog_from_document(self.every, collation) if self.every is not None else None
            per_channel = {name: catalog_from_document(doc, collation) for name, doc in self.channels}
            found = _REBUILT[self.digest] = (every, per_channel)
        return found

    def catalog(self, channel: str) -> Catalog | None:
        """The schema of ``channel``'s source, as ``ReplicaState.source_catalog`` gives it."""
        every, per_channel = self._catalogs()
        return per_channel.get(channel, every)


__all__ = ["SourceSchemas"]
