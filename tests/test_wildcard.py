"""LIKE matching of wild table rules (spec section 4, checklist 51-58)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replfilter.core.filters import NameCollation
from replfilter.core.wildcard import WildList, compile_pattern, like, like_to_regex

CS = NameCollation(0)
CI = NameCollation(1)


@pytest.mark.parametrize(
    "subject, pattern, expected",
    [
        ("db1.t", "db1.%", True),
        ("db1.x.y", "db1.%", True),  # % spans the dot (checklist 54)
        ("dbx1.t", "db_1.%", True),  # _ is one character (51)
        ("dbx1.t", "db\\_1.%", False),  # escaped _ is literal (52)
        ("db_1.t", "db\\_1.%", True),
        ("my1ownAABCdb.t", "my\\_own\\%db.%", False),  # M7 / checklist 53
        ("my_own%db.t", "my\\_own\\%db.%", True),
        ("my1ownAABCdb.t", "my_own%db.%", True),  # without escapes both match
        ("x.t", "%.t", True),  # anchored (58)
        ("x.tt", "%.t", False),
        ("x.a\\", "x.a\\", True),  # lone trailing backslash is literal (57)
        ("x.a", "x.a\\", False),
        ("x.a\\b", "x.a\\\\b", True),  # \\ is a literal backslash
        ("x.ab", "x.\\ab", True),  # \a is a literal a
        ("foo1.", "foo%.%", True),  # database statements: "db." subject
        ("foo1.", "foo%.bar%", False),
        ("anything.", "%.%", True),
        ("", "%", True),
        ("a", "", False),
        ("db1.t", "db1.t", True),
        ("db1xt", "db1.t", False),  # the dot is literal, not a regex dot
        ("a+b.t", "a+b.%", True),  # regex metacharacters are literal
        ("db1.t\n", "db1.t_", True),  # _ matches any character, newline included
    ],
)
def test_like_case_sensitive(subject: str, pattern: str, expected: bool) -> None:
    assert like(subject, pattern, CS) is expected


def test_case_follows_lower_case_table_names() -> None:
    # checklist 56: WDO=DB1.% against db1.t
    assert like("db1.t", "DB1.%", CS) is False
    assert like("db1.t", "DB1.%", CI) is True
    assert like("DB1.T", "db1.t", NameCollation(2)) is True


def test_underscore_is_one_byte_in_binary_collation() -> None:
    """lctn=0 uses the binary collation: ``_`` is one byte, so a two-byte é needs ``__``."""
    assert like("db1.té", "db1.t_", CS) is False
    assert like("db1.té", "db1.t__", CS) is True
    assert like("db1.té", "db1.t_", CI) is True  # character collation: one character
    assert like("db1.té", "db1.t%", CS) is True


def test_lower_not_casefold() -> None:
    """The spec folds with per-character lower case: ß stays one character."""
    assert like("d.straße", "d.stra_e", CI) is True
    assert like("d.STRASSE", "d.straße", CI) is False


def test_wild_list_reports_first_matching_rule_in_order() -> None:
    rules = WildList(["a.%", "%.t", "%"], CS)
    assert rules.first_match("x.t") == "%.t"
    assert rules.first_match("a.t") == "a.%"
    assert rules.first_match("q") == "%"
    assert WildList([], CS).first_match("a.b") is None
    assert not WildList([], CS)
    assert WildList(["a.%"], CS)


def test_wild_list_first_match_prefers_earlier_rule_even_if_longer() -> None:
    rules = WildList(["%", "a.b"], CS)
    assert rules.first_match("a.b") == "%"


def test_compile_pattern_reusable() -> None:
    p = compile_pattern("DB%.t_", CI)
    assert p.matches("db1.tx") and p.matches("DBZ.TY") and not p.matches("db1.txx")


def test_like_to_regex_has_no_groups() -> None:
    assert re.compile(like_to_regex("a%(b)_\\%")).groups == 0


def _reference_like(subject: str, pattern: str) -> bool:
    """A direct recursive LIKE (no regex), as a differential oracle."""
    tokens: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            tokens.append(("lit", pattern[i + 1]))
            i += 2
            continue
        tokens.append(("any", "") if ch == "%" else ("one", "") if ch == "_" else ("lit", ch))
        i += 1

    from functools import lru_cache

    @lru_cache(maxsize=None)
    def match(ti: int, si: int) -> bool:
        if ti == len(tokens):
            return si == len(subject)
        kind, ch = tokens[ti]
        if kind == "any":
            return any(match(ti + 1, k) for k in range(si, len(subject) + 1))
        if si == len(subject):
            return False
        if kind == "one" or subject[si] == ch:
            return match(ti + 1, si + 1)
        return False

    return match(0, 0)


_alphabet = st.sampled_from(list("ab.%_\\"))


@settings(max_examples=300, deadline=None)
@given(subject=st.text(alphabet=st.sampled_from(list("ab.%_\\")), max_size=7), pattern=st.text(alphabet=_alphabet, max_size=7))
def test_matches_reference_like(subject: str, pattern: str) -> None:
    assert like(subject, pattern, CS) is _reference_like(subject, pattern)


@settings(max_examples=100, deadline=None)
@given(rules=st.lists(st.text(alphabet=_alphabet, max_size=5), max_size=4), subject=st.text(alphabet=st.sampled_from(list("ab._")), max_size=6))
def test_wild_list_agrees_with_linear_scan(rules: list[str], subject: str) -> None:
    expected = next((r for r in rules if _reference_like(subject, r)), None)
    assert WildList(rules, CS).first_match(subject) == expected
