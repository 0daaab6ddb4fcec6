"""When does Enter run the input, and when does it open a continuation line (``    -> ``)?

mycli's ``clibuffer``, but the decision is the statement splitter's, the same one scripts use:
the input is complete when, after feeding every line to a fresh
:class:`~replfilter.grammar.splitter.StatementBuffer`, no statement is left unterminated (outside
quotes and comments). So ``;``, ``\\g``, ``\\G``, ``\\c`` and client commands (``quit``,
``source f``) end the input exactly where they would end a statement in a script.
"""

from __future__ import annotations

from ..grammar.splitter import StatementBuffer


def is_complete(text: str) -> bool:
    """True when Enter should hand ``text`` to the shell (nothing is left half-typed)."""
    if not text.strip():
        return True
    scanner = StatementBuffer()
    for line in text.split("\n"):
        scanner.feed_line(line)
    return not scanner.in_progress


class CompletenessCheck:
    """:func:`is_complete` with the last answer remembered.

    prompt_toolkit asks whether the input is multi-line several times per screen refresh, always
    about the same text; only a changed text is scanned again.
    """

    def __init__(self) -> None:
        self._text: str | None = None
        self._answer = True

    def __call__(self, text: str) -> bool:
        if text != self._text:
            self._answer = is_complete(text)
            self._text = text
        return self._answer
