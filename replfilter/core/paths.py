"""File names and shell commands a statement or client command hands to the operating system.

A NUL byte can reach a name in two ways: raw in the script, or as the ``\\0`` escape of a string
literal (``LOAD SCHEMA FROM 'a\\0b'``). The kernel takes C strings, so no file name and no command
can hold one; Python refuses it with ``ValueError`` before any system call. Here it becomes the
error the system call would have given for a name it cannot take, ``EINVAL``, so that every
front-end reports it where it reports a file it cannot open, and shows the byte as ``\\0``
(printed raw, a terminal would show nothing).
"""

from __future__ import annotations

import errno

NUL_STRERROR = "Invalid argument: a file name cannot hold a NUL byte"


def check_path(path: str) -> str:
    """``path`` itself, or :class:`OSError` ``EINVAL`` when it holds a NUL byte."""
    if "\0" in path:
        raise OSError(errno.EINVAL, NUL_STRERROR, shown(path))
    return path


def shown(text: str) -> str:
    """``text`` with each NUL byte written ``\\0``, as in an error message."""
    return text.replace("\0", "\\0")
