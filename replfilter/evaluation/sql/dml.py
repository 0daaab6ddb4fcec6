"""Readers of the row-changing statements (INSERT, REPLACE, UPDATE, DELETE, their multi-table
forms, LOAD DATA): the target tables, updating, and the tables they only read.

mysql-filter-evaluation.md, section 3.2 ("Statement-kind → table list"): INSERT ... SELECT
lists the target updating and its sources not; a multi-table UPDATE lists every joined table
and marks the ones its SET assigns (the source's bitmap); a multi-table DELETE marks its delete
targets. sqlglot reads the statement; when it cannot, the tokenizer reads the head of the
single-table forms and says the multi-table forms are unknown.
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from ...core.errors import ER, error_line
from ..events import CommandKind, TableRef
from .analysis import ReaderContext, StatementAnalysis, owner_unknown
from .tokens import HeadError, TokenCursor
from .columns import resolve_set_columns
from .tree import HEAD_MODIFIERS, cte_names, from_list, parse_tree, read_tables, resolve_qualifier, tree_table_ref

CK = CommandKind

def read_dml(ctx: ReaderContext) -> StatementAnalysis:
    tree = parse_tree(ctx)
    if isinstance(tree, exp.Insert):
        return _insert_tree(ctx, tree)
    if isinstance(tree, exp.Update):
        return _update_tree(ctx, tree)
    if isinstance(tree, exp.Delete):
        return _delete_tree(ctx, tree)
    if ctx.tokens[0].upper == "WITH":
        if tree is not None:  # WITH ... SELECT: not logged
            return StatementAnalysis(CK.OTHER, logged=False, notes=("a query is not written to the binary log",))
        return StatementAnalysis(
            CK.OTHER, tables_known=False,
            notes=("cannot parse WITH ... statement; its tables are unknown",),
        )
    return read_dml_tokens(ctx)


def _insert_tree(ctx: ReaderContext, tree: exp.Insert) -> StatementAnalysis:
    target_node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if not isinstance(target_node, exp.Table) or tree_table_ref(target_node, True) is None:
        return read_dml_tokens(ctx)
    target = tree_table_ref(target_node, True)
    source = tree.expression
    is_select = source is not None and not isinstance(source, exp.Values)
    replace_ = ctx.tokens[0].upper == "REPLACE"
    if is_select:
        command = CK.REPLACE_SELECT if replace_ else CK.INSERT_SELECT
    else:
        command = CK.REPLACE if replace_ else CK.INSERT
    reads = read_tables(tree, {id(target_node)}, cte_names(tree))
    return StatementAnalysis(command, (target, *reads), parsed_by="sqlglot")  # type: ignore[arg-type]


def _update_tree(ctx: ReaderContext, tree: exp.Update) -> StatementAnalysis:
    refs = from_list(tree.this)
    if not refs:
        return read_dml_tokens(ctx)
    ctes = cte_names(tree)
    if len(refs) == 1 and not (tree.this.args.get("joins")):
        only = refs[0]
        target = tree_table_ref(only, True)
        if target is None:  # e.g. UPDATE `` — a name sqlglot cannot give; let the tokenizer judge
            return read_dml_tokens(ctx)
        reads = read_tables(tree, {id(only)}, ctes)
        return StatementAnalysis(CK.UPDATE, (target, *reads), parsed_by="sqlglot")
    assignment = resolve_set_columns(tree, refs, ctx.default_db, ctx.catalog)
    if assignment.error is not None:
        return StatementAnalysis(
            CK.UPDATE_MULTI, logged=False, source_error=assignment.error, parsed_by="sqlglot",
            notes=(f"the source refuses it ({assignment.error}): nothing is logged",),
        )
    listed = [tree_table_ref(ref, assignment.updating(ref)) for ref in refs]
    reads = read_tables(tree, {id(ref) for ref in refs}, ctes)
    analysis = StatementAnalysis(CK.UPDATE_MULTI, tuple(t for t in listed + reads if t), parsed_by="sqlglot")
    for column in assignment.unknown:
        analysis = analysis.with_note(owner_unknown(column), known=False)
    analysis = replace(analysis, unknown_owners=tuple(assignment.unknown))
    if assignment.undecidable:
        analysis = analysis.with_note(
            "multi-table UPDATE: cannot tell which table is assigned by "
            + ", ".join(assignment.undecidable) + " (the source's bitmap decides)",
            known=False,
        )
    return analysis


def _delete_tree(ctx: ReaderContext, tree: exp.Delete) -> StatementAnalysis:
    targets_nodes = tree.args.get("tables")
    using = tree.args.get("using")
    ctes = cte_names(tree)
    if not targets_nodes and not using:
        this = tree.this
        if not isinstance(this, exp.Table) or this.args.get("joins") or tree_table_ref(this, True) is None:
            return read_dml_tokens(ctx)
        reads = read_tables(tree, {id(this)}, ctes)
        return StatementAnalysis(CK.DELETE, (tree_table_ref(this, True), *reads), parsed_by="sqlglot")  # type: ignore[arg-type]
    if targets_nodes:
        targets = list(targets_nodes)
        refs = from_list(tree.this)
    else:
        targets = from_list(tree.this) or []
        refs = []
        for item in using if isinstance(using, list) else [using]:
            part = from_list(item)
            if part is None:
                refs = None
                break
            refs.extend(part)
    if not refs or not targets:
        return read_dml_tokens(ctx)
    deleting: set[int] = set()
    unknown: list[str] = []
    for target in targets:
        found = resolve_qualifier(refs, target.text("db") or None, target.name, ctx.default_db)
        if not found:  # MySQL links each target to a table of the list, or refuses the statement
            error = error_line(ER.UNKNOWN_TABLE, target.name, "MULTI DELETE")
            return StatementAnalysis(
                CK.DELETE_MULTI, logged=False, source_error=error, parsed_by="sqlglot",
                notes=(f"the source refuses it ({error}): nothing is logged",),
            )
        if len(found) != 1:
            unknown.append(target.sql("mysql"))
        else:
            deleting.add(id(found[0]))
    listed = [tree_table_ref(ref, id(ref) in deleting) for ref in refs]
    exclude = {id(ref) for ref in refs} | {id(t) for t in targets}
    reads = read_tables(tree, exclude, ctes)
    analysis = StatementAnalysis(CK.DELETE_MULTI, tuple(t for t in listed + reads if t), parsed_by="sqlglot")
    if unknown:
        analysis = analysis.with_note(
            "multi-table DELETE: target(s) " + ", ".join(unknown) + " match no single table of the FROM list",
            known=False,
        )
    return analysis


def read_dml_tokens(ctx: ReaderContext) -> StatementAnalysis:
    """Fallback when sqlglot cannot read a DML statement: the head names the target table of
    single-table forms; multi-table forms are reported as unknown."""
    cur = TokenCursor(ctx.tokens, 1)
    head = ctx.tokens[0].upper
    cur.skip_words(*HEAD_MODIFIERS)
    note = "read by the fallback tokenizer: tables the statement only reads are not listed"
    if head in ("INSERT", "REPLACE"):
        cur.accept("INTO")
        db, table = cur.qualified()
        rest = TokenCursor(ctx.tokens, cur.pos)
        if rest.accept("PARTITION"):
            rest.skip_parens()
        rest.skip_parens()  # column list (or a parenthesised SELECT)
        selects = any(
            rest.find_word(word) is not None for word in ("SELECT", "TABLE")
        ) or any(t.upper == "SELECT" for t in ctx.tokens[cur.pos : cur.pos + 3])
        if head == "INSERT":
            command = CK.INSERT_SELECT if selects else CK.INSERT
        else:
            command = CK.REPLACE_SELECT if selects else CK.REPLACE
        return StatementAnalysis(command, (TableRef(db, table),), notes=(note,))
    if head == "UPDATE":
        if cur.accept_op("("):
            return StatementAnalysis(
                CK.UPDATE_MULTI, tables_known=False,
                notes=("cannot parse this multi-table UPDATE; which tables it changes is unknown",),
            )
        db, table = cur.qualified()
        cur.accept("AS")
        if cur.peek() is not None and cur.peek().is_name and cur.word() != "SET":  # type: ignore[union-attr]
            cur.pos += 1
        if cur.word() == "SET":
            return StatementAnalysis(CK.UPDATE, (TableRef(db, table),), notes=(note,))
        return StatementAnalysis(
            CK.UPDATE_MULTI, tables_known=False,
            notes=("cannot parse this multi-table UPDATE; which tables it changes is unknown",),
        )
    if head == "DELETE" and cur.accept("FROM"):
        db, table = cur.qualified()
        if cur.accept_op(".") or cur.accept_op(","):
            return StatementAnalysis(
                CK.DELETE_MULTI, tables_known=False,
                notes=("cannot parse this multi-table DELETE; which tables it changes is unknown",),
            )
        cur.accept("AS")
        if cur.peek() is not None and cur.peek().is_name and cur.word() not in ("WHERE", "ORDER", "LIMIT", "PARTITION", "USING"):  # type: ignore[union-attr]
            cur.pos += 1
        if cur.done or cur.word() in ("WHERE", "ORDER", "LIMIT", "PARTITION"):
            return StatementAnalysis(CK.DELETE, (TableRef(db, table),), notes=(note,))
    if head == "DELETE":
        return StatementAnalysis(
            CK.DELETE_MULTI, tables_known=False,
            notes=("cannot parse this multi-table DELETE; which tables it changes is unknown",),
        )
    raise HeadError(f"cannot read the statement near {cur.near()}")


def read_load(ctx: ReaderContext) -> StatementAnalysis:
    """LOAD DATA|XML [LOW_PRIORITY|CONCURRENT] [LOCAL] INFILE 'f' [REPLACE|IGNORE] INTO TABLE t."""
    cur = TokenCursor(ctx.tokens, 2)
    cur.skip_words("LOW_PRIORITY", "CONCURRENT", "LOCAL")
    cur.expect("INFILE")
    tok = cur.peek()
    if tok is None or tok.kind != "string":
        raise HeadError("expected the file name after INFILE")
    cur.pos += 1
    cur.skip_words("REPLACE", "IGNORE")
    cur.expect("INTO")
    cur.expect("TABLE")
    db, table = cur.qualified()
    return StatementAnalysis(CK.LOAD, (TableRef(db, table),))

