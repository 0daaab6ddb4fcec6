"""Checks that need the sources' schema (``--schema``, LOAD SCHEMA): rules that match nothing
(RF601, typos, with the closest name as fix; RF304 when only letter case differs), tables a do
and an ignore rule both match (RF602), what each rule admits or drops (RF603), and, with a
workload, statements that would stop the replica because a table they use is not on it (RF604).

Tables are taken as row events see them (mysql-filter-evaluation.md, section 3.4): each source
table's database rewritten by the first matching rewrite rule, then decided by the evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass

import difflib
from collections import Counter, defaultdict
from typing import Iterator

from ..core.filters import FilterType, Rule, fold_case
from ..evaluation.evaluator import compile_filters, decide_compiled
from ..evaluation.events import RowEvent
from ..replica.catalog import Catalog, TableDef
from .context import View
from .findings import Finding
from .patterns import KnownMatches, escape_like, open_ended_name

FT = FilterType


@dataclass(frozen=True)
class Listing:
    """A catalog read once and shared by the channels that have it (the lint reads the same
    schema for every channel ``--schema FILE`` gives it to): each database with its table
    names in SHOW DATABASES / SHOW TABLES order, the tables that have foreign keys, and
    whether there are triggers at all."""

    names: tuple[tuple[str, tuple[str, ...]], ...]
    with_foreign_keys: tuple[TableDef, ...]
    has_triggers: bool


def listing(catalog: Catalog) -> Listing:
    names, keyed, triggers = [], [], False
    for db in catalog.databases():
        tables = catalog.tables(db)
        names.append((db, tuple(t.name for t in tables)))
        keyed.extend(t for t in tables if t.foreign_keys)
        triggers = triggers or bool(catalog.triggers_as_created(db))
    return Listing(tuple(names), tuple(keyed), triggers)


class SchemaTables:
    """A channel's source tables, as (rewritten db, table) pairs, and the names rules compare."""

    def __init__(self, view: View, catalog: Catalog, read: Listing | None = None) -> None:
        compiled = compile_filters(view.filters, view.collation)
        self.sources: list[tuple[str, str]] = []
        self.tables: list[tuple[str, str]] = []
        self.rewritten_dbs: dict[str, str] = {}
        self.tables_by_db: dict[str, list[str]] = defaultdict(list)
        self.source_dbs: dict[str, str] = {}
        self.listing = read if read is not None else listing(catalog)
        for db, tables in self.listing.names:
            rewrite = compiled.rewrite_db(db)
            target = rewrite[1] if rewrite else db
            self.source_dbs[view.key(db)] = db
            self.rewritten_dbs[view.key(target)] = target
            self.sources.extend((db, table) for table in tables)
            self.tables.extend((target, table) for table in tables)
            self.tables_by_db[view.key(target)].extend(f"{target}.{table}" for table in tables)
        qualified = [f"{db}.{t}" for db, t in self.tables]
        self.keys = dict(zip(map(fold_case, qualified), qualified)) if view.collation.case_insensitive else dict(zip(qualified, qualified))
        self._pass(view, compiled)

    def _pass(self, view: View, compiled) -> None:
        """One walk over the tables: the wild patterns each matches, and the evaluator's
        decision for its row event -- decided with the matches already known, so 50,000 tables
        cost 50,000 lookups, not 50,000 runs of a 1,000-pattern alternation. The patterns are
        matched per database (:meth:`~.patterns.WildIndex.for_database`), and a table that no
        exact rule names is decided once per (database, first wild-do match, first wild-ignore
        match): the evaluator reads nothing else of it (mysql-filter-evaluation.md, section
        3.4). Such shared decisions are read for their verdict and deciding rule only; their
        ``reason`` names the first table decided."""
        do_index, ignore_index = view.wild_index(FT.WILD_DO_TABLE), view.wild_index(FT.WILD_IGNORE_TABLE)
        self.unmatched = {FT.WILD_DO_TABLE: set(range(len(do_index.patterns))),
                          FT.WILD_IGNORE_TABLE: set(range(len(ignore_index.patterns)))}
        self.first_do: list[str | None] = []
        self.first_ignore: list[str | None] = []
        self.decisions: list = []
        exact = view.keys(FT.DO_TABLE) | view.keys(FT.IGNORE_TABLE)
        do_patterns, ignore_patterns = do_index.patterns, ignore_index.patterns
        # Tables matched by the patterns that read as one table plus '%' (RF108, over-matching).
        open_do = {i for i, p in enumerate(do_patterns) if open_ended_name(p) is not None}
        open_ignore = {i for i, p in enumerate(ignore_patterns) if open_ended_name(p) is not None}
        self.open_ended_matches: dict[tuple[FilterType, int], list[str]] = defaultdict(list)
        unmatched_do, unmatched_ignore = self.unmatched[FT.WILD_DO_TABLE], self.unmatched[FT.WILD_IGNORE_TABLE]
        variants: dict[tuple, object] = {}
        shared: dict[tuple, object] = {}
        current_db = None
        match_do = match_ignore = None
        ci = view.collation.case_insensitive
        for (source_db, table), (db, _same) in zip(self.sources, self.tables):
            if db != current_db:  # tables come database by database; database statements match "db."
                current_db = db
                match_do, match_ignore = do_index.for_database(db), ignore_index.for_database(db)
                unmatched_do.difference_update(do_index.match_indices(f"{db}."))
                unmatched_ignore.difference_update(ignore_index.match_indices(f"{db}."))
            subject = f"{db}.{table}"
            do_hits, ignore_hits = match_do(subject), match_ignore(subject)  # type: ignore[misc]
            if do_hits:
                unmatched_do.difference_update(do_hits)
                for i in open_do.intersection(do_hits):
                    self.open_ended_matches[(FT.WILD_DO_TABLE, i)].append(subject)
            if ignore_hits:
                unmatched_ignore.difference_update(ignore_hits)
                for i in open_ignore.intersection(ignore_hits):
                    self.open_ended_matches[(FT.WILD_IGNORE_TABLE, i)].append(subject)
            first_do = do_patterns[do_hits[0]] if do_hits else None
            first_ignore = ignore_patterns[ignore_hits[0]] if ignore_hits else None
            self.first_do.append(first_do)
            self.first_ignore.append(first_ignore)
            memo = None if exact and (fold_case(subject) if ci else subject) in exact else (source_db, first_do, first_ignore)
            decision = shared.get(memo) if memo is not None else None
            if decision is None:
                known = variants.get((first_do, first_ignore))
                if known is None:
                    known = variants[(first_do, first_ignore)] = compiled.with_wild_lists(
                        KnownMatches(first_do, bool(do_patterns)), KnownMatches(first_ignore, bool(ignore_patterns)))
                decision = decide_compiled(known, RowEvent(view.channel, source_db, table))
                if memo is not None:
                    shared[memo] = decision
            self.decisions.append(decision)


