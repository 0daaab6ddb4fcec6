"""What sqlglot reads of DDL the quick readers leave: a ``CREATE TABLE`` body with more than
column and key definitions, and the query of a view or of ``CREATE TABLE ... SELECT``, whose
output columns and base tables are resolved against the catalog being changed.

sqlglot is imported on first use: a plain mysqldump never needs it (:mod:`.text`).
Choice (README, "Where replfilter chooses"): a view's columns are its select list's names, with
``*`` and ``t.*`` expanded from the catalog.
"""

from __future__ import annotations

from ...core.filters import fold_case
from ...replica.catalog import CatalogBuilder, TableDef
from .ddl_errors import Refused, SqlSyntaxError, no_such_table, unknown_table
from .text import add_column


def parse(text: str):
    """One statement read by sqlglot's MySQL dialect; text sqlglot cannot read is a syntax
    error (the server's 1064 or a construct neither reads: either way the statement is not
    applied, and the caller reports it)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    from ..sql.tree import quiet_sqlglot

    try:
        with quiet_sqlglot():
            tree = sqlglot.parse_one(text, read="mysql")
    except (SqlglotError, RecursionError, ValueError):
        raise SqlSyntaxError from None
    if isinstance(tree, exp.Command):
        raise SqlSyntaxError
    return tree


def table_columns(builder: CatalogBuilder, text: str, db: str) -> tuple[str, ...]:
    """A ``CREATE TABLE``'s defined columns, then a ``... SELECT``'s output columns not already
    defined."""
    from sqlglot import exp

    tree = parse(text)
    if not isinstance(tree, exp.Create):
        raise SqlSyntaxError
    columns: list[str] = []
    folded: set[str] = set()
    if isinstance(tree.this, exp.Schema):
        for element in tree.this.expressions:
            if isinstance(element, exp.ColumnDef):
                add_column(columns, folded, element.name)
    query = tree.expression
    if query is not None:
        for column in query_columns(builder, query, db):
            if fold_case(column) not in folded:
                folded.add(fold_case(column))
                columns.append(column)
    return tuple(columns)


def query_columns(builder: CatalogBuilder, query, db: str) -> list[str]:
    """The output column names of a query: alias, column name, or the expression's text;
    ``*`` and ``t.*`` expanded from the catalog."""
    from sqlglot import exp

    select = query
    while isinstance(select, exp.SetOperation):           # a UNION is named by its first part
        select = select.this
    if isinstance(select, exp.Subquery):
        select = select.this
    if not isinstance(select, exp.Select):
        return []
    sources = _query_sources(builder, select, db)
    out: list[str] = []
    for projection in select.expressions:
        if isinstance(projection, exp.Star):
            for table in sources.values():
                out.extend(table.columns)
        elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
            table = sources.get(builder.key(projection.table))
            if table is None:
                raise Refused(unknown_table(projection.table))
            out.extend(table.columns)
        elif isinstance(projection, exp.Alias):
            out.append(projection.alias)
        elif isinstance(projection, exp.Column):
            out.append(projection.name)
        else:
            out.append(projection.sql(dialect="mysql"))
    return out


def _query_sources(builder: CatalogBuilder, select, db: str) -> dict[str, TableDef]:
    """The FROM/JOIN tables of a select, by the name the query calls them (alias or name)."""
    from sqlglot import exp

    found: dict[str, TableDef] = {}
    ctes = {fold_case(c.alias) for c in select.find_all(exp.CTE)}
    from_ = select.args.get("from") or select.args.get("from_")
    nodes = ([from_.this] if from_ is not None else []) + [j.this for j in select.args.get("joins") or []]
    for node in nodes:
        if not isinstance(node, exp.Table) or (not node.db and fold_case(node.name) in ctes):
            continue
        table_db = node.db or db
        table = builder.table(table_db, node.name)
        if table is None:
            raise Refused(no_such_table(table_db, node.name))
        found[builder.key(node.alias_or_name)] = table
    return found


def base_tables(builder: CatalogBuilder, query, db: str) -> tuple[tuple[str, str], ...]:
    """Every table a view's query reads (CTEs excluded), each once, as the catalog spells it;
    a table that does not exist refuses the view."""
    from sqlglot import exp

    ctes = {fold_case(c.alias) for c in query.find_all(exp.CTE)}
    out: list[tuple[str, str]] = []
    for node in query.find_all(exp.Table):
        if not node.name or (not node.db and fold_case(node.name) in ctes):
            continue
        table_db = node.db or db
        found = builder.table(table_db, node.name)
        if found is None:
            raise Refused(no_such_table(table_db, node.name))
        pair = (found.db, found.name)
        if pair not in out:
            out.append(pair)
    return tuple(out)
