"""A column of a SELECT on the filter tables resolves against the tables its query block reads
(and the blocks around it): replication_applier_global_filters has no CHANNEL_NAME and no
COUNTER (``storage/perfschema/table_replication_applier_global_filters.cc``), so naming one there
is 1054 ``Unknown column`` in the clause it is in, inside an aggregate too
(``Item_field::fix_fields`` fails before the aggregate resolves), where replfilter took every
filter-table column as known and failed later with 1235."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings, strategies as st

from replfilter.core.errors import MySQLError
from replfilter.server.session import Session

GLOBAL = "performance_schema.replication_applier_global_filters"
CHANNEL = "performance_schema.replication_applier_filters"


def _session() -> Session:
    session = Session()
    session.execute_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL 'a'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d1)")
    return session


def _error(sql: str) -> MySQLError:
    with pytest.raises(MySQLError) as caught:
        _session().execute_text(sql)
    return caught.value


@pytest.mark.parametrize("sql, column, clause", [
    (f"SELECT SUM(COUNTER) FROM {GLOBAL}", "COUNTER", "field list"),
    (f"SELECT AVG(COUNTER) FROM {GLOBAL}", "COUNTER", "field list"),
    (f"SELECT MAX(counter), COUNT(*) FROM {GLOBAL}", "counter", "field list"),
    (f"SELECT COUNT(CHANNEL_NAME) FROM {GLOBAL}", "CHANNEL_NAME", "field list"),
    (f"SELECT COUNT(DISTINCT COUNTER) FROM {GLOBAL}", "COUNTER", "field list"),
    (f"SELECT COUNT(*) FROM {GLOBAL} WHERE COUNTER > 0", "COUNTER", "where clause"),
    (f"SELECT FILTER_NAME FROM {GLOBAL} ORDER BY MIN(COUNTER)", "COUNTER", "order clause"),
    (f"SELECT FILTER_NAME FROM {GLOBAL} GROUP BY FILTER_NAME HAVING SUM(COUNTER) > 0", "COUNTER", "having clause"),
    (f"SELECT SUM(NOPE) FROM {CHANNEL}", "NOPE", "field list"),
])
def test_a_column_the_table_lacks_is_1054_in_its_clause(sql, column, clause):
    error = _error(sql)
    assert (error.code, error.sqlstate) == (1054, "42S22")
    assert error.message == f"Unknown column '{column}' in '{clause}'"


def test_each_block_resolves_against_its_own_table():
    """A subquery on the channel table knows COUNTER though the outer query reads the global one."""
    result = _session().execute_text(
        f"SELECT FILTER_NAME FROM {GLOBAL} WHERE FILTER_NAME IN (SELECT FILTER_NAME FROM {CHANNEL} WHERE COUNTER >= 0)")
    assert result.rows == (("REPLICATE_DO_DB",),)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["SUM", "AVG", "MIN", "MAX", "COUNT"]),
       st.sampled_from(["FILTER_NAME", "FILTER_RULE", "CONFIGURED_BY", "ACTIVE_SINCE", "COUNTER", "CHANNEL_NAME"]),
       st.booleans())
def test_an_aggregate_of_a_column_resolves_as_the_column_would(function, column, global_table):
    """``f(col)`` fails with 1054 exactly when ``col`` alone would. (SUM and AVG of text, which
    MySQL reads as doubles, replfilter refuses with 1235: not asked here.)"""
    table = GLOBAL if global_table else CHANNEL
    missing = global_table and column in ("COUNTER", "CHANNEL_NAME")
    assume(missing or function not in ("SUM", "AVG") or column == "COUNTER")
    for sql in (f"SELECT {column} FROM {table}", f"SELECT {function}({column}) FROM {table}"):
        if missing:
            assert _error(sql).message == f"Unknown column '{column}' in 'field list'"
        else:
            _session().execute_text(sql)