def check_over_matching(view: View, schema: SchemaTables) -> Iterator[Finding]:
    """RF108 with a schema: a pattern that reads as one existing table plus '%' and matches
    other tables too, named. The fix is the table's name as a pattern without wildcards,
    offered after checking it on the same tables: it matches the intended table and none of
    the others (escaping '_' alone would still match them), and adds no finding of its own."""
    from ..core.wildcard import like
    from .checks_reach import offered

    for (ftype, index), matched in sorted(schema.open_ended_matches.items(), key=lambda item: (item[0][0].value, item[0][1])):
        pattern = view.wild_index(ftype).patterns[index]
        if view.wild_index(ftype).patterns.index(pattern) != index:
            continue  # a repeated pattern: RF302 reports the copies
        name = open_ended_name(pattern)
        assert name is not None
        intended = [t for t in matched if view.key(t) == view.key(name)]
        extras = [t for t in matched if view.key(t) != view.key(name)]
        if not intended or not extras:
            continue
        exact = escape_like(name.partition(".")[0]) + "." + escape_like(name.partition(".")[2])
        fix = None
        if all(like(t, exact, view.collation) for t in intended) and not any(like(t, exact, view.collation) for t in extras):
            fix = offered(view, view.fix({ftype: view.replaced(ftype, pattern, [exact])}))
        shown = ", ".join(extras[:5]) + (f" and {len(extras) - 5} more" if len(extras) > 5 else "")
        verdict = "replicated" if ftype is FT.WILD_DO_TABLE else "dropped"
        yield Finding(
            view.channel, "RF108",
            f"{ftype.keyword} '{pattern}' was written for {name}, but '%' also takes {len(extras)} other table(s) "
            f"of the schema, which are {verdict} with it: {shown}"
            + (f"; '{exact}' matches only {name}" if fix is not None else "; no fix is offered (the name alone would change other verdicts)"),
            ftype, pattern, fix,
        )


