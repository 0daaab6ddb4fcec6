"""A DISTINCT query whose ORDER BY names a column it does not select is refused, as MySQL 8.4
refuses it under its default ONLY_FULL_GROUP_BY (``Distinct_check::check_query``,
``sql/aggregate_check.cc``): 3065 ``ER_FIELD_IN_ORDER_NOT_SELECT`` naming the column by
``full_name()``, or 3066 ``ER_AGGREGATE_IN_ORDER_NOT_SELECT`` for an aggregate met first
(``Item_sum::aggregate_check_distinct``), both SQLSTATE HY000 and "incompatible with DISTINCT"."""

from __future__ import annotations

import pytest

from replfilter.core.errors import MySQLError
from replfilter.server.session import Session

from perfschema_sessions import channels_with_do_db

TABLE = "performance_schema.replication_applier_filters"
FIELD = ("Expression #{n} of ORDER BY clause is not in SELECT list, references column '{column}' which is not in "
         "SELECT list; this is incompatible with DISTINCT")
AGGREGATE = ("Expression #{n} of ORDER BY clause is not in SELECT list, contains aggregate function; this is "
             "incompatible with DISTINCT")


@pytest.fixture(scope="module")
def session() -> Session:
    return channels_with_do_db({"ch": "db1", "x": "db2"})


@pytest.mark.parametrize("query, code, message", [
    (f"SELECT DISTINCT FILTER_NAME FROM {TABLE} ORDER BY COUNTER", 3065,
     FIELD.format(n=1, column=f"{TABLE}.COUNTER")),
    (f"SELECT DISTINCT FILTER_NAME FROM {TABLE} ORDER BY FILTER_NAME, counter DESC", 3065,
     FIELD.format(n=2, column=f"{TABLE}.COUNTER")),
    (f"SELECT DISTINCT COUNTER + 1 FROM {TABLE} ORDER BY COUNTER", 3065, FIELD.format(n=1, column=f"{TABLE}.COUNTER")),
    (f"SELECT DISTINCT FILTER_NAME, COUNTER FROM {TABLE} ORDER BY COUNTER + LENGTH(channel_name)", 3065,
     FIELD.format(n=1, column=f"{TABLE}.CHANNEL_NAME")),
    (f"SELECT DISTINCT FILTER_NAME FROM {TABLE} f ORDER BY f.COUNTER", 3065,
     FIELD.format(n=1, column="performance_schema.f.COUNTER")),
    (f"SELECT DISTINCT FILTER_NAME FROM {TABLE} GROUP BY FILTER_NAME, CHANNEL_NAME ORDER BY COUNT(*)", 3066,
     AGGREGATE.format(n=1)),
])
def test_an_order_by_outside_the_select_list_is_refused(session, query, code, message):
    with pytest.raises(MySQLError) as error:
        session.execute_text(query)
    assert (error.value.code, error.value.sqlstate, str(error.value)) == (code, "HY000", message)


@pytest.mark.parametrize("query, rows", [
    (f"SELECT DISTINCT FILTER_NAME AS f FROM {TABLE} ORDER BY f, 1, filter_name", (("REPLICATE_DO_DB",),)),
    (f"SELECT DISTINCT CHANNEL_NAME, COUNTER + 1 FROM {TABLE} ORDER BY CHANNEL_NAME DESC, COUNTER + 1",
     (("x", 1), ("ch", 1))),
    (f"SELECT DISTINCT CHANNEL_NAME AS c FROM {TABLE} ORDER BY LENGTH(CHANNEL_NAME) DESC, c", (("ch",), ("x",))),
    (f"SELECT DISTINCT * FROM {TABLE} ORDER BY COUNTER, CHANNEL_NAME DESC", None),
    (f"SELECT CHANNEL_NAME FROM {TABLE} ORDER BY COUNTER, FILTER_RULE DESC", (("x",), ("ch",))),
    (f"SELECT DISTINCT CHANNEL_NAME FROM {TABLE} GROUP BY CHANNEL_NAME ORDER BY COUNT(*), CHANNEL_NAME",
     (("ch",), ("x",))),
])
def test_an_order_by_on_selected_columns_runs(session, query, rows):
    """A position, an alias, a selected column in an expression, ``*``, no DISTINCT, or a
    DISTINCT that ``Query_block::prepare`` removed (every GROUP BY expression selected)."""
    result = session.execute_text(query)
    if rows is not None:
        assert result.rows == rows
    else:
        assert [row[0] for row in result.rows] == ["x", "ch"]
