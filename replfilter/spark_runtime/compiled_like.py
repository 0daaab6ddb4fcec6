"""A wild rule (``REPLICATE_WILD_DO_TABLE``/``REPLICATE_WILD_IGNORE_TABLE``) as Spark column
expressions on an ASCII subject, and which of a type's rules matched first.

Why not one ``LIKE`` or regular expression per rule (the earlier design's finding): on the bench
input (4 M events) each regular expression cost ~0.35 JVM CPU s, and the outcome code alone fell
from 8.8 to 5.1 JVM CPU s with string tests (a pass-through 3.7-4.0; one run each, load 13-17).
So a pattern becomes cheap string tests (:func:`like`: ``startsWith``, ``endsWith``, a
fixed-position ``substring``, one ``locate``), a regular expression only when it needs one; a type
with more than :data:`MAX_CASE_RULES` patterns is one combined expression, and on the rows it
matched one more run of it with a group around each rule says which (:func:`which`).

A pattern is the evaluator's own regular expression (``like_to_regex``) over its collation key,
whose syntax means the same in Java: it escapes with a backslash only characters that are not
letters, and ``(?s)`` makes ``.`` match every character as ``re.DOTALL`` does
(mysql-filter-evaluation.md, section 4).
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from ..core.wildcard import like_to_regex
from ..evaluation.rule_checks import CompiledFilters

def is_ascii(name: Column) -> Column:
    """Whether a name is plain ASCII: one byte a character (cheap; NULL stays NULL)."""
    return F.length(name) == F.octet_length(name)


_MARK = "\u00ff"
"""A character that is not ASCII, so never in a covered name (:func:`which`)."""

MAX_CASE_RULES = 16
"""Patterns of one wild type tested one by one (:func:`like`, a branch per rule); beyond, one
combined regular expression tests the row and :func:`which` finds the rule."""


def _tokens(pattern: str) -> list[str | None]:
    """A LIKE pattern (its collation key) as characters, ``None`` for ``%`` and ``""`` for
    ``_``, with the escapes of :func:`~replfilter.core.wildcard.like_to_regex` (``\\x`` is a
    literal ``x``, a trailing lone ``\\`` itself) and runs of ``%`` collapsed."""
    out: list[str | None] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            out.append(pattern[i + 1])
            i += 2
            continue
        if ch == "%":
            if not out or out[-1] is not None:
                out.append(None)
        else:
            out.append("" if ch == "_" else ch)
        i += 1
    return out


def _runs(segment: list[str]) -> list[tuple[int, str]]:
    """A segment's literal runs as (offset, text); ``_`` (``""``) separates them."""
    runs: list[tuple[int, str]] = []
    for offset, ch in enumerate(segment):
        if ch == "":
            continue
        if runs and runs[-1][0] + len(runs[-1][1]) == offset:
            runs[-1] = (runs[-1][0], runs[-1][1] + ch)
        else:
            runs.append((offset, ch))
    return runs


def like(pattern: str, subject: Column) -> Column | None:
    """``subject LIKE pattern`` for an ASCII subject as cheap string tests (``startsWith``,
    ``endsWith``, a fixed-position ``substring``, one ``locate``) instead of a regular
    expression, or None when the pattern needs one (two ``%``-free middle parts, or a ``_``
    between two ``%``). The subject is ASCII, so a character is a byte and ``_`` means the
    same under every collation; a pattern with a literal that is not ASCII matches nothing.

    The middle part is found at its leftmost place after the prefix: any later match would
    leave less room, so the leftmost one decides."""
    tokens = _tokens(pattern)
    if any(t and not t.isascii() for t in tokens):
        return F.lit(False)
    segments: list[list[str]] = [[]]
    for t in tokens:
        if t is None:
            segments.append([])
        else:
            segments[-1].append(t)
    length = F.length(subject)
    total = sum(len(seg) for seg in segments)
    if len(segments) == 1:
        tests = [length == total] + [F.substring(subject, o + 1, len(text)) == text for o, text in _runs(segments[0])]
        return _all(tests)
    first, middles, last = segments[0], segments[1:-1], segments[-1]
    if len(middles) > 1 or any("" in m for m in middles):
        return None
    tests = [length >= total] if total else []
    if first:
        if "" not in first:
            tests.append(subject.startswith("".join(first)))
        else:
            tests += [F.substring(subject, o + 1, len(text)) == text for o, text in _runs(first)]
    if last:
        if "" not in last:
            tests.append(subject.endswith("".join(last)))
        else:
            tests += [F.substring(subject, length - F.lit(len(last) - o - 1), len(text)) == text for o, text in _runs(last)]
    if middles:
        middle = "".join(middles[0])
        found = F.locate(middle, subject, len(first) + 1)
        tests += [found > 0, found + F.lit(len(middle) + len(last)) <= length + 1]
    return _all(tests)


def _all(tests: list[Column]) -> Column:
    if not tests:
        return F.lit(True)
    out = tests[0]
    for t in tests[1:]:
        out = out & t
    return out


def _combined(rules: tuple[str, ...], c: CompiledFilters) -> str:
    """One anchored Java regular expression matching what any of ``rules`` matches."""
    sources = "|".join(f"(?:{like_to_regex(c.key(rule))})" for rule in rules)
    return f"(?s)^(?:{sources})\\z"


def first_match(rules: tuple[str, ...], c: CompiledFilters, subject: Column, code: int, otherwise: Column) -> Column:
    """``code + k`` for the first of ``rules`` (k from 0) that ``subject`` matches, else
    ``otherwise``: a branch per rule of cheap string tests (:func:`like`) when the rules are
    few (:data:`MAX_CASE_RULES`), else one combined regular expression and :func:`which`."""
    if len(rules) > MAX_CASE_RULES:
        test = subject.rlike(_combined(rules, c))
        return F.when(test, which(rules, c, subject) + F.lit(code - 1)).otherwise(otherwise)
    out: Column | None = None
    for k, rule in enumerate(rules):
        key = c.key(rule)
        test = like(key, subject)
        if test is None:
            test = subject.rlike(f"(?s)^(?:{like_to_regex(key)})\\z")
        out = F.when(test, F.lit(code + k)) if out is None else out.when(test, F.lit(code + k))
    return otherwise if out is None else out.otherwise(otherwise)


def which(rules: tuple[str, ...], c: CompiledFilters, subject: Column) -> Column:
    """The 1-based number of the first of ``rules`` that ``subject`` matches, 0 for none: one
    run of the combined expression with a group around each rule, replaced by a marker that is
    not ASCII (never in a covered name) before each group, so the subject lands after as many
    markers as the matching rule's number (an unmatched subject is left as it is)."""
    grouped = "|".join(f"({like_to_regex(c.key(rule))})" for rule in rules)
    replacement = "".join(f"{_MARK}${k}" for k in range(1, len(rules) + 1))
    marked = F.regexp_replace(subject, f"(?s)^(?:{grouped})\\z", replacement)
    return F.position(subject, marked) - F.lit(1)


__all__ = ["MAX_CASE_RULES", "first_match", "is_ascii", "like", "which"]