def _body_writes(body: str, db: str) -> list[tuple[str, str]]:
    """The tables a trigger body writes, as (db, table), read as the applier's check reads them
    (:mod:`replfilter.evaluation.catalog.trigger_bodies`); unqualified names are in the
    trigger's database. A statement that cannot be read adds nothing (no guess)."""
    from ..evaluation.catalog.trigger_bodies import body_tables  # sqlglot loads with the first body

    return [(ref.db if ref.db is not None else db, ref.table) for ref in body_tables(body) if ref.updating]


def check_triggers_into_filtered_tables(view: View, schema: SchemaTables, catalog: Catalog,
                                        binlog_format: str | None) -> Iterator[Finding]:
    """RF605: a trigger whose table the channel replicates and whose body writes a table the
    channel drops, when statements may arrive (triggers fire on the replica for statement
    events, not for row events: mysql-filter-evaluation.md section 3.2, X28/X29). Tables are
    decided as row events see them, as every schema check does. No fix: which rule or trigger
    is wrong needs the writer's intent, and the fix that always holds is logging rows."""
    if binlog_format == "ROW" or not schema.listing.has_triggers:
        return
    decided = {view.key(f"{db}.{t}"): d for (db, t), d in zip(schema.sources, schema.decisions)}
    compiled = compile_filters(view.filters, view.collation)
    for db in catalog.databases():
        for trigger in catalog.triggers_as_created(db):
            subject = decided.get(view.key(f"{db}.{trigger.table}"))
            if subject is None or not subject.applied or not trigger.statement:
                continue
            for target_db, target in _body_writes(trigger.statement, db):
                decision = decide_compiled(compiled, RowEvent(view.channel, target_db, target))
                if decision.applied:
                    continue
                yield Finding(
                    view.channel, "RF605",
                    f"trigger {db}.{trigger.name} on {db}.{trigger.table}, which is replicated, writes {target_db}.{target}, "
                    f"which the filters drop ({decision.reason}): under STATEMENT format the trigger fires on the "
                    f"replica, which writes {target_db}.{target} anyway, or stops with 1146 if it does not have it; "
                    f"log rows (binlog_format=ROW), or filter the trigger's table too",
                    decision.filter_type, decision.rule,
                )
                break


