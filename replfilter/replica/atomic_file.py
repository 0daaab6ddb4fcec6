"""One file replaced atomically: the data directory's files are never seen half-written.

The text goes to a temporary file beside the file's final target (a symbolic link is followed,
so it keeps pointing at the current file), is flushed to disk, and renamed over the target. A
failure removes the temporary file and raises the ``OSError``; a process killed in between leaves
a temporary file whose name starts with ``prefix``, which the next start removes
(:mod:`.datadir`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str, prefix: str) -> None:
    target = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
