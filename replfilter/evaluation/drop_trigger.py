"""DROP TRIGGER as the replica's applier decides it: by the table the trigger is on, found in
the replica's own catalog (mysql-filter-evaluation.md, section 3.2: the statement names the
trigger, not its table, so the table list comes from the replica's objects).

One place for every front-end that sees the statement's text (EXPLAIN REPLICATION, ``replfilter
evaluate``, REPLAY EVENTS), so they agree. Without the replica's catalog the verdict is
undecided: "the trigger is not found" would be a guess.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from ..core.filters import fold_case
from .event_json import UnknownTables, read_event_sql
from .evaluator import CompiledFilters, Decision, decide_compiled
from .events import CommandKind, Event, QueryEvent, TableRef
from .catalog.follow import CatalogFollower

UNKNOWN_REPLICA = (
    "undecided: DROP TRIGGER is decided by the trigger's table on the replica, and the "
    "replica's schema is not known: give the schema with `--schema`"
)


def is_unresolved_drop_trigger(event: Event) -> bool:
    """A DROP TRIGGER event whose table list the replica must find (its text is there, its
    table list is empty: the source logs none)."""
    return (isinstance(event, QueryEvent) and event.command is CommandKind.DROP_TRIGGER
            and not event.tables and bool(event.sql))


def named_trigger(event: QueryEvent) -> tuple[str | None, str] | None:
    """The ``(db, name)`` the event's text names (None: the text names none it can read), read
    as the JSON reader reads the text (:func:`~.event_json.read_event_sql`). Raises
    :class:`~.event_json.EventFormatError` for a text the source refuses (an error naming
    ``sql``, as for any event)."""
    try:
        return read_event_sql(event.sql or "", event.default_db).trigger
    except UnknownTables:
        return None


def with_trigger_table(
    event: QueryEvent, trigger: tuple[str | None, str], compiled: CompiledFilters, replica: CatalogFollower
) -> QueryEvent:
    """The event with its table list as the replica builds it: the trigger's table, found in
    the replica's catalog in the trigger's database (its qualifier, else the session's database
    after lower-casing and rewrite), updating; empty when the trigger is not there."""
    db, name = trigger
    if db is None:
        folded = fold_case(event.default_db) if compiled.ci else event.default_db
        rewrite = compiled.rewrite_db(folded)
        db = rewrite[1] if rewrite else folded
    found = replica.trigger(db, name)
    return replace(event, tables=(TableRef(db, found.table, True),) if found is not None else ())


def decide_drop_trigger(
    event: QueryEvent,
    trigger: tuple[str | None, str] | None,
    compiled: CompiledFilters,
    replica: CatalogFollower,
    decide: Callable[[Event], Decision] | None = None,
) -> tuple[QueryEvent, Decision]:
    """The event as the replica sees it and its decision (by ``decide``, e.g. a counting
    evaluator's; the compiled filters by default); undecided, moving no counter, without the
    replica's catalog or when the text names no trigger."""
    if not replica.known or trigger is None:
        return event, replace(decide_compiled(compiled, event), decision=None, filter_type=None, rule=None,
                              reason=UNKNOWN_REPLICA)
    event = with_trigger_table(event, trigger, compiled, replica)
    return event, (decide or (lambda e: decide_compiled(compiled, e)))(event)
