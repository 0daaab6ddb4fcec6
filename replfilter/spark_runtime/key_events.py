"""What a decision key is: the key columns, a key row as an event, a decision as columns.

Shared by pass 1 (:mod:`.key_counts`), the executors' decisions (:mod:`.key_decisions`) and
the driver's (:mod:`.exact_path`).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..evaluation.evaluator import Decision
from ..evaluation.events import (
    CommandKind,
    Event,
    QueryEvent,
    RowEvent,
    TransactionEvent,
    TransactionKind,
)
from .schema import table_ref

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
            ref = table_ref(t)
            if not ref.table:
                raise InvalidEventError(f"query event with an empty table name in tables: {dict(values)!r}")
            refs.append(ref)
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


def has_unknown_updating(values: Mapping[str, Any]) -> bool:
    """Whether a key's table list holds a table whose updating flag is not known (schema.py):
    its decision depends on whether such a table meets a rule, so other rules may leave it
    undecided (a dead letter of the readers, never a decision of the transform)."""
    return any(table_ref(t).updating is None for t in values.get("tables") or ())


def decision_values(decision: Decision) -> tuple[str, str | None, str | None, str | None]:
    """The four decision columns for one decision. An undecided one (a table whose updating flag
    is not known meets a rule) has none: the readers of SQL text make such an event a dead
    letter first (:mod:`.sql_tables`), with the state's rules."""
    if decision.decision is None:
        raise InvalidEventError(
            f"{decision.reason} (read_events with state= makes such an event a dead letter)"
        )
    return (
        decision.decision.value,
        decision.filter_type.keyword if decision.filter_type else None,
        decision.rule,
        decision.rewritten_db,
    )
