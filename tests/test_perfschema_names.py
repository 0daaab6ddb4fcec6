"""Result column names of the grammar's own SELECT on the filter tables (the path that does not
go through sqlglot): the server names an unaliased item by its text as typed
(``PTI_expr_with_alias::itemize``, ``sql/parse_tree_items.cc``: ``item_name.copy`` of the
expression's span of the query), and a column by its name as typed (``Item_ident``'s name is
the identifier the parser read)."""

from __future__ import annotations

import pytest

from replfilter.dialect import ast
from replfilter.dialect.parser import parse_statement
from replfilter.dialect.printer import to_sql
from replfilter.server.session import Session

TABLE = "performance_schema.replication_applier_filters"


@pytest.mark.parametrize("item, name", [
    ("count(*)", "count(*)"),
    ("COUNT(*)", "COUNT(*)"),
    ("Count( * )", "Count( * )"),
    ("count(\t*)", "count(\t*)"),
    ("channel_name", "channel_name"),
    ("Channel_Name, filter_rule", ("Channel_Name", "filter_rule")),
    ("`channel_name`", "channel_name"),
])
def test_own_select_names_items_as_typed(item: str, name: str | tuple[str, ...]) -> None:
    statement = parse_statement(f"SELECT {item} FROM {TABLE} WHERE CHANNEL_NAME <> 'x'")
    assert isinstance(statement, ast.SelectPerformanceSchema)  # the grammar's own path
    result = Session().execute_text(f"SELECT {item} FROM {TABLE} WHERE CHANNEL_NAME <> 'x'")
    assert result.columns == (name if isinstance(name, tuple) else (name,))  # type: ignore[union-attr]


def test_count_name_survives_printing() -> None:
    statement = parse_statement(f"select count( *) from {TABLE}")
    assert isinstance(statement, ast.SelectPerformanceSchema) and statement.count_name == "count( *)"
    assert parse_statement(to_sql(statement)) == statement


def test_count_name_per_statement_of_a_script() -> None:
    session = Session()
    names = [session.execute_text(sql).columns for sql in (f"SELECT count(*) FROM {TABLE}",  # type: ignore[union-attr]
                                                            f"SELECT COUNT(  *) FROM {TABLE}")]
    assert names == [("count(*)",), ("COUNT(  *)",)]
