"""Query events decided by Spark column expressions: the default database against the database
rules, then the statement's one table against the table rules, as the evaluator's
``decide_query`` does (mysql-filter-evaluation.md, sections 3.2 and 3.3).

Why: in a ROW-format relay log the query events are the DDL (0.5 % of the bench input), and
while any row takes the exact path its keys are collected and decided on the driver before the
write, and every row of the write looks its code up by key hash. Compiled, the exact path's
aggregate finds nothing on such input (README, "The Spark runtime").

What is covered (:func:`covered_queries`): a query event of a compiled channel whose command is
known and not ``DROP_TRIGGER`` (decided by the trigger's table as found on the replica), whose
default database is ASCII, and whose table list is given (a NULL list may still wait for the
statement's SQL text, which the exact path refuses) and has at most one table, with an ASCII,
non-empty name and a known updating flag; a database statement only on a channel where Table B
needs no test of its own (:func:`database_statements_compiled`). A longer list (multi-table DML, ``RENAME TABLE``,
``DROP TABLE a, b``) is decided by the first updating table that hits a rule, which the exact
path does per distinct key.

A statement and a row event share one branch per channel: what the statement decides before or
between the rule tables is one small column, the same for every channel (:func:`stage`), and
the branch tests it around Table A (:func:`conditions`). So the Table A and Table C tests, and
their codes, are the row events' own, and the Rule column of a table hit comes from the
statement's table as a row event's comes from its table. (A branch of its own per channel for
statements doubled the generated code, and the compiled frame ran 3.4 x slower: 8.1 against 2.4
s per 4 M events.)
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from ..core.filters import FilterType
from ..evaluation.evaluator import REWRITE_UNCOUNTED_COMMANDS
from ..evaluation.events import BOUNDARY_COMMANDS, DATABASE_COMMANDS, CommandKind
from ..evaluation.rule_checks import CompiledFilters
from .compiled_like import is_ascii
from .schema import UPDATING_UNKNOWN

FT = FilterType

QUERY_COMMANDS = tuple(k.value for k in CommandKind if k is not CommandKind.DROP_TRIGGER)
"""Commands compiled: every known one but DROP TRIGGER."""
_NEVER_FILTERED = [k.value for k in BOUNDARY_COMMANDS]
_DATABASE = [k.value for k in DATABASE_COMMANDS]
_REWRITE_UNCOUNTED = [k.value for k in REWRITE_UNCOUNTED_COMMANDS]


def table_field(name: str) -> Column:
    """A field of the statement's first table (NULL when the list is NULL or empty; never an
    error under ANSI mode)."""
    return F.try_element_at(F.col("tables"), F.lit(1))[name]


def table_count() -> Column:
    """Tables in the statement's list (NULL for a NULL list: not covered)."""
    return F.size(F.col("tables"))


def covered_queries(channels: tuple[str, ...], database_channels: tuple[str, ...], unknown_field: bool) -> Column:
    """True for the query events compiled here (the module docstring says which).
    ``database_channels``: the channels whose database statements are compiled too (those with
    database rules, or with no wild rules: Table B then decides as Table A's "applied").
    ``unknown_field``: the table entries have ``updating_unknown`` (schema.py)."""
    if not channels:
        return F.lit(False)
    n = table_count()
    table, db = table_field("table"), table_field("db")
    one = table.isNotNull() & (table != "") & is_ascii(table) & (db.isNull() | is_ascii(db))
    if unknown_field:
        one = one & ~F.coalesce(table_field(UPDATING_UNKNOWN), F.lit(False))
    test = (
        (F.col("type") == "query")
        & F.col("channel").isin(list(channels))
        & F.col("command").isin(list(QUERY_COMMANDS))
        & (~F.col("command").isin(_DATABASE) | F.col("channel").isin(list(database_channels)))
        & is_ascii(F.coalesce(F.col("default_db"), F.lit("")))
        & F.col("tables").isNotNull()
        & ((n == 0) | ((n == 1) & one))
    )
    return F.coalesce(test, F.lit(False))


def database_statements_compiled(c: CompiledFilters) -> bool:
    """Whether a channel's CREATE/ALTER/DROP DATABASE are compiled: with database rules they
    are applied once Table A passes; without, Table B tests ``db.`` against the wild rules,
    which, when there are none, applies with no rule, as Table A's "applied" code does. A
    channel with wild rules and no database rules leaves them to the exact path (rare events;
    Table B's own tests would double the channel's generated code)."""
    return c.has_db_rules or not (c.wild_do or c.wild_ignore)


def rewrite_counted(rewritten: Column, folded: Column) -> Column:
    """Whether a covered query event moves the REWRITE_DB COUNTER: its (folded) default
    database changed, except for CREATE/DROP DATABASE, BEGIN and COMMIT (quirk 1 of
    ``decide_query``: ``A`` -> ``a`` under ``lower_case_table_names`` 1 never counts)."""
    return rewritten.isNotNull() & (rewritten != folded) & ~F.col("command").isin(_REWRITE_UNCOUNTED)


NEVER_FILTERED, APPLIED, NOT_UPDATING = 0, 1, 2
"""The values of :func:`stage`."""


def stage(covered: Column) -> Column:
    """Per row, what a covered query event's statement decides before or between the rule
    tables, the same whatever the channel: :data:`NEVER_FILTERED` (before Table A),
    :data:`APPLIED` once Table A passes (a database statement, no table list, SET or DROP
    TEMPORARY TABLE IF EXISTS), :data:`NOT_UPDATING` (its one table is not updating: skipped
    when table rules are on); NULL when its table goes to Table C as a row event's does, and
    on every other row."""
    command = F.col("command")
    exempt = (command == "SET_OPTION") | (
        (command == "DROP_TABLE") & F.coalesce(F.col("temporary"), F.lit(False)) & F.coalesce(F.col("if_exists"), F.lit(False))
    )
    return (
        F.when(~covered, F.lit(None).cast("int"))
        .when(command.isin(_NEVER_FILTERED), F.lit(NEVER_FILTERED))
        .when(command.isin(_DATABASE) | (table_count() == 0) | exempt, F.lit(APPLIED))
        .when(~F.coalesce(table_field("updating"), F.lit(True)), F.lit(NOT_UPDATING))
    )


def layout(c: CompiledFilters) -> list[tuple[str, FT | None, FT | None, FT | None, str | None, str | None]]:
    """One channel's query-only outcomes, after its row outcomes: (verdict, deciding type,
    database type counted, table type counted, constant rule, where the rule text comes from)."""
    do = FT.DO_DB if c.do_db else None
    return [
        ("APPLY", None, None, None, None, None),  # never filtered: no rule is looked at
        ("SKIP", None, do, None, None, None),  # the one table is not updating
    ]


def conditions(c: CompiledFilters, stage_column: Column, first: int, query_first: int) -> tuple[list, list]:
    """A channel's query conditions as (test, code), to put before and after its Table A
    conditions (:func:`stage`); ``first + 2`` is the row events' "applied without a table
    check" code, ``query_first`` the first of :func:`layout`'s."""
    before = [(stage_column == NEVER_FILTERED, query_first)]
    after = [
        (stage_column == APPLIED, first + 2),
        (stage_column == NOT_UPDATING, query_first + 1 if c.table_rules_on else first + 2),
    ]
    return before, after


__all__ = [
    "QUERY_COMMANDS", "conditions", "covered_queries", "database_statements_compiled", "layout", "rewrite_counted", "stage",
    "table_count", "table_field",
]
