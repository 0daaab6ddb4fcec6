"""MySQL statements replfilter does not simulate: told apart from text that is not MySQL at all.

A 1064 must mean the text is not MySQL. When the dialect's grammar cannot read a statement,
sqlglot's MySQL reader is asked whether it is an ordinary MySQL statement (``SELECT 1``, ``SHOW
VARIABLES``, ``SET @x = 1``, a performance_schema query with ``GROUP BY``...): such a statement is
refused with 1235 saying replfilter does not simulate it; anything else stays a syntax error.
sqlglot is imported only on this path (a failed parse), never at start-up.
"""

from __future__ import annotations

from .grammar import ascii_upper

# sqlglot statement nodes that are statements MySQL runs (a bare expression such as ``foo bar``
# parses as an alias in sqlglot, and unknown text as a Command: neither counts).
_STATEMENT_NODES = frozenset({
    "Select", "Union", "Intersect", "Except", "Show", "Set", "Use", "Create", "Drop", "Insert",
    "Update", "Delete", "Describe", "Alter", "TruncateTable", "Grant", "Revoke", "Analyze",
    "Commit", "Rollback", "Transaction", "LoadData", "Merge",
})
# Letters that Unicode case-folding maps onto ASCII ones (sqlglot folds keywords with str.upper;
# MySQL does not): text holding one is judged by the grammar alone.
_LOOKALIKES = frozenset("\u0130\u0131\u017f\u212a")
# Second words of the SHOW statements the dialect reads: a malformed one is the dialect's syntax
# error, not some other statement (sqlglot's SHOW reader takes almost anything).
_DIALECT_SHOW_WORDS = frozenset({"REPLICA", "SLAVE", "WARNINGS", "COUNT", "COUNT(*)", "REPLICAS", "DATABASES",
                                 "TABLES", "TRIGGERS", "FULL"})
_DIALECT_FIRST_WORDS = frozenset({"CHANGE", "RESET", "STOP", "EXPLAIN", "REPLAY", "LINT", "USE"})
MAX_CHARS = 64 * 1024
"""Longer text (a pasted dump) is not worth a second reader: it stays a syntax error."""


FILTER_TABLES = ("replication_applier_filters", "replication_applier_global_filters")


def reads_filter_tables_only(text: str) -> bool:
    """True for a SELECT (``statement_kind`` said so) whose tables are all performance_schema
    filter tables, and that names at least one."""
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(text, read="mysql")
    if not isinstance(tree, exp.Select):
        return False
    tables = list(tree.find_all(exp.Table))
    return bool(tables) and all(
        t.name.lower() in FILTER_TABLES and (t.db or "performance_schema").lower() == "performance_schema"
        for t in tables
    )


def statement_kind(text: str) -> str | None:
    """The kind (``SELECT``, ``SHOW``...) of an ordinary MySQL statement ``text`` is, or None
    when it is not one (a syntax error)."""
    if len(text) > MAX_CHARS or _LOOKALIKES & set(text):
        return None
    words = ascii_upper(text).split()
    if not words or words[0] in _DIALECT_FIRST_WORDS:
        return None
    if words[0] == "SHOW" and (len(words) < 2 or words[1] in _DIALECT_SHOW_WORDS or words[1].startswith("COUNT")):
        return None
    if words[0] == "START" and words[1:2] != ["TRANSACTION"]:
        return None  # START SLAVE / START GROUP_REPLICATION ...: sqlglot reads any as a transaction
    try:
        import logging

        import sqlglot
        from sqlglot.errors import ErrorLevel

        logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its "falling back to Command" notes

        tree = sqlglot.parse_one(text, read="mysql", error_level=ErrorLevel.RAISE)
    except Exception:  # ParseError, TokenError and friends: not MySQL as far as sqlglot can tell
        return None
    if tree is None or type(tree).__name__ not in _STATEMENT_NODES:
        return None
    return words[0]
