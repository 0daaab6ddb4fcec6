"""Files of event JSON lines decided line by line: what ``replfilter evaluate`` and REPLAY EVENTS
print, one result per line, a bad line an error for that line and never the end of the run."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Iterable

from ..replica.state import ReplicaState
from .evaluator import Decision, Evaluator
from .event_json import from_json
from .events import Event


@dataclass(frozen=True)
class LineResult:
    """The outcome of one input line of an events file: a decision, or an error message."""

    line: int
    event: Event | None = None
    decision: Decision | None = None
    error: str | None = None

    def to_json(self) -> str:
        """One JSON line: ``{"line": n, "event": {...}, "decision": ..., ...}`` or
        ``{"line": n, "error": "..."}``."""
        if self.decision is None or self.event is None:
            return json.dumps({"line": self.line, "error": self.error}, ensure_ascii=False)
        return json.dumps(
            {"line": self.line, "event": self.event.to_dict(), **self.decision.to_dict()}, ensure_ascii=False
        )


def evaluate_lines(
    state: ReplicaState, lines: Iterable[str], channel: str | None = None
) -> tuple[list[LineResult], ReplicaState]:
    """Feed JSON event lines (1-based numbering; blank lines skipped) through ``state``.

    Bad lines (unreadable JSON, bad fields, unknown channel) become error results carrying the
    line number and do not stop the run; the returned state has the counters of every decided
    event moved. ``channel`` makes every event arrive on that channel.
    """
    evaluator = Evaluator(state)
    results: list[LineResult] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            event = from_json(text)
            if channel is not None:
                event = replace(event, channel=channel)
            results.append(LineResult(number, event, evaluator.decide(event)))
        except ValueError as err:  # EventFormatError, UnknownChannelError
            results.append(LineResult(number, error=f"line {number}: {err}"))
    return results, evaluator.state()


def tally(results: Iterable[LineResult]) -> dict[tuple[str, str], int]:
    """Counts per (channel, decision) of decided lines, in first-seen order."""
    counts: dict[tuple[str, str], int] = {}
    for result in results:
        if result.decision is not None and result.event is not None:
            key = (result.event.channel, result.decision.decision.value)
            counts[key] = counts.get(key, 0) + 1
    return counts


__all__ = ["LineResult", "evaluate_lines", "tally"]
