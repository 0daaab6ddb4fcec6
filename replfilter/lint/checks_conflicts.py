"""Rules that work against each other on one channel: mixed do and ignore (RF201, RF202), exact
next to wild (RF203), and rules that can never match or never decide (RF301-RF304).

Every claim here follows the order of mysql-filter-evaluation.md, section 3.3: database rules
first (do-db hides ignore-db, table A), then per table exact do, exact ignore, wild do, wild
ignore, then the default (skip when any do rule exists, table C).
"""

from __future__ import annotations

from typing import Iterator

from ..core.filters import FilterType, fold_case
from .context import View, table_db
from .findings import Finding
from .patterns import WildIndex, literal_db, literal_text
from .reach import db_exclusion, excluded_table_rules

FT = FilterType


class Indexes:
    """The channel's wild rules indexed once for all checks."""

    def __init__(self, view: View) -> None:
        self.wild_do: WildIndex = view.wild_index(FT.WILD_DO_TABLE)
        self.wild_ignore: WildIndex = view.wild_index(FT.WILD_IGNORE_TABLE)


def check_do_db_hides_ignore_db(view: View) -> Iterator[Finding]:
    """RF201: REPLICATE_IGNORE_DB next to REPLICATE_DO_DB is never consulted."""
    do_db, ignore_db = view.rules(FT.DO_DB), view.rules(FT.IGNORE_DB)
    if not do_db or not ignore_db:
        return
    both = [str(r) for r in ignore_db if view.key(str(r)) in view.keys(FT.DO_DB)]
    message = (
        f"REPLICATE_DO_DB is set, so REPLICATE_IGNORE_DB ({', '.join(map(str, ignore_db))}) can never take "
        f"effect: a database not in REPLICATE_DO_DB is skipped anyway"
    )
    if both:
        message += f", and {', '.join(repr(b) for b in both)} is in both lists, where REPLICATE_DO_DB wins"
    yield Finding(view.channel, "RF201", message + ".", FT.IGNORE_DB, None, view.fix({FT.IGNORE_DB: ()}))


def check_ignore_next_to_do_tables(view: View, ix: Indexes) -> Iterator[Finding]:
    """RF202: with do table rules, an ignore rule that no do rule overlaps decides nothing for
    a single table (it would be skipped by the default anyway)."""
    if not view.rules(FT.DO_TABLE) and not view.rules(FT.WILD_DO_TABLE):
        return
    for rule in view.rules(FT.IGNORE_TABLE):
        if view.key(str(rule)) in view.keys(FT.DO_TABLE):
            continue  # RF303 says more
        if ix.wild_do.first_match(str(rule)) is not None:
            continue  # a deliberate carve-out: exact ignore is checked before wild do
        if _db_rule_verdict(view, table_db(str(rule))[0]) is not None:
            continue  # RF301: its database never gets this far
        yield Finding(
            view.channel, "RF202",
            f"REPLICATE_IGNORE_TABLE '{rule}' can never take effect for a row event or a single-table "
            f"statement: no do rule admits that table, so it is skipped anyway (it only decides a "
            f"multi-table statement under STATEMENT format whose first updating table it is)",
            FT.IGNORE_TABLE, rule, view.fix({FT.IGNORE_TABLE: view.without(FT.IGNORE_TABLE, rule)}),
        )
    for rule in view.rules(FT.WILD_IGNORE_TABLE):
        db = literal_db(str(rule))
        if db is not None and _db_rule_verdict(view, db) is not None:
            continue  # RF301
        yield Finding(
            view.channel, "RF202",
            f"REPLICATE_WILD_IGNORE_TABLE '{rule}' can never take effect for a row event or a "
            f"single-table statement: it is checked after every do rule, and a table no do rule "
            f"admits is skipped anyway",
            FT.WILD_IGNORE_TABLE, rule, view.fix({FT.WILD_IGNORE_TABLE: view.without(FT.WILD_IGNORE_TABLE, rule)}),
        )


def check_exact_covered_by_wild(view: View, ix: Indexes) -> Iterator[Finding]:
    """RF203: an exact rule that a wild rule of the same kind also matches changes no verdict."""
    for rule in view.rules(FT.DO_TABLE):
        if view.key(str(rule)) in view.keys(FT.IGNORE_TABLE):
            continue  # dropping it would let the exact ignore decide
        pattern = ix.wild_do.first_match(str(rule))
        if pattern is not None:
            yield Finding(
                view.channel, "RF203",
                f"REPLICATE_DO_TABLE '{rule}' is also matched by REPLICATE_WILD_DO_TABLE '{pattern}'; "
                f"mixing exact and wild rules of one kind hides which rule decides, and this one changes no verdict",
                FT.DO_TABLE, rule, view.fix({FT.DO_TABLE: view.without(FT.DO_TABLE, rule)}),
            )
    for rule in view.rules(FT.IGNORE_TABLE):
        if ix.wild_do.first_match(str(rule)) is not None or view.key(str(rule)) in view.keys(FT.DO_TABLE):
            continue  # the exact ignore is what beats a do rule here
        pattern = ix.wild_ignore.first_match(str(rule))
        if pattern is not None:
            yield Finding(
                view.channel, "RF203",
                f"REPLICATE_IGNORE_TABLE '{rule}' is also matched by REPLICATE_WILD_IGNORE_TABLE '{pattern}'; "
                f"this exact rule changes no verdict",
                FT.IGNORE_TABLE, rule, view.fix({FT.IGNORE_TABLE: view.without(FT.IGNORE_TABLE, rule)}),
            )