def check_foreign_keys(view: View, schema: SchemaTables, catalog: Catalog) -> Iterator[Finding]:
    """RF606: a table the channel applies rows to, with a foreign key into a table whose rows
    it skips (each decided as a row event, as every schema check does). The fix, offered only
    when it is one rule and the evaluator then applies the referenced table: drop the exact
    ignore rule that drops it, or, where do rules leave it to the default skip, add it to
    REPLICATE_DO_TABLE; checked to add no finding of its own."""
    from ..evaluation.applier_errors import constraint_text
    from .checks_reach import offered

    if not schema.listing.with_foreign_keys:
        return
    compiled = compile_filters(view.filters, view.collation)
    for table in schema.listing.with_foreign_keys:
        db, name = table.db, table.name
        if not decide_compiled(compiled, RowEvent(view.channel, db, name)).applied:
            continue
        for key in table.foreign_keys:
            if (view.key(key.ref_db), view.key(key.ref_table)) == (view.key(db), view.key(name)):
                continue  # a self-reference
            parent = decide_compiled(compiled, RowEvent(view.channel, key.ref_db, key.ref_table))
            if parent.applied:
                continue
            target = f"{key.ref_db}.{key.ref_table}"
            fix = None
            if parent.filter_type is FT.IGNORE_TABLE and parent.rule is not None:
                stored = next((r for r in view.rules(FT.IGNORE_TABLE) if view.key(str(r)) == view.key(parent.rule)), None)
                if stored is not None:
                    fix = view.fix({FT.IGNORE_TABLE: view.without(FT.IGNORE_TABLE, stored)})
            elif parent.filter_type is None and (view.rules(FT.DO_TABLE) or view.rules(FT.WILD_DO_TABLE)):
                fix = view.fix({FT.DO_TABLE: (*view.rules(FT.DO_TABLE), target)})
            if fix is not None:
                fixed = decide_compiled(compile_filters(view.fixed_filters(fix), view.collation), RowEvent(view.channel, key.ref_db, key.ref_table))
                fix = offered(view, fix) if fixed.applied else None
            yield Finding(
                view.channel, "RF606",
                f"{db}.{name} is replicated, but its foreign key {key.name} references {target}, which the filters keep "
                f"off the replica ({parent.reason}): creating {name} there fails with ERROR 1824 (Failed to open the "
                f"referenced table '{key.ref_table}'), and adding a row with ERROR 1452 (Cannot add or update a child "
                f"row: a foreign key constraint fails ({constraint_text(table, key)}))"
                + ("" if fix is not None else "; no fix is offered (more than one rule decides it)"),
                parent.filter_type, parent.rule, fix,
            )


def _closest(name: str, candidates: list[str]) -> str | None:
    """The name a typo probably meant: same first letter, length within 3, close by difflib."""
    candidates = [c for c in candidates if c[:1] == name[:1] and abs(len(c) - len(name)) <= 3]
    found = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return found[0] if found else None


def check_rules_match_nothing(view: View, schema: SchemaTables) -> Iterator[Finding]:
    """RF601 (and RF304 for a letter-case-only miss under lower_case_table_names=0)."""
    lower_dbs = {db.lower(): db for db in schema.rewritten_dbs.values()}
    lower_keys = {k.lower(): v for k, v in schema.keys.items()}
    for ftype in (FT.DO_DB, FT.IGNORE_DB):
        for rule in view.rules(ftype):
            if view.key(str(rule)) in schema.rewritten_dbs:
                continue
            yield _missing(view, ftype, rule, "database", lower_dbs.get(str(rule).lower()),
                           _closest(str(rule), sorted(schema.rewritten_dbs.values())))
    for ftype in (FT.DO_TABLE, FT.IGNORE_TABLE):
        for rule in view.rules(ftype):
            if view.key(str(rule)) in schema.keys:
                continue
            db = str(rule).partition(".")[0]
            same_db = schema.tables_by_db.get(view.key(db))
            candidates = same_db if same_db else [f"{d}.{str(rule).partition('.')[2]}" for d in schema.rewritten_dbs.values()]
            yield _missing(view, ftype, rule, "table", lower_keys.get(str(rule).lower()), _closest(str(rule), sorted(candidates)))
    for ftype in (FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE):
        patterns = view.wild_index(ftype).patterns
        for position in sorted(schema.unmatched[ftype]):
            rule = patterns[position]
            yield Finding(view.channel, "RF601", f"{ftype.keyword} '{rule}' matches no table of the schema (a typo?)", ftype, rule)
    for rule in view.rules(FT.REWRITE_DB):
        source = rule[0]  # type: ignore[index]
        if view.key(source) not in schema.source_dbs:
            yield Finding(view.channel, "RF601",
                          f"REPLICATE_REWRITE_DB from '{source}': the schema has no database '{source}' (a typo?)",
                          FT.REWRITE_DB, rule)


