"""Reading the JSON files the data directory keeps (connection metadata, the replica's catalog).

One reader for both, so a damaged file is reported the same way whichever it is: the file's
name, and the line (and column) where it stops being what this package writes. Nothing is
repaired or removed: the user decides (README, "The data directory").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class StoredFileError(Exception):
    """A stored file that cannot be read or is not the JSON written there; the message names it."""


def read_stored_json(path: Path) -> Any:
    """The parsed document of ``path``; :class:`StoredFileError` with the file, line and column
    when it cannot be read, is not UTF-8, or is not JSON."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoredFileError(f"Can't read '{path}': {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise StoredFileError(
            f"Corrupt '{path}' at line {line}, column {column}: not UTF-8 text (byte 0x{data[exc.start]:02X})"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoredFileError(f"Corrupt '{path}' at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # e.g. 100,000 '[': no file this package writes nests that deep
        raise StoredFileError(f"Corrupt '{path}': nested too deeply") from None
    except ValueError:  # a number past Python's 4,300-digit limit for int()
        raise StoredFileError(f"Corrupt '{path}': a number too long to be a setting") from None
