"""ONLY_FULL_GROUP_BY on a SELECT over the filter tables, as MySQL 8.4 checks it under its
default ``sql_mode`` (replfilter does not read the session's ``sql_mode`` here).

``Group_check::check_query`` (``sql/aggregate_check.cc``) runs on a grouped query block (GROUP
BY, or an aggregate: implicitly grouped). It checks each SELECT list item in order, then, for a
query with GROUP BY, each ORDER BY item that is not in the SELECT list: an item equal to a GROUP
BY expression passes; else each column in it outside an aggregate must be functionally dependent
(FD) on the GROUP BY columns. The FD columns start as the GROUP BY columns and grow through the
WHERE clause's top-level ``=`` conjuncts whose other side is a constant or an FD column
(``analyze_scalar_eq``); the filter tables have no unique key to add more. The first column
that fails is reported by its ``full_name()`` (``schema.table.COLUMN``, the table's alias when
it has one, the column as the table spells it) with its item's number and clause:

* with GROUP BY: 1055, the number of ``ER_WRONG_FIELD_WITH_GROUP`` with the text of its ``_V2``;
* without: 1140, the number of ``ER_MIX_OF_GROUP_FUNC_AND_FIELDS`` with the text of its ``_V2``
  (an implicitly grouped query has no ORDER BY left to check).

HAVING's names resolve to the SELECT list or GROUP BY (:mod:`.perfschema_having`), which were
checked already, so HAVING adds no failure here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import ER, MySQLError

if TYPE_CHECKING:
    from sqlglot import exp


def resolve_group_references(tree: "exp.Expr", columns: tuple[str, ...]) -> None:
    """GROUP BY a position, or a name that is a select alias and not one of the table's
    ``columns``, groups by that select item's expression (``find_order_in_list``: for GROUP BY a
    column of the table wins over an alias): replaced by it, so that the check and the
    collation see what is grouped. A position outside the list, or of ``*``, is left alone."""
    from sqlglot import exp

    group = tree.args.get("group")
    items = tree.expressions
    for item in list(group.expressions) if group is not None else ():
        target = None
        if isinstance(item, exp.Literal) and not item.is_string and item.this.isdigit():
            position = int(item.this)
            if 1 <= position <= len(items) and not isinstance(items[position - 1], exp.Star):
                target = items[position - 1]
        elif isinstance(item, exp.Column) and not item.table and item.name.upper() not in columns:
            target = next((e for e in items if isinstance(e, exp.Alias) and e.alias.upper() == item.name.upper()), None)
        if target is not None:
            item.replace((target.this if isinstance(target, exp.Alias) else target).copy())


def check_group_by(tree: "exp.Expr", schema: str, columns: tuple[str, ...]) -> frozenset[str]:
    """Raise 1140 or 1055 as the server would for ``tree`` (a parsed SELECT on one filter
    table, its columns ``columns``); else the columns WHERE makes FD that GROUP BY does not
    name (one value per group: :func:`take_dependents` lets the executor run them), empty
    for a query that is not grouped."""
    from sqlglot import exp

    group = tree.args.get("group")
    group_items = list(group.expressions) if group is not None else []
    having = tree.args.get("having")
    if not group_items and not any(e.find(exp.AggFunc) for e in (*tree.expressions, *([having] if having else []))):
        return frozenset()  # not grouped
    table = tree.find(exp.Table)
    table_name = (table.alias or table.name) if table is not None else ""
    fd = {c.name.upper() for g in group_items for c in [g] if isinstance(c, exp.Column)}
    dependents = _where_dependents(tree.args.get("where"), fd)
    fd |= dependents
    grouped_texts = {_key(g) for g in group_items}
    failure = None
    for number, item in enumerate(_select_items(tree, columns), 1):
        failure = _failed_column(item, grouped_texts, fd)
        if failure is not None:
            place = "SELECT list"
            break
    if failure is None and group_items and tree.args.get("order") is not None:
        selected = {_key(e.this if isinstance(e, exp.Alias) else e) for e in tree.expressions}
        aliases = {e.alias.upper() for e in tree.expressions if isinstance(e, exp.Alias)}
        for number, ordered in enumerate(tree.args["order"].expressions, 1):
            item = ordered.this
            if _key(item) in selected or (isinstance(item, exp.Column) and item.name.upper() in aliases):
                continue  # in the SELECT list, checked there (find_item_in_list)
            if isinstance(item, exp.Literal) and not item.is_string:
                continue  # a position in the SELECT list
            failure = _failed_column(item, grouped_texts, fd)
            if failure is not None:
                place = "ORDER BY clause"
                break
    if failure is None:
        return frozenset(dependents)
    name = f"{schema}.{table_name}.{failure}"
    if group_items:
        raise MySQLError.of(ER.WRONG_FIELD_WITH_GROUP, number, place, name)
    raise MySQLError.of(ER.MIX_OF_GROUP_FUNC_AND_FIELDS, number, place, name)


def _key(node: "exp.Expr") -> str:
    """An expression compared as ``Item::eq`` does, near enough: its text, names upper-cased."""
    from sqlglot import exp

    copy = node.copy()
    for column in copy.find_all(exp.Column):
        column.replace(exp.column(column.name.upper()))
    return copy.sql(dialect="mysql")


def _select_items(tree: "exp.Expr", columns: tuple[str, ...]) -> "list[exp.Expr]":
    """The SELECT list with ``*`` expanded into the table's columns, as the server numbers it."""
    from sqlglot import exp

    items: list[exp.Expr] = []
    for expression in tree.expressions:
        if isinstance(expression, exp.Star) or (isinstance(expression, exp.Column) and isinstance(expression.this, exp.Star)):
            items.extend(exp.column(c) for c in columns)
        else:
            items.append(expression.this if isinstance(expression, exp.Alias) else expression)
    return items


