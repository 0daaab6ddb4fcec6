"""Long statements read short: the syntax error of a long list found without parsing every element.

Lark's LALR parser spends some microseconds a token, so a statement of a megabyte with a list of
half a million names (``REPLICATE_DO_DB = (x,x,x,...``, a paste gone wrong) took 18 s to get its
1064. Almost all of such a statement is a run of list elements of one plain shape (``name,``,
``db.t,``, ``'db%.t%',``, ``(a, b),``, ``42,``), each of which the grammar takes in the same parser
state as the one before, with no check that could fail on it. So :func:`skeleton` keeps the first
two elements of every run of three or more and drops the rest: the parser is in the same state
after two elements as after any more (a list is a left-recursive loop), so the shorter text fails
at the same token, or parses. The parser then reads the skeleton first (:mod:`.parser`): a syntax
error found there is the statement's, its position mapped back (:meth:`Skeleton.position`);
a skeleton that parses (or meets another error) says nothing, and the whole text is parsed as
before. The 1064's text and position are therefore the same as without the skeleton, for any
input: ``tests/test_grammar.py`` checks this as a property.

What an element may be, so that dropping it can change nothing:

* a bare name of ASCII letters, digits and ``_`` (at most 64, not starting with a digit) that is
  neither a keyword of the grammar nor a reserved word (those lex or check differently) nor a
  CHANGE REPLICATION SOURCE option's name (so that the words the skeleton keeps give 8.0's
  parse-time warnings, as the whole text's would);
* ``name.name`` of two such names (no spaces: a reserved word after the dot is another rule);
* a quoted string holding a ``.`` and no quote, backslash or line feed (a wild pattern the
  rule's checks accept);
* a number of at most 20 digits; a pair ``(name, name)``.

Each is followed by a comma; an element must start where a token starts (not after a letter,
digit, quote, ``.``, ``@`` or ``\\``). A run inside a string or a comment is shortened too: that
changes the token's text, never where the token starts or ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .grammar import RESERVED_WORDS, ascii_upper, keywords
from .source_options import SUPPORTED_OPTIONS, UNSIMULATED_OPTIONS, canonical_name

LONG_STATEMENT = 16 * 1024
"""Shorter statements are parsed directly: a skeleton would save nothing worth its scan."""

_NAME = r"[A-Za-z_][A-Za-z0-9_]{0,63}"
_UNITS = {
    "table": rf"{_NAME}\.{_NAME}\s*,\s*",
    "name": rf"{_NAME}\s*,\s*",
    "pair": rf"\(\s*{_NAME}\s*,\s*{_NAME}\s*\)\s*,\s*",
    "string": r"'[^'\\\n]*\.[^'\\\n]*'\s*,\s*",
    "number": r"[0-9]{1,20}\s*,\s*",
}
_TOKEN_START = r"""(?<![0-9A-Za-z_$.@'"`\\])(?<![^\x00-\x7f])"""
_RUN = re.compile(
    _TOKEN_START + "(?:" + "|".join(f"(?P<keep_{kind}>(?:{unit}){{2}})(?:{unit})+" for kind, unit in _UNITS.items()) + ")"
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=1)
def _special_words() -> frozenset[str]:
    """Words that lex as keywords or fail the reserved-word check, and the names of CHANGE
    REPLICATION SOURCE options in any spelling (8.0 warns for a legacy one: parser.py,
    ``parse_time_warnings``, reads the skeleton's words): never dropped."""
    options = frozenset(SUPPORTED_OPTIONS) | UNSIMULATED_OPTIONS
    spellings = {f"MASTER_{name[len('SOURCE_'):]}" for name in options if name.startswith("SOURCE_")}
    spellings |= {"GET_MASTER_PUBLIC_KEY"}
    return keywords() | RESERVED_WORDS | options | {word for word in spellings if canonical_name(word) in options}


@dataclass(frozen=True)
class Skeleton:
    """The shortened text and where it was cut: ``cuts`` holds, for each dropped span, its
    offset in ``text`` and how many characters were dropped before and at it."""

    text: str
    cuts: tuple[tuple[int, int], ...]

    def position(self, offset: int) -> int:
        """The offset in the original text of ``offset`` in the skeleton: a position at or
        after a cut is after the dropped elements, whose token it is."""
        dropped = 0
        for at, total in self.cuts:
            if at > offset:
                break
            dropped = total
        return offset + dropped


def skeleton(text: str) -> Skeleton | None:
    """``text`` with every long run of plain list elements cut to its first two, or None when
    there is none to cut (see the module's docstring)."""
    parts: list[str] = []
    cuts: list[tuple[int, int]] = []
    kept_until = dropped = 0
    special = _special_words()
    for run in _RUN.finditer(text):
        kind = run.lastgroup
        assert kind is not None
        if kind != "keep_string" and any(ascii_upper(word) in special for word in set(_WORD.findall(run.group()))):
            continue
        keep_end = run.end(kind)
        parts.append(text[kept_until:keep_end])
        dropped += run.end() - keep_end
        cuts.append((keep_end - (dropped - (run.end() - keep_end)), dropped))
        kept_until = run.end()
    if not cuts:
        return None
    parts.append(text[kept_until:])
    return Skeleton("".join(parts), tuple(cuts))
