"""Where a SELECT's clauses leave MySQL's order: the syntax error sqlglot does not make.

MySQL's grammar fixes the order of a query block's clauses (``sql/sql_yacc.yy``):
``query_specification`` is ``SELECT select_options select_item_list into_clause
opt_from_clause opt_where_clause opt_group_clause opt_having_clause opt_window_clause``, and
``query_expression`` adds ``opt_order_clause opt_limit_clause`` after it, then the locking
clauses (``query_expression_with_opt_locking_clauses``: ``FOR UPDATE``/``FOR SHARE``, which may
repeat). Each clause comes at most once. sqlglot's reader takes the clauses in any order
(``LIMIT 1 WHERE 1``), so the query would run where MySQL refuses it with 1064: the parser stops
at the first token no rule can take, the keyword of the clause out of place, and quotes the text
from it (``near 'WHERE 1'``). The select list cannot be empty (``select_item_list``), so a clause
straight after ``SELECT`` and its options is out of place too (``SELECT FROM t``, which sqlglot
reads as a SELECT of nothing).

Only clauses outside parentheses count (a subquery, a window's ``ORDER BY`` and
``GROUP_CONCAT``'s are their own); ``UNION``/``INTERSECT``/``EXCEPT`` start a new query block.
"""

from __future__ import annotations

from dataclasses import dataclass

_RANKS = {"FROM": 1, "WHERE": 2, "GROUP_BY": 3, "HAVING": 4, "WINDOW": 5, "ORDER_BY": 6, "LIMIT": 7, "FOR": 8}
"""Each clause's place in a query block (by sqlglot's token type name); ``FOR`` (a locking
clause) is the only one that may repeat."""
_REPEATABLE = frozenset({"FOR"})
SELECT_OPTIONS = frozenset({"ALL", "DISTINCT", "DISTINCTROW", "STRAIGHT_JOIN", "HIGH_PRIORITY", "SQL_SMALL_RESULT",
                            "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE"})
"""The words ``select_options`` reads before the select list (``sql_yacc.yy``: ``select_option``
is a ``query_spec_option`` (``STRAIGHT_JOIN``, ``HIGH_PRIORITY``, ``DISTINCT``,
``SQL_SMALL_RESULT``, ``SQL_BIG_RESULT``, ``SQL_BUFFER_RESULT``, ``SQL_CALC_FOUND_ROWS``, ``ALL``)
or ``SQL_NO_CACHE``; the lexer reads ``DISTINCTROW`` as ``DISTINCT``, ``sql/lex.h``)."""
_NEW_BLOCK = frozenset({"UNION", "INTERSECT", "EXCEPT"})


@dataclass(frozen=True)
class Misplaced:
    """A clause out of place: where its keyword starts, and whether it is so because the select
    list before it is empty (then nothing before it can fail first: ``SELECT`` and options)."""

    position: int
    empty_list: bool


def misplaced_clause(text: str) -> Misplaced | None:
    """The first clause keyword out of MySQL's order (or repeated, or with no select item
    before it), outside parentheses; None when every clause is in its place or the text cannot
    be tokenized (the reader reports that)."""
    from sqlglot.dialects.mysql import MySQL

    try:
        tokens = MySQL().tokenize(text)
    except Exception:  # an unterminated quote...: the statement's own error comes from the parser
        return None
    depth, rank, listing = 0, 0, False
    for token in tokens:
        kind = token.token_type.name
        if depth == 0 and kind == "SELECT":
            listing = True  # the select list, which must hold an item before any clause
            continue
        if depth == 0 and listing and text[token.start:token.end + 1].upper() in SELECT_OPTIONS:
            continue
        if depth == 0 and kind in _RANKS:
            place = _RANKS[kind]
            if listing or place < rank or (place == rank and kind not in _REPEATABLE):
                return Misplaced(token.start, listing)
            rank = place
            continue
        listing = False
        if kind == "L_PAREN":
            depth += 1
        elif kind == "R_PAREN":
            depth = max(0, depth - 1)
        elif depth == 0 and kind in _NEW_BLOCK:
            rank = 0
    return None


def _option_runs(text: str) -> list[list[tuple[str, int, int]]]:
    """Each query block's select options as typed (upper-cased word, start, end), in order;
    empty when the text cannot be tokenized."""
    from sqlglot.dialects.mysql import MySQL

    try:
        tokens = MySQL().tokenize(text)
    except Exception:  # noqa: BLE001 - an unterminated quote...: the reader reports it
        return []
    runs: list[list[tuple[str, int, int]]] = []
    index = 0
    while index < len(tokens):
        if tokens[index].token_type.name != "SELECT":
            index += 1
            continue
        index += 1
        options: list[tuple[str, int, int]] = []
        while index < len(tokens) and text[tokens[index].start:tokens[index].end + 1].upper() in SELECT_OPTIONS:
            token = tokens[index]
            options.append((text[token.start:token.end + 1].upper(), token.start, token.end + 1))
            index += 1
        runs.append(options)
    return runs


def quantifier_conflicts(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the ``ALL`` options of each query block whose options also say ``DISTINCT``
    (or ``DISTINCTROW``), empty when none does or the text cannot be tokenized.

    MySQL's grammar takes both (``select_option_list`` only ORs the options together,
    ``Query_options::merge``); the query block refuses the pair when it is contextualized after
    the whole statement has parsed (``Query_options::save_to`` calls
    ``Query_block::validate_base_options``, ``sql/sql_lex.cc``: ``ER_WRONG_USAGE`` "ALL",
    "DISTINCT"; mysql-test's ``--error ER_WRONG_USAGE`` ``SELECT DISTINCT ALL * FROM t1``). So a
    syntax error anywhere in the statement wins over 1221."""
    spans: list[tuple[int, int]] = []
    for options in _option_runs(text):
        words = {word for word, _, _ in options}
        if "ALL" in words and words & {"DISTINCT", "DISTINCTROW"}:
            spans.extend((start, end) for word, start, end in options if word == "ALL")
    return tuple(spans)


def canonical_options(text: str) -> str:
    """``text`` with each query block's select options as sqlglot's reader takes them, at the
    same length (so every later position, quoted by an error, stays where it was typed): one
    ``DISTINCT`` first when any of them says ``DISTINCT``/``DISTINCTROW``, then each other
    option once, no ``ALL``, the rest of the run blank.

    MySQL's ``select_options`` is ``select_option_list: select_option_list select_option |
    select_option`` (``sql/sql_yacc.yy``): any of the options, in any order, any number of
    times, merged by OR-ing their bits (``Query_options::merge``), so ``SELECT SQL_NO_CACHE
    DISTINCT``, ``SELECT ALL ALL`` and ``SELECT DISTINCT DISTINCT`` are one query each; only
    ``ALL`` with ``DISTINCT`` is refused, later (:func:`quantifier_conflicts`, checked before
    this). sqlglot's reader wants ``DISTINCT`` first and once, and no ``ALL`` with other
    options. ``ALL`` is the default, so leaving it out changes nothing; the other options do not
    change what a query on the filter tables returns."""
    for options in reversed(_option_runs(text)):
        if not options:
            continue
        words = [word for word, _, _ in options]
        kept = (["DISTINCT"] if {"DISTINCT", "DISTINCTROW"} & set(words) else []) + list(dict.fromkeys(
            word for word in words if word not in ("ALL", "DISTINCT", "DISTINCTROW")))
        start, end = options[0][1], options[-1][2]
        run = " ".join(kept)
        text = text[:start] + run + " " * (end - start - len(run)) + text[end:]
    return text
