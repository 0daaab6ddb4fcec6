"""The catalogue of lint codes: stable names, levels, and where each rule comes from.

Codes never change meaning once published; a retired code is not reused. The hundreds group
them: 1xx traps in one rule's value, 2xx rules of one level that work against each other,
3xx rules that can never match or never decide, 4xx channels, 5xx a workload's evidence.
README ("Lint: codes") explains each with an example and its fix.
"""

from __future__ import annotations

from dataclasses import dataclass

MANUAL = "https://dev.mysql.com/doc/refman/8.4/en/"
RULES = MANUAL + "replication-rules.html"
DB_OPTIONS = MANUAL + "replication-rules-db-options.html"
TABLE_OPTIONS = MANUAL + "replication-rules-table-options.html"
INTERACTIONS = MANUAL + "replication-rules-examples.html"
CHANNEL_FILTERS = MANUAL + "replication-rules-channel-based-filters.html"
REPLICA_OPTIONS = MANUAL + "replication-options-replica.html"
BUG = "https://bugs.mysql.com/bug.php?id="


@dataclass(frozen=True)
class Code:
    """One code. ``sources`` is where the rule comes from, ``;``-separated: manual pages and bug
    reports (what a user can open) and the specification sections the check follows (which are
    the developers', not shipped with the package)."""

    code: str
    name: str
    level: str  # "error" | "warning" | "note"
    summary: str
    sources: str

    @property
    def reference(self) -> str:
        """The parts of ``sources`` a user can open (web addresses): what ``reference`` in the
        JSON output and SARIF's ``helpUri`` cite."""
        return "; ".join(part.strip() for part in self.sources.split(";") if part.strip().startswith("http"))


