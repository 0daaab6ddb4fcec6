"""The session's state after a stream batch: what a batch decided with one state does to the
state the session has by then (:mod:`.stream`)."""

from __future__ import annotations

from dataclasses import replace

from ..evaluation.evaluator import with_counts
from ..replica.state import ReplicaState
from ..server.session import wall_clock_us
from .exact_path import BatchDecisions


def after_batch(
    current: ReplicaState, state: ReplicaState, decisions: BatchDecisions, sql_errors: dict[str, tuple[int, str]]
) -> ReplicaState:
    """The session's state after a batch decided with ``state``: COUNTERs moved; the replica's
    catalog as the batch's applied DDL left it (unless it was replaced meanwhile, e.g. by LOAD
    SCHEMA, which then wins); and, per channel with none yet, the first error its applier would
    stop on as ``Last_SQL_Errno``/``Last_SQL_Error`` (as REPLAY EVENTS sets them)."""
    if decisions.counts:
        current = with_counts(current, decisions.counts, decided_with=state)
    if decisions.replica_catalog is not None and current.replica_catalog is state.replica_catalog:
        current = current.with_replica_catalog(decisions.replica_catalog)
    for name, error in sql_errors.items():
        channel = current.channel(name)
        if channel is not None and channel.last_sql_error is None:
            current = current.with_channel(replace(channel, last_sql_error=error, last_sql_error_at=wall_clock_us()))
    return current


__all__ = ["after_batch"]
