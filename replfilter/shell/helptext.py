"""``help <statement>``: the syntax, a short description and an example of each statement.

The output follows the mysql client's server-side help (``Name:``, ``Description:``, ``Syntax:``,
``URL:``), and the lookup follows it too: an exact topic name shows that topic, a prefix that
fits one topic shows it, a prefix that fits several lists them, anything else is "Nothing found".
Option and column lists are generated from the interpreter's own tables, so they cannot drift.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from ..core.filters import FILTER_TYPES, FilterType
from ..replica.perfschema import CHANNEL_COLUMNS, CHANNEL_TABLE, GLOBAL_COLUMNS, GLOBAL_TABLE, SCHEMA
from ..dialect.source_options import SUPPORTED_OPTIONS

MANUAL = "https://dev.mysql.com/doc/refman/8.4/en/"


@dataclass(frozen=True)
class HelpTopic:
    name: str
    syntax: str
    description: str
    example: str
    url: str
    aliases: tuple[str, ...] = ()

    def render(self) -> str:
        return (
            f"Name: '{self.name}'\n"
            f"Description:\nSyntax:\n{self.syntax.strip()}\n\n"
            f"{textwrap.fill(' '.join(self.description.split()), width=78)}\n\n"
            f"Example:\n{self.example.strip()}\n\n"
            f"URL: {self.url}\n\n"
        )


_LIST_NAMES = {
    FilterType.DO_DB: "db_list",
    FilterType.IGNORE_DB: "db_list",
    FilterType.DO_TABLE: "tbl_list",
    FilterType.IGNORE_TABLE: "tbl_list",
    FilterType.WILD_DO_TABLE: "wild_tbl_list",
    FilterType.WILD_IGNORE_TABLE: "wild_tbl_list",
    FilterType.REWRITE_DB: "db_pair_list",
}
_FILTER_LINES = "\n  | ".join(f"{t.keyword} = ({_LIST_NAMES[t]})" for t in FILTER_TYPES)

_SOURCE_OPTIONS = "\n  | ".join(
    f"{name} = {'integer' if kind == 'number' else chr(39) + 'string' + chr(39)}" for name, kind in SUPPORTED_OPTIONS.items()
)

TOPICS: tuple[HelpTopic, ...] = (
    HelpTopic(
        "CHANGE REPLICATION FILTER",
        f"""
CHANGE REPLICATION FILTER filter[, filter][, ...] [FOR CHANNEL channel]

filter: {{
    {_FILTER_LINES}
}}

db_list:       db_name[, db_name][, ...]
tbl_list:      db_name.table_name[, db_name.table_name][, ...]
wild_tbl_list: 'db_pattern.table_pattern'[, 'db_pattern.table_pattern'][, ...]
db_pair_list:  (from_db, to_db)[, (from_db, to_db)][, ...]
""",
        "Sets the replication filter rules of the given types, replacing each type's rules "
        "completely; an empty list () removes that type's rules; types not named keep theirs. "
        "Without FOR CHANNEL every configured channel and the global filter (which new channels "
        "copy) are changed; FOR CHANNEL 'name' changes that channel only, which must be "
        "configured. The SQL (applier) thread of each channel changed must be stopped.",
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales, hr),\n"
        "    REPLICATE_WILD_IGNORE_TABLE = ('sales.tmp%') FOR CHANNEL 'ch1';",
        MANUAL + "change-replication-filter.html",
    ),
    HelpTopic(
        "CHANGE REPLICATION SOURCE TO",
        f"""
CHANGE REPLICATION SOURCE TO option[, option][, ...] [FOR CHANNEL channel]

