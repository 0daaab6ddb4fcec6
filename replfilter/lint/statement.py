"""``LINT REPLICATION [FOR CHANNEL 'c']`` (replfilter extension, not MySQL): the findings of
``replfilter lint`` for the session's current filters, one row each.

The binary-log format is not known to a session, so the checks that depend on it report as if
statements may arrive (as ``replfilter lint`` does without ``--binlog-format``).
"""

from __future__ import annotations

from ..core.errors import ER, MySQLError
from ..core.filters import display_rules
from ..core.results import ResultSet
from ..dialect import ast
from ..replica.state import ReplicaState
from .linter import LintOptions, lint_state

LINT_COLUMNS = ("Channel", "Level", "Code", "Name", "Filter", "Rule", "Message", "Fix")


def lint_replication(state: ReplicaState, stmt: ast.LintReplication) -> ResultSet:
    if stmt.channel is not None and state.channel(stmt.channel) is None:
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, stmt.channel)
    findings = lint_state(state, LintOptions(channel=stmt.channel))
    rows = tuple(
        (
            f.channel,
            f.level.value,
            f.code,
            f.name,
            f.ftype.keyword if f.ftype is not None else None,
            display_rules(f.ftype, (f.rule,)) if f.ftype is not None and f.rule is not None else None,
            f.message,
            f.fix_text,
        )
        for f in findings
    )
    return ResultSet(LINT_COLUMNS, rows)