def _missing(view: View, ftype: FilterType, rule: Rule, what: str, case_twin: str | None, close: str | None) -> Finding:
    if case_twin is not None and not view.collation.case_insensitive:
        return Finding(view.channel, "RF304",
                       f"{ftype.keyword} '{rule}' matches no {what} of the schema, which has '{case_twin}': under "
                       f"lower_case_table_names=0 letter case must match",
                       ftype, rule, view.fix({ftype: view.replaced(ftype, rule, [case_twin])}))
    fix = view.fix({ftype: view.replaced(ftype, rule, [close])}) if close is not None else None
    hint = f"; '{close}' exists" if close is not None else ""
    return Finding(view.channel, "RF601", f"{ftype.keyword} '{rule}' matches no {what} of the schema (a typo?){hint}",
                   ftype, rule, fix)


def _first_hit(view: View, db_key: str, db: str, name: str, name_key: str, db_type: FilterType, table_type: FilterType,
               wild_type: FilterType, first_wild: str | None) -> tuple | None:
    """The first rule of one kind (do or ignore) that names this table: database, exact table,
    then wild pattern (``first_wild``, found by the schema pass)."""
    if db_key in view.keys(db_type):
        return (db_type, db)
    if name_key in view.keys(table_type):
        return (table_type, name)
    if first_wild is not None:
        return (wild_type, first_wild)
    return None


