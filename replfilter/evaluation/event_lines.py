"""Files of event JSON lines decided line by line: what ``replfilter evaluate`` and REPLAY EVENTS
print, one result per line, a bad line an error for that line and never the end of the run.

One reading of a line, shared with the Spark runtime (whose stream hands the lines its native
check refuses to :func:`read_line`), so that both decide and refuse the same lines for the same
reasons:

* a line ends at ``\\n`` only, as JSON Lines says; a ``\\r`` just before it belongs to the line
  end (``\\r\\n``), a bare ``\\r`` elsewhere is part of the line;
* a line is read as bytes and must be UTF-8 text; a line that is not is an error for that line;
* a line may start with a UTF-8 byte order mark (U+FEFF, as editors on Windows write at the
  start of a file), which is not part of it: each line is a JSON text, and RFC 8259 (section
  8.1) lets a reader ignore the mark; a line (or a file's first line) with one reads as without;
* a blank line (nothing but spaces, tabs and that ``\\r``: JSON's own white space) is not a
  record and is skipped; any other line is an event or an error;
* the error messages are replfilter's own (:func:`read_line`), never the JSON library's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import IO, Iterable, Iterator

from ..core.errors import MySQLError
from ..replica.state import ReplicaState
from .applier_errors import error_text
from .evaluator import Decision, Evaluator, decide_compiled
from .event_json import EventFormatError, SourceCatalogs, UnknownTables, from_json, read_event_sql
from .undecided import unless_tables_matter
from .drop_trigger import decide_drop_trigger, is_unresolved_drop_trigger, named_trigger
from .events import Event, QueryEvent
from .catalog.follow import CatalogFollower

BYTE_ORDER_MARK = "\ufeff"
"""U+FEFF at the start of a line: not part of the event (see the module's docstring)."""

JSON_BLANKS = " \t\r"
"""JSON's white space, less the line feed that ends a line: a line of only these is blank."""


class LineError(ValueError):
    """A line that is not an event; the message says why, in words a user can act on."""


def split_lines(handle: IO[bytes]) -> Iterator[bytes]:
    """The lines of a binary file, each without its ``\\n`` (or ``\\r\\n``): only ``\\n`` ends a
    line. Reads one line at a time, so memory does not grow with the file."""
    for raw in handle:  # a binary file iterates on b"\n" only
        yield raw.removesuffix(b"\n").removesuffix(b"\r")


def is_blank(line: str | bytes) -> bool:
    if isinstance(line, bytes):
        return not line.strip(JSON_BLANKS.encode())
    return not line.strip(JSON_BLANKS)


def decode_line(raw: bytes) -> str:
    """The line as text; :class:`LineError` naming the first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return _not_utf8(raw, err)


def _not_utf8(raw: bytes, err: UnicodeDecodeError) -> str:
    raise LineError(f"not UTF-8 text: byte 0x{raw[err.start]:02X} at byte {err.start + 1} of the line") from None


def read_line(line: str | bytes, source_catalog: SourceCatalogs | None = None) -> Event | None:
    """One line of an events file -> its event, or None for a blank line. ``source_catalog``
    (channel -> the source's schema) resolves what an event's SQL text leaves open.

    Raises :class:`LineError` (not UTF-8) or :class:`~.events.EventFormatError` (not an event),
    both ``ValueError``. A line whose text a Spark string cannot hold (a lone surrogate written
    as ``\\ud800``) is refused here too, so that the stream and ``evaluate`` agree on it."""
    text = decode_line(line) if isinstance(line, bytes) else line
    text = text.removeprefix(BYTE_ORDER_MARK)
    if is_blank(text):
        return None
    try:
        event = from_json(text, source_catalog)
    except EventFormatError:
        raise
    except RecursionError:
        raise LineError("not valid JSON: nested too deeply") from None
    except ValueError as err:  # json's integer-length limit: a number longer than 4,300 digits
        if "digits" in str(err):
            raise LineError("not valid JSON: a number has more than 4,300 digits") from None
        raise LineError(f"not valid JSON: {err}") from None
    if "\\u" in text:  # only an escape can give a lone surrogate: the text itself is UTF-8
        try:
            json.dumps(event.to_dict(), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise LineError("a name is not valid Unicode (a lone surrogate such as \\ud800)") from None
    return event


@dataclass(frozen=True)
class LineResult:
    """The outcome of one input line of an events file: a decision, or an error message."""

    line: int
    event: Event | None = None
    decision: Decision | None = None
    error: str | None = None
    applier_error: MySQLError | None = None
    """The error the replica's applier would stop with on this event (only when a schema was
    given: an unknown table is not a missing one)."""

    def to_json(self) -> str:
        """One JSON line: ``{"line": n, "event": {...}, "decision": ..., ..., "applier_error":
        ...}`` or ``{"line": n, "error": "..."}``."""
        if self.decision is None or self.event is None:
            return json.dumps({"line": self.line, "error": self.error}, ensure_ascii=False)
        stop = error_text(self.applier_error) if self.applier_error is not None else None
        return json.dumps(
            {"line": self.line, "event": self.event.to_dict(), **self.decision.to_dict(), "applier_error": stop},
            ensure_ascii=False,
        )


class LineEvaluator:
    """Decides lines one at a time (memory flat in the number of lines): the results as they
    come, and, at the end, the counts per channel and decision and the state with every decided
    event's counters moved. ``channel`` makes every event arrive on that channel.

    With a schema, the replica's catalog follows the DDL the applier applies (:mod:`.catalog.follow`),
    and each result carries the error the applier would stop with; an event's SQL text is read
    with its channel's source schema."""

    def __init__(self, state: ReplicaState, channel: str | None = None):
        self._evaluator = Evaluator(state)
        self._channel = channel
        self._follower = CatalogFollower(state.replica_catalog)
        self._source_catalog: SourceCatalogs = lambda name: state.source_catalog(channel if channel is not None else name)
        self.counts: dict[tuple[str, str | None], int] = {}
        """Decided lines per (channel, decision), in first-seen order."""
        self.errors = 0

    def results(self, lines: Iterable[str | bytes]) -> Iterator[LineResult]:
        """One result per line that is not blank, numbered from 1 over all lines."""
        for number, line in enumerate(lines, start=1):
            result = self.decide_line(number, line)
            if result is not None:
                yield result

    def decide_line(self, number: int, line: str | bytes) -> LineResult | None:
        try:
            try:
                event = read_line(line, self._source_catalog)
                unknown = None
            except UnknownTables as err:  # decided as EXPLAIN decides the same text
                event, unknown = err.event, err.why
            if event is None:
                return None
            event, decision, stop = self.decide_event(event, unknown)
        except ValueError as err:  # LineError, EventFormatError, UnknownChannelError
            self.errors += 1
            return LineResult(number, error=str(err))
        return LineResult(number, event, decision, applier_error=stop)

    def decide_event(self, event: Event, unknown: str | None = None) -> tuple[Event, Decision, MySQLError | None]:
        """One event, from any reader (a JSON line, a binary log): its decision (counted), the
        catalog followed, and the error the applier would stop with. ``unknown`` says why the
        event's table list could not be read from its SQL text: it is then decided only where
        the rules decide it whatever the tables are. Raises ``ValueError`` (an unknown channel)."""
        if self._channel is not None:
            event = replace(event, channel=self._channel)
        if is_unresolved_drop_trigger(event):
            event, decision = self._drop_trigger(event)  # type: ignore[arg-type]
        elif unknown is not None:
            compiled = self._evaluator.compiled(event.channel)
            decision = unless_tables_matter(decide_compiled(compiled, event), event, compiled, unknown)
            if decision.decision is not None:
                decision = self._evaluator.decide(event)
        else:
            decision = self._evaluator.decide(event)
        stop = self._follower.run(event, decision)
        key = (event.channel, _verdict(decision))
        self.counts[key] = self.counts.get(key, 0) + 1
        return event, decision, stop

    @property
    def source_catalog(self) -> SourceCatalogs:
        return self._source_catalog

    def _drop_trigger(self, event: QueryEvent) -> tuple[QueryEvent, Decision]:
        """The replica looks the trigger up in its own catalog (:mod:`.drop_trigger`); a text the
        source refuses (no database for an unqualified trigger: 1046) is an error naming ``sql``."""
        trigger = named_trigger(event)
        compiled = self._evaluator.compiled(event.channel)
        return decide_drop_trigger(event, trigger, compiled, self._follower, self._evaluator.decide)

    def state(self) -> ReplicaState:
        """The starting state with the counters moved and the replica's catalog as followed."""
        return self._follower.state(self._evaluator.state())


def evaluate_lines(
    state: ReplicaState, lines: Iterable[str | bytes], channel: str | None = None
) -> tuple[list[LineResult], ReplicaState]:
    """All results of :class:`LineEvaluator` as a list, and the state after them."""
    evaluator = LineEvaluator(state, channel)
    results = list(evaluator.results(lines))
    return results, evaluator.state()


def tally(results: Iterable[LineResult]) -> dict[tuple[str, str | None], int]:
    """Counts per (channel, decision) of decided lines, in first-seen order (decision None:
    undecided)."""
    counts: dict[tuple[str, str | None], int] = {}
    for result in results:
        if result.decision is not None and result.event is not None:
            key = (result.event.channel, _verdict(result.decision))
            counts[key] = counts.get(key, 0) + 1
    return counts


def _verdict(decision: Decision) -> str | None:
    return decision.decision.value if decision.decision is not None else None


__all__ = [
    "JSON_BLANKS",
    "LineError",
    "LineEvaluator",
    "LineResult",
    "decode_line",
    "evaluate_lines",
    "is_blank",
    "read_line",
    "split_lines",
    "tally",
]
