"""A decision on a query event whose table list its SQL text could not give.

It stands only when no table list could change it: a database-level SKIP, or no table rules
at all; otherwise it is undecided (mysql-filter-evaluation.md, section 3.2: the table rules
look at the statement's tables). One rule for EXPLAIN REPLICATION, ``replfilter evaluate`` and
REPLAY EVENTS, so the same text gets the same answer on each.
"""

from __future__ import annotations

from dataclasses import replace

from .evaluator import SKIP, CompiledFilters, Decision, decide_compiled
from .events import Event, QueryEvent

TABLES_MATTER = "undecided: table rules decide this statement, and its table list is not known"


def unless_tables_matter(decision: Decision, event: Event, compiled: CompiledFilters, note: str | None = None) -> Decision:
    """``decision`` if it holds whatever the tables; else undecided, with ``note`` (what the text
    could not say) after the reason. Unknown updating flags (``None``) are answered by the
    evaluator itself."""
    if not isinstance(event, QueryEvent) or decision.decision is None:
        return decision
    if any(t.updating is None for t in event.tables) or not compiled.table_rules_on:
        return decision
    if decide_compiled(compiled, replace(event, tables=())).decision is SKIP:
        return decision  # the database rules skip it, whatever its tables
    reason = TABLES_MATTER + (f"; {note}" if note else "")
    return replace(decision, decision=None, filter_type=None, rule=None, reason=reason)