def check_do_and_ignore(view: View, schema: SchemaTables) -> Iterator[Finding]:
    """RF602: tables that a do rule and an ignore rule both match; one finding per pair of
    rules, with how many tables and which way the evaluator decides them."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    has_do = any(view.rules(t) for t in (FT.DO_DB, FT.DO_TABLE, FT.WILD_DO_TABLE))
    has_ignore = any(view.rules(t) for t in (FT.IGNORE_DB, FT.IGNORE_TABLE, FT.WILD_IGNORE_TABLE))
    if not (has_do and has_ignore):
        return
    ci = view.collation.case_insensitive
    db_keys: dict[str, str] = {}
    for position, (db, table) in enumerate(schema.tables):
        db_key = db_keys.get(db)
        if db_key is None:
            db_key = db_keys[db] = view.key(db)
        name = f"{db}.{table}"
        name_key = fold_case(name) if ci else name
        do = _first_hit(view, db_key, db, name, name_key, FT.DO_DB, FT.DO_TABLE, FT.WILD_DO_TABLE, schema.first_do[position])
        if do is None:
            continue
        ignore = _first_hit(view, db_key, db, name, name_key, FT.IGNORE_DB, FT.IGNORE_TABLE, FT.WILD_IGNORE_TABLE, schema.first_ignore[position])
        if ignore is not None:
            groups[(*do, *ignore)].append(position)
    for (do_type, do, ignore_type, ignore), positions in groups.items():
        db, table = schema.tables[positions[0]]
        verdict = "replicated" if schema.decisions[positions[0]].applied else "skipped"
        yield Finding(
            view.channel, "RF602",
            f"{len(positions)} table(s) of the schema (e.g. {db}.{table}) match both {do_type.keyword} '{do}' and "
            f"{ignore_type.keyword} '{ignore}'; the evaluator's order decides: they are {verdict}",
            ignore_type, ignore,
        )


def check_rule_effect(view: View, schema: SchemaTables) -> Iterator[Finding]:
    """RF603: per rule, the schema tables it admits or drops; per channel, the total."""
    counts: Counter = Counter()
    applied = by_default = 0
    for decision in schema.decisions:
        applied += decision.applied
        if decision.filter_type is None:
            by_default += 1
        else:
            counts[(decision.filter_type, decision.rule, decision.applied)] += 1
    total = len(schema.sources)
    yield Finding(view.channel, "RF603",
                  f"replicates {applied} of the schema's {total} tables ({by_default} decided by no rule, by the defaults)")
    for (ftype, rule, admits), n in sorted(counts.items(), key=lambda item: (item[0][0].value, str(item[0][1]))):
        stored = next((r for r in view.rules(ftype) if str(r) == rule or f"({r[0]},{r[1]})" == rule), rule) if ftype is FT.REWRITE_DB else rule
        yield Finding(view.channel, "RF603", f"{'admits' if admits else 'drops'} {n} of the schema's {total} tables", ftype, stored)


def check_statements_that_stop(view: View, workload, replica: Catalog | None) -> Iterator[Finding]:
    """RF604: the first workload statement, per binlog format, that the channel applies and
    that the replica cannot run -- a table the filters kept off it (error 1146), or DDL its
    catalog refuses. The replica's catalog follows the applied DDL of the workload, and the
    error is the evaluation layer's (``applier_errors``, ``catalog.follow``): one answer for
    EXPLAIN, ``replfilter evaluate`` and the lint."""
    from dataclasses import replace

    from ..evaluation.applier_errors import applier_error, error_text, foreign_key_error
    from ..evaluation.catalog.follow import CatalogFollower

    if replica is None:
        return
    compiled = compile_filters(view.filters, view.collation)
    for fmt in ("STATEMENT", "ROW"):
        follower = CatalogFollower(replica)
        for statement in workload.statements:
            stop = None
            for event in (statement.statement_events if fmt == "STATEMENT" else statement.row_events):
                event = replace(event, channel=view.channel)
                decision = decide_compiled(compiled, event)
                stop = foreign_key_error(event, decision.decision, decision.db, follower) or follower.applied(
                    event, decision.applied, decision.rewritten_db) or applier_error(event, decision.decision, decision.db, follower)
                if stop is not None:
                    break
            if stop is not None:
                sql = statement.sql if len(statement.sql) <= 80 else statement.sql[:77] + "..."
                yield Finding(
                    view.channel, "RF604",
                    f"{workload.path}, line {statement.line}: under {fmt} format `{sql}` passes the filters and "
                    f"the replica's SQL thread would stop with {error_text(stop)}",
                    decision.filter_type, decision.rule, location=(workload.path, statement.line),
                )
                break  # the applier stops at the first one


__all__ = ["Listing", "SchemaTables", "listing", "check_foreign_keys", "check_triggers_into_filtered_tables", "check_do_and_ignore", "check_rule_effect", "check_rules_match_nothing",
           "check_statements_that_stop"]


def check_shared_tables(passes: dict[str, SchemaTables], collation_key, unfiltered: frozenset[str] = frozenset()) -> Iterator[Finding]:
    """RF403 with a schema: replica tables (after rewrites) that several channels apply rows
    to, counted per pair of channels, from the evaluator's decisions on each source's tables.
    RF404 when neither channel of the pair has a filter: the same databases arrive unfiltered
    from two sources. One unfiltered channel next to filtered ones is the manual's own
    channel-specific example (replication-rules-channel-based-filters.html) and no finding by
    itself: only data that arrives twice is."""
    writers: dict[str, list[str]] = defaultdict(list)
    names: dict[str, tuple[str, str]] = {}
    for channel, schema in passes.items():
        for (db, table), decision in zip(schema.tables, schema.decisions):
            if decision.applied:
                key = collation_key(f"{db}.{table}")
                names.setdefault(key, (db, table))
                if not writers[key] or writers[key][-1] != channel:
                    writers[key].append(channel)
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for key, channels in writers.items():
        for i, later in enumerate(channels):
            for earlier in channels[:i]:
                pairs[(earlier, later)].append(names[key])
    for (earlier, later), tables in pairs.items():
        if earlier in unfiltered and later in unfiltered:
            dbs = list(dict.fromkeys(db for db, _t in tables))
            shown = ", ".join(repr(db) for db in dbs[:5]) + (f" and {len(dbs) - 5} more" if len(dbs) > 5 else "")
            yield Finding(
                later, "RF404",
                f"channels '{earlier}' and '{later}' have no filters and both sources have database"
                f"{'s' if len(dbs) > 1 else ''} {shown} ({len(tables)} table(s), e.g. {tables[0][0]}.{tables[0][1]}): "
                f"the replica applies them from both sources",
            )
            continue
        yield Finding(
            later, "RF403",
            f"channels '{earlier}' and '{later}' both apply rows to {len(tables)} table(s) of the schema "
            f"(e.g. {tables[0][0]}.{tables[0][1]}): two sources would write them",
        )
