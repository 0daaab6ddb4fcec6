"""Reading wild patterns as the server does, to reason about them rather than match with them.

The server's LIKE (mysql-filter-evaluation.md, section 4): ``%`` any run, ``_`` one character
(one byte under lower_case_table_names=0), ``\\`` makes the next character literal, a trailing
lone ``\\`` is literal. The matcher itself is :mod:`replfilter.core.wildcard`; this module answers
questions about patterns: is one inside another, which database does it name, where is a ``_``
that was probably meant literally.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from ..core.filters import NameCollation, fold_case

ANY = "%"
ONE = "_"
Token = tuple[str, str]
"""``("lit", c)``, ``("one", "")`` or ``("any", "")``."""


def tokens(pattern: str) -> tuple[Token, ...]:
    out: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            out.append(("lit", pattern[i + 1]))
            i += 2
            continue
        if ch == "%":
            if not out or out[-1][0] != "any":
                out.append(("any", ""))
        elif ch == "_":
            out.append(("one", ""))
        else:
            out.append(("lit", ch))
        i += 1
    return tuple(out)


def has_wildcards(pattern: str) -> bool:
    return any(kind != "lit" for kind, _ in tokens(pattern))


def literal_text(pattern: str) -> str | None:
    """The one string a pattern without wildcards matches (escapes removed), else None."""
    toks = tokens(pattern)
    if any(kind != "lit" for kind, _ in toks):
        return None
    return "".join(ch for _, ch in toks)


def literal_db(pattern: str) -> str | None:
    """The database a pattern names when its part before the first literal dot has no
    wildcard (``sales.%`` -> ``sales``; ``s%.t`` -> None). ``%`` can match across a dot, so
    ``sales.%`` also matches a database called ``sales.x``; callers use this only to relate a
    pattern to database rules naming that database."""
    db: list[str] = []
    for kind, ch in tokens(pattern):
        if kind != "lit":
            return None
        if ch == ".":
            return "".join(db)
        db.append(ch)
    return None


def escape_like(name: str) -> str:
    """A name as a LIKE pattern that matches exactly it: ``my_db`` -> ``my\\_db``."""
    return re.sub(r"([\\%_])", r"\\\1", name)


_NAMEISH = re.compile(r"[A-Za-z0-9]")


def suspicious_underscores(pattern: str) -> tuple[int, ...]:
    """Positions of unescaped ``_`` that sit between two letters or digits, as in ``db_1`` or
    ``order_items``: there the writer almost certainly meant the character itself. A ``_``
    next to ``%``, ``.`` or another ``_`` (``t__``, ``%_``) reads as a deliberate wildcard."""
    return _unescaped_underscores(pattern, lambda after: bool(_NAMEISH.match(after)))


def underscores_before_any(pattern: str) -> tuple[int, ...]:
    """Positions of unescaped ``_`` right after a letter or digit and right before ``%``, as in
    ``tmp_%``: the textbook case of a prefix meant as ``tmp_`` that also takes ``tmps`` and
    ``tmp1``. Less certain than :func:`suspicious_underscores` (``t_%``, "at least two
    characters", is a way to write a length), so the lint reports these as a note."""
    return _unescaped_underscores(pattern, lambda after: after == "%")


def _unescaped_underscores(pattern: str, followed_well: Callable[[str], bool]) -> tuple[int, ...]:
    """Positions of unescaped ``_`` after a letter or digit whose next character passes
    ``followed_well`` (a ``\\`` escapes the character after it)."""
    found: list[int] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "_" and 0 < i < n - 1 and _NAMEISH.match(pattern[i - 1]) and followed_well(pattern[i + 1]):
            found.append(i)
        i += 1
    return tuple(found)


def open_ended_name(pattern: str) -> str | None:
    """The name a pattern reads as when its one ``%`` is at the end, right after a letter or
    digit, and nothing else is a wildcard but ``_`` (taken literally): ``myapp.audit_log%`` ->
    ``myapp.audit_log``. Such a pattern was most likely written for that table and takes every
    table whose name goes on from it (``audit_log_preferences``). ``db.%`` (a whole database)
    and ``db.tmp\\_%`` (a prefix ending in a separator) are not read this way."""
    toks = tokens(pattern)
    if len(toks) < 2 or toks[-1][0] != "any" or any(kind == "any" for kind, _ in toks[:-1]):
        return None
    last = toks[-2]
    if last[0] != "lit" or not _NAMEISH.match(last[1]):
        return None
    text = "".join(ch if kind == "lit" else "_" for kind, ch in toks[:-1])
    db, dot, table = text.partition(".")
    return text if dot and db and table else None


def escape_positions(pattern: str, positions: tuple[int, ...]) -> str:
    out = []
    for i, ch in enumerate(pattern):
        out.append("\\_" if i in positions else ch)
    return "".join(out)


def covers(outer: str, inner: str, collation: NameCollation = NameCollation()) -> bool:
    """True when every string ``inner`` matches is matched by ``outer`` (a sufficient test:
    ``outer`` must match ``inner`` read as a pattern, a ``%`` of ``inner`` only by a ``%``,
    its ``_`` by ``_`` or ``%``). Under lower_case_table_names=0 a ``_`` is one byte, so it
    covers only a one-byte literal."""
    return _covers(collation.key(outer), collation.key(inner), collation.case_insensitive)


@lru_cache(maxsize=65536)
def _covers(outer: str, inner: str, by_character: bool) -> bool:
    a, b = tokens(outer), tokens(inner)
    n, m = len(a), len(b)
    # reach[j]: outer[:i] can consume inner[:j]; rolled over i.
    reach = [False] * (m + 1)
    reach[0] = True
    for i in range(n):
        kind, ch = a[i]
        nxt = [False] * (m + 1)
        if kind == "any":
            carry = False
            for j in range(m + 1):
                carry = carry or reach[j]
                nxt[j] = carry
        else:
            for j in range(m):
                if not reach[j]:
                    continue
                bkind, bch = b[j]
                if kind == "one":
                    ok = bkind == "one" or (bkind == "lit" and (by_character or len(bch.encode("utf-8")) == 1))
                else:
                    ok = bkind == "lit" and bch == ch
                if ok:
                    nxt[j + 1] = True
        reach = nxt
        if not any(reach):
            return False
    return reach[m]


@lru_cache(maxsize=65536)
def literal_prefix(pattern: str) -> str:
    """The literal text before the first wildcard (escapes removed)."""
    out: list[str] = []
    for kind, ch in tokens(pattern):
        if kind != "lit":
            break
        out.append(ch)
    return "".join(out)


class WildIndex:
    """Wild patterns indexed by the collation key of their literal prefix, so that "which
    patterns match this name" and "which earlier pattern covers this one" look at the few
    patterns whose prefix fits instead of all of them (10,000 rules stay fast). A pattern that
    is a literal, or a literal followed by one ``%``, is matched by string comparison; others by
    the server's LIKE (:mod:`replfilter.core.wildcard`), compiled when first needed."""

    def __init__(self, patterns: tuple[str, ...], collation: NameCollation) -> None:
        self.patterns = patterns
        self.collation = collation
        self._by_prefix: dict[str, list[int]] = {}
        self._matchers: dict[int, object] = {}
        for index, pattern in enumerate(patterns):
            self._by_prefix.setdefault(collation.key(literal_prefix(pattern)), []).append(index)
        self._lengths = sorted({len(prefix) for prefix in self._by_prefix})
        self._longer: dict[str, set[int]] | None = None

    def _candidates(self, text_key: str) -> list[int]:
        found: list[int] = []
        for length in self._lengths:
            if length > len(text_key):
                break
            hit = self._by_prefix.get(text_key[:length])
            if hit:
                found.extend(hit)
        if len(found) > 1:
            found.sort()
        return found

    def _matches(self, index: int, name: str, name_key: str) -> bool:
        matcher = self._matchers.get(index)
        if matcher is None:
            matcher = self._matchers[index] = self._matcher(self.patterns[index])
        kind, value = matcher  # type: ignore[misc]
        if kind == "exact":
            return name_key == value
        if kind == "prefix":
            return name_key.startswith(value)
        return value.matches(name)

    def _matcher(self, pattern: str) -> tuple[str, object]:
        from ..core.wildcard import compile_pattern

        toks = tokens(pattern)
        literal = "".join(ch for kind, ch in toks if kind == "lit")
        if all(kind == "lit" for kind, _ in toks):
            return "exact", self.collation.key(literal)
        if toks[-1][0] == "any" and all(kind == "lit" for kind, _ in toks[:-1]):
            return "prefix", self.collation.key(literal)
        return "like", compile_pattern(pattern, self.collation)

    def match_indices(self, name: str) -> tuple[int, ...]:
        """Indices (in configured order) of every pattern that matches the literal ``name``."""
        if not self.patterns:
            return ()
        key = fold_case(name) if self.collation.case_insensitive else name
        return tuple([i for i in self._candidates(key) if self._matches(i, name, key)])

    def for_database(self, db: str):
        """A matcher for the tables of one database: ``match(name)`` gives what
        :meth:`match_indices` gives for ``name`` = ``db.table``. The buckets whose prefix ends
        within ``db.`` are the same for every table of it, and only the longer prefixes that
        start with ``db.`` can add more; a database no pattern names by prefix costs one
        lookup per table (a 50,000-table schema is mostly such filler)."""
        head = self.collation.key(db + ".")
        fixed = sorted(i for length in self._lengths if length <= len(head) for i in self._by_prefix.get(head[:length], ()))
        if self._longer is None:  # prefix lengths by each text up to a dot inside the prefix
            self._longer = {}
            for prefix in self._by_prefix:
                dot = prefix.find(".")
                while 0 <= dot < len(prefix) - 1:
                    self._longer.setdefault(prefix[:dot + 1], set()).add(len(prefix))
                    dot = prefix.find(".", dot + 1)
        longer = sorted(self._longer.get(head, ()))
        by_prefix, matches, ci = self._by_prefix, self._matches, self.collation.case_insensitive

        def match(name: str) -> tuple[int, ...]:
            if not fixed and not longer:
                return ()
            key = fold_case(name) if ci else name
            found = list(fixed)
            for length in longer:
                if length > len(key):
                    break
                found.extend(by_prefix.get(key[:length], ()))
            if len(found) > 1 and longer:
                found.sort()
            return tuple([i for i in found if matches(i, name, key)])

        return match

    def first_match(self, name: str) -> str | None:
        """The first pattern (in configured order) that matches the literal ``name``."""
        key = self.collation.key(name)
        for index in self._candidates(key):
            if self._matches(index, name, key):
                return self.patterns[index]
        return None

    def all_matches(self, name: str) -> list[str]:
        return [self.patterns[i] for i in self.match_indices(name)]

    def first_cover(self, pattern: str, before: int | None = None) -> str | None:
        """The first pattern (index below ``before``) whose matches include all of ``pattern``'s."""
        for index in self._candidates(self.collation.key(literal_prefix(pattern))):
            if before is not None and index >= before:
                break
            if covers(self.patterns[index], pattern, self.collation):
                return self.patterns[index]
        return None


class KnownMatches:
    """A wild list for one name whose matching patterns are already known: what the evaluator
    asks of a :class:`~replfilter.core.wildcard.WildList` (its first match, whether it is empty),
    answered without matching again."""

    __slots__ = ("first", "nonempty")

    def __init__(self, first: str | None, nonempty: bool) -> None:
        self.first = first
        self.nonempty = nonempty

    def __bool__(self) -> bool:
        return self.nonempty

    def first_match(self, _subject: str) -> str | None:
        return self.first