def _failed_column(item: "exp.Expr", grouped: set[str], fd: set[str]) -> str | None:
    """The first column of ``item`` outside an aggregate that is not FD, as the table names it;
    None when the item equals a GROUP BY expression or every such column is FD."""
    from sqlglot import exp

    if _key(item) in grouped:
        return None
    for column in item.find_all(exp.Column):
        if column.find_ancestor(exp.AggFunc) is not None:
            continue
        if column.name.upper() not in fd:
            return column.name.upper()
    return None


def _where_dependents(where: "exp.Expr | None", fd: set[str]) -> set[str]:
    """Columns made FD by WHERE's top-level ``col = constant`` and ``col = FD column``
    conjuncts, to a fixed point (``find_fd_in_cond``: only ``=``, only AND-ed parts)."""
    from sqlglot import exp

    if where is None:
        return set()
    condition = where.this
    while isinstance(condition, exp.Paren):
        condition = condition.this
    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    known = set(fd)
    changed = True
    while changed:
        changed = False
        for conjunct in conjuncts:
            while isinstance(conjunct, exp.Paren):
                conjunct = conjunct.this
            if not isinstance(conjunct, exp.EQ):
                continue
            for left, right in ((conjunct.this, conjunct.expression), (conjunct.expression, conjunct.this)):
                if isinstance(right, exp.Column) and right.name.upper() not in known and (
                        not any(True for _ in left.find_all(exp.Column)) and left.find(exp.AggFunc) is None
                        or isinstance(left, exp.Column) and left.name.upper() in known):
                    known.add(right.name.upper())
                    changed = True
    return known - fd


def take_dependents(tree: "exp.Expr", dependents: frozenset[str]) -> None:
    """Each select item's use of a column WHERE fixed (``SELECT CHANNEL_NAME, COUNT(*) ... WHERE
    CHANNEL_NAME = 'x'``) read as ``MAX`` of it: the one value the group has (NULL for an
    implicitly grouped query over no rows, as the server's row then shows), in a form
    sqlglot's executor runs. A bare column keeps its name as an alias, for ORDER BY."""
    from sqlglot import exp

    if not dependents:
        return
    for index, expression in enumerate(list(tree.expressions)):
        inner = expression.this if isinstance(expression, exp.Alias) else expression
        if isinstance(inner, exp.Column) and inner.name.upper() in dependents:
            taken = exp.Max(this=inner.copy())
            alias = expression.alias if isinstance(expression, exp.Alias) else inner.name
            tree.expressions[index].replace(exp.alias_(taken, alias))
            continue
        for column in list(inner.find_all(exp.Column)):
            if column.name.upper() in dependents and column.find_ancestor(exp.AggFunc) is None:
                column.replace(exp.Max(this=column.copy()))


