"""HAVING in a SELECT on the filter tables, as MySQL 8.4 resolves and applies it.

* An identifier in HAVING outside an aggregate is an ``Item_ref``, not a column of the table
  (``PTI_simple_ident_ident::itemize``, ``sql/parse_tree_items.cc``: ``parsing_place ==
  CTX_HAVING`` and ``get_in_sum_expr() == 0``). ``Item_ref::fix_fields`` (``sql/item.cc``)
  resolves it with ``resolve_ref_in_select_and_group``: the select list first
  (``find_item_in_list``, ``sql/sql_base.cc``: an alias, else a column by its own name even
  behind an alias, ``RESOLVED_BEHIND_ALIAS``; ``*`` selects every column), then GROUP BY; with neither, and no outer query, it is 1054 ``Unknown column 'x' in
  'having clause'``. Inside an aggregate the identifier is the table's column (``Item_field``).
* Without GROUP BY and without an aggregate the query is not grouped, and HAVING filters each
  row after WHERE, before ORDER BY and LIMIT (``JOIN::optimize`` keeps it as the having
  condition of the one query block). Each reference stands for its select item, evaluated on
  the same row, so replfilter applies HAVING as a WHERE conjunct over the referenced items
  (:func:`having_as_where`). sqlglot's executor applies HAVING only in its aggregation step,
  and an aggregate query (with an aggregate, or GROUP BY) keeps it there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlglot import exp


def in_aggregate(node: "exp.Expr") -> bool:
    from sqlglot import exp

    return node.find_ancestor(exp.AggFunc) is not None


def having_target(tree: "exp.Expr", column: "exp.Column", columns: tuple[str, ...] | None = None) -> "exp.Expr | None":
    """What a HAVING reference stands for: the select item it names (an alias's expression, a
    selected column; under ``*`` each of the table's ``columns``, every name when not given),
    else a GROUP BY column of that name; None when neither has it (1054)."""
    from sqlglot import exp

    name = column.name.upper()
    for expression in tree.expressions:  # an alias first (RESOLVED_AGAINST_ALIAS ends the search)
        if isinstance(expression, exp.Alias) and expression.alias.upper() == name:
            return expression.this
    for expression in tree.expressions:  # then a column, named or behind its alias
        if isinstance(expression, exp.Star):
            if columns is None or name in columns:
                return exp.column(column.name)
            continue
        inner = expression.this if isinstance(expression, exp.Alias) else expression
        if isinstance(inner, exp.Column) and inner.name.upper() == name:
            return inner
    group = tree.args.get("group")
    for expression in group.expressions if group is not None else ():
        if isinstance(expression, exp.Column) and expression.name.upper() == name:
            return expression
    return None


def having_as_where(tree: "exp.Expr") -> None:
    """A HAVING of a query that is not grouped (no GROUP BY, no aggregate) becomes a WHERE
    conjunct, each reference replaced by the select item it names: the same rows in the same
    order, as the server's per-row HAVING gives."""
    from sqlglot import exp

    having = tree.args.get("having")
    if having is None or tree.args.get("group") is not None:
        return
    if any(e.find(exp.AggFunc) for e in (*tree.expressions, having)):
        return
    condition = exp.Paren(this=having.this.copy())
    for column in list(condition.find_all(exp.Column)):
        target = having_target(tree, column)
        if target is not None:  # _check_columns refused the others already
            column.replace(target.copy() if isinstance(target, exp.Column) else exp.Paren(this=target.copy()))
    tree.set("having", None)
    tree.where(condition, append=True, copy=False)


def grouped_by_having(tree: "exp.Expr") -> int:
    """An aggregate in HAVING makes a query without GROUP BY implicitly grouped, one row (the
    server's ``Query_block::is_implicitly_grouped`` counts HAVING's aggregates too); sqlglot's
    executor groups only for an aggregate in the select list. So HAVING's aggregates are added
    to the select list when it has none; returns how many, for the caller to drop."""
    from sqlglot import exp

    having = tree.args.get("having")
    if having is None or tree.args.get("group") is not None or any(e.find(exp.AggFunc) for e in tree.expressions):
        return 0
    aggregates = list(having.find_all(exp.AggFunc))
    for number, aggregate in enumerate(aggregates):
        tree.select(exp.alias_(aggregate.copy(), f"_rf_having_{number}"), append=True, copy=False)
    return len(aggregates)
