"""When does Enter run the input, and when does it open a continuation line (``    -> ``)?

mycli's ``clibuffer``, but the decision is the statement splitter's, the same one scripts use:
the input is complete when, after feeding every line to a fresh
:class:`~replfilter.dialect.splitter.StatementBuffer`, no statement is left unterminated (outside
quotes and comments). So the delimiter (``;`` by default), ``\\g``, ``\\G``, ``\\c`` and client commands (``quit``,
``source f``) end the input exactly where they would end a statement in a script.
"""

from __future__ import annotations

from typing import Callable

from ..dialect.splitter import DEFAULT_DELIMITER, StatementBuffer


def is_complete(text: str, delimiter: str = DEFAULT_DELIMITER) -> bool:
    """True when Enter should hand ``text`` to the shell (nothing is left half-typed), with
    ``delimiter`` ending statements (the shell's current one; a ``delimiter`` line in ``text``
    changes it from there on, as it will when the text runs)."""
    if not text.strip():
        return True
    scanner = StatementBuffer(delimiter=delimiter)
    for line in text.split("\n"):
        scanner.feed_line(line)
    return not scanner.in_progress


class CompletenessCheck:
    """:func:`is_complete` with the last answer remembered.

    prompt_toolkit asks whether the input is multi-line several times per screen refresh, always
    about the same text; only a changed text is scanned again.
    """

    def __init__(self, delimiter: Callable[[], str] = lambda: DEFAULT_DELIMITER) -> None:
        self._delimiter = delimiter
        self._asked: tuple[str, str] | None = None
        self._answer = True

    def __call__(self, text: str) -> bool:
        asked = (text, self._delimiter())
        if asked != self._asked:
            self._answer = is_complete(*asked)
            self._asked = asked
        return self._answer
