"""A quoted name is the same name in a SELECT on the filter tables: MySQL compares column names
and select aliases without regard to case, quoted or not (``find_field_in_table``,
``Item_field::eq``: ``my_strcasecmp(system_charset_info, ...)``; ``find_item_in_list``), so
`` `FILTER_NAME` `` in any clause runs as ``FILTER_NAME`` does (it was refused with 1235 once a
WHERE sent it to sqlglot's executor, whose optimizer keeps a quoted name's case)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from replfilter.core.errors import MySQLError

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"


def _rows(sql: str, counter: int = 3):
    result = _replica(counter).session.execute_text(sql)
    return result.columns, result.rows  # type: ignore[union-attr]


def test_a_quoted_column_with_a_where_runs_as_the_unquoted_one():
    quoted = _rows(f"SELECT `FILTER_NAME` FROM {TABLE} WHERE COUNTER>0")
    assert quoted == _rows(f"SELECT FILTER_NAME FROM {TABLE} WHERE COUNTER>0")
    assert len(quoted[1]) == 1


@pytest.mark.parametrize("quoted, plain", [
    (f"SELECT `filter_name`, `CoUnTeR` FROM {TABLE} WHERE `COUNTER` >= 1 ORDER BY `Filter_Name`",
     f"SELECT filter_name, CoUnTeR FROM {TABLE} WHERE COUNTER >= 1 ORDER BY Filter_Name"),
    (f"SELECT `CHANNEL_NAME`, COUNT(*) FROM {TABLE} WHERE `COUNTER` > 0 GROUP BY `channel_name`",
     f"SELECT CHANNEL_NAME, COUNT(*) FROM {TABLE} WHERE COUNTER > 0 GROUP BY channel_name"),
    (f"SELECT COUNTER AS `Order` FROM {TABLE} WHERE COUNTER > 0 ORDER BY `ORDER`",
     f"SELECT COUNTER AS `Order` FROM {TABLE} WHERE COUNTER > 0 ORDER BY COUNTER"),
])
def test_quoted_names_in_every_clause(quoted, plain):
    assert _rows(quoted) == _rows(plain)
    assert _rows(quoted)[1]


def test_an_alias_that_needs_its_quotes_is_named_in_any_case():
    columns, rows = _rows(f"SELECT FILTER_NAME AS `X y`, COUNT(*) FROM {TABLE} WHERE COUNTER > 0 "
                          "GROUP BY `x Y` ORDER BY `X Y`")
    assert columns == ("X y", "COUNT(*)") and len(rows) == 1


def test_an_unknown_quoted_column_is_still_1054_by_its_name():
    with pytest.raises(MySQLError) as caught:
        _rows(f"SELECT `NOPE` FROM {TABLE} WHERE `COUNTER` > 0")
    assert (caught.value.code, caught.value.message) == (1054, "Unknown column 'NOPE' in 'field list'")


def test_an_empty_result_still_knows_a_quoted_counter_is_an_integer():
    result = _replica(0).session.execute_text(f"SELECT `COUNTER` FROM {TABLE} WHERE `COUNTER` > 5")
    assert result.integer_columns == (True,)  # type: ignore[union-attr]


def _spelled(name: str) -> st.SearchStrategy[str]:
    return st.tuples(st.booleans(), st.lists(st.booleans(), min_size=len(name), max_size=len(name))).map(
        lambda spec: ("`{}`" if spec[0] else "{}").format(
            "".join(c.lower() if low else c for c, low in zip(name, spec[1]))))


@settings(max_examples=25, deadline=None)
@given(_spelled("FILTER_NAME"), _spelled("COUNTER"), _spelled("CHANNEL_NAME"), st.integers(0, 4))
def test_any_quoting_and_case_of_the_names_gives_the_same_rows(filter_name, counter, channel, value):
    template = "SELECT {f}, {c} FROM " + TABLE + " WHERE {c} >= {v} AND {ch} <> '' ORDER BY {f}"
    assert (_rows(template.format(f=filter_name, c=counter, ch=channel, v=value))[1]
            == _rows(template.format(f="FILTER_NAME", c="COUNTER", ch="CHANNEL_NAME", v=value))[1])
