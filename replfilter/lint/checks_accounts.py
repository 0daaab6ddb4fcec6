"""Account statements and the system schemas (RF109).

``CREATE USER``, ``ALTER USER``, ``DROP USER``, ``RENAME USER``, ``SET PASSWORD`` and ``GRANT``/
``REVOKE`` are written to the binary log as statements, whatever ``binlog_format`` says, with the
source session's default database and no table list (the ACL code logs the query text as it
ran; mysql-filter-evaluation.md, section 3.2, "no tables"). The replica therefore decides them by
that default database alone: a rule on ``mysql`` (REPLICATE_IGNORE_DB, or a wild rule on
``mysql.%``, which the manual says does not affect GRANT) does not keep them off the replica,
and under REPLICATE_DO_DB one run without a default database is dropped -- a password change
that never reaches the replica. Every verdict quoted here is the evaluator's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from ..core.filters import FilterType
from ..evaluation.evaluator import compile_filters, decide_compiled
from ..evaluation.events import CommandKind, QueryEvent
from .context import View, verdict_text
from .findings import Finding
from .patterns import escape_like, literal_db

FT = FilterType
CK = CommandKind

ACCOUNT_COMMANDS = frozenset({CK.CREATE_USER, CK.ALTER_USER, CK.DROP_USER, CK.RENAME_USER, CK.SET_PASSWORD,
                              CK.GRANT, CK.REVOKE, CK.CREATE_ROLE, CK.DROP_ROLE})
SYSTEM_SCHEMAS = ("mysql", "sys", "information_schema", "performance_schema")


def _system_rules(view: View) -> list[tuple[FilterType, object]]:
    """The channel's rules that name a system schema: what a DBA writes to keep accounts off."""
    found: list[tuple[FilterType, object]] = []
    system = {view.key(s) for s in SYSTEM_SCHEMAS}
    for ftype in (FT.IGNORE_DB, FT.DO_DB):
        found.extend((ftype, r) for r in view.rules(ftype) if view.key(str(r)) in system)
    for ftype in (FT.IGNORE_TABLE, FT.DO_TABLE):
        found.extend((ftype, r) for r in view.rules(ftype) if view.key(str(r).partition(".")[0]) in system)
    for ftype in (FT.WILD_IGNORE_TABLE, FT.WILD_DO_TABLE):
        for rule in view.rules(ftype):
            db = literal_db(str(rule))
            if db is not None and view.key(db) in system:
                found.append((ftype, rule))
    return found


def _other_db(view: View) -> str:
    taken = {view.key(str(r)) for ft in (FT.DO_DB, FT.IGNORE_DB) for r in view.rules(ft)}
    name, n = "app", 1
    while view.key(name) in taken:
        n += 1
        name = f"app{n}"
    return name


def check_account_statements(view: View) -> Iterator[Finding]:
    """RF109 from the configuration alone: a rule on a system schema does not stop account
    statements (the example runs under another default database). No filter can name them, so
    no fix; the message says what does. (REPLICATE_DO_DB dropping one is reported only for a
    workload that has one, :func:`check_account_workload`: whether accounts are meant to
    replicate is the writer's call.)"""
    system = _system_rules(view)
    if system:
        ftype, rule = system[0]
        other = _other_db(view)
        example = QueryEvent(view.channel, other, CK.CREATE_USER, (), "CREATE USER 'u'@'%'")
        outcome = view.outcome(example)
        if outcome.applied:
            names = ", ".join(f"{t.keyword} '{r}'" for t, r in system[:3])
            yield Finding(
                view.channel, "RF109",
                f"{names} does not keep account statements off the replica: CREATE USER, ALTER USER, SET PASSWORD, "
                f"GRANT, REVOKE, RENAME USER and DROP USER are logged as statements (whatever the binlog format) with "
                f"the session's default database and no table list, so they are decided by that database: "
                f"`USE {other}; CREATE USER 'u'@'%'` is {verdict_text(outcome)}; no filter names them "
                f"(run them with sql_log_bin=0 on the source, or under `USE` of a database the replica ignores)",
                ftype, rule, example_event=example,
            )


def _as_table_rules(view: View, event: QueryEvent):
    """REPLICATE_DO_DB as wild-do rules (``db.%``), when the channel has no table rules and the
    change is offered (adds no finding) and applies ``event``: a statement without a table list
    passes table rules (mysql-filter-evaluation.md, section 3.3, the gate of table C)."""
    from .checks_reach import offered

    if not view.rules(FT.DO_DB) or any(view.rules(t) for t in (FT.DO_TABLE, FT.IGNORE_TABLE, FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE)):
        return None
    changes = {FT.DO_DB: (), FT.WILD_DO_TABLE: tuple(f"{escape_like(str(db))}.%" for db in view.rules(FT.DO_DB))}
    if view.rules(FT.IGNORE_DB):
        changes[FT.IGNORE_DB] = ()
    fix = offered(view, view.fix(changes))
    return fix if fix is not None and view.outcome(event, view.fixed_filters(fix)).applied else None


def check_account_workload(view: View, workload) -> Iterator[Finding]:
    """RF109 with a workload: each account statement the channel skips (it will not reach the
    replica), and each one it applies next to a rule on a system schema (that rule was meant
    to keep it off). One finding per statement line."""
    compiled = compile_filters(view.filters, view.collation)
    system = _system_rules(view)
    for statement in workload.statements:
        events = [replace(e, channel=view.channel) for e in statement.statement_events]
        if not events or not all(isinstance(e, QueryEvent) and e.command in ACCOUNT_COMMANDS for e in events):
            continue
        decision = decide_compiled(compiled, events[0])
        sql = statement.sql if len(statement.sql) <= 80 else statement.sql[:77] + "..."
        meant = system and view.key(events[0].default_db) in {view.key(s) for s in SYSTEM_SCHEMAS}
        fix = None
        if not decision.applied and decision.decision is not None and not meant:
            fix = _as_table_rules(view, events[0])
            message = (f"{workload.path}, line {statement.line}: `{sql}` is skipped ({decision.reason}): the account "
                       f"change does not reach the replica (account statements are always logged as statements and "
                       f"decided by the default database)"
                       + ("; as table rules, statements without a table list are applied" if fix is not None else ""))
        elif decision.applied and system:
            ftype, rule = system[0]
            why = ("table rules never see them: they have no table list" if ftype.is_table_type
                   else f"they are decided by the session's default database ('{events[0].default_db}')")
            message = (f"{workload.path}, line {statement.line}: `{sql}` is applied although {ftype.keyword} '{rule}' "
                       f"names a system schema: {why}")
        else:
            continue
        ftype = decision.filter_type or (system[0][0] if system else FT.DO_DB)
        yield Finding(view.channel, "RF109", message, ftype, decision.rule, fix, location=(workload.path, statement.line))


__all__ = ["ACCOUNT_COMMANDS", "check_account_statements", "check_account_workload"]
