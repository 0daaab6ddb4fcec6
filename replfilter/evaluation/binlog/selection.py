"""mysqlbinlog's selections: ``--start-position``, ``--stop-position``, ``--start-datetime``,
``--stop-datetime``, ``--include-gtids`` and ``--exclude-gtids`` (client/mysqlbinlog.cc).

As in mysqlbinlog: positions apply to the first file (start) and the last file (stop), an event
is read when it starts in ``[start, stop)``; datetimes are local time, an event is read from the
first whose timestamp is at or after the start, and reading ends at the first at or after the
stop; GTID sets select whole transactions by their GTID (MySQL's ``uuid:1-5:7`` sets, or
MariaDB's ``domain-server-seq`` lists).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


class SelectionError(ValueError):
    """An option value mysqlbinlog would refuse."""


def parse_datetime(text: str) -> int:
    """``YYYY-MM-DD hh:mm:ss`` (local time, as mysqlbinlog reads it) -> epoch seconds."""
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%Y%m%d%H%M%S"):
        try:
            return int(dt.datetime.strptime(text.strip(), fmt).timestamp())
        except ValueError:
            continue
    raise SelectionError(f"incorrect date and time argument: {text}")


@dataclass(frozen=True)
class GtidSet:
    """A set of GTIDs: MySQL's ``uuid:interval[:interval]...`` items or MariaDB's
    ``domain-server-seq`` ones, comma-separated."""

    intervals: dict[str, tuple[tuple[int, int], ...]]
    maria: frozenset[str]

    @classmethod
    def parse(cls, text: str) -> "GtidSet":
        intervals: dict[str, list[tuple[int, int]]] = {}
        maria: set[str] = set()
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            if ":" not in item:
                pieces = item.split("-")
                if len(pieces) != 3 or not all(p.isdigit() for p in pieces):
                    raise SelectionError(f"malformed GTID set: {text}")
                maria.add("-".join(str(int(p)) for p in pieces))
                continue
            sid, *ranges = item.split(":")
            sid = sid.strip().lower()
            if len(sid.replace("-", "")) != 32 or not ranges:
                raise SelectionError(f"malformed GTID set: {text}")
            for interval in ranges:
                low, _, high = interval.partition("-")
                try:
                    start, end = int(low), int(high or low)
                except ValueError:
                    raise SelectionError(f"malformed GTID set: {text}") from None
                if start < 1 or end < start:
                    raise SelectionError(f"malformed GTID set: {text}")
                intervals.setdefault(sid, []).append((start, end))
        return cls({sid: tuple(v) for sid, v in intervals.items()}, frozenset(maria))

    def __contains__(self, gtid: str | None) -> bool:
        if gtid is None:
            return False
        if gtid in self.maria:
            return True
        sid, _, gno = gtid.rpartition(":")
        if not sid:
            return False
        return any(start <= int(gno) <= end for start, end in self.intervals.get(sid.lower(), ()))


@dataclass(frozen=True)
class Selection:
    start_position: int = 4
    stop_position: int | None = None
    start_datetime: int | None = None
    stop_datetime: int | None = None
    include_gtids: GtidSet | None = None
    exclude_gtids: GtidSet | None = None

    def positions(self, index: int, count: int) -> tuple[int, int | None]:
        """The ``(start, stop)`` positions for file ``index`` of ``count``."""
        return (self.start_position if index == 0 else 4), (self.stop_position if index == count - 1 else None)

    def wants_gtid(self, gtid: str | None) -> bool:
        if self.include_gtids is not None and gtid not in self.include_gtids:
            return False
        return not (self.exclude_gtids is not None and gtid in self.exclude_gtids)
