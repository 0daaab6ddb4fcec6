"""When does Enter hand the input to the shell, and how is a paste cut?

The mysql client reads one line at a time and acts on it at once: client commands run, a
terminated statement is sent, and an unterminated one waits in its buffer for the next line
(``    -> ``). The shell keeps a statement typed over several lines in one editable input instead,
but decides with the same splitter scripts use, fed after what is already pending
(:class:`~replfilter.dialect.splitter.StatementBuffer`): Enter runs the input when its last line
completes something -- a statement (delimiter, ``\\g``, ``\\G``) or a client command (``\\q``,
``\\W``, an unknown ``\\k``...), wherever it is on the line -- or leaves nothing pending.
Otherwise Enter opens a continuation line.
"""

from __future__ import annotations

from typing import Callable

from ..dialect.splitter import DEFAULT_DELIMITER, StatementBuffer


def _scanner(delimiter: str, pending: StatementBuffer | None) -> StatementBuffer:
    return pending.snapshot() if pending is not None else StatementBuffer(delimiter=delimiter)


def is_complete(text: str, delimiter: str = DEFAULT_DELIMITER, pending: StatementBuffer | None = None) -> bool:
    """True when Enter should hand ``text`` to the shell. ``pending`` is the statement text an
    earlier input left unterminated (its delimiter wins over ``delimiter``); a ``delimiter`` line
    in ``text`` changes it from there on, as it will when the text runs."""
    if not text.strip():
        return True
    scanner = _scanner(delimiter, pending)
    items: list = []
    for line in text.split("\n"):
        items = scanner.feed_line(line)
    return bool(items) or not scanner.in_progress


def split_paste(text: str, delimiter: str = DEFAULT_DELIMITER, pending: StatementBuffer | None = None) -> tuple[list[str], str]:
    """``(inputs, rest)`` for text pasted at the prompt: each input is whole lines that end with
    nothing pending, in order (each runs as if typed and Enter pressed); ``rest`` is what follows
    the last of them -- an unfinished statement and the last line without its line break -- left
    in the prompt to go on typing. Blank inputs are dropped."""
    lines = text.split("\n")
    scanner = _scanner(delimiter, pending)
    inputs: list[str] = []
    start = 0
    for index, line in enumerate(lines[:-1]):
        scanner.feed_line(line)
        if not scanner.in_progress:
            chunk = "\n".join(lines[start : index + 1])
            if chunk.strip():
                inputs.append(chunk)
            start = index + 1
    return inputs, "\n".join(lines[start:])


class CompletenessCheck:
    """:func:`is_complete` with the last answer remembered.

    prompt_toolkit asks whether the input is multi-line several times per screen refresh, always
    about the same text; only a changed text (or pending statement) is scanned again.
    """

    def __init__(self, pending: Callable[[], StatementBuffer | None] = lambda: None) -> None:
        self._pending = pending
        self._asked: tuple | None = None
        self._answer = True

    def __call__(self, text: str) -> bool:
        pending = self._pending()
        key = (text, None) if pending is None else (text, pending.delimiter, pending.open_quote, pending.pending_text)
        if key != self._asked:
            self._answer = is_complete(text, pending=pending)
            self._asked = key
        return self._answer
