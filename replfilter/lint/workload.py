"""A workload's evidence: statements whose verdict depends on the binlog format (RF501), rules
no event matched (RF502), and how many events each rule decided (RF503).

The workload is SQL text, read as EXPLAIN REPLICATION reads it (``USE`` followed; each statement
derived under STATEMENT and under ROW, mysql-filter-evaluation.md sections 3.2 and 3.4), or a
JSON-lines events file as ``replfilter evaluate`` reads it. Decisions come from the evaluator.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from ..core.filters import FilterType, Rule, display_rules
from ..evaluation.evaluator import Decision, compile_filters, decide_compiled
from ..evaluation.event_json import from_json
from ..evaluation.events import Event, QueryEvent, RowEvent
from .context import View
from .findings import Finding

FT = FilterType


class WorkloadError(ValueError):
    """The workload cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class WorkloadStatement:
    """One statement of a SQL workload: its line, text and events under each format."""

    line: int
    sql: str
    statement_events: tuple[Event, ...]
    row_events: tuple[Event, ...]


@dataclass(frozen=True)
class Workload:
    path: str
    statements: tuple[WorkloadStatement, ...] = ()
    events: tuple[tuple[int, Event], ...] = ()  # an events file: (line, event)


def read_workload(path: str, text: str) -> Workload:
    """SQL text or JSON lines (the first non-blank line starting with ``{`` says which)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):
        return _read_events(path, text)
    return _read_sql(path, text)


def _read_events(path: str, text: str) -> Workload:
    events = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append((number, from_json(line)))
        except ValueError as error:
            raise WorkloadError(f"{path}, line {number}: {error}") from None
    return Workload(path, events=tuple(events))


def _read_sql(path: str, text: str) -> Workload:
    from ..evaluation.sql.logged_events import events_for
    from ..evaluation.sql.readers import analyse_statement
    from ..evaluation.sql.tokens import SqlEventsError, split_sql_script

    statements = []
    default_db = ""
    cursor = 0
    for piece in split_sql_script(text):
        if not piece:
            continue
        found = text.find(piece, cursor)
        line = text.count("\n", 0, found) + 1 if found >= 0 else 0
        cursor = found + len(piece) if found >= 0 else cursor
        try:
            analysis = analyse_statement(piece, default_db)
            as_statement = events_for(piece, default_db, "STATEMENT")
            as_rows = events_for(piece, default_db, "ROW")
        except SqlEventsError as error:
            raise WorkloadError(f"{path}, line {line}: {error}") from None
        statements.append(WorkloadStatement(line, piece, as_statement, as_rows))
        if analysis.use_db is not None:
            default_db = analysis.use_db
    return Workload(path, statements=tuple(statements))


def _on(channel: str, events: Iterable[Event]) -> list[Event]:
    from dataclasses import replace

    return [replace(event, channel=channel) for event in events]


def _verdicts(decisions: Sequence[Decision]) -> str:
    verdicts = [d.decision.value for d in decisions]
    if not verdicts:
        return "nothing logged"
    if len(set(verdicts)) == 1:
        return verdicts[0]
    return "partly " + "/".join(sorted(set(verdicts)))


def check_format_dependent(view: View, workload: Workload) -> Iterator[Finding]:
    """RF501: statements the channel decides differently under STATEMENT and ROW."""
    compiled = compile_filters(view.filters, view.collation)
    for statement in workload.statements:
        as_statement = [decide_compiled(compiled, e) for e in _on(view.channel, statement.statement_events)]
        as_rows = [decide_compiled(compiled, e) for e in _on(view.channel, statement.row_events)]
        if not as_statement or not as_rows:
            continue
        first, second = _verdicts(as_statement), _verdicts(as_rows)
        if first == second:
            continue
        deciding = next((d for d in as_statement if d.filter_type is not None), None)
        sql = statement.sql if len(statement.sql) <= 80 else statement.sql[:77] + "..."
        why = f" ({as_statement[0].reason})" if as_statement else ""
        yield Finding(
            view.channel, "RF501",
            f"{workload.path}, line {statement.line}: `{sql}` is {first} under STATEMENT format{why} and {second} under ROW",
            deciding.filter_type if deciding else None, deciding.rule if deciding else None,
            location=(workload.path, statement.line),
        )


def _formats(binlog_format: str | None) -> tuple[str, ...]:
    """The formats a SQL workload is counted under: the source's, when known (MIXED counts as
    STATEMENT, as everywhere in the lint), else both."""
    if binlog_format is None:
        return ("STATEMENT", "ROW")
    return ("ROW",) if binlog_format == "ROW" else ("STATEMENT",)


def _all_events(view: View, workload: Workload, binlog_format: str | None = None) -> list[Event]:
    events: list[Event] = []
    formats = _formats(binlog_format)
    for statement in workload.statements:
        if "STATEMENT" in formats:
            events.extend(_on(view.channel, statement.statement_events))
        if "ROW" in formats:
            events.extend(_on(view.channel, statement.row_events))
    events.extend(event for _line, event in workload.events if event.channel == view.channel)
    return events


def rule_counts(view: View, events: Iterable[Event]) -> Counter:
    """Per (type, rule): the events it decided, plus the rewrites and do-db matches it made
    (a do-db rule that let an event on to the table rules also counts, as its COUNTER does)."""
    compiled = compile_filters(view.filters, view.collation)
    do_db = {view.key(str(r)): r for r in view.rules(FT.DO_DB)}
    rewrites = {display_rules(FT.REWRITE_DB, (r,)): r for r in view.rules(FT.REWRITE_DB)}
    counts: Counter = Counter()
    for event in events:
        if not isinstance(event, (QueryEvent, RowEvent)):
            continue
        decision = decide_compiled(compiled, event)
        if decision.rewrite_rule is not None and decision.rewrite_rule in rewrites:
            counts[(FT.REWRITE_DB, rewrites[decision.rewrite_rule])] += 1
        if decision.filter_type is not None and decision.filter_type is not FT.DO_DB:
            counts[(decision.filter_type, _stored(view, decision.filter_type, decision.rule))] += 1
        if decision.db is not None and FT.DO_DB in decision.increments and view.key(decision.db) in do_db:
            counts[(FT.DO_DB, do_db[view.key(decision.db)])] += 1
    return counts


def _stored(view: View, ftype: FilterType, rule: str | None) -> Rule | None:
    """The rule as stored (the decision names it as displayed)."""
    for stored in view.rules(ftype):
        if display_rules(ftype, (stored,)) == rule or stored == rule:
            return stored
    return rule


def check_rule_usage(view: View, workload: Workload, binlog_format: str | None = None) -> Iterator[Finding]:
    """RF502 for rules nothing matched, RF503 with each other rule's count: a SQL workload's
    statements are counted under the source's format when it is known, else under both."""
    events = _all_events(view, workload, binlog_format)
    counts = rule_counts(view, events)
    total = len(events)
    formats = _formats(binlog_format)
    how = "both formats for SQL" if len(formats) == 2 else f"SQL as logged under {formats[0]}"
    for ftype in FilterType:
        for rule in view.rules(ftype):
            n = counts.get((ftype, rule), 0)
            if n == 0:
                yield Finding(view.channel, "RF502",
                              f"no event of {workload.path} ({total} events, {how}) matched this rule", ftype, rule)
            else:
                yield Finding(view.channel, "RF503", f"decided {n} of {total} events of {workload.path}", ftype, rule)
