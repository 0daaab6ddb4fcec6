"""Cutting input into statements the way the ``mysql`` client does, before anything is parsed.

The client, not the server, decides where a statement ends: at the delimiter (``;`` unless a
``delimiter`` command changed it), ``\\g`` or ``\\G`` outside quotes and comments. It also
recognises its own commands (``source f``, ``quit``, ``\\W``...), a word command only at the
start of a line with no statement in progress, a backslash command anywhere. Scripts and the shell both feed lines into one :class:`StatementBuffer`, so a statement
typed over three lines behaves the same in either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Iterator, Union

# Backslash commands of the mysql client: letter -> long name.
BACKSLASH_COMMANDS = {
    "?": "help",
    "h": "help",
    "c": "clear",
    "q": "quit",
    ".": "source",
    "s": "status",
    "W": "warnings",
    "w": "nowarning",
    "T": "tee",
    "t": "notee",
    "P": "pager",
    "n": "nopager",
    "e": "edit",
    "p": "print",
    "R": "prompt",
    "u": "use",
    "#": "rehash",
    "d": "delimiter",
    "r": "connect",
    "!": "system",
    "C": "charset",
    "x": "resetconnection",
}
# An unknown backslash command: ClientCommand(UNKNOWN_COMMAND, "\\k", line).
UNKNOWN_COMMAND = "unknown"
# Commands whose argument is the rest of the line.
COMMANDS_WITH_ARGUMENT = {"source", "tee", "pager", "help", "prompt", "use", "delimiter", "connect", "system", "charset"}
WORD_COMMANDS = {
    "help", "?", "quit", "exit", "source", "status", "warnings", "nowarning", "tee", "notee",
    "pager", "nopager", "clear", "print", "use", "rehash", "prompt", "delimiter",
    "connect", "system", "charset", "edit", "resetconnection",
}
DEFAULT_DELIMITER = ";"
MAX_DELIMITER_LENGTH = 15
"""mysql keeps the delimiter in a 16-byte buffer (``strmake`` cuts a longer one)."""


def parse_delimiter(argument: str) -> tuple[str | None, str | None]:
    """``(delimiter, None)`` or ``(None, error)`` for the text after ``delimiter`` / ``\\d``.

    mysql's ``get_arg`` and ``com_delimiter``: the first word, or a quoted string ('', "" or
    ``); a backslash keeps the character after it, a doubled quote is one quote; empty or
    holding a backslash is refused with the client's messages."""
    text = argument.lstrip()
    quote = text[0] if text[:1] in ("'", '"', "`") else ""
    if quote:
        text = text[1:]
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if (ch == "\\" and i + 1 < len(text) and quote != "`") or (quote and ch == quote and text[i + 1 : i + 2] == quote):
            out.append(text[i + 1])
            i += 2
            continue
        if ch == (quote or " "):
            break
        out.append(ch)
        i += 1
    delimiter = "".join(out)[:MAX_DELIMITER_LENGTH]
    if not delimiter:
        return None, "DELIMITER must be followed by a 'delimiter' character or string"
    if "\\" in delimiter:
        return None, "DELIMITER cannot contain a backslash character"
    return delimiter, None


@dataclass(frozen=True)
class StatementText:
    """One statement as the client sends it: no terminator, no surrounding blanks.

    ``line`` is where it starts in the input (what ``ERROR ... at line N`` reports).
    """

    text: str
    line: int
    vertical: bool = False
    complete: bool = True


@dataclass(frozen=True)
class ClientCommand:
    """A command for the client itself, e.g. ``source f.sql`` -> ("source", "f.sql")."""

    name: str
    argument: str
    line: int


Item = Union[StatementText, ClientCommand]