_ALL = (
    Code("RF101", "comma-in-name", "error",
         "A startup option value is one name: a comma is part of it, not a separator.",
         REPLICA_OPTIONS + "#option_mysqld_replicate-do-db; mysql-filter-evaluation.md section 1"),
    Code("RF102", "rule-on-rewritten-name", "error",
         "Database and table rules are checked after REPLICATE_REWRITE_DB, so a rule naming the "
         "old database never sees it.",
         REPLICA_OPTIONS + "#option_mysqld_replicate-rewrite-db; mysql-filter-evaluation.md section 6"),
    Code("RF103", "rewrite-under-statement-format", "warning",
         "Under STATEMENT (and MIXED) format only the default database is rewritten: a qualified "
         "name runs against the old database on the replica.",
         REPLICA_OPTIONS + "#option_mysqld_replicate-rewrite-db; mysql-filter-evaluation.md section 6"),
    Code("RF104", "db-rules-under-statement-format", "warning",
         "Under STATEMENT (and MIXED) format database rules look at the default database, so "
         "cross-database statements are kept or dropped by the wrong database.",
         DB_OPTIONS + "; " + INTERACTIONS + "; mysql-filter-evaluation.md section 3.2"),
    Code("RF105", "unescaped-underscore", "warning",
         "In a wild pattern `_` matches any one character: `db_1.%` also matches `dbx1.t`.",
         REPLICA_OPTIONS + "#option_mysqld_replicate-wild-do-table; mysql-filter-evaluation.md section 4"),
    Code("RF106", "wildcard-in-exact-table-rule", "warning",
         "`%` is literal in REPLICATE_DO_TABLE / REPLICATE_IGNORE_TABLE: the rule names one "
         "table called that; a wild rule was probably meant.",
         REPLICA_OPTIONS + "#option_mysqld_replicate-do-table; mysql-filter-evaluation.md section 1"),
    Code("RF107", "rewrite-names-a-table", "error",
         "REPLICATE_REWRITE_DB names databases: 'shop.orders->archive.orders' is accepted at "
         "start-up as a rewrite of a database called 'shop.orders', so rows of shop.orders are "
         "not rewritten; a table cannot be renamed by a replication filter.",
         REPLICA_OPTIONS + "#option_mysqld_replicate-rewrite-db; mysql-filter-statements.md section 6 item 5"),
    Code("RF108", "pattern-over-matches", "warning",
         "A wild pattern that reads as one table followed by '%' ('myapp.audit_log%') takes every "
         "table whose name goes on from it: with a schema, the other tables it matches by name "
         "(a warning); without, a note saying which part is open-ended. Escaping '_' does not "
         "stop '%'.",
         REPLICA_OPTIONS + "#option_mysqld_replicate-wild-do-table; mysql-filter-evaluation.md section 4"),
    Code("RF109", "account-statements-by-default-db", "warning",
         "CREATE USER, ALTER USER, SET PASSWORD, GRANT, REVOKE, RENAME USER and DROP USER are logged "
         "as statements with the session's default database and no table list: a rule on mysql "
         "(ignore-db, 'mysql.%') does not keep them off the replica, and under do-db one run "
         "without a default database is dropped (a note from the configuration, a warning per "
         "workload statement).",
         INTERACTIONS + "; " + DB_OPTIONS + "; " + MANUAL + "replication-features-mysqldb.html; "
         "mysql-filter-evaluation.md section 3.2"),
    Code("RF201", "ignore-db-next-to-do-db", "warning",
         "With any REPLICATE_DO_DB rule, REPLICATE_IGNORE_DB is never consulted.",
         RULES + "; " + DB_OPTIONS + "; mysql-filter-evaluation.md section 3.3 table A"),
    Code("RF202", "ignore-table-next-to-do-table", "warning",
         "Next to do-table or wild-do-table rules, a table that no do rule admits is skipped "
         "anyway: an ignore rule that no do rule overlaps decides nothing for row events and "
         "single-table statements.",
         RULES + "; " + TABLE_OPTIONS + "; mysql-filter-evaluation.md section 3.3 table C"),
    Code("RF203", "exact-rule-covered-by-wild", "note",
         "An exact table rule that a wild rule of the same kind also matches: the wild and exact "
         "rules are mixed, and the exact one changes no verdict.",
         RULES + "; mysql-filter-evaluation.md section 3.3 table C"),
    Code("RF301", "table-rule-db-excluded", "warning",
         "A table rule whose database the channel's database rules already exclude: database "
         "rules are checked first, so it never matches a row event. A wild database part "
         "('cache%', 'db_', '%') counts when no REPLICATE_DO_DB name can fill it.",
         INTERACTIONS + "; " + BUG + "12209; mysql-filter-evaluation.md section 3.3"),
    Code("RF302", "wild-rule-covered", "warning",
         "A wild rule covered by an earlier rule of the same type: every table it matches, the "
         "earlier one matches first.",
         TABLE_OPTIONS + "; mysql-filter-evaluation.md section 4"),
    Code("RF303", "rule-shadowed", "warning",
         "A rule that a rule of the opposite kind, checked before it, decides first for every "
         "table it names (the same name in REPLICATE_DO_TABLE and REPLICATE_IGNORE_TABLE, a "
         "wild-do pattern that only names an ignored table, a wild-ignore pattern inside a "
         "wild-do pattern).",
         TABLE_OPTIONS + "; mysql-filter-evaluation.md section 3.3 table C"),
    Code("RF304", "letter-case-mismatch", "warning",
         "Under lower_case_table_names=0 names compare byte for byte: rules that spell one "
         "database in two letter cases name two databases.",
         RULES + "; mysql-filter-evaluation.md section 5"),
    Code("RF305", "database-gets-nothing", "error",
         "A database the configuration names for replication gets nothing applied: a "
         "REPLICATE_DO_DB name whose tables no do-table or wild-do rule admits (next to do-db, "
         "a wild rule such as 'cache%.%' can only match do-db databases), one whose tables a "
         "wild-ignore pattern takes whole, or a rewrite whose target the rules drop.",
         BUG + "12209; " + INTERACTIONS + "; " + DB_OPTIONS + "; mysql-filter-evaluation.md section 3.3 tables A and C"),
    Code("RF401", "global-rule-not-inherited", "warning",
         "A channel with its own rules of a type does not get the global rules of that type.",
         CHANNEL_FILTERS + "; mysql-filter-statements.md section 5.2"),
    Code("RF402", "channel-rules-discarded", "error",
         "Per-channel startup rules for a channel that does not exist (or is not configured), "
         "or for a group replication channel, are discarded at start-up.",
         CHANNEL_FILTERS + "; mysql-filter-statements.md section 5.1"),
    Code("RF403", "table-on-several-channels", "warning",
         "Several channels admit the same tables: on a multi-source replica two sources then "
         "write them (channels sharing the same names are one finding).",
         CHANNEL_FILTERS + "; " + MANUAL + "replication-multi-source.html"),
    Code("RF404", "unfiltered-channel", "warning",
         "(schema) Two channels without filters whose sources have the same databases: the "
         "replica applies them twice. One unfiltered channel next to filtered ones is the "
         "manual's channel-specific example and no finding.",
         CHANNEL_FILTERS),
    Code("RF501", "format-dependent-verdict", "warning",
         "A workload statement that the channel applies under one binlog format and skips under "
         "the other.",
         INTERACTIONS + "; mysql-filter-evaluation.md sections 3.2, 3.4, 3.5"),
    Code("RF502", "rule-never-matched", "note",
         "No event of the workload matched this rule.",
         MANUAL + "performance-schema-replication-applier-filters-table.html"),
    Code("RF503", "rule-count", "note",
         "How many events of the workload the rule decided (per rule; the COUNTER column counts "
         "per type).",
         MANUAL + "performance-schema-replication-applier-filters-table.html; "
         "mysql-filter-evaluation.md section 7"),
)

