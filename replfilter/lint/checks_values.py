"""Traps in one rule's own value: the comma (RF101), the unescaped ``_`` (RF105), the ``%`` in an
exact table rule (RF106). Each fix is what the writer meant, and the quoted example is decided by
the evaluator both ways."""

from __future__ import annotations

from typing import Iterator

from ..core.filters import FilterType
from ..evaluation.events import RowEvent
from .context import View, table_db, verdict_text
from .findings import Finding, Level
from .patterns import escape_positions, open_ended_name, suspicious_underscores, tokens, underscores_before_any

FT = FilterType
NAME_TYPES = (FT.DO_DB, FT.IGNORE_DB)
TABLE_TYPES = (FT.DO_TABLE, FT.IGNORE_TABLE)
WILD_TYPES = (FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE)


def _pieces(text: str) -> list[str]:
    return [piece.strip() for piece in text.split(",") if piece.strip()]


def check_comma(view: View) -> Iterator[Finding]:
    """RF101: ``--replicate-do-db=db1,db2`` names one database called ``db1,db2``."""
    for ftype in (*NAME_TYPES, *TABLE_TYPES, *WILD_TYPES):
        for rule in view.rules(ftype):
            assert isinstance(rule, str)
            if "," not in rule:
                continue
            pieces = _pieces(rule)
            if ftype not in NAME_TYPES and not all("." in piece for piece in pieces):
                pieces = []
            what = "database" if ftype in NAME_TYPES else ("pattern" if ftype in WILD_TYPES else "table")
            message = f"{ftype.option} takes one name per option: '{rule}' is one {what}, commas included"
            if len(pieces) < 2:
                yield Finding(view.channel, "RF101", message + ".", ftype, rule)
                continue
            fix = view.fix({ftype: view.replaced(ftype, rule, pieces)})
            example = _example_for(ftype, pieces[0], view.channel)
            yield _with_example(view, Finding(view.channel, "RF101", message, ftype, rule, fix), example,
                                f"; {', '.join(repr(p) for p in pieces)} were probably meant")
    for rule in view.rules(FT.REWRITE_DB):
        source, target = rule  # type: ignore[misc]
        if "," not in source and "," not in target:
            continue
        message = f"replicate-rewrite-db takes one pair per option: '{source}->{target}' rewrites the one database '{source}' to '{target}'"
        pieces = _pieces(source)
        if "," in target or len(pieces) < 2:
            yield Finding(view.channel, "RF101", message + ".", FT.REWRITE_DB, rule)
            continue
        fix = view.fix({FT.REWRITE_DB: view.replaced(FT.REWRITE_DB, rule, [(p, target) for p in pieces])})
        example = RowEvent(view.channel, pieces[0], "t")
        yield _with_example(view, Finding(view.channel, "RF101", message, FT.REWRITE_DB, rule, fix), example,
                            f"; rewriting {', '.join(repr(p) for p in pieces)} each to '{target}' was probably meant")


def _example_for(ftype: FilterType, piece: str, channel: str) -> RowEvent:
    if ftype in NAME_TYPES:
        return RowEvent(channel, piece, "t")
    if ftype in TABLE_TYPES:
        db, table = table_db(piece)
        return RowEvent(channel, db, table)
    return _sample_event(piece, channel)


def _with_example(view: View, finding: Finding, example: RowEvent, meant: str) -> Finding:
    """Quote the example in the message when the configuration and the fix decide it apart."""
    from dataclasses import replace

    assert finding.fix is not None
    now = view.outcome(example)
    fixed = view.outcome(example, view.fixed_filters(finding.fix))
    text = finding.message + meant
    if verdict_text(now) != verdict_text(fixed):
        text += f": rows of {example.db}.{example.table} are {verdict_text(now)} (with the fix: {verdict_text(fixed)})"
        return replace(finding, message=text + ".", example_event=example)
    return replace(finding, message=text + ".")


def _sample_event(pattern: str, channel: str, one: str = "x") -> RowEvent:
    """A table a pattern matches: ``%`` as ``t``, ``_`` as ``one``, split at the first dot."""
    text = "".join(ch if kind == "lit" else ("t" if kind == "any" else one) for kind, ch in tokens(pattern))
    db, _, table = text.partition(".")
    return RowEvent(channel, db, table)