option: {{
    {_SOURCE_OPTIONS}
}}
""",
        "Creates the channel if it does not exist and stores its connection settings; a channel "
        "is configured once SOURCE_HOST is set. No connection is made: the replica is simulated. "
        "CHANGE MASTER TO with MASTER_* option names is the deprecated spelling (warning 1287).",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'db1.example.com', SOURCE_PORT = 3306\n"
        "    FOR CHANNEL 'ch1';",
        MANUAL + "change-replication-source-to.html",
        aliases=("CHANGE MASTER TO",),
    ),
    HelpTopic(
        "RESET REPLICA",
        "RESET REPLICA [ALL] [FOR CHANNEL channel]",
        "Forgets the replication position (relay log and source log coordinates); with ALL the "
        "channel itself, its connection settings and its filters are removed too. Without FOR "
        "CHANNEL every channel is reset. The threads must be stopped. "
        "RESET SLAVE is the deprecated spelling.",
        "RESET REPLICA ALL FOR CHANNEL 'ch1';",
        MANUAL + "reset-replica.html",
        aliases=("RESET SLAVE",),
    ),
    HelpTopic(
        "SHOW REPLICA STATUS",
        "SHOW REPLICA STATUS [FOR CHANNEL channel]",
        "One row per channel with its settings, thread states and the Replicate_* filter columns; "
        "use \\G for one line per column. SHOW SLAVE STATUS is the deprecated spelling (8.0 "
        "column names).",
        "SHOW REPLICA STATUS FOR CHANNEL 'ch1'\\G",
        MANUAL + "show-replica-status.html",
        aliases=("SHOW SLAVE STATUS",),
    ),
    HelpTopic(
        "START REPLICA",
        """
START REPLICA [thread_type[, thread_type]] [FOR CHANNEL channel]

thread_type: { SQL_THREAD | IO_THREAD | RELAY_THREAD }
""",
        "Starts the receiver (IO_THREAD) and/or applier (SQL_THREAD) thread of configured "
        "channels; without a thread type both start. Without FOR CHANNEL every configured channel "
        "is started. Threads already running earn note 3083. START SLAVE is the deprecated "
        "spelling.",
        "START REPLICA SQL_THREAD FOR CHANNEL 'ch1';",
        MANUAL + "start-replica.html",
        aliases=("START SLAVE",),
    ),
    HelpTopic(
        "STOP REPLICA",
        """
STOP REPLICA [thread_type[, thread_type]] [FOR CHANNEL channel]

thread_type: { SQL_THREAD | IO_THREAD | RELAY_THREAD }
""",
        "Stops the given threads (both without a thread type). CHANGE REPLICATION FILTER needs the "
        "SQL thread stopped. Without FOR CHANNEL every configured channel is stopped. Threads "
        "already stopped earn note 3084. STOP SLAVE is the deprecated spelling.",
        "STOP REPLICA SQL_THREAD;",
        MANUAL + "stop-replica.html",
        aliases=("STOP SLAVE",),
    ),
    HelpTopic(
        "SELECT",
        f"""
SELECT {{ * | COUNT(*) | column[, column][, ...] }}
    FROM {SCHEMA}.{{ {CHANNEL_TABLE} | {GLOBAL_TABLE} }}
    [WHERE column {{ = | <> | != }} value [AND ...]]
    [ORDER BY column [ASC | DESC][, ...]]
    [LIMIT row_count]

