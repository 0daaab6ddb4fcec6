"""Option files (``my.cnf``) read as ``mysqld`` 8.4 reads them (``mysys/my_default.cc``).

``--defaults-file=FILE`` gives the start-up the ``(name, value)`` pairs of the server groups, in
file order, with MySQL's comments, quoting, escapes and ``!include``/``!includedir``
(mysql-filter-statements.md, section 6). What the pairs mean is :mod:`.startup_options`' job;
this module only reads files, and fails as the start-up fails (:class:`StartupError`).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import BinaryIO, Sequence

from .startup_options import WHITESPACE as _WHITESPACE
from .startup_options import StartupError


SERVER_GROUPS: tuple[str, ...] = ("mysqld", "server", "mysqld-8.4")
"""The groups ``mysqld`` 8.4 reads (``load_default_groups``: ``mysqld``, ``server`` and
``MYSQL_BASE_VERSION``); group names compare case-insensitively."""

OPTION_FILE_EXTENSIONS = (".cnf",)
"""What ``!includedir`` picks up on Unix (``f_extensions``)."""

MAX_INCLUDE_DEPTH = 10

_VALUE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}


def read_option_file(
    path: str | os.PathLike[str],
    groups: Sequence[str] = SERVER_GROUPS,
    warnings: list[str] | None = None,
) -> list[tuple[str, str | None]]:
    """The ``(name, value)`` pairs of the server groups of an option file, in file order.

    Follows ``search_default_file_with_ext``: ``#`` and ``;`` comment lines, ``#`` comments after
    a value (not inside quotes), ``[group]`` headers, ``name`` (value None) or ``name = value`` with
    surrounding whitespace removed, one pair of matching quotes removed, and the escapes ``\\n \\t
    \\r \\b \\s \\" \\' \\\\`` (any other backslash is kept). ``!include FILE`` and ``!includedir
    DIR`` (only ``*.cnf``, in sorted order) read further files, each of which needs its own group
    header; relative paths are relative to the working directory, as in MySQL. Repeated options
    all come back (they add up for ``replicate-*``); names are returned as written -- see
    :func:`canonical_option_name` for ``-``/``_`` and ``loose-``.

    A world-writable file is skipped with MySQL's warning (appended to ``warnings``), as is a
    directive nested more than ten includes deep. A missing or unreadable file, a bad group line,
    an option before any group, an empty ``!include``, a failing ``!includedir`` or text that is
    not UTF-8 raise :class:`StartupError` naming the file (and line). An ``!include`` whose file
    cannot be opened is skipped without a word, exactly as mysys/my_default.cc skips it (the
    nested ``search_default_file_with_ext`` returns 1, "Ignore wrong files", and the directive's
    caller drops its result).
    """
    return [(line.name, line.value) for line in read_option_lines(path, groups, warnings)]


@dataclass(frozen=True)
class OptionLine:
    """One option of an option file with where it was written: the file (an included one when
    it came through ``!include``), the 1-based line, and the line's text as written (comments
    included: ``replfilter lint`` reads its ``# replfilter: ignore=CODE`` there)."""

    name: str
    value: str | None
    path: str
    line: int
    text: str


def read_option_lines(
    path: str | os.PathLike[str],
    groups: Sequence[str] = SERVER_GROUPS,
    warnings: list[str] | None = None,
) -> list[OptionLine]:
    """:func:`read_option_file`, keeping the file and line of every option."""
    sink: list[str] = warnings if warnings is not None else []
    reader = _OptionFileReader({g.lower() for g in groups}, sink)
    name = os.fspath(path)
    try:
        handle = open(name, "rb")
    except OSError as exc:
        raise StartupError(f"Failed to open required defaults file: {name}", name) from exc
    with handle:
        reader.read(name, handle, depth=0)
    return reader.options


