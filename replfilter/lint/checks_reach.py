"""Databases left with nothing to apply (RF305), and the check every fix passes before it is
offered: it may cure findings, never add one of the kind :mod:`.reach` finds.

RF305 covers each combination of database and table rules that empties a database the
configuration names for replication (mysql-filter-evaluation.md, section 3.3, tables A and C):
a REPLICATE_DO_DB name whose tables no do-table or wild-do rule admits (Bug #12209), one whose
tables a wild-ignore pattern takes whole, and a rewrite whose target the database or table
rules drop (every event of the source database is then lost).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from ..core.filters import FilterType
from ..evaluation.events import RowEvent
from .context import View, verdict_text
from .findings import Finding, Fix
from .patterns import escape_like, tokens
from .reach import empty_databases, excluded_table_rules, problems

FT = FilterType


def offered(view: View, fix: Fix | None, cures: set[tuple] = frozenset()) -> Fix | None:  # type: ignore[assignment]
    """``fix`` when, applied, it leaves no rule that can never match and no database with
    nothing to apply that the configuration did not already have, and cures ``cures``; else
    None (a fix that leads into another finding is not offered)."""
    if fix is None:
        return None
    before = view._keys.get("problems")
    if before is None:  # the channel's own, once per view: a fix is checked against them
        before = view._keys["problems"] = problems(view)
    after = problems(view.fixed_view(fix))
    if after - before or after & set(cures):
        return None
    return fix


def _identity(view: View, ftype: FilterType, rule: object) -> tuple:
    key = tuple(map(view.key, rule)) if isinstance(rule, tuple) else view.key(str(rule))  # type: ignore[arg-type]
    return ("RF305", ftype, key)


def _table_rules_fix(view: View, empty: list[str]) -> Fix:
    """REPLICATE_DO_DB replaced by table rules, as the manual advises for these combinations:
    each emptied database becomes ``db.%`` next to the wild-do rules already there, and
    REPLICATE_IGNORE_DB goes too (next to do-db it was never consulted, RF201; without do-db it
    would start to)."""
    changes: dict[FilterType, tuple] = {FT.DO_DB: (), FT.WILD_DO_TABLE: (*view.rules(FT.WILD_DO_TABLE), *(f"{escape_like(db)}.%" for db in empty))}
    if view.rules(FT.IGNORE_DB):
        changes[FT.IGNORE_DB] = ()
    return view.fix(changes)


def check_nothing_applied(view: View) -> Iterator[Finding]:
    """RF305, one finding per database left with nothing, each quoting a row event of it that
    the evaluator skips now and applies with the fix."""
    found = empty_databases(view)
    if not found:
        return
    do_db_empty = [db for ftype, _rule, db, _why in found if ftype is FT.DO_DB]
    dead = [rule for ftype, rule, _db, _why in excluded_table_rules(view) if ftype is FT.WILD_DO_TABLE or ftype is FT.DO_TABLE]
    fix: Fix | None
    for ftype, rule, db, why in found:
        if ftype is FT.DO_DB:
            message = f"REPLICATE_DO_DB '{db}' gets nothing applied: {why}"
            if dead:
                message += (f"; {', '.join(repr(r) for r in dead[:3])} can only match tables of REPLICATE_DO_DB "
                            f"databases, and {'names' if len(dead) == 1 else 'name'} none")
            fix = offered(view, _table_rules_fix(view, do_db_empty), {_identity(view, ftype, rule)})
            no_fix = "replacing REPLICATE_DO_DB by table rules would lead into another finding here"
            example = RowEvent(view.channel, db, "t")
        elif ftype in (FT.DO_TABLE, FT.WILD_DO_TABLE):
            message = (f"{ftype.keyword} '{rule}' names database '{db}', which gets nothing applied: database rules "
                       f"are checked first and {why}")
            if view.rules(FT.DO_DB):
                fix = view.fix({FT.DO_DB: (*view.rules(FT.DO_DB), db)})
            else:
                fix = view.fix({FT.IGNORE_DB: tuple(r for r in view.rules(FT.IGNORE_DB) if view.key(str(r)) != view.key(db))})
            fix = offered(view, fix, {_identity(view, ftype, rule)})
            no_fix = "admitting the database would lead into another finding here"
            table = str(rule).partition(".")[2]
            example = RowEvent(view.channel, db, table if ftype is FT.DO_TABLE else "".join(
                ch if kind == "lit" else ("t" if kind == "any" else "x") for kind, ch in tokens(table)))
        else:
            source, target = rule  # type: ignore[misc]
            message = f"REPLICATE_REWRITE_DB ({source},{target}) sends every event of '{source}' to '{target}', which gets nothing applied: {why}"
            fix = None
            no_fix = "which rule is wrong needs the writer's intent"
            if view.rules(FT.DO_DB) and view.key(target) not in view.keys(FT.DO_DB):
                fix = offered(view, view.fix({FT.DO_DB: (*view.rules(FT.DO_DB), target)}), {_identity(view, ftype, rule)})
            example = RowEvent(view.channel, source, "t")
        finding = Finding(view.channel, "RF305", message, ftype, rule, fix)
        yield _quoted(view, finding, example, no_fix)


def _quoted(view: View, finding: Finding, example: RowEvent, no_fix: str) -> Finding:
    now = view.outcome(example)
    if finding.fix is None:
        return replace(finding, message=f"{finding.message}: rows of {example.db}.{example.table} are {verdict_text(now)}; "
                       f"no fix is offered ({no_fix}).", example_event=example)
    fixed = view.outcome(example, view.fixed_filters(finding.fix))
    return replace(finding, message=f"{finding.message}: rows of {example.db}.{example.table} are {verdict_text(now)} "
                   f"(with the fix: {verdict_text(fixed)}).", example_event=example)


__all__ = ["check_nothing_applied", "offered"]
