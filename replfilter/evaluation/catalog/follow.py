"""The replica's catalog following the events its applier applies.

On a real replica a CREATE TABLE that passes the filters creates the table, and one the filters
skip does not; later verdicts (a DROP TRIGGER looked up on the replica, a table missing on the
replica) see the catalog as the applied events left it. :class:`CatalogFollower` applies the
text of each applied Query event to the replica's catalog, in the database the applier uses
(the event's, rewritten when a rewrite rule matched: mysql-filter-evaluation.md, section 4).

Only Query events with SQL text change the catalog: a Query event given without its text, and
row events, change no schema. With no catalog (no schema given) nothing is followed: unknown
stays unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.errors import MySQLError
from ...replica.catalog import Catalog, CatalogBuilder
from ...replica.state import ReplicaState
from ..applier_errors import applier_error, foreign_key_error
from ..events import Event, QueryEvent
from .ddl import apply_to_builder
from .text import first_word, is_schema_statement

if TYPE_CHECKING:  # pragma: no cover
    from ..evaluator import Decision


class CatalogFollower:
    """Applies applied DDL to a working copy of the replica's catalog (copy on write)."""

    def __init__(self, catalog: Catalog | None):
        self._builder = CatalogBuilder(catalog) if catalog is not None else None
        self._start = catalog

    def applied(self, event: Event, applied: bool, rewritten_db: str | None = None) -> MySQLError | None:
        """Apply ``event`` if the applier applied it; the error the replica's server would
        raise executing it (the applier would stop there), else None."""
        if self._builder is None or not applied or type(event) is not QueryEvent or not event.sql:
            return None
        if not is_schema_statement(first_word(event.sql)):
            return None
        outcome = apply_to_builder(self._builder, event.sql, rewritten_db or event.default_db)
        return outcome.error

    def run(self, event: Event, decision: "Decision") -> MySQLError | None:
        """The applier runs ``event`` as ``decision`` says: the error it stops with (None: it
        ran), the catalog changed when the statement succeeded. A statement that opens a missing
        table fails before it changes anything, so its tables are looked up in the catalog as it
        was (``ALTER TABLE t RENAME TO u`` needs ``t``, which is gone once it ran); a DDL
        statement the replica's server refuses changes nothing. Nothing without a schema."""
        if self._builder is None:
            return None
        error = applier_error(event, decision.decision, decision.db, self) or foreign_key_error(
            event, decision.decision, decision.db, self)
        return error if error is not None else self.applied(event, decision.applied, decision.rewritten_db)

    @property
    def known(self) -> bool:
        """Whether the replica's schema is known at all (a schema was given)."""
        return self._builder is not None

    def table(self, db: str, name: str):
        """The table as the applied events left it (None: missing, or no schema known)."""
        return self._builder.table(db, name) if self._builder is not None else None

    def triggers_on(self, db: str, table: str):
        """The triggers of a table as the applied events left them (none without a schema)."""
        return self._builder.triggers_on(db, table) if self._builder is not None else []

    def trigger(self, db: str, name: str):
        """The trigger as the applied events left it (None: missing, or no schema known)."""
        return self._builder.trigger(db, name) if self._builder is not None else None

    @property
    def catalog(self) -> Catalog | None:
        return self._builder.freeze() if self._builder is not None else None

    def state(self, state: ReplicaState) -> ReplicaState:
        """``state`` with the followed catalog as the replica's."""
        if self._builder is None:
            return state
        return state.with_replica_catalog(self._builder.freeze())
