"""LIKE matching for ``replicate-wild-do-table`` / ``replicate-wild-ignore-table`` (mysql-filter-evaluation.md, section 4).

The server matches the whole configured rule as one LIKE pattern against the single string
``db + "." + table`` (``db + "."`` for database statements): ``%`` is any run (empty included),
``_`` exactly one character, ``\\`` makes the next pattern character literal and a lone trailing
``\\`` is itself literal. The dot is an ordinary character, so ``%`` and ``_`` match across it.
Matching is anchored at both ends.

Why bytes for ``lower_case_table_names = 0``: the server then uses the binary collation, whose
``_`` consumes one *byte*; a table named ``té`` (two UTF-8 bytes for ``é``) is not matched by
``t_`` there. With ``lower_case_table_names`` 1 or 2 the collation is a character collation and
``_`` is one character, and both sides are lower-cased with ``fold_case`` (the spec's choice:
per-character lower case, not full case folding, so ``ß`` stays one character).

Patterns are compiled once (to one regular expression per rule, or one alternation per rule
list) because the evaluator matches the same few patterns millions of times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from .filters import NameCollation, fold_case


def like_to_regex(pattern: str, escape: str = "\\") -> str:
    """Translate one LIKE pattern to an anchored-by-use regex source.

    ``<escape>x`` -> literal ``x``; a trailing lone escape -> itself, literal; ``%`` -> ``.*``;
    ``_`` -> ``.``; everything else literal. No capturing groups are produced, which lets
    :class:`WildList` identify the matching rule by its alternative's group number. The
    filter rules always escape with ``\\``; a SELECT's ``LIKE ... ESCAPE`` names its own.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == escape:
            if i + 1 < n:
                out.append(re.escape(pattern[i + 1]))
                i += 2
                continue
            out.append(re.escape(escape))
        elif ch == "%":
            # Collapse runs of % (same language, less backtracking).
            if not out or out[-1] != ".*":
                out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _compile(sources: Sequence[str], binary: bool) -> re.Pattern:
    joined = "|".join(f"({source})" for source in sources)
    if binary:
        return re.compile(joined.encode("utf-8"), re.DOTALL)
    return re.compile(joined, re.DOTALL)


@dataclass(frozen=True)
class WildPattern:
    """One compiled rule. ``matches(subject)`` is the server's LIKE test under the collation."""

    rule: str
    collation: NameCollation
    _regex: re.Pattern

    def matches(self, subject: str) -> bool:
        if self.collation.case_insensitive:
            return self._regex.fullmatch(fold_case(subject)) is not None
        return self._regex.fullmatch(subject.encode("utf-8")) is not None


def compile_pattern(rule: str, collation: NameCollation = NameCollation()) -> WildPattern:
    """Compile one wild rule for repeated matching."""
    source = like_to_regex(collation.key(rule))
    return WildPattern(rule, collation, _compile([source], not collation.case_insensitive))


def like(subject: str, pattern: str, collation: NameCollation = NameCollation()) -> bool:
    """One-off LIKE match (tests, ad-hoc use); the evaluator uses :class:`WildList`."""
    return _cached_pattern(pattern, collation.lower_case_table_names).matches(subject)


@lru_cache(maxsize=1024)
def _cached_pattern(pattern: str, lctn: int) -> WildPattern:
    return compile_pattern(pattern, NameCollation(lctn))


class WildList:
    """All rules of one wild type, compiled into a single alternation.

    ``first_match(subject)`` returns the first rule, in configured order, that matches — what
    the server's linear scan finds — or ``None``. A regex alternation tried left to right with
    ``fullmatch`` backtracks into the next alternative only when the previous one cannot match the
    whole subject, so the winning group is exactly the first matching rule.
    """

    __slots__ = ("rules", "_regex", "_ci")

    def __init__(self, rules: Iterable[str], collation: NameCollation = NameCollation()):
        self.rules: tuple[str, ...] = tuple(rules)
        self._ci = collation.case_insensitive
        sources = [like_to_regex(collation.key(rule)) for rule in self.rules]
        self._regex = _compile(sources, not self._ci) if sources else None

    def __bool__(self) -> bool:
        return bool(self.rules)

    def first_match(self, subject: str) -> str | None:
        if self._regex is None:
            return None
        m = self._regex.fullmatch(fold_case(subject) if self._ci else subject.encode("utf-8"))
        if m is None:
            return None
        return self.rules[m.lastindex - 1]  # type: ignore[operator]
