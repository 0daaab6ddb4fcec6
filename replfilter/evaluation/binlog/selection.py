"""mysqlbinlog's selections: ``--start-position``, ``--stop-position``, ``--start-datetime``,
``--stop-datetime``, ``--include-gtids`` and ``--exclude-gtids`` (client/mysqlbinlog.cc).

As in mysqlbinlog: positions apply to the first file (start) and the last file (stop), an event
is read when it starts in ``[start, stop)``; datetimes are local time, an event is read from the
first whose timestamp is at or after the start, and reading ends at the first at or after the
stop; GTID sets select whole transactions by their GTID (MySQL's ``uuid:1-5:7`` sets, with 8.4's
tags ``uuid:tag:1-3``, or
MariaDB's ``domain-server-seq`` lists).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ...core.gtid_sets import is_gtid_set


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
    """A set of GTIDs: MySQL's ``uuid[:tag]:interval[:interval]...`` items (8.4's tags apply to
    the intervals after them, as ``Gtid_set::add_gtid_text`` reads them: ``uuid:1-5:tag:1-3``
    holds ``uuid:1`` to ``uuid:5`` and ``uuid:tag:1`` to ``uuid:tag:3``; tags are
    case-insensitive) or MariaDB's ``domain-server-seq`` ones, comma-separated."""

    intervals: dict[tuple[str, str], tuple[tuple[int, int], ...]]
    maria: frozenset[str]

    @classmethod
    def parse(cls, text: str) -> "GtidSet":
        intervals: dict[tuple[str, str], list[tuple[int, int]]] = {}
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
            if not is_gtid_set(item):
                raise SelectionError(f"malformed GTID set: {text}")
            sid, *parts = (part.strip() for part in item.split(":"))
            sid = sid.strip("{}").lower()
            if "-" not in sid:
                sid = f"{sid[:8]}-{sid[8:12]}-{sid[12:16]}-{sid[16:20]}-{sid[20:]}"
            tag = ""
            for part in parts:
                if not part[0].isdigit():
                    tag = part.lower()
                    continue
                low, _, high = part.partition("-")
                start, end = int(low), int(high.strip() or low)
                if end >= start:  # an interval ending below its start is dropped, not refused
                    intervals.setdefault((sid, tag), []).append((start, end))
        return cls({key: tuple(v) for key, v in intervals.items()}, frozenset(maria))

    def __contains__(self, gtid: str | None) -> bool:
        if gtid is None:
            return False
        if gtid in self.maria:
            return True
        sid, _, gno = gtid.rpartition(":")
        if not sid:
            return False
        sid, _, tag = sid.partition(":")  # uuid:gno or uuid:tag:gno
        return any(start <= int(gno) <= end for start, end in self.intervals.get((sid.lower(), tag.lower()), ()))


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