def check_underscore(view: View) -> Iterator[Finding]:
    """RF105: an unescaped ``_`` between letters or digits of a wild pattern (a warning), or
    between a letter or digit and ``%``, as in ``%.tmp_%`` (a note: see
    :func:`~.patterns.underscores_before_any`)."""
    for ftype in WILD_TYPES:
        for rule in view.rules(ftype):
            assert isinstance(rule, str)
            positions = suspicious_underscores(rule)
            level = None
            if not positions:
                positions = underscores_before_any(rule)
                level = Level.NOTE
            if not positions:
                continue
            escaped = escape_positions(rule, positions)
            # The example: the suspicious ``_`` as another character, the rest as written.
            sample = "".join("x" if i in positions else ch for i, ch in enumerate(rule))
            example = _sample_event(sample, view.channel)
            message = (
                f"in {ftype.keyword} '{rule}', '_' matches any one character, so it also matches "
                f"{example.db}.{example.table}; escaped ('{escaped}') "
                + ("it matches only the name as written" if "%" not in rule else "the '_' matches only itself")
            )
            fix = view.fix({ftype: view.replaced(ftype, rule, [escaped])})
            finding = Finding(view.channel, "RF105", message, ftype, rule, fix, level_override=level)
            yield _with_example(view, finding, example, "")


def check_percent_in_exact(view: View) -> Iterator[Finding]:
    """RF106: ``%`` in REPLICATE_DO_TABLE / REPLICATE_IGNORE_TABLE is a literal character."""
    for ftype, wild in ((FT.DO_TABLE, FT.WILD_DO_TABLE), (FT.IGNORE_TABLE, FT.WILD_IGNORE_TABLE)):
        for rule in view.rules(ftype):
            assert isinstance(rule, str)
            if "%" not in rule:
                continue
            message = (
                f"'%' is an ordinary character in {ftype.keyword}: '{rule}' names one table with a "
                f"'%' in its name; {wild.keyword} '{rule}' was probably meant"
            )
            fix = view.fix({ftype: view.without(ftype, rule), wild: (*view.rules(wild), rule)})
            example = _sample_event(rule.replace("_", "\\_"), view.channel)
            yield _with_example(view, Finding(view.channel, "RF106", message, ftype, rule, fix), example, "")


def check_rewrite_of_a_table(view: View) -> Iterator[Finding]:
    """RF107: a dotted name in REPLICATE_REWRITE_DB. mysqld splits the value at the first
    ``->`` and stores both sides verbatim (mysqld.cc; mysql-filter-statements.md section 6,
    item 5): ``shop.orders->archive.orders`` rewrites a database named ``shop.orders``, which
    no row event of table ``orders`` in ``shop`` carries. When both sides name the same table,
    the database rewrite ``shop->archive`` is offered, saying that it moves every table of
    ``shop`` (and only if it adds no finding); otherwise no fix (filters cannot rename tables)."""
    from .checks_reach import offered

    for rule in view.rules(FT.REWRITE_DB):
        source, target = rule  # type: ignore[misc]
        if "." not in source and "." not in target:
            continue
        src_db, _, src_table = source.partition(".")
        dst_db, _, dst_table = target.partition(".")
        if src_table:
            message = (
                f"REPLICATE_REWRITE_DB names databases: '{source}->{target}' rewrites a database called '{source}'; "
                f"row events of the table {source} carry the database '{src_db}', so they are not rewritten"
            )
        else:
            message = (
                f"REPLICATE_REWRITE_DB names databases: '{source}->{target}' sends every table of '{source}' to a "
                f"database called '{target}', not to the table {target}"
            )
        fix = None
        if src_table and src_table == dst_table and src_db and dst_db:
            fix = offered(view, view.fix({FT.REWRITE_DB: view.replaced(FT.REWRITE_DB, rule, [(src_db, dst_db)])}))
        example = RowEvent(view.channel, src_db or source, src_table or "t")
        if fix is None:
            meant = "; a replication filter cannot rename a table, so no fix is offered"
            now = view.outcome(example)
            yield Finding(view.channel, "RF107", f"{message}{meant}: rows of {example.db}.{example.table} are {verdict_text(now)}.",
                          FT.REWRITE_DB, rule, None, example_event=example)
            continue
        meant = f"; the database rewrite '{src_db}->{dst_db}' was probably meant (it moves every table of '{src_db}', not only '{src_table}')"
        yield _with_example(view, Finding(view.channel, "RF107", message, FT.REWRITE_DB, rule, fix), example, meant)


def check_open_ended(view: View) -> Iterator[Finding]:
    """RF108 without a schema, a note: which part of a pattern is open-ended. Which tables it
    takes besides the one it names needs the schema (``--schema``), so no fix is offered."""
    for ftype in WILD_TYPES:
        for rule in view.rules(ftype):
            name = open_ended_name(str(rule))
            if name is None:
                continue
            db, _, table = name.partition(".")
            yield Finding(
                view.channel, "RF108",
                f"{ftype.keyword} '{rule}' is open-ended after '{table}': '%' takes every table of '{db}' whose "
                f"name starts with '{table}' ({table}_archive, {table}s, ...), not only {name}; give --schema to "
                f"list the tables it takes",
                ftype, rule, level_override=Level.NOTE,
            )
