"""GTID set text as the server reads it (``Gtid_set::add_gtid_text``, rpl_gtid_set.cc).

Only the check is needed: ``START REPLICA UNTIL SQL_BEFORE_GTIDS|SQL_AFTER_GTIDS = 'text'``
fails with ``ER_MALFORMED_GTID_SET_SPECIFICATION`` (1772) on text the server cannot read, before
any thread starts (``Until_gtids::init``).

The shape, as the server's parser walks it: optional white space and one ``+``; then
comma-separated items (empty ones allowed), each a UUID (36 characters with dashes, 32 hex
digits, or 36 in braces) followed by any number of ``:TAG`` (8.4's tagged GTIDs: a letter or
``_``, then up to 31 letters, digits or ``_``) and ``:N`` / ``:N-M`` intervals, N >= 1. An
interval whose end is below its start is dropped by the server, not refused. White space is
allowed around every separator.
"""

from __future__ import annotations

import re

_WS = r"[ \t\n\r\f\v]*"
_HEX = "[0-9A-Fa-f]"
_UUID = rf"(?:{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}|\{{{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}\}}|{_HEX}{{32}})"
_TAG = r"[A-Za-z_][A-Za-z0-9_]{0,31}"
_GNO = r"0*[1-9][0-9]*"
_INTERVAL = rf"{_GNO}(?:{_WS}-{_WS}[0-9]+)?"
_ITEM = rf"{_UUID}(?:{_WS}:{_WS}(?:{_TAG}|{_INTERVAL}))*"
_SET = re.compile(rf"{_WS}\+?{_WS}(?:,|{_WS})*(?:{_ITEM}(?:{_WS},(?:{_WS},)*{_WS}{_ITEM})*)?(?:{_WS},)*{_WS}", re.ASCII)

_NUMBERS = re.compile(rf":{_WS}([0-9]+)(?:{_WS}-{_WS}([0-9]+))?", re.ASCII)
MAX_GNO = (1 << 63) - 1


def is_gtid_set(text: str) -> bool:
    """Whether the server reads ``text`` as a GTID set (the empty text is the empty set)."""
    if _SET.fullmatch(text) is None:
        return False
    # a number after ':' is an interval's start (a tag starts with a letter or '_'), and one after
    # its '-' the end: both must fit the server's signed 64-bit GNO
    return all(int(n) <= MAX_GNO for pair in _NUMBERS.findall(text) for n in pair if n)
