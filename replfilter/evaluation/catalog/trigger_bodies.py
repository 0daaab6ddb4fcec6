"""What a trigger's body opens: the tables its statements write and read.

A trigger body is SQL: one statement (``INSERT INTO audit VALUES (NEW.id)``) or a compound
``BEGIN ... END`` of several, within ``IF ... THEN``, loops and labels. The server opens every
table the body names before the triggering statement runs (prelocking, sql_base.cc
``open_tables`` adds the tables of the triggers the statement may fire), so a table missing on
the replica stops the applier with 1146 whatever rows the statement touches.

Each row-changing statement of the body (INSERT, REPLACE, UPDATE, DELETE) is read by the same
readers as any statement (:mod:`..sql.readers`), so its targets and the tables it reads come out
as for a statement the source logs. A name without a database is the trigger's database.
"""

from __future__ import annotations

from functools import lru_cache

from ..events import TableRef
from ..sql.tokens import SqlEventsError, tokenize

_DML = frozenset({"INSERT", "REPLACE", "UPDATE", "DELETE"})
_STARTS_A_STATEMENT = frozenset({"BEGIN", "THEN", "ELSE", "DO", "REPEAT", "LOOP"})


@lru_cache(maxsize=4096)
def body_tables(body: str) -> tuple[TableRef, ...]:
    """The tables the body's row-changing statements name, written (``updating``) or read, in
    body order; ``db`` None when unqualified (the trigger's database)."""
    from ..sql.readers import analyse_statement  # sqlglot loads when a trigger body is first read

    try:
        tokens, _ = tokenize(body)
    except SqlEventsError:
        return ()
    out: list[TableRef] = []
    for start, end in _statements(tokens):
        text = body[tokens[start].start:tokens[end - 1].end]
        try:
            analysis = analyse_statement(text, "")
        except SqlEventsError:
            continue
        out.extend(analysis.tables)
    return tuple(out)


def _statements(tokens) -> list[tuple[int, int]]:
    """Token ranges of the row-changing statements of a body: a DML word where a statement can
    start (first, after ``;``, ``BEGIN``, ``THEN``, ``ELSE``, ``DO``, a label's ``:``...) up to
    the next ``;`` outside parentheses."""
    ranges = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        previous = tokens[i - 1] if i else None
        at_start = previous is None or previous.text in (";", ":") or previous.upper in _STARTS_A_STATEMENT
        if token.upper in _DML and token.kind == "word" and at_start:
            depth, j = 0, i
            while j < len(tokens):
                text = tokens[j].text if tokens[j].kind == "op" else ""
                if text == "(":
                    depth += 1
                elif text == ")":
                    depth -= 1
                elif text == ";" and depth <= 0:
                    break
                j += 1
            ranges.append((i, j))
            i = j
        i += 1
    return ranges
