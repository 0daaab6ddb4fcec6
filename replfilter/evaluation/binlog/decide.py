"""Deciding the events of binary and relay log files, transaction by transaction, with the
reference evaluator (through :class:`~replfilter.evaluation.event_lines.LineEvaluator`, so a
binlog and the same events as JSON lines decide, count and follow the catalog alike).

Each result is one binlog event that the applier decides on (or a problem with the file), with
where it is, its GTID, its decision, and the verdict of its transaction: APPLY when any of its
events is applied, SKIP when every decided event in it is skipped, undecided (None) when none is
applied and one is undecided; a transaction with nothing to filter (only boundaries) is applied.
A transaction's results are held until it ends, so memory is bounded by the largest
transaction, not the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Sequence

from ..applier_errors import error_text
from ..evaluator import Decision
from ..event_lines import LineEvaluator
from ..events import Event, QueryEvent, RowEvent
from .as_events import EventMapper, Mapped, Transaction, mapped_items, transactions
from .framing import NotABinlog, ReadProblem
from .column_values import RowFormatError
from .reader import BinlogEvent, Item, read_binlog
from .rows import read_rows_json
from .selection import Selection


@dataclass
class BinlogResult:
    """One decided binlog event, or a problem (``problem``) at a place in a file."""

    item: Mapped | None = None
    event: Event | None = None
    decision: Decision | None = None
    applier_error: Any = None
    transaction: str | None = None
    problem: ReadProblem | None = None
    error: str | None = None
    values: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.problem is not None:
            p = self.problem
            return {"log_name": p.log_name, "pos": p.pos, "end_log_pos": p.end_pos, "error": p.message, "problem": p.kind}
        assert self.item is not None
        raw = self.item.source.raw
        out: dict[str, Any] = {
            "log_name": raw.log_name,
            "pos": raw.pos,
            "end_log_pos": raw.log_pos,
            "event_type": raw.type_name,
            "gtid": self.item.gtid,
        }
        if self.error is not None:
            out["error"] = self.error
            return out
        out["event"] = self.event.to_dict() if self.event is not None else None
        if self.decision is not None:
            out.update(self.decision.to_dict())
        out["applier_error"] = error_text(self.applier_error) if self.applier_error is not None else None
        out["transaction"] = self.transaction
        if self.item.row_count is not None:
            out["rows"] = self.item.row_count
        if self.values is not None:
            out["values"] = self.values
        return out


@dataclass
class Summary:
    """Counts of events and rows, applied and skipped, per database, table and deciding rule."""

    counts: dict[tuple[str, str, str, str], list[int]] = field(default_factory=dict)

    def add(self, result: BinlogResult) -> None:
        if result.decision is None or result.event is None or result.item is None:
            return
        event = result.event
        if isinstance(event, RowEvent):
            db, table = result.decision.db or event.db, event.table
        elif isinstance(event, QueryEvent):
            db = result.decision.db or event.default_db
            table = ",".join(t.table for t in event.tables)
        else:
            return
        decision = result.decision.decision.value if result.decision.decision is not None else "undecided"
        rule = result.decision.rule or ""
        entry = self.counts.setdefault((db, table, rule, decision), [0, 0])
        if result.item.rows_of is not None and result.item.row_count is not None:
            entry[1] += result.item.row_count
        else:
            entry[0] += 1

    def lines(self) -> list[str]:
        out = []
        for (db, table, rule, decision), (events, rows) in sorted(self.counts.items()):
            out.append(f"db '{db}' table '{table}' rule '{rule}': {decision} events {events} rows {rows}")
        return out


def decide_files(
    evaluator: LineEvaluator,
    paths: Sequence[str],
    selection: Selection = Selection(),
    decode_rows: bool = False,
    channel: str = "",
) -> Iterator[BinlogResult]:
    """Every decided event of the files, in order. A file that is not a binlog or cannot be
    opened is one problem result and the next file is read."""
    mapper = EventMapper(channel, evaluator.source_catalog, decode_rows)
    for index, path in enumerate(paths):
        start, stop = selection.positions(index, len(paths))
        try:
            items = list_guard(read_binlog(path, start, stop))
            yield from decide_items(evaluator, items, mapper, selection)
        except NotABinlog as err:
            yield BinlogResult(problem=ReadProblem(path, 0, "not_binlog", str(err), fatal=True))
        except OSError as err:
            yield BinlogResult(problem=ReadProblem(path, 0, "unreadable", f"{path}: {err.strerror or err}", fatal=True))


def list_guard(items: Iterator[Item]) -> Iterator[Item]:
    """Raises :class:`NotABinlog`/``OSError`` before the first item, not in the middle of output."""
    first = next(items, None)
    if first is None:
        return iter(())
    return _chain(first, items)


def _chain(first: Item, rest: Iterator[Item]) -> Iterator[Item]:
    yield first
    yield from rest


def decide_items(
    evaluator: LineEvaluator, items: Iterable[Item], mapper: EventMapper, selection: Selection = Selection()
) -> Iterator[BinlogResult]:
    for group in transactions(mapped_items(_by_time(items, selection), mapper)):
        if not selection.wants_gtid(group.gtid) and _has_decided(group):
            continue
        yield from decide_transaction(evaluator, group)


def _has_decided(group: Transaction) -> bool:
    return any(isinstance(item, Mapped) and (item.event is not None or item.rows_of is not None) for item in group.items)


def _by_time(items: Iterable[Item], selection: Selection) -> Iterator[Item]:
    started = selection.start_datetime is None
    for item in items:
        if isinstance(item, BinlogEvent):
            when = item.raw.timestamp
            if selection.stop_datetime is not None and when >= selection.stop_datetime and item.raw.type_code != 15:
                return
            if not started:
                if when < selection.start_datetime or item.raw.type_code == 15:  # type: ignore[operator]
                    continue
                started = True
        yield item


def decide_transaction(evaluator: LineEvaluator, group: Transaction) -> Iterator[BinlogResult]:
    results: list[BinlogResult] = []
    by_table: dict[int, tuple[Event, Decision]] = {}
    for item in group.items:
        if isinstance(item, ReadProblem):
            results.append(BinlogResult(problem=item))
            continue
        if item.error is not None:
            results.append(BinlogResult(item, error=item.error))
            continue
        if item.rows_of is not None and item.event is None:  # a rows event: its Table_map's decision
            table_event, decision = by_table.get(id(item.rows_of), (None, None))
            values = None
            if item.decode:
                names = item.rows_of.column_names_in(evaluator.source_catalog(table_event.channel if table_event is not None else ""))
                body = item.source.body
                try:
                    values = read_rows_json(body.header, item.rows_of, body.body, names)
                except (RowFormatError, ValueError, IndexError) as err:
                    message = f"row image does not parse: {err}"
                    results.append(BinlogResult(replace(item, error=message), error=message))
                    continue
                item = Mapped(item.source, None, item.gtid, item.rows_of, len(values))
            results.append(BinlogResult(item, table_event, decision, values=values))
            continue
        if item.event is None:
            continue
        try:
            event, decision, stop = evaluator.decide_event(item.event)
        except ValueError as err:
            results.append(BinlogResult(item, error=str(err)))
            continue
        if item.rows_of is not None:
            by_table[id(item.rows_of)] = (event, decision)
        results.append(BinlogResult(item, event, decision, stop))
    verdict = _transaction_verdict(results)
    for result in results:
        if result.problem is None and result.error is None:
            result.transaction = verdict
        yield result


def _transaction_verdict(results: list[BinlogResult]) -> str | None:
    verdicts = [
        r.decision.decision
        for r in results
        if r.decision is not None and isinstance(r.event, (QueryEvent, RowEvent))
    ]
    if any(v is not None and v.value == "APPLY" for v in verdicts):
        return "APPLY"
    if any(v is None for v in verdicts):
        return None
    return "SKIP" if verdicts else "APPLY"