class _OptionFileReader:
    """One ``my_load_defaults`` pass: the selected groups, the collected pairs, the warnings."""

    def __init__(self, groups: set[str], warnings: list[str]) -> None:
        self.groups = groups
        self.warnings = warnings
        self.options: list[OptionLine] = []

    def read(self, name: str, handle: BinaryIO, depth: int) -> None:
        """Read one opened file, unless MySQL would refuse to read it."""
        if _is_world_writable(name):
            self.warnings.append(f"World-writable config file '{name}' is ignored.")
            return
        group: str | None = None
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise StartupError(
                    f"Invalid UTF-8 in config file {name} at line {number}.", name, number
                ) from exc
            group = self._line(name, number, text, group, depth)

    def _line(self, name: str, number: int, text: str, group: str | None, depth: int) -> str | None:
        """Handle one line; return the group in force after it."""
        line = text.lstrip(_WHITESPACE)
        if not line or line[0] in "#;":
            return group
        if line[0] == "!":
            self._directive(name, number, line, depth)
            return group
        if line[0] == "[":
            return _group_name(name, number, line)
        if group is None:
            raise StartupError(
                f"Found option without preceding group in config file {name} at line {number}.",
                name,
                number,
            )
        if group.lower() in self.groups:
            option, value = _option(_remove_end_comment(line))
            self.options.append(OptionLine(option, value, name, number, text.rstrip("\r\n")))
        return group

    def _directive(self, name: str, number: int, line: str, depth: int) -> None:
        """``!include`` / ``!includedir``; any other ``!`` line is ignored, as in MySQL."""
        if depth >= MAX_INCLUDE_DEPTH:
            self.warnings.append(
                f"Skipping '{line.rstrip(_WHITESPACE)}' directive as maximum include recursion "
                f"level was reached in file {name} at line {number}."
            )
            return
        body = line[1:].lstrip(_WHITESPACE)
        for keyword in ("includedir", "include"):
            following = body[len(keyword):len(keyword) + 1]
            if body.startswith(keyword) and following != "" and following in _WHITESPACE:
                argument = body[len(keyword):].strip(_WHITESPACE)
                if not argument:
                    raise StartupError(
                        f"Wrong '!{keyword}' directive in config file {name} at line {number}.",
                        name,
                        number,
                    )
                target = os.path.expanduser(argument)
                if keyword == "includedir":
                    self._include_dir(name, number, target, depth)
                else:
                    self._include_file(name, number, target, depth)
                return

    def _include_file(self, name: str, number: int, target: str, depth: int) -> None:
        try:
            handle = open(target, "rb")
        except OSError:
            # search_default_file_with_ext: a file it cannot open is "ignored" (return 1), and the
            # ``!include`` caller drops that result: mysqld starts without it, and says nothing
            return
        with handle:
            self.read(target, handle, depth + 1)

    def _include_dir(self, name: str, number: int, directory: str, depth: int) -> None:
        try:
            entries = os.listdir(directory)
        except OSError as exc:
            raise StartupError(
                f"Can't read dir of '{directory}' (OS errno {exc.errno} - {exc.strerror}) "
                f"in config file {name} at line {number}.",
                name,
                number,
            ) from exc
        for entry in sorted(entries, key=os.fsencode):
            dot = entry.rfind(".")
            if dot < 0 or entry[dot:] not in OPTION_FILE_EXTENSIONS:
                continue
            target = os.path.join(directory, entry)
            if not os.path.isfile(target):
                continue  # a directory or dangling link reads as nothing in MySQL too
            try:
                handle = open(target, "rb")
            except OSError:
                continue  # MySQL ignores files of an included directory it cannot open
            with handle:
                self.read(target, handle, depth + 1)


def _is_world_writable(name: str) -> bool:
    """``check_file_permissions``: MySQL skips world-writable regular files."""
    try:
        info = os.stat(name)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and bool(info.st_mode & stat.S_IWOTH)


def _group_name(name: str, number: int, line: str) -> str:
    """``[name]`` -> ``name`` (text after ``]`` is ignored; trailing spaces dropped)."""
    end = line.find("]", 1)
    if end < 0:
        raise StartupError(
            f"Wrong group definition in config file {name} at line {number}.", name, number
        )
    return line[1:end].rstrip(_WHITESPACE)


def _remove_end_comment(line: str) -> str:
    """Cut the line at the first ``#`` outside single or double quotes (``remove_end_comment``;
    a backslash escapes a quote only inside quotes)."""
    quote = ""
    escape = False
    for index, char in enumerate(line):
        if char in "'\"" and not escape:
            if not quote:
                quote = char
            elif quote == char:
                quote = ""
        if not quote and char == "#":
            return line[:index]
        escape = bool(quote) and char == "\\" and not escape
    return line


def _option(line: str) -> tuple[str, str | None]:
    """``name = "value"`` -> (``name``, ``value``) with MySQL's trimming, unquoting and escapes."""
    name, equals, value = line.partition("=")
    name = name.rstrip(_WHITESPACE)
    if not equals:
        return name, None
    value = value.strip(_WHITESPACE)
    if len(value) > 1 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    return name, _unescape_value(value)


def _unescape_value(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        char = value[i]
        if char == "\\" and i < len(value) - 1:
            following = value[i + 1]
            out.append(_VALUE_ESCAPES.get(following, "\\" + following))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


__all__ = ["MAX_INCLUDE_DEPTH", "OPTION_FILE_EXTENSIONS", "OptionLine", "SERVER_GROUPS", "read_option_file", "read_option_lines"]
