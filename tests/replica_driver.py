"""The helpers tests read a replica with: run statements, expect a failure that changes nothing,
and read the two performance_schema tables as tuples."""

from __future__ import annotations

import pytest

from replfilter.core.errors import MySQLError
from replfilter.core.results import ResultSet
from replfilter.server.session import Session
from replfilter.replica.state import ReplicaState


class ReplicaDriver:
    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def state(self) -> ReplicaState:
        return self.session.state

    def fails(self, sql: str) -> MySQLError:
        """Run a statement that must fail, and check it changed nothing."""
        before = self.state
        with pytest.raises(MySQLError) as info:
            self.session.execute_text(sql)
        assert self.state == before
        return info.value

    def rows(self, sql: str) -> list[dict[str, object]]:
        result = self.session.execute_text(sql)
        assert isinstance(result, ResultSet)
        return result.as_dicts()

    def ps(self) -> list[tuple[object, ...]]:
        """replication_applier_filters as (channel, filter, rule, configured_by, counter)."""
        return [
            (r["CHANNEL_NAME"], r["FILTER_NAME"], r["FILTER_RULE"], r["CONFIGURED_BY"], r["COUNTER"])
            for r in self.rows("SELECT * FROM performance_schema.replication_applier_filters")
        ]

    def ps_global(self) -> list[tuple[object, ...]]:
        """replication_applier_global_filters as (filter, rule, configured_by)."""
        return [
            (r["FILTER_NAME"], r["FILTER_RULE"], r["CONFIGURED_BY"])
            for r in self.rows("SELECT * FROM performance_schema.replication_applier_global_filters")
        ]
