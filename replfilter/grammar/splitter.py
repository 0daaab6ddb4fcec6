"""Cutting input into statements the way the ``mysql`` client does, before anything is parsed.

The client, not the server, decides where a statement ends: at ``;``, ``\\g`` or ``\\G`` outside
quotes and comments. It also recognises its own commands (``source f``, ``quit``, ``\\W``...), a
word command only at the start of a line with no statement in progress, a backslash command
anywhere. Scripts and the shell both feed lines into one :class:`StatementBuffer`, so a statement
typed over three lines behaves the same in either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
}
# Commands whose argument is the rest of the line.
COMMANDS_WITH_ARGUMENT = {"source", "tee", "pager", "help", "prompt", "use"}
WORD_COMMANDS = {
    "help", "?", "quit", "exit", "source", "status", "warnings", "nowarning", "tee", "notee",
    "pager", "nopager", "clear", "print", "use", "rehash", "prompt",
}


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

    The scanner state (inside a quote or a block comment) survives line breaks, so a string
    literal may span lines as it may in mysql.
    """

    line_number: int = 0
    _parts: list[str] = field(default_factory=list)
    _start_line: int = 0
    _quote: str | None = None  # "'", '"', "`" or "/*" while inside one

    @property
    def in_progress(self) -> bool:
        """Some statement text is pending (the shell shows its continuation prompt)."""
        return bool("".join(self._parts).strip()) or self._quote is not None

    @property
    def pending_text(self) -> str:
        return "".join(self._parts)

    def clear(self) -> None:
        self._parts.clear()
        self._quote = None

    def feed_line(self, line: str) -> list[Item]:
        """Consume one input line (without its newline) and return what it completed."""
        self.line_number += 1
        items: list[Item] = []
        if not self.in_progress:
            command = _word_command(line)
            if command is not None:
                name, argument = command
                return [ClientCommand(name, argument, self.line_number)]
        i, n = 0, len(line)
        chunk_start = 0
        while i < n:
            ch = line[i]
            if self._quote == "/*":
                end = line.find("*/", i)
                if end < 0:
                    i = n
                    break
                i = end + 2
                self._quote = None
                continue
            if self._quote is not None:
                if ch == "\\" and self._quote != "`":
                    i += 2
                    continue
                if ch == self._quote:
                    if i + 1 < n and line[i + 1] == self._quote:
                        i += 2
                        continue
                    self._quote = None
                i += 1
                continue
            if ch in "'\"`":
                self._quote = ch
                i += 1
                continue
            if line.startswith("/*", i):
                self._quote = "/*"
                i += 2
                continue
            if ch == "#" or (line.startswith("--", i) and (i + 2 == n or line[i + 2] in " \t\r")):
                i = n
                break
            if ch == ";":
                self._append(line[chunk_start:i])
                items.extend(self._finish(vertical=False))
                i += 1
                chunk_start = i
                continue
            if ch == "\\" and i + 1 < n:
                letter = line[i + 1]
                if letter in "gG":
                    self._append(line[chunk_start:i])
                    items.extend(self._finish(vertical=letter == "G", allow_empty=True))
                    i += 2
                    chunk_start = i
                    continue
                name = BACKSLASH_COMMANDS.get(letter)
                if name is not None:
                    self._append(line[chunk_start:i])
                    if name == "clear":
                        self.clear()
                        i += 2
                        chunk_start = i
                        continue
                    if name in COMMANDS_WITH_ARGUMENT:
                        argument = line[i + 2 :].strip().rstrip(";").strip()
                        items.append(ClientCommand(name, argument, self.line_number))
                        i = n
                        chunk_start = n
                        break
                    items.append(ClientCommand(name, "", self.line_number))
                    i += 2
                    chunk_start = i
                    continue
            i += 1
        self._append(line[chunk_start:] + "\n")
        return items

    def finish(self) -> list[Item]:
        """End of input: an unterminated statement is still sent, as mysql sends it."""
        if not "".join(self._parts).strip():
            self.clear()
            return []
        return self._finish(vertical=False, complete=False)

    def _append(self, text: str) -> None:
        if not "".join(self._parts).strip() and text.strip():
            self._start_line = self.line_number
        self._parts.append(text)

    def _finish(self, vertical: bool, complete: bool = True, allow_empty: bool = False) -> list[Item]:
        text = "".join(self._parts).strip()
        self._parts.clear()
        self._quote = None
        if not text and not allow_empty:
            return []
        if not text:
            # ``\g`` on its own: mysql says "No query specified"; the caller reports it.
            return [StatementText("", self.line_number, vertical, complete)]
        start = self._start_line or self.line_number
        return [StatementText(text, start, vertical, complete)]


def _word_command(line: str) -> tuple[str, str] | None:
    stripped = line.strip()
    if not stripped:
        return None
    word, _, rest = stripped.partition(" ")
    word = word.rstrip(";").lower()
    if word not in WORD_COMMANDS:
        return None
    name = {"?": "help", "exit": "quit"}.get(word, word)
    argument = rest.strip().rstrip(";").strip()
    if name in COMMANDS_WITH_ARGUMENT:
        return (name, argument)
    if argument:
        return None  # e.g. "status of x": not a client command, let the server refuse it
    return (name, "")


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