_SCHEMA = (
    Code("RF601", "rule-matches-nothing", "warning",
         "(schema) A rule that matches no database or table of the source's schema: a typo, or a "
         "rule for something that no longer exists.",
         RULES + "; mysql-filter-evaluation.md section 3.4"),
    Code("RF602", "table-matches-do-and-ignore", "warning",
         "(schema) Tables that a do rule and an ignore rule both match; only the evaluation order "
         "decides which wins.",
         TABLE_OPTIONS + "; mysql-filter-evaluation.md section 3.3 table C"),
    Code("RF603", "rule-effect", "note",
         "(schema) How many of the schema's tables each rule admits or drops, and how many the "
         "channel replicates in all.",
         RULES),
    Code("RF604", "statement-stops-replica", "error",
         "(schema + workload) A statement that passes the filters but that the replica cannot run "
         "(a table the filters kept off it: error 1146): the SQL thread stops.",
         INTERACTIONS + "; mysql-filter-evaluation.md section 3.1"),
)
_SCHEMA = _SCHEMA + (
    Code("RF605", "trigger-writes-filtered-table", "warning",
         "(schema) A trigger on a replicated table writes a table the filters keep off the "
         "replica: under STATEMENT (and MIXED) format the trigger fires on the replica, which "
         "then writes that table, or stops with 1146 when it is not there. Row events carry the "
         "trigger's rows instead, each filtered on its own.",
         INTERACTIONS + "; " + MANUAL + "replication-features-triggers.html; mysql-filter-evaluation.md section 3.2 (X28, X29)"),
)
_SCHEMA = _SCHEMA + (
    Code("RF606", "foreign-key-into-filtered-table", "error",
         "(schema) A replicated table whose foreign key references a table the filters keep off "
         "the replica: creating it there fails with 1824, adding a row to it with 1452, and the "
         "SQL thread stops.",
         MANUAL + "create-table-foreign-keys.html; " + INTERACTIONS + "; mysql-filter-evaluation.md section 3.4"),
)
_ALL = _ALL + _SCHEMA

CODES: dict[str, Code] = {code.code: code for code in _ALL}
BY_NAME: dict[str, Code] = {code.name: code for code in _ALL}


def resolve(code_or_name: str) -> str:
    """``RF101`` or ``comma-in-name`` (any case) -> ``RF101``; KeyError carrying the text as
    written when unknown (an error message quotes what the user typed, not a folded copy)."""
    text = code_or_name.strip()
    if text.upper() in CODES:
        return text.upper()
    found = BY_NAME.get(text.lower())
    if found is None:
        raise KeyError(text)
    return found.code
