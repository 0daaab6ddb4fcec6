"""Reading a binary or relay log file into parsed events: framing (:mod:`.framing`) plus bodies
(:mod:`.bodies`), with the Format_description in force, and Transaction_payload events opened
into the events they carry when the caller wants what the applier sees.

Nothing here raises on bad content: what cannot be read is a :class:`~.framing.ReadProblem` in
the stream, with file and position, and the reader goes on where it can. A file that is not a
binary log raises :class:`~.framing.NotABinlog` before anything is yielded; a missing or
unreadable file, ``OSError``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, Sequence, Union

from .bodies import KNOWN_TYPES, EventFormatProblem, TransactionPayload, parse_body
from .framing import ENCRYPTED_MAGIC, MAGIC, FormatDescription, RawEvent, ReadProblem, frames_in, read_frames

DEFAULT_FDE = FormatDescription(4, "", 0, 19, b"", 0)


@dataclass(frozen=True, slots=True)
class BinlogEvent:
    """One parsed event: where it is and its header (``raw``), and its body (None for events
    without one that matters: Stop, Heartbeat...). ``in_payload`` marks an event read from a
    Transaction_payload (it stands at the payload's position)."""

    raw: RawEvent
    body: Any
    in_payload: bool = False


Item = Union[BinlogEvent, ReadProblem]


def is_binlog_file(path: str) -> bool:
    """Whether the file starts with the binary log magic (relay logs have it too), or with the
    header of a binary log MySQL encrypted (read as a binlog, so that it is refused as one:
    :func:`~.framing.check_magic`)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) in (MAGIC, ENCRYPTED_MAGIC)
    except OSError:
        return False


def read_binlog(
    path: str, start: int = 4, stop: int | None = None, open_payloads: bool = True, formats_at: Sequence[int] = ()
) -> Iterator[Item]:
    """The events of one file. ``start``/``stop`` are positions (mysqlbinlog's
    ``--start-position``/``--stop-position``: events that start in ``[start, stop)``); the
    Format_description is always read. With ``open_payloads`` a Transaction_payload yields the
    events it carries (as the applier sees them), else itself (as SHOW BINLOG EVENTS lists it).
    ``formats_at`` resumes at ``start`` without reading what precedes it
    (:func:`~.framing.read_frames`)."""
    log_name = os.path.basename(path)
    with open(path, "rb") as handle:
        yield from read_stream(handle, log_name, start, stop, open_payloads, formats_at)


def read_stream(
    handle, log_name: str, start: int = 4, stop: int | None = None, open_payloads: bool = True,
    formats_at: Sequence[int] = (),
) -> Iterator[Item]:
    fde = DEFAULT_FDE
    for frame in read_frames(handle, log_name, start, stop, formats_at):
        if isinstance(frame, ReadProblem):
            yield frame
            continue
        item = parse_frame(frame, fde)
        if isinstance(item, BinlogEvent) and isinstance(item.body, FormatDescription):
            fde = item.body
            if frame.pos < start:
                continue
        if open_payloads and isinstance(item, BinlogEvent) and isinstance(item.body, TransactionPayload):
            yield from _open_payload(item, fde)
            continue
        yield item


def parse_frame(frame: RawEvent, fde: FormatDescription, in_payload: bool = False) -> Item:
    if frame.type_code not in KNOWN_TYPES:
        return ReadProblem(
            frame.log_name, frame.pos, "unknown",
            f"unknown event type {frame.type_code} skipped ({frame.end_pos - frame.pos} bytes)", frame.end_pos,
        )
    try:
        return BinlogEvent(frame, parse_body(frame, fde), in_payload)
    except EventFormatProblem as err:
        return ReadProblem(frame.log_name, frame.pos, "malformed", str(err), frame.end_pos)


def _open_payload(item: BinlogEvent, fde: FormatDescription) -> Iterator[Item]:
    raw = item.raw
    try:
        data = item.body.events()
    except EventFormatProblem as err:
        yield ReadProblem(raw.log_name, raw.pos, "malformed", str(err), raw.end_pos)
        return
    for frame in frames_in(data, raw.log_name, raw.pos, raw.end_pos, raw.log_pos):
        if isinstance(frame, ReadProblem):
            yield frame
        else:
            yield parse_frame(frame, fde, in_payload=True)
