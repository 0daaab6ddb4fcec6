"""A Pygments lexer for the dialect, with its keywords read from the grammar itself.

The keyword list is the grammar's (:func:`replfilter.dialect.grammar.keywords`: every terminal
whose pattern is its own name, read without loading Lark), so a keyword added to the grammar is highlighted without
touching this file. Filter types, source options and the performance_schema tables get their own
token types; client commands at the start of a line and backslash commands are ``Keyword.Pseudo``;
anything the dialect cannot lex is ``Error``.
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, words
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Whitespace

from ..dialect.grammar import keywords
from ..dialect.splitter import WORD_COMMANDS
from ..core.filters import FILTER_TYPES
from ..dialect.source_options import SUPPORTED_OPTIONS, UNSIMULATED_OPTIONS

PS_TABLES = ("replication_applier_filters", "replication_applier_global_filters")


def grammar_keywords() -> tuple[str, ...]:
    """Keyword terminals of the grammar, longest first (so REPLICA does not shadow REPLICATE_*)."""
    return tuple(sorted(keywords(), key=lambda n: (-len(n), n)))


def _source_option_words() -> list[str]:
    names = set(SUPPORTED_OPTIONS) | set(UNSIMULATED_OPTIONS)
    legacy = {"MASTER_" + n[len("SOURCE_"):] for n in names if n.startswith("SOURCE_")}
    return sorted(names | legacy, key=lambda n: (-len(n), n))


_NAME_END = r"(?![^\x00-\x23\x25-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff])"
_BACKSLASH = r"\\[?hcqsWwTtPnepRu#gG.!rCx]"


class ReplFilterLexer(RegexLexer):
    name = "MySQL replication filters"
    aliases = ["replfilter"]
    flags = re.IGNORECASE | re.MULTILINE | re.ASCII  # keywords are ASCII, as the grammar's

    tokens = {
        "root": [
            (r"[ \t\r\n\f]+", Whitespace),
            (r"(?:#|--(?=[ \t\r\n]|$))[^\n]*", Comment.Single),
            (r"/\*", Comment.Multiline, "comment"),
            (r"^(?:" + "|".join(re.escape(c) for c in sorted(WORD_COMMANDS, key=len, reverse=True)) + r")(?=\s|;|$)[^\n]*", Keyword.Pseudo),
            (_BACKSLASH, Keyword.Pseudo),
            (r"'(?:[^'\\]|\\.|'')*'?", String.Single),
            (r'"(?:[^"\\]|\\.|"")*"?', String.Double),
            (r"`(?:[^`]|``)*`?", Name.Quoted),
            (words(tuple(t.keyword for t in FILTER_TYPES), suffix=_NAME_END), Name.Builtin),
            (words(tuple(_source_option_words()), suffix=_NAME_END), Name.Attribute),
            (words(("performance_schema", *PS_TABLES), suffix=_NAME_END), Name.Class),
            (words(grammar_keywords(), suffix=_NAME_END), Keyword),
            (r"[0-9]+" + _NAME_END, Number.Integer),
            (r"[^\x00-\x23\x25-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff]+", Name),
            (r"<>|!=|=|\*", Operator),
            (r"[(),.;]", Punctuation),
            (r".", Error),
        ],
        "comment": [
            (r"[^*]+", Comment.Multiline),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"\*", Comment.Multiline),
        ],
    }


MAX_HIGHLIGHTED_CHARS = 64 * 1024


def prompt_lexer():  # type: ignore[no-untyped-def]
    """The lexer for the prompt: this one, except that a huge input (a pasted dump) is shown
    plain, because highlighting a megabyte on every redraw would freeze the terminal."""
    from prompt_toolkit.lexers import Lexer, PygmentsLexer, SimpleLexer

    class _SizeLimitedLexer(Lexer):
        def __init__(self) -> None:
            self.highlighting = PygmentsLexer(ReplFilterLexer)
            self.plain = SimpleLexer()

        def lex_document(self, document):  # type: ignore[no-untyped-def]
            if len(document.text) > MAX_HIGHLIGHTED_CHARS:
                return self.plain.lex_document(document)
            return self.highlighting.lex_document(document)

        def invalidation_hash(self):  # type: ignore[no-untyped-def]
            return self.highlighting.invalidation_hash()

    return _SizeLimitedLexer()
