"""Traps in one rule's own value: the comma (RF101), the unescaped ``_`` (RF105), the ``%`` in an
exact table rule (RF106). Each fix is what the writer meant, and the quoted example is decided by
the evaluator both ways."""

from __future__ import annotations

from typing import Iterator

from ..core.filters import FilterType
from ..evaluation.events import RowEvent
from .context import View, table_db, verdict_text
from .findings import Finding, Level
from .patterns import escape_positions, suspicious_underscores, tokens, underscores_before_any

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
                + ("it matches only the name as written" if level is None else "the '_' matches only itself")
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