@dataclass
class StatementBuffer:
    """Feed lines; collect complete statements and client commands in order.

    Mirrors ``add_line`` of the mysql client (default ``--skip-comments``): the text handed over is
    what mysql sends to the server, so ``--``/``#`` comments and ``/* */`` comments are left out
    (``/*!`` and ``/*+`` are kept), spaces before a statement are skipped, and a line that holds
    only a comment leaves the buffer empty. A statement's ``line`` is mysql's ``query_start_line``:
    the last line read while the buffer was empty. The scanner state (inside a quote or a block
    comment) survives line breaks, so a string literal may span lines as it may in mysql.
    """

    line_number: int = 0
    delimiter: str = DEFAULT_DELIMITER
    """Where statements end; ``delimiter X`` (or ``\\d X``) sets it, as the mysql client's
    ``delimiter`` command does (so scripts written for mysql with ``DELIMITER //`` read alike)."""
    _parts: list[str] = field(default_factory=list)
    _start_line: int = 0
    _quote: str | None = None  # "'", '"', "`" or "/*" while inside one

    @property
    def in_progress(self) -> bool:
        """Some statement text is pending (the shell shows its continuation prompt)."""
        return bool(self._parts) or self._quote is not None

    @property
    def open_quote(self) -> str | None:
        """The quote (``'``, ``"``, `````) or ``/*`` the next line starts inside, if any: the
        mysql client shows it in its continuation prompt (``    '> ``)."""
        return self._quote

    @property
    def pending_text(self) -> str:
        return "".join(self._parts)

    def clear(self) -> None:
        self._parts.clear()
        self._quote = None

    def snapshot(self) -> "StatementBuffer":
        """A copy to scan ahead with (what the next line would complete), leaving this one as is."""
        return StatementBuffer(delimiter=self.delimiter, _parts=list(self._parts), _quote=self._quote)

    def feed_line(self, line: str) -> list[Item]:
        """Consume one input line (without its newline) and return what it completed."""
        self.line_number += 1
        if not self._parts:
            self._start_line = self.line_number
        items: list[Item] = []
        if not self.in_progress:
            command = _word_command(line, self.delimiter)
            if command is not None:
                name, argument = command
                if name == "delimiter":
                    # get_arg reads what follows the command's first word, quotes and all
                    word = line.split(None, 1)[0]
                    argument = line.strip()[len(word) :]
                    self._set_delimiter(argument)
                elif name == "prompt":
                    argument = _prompt_argument(line)
                return [ClientCommand(name, argument, self.line_number)]
        out: list[str] = []  # characters of this line accepted into the statement
        need_space = False  # a comment ended: the next character is preceded by a space
        i, n = 0, len(line)
        if self._quote is None:
            # Plain text up to the first character that may start a quote, a comment, a command
            # or the delimiter is taken whole: the loop below would accept it character by
            # character (a pasted dump is mostly such text).
            i = _plain_prefix_end(line, self.delimiter)
            plain = line[:i] if self._parts else line[:i].lstrip()
            if plain:
                out.append(plain)
        while i < n:
            # Runs of characters that cannot start anything (a quote, comment, command or the
            # delimiter) are taken whole: the same result as one by one, at regex speed, which
            # is what lets a schema file of tens of thousands of tables be split in seconds.
            run = _run_pattern(self._quote, self.delimiter).match(line, i) if (out or self._parts or self._quote) else None
            if run is not None:
                if need_space and not line[i].isspace():
                    out.append(" ")
                need_space = False
                out.append(run.group())
                i = run.end()
                continue
            ch = line[i]
            if self._quote == "/*":
                end = line.find("*/", i)
                if end < 0:
                    break
                i = end + 2
                self._quote = None
                need_space = True
                continue
            if self._quote is not None:
                if ch == "\\" and self._quote != "`":
                    out.append(line[i : i + 2])
                    i += 2
                    continue
                if ch == self._quote:
                    self._quote = None
                out.append(ch)
                i += 1
                continue
            if ch.isspace() and not out and not self._parts:
                i += 1  # spaces before a statement
                continue
            # the delimiter before comments, as in mysql's add_line (so a delimiter may be "#")
            if line.startswith(self.delimiter, i):
                self._parts.extend(out)
                out = []
                # an empty statement is handed over too: com_go says "No query specified"
                # (interactive) or ignores it (batch); the caller decides
                items.extend(self._finish(vertical=False, allow_empty=True))
                i += len(self.delimiter)
                continue
            if line.startswith("/*", i) and not line.startswith(("/*!", "/*+"), i):
                self._quote = "/*"
                i += 2
                continue
            if ch == "#" or (line.startswith("--", i) and (i + 2 == n or line[i + 2].isspace())):
                break  # comment to the end of the line
            if ch == "\\" and i + 1 < n:
                letter = line[i + 1]
                if letter in "gG":
                    self._parts.extend(out)
                    out = []
                    items.extend(self._finish(vertical=letter == "G", allow_empty=True))
                    i += 2
                    continue
                name = BACKSLASH_COMMANDS.get(letter)
                if name is not None:
                    self._parts.extend(out)
                    out = []
                    if name == "clear":
                        self.clear()
                        i += 2
                        continue
                    if name == "print":
                        # com_print shows the statement as it stands when \p is read
                        items.append(ClientCommand(name, "".join(self._parts), self.line_number))
                        i += 2
                        continue
                    if name == "prompt":
                        items.append(ClientCommand(name, _prompt_argument(line[i:]), self.line_number))
                        i = n
                        break
                    if name == "delimiter":
                        # the new delimiter applies at once; what follows on the line is skipped
                        # up to its first occurrence (usually the argument itself), as in mysql
                        argument = line[i + 2 :]
                        self._set_delimiter(argument)
                        items.append(ClientCommand(name, argument, self.line_number))
                        found = line.find(self.delimiter, i + 2)
                        i = n if found < 0 else found + len(self.delimiter)
                        continue
                    if name in COMMANDS_WITH_ARGUMENT:
                        argument = line[i + 2 :].strip().rstrip(";").strip()
                        items.append(ClientCommand(name, argument, self.line_number))
                        i = n
                        break
                    items.append(ClientCommand(name, "", self.line_number))
                    i += 2
                    continue
                if not letter.isspace():
                    # mysql reports "Unknown command '\\k'." and keeps both characters in the
                    # statement, as typed.
                    items.append(ClientCommand(UNKNOWN_COMMAND, "\\" + letter, self.line_number))
            if ch in "'\"`":
                self._quote = ch
            if need_space and not ch.isspace():
                out.append(" ")
            need_space = False
            out.append(ch)
            i += 1
        if (out or self._parts) and self._quote != "/*":
            out.append("\n")
        self._parts.extend(out)
        return items

    def _set_delimiter(self, argument: str) -> None:
        delimiter, _error = parse_delimiter(argument)  # the error is the caller's to report
        if delimiter is not None:
            self.delimiter = delimiter

    def finish(self) -> list[Item]:
        """End of input: an unterminated statement is still sent, as mysql sends it."""
        if not "".join(self._parts).strip():
            self.clear()
            return []
        return self._finish(vertical=False, complete=False)

    def _finish(self, vertical: bool, complete: bool = True, allow_empty: bool = False) -> list[Item]:
        text = "".join(self._parts).strip()
        self._parts.clear()
        self._quote = None
        if not text and not allow_empty:
            return []
        if not text:
            # ``\g`` on its own: mysql says "No query specified"; the caller reports it.
            return [StatementText("", self.line_number, vertical, complete)]
        return [StatementText(text, self._start_line or self.line_number, vertical, complete)]


