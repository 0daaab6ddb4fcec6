"""Rewrite order and binary-log format: RF102 (a rule on the old name of a rewritten database),
RF103 (rewrite under statement format) and RF104 (database rules under statement format).

mysql-filter-evaluation.md, section 6: the rewrite runs first, so every later rule sees the new
name; under STATEMENT only the default database is rewritten, and database rules look at the
default database (section 3.2), not at the database a statement writes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from ..core.filters import FilterType
from ..evaluation.events import CommandKind, QueryEvent, RowEvent, TableRef
from .context import View, table_db, verdict_text
from .findings import Finding
from .patterns import escape_like, tokens

FT = FilterType


def sql_name(name: str) -> str:
    """A name as it would be written in SQL: bare when it can be, backticked otherwise."""
    import re

    from ..dialect.lexical import quote_identifier

    return name if re.fullmatch(r"[A-Za-z0-9_$]+", name) and not name.isdigit() else quote_identifier(name)


def statement_possible(binlog_format: str | None) -> bool:
    """Unless the source is known to log rows, statements may arrive (None: not known)."""
    return binlog_format != "ROW"


def _split_wild_db(pattern: str) -> tuple[str, str] | None:
    """``a.%`` -> (``a``, ``%``): the raw text around the first literal dot, when the part
    before it has no wildcard."""
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            i += 2
            continue
        if ch in "%_":
            return None
        if ch == ".":
            return pattern[:i], pattern[i + 1:]
        i += 1
    return None


def _unescape(text: str) -> str:
    return "".join(ch for _, ch in tokens(text))


def check_rule_on_old_name(view: View) -> Iterator[Finding]:
    """RF102: REW(a->b) plus a database or table rule naming ``a``. Each fix renames the rule;
    when that alone would leave the new rule excluded by another rule on the old name (do-db
    ``a`` next to do-table ``a.t``), the fix renames every rule on the old names at once, and
    it is offered only if the result adds no finding (:func:`~.checks_reach.offered`)."""
    from .checks_reach import offered

    rewrites = view.rules(FT.REWRITE_DB)
    if not rewrites:
        return
    targets = {view.key(dst) for _src, dst in rewrites}  # type: ignore[misc]
    first: dict[str, tuple[str, str]] = {}
    for rule in rewrites:
        first.setdefault(view.key(rule[0]), rule)  # type: ignore[index]
    pending = {key: rule for key, rule in first.items() if key not in targets and key != view.key(rule[1])}
    if not pending:
        return  # every rewritten name is also produced by some rewrite: rules on it can match
    found: list[tuple[FilterType, object, object, str, RowEvent]] = []  # (type, rule, new rule, message, example)
    for ftype in (FT.DO_DB, FT.IGNORE_DB):
        for rule in view.rules(ftype):
            hit = pending.get(view.key(str(rule)))
            if hit is None:
                continue
            source, target = hit
            message = (
                f"REPLICATE_REWRITE_DB ({source},{target}) runs before {ftype.keyword}, which therefore sees "
                f"'{target}' and never '{source}'; {ftype.keyword} '{target}' was probably meant"
            )
            found.append((ftype, rule, target, message, RowEvent(view.channel, source, "t")))
    for ftype in (FT.DO_TABLE, FT.IGNORE_TABLE):
        for rule in view.rules(ftype):
            db, table = table_db(str(rule))
            hit = pending.get(view.key(db))
            if hit is None:
                continue
            new = f"{hit[1]}.{table}"
            found.append((ftype, rule, new, _table_message(hit, ftype, rule, new), RowEvent(view.channel, hit[0], table)))
    for ftype in (FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE):
        for rule in view.rules(ftype):
            split = _split_wild_db(str(rule))
            hit = pending.get(view.key(_unescape(split[0]))) if split is not None else None
            if hit is None or split is None:
                continue
            new = f"{escape_like(hit[1])}.{split[1]}"
            table = "".join(ch if kind == "lit" else ("t" if kind == "any" else "x") for kind, ch in tokens(split[1]))
            found.append((ftype, rule, new, _table_message(hit, ftype, rule, new), RowEvent(view.channel, hit[0], table)))
    every: dict[FilterType, tuple] = {}
    for ftype, rule, new, _message, _example in found:
        every[ftype] = view.replaced(ftype, rule, [new]) if ftype not in every else tuple(
            new if r == rule else r for r in every[ftype])
    combined = view.fix(every)
    for ftype, rule, new, message, example in found:
        single = view.fix({ftype: view.replaced(ftype, rule, [new])})
        fix = offered(view, single) or offered(view, combined)
        if fix is None:
            message += "; renaming it alone would leave it excluded by the other rules, so no fix is offered"
        yield _quoted(view, Finding(view.channel, "RF102", message, ftype, rule, fix), example)


def _table_message(rewrite: tuple[str, str], ftype: FilterType, rule: object, new: str) -> str:
    source, target = rewrite
    return (
        f"REPLICATE_REWRITE_DB ({source},{target}) runs before {ftype.keyword}: row events of '{source}' arrive as '{target}', so "
        f"'{rule}' never matches them (under STATEMENT format it still matches a name qualified with "
        f"'{source}' in the SQL text, which is not rewritten); '{new}' was probably meant"
    )


def _quoted(view: View, finding: Finding, example: RowEvent) -> Finding:
    if finding.fix is None:
        return replace(finding, message=finding.message + ".")
    now = view.outcome(example)
    fixed = view.outcome(example, view.fixed_filters(finding.fix))
    if verdict_text(now) == verdict_text(fixed):
        return replace(finding, message=finding.message + ".")
    return replace(
        finding,
        message=f"{finding.message}: rows of {example.db}.{example.table} are {verdict_text(now)} "
        f"(with the fix: {verdict_text(fixed)}).",
        example_event=example,
    )


def _other_db(view: View, *avoid: str) -> str:
    taken = {view.key(str(r)) for ft in (FT.DO_DB, FT.IGNORE_DB) for r in view.rules(ft)} | {view.key(a) for a in avoid}
    name, n = "other", 1
    while view.key(name) in taken:
        n += 1
        name = f"other{n}"
    return name


def check_rewrite_statement_format(view: View, binlog_format: str | None) -> Iterator[Finding]:
    """RF103: a rewrite rule while the source may log statements."""
    if not statement_possible(binlog_format):
        return
    fmt = "the source may log STATEMENT or MIXED format (use --binlog-format ROW if it logs rows)" if binlog_format is None else f"the binlog format is {binlog_format}"
    for rule in view.rules(FT.REWRITE_DB):
        source, target = rule  # type: ignore[misc]
        other = _other_db(view, source, target)
        message = (
            f"{fmt}: only the default database is rewritten, so `INSERT INTO {sql_name(source)}.t ...` run under "
            f"`USE {other}` is applied to {source}.t on the replica, not to {target}.t; DDL is always "
            f"logged as a statement"
        )
        yield Finding(view.channel, "RF103", message, FT.REWRITE_DB, rule)


def check_db_rules_statement_format(view: View, binlog_format: str | None) -> Iterator[Finding]:
    """RF104: database rules look at the default database under STATEMENT format."""
    if not statement_possible(binlog_format):
        return
    do_db, ignore_db = view.rules(FT.DO_DB), view.rules(FT.IGNORE_DB)
    if not do_db and not ignore_db:
        return
    ftype = FT.DO_DB if do_db else FT.IGNORE_DB
    message = (
        f"{ftype.keyword} looks at the default database of a statement, not at the database it "
        f"writes, so cross-database statements are kept or dropped by the wrong database"
    )
    example = None
    for name in map(str, do_db or ignore_db):
        other = _other_db(view, name)
        if ftype is FT.DO_DB:
            statement = QueryEvent(view.channel, other, CommandKind.UPDATE, (TableRef(name, "t", True),))
            row = RowEvent(view.channel, name, "t")
        else:
            statement = QueryEvent(view.channel, name, CommandKind.UPDATE, (TableRef(other, "t", True),))
            row = RowEvent(view.channel, other, "t")
        as_statement, as_row = view.outcome(statement), view.outcome(row)
        if as_statement.decision is not as_row.decision:
            example = statement
            message += (
                f": `USE {sql_name(statement.default_db)}; UPDATE {sql_name(str(statement.tables[0].db))}.t SET ...` is "
                f"{verdict_text(as_statement)} under STATEMENT format and {verdict_text(as_row)} under ROW"
            )
            break
    fix = None
    has_table_rules = any(view.rules(t) for t in (FT.DO_TABLE, FT.IGNORE_TABLE, FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE))
    if not has_table_rules:
        wild = FT.WILD_DO_TABLE if ftype is FT.DO_DB else FT.WILD_IGNORE_TABLE
        changes = {ftype: (), wild: tuple(f"{escape_like(str(db))}.%" for db in (do_db or ignore_db))}
        if ignore_db:
            changes[FT.IGNORE_DB] = ()  # next to do-db it never took effect (RF201)
        fix = view.fix(changes)
        message += "; table rules decide by the database each table is in, whatever the format"
    else:
        message += "; the manual advises table rules only (here they would change how the table rules combine, so no fix is offered)"
    finding = Finding(view.channel, "RF104", message + ".", ftype, None, fix, example_event=example)
    yield finding
