"""How MySQL 8.4 compares the filter tables' text columns: under ``utf8mb4_0900_ai_ci``.

The tables are created by ``Plugin_table::get_ddl`` with no character set of their own
(``storage/perfschema/table_replication_applier_filters.cc``: ``ENGINE=PERFORMANCE_SCHEMA``
only), in the schema created as ``CREATE SCHEMA performance_schema CHARACTER SET utf8mb4``
(``sql/dd/performance_schema/init.cc``), whose default collation in 8.0 and 8.4 is
``utf8mb4_0900_ai_ci``. A column against a string literal compares under the column's collation
(implicit derivation wins over the literal's coercible one). That collation is

* case-insensitive and accent-insensitive (``_ai_ci``: UCA 9.0.0 primary weights), so
  ``CHANNEL_NAME = 'CH_1'`` matches ``ch_1`` and ``FILTER_RULE = 'cafe'`` matches ``café``;
* NO PAD (``SHOW COLLATION``: ``Pad_attribute NO PAD``), so trailing spaces count: ``CHANNEL_NAME
  = 'ch_1 '`` matches nothing. (CHAR columns lose their padding when read, so a stored value
  has none to compare.)

ORDER BY, MIN/MAX, GROUP BY, BETWEEN, IN, ``SELECT DISTINCT`` and ``COUNT(DISTINCT ...)`` order,
group and compare by the same weights. replfilter's key is the
primary level as far as Unicode's canonical decomposition gives it: NFD, combining marks
dropped, case folded (``ß`` is ``ss``). Expansions DUCET has beyond that (``æ`` = ``ae``) are not
made; names in the filter tables are identifiers, which rarely hold them. The key's characters
order as DUCET's primary weights do for ASCII (punctuation < ``$`` < digits < letters:
:data:`_DUCET_ASCII_PRIMARY`), other characters after them in code-point order; LIKE matches on
the folded text instead (:func:`like_key`), whose ``%`` and ``_`` a key of weights would hide.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any


_DUCET_ASCII_PRIMARY = {
    " ": 0x0209, "_": 0x020B, "-": 0x020D, ",": 0x0223, ";": 0x023A, ":": 0x0240, "!": 0x0267, "?": 0x026D,
    ".": 0x027E, "'": 0x0316, '"': 0x031D, "(": 0x0328, ")": 0x0329, "[": 0x032A, "]": 0x032B, "{": 0x032C,
    "}": 0x032D, "@": 0x03A0, "*": 0x03A1, "/": 0x03A6, "\\": 0x03A7, "&": 0x03A9, "#": 0x03AC, "%": 0x03AD,
    "`": 0x04B4, "^": 0x04B7, "+": 0x0666, "<": 0x066A, "=": 0x066B, ">": 0x066C, "|": 0x066E, "~": 0x0670,
    "$": 0x1F64, **{chr(0x30 + d): 0x1F98 + d for d in range(10)},
    **dict(zip("abcdefghijklmnopqrstuvwxyz", (
        0x1FA2, 0x1FBC, 0x1FD6, 0x1FEB, 0x2007, 0x2042, 0x2051, 0x2075, 0x2090, 0x20AB, 0x20C4, 0x20D6, 0x2109,
        0x2118, 0x213C, 0x216B, 0x2180, 0x2193, 0x21D2, 0x21F7, 0x2217, 0x2247, 0x2259, 0x2264, 0x2270, 0x2286))),
}
"""The primary weights DUCET (the UCA's default table, ``allkeys.txt``) gives printable ASCII,
whose relative order UCA 9.0.0 keeps (``strings/uca900_data.h`` is generated from its
``allkeys.txt``): the variable characters (white space, then punctuation, then symbols: ``' '
< '_' < '-' < ',' < ';' < ':' < '!' < '?' < '.'`` ...) before the currency sign ``$``, then the
digits, then the letters, each capital with its small letter. utf8mb4_0900_ai_ci weighs the
variable characters as they are (non-ignorable, ``my_uca_scanner``), so ``ch_2`` sorts
before ``ch1`` (``_`` < ``1``), where code-point order puts it after. Only the order matters
here, so the weights need not be 9.0.0's own numbers."""
_KEY_SHIFT = 0x2400
"""Where a character without an ASCII weight goes in a key: above every ASCII weight (DUCET puts
the other scripts' letters after Latin, and the few non-ASCII symbols that would come earlier
are rare in names)."""
_ASCII_KEYS = {ord(c): chr(w) for c, w in _DUCET_ASCII_PRIMARY.items()} | {
    ord(c.upper()): chr(w) for c, w in _DUCET_ASCII_PRIMARY.items() if c.isalpha()}


@lru_cache(maxsize=4096)
def collation_key(text: str) -> str:
    """The value ``utf8mb4_0900_ai_ci`` compares and orders ``text`` by (primary strength, NO
    PAD): each character its primary weight as a character (:data:`_DUCET_ASCII_PRIMARY`), so
    that Python's string order is the collation's. Not for LIKE: see :func:`like_key`."""
    return "".join(_ASCII_KEYS.get(ord(c)) or (chr(ord(c) + _KEY_SHIFT) if ord(c) < 0x110000 - _KEY_SHIFT else c)
                   for c in like_key(text))


@lru_cache(maxsize=4096)
def like_key(text: str) -> str:
    """``text`` folded as the collation compares it (case and accents dropped), its characters
    kept: LIKE matches ``%`` and ``_`` in such text (a key of weights would hide them)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def collate(value: Any) -> Any:
    """A string's collation key; other values as they are (COUNTER compares as a number)."""
    return collation_key(value) if isinstance(value, str) else value


def collate_for_like(value: Any) -> Any:
    """A string folded for LIKE (:func:`like_key`); other values as they are."""
    return like_key(value) if isinstance(value, str) else value


def _pick(values: Any, largest: bool) -> Any:
    kept = [v for v in values if v is not None]
    if not kept:
        return None
    key = (lambda v: (0, collation_key(v)) if isinstance(v, str) else (1, v)) if any(
        isinstance(v, str) for v in kept) else None
    return max(kept, key=key) if largest else min(kept, key=key)


def collated_max(values: Any) -> Any:
    """``MAX`` of a text column: the greatest under the collation (``Item_sum_hybrid``)."""
    return _pick(values, True)


def collated_min(values: Any) -> Any:
    """``MIN`` of a text column: the least under the collation."""
    return _pick(values, False)


CONFIGURED_BY_VALUES = ("STARTUP_OPTIONS", "CHANGE_REPLICATION_FILTER", "STARTUP_OPTIONS_FOR_CHANNEL",
                        "CHANGE_REPLICATION_FILTER_FOR_CHANNEL")
"""CONFIGURED_BY's ENUM members in the tables' order (the global table has the first two)."""
TEXT_COLUMNS = frozenset({"CHANNEL_NAME", "FILTER_NAME", "FILTER_RULE"})


def enum_index(value: Any) -> Any:
    """An ENUM sorts by its member's index (``Field_enum::make_sort_key``; the manual: "ENUM
    values are sorted based on their index numbers")."""
    return CONFIGURED_BY_VALUES.index(value) + 1 if value in CONFIGURED_BY_VALUES else value


def sort_key(column: str, value: Any) -> Any:
    """The key a column's value sorts by: an ENUM's index, a text's collation key."""
    return enum_index(value) if column == "CONFIGURED_BY" else collate(value)


def collated_order(tree: Any) -> None:
    """ORDER BY a text column (named, by its alias, or by its position in the SELECT list)
    sorts by the collation's key, CONFIGURED_BY by its member's index: sqlglot's executor
    would sort the values as Python orders them (``'B' < 'a'``)."""
    from sqlglot import exp

    order = tree.args.get("order")
    if order is None:
        return
    items = [e.this if isinstance(e, exp.Alias) else e for e in tree.expressions]
    aliases = {e.alias.upper(): e.this for e in tree.expressions if isinstance(e, exp.Alias)}
    for ordered in order.expressions:
        target = argument = ordered.this
        if isinstance(target, exp.Literal) and target.is_int and 0 < int(target.this) <= len(items):
            target = argument = items[int(target.this) - 1]
        elif isinstance(target, exp.Column) and target.name.upper() in aliases:
            target = aliases[target.name.upper()]  # sorted by the alias, which the executor knows after grouping
        if not isinstance(target, exp.Column):
            continue
        name = target.name.upper()
        if name in TEXT_COLUMNS or name == "CONFIGURED_BY":
            function = "RF_ENUM" if name == "CONFIGURED_BY" else "RF_CI"
            ordered.set("this", exp.Anonymous(this=function, expressions=[argument.copy()]))


def collated_groups(tree: Any) -> None:
    """GROUP BY a text column groups by the collation's key (``a`` and ``A`` are one group, as
    the server's grouping compares them), each group showing its first row's value (MIN under
    the collation picks the first of equal keys): sqlglot's executor would group exact values."""
    from sqlglot import exp

    group = tree.args.get("group")
    if group is None:
        return
    keyed = set()
    for expression in list(group.expressions):
        if isinstance(expression, exp.Column) and expression.name.upper() in TEXT_COLUMNS:
            keyed.add(expression.name.upper())
            expression.replace(exp.Anonymous(this="RF_CI", expressions=[expression.copy()]))
    if not keyed:
        return
    for expression in list(tree.expressions):
        inner = expression.this if isinstance(expression, exp.Alias) else expression
        if isinstance(inner, exp.Column) and inner.name.upper() in keyed:
            alias = expression.alias if isinstance(expression, exp.Alias) else inner.name
            expression.replace(exp.alias_(exp.Min(this=inner.copy()), alias))
            continue
        for column in list(inner.find_all(exp.Column)):
            if column.name.upper() in keyed and column.find_ancestor(exp.AggFunc) is None:
                column.replace(exp.Min(this=column.copy()))


def collated_distinct_counts(tree: Any) -> None:
    """``COUNT(DISTINCT col, ...)`` counts the text columns' distinct collation keys: the
    server's ``Item_sum_count_distinct`` keeps its rows in a temporary table (or ``Unique``
    tree) whose key compares each field under its collation (``a`` and ``A`` count once)."""
    from sqlglot import exp

    for count in tree.find_all(exp.Count):
        distinct = count.this
        if not isinstance(distinct, exp.Distinct):
            continue
        for expression in list(distinct.expressions):
            if isinstance(expression, exp.Column) and expression.name.upper() in TEXT_COLUMNS:
                expression.replace(exp.Anonymous(this="RF_CI", expressions=[expression.copy()]))


def distinct_as_groups(tree: Any) -> bool:
    """``SELECT DISTINCT`` over a text column becomes ``GROUP BY`` its select items, so that
    :func:`collated_groups` makes the rows distinct by the collation's keys, each showing its
    first row's value: the server removes duplicates through a temporary table with a unique
    key on the select list's fields (``create_tmp_table`` with ``distinct``), which compares
    them under their collation. Only a plain case is rewritten (no GROUP BY, HAVING, aggregate
    or window, every ORDER BY item a select item or its position, so the ONLY_FULL_GROUP_BY
    checks made before are unchanged); others keep the executor's exact DISTINCT. Returns
    whether the query was rewritten."""
    from sqlglot import exp

    distinct = tree.args.get("distinct")
    if not isinstance(distinct, exp.Distinct) or distinct.args.get("on") is not None:
        return False
    if tree.args.get("group") is not None or tree.args.get("having") is not None:
        return False
    items = [e.this if isinstance(e, exp.Alias) else e for e in tree.expressions]
    if any(item.find(exp.AggFunc, exp.Window, exp.Star) is not None or isinstance(item, exp.Star) for item in items):
        return False
    if not any(isinstance(item, exp.Column) and item.name.upper() in TEXT_COLUMNS for item in items):
        return False
    names = {e.alias_or_name.upper() for e in tree.expressions}
    order = tree.args.get("order")
    for ordered in order.expressions if order is not None else ():
        target = ordered.this
        positional = isinstance(target, exp.Literal) and target.is_int
        if not positional and not (isinstance(target, exp.Column) and target.name.upper() in names):
            return False
    tree.set("distinct", None)
    tree.set("group", exp.Group(expressions=[item.copy() for item in items]))
    return True