_QUOTED_RUNS = {"'": re.compile(r"[^'\\]+"), '"': re.compile(r'[^"\\]+'), "`": re.compile(r"[^`]+")}


@lru_cache(maxsize=32)
def _run_pattern(quote: str | None, delimiter: str) -> re.Pattern[str] | _NoRun:
    """What :meth:`StatementBuffer.feed_line` may take in one step: inside a quote, everything
    up to the closing quote or a backslash; outside, everything but quotes, comment starts,
    backslash commands and the delimiter's first character."""
    if quote in _QUOTED_RUNS:
        return _QUOTED_RUNS[quote]
    if quote is not None:
        return _NO_RUN
    special = "'\"`/#\\-" + delimiter[:1]
    return re.compile("[^" + re.escape(special) + "]+")


class _NoRun:
    """Inside a ``/* */`` comment the scanner looks for its end itself."""

    @staticmethod
    def match(_line: str, _pos: int) -> None:
        return None


_NO_RUN = _NoRun()


def _word_command(line: str, delimiter: str = DEFAULT_DELIMITER) -> tuple[str, str] | None:
    stripped = line.strip()
    if not stripped:
        return None
    word, _, rest = stripped.partition(" ")
    word = _without_delimiter(word, delimiter).lower()
    if word not in WORD_COMMANDS:
        return None
    name = {"?": "help", "exit": "quit"}.get(word, word)
    argument = _without_delimiter(rest.strip(), delimiter).strip()
    if name in COMMANDS_WITH_ARGUMENT:
        return (name, argument)
    if argument:
        return None  # e.g. "status of x": not a client command, let the server refuse it
    return (name, "")


_MAY_BE_SPECIAL = re.compile(r"['\"`\\#/-]")


def _plain_prefix_end(line: str, delimiter: str) -> int:
    """Where the first character that is not plain statement text is (a quote, ``\\``, ``#``,
    ``-``, ``/`` or the delimiter), or the line's length."""
    match = _MAY_BE_SPECIAL.search(line)
    end = match.start() if match else len(line)
    found = line.find(delimiter, 0, end) if delimiter else -1
    return end if found < 0 else found


def _prompt_argument(line: str) -> str:
    """``com_prompt``: everything after the first space of the command, spaces kept (a prompt
    usually ends in one); empty when there is none (back to the default prompt)."""
    stripped = line.lstrip()
    space = stripped.find(" ")
    return "" if space < 0 else stripped[space + 1 :]


def _without_delimiter(text: str, delimiter: str) -> str:
    while delimiter and text.endswith(delimiter):
        text = text[: -len(delimiter)]
    return text


def split_statements(text: str) -> list[Item]:
    """All statements and client commands of a script text, in order."""
    buffer = StatementBuffer()
    items: list[Item] = []
    for line in text.split("\n"):
        items.extend(buffer.feed_line(line))
    items.extend(buffer.finish())
    return items


def iter_statements(lines: Iterable[str]) -> Iterator[Item]:
    buffer = StatementBuffer()
    for line in lines:
        yield from buffer.feed_line(line.rstrip("\n"))
    yield from buffer.finish()