def _db_rule_verdict(view: View, db: str) -> str | None:
    """Why the database rules exclude ``db``, or None when they let it through."""
    return db_exclusion(view, db)


def _case_twin(view: View, db: str) -> str | None:
    """Under lower_case_table_names=0, a database rule naming ``db`` in other letter case."""
    if view.collation.case_insensitive:
        return None
    for ftype in (FT.DO_DB, FT.IGNORE_DB):
        for rule in view.rules(ftype):
            if str(rule) != db and fold_case(str(rule)) == fold_case(db):
                return str(rule)
    return None


def check_table_rule_db_excluded(view: View, binlog_format: str | None = None) -> Iterator[Finding]:
    """RF301 (and RF304 when only letter case differs): a table rule whose database the
    channel's database rules exclude never matches a row event. A wild database part counts
    when no REPLICATE_DO_DB name can fill it (Bug #12209). A do rule on a literal database is
    RF305's instead (the database it names gets nothing: an error, with a fix)."""
    for ftype, rule, db, reason in excluded_table_rules(view):
        is_do = ftype in (FT.DO_TABLE, FT.WILD_DO_TABLE)
        twin = _case_twin(view, db) if db is not None else None
        if twin is not None:
            yield Finding(
                view.channel, "RF304",
                f"under lower_case_table_names=0 '{db}' and '{twin}' are two databases: {ftype.keyword} "
                f"'{rule}' never passes the database rules ({reason}); spell both the same way",
                ftype, rule,
            )
            continue
        if is_do and db is not None:
            continue  # RF305: a do rule whose database gets nothing, with the fix that admits it
        fix = None if is_do else view.fix({ftype: view.without(ftype, rule)})
        advice = "; list the databases it should admit in REPLICATE_DO_DB, or use table rules only" if is_do else ""
        where = ""
        if binlog_format != "ROW" and is_do and view.rules(FT.DO_DB):
            where = (" by a row event (under STATEMENT format it matches only a table named in a statement "
                     "run with a REPLICATE_DO_DB database as the default database)")
        yield Finding(
            view.channel, "RF301",
            f"{ftype.keyword} '{rule}' can never match{where}: database rules are checked first and {reason}{advice}",
            ftype, rule, fix,
        )


def check_rewrite_case(view: View) -> Iterator[Finding]:
    """RF304: REW(a->B) with a database rule ``b`` under lower_case_table_names=0."""
    if view.collation.case_insensitive:
        return
    for source, target in view.rules(FT.REWRITE_DB):  # type: ignore[misc]
        twin = _case_twin(view, target)
        if twin is not None and target not in (str(r) for ft in (FT.DO_DB, FT.IGNORE_DB) for r in view.rules(ft)):
            yield Finding(
                view.channel, "RF304",
                f"REPLICATE_REWRITE_DB sends '{source}' to '{target}', but the database rules name '{twin}'; "
                f"under lower_case_table_names=0 those are two databases",
                FT.REWRITE_DB, (source, target),
            )


def check_wild_covered(view: View, ix: Indexes) -> Iterator[Finding]:
    """RF302: a wild rule covered by an earlier rule of the same type never decides."""
    for ftype, index in ((FT.WILD_DO_TABLE, ix.wild_do), (FT.WILD_IGNORE_TABLE, ix.wild_ignore)):
        first_seen: dict[str, int] = {}
        reported: set[str] = set()
        for position, rule in enumerate(index.patterns):
            first = first_seen.setdefault(rule, position)
            if rule in reported:
                continue
            # A different earlier pattern covering the first copy makes every copy dead; else
            # only the copies after the first are.
            earlier = index.first_cover(rule, before=first)
            if earlier is None and position == first:
                continue
            reported.add(rule)
            if earlier is None:
                message = "is listed more than once; the copies after the first never decide anything"
                kept = tuple(p for i, p in enumerate(index.patterns) if p != rule or i == first)
            else:
                message = f"is covered by the earlier '{earlier}': every table it matches, '{earlier}' matches first; it never decides anything"
                kept = tuple(p for p in index.patterns if p != rule)
            yield Finding(view.channel, "RF302", f"{ftype.keyword} '{rule}' {message}", ftype, rule, view.fix({ftype: kept}))


def check_shadowed(view: View) -> Iterator[Finding]:
    """RF303: the same table in do-table and ignore-table (do is checked first), and a wild-do
    pattern naming only a table that REPLICATE_IGNORE_TABLE lists (exact ignore is first)."""
    for rule in view.rules(FT.IGNORE_TABLE):
        if view.key(str(rule)) in view.keys(FT.DO_TABLE):
            yield Finding(
                view.channel, "RF303",
                f"'{rule}' is in both REPLICATE_DO_TABLE and REPLICATE_IGNORE_TABLE; REPLICATE_DO_TABLE is "
                f"checked first, so the table is replicated and the ignore rule never takes effect",
                FT.IGNORE_TABLE, rule, view.fix({FT.IGNORE_TABLE: view.without(FT.IGNORE_TABLE, rule)}),
            )
    for rule in view.rules(FT.WILD_DO_TABLE):
        text = literal_text(str(rule))
        if text is not None and view.key(text) in view.keys(FT.IGNORE_TABLE):
            yield Finding(
                view.channel, "RF303",
                f"REPLICATE_WILD_DO_TABLE '{rule}' names only '{text}', which REPLICATE_IGNORE_TABLE lists; the "
                f"exact ignore rule is checked first, so this do rule never admits anything",
                FT.WILD_DO_TABLE, rule, view.fix({FT.WILD_DO_TABLE: view.without(FT.WILD_DO_TABLE, rule)}),
            )