{CHANNEL_TABLE} columns: {', '.join(CHANNEL_COLUMNS)}
{GLOBAL_TABLE} columns: {', '.join(GLOBAL_COLUMNS)}
""",
        "Queries the performance_schema tables that show the filters: one row per filter type "
        "that has been set, per channel (replication_applier_filters, with a COUNTER of the events "
        "each type decided) or for the global filter (replication_applier_global_filters).",
        f"SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE\n"
        f"    FROM {SCHEMA}.{CHANNEL_TABLE}\n"
        f"    WHERE CHANNEL_NAME = 'ch1' ORDER BY FILTER_NAME;",
        MANUAL + "performance-schema-replication-applier-filters-table.html",
        aliases=(CHANNEL_TABLE.upper(), GLOBAL_TABLE.upper()),
    ),
    HelpTopic(
        "SHOW WARNINGS",
        "SHOW WARNINGS\nSHOW COUNT(*) WARNINGS",
        "Lists the errors, warnings and notes of the previous statement (or counts them). "
        "The client command warnings (\\W) prints them after every statement.",
        "SHOW WARNINGS;",
        MANUAL + "show-warnings.html",
    ),
    HelpTopic(
        "EXPLAIN REPLICATION",
        "EXPLAIN REPLICATION OF 'sql' [DEFAULT DATABASE db] [FORMAT [=] {STATEMENT | ROW | BOTH}]\n"
        "    [FOR CHANNEL channel]",
        "replfilter extension, not MySQL. Shows what each channel (default: every configured "
        "channel) would do with the statement under each binary log format (default: both, side "
        "by side): one row per channel, format and event, with the decision (APPLY/SKIP), the "
        "deciding filter type and rule, the rewritten database and the reason. Counters do not move.",
        "EXPLAIN REPLICATION OF 'UPDATE db2.t3 SET x = 1' DEFAULT DATABASE db1;",
        "README.md, section \"Would it replicate? Evaluating events\"",
    ),
    HelpTopic(
        "REPLAY EVENTS",
        "REPLAY EVENTS FROM 'events.jsonl' [FOR CHANNEL channel]",
        "replfilter extension, not MySQL. Feeds a JSON-lines file of events (the format of "
        "replfilter evaluate) through the current filters, moves the COUNTER column of "
        "performance_schema.replication_applier_filters, and returns counts per channel and "
        "decision. Bad lines become warnings naming file and line. With FOR CHANNEL every event "
        "is taken as arriving on that channel.",
        "REPLAY EVENTS FROM 'events.jsonl' FOR CHANNEL 'ch1';",
        "README.md, section \"Would it replicate? Evaluating events\"",
    ),
    HelpTopic(
        "LOAD SCHEMA",
        "LOAD SCHEMA FROM 'file' [FOR CHANNEL channel]",
        "replfilter extension, not MySQL. Loads a source's schema (mysqldump --no-data output, a "
        "full dump or any DDL script; without FOR CHANNEL, every channel's source) and replays "
        "each DDL statement through the channel's filters onto the replica's catalog, so a table "
        "created under an ignore rule is not on the replica. Statements the server would refuse "
        "become warnings naming file and line. The command-line form is --schema [channel:]FILE.",
        "LOAD SCHEMA FROM 'shop.sql' FOR CHANNEL 'ch1';",
        "README.md, section \"The schema: what each source has, and what reached the replica\"",
    ),
    HelpTopic(
        "SHOW TABLES",
        "SHOW DATABASES [LIKE 'pattern']\n"
        "SHOW [FULL] TABLES {FROM | IN} db [LIKE 'pattern']\n"
        "SHOW TRIGGERS {FROM | IN} db [LIKE 'table_pattern']",
        "The replica's catalog, in MySQL's output format: what the filters let through from the "
        "sources' schemas (given with --schema or LOAD SCHEMA) and what applied events changed. "
        "Without a schema the catalog is not known, and these statements say so.",
        "SHOW FULL TABLES FROM shop LIKE 'order%';",
        MANUAL + "show-tables.html",
        aliases=("SHOW DATABASES", "SHOW TRIGGERS", "SHOW FULL TABLES"),
    ),
    HelpTopic(
        "LINT REPLICATION",
        "LINT REPLICATION [FOR CHANNEL channel]",
        "replfilter extension, not MySQL. Checks the current filters for the mistakes that lose "
        "data silently (comma in a name, rules on a rewritten database, unescaped '_', rules that "
        "never match or never decide, channels that miss global rules...): one row per finding "
        "with its level, stable code, the rule, what happens, and a CHANGE REPLICATION FILTER "
        "statement that fixes it when one exists. The binary log format is taken as unknown.",
        "LINT REPLICATION FOR CHANNEL 'ch1';",
        "README.md, section \"Lint: filter mistakes found before they lose data\"",
    ),
)


def _normalise(text: str) -> str:
    return " ".join(text.replace(";", " ").split()).upper()


def _names(topic: HelpTopic) -> tuple[str, ...]:
    return (topic.name, *topic.aliases)


def topic_names() -> tuple[str, ...]:
    """Every name ``help`` accepts, for completion and the contents list."""
    return tuple(name for topic in TOPICS for name in _names(topic))


def contents() -> str:
    lines = ["You asked for help about help category: \"Contents\"",
             "For more information, type 'help <item>', where <item> is one of the following",
             "topics:"]
    lines += [f"   {topic.name}" for topic in TOPICS]
    return "\n".join(lines) + "\n\n"


def lookup(request: str) -> str:
    """The text ``help <request>`` prints."""
    wanted = _normalise(request.strip().strip("'\""))
    if wanted in ("CONTENTS", ""):
        return contents()
    for topic in TOPICS:
        if wanted in _names(topic):
            return topic.render()
    matches = [topic for topic in TOPICS if any(name.startswith(wanted) for name in _names(topic))]
    if len(matches) == 1:
        return matches[0].render()
    if matches:
        lines = ["Many help items for your request exist.",
                 "To make a more specific request, please type 'help <item>',",
                 "where <item> is one of the following",
                 "topics:"]
        lines += [f"   {topic.name}" for topic in matches]
        return "\n".join(lines) + "\n\n"
    return "Nothing found\nPlease try to run 'help contents' for a list of all accessible topics\n\n"