def check_distinct_order(tree: "exp.Expr", schema: str, columns: tuple[str, ...]) -> None:
    """3065 or 3066 for a DISTINCT query whose ORDER BY could order its rows at random, as MySQL
    8.4 checks it after ``Group_check`` under ONLY_FULL_GROUP_BY (``Distinct_check::check_query``,
    ``sql/aggregate_check.cc``, in ``Query_block::check_only_full_group_by``).

    Each ORDER BY item not in the SELECT list (a position, a select alias, or an expression
    ``find_item_in_list`` finds equal to a select item) is walked prefix: its first column that
    is not itself a select item fails with ``ER_FIELD_IN_ORDER_NOT_SELECT`` (``full_name()``:
    ``schema.table.COLUMN``, "DISTINCT"), and an aggregate of this query block met before any
    such column with ``ER_AGGREGATE_IN_ORDER_NOT_SELECT`` (``Item_sum::aggregate_check_distinct``);
    ``ANY_VALUE(...)`` is never walked into. The check has no DISTINCT to check where
    ``Query_block::prepare`` removed it: a grouped query selecting every GROUP BY expression,
    and an implicitly grouped one (one row: its ORDER BY is dropped). A subquery in ORDER BY
    is not walked into (its columns are its own block's; an outer reference there is not
    checked: a documented gap)."""
    from sqlglot import exp

    order = tree.args.get("order")
    if not tree.args.get("distinct") or order is None:
        return
    selected = _select_items(tree, columns)
    selected_keys = {_key(item) for item in selected}
    group = tree.args.get("group")
    group_items = list(group.expressions) if group is not None else []
    if group_items and all(_key(g) in selected_keys for g in group_items):
        tree.set("distinct", None)  # redundant: removed, as prepare removes it (the executor then runs it)
        return
    having = tree.args.get("having")
    if not group_items and any(e.find(exp.AggFunc) for e in (*tree.expressions, *([having] if having else []))):
        return  # implicitly grouped: one row, no ORDER BY left
    aliases = {e.alias.upper() for e in tree.expressions if isinstance(e, exp.Alias)}
    selected_columns = {item.name.upper() for item in selected if isinstance(item, exp.Column)}
    table = tree.find(exp.Table)
    table_name = (table.alias or table.name) if table is not None else ""
    for number, ordered in enumerate(order.expressions, 1):
        item = ordered.this
        if isinstance(item, exp.Literal) and not item.is_string:
            continue  # a position in the SELECT list
        if _key(item) in selected_keys or (isinstance(item, exp.Column) and item.name.upper() in aliases):
            continue  # in the SELECT list
        failure = _first_unselected(item, selected_columns)
        if failure is None:
            continue
        if isinstance(failure, exp.Column):
            raise MySQLError.of(ER.FIELD_IN_ORDER_NOT_SELECT, number, f"{schema}.{table_name}.{failure.name.upper()}",
                                "DISTINCT")
        raise MySQLError.of(ER.AGGREGATE_IN_ORDER_NOT_SELECT, number, "DISTINCT")


def _first_unselected(item: "exp.Expr", selected_columns: set[str]) -> "exp.Expr | None":
    """The first node of ``item``, prefix and left to right (``Item::walk`` with WALK_PREFIX),
    that fails the DISTINCT check: a column not selected itself, or an aggregate."""
    from sqlglot import exp

    if isinstance(item, (exp.Select, exp.Subquery, exp.AnyValue)) or (
            isinstance(item, exp.Anonymous) and str(item.this).upper() == "ANY_VALUE"):
        return None  # ANY_VALUE: Item_func_any_value::aggregate_check_distinct stops the walk
    if isinstance(item, exp.AggFunc):
        return item
    if isinstance(item, exp.Column):
        return None if item.name.upper() in selected_columns else item
    for child in item.iter_expressions():
        found = _first_unselected(child, selected_columns)
        if found is not None:
            return found
    return None
