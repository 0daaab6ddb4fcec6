"""The objects alive when a read of binary logs starts (the loaded modules and grammars, the
session, the catalog) outlive it: the cyclic garbage collector need not walk them again on
every collection that the read's own allocations trigger (a row image is a few objects, so a
read of millions of rows triggers thousands of collections).

:func:`objects_before_frozen` moves them to the collector's permanent generation for the length
of the read (``gc.freeze``) and gives them back after (``gc.unfreeze``), so nothing is kept from
the collector for longer than the read: cyclic garbage made before it is collected after it.
Measured on bench/binlog.py's file with row values (README "Binary logs and relay logs"): 4 %
of the CPU time; the collector off for the whole read saved 6 %, but would let a read's own
cycles pile up.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

_depth = 0


@contextmanager
def objects_before_frozen() -> Iterator[None]:
    """Nested reads (a read inside another's loop) unfreeze once, when the outermost ends."""
    global _depth
    if _depth == 0:
        gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            gc.unfreeze()
