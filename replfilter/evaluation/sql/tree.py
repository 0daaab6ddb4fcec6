"""Reading sqlglot's tree of a statement: which tables it names, in which order, and which
table a column qualifier designates.

sqlglot reads MySQL's dialect well enough for DML and most DDL; what it cannot read (or only
returns as a generic ``Command``) gives ``None`` here, and the reader then falls back to the
tokenizer. Names are kept as written: comparing them is the evaluator's business.
"""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from typing import Iterator, Sequence

import sqlglot
from sqlglot import exp

from ..events import TableRef
from .analysis import ReaderContext
from .tokens import Token


class _QuietSqlglot(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


@contextmanager
def quiet_sqlglot() -> Iterator[None]:
    """sqlglot warns when it falls back to a generic Command; we detect that ourselves (and the
    DDL reader, :mod:`..catalog.queries`, reports what sqlglot cannot read as the server's 1064)."""
    logger = logging.getLogger("sqlglot")
    quiet = _QuietSqlglot()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


HEAD_MODIFIERS = {"LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "QUICK", "IGNORE"}
_LITERAL_WORDS = {"NULL", "TRUE", "FALSE", "DEFAULT"}
_NUMERIC_WORD = re.compile(r"[0-9][0-9A-Za-z_]*\Z")  # 0x1F, 0b101, 5e10 (the tokenizer's words)


def _literal_rows(toks: list[Token], i: int) -> tuple[int, int] | None:
    """With ``toks[i]`` the ``(`` of an INSERT's first VALUES row: the indexes of the first and
    the last row's ``)`` when every row holds only literals (so the rows name no table)."""
    depth, first, last, k = 0, None, None, i
    while k < len(toks):
        t = toks[k]
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                first = k if first is None else first
                last = k
        elif depth == 0:
            if t.kind == "op" and t.text == ",":
                if k + 1 >= len(toks) or toks[k + 1].text != "(":
                    return None
            else:
                break  # AS alias / ON DUPLICATE KEY UPDATE / the end: the rows are over
        elif not (t.kind in ("number", "string") or (t.kind == "op" and t.text in ",+-.")
                  or t.upper in _LITERAL_WORDS or (t.kind == "word" and _NUMERIC_WORD.match(t.text))
                  or (t.kind == "word" and t.text[:1] == "_" and k + 1 < len(toks) and toks[k + 1].kind == "string")):
            return None
        k += 1
    return (first, last) if depth == 0 and first is not None and last is not None else None


def _values_edit(toks: list[Token], i: int) -> tuple[int, int, str] | None:
    """An INSERT's VALUES rows beyond the first, blanked when they hold only literals: they name
    no table, and sqlglot takes seconds over the rows of a multi-megabyte INSERT from a dump."""
    depth = 0
    for k in range(i, len(toks) - 1):
        t = toks[k]
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif depth == 0 and t.upper in ("VALUES", "VALUE") and toks[k + 1].text == "(":
            rows = _literal_rows(toks, k + 1)
            if rows is None or rows[0] == rows[1]:
                return None
            return (toks[rows[0]].end, toks[rows[1]].end, "")
        elif depth == 0 and t.upper in ("SELECT", "TABLE", "WITH", "SET"):
            return None
    return None


def _sqlglot_text(ctx: ReaderContext) -> str:
    """The statement as sqlglot can read it: executable-comment markers blanked, REPLACE read
    as INSERT, head modifiers (LOW_PRIORITY, IGNORE ...) and ``t.*`` delete targets dropped —
    none of which changes which tables a statement names."""
    edits: list[tuple[int, int, str]] = [(s, e, " " * (e - s)) for s, e in ctx.markers]
    toks = ctx.tokens
    head = toks[0].upper
    if head in ("INSERT", "REPLACE", "UPDATE", "DELETE"):
        if head == "REPLACE":
            edits.append((toks[0].start, toks[0].end, "INSERT"))
        i = 1
        while i < len(toks) and toks[i].upper in HEAD_MODIFIERS:
            edits.append((toks[i].start, toks[i].end, ""))
            i += 1
        if head in ("INSERT", "REPLACE"):
            values = _values_edit(toks, i)
            if values is not None:
                edits.append(values)
        if head == "DELETE":  # DELETE t1.* FROM ... / DELETE FROM t1.* USING ...
            depth = 0
            for k in range(i, len(toks) - 1):
                if toks[k].kind == "op" and toks[k].text in "()":
                    depth += 1 if toks[k].text == "(" else -1
                elif depth == 0 and toks[k].text == "." and toks[k + 1].text == "*" and toks[k].kind == toks[k + 1].kind == "op":
                    edits += [(toks[k].start, toks[k].end, ""), (toks[k + 1].start, toks[k + 1].end, "")]
    text = ctx.sql
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def parse_tree(ctx: ReaderContext) -> exp.Expression | None:
    """sqlglot's tree, or None when it cannot parse or only produced a generic Command (or the
    context asks for the tokenizer path)."""
    if not ctx.use_sqlglot:
        return None
    try:
        with quiet_sqlglot():
            trees = sqlglot.parse(_sqlglot_text(ctx), read="mysql")
    except Exception:  # sqlglot raises ParseError, TokenError and occasionally others
        return None
    trees = [t for t in trees if t is not None]
    if len(trees) != 1 or isinstance(trees[0], exp.Command):
        return None
    return trees[0]


def tree_table_ref(table: exp.Table, updating: bool | None) -> TableRef | None:
    name = table.name
    if not name or table.args.get("catalog") is not None:
        return None
    db = table.text("db") or None
    return TableRef(db, name, updating)


def cte_names(tree: exp.Expression) -> set[str]:
    return {cte.alias for cte in tree.find_all(exp.CTE) if cte.alias}


def read_tables(tree: exp.Expression, exclude: set[int], ctes: set[str]) -> list[TableRef]:
    """Every table the statement mentions that is not one of ``exclude`` (read, not updating)."""
    out = []
    for table in tree.find_all(exp.Table, bfs=False):
        if id(table) in exclude or not isinstance(table.this, exp.Identifier):
            continue
        if table.args.get("db") is None and (table.name in ctes or table.name.upper() == "DUAL"):
            continue
        ref = tree_table_ref(table, False)
        if ref is not None:
            out.append(ref)
    return out


def from_list(node: exp.Expression | None) -> list[exp.Table] | None:
    """Tables of a FROM/UPDATE table-reference list in written order, however deeply the join
    tree nests: MySQL resolves columns over every leaf table of the join (``t1 LEFT JOIN (t2,
    t3) ON ...``, ``t1 JOIN (t2 JOIN t3 ON ...) ON ...``; ``setup_tables`` walks the whole
    ``leaf_tables`` list, sql/sql_base.cc). sqlglot reads a parenthesised join operand as a
    ``Subquery`` over a table; a derived table is a ``Subquery`` over a query and contributes
    nothing here (its tables are read tables). None if the shape is unexpected."""
    if node is None:
        return None
    out: list[exp.Table] = []
    if isinstance(node, exp.Table):
        out.append(node)
    elif not isinstance(node, exp.Subquery):
        return None
    elif isinstance(node.this, (exp.Table, exp.Subquery)):  # a parenthesised join operand
        if node.alias:  # `(t1 JOIN t2) AS x` is no MySQL table reference
            return None
        inner = from_list(node.this)
        if inner is None:
            return None
        out.extend(inner)
    for join in node.args.get("joins") or []:
        inner = from_list(join.this)
        if inner is None:
            return None
        out.extend(inner)
    return out


def derived_aliases(node: exp.Expression | None) -> list[str]:
    """The aliases of the derived tables (``JOIN (SELECT ...) AS q``) of a join tree, however
    nested: their columns are not in any schema, so a column that may be theirs has no owner
    replfilter can name (the source may resolve it there and refuse the statement, 1288)."""
    if node is None:
        return []
    out: list[str] = []
    if isinstance(node, exp.Subquery):
        if isinstance(node.this, (exp.Table, exp.Subquery)):
            out.extend(derived_aliases(node.this))
        else:
            out.append(node.alias)
    for join in node.args.get("joins") or []:
        out.extend(derived_aliases(join.this))
    return out


def _same(a: str, b: str) -> bool:
    return a == b


def resolve_qualifier(
    refs: Sequence[exp.Table], qualifier_db: str | None, qualifier: str, default_db: str
) -> list[exp.Table]:
    """Which table(s) of the list a ``[db.]name`` qualifier designates: an alias, or an
    un-aliased table by name (and database when given). Exact match first, then
    case-insensitive (table names and aliases are case-insensitive under lctn != 0)."""
    for same in (_same, lambda a, b: a.lower() == b.lower()):
        found = []
        for ref in refs:
            alias = ref.alias
            ref_db = ref.text("db") or default_db
            if qualifier_db is not None:
                if not alias and same(ref.name, qualifier) and same(ref_db, qualifier_db):
                    found.append(ref)
            elif (alias and same(alias, qualifier)) or (not alias and same(ref.name, qualifier)):
                found.append(ref)
        if found:
            return found
    return []

