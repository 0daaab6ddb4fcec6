"""What a decision key is: the key columns, a key row as an event, a decision as columns.

Shared by pass 1 (:mod:`.key_counts`), the executors' decisions (:mod:`.key_decisions`), the
driver's (:mod:`.transform`) and the stream's remembered keys (:mod:`.known_keys`).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..evaluation.evaluator import Decision
from ..evaluation.events import (
    CommandKind,
    Event,
    QueryEvent,
    RowEvent,
    TableRef,
    TransactionEvent,
    TransactionKind,
)

KEY_COLUMNS: tuple[str, ...] = (
    "channel", "type", "command", "kind", "default_db", "db", "table", "temporary", "if_exists", "tables",
)
"""The columns a decision can depend on (a superset of ``decision_key``: events with equal values
here have equal decision keys, so deciding per distinct value is exact)."""

HASH_COLUMN = "_rf_key"


class InvalidEventError(ValueError):
    """A row whose key columns do not form an event (e.g. NULL type, unknown command)."""


def event_from_key(values: Mapping[str, Any]) -> Event:
    """Build the event a key row stands for, with the JSON defaults for NULL optional fields."""
    typ = values.get("type")
    channel = values.get("channel")
    channel = "" if channel is None else channel
    if typ == "row":
        db, table = values.get("db"), values.get("table")
        if db is None or table is None:
            raise InvalidEventError(f"row event without {'db' if db is None else 'table'}: {dict(values)!r}")
        return RowEvent(channel, db, table)
    if typ == "query":
        try:
            command = CommandKind(values.get("command"))
        except ValueError:
            raise InvalidEventError(f"query event with unknown command {values.get('command')!r}") from None
        refs = []
        for t in values.get("tables") or ():
            db, table, updating = (t["db"], t["table"], t["updating"]) if isinstance(t, Mapping) else tuple(t)
            if not table:
                raise InvalidEventError(f"query event with an empty table name in tables: {dict(values)!r}")
            refs.append(TableRef(db, table, True if updating is None else bool(updating)))
        default_db = values.get("default_db")
        return QueryEvent(
            channel=channel,
            default_db="" if default_db is None else default_db,
            command=command,
            tables=tuple(refs),
            temporary=bool(values.get("temporary")),
            if_exists=bool(values.get("if_exists")),
        )
    if typ == "transaction":
        try:
            kind = TransactionKind(values.get("kind"))
        except ValueError:
            raise InvalidEventError(f"transaction event with unknown kind {values.get('kind')!r}") from None
        return TransactionEvent(channel, kind)
    raise InvalidEventError(f"not an event type: {typ!r} (expected 'query', 'row' or 'transaction')")


def decision_values(decision: Decision) -> tuple[str, str | None, str | None, str | None]:
    """The four decision columns for one decision."""
    return (
        decision.decision.value,
        decision.filter_type.keyword if decision.filter_type else None,
        decision.rule,
        decision.rewritten_db,
    )
