"""Run every check over a replica state and return the findings, silenced ones removed.

The channels linted are the configured channels (group replication channels cannot have
filters), or, on a replica with none configured, the default channel with the global rules it
will receive (as the evaluator decides its events: ``channel_filters``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from ..evaluation.evaluator import channel_filters
from ..replica.state import ReplicaState
from . import checks_accounts, checks_channels, checks_conflicts, checks_format, checks_reach, checks_schema, checks_values, workload as workload_checks
from .checks_channels import StartupRuleRef
from .findings import Finding, Level, sort_key
from .context import View
from .workload import Workload

BINLOG_FORMATS = ("ROW", "STATEMENT", "MIXED")


@dataclass(frozen=True)
class RuleOrigin:
    """Where a startup rule was written: an option file and line, or the command line
    (``path`` None, ``line`` the argument's position), and the codes its line silences."""

    channel: str | None
    ftype: object
    rule: object
    path: str | None
    line: int
    ignored: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LintOptions:
    binlog_format: str | None = None  # None: not known, so STATEMENT may arrive
    ignore: frozenset[str] = frozenset()
    channel: str | None = None
    origins: tuple[RuleOrigin, ...] = ()
    workload: Workload | None = None


def views_of(state: ReplicaState, channel: str | None = None) -> list[View]:
    configured = state.configured_channels()
    if channel is not None:
        found = state.channel(channel)
        chosen = [found] if found is not None else []
    else:
        chosen = list(configured) or [c for c in state.channels if not c.is_group_replication]
    return [
        View(c.name, channel_filters(state, c.name), state.collation, c.name if c.configured else None, c.configured)
        for c in chosen
    ]


def lint_state(state: ReplicaState, options: LintOptions = LintOptions()) -> list[Finding]:
    """Every finding for ``state``, sorted (channel, code, rule), silenced ones dropped."""
    views = views_of(state, options.channel)
    findings: list[Finding] = []
    passes: dict[str, checks_schema.SchemaTables] = {}
    listings: dict[int, tuple] = {}  # per catalog object: its tables, read once for every channel
    for view in views:
        catalog = state.source_catalog(view.channel)
        findings.extend(lint_view(view, options.binlog_format, schema_known=catalog is not None))
        if options.workload is not None:
            findings.extend(workload_checks.check_format_dependent(view, options.workload))
            findings.extend(checks_accounts.check_account_workload(view, options.workload))
            findings.extend(workload_checks.check_rule_usage(view, options.workload, options.binlog_format))
            findings.extend(checks_schema.check_statements_that_stop(view, options.workload, state.replica_catalog))
        if catalog is not None:
            names = listings.get(id(catalog))
            if names is None:
                names = listings[id(catalog)] = checks_schema.listing(catalog)
            tables = passes[view.channel] = checks_schema.SchemaTables(view, catalog, names)
            findings.extend(checks_schema.check_rules_match_nothing(view, tables))
            findings.extend(checks_schema.check_do_and_ignore(view, tables))
            findings.extend(checks_schema.check_rule_effect(view, tables))
            findings.extend(checks_schema.check_over_matching(view, tables))
            findings.extend(checks_schema.check_triggers_into_filtered_tables(view, tables, catalog, options.binlog_format))
            findings.extend(checks_schema.check_foreign_keys(view, tables, catalog))
    findings.extend(checks_channels.check_global_not_inherited(state, views))
    if options.channel is None:
        with_schema = [v for v in views if v.configured and v.channel in passes]
        if len(with_schema) > 1:  # the schema says exactly which tables several channels write
            unfiltered = frozenset(v.channel for v in with_schema if v.filters.is_empty)
            findings.extend(checks_schema.check_shared_tables({v.channel: passes[v.channel] for v in with_schema}, state.collation.key, unfiltered))
        findings.extend(checks_channels.check_shared_tables([v for v in views if v.channel not in passes]))
        refs = [StartupRuleRef(o.channel, o.ftype, o.rule) for o in options.origins if o.channel is not None]  # type: ignore[arg-type]
        findings.extend(checks_channels.check_discarded_channel_rules(state, refs))
    findings = _escaping_is_not_enough(findings)
    located = [_locate(f, options.origins) for f in findings]
    kept = [f for f in located if not _silenced(f, options)]
    return sorted(kept, key=sort_key)


def lint_view(view: View, binlog_format: str | None = None, schema_known: bool = False) -> list[Finding]:
    """The checks that read one channel's filters alone (``schema_known``: the schema checks
    run too, so what they say with the schema is not said here without it)."""
    found: list[Finding] = []
    found.extend(checks_values.check_comma(view))
    found.extend(checks_values.check_underscore(view))
    found.extend(checks_values.check_percent_in_exact(view))
    found.extend(checks_values.check_rewrite_of_a_table(view))
    found.extend(checks_accounts.check_account_statements(view))
    if not schema_known:
        found.extend(checks_values.check_open_ended(view))
    found.extend(checks_format.check_rule_on_old_name(view))
    found.extend(checks_format.check_rewrite_statement_format(view, binlog_format))
    found.extend(checks_format.check_db_rules_statement_format(view, binlog_format))
    indexes = checks_conflicts.Indexes(view)
    found.extend(checks_conflicts.check_do_db_hides_ignore_db(view))
    found.extend(checks_conflicts.check_ignore_next_to_do_tables(view, indexes))
    found.extend(checks_conflicts.check_exact_covered_by_wild(view, indexes))
    found.extend(checks_conflicts.check_table_rule_db_excluded(view, binlog_format))
    found.extend(checks_reach.check_nothing_applied(view))
    found.extend(checks_conflicts.check_rewrite_case(view))
    found.extend(checks_conflicts.check_wild_covered(view, indexes))
    found.extend(checks_conflicts.check_shadowed(view))
    return found


def _escaping_is_not_enough(findings: list[Finding]) -> list[Finding]:
    """An RF105 fix (escape the ``_``) on a pattern that the schema shows over-matching
    through its ``%`` (RF108) would lead straight into RF108: the fix becomes RF108's, the
    name itself, which cures both."""
    over = {(f.channel, f.ftype, f.rule): f for f in findings if f.code == "RF108" and f.fix is not None}
    if not over:
        return findings
    out = []
    for finding in findings:
        better = over.get((finding.channel, finding.ftype, finding.rule)) if finding.code == "RF105" else None
        if better is not None:
            finding = replace(finding, fix=better.fix, message=finding.message.rstrip(".") +
                              "; escaped, '%' would still take other tables of the schema (RF108), so the fix is the name itself.")
        out.append(finding)
    return out


def _origin_for(finding: Finding, origins: Sequence[RuleOrigin]) -> RuleOrigin | None:
    if finding.ftype is None:
        return None
    best = None
    for origin in origins:
        if origin.ftype is not finding.ftype or (finding.rule is not None and origin.rule != finding.rule):
            continue
        if origin.channel == finding.channel:
            return origin
        if origin.channel is None and best is None:
            best = origin
    return best


def _locate(finding: Finding, origins: Sequence[RuleOrigin]) -> Finding:
    if finding.location is not None:
        return finding
    origin = _origin_for(finding, origins)
    if origin is None or origin.path is None:
        return finding
    return replace(finding, location=(origin.path, origin.line))


def _silenced(finding: Finding, options: LintOptions) -> bool:
    if finding.code in options.ignore:
        return True
    origin = _origin_for(finding, options.origins)
    return origin is not None and finding.code in origin.ignored


def exit_status(findings: Iterable[Finding]) -> int:
    """0 without findings (notes do not count), 1 with warnings only, 2 with any error."""
    levels = {f.level for f in findings}
    if Level.ERROR in levels:
        return 2
    if Level.WARNING in levels:
        return 1
    return 0
