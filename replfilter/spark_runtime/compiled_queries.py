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
non-empty name and a known updating flag. A longer list (multi-table DML, ``RENAME TABLE``,
``DROP TABLE a, b``) is decided by the first updating table that hits a rule, which the exact
path does per distinct key. Each channel's query outcomes follow its row outcomes
(:func:`layout`); the Table A and Table C codes are the row events' own, so the Rule column
of a table hit comes from the statement's table as a row event's comes from its table.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from ..core.filters import FilterType
from ..evaluation.evaluator import REWRITE_UNCOUNTED_COMMANDS
from ..evaluation.events import BOUNDARY_COMMANDS, DATABASE_COMMANDS, CommandKind
from ..evaluation.rule_checks import CompiledFilters
from .compiled_like import first_match, is_ascii
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


def covered_queries(channels: tuple[str, ...], unknown_field: bool) -> Column:
    """True for the query events compiled here (the module docstring says which).
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
        & is_ascii(F.coalesce(F.col("default_db"), F.lit("")))
        & F.col("tables").isNotNull()
        & ((n == 0) | ((n == 1) & one))
    )
    return F.coalesce(test, F.lit(False))


def rewrite_counted(rewritten: Column, folded: Column) -> Column:
    """Whether a covered query event moves the REWRITE_DB COUNTER: its (folded) default
    database changed, except for CREATE/DROP DATABASE, BEGIN and COMMIT (quirk 1 of
    ``decide_query``: ``A`` -> ``a`` under ``lower_case_table_names`` 1 never counts)."""
    return rewritten.isNotNull() & (rewritten != folded) & ~F.col("command").isin(_REWRITE_UNCOUNTED)


def layout(c: CompiledFilters) -> list[tuple[str, FT | None, FT | None, FT | None, str | None, str | None]]:
    """One channel's query-only outcomes, in :func:`branch`'s order: (verdict, deciding type,
    database type counted, table type counted, constant rule, where the rule text comes from)."""
    do = FT.DO_DB if c.do_db else None
    out: list[tuple[str, FT | None, FT | None, FT | None, str | None, str | None]] = [
        ("APPLY", None, None, None, None, None),  # never filtered: no rule is looked at
        ("SKIP", None, do, None, None, None),  # the one table is not updating
    ]
    # Table B (Bug #46110): a database statement when there are no database rules
    out += [("APPLY", FT.WILD_DO_TABLE, None, FT.WILD_DO_TABLE, rule, None) for rule in c.wild_do.rules]
    out += [("SKIP", FT.WILD_IGNORE_TABLE, None, FT.WILD_IGNORE_TABLE, rule, None) for rule in c.wild_ignore.rules]
    out += [("SKIP", None, None, None, None, None), ("APPLY", None, None, None, None, None)]
    return out


def branch(
    c: CompiledFilters,
    db_key: Column,
    database_conditions: list[tuple[Column, int]],
    table_conditions: list[tuple[Column, int]],
    table_tail: Column,
    first: int,
    query_first: int,
) -> Column:
    """One channel's outcome code for a covered query event, in ``decide_query``'s order.
    ``database_conditions`` (Table A), ``table_conditions`` and ``table_tail`` (Table C on
    the statement's table) are the row events' own; ``first + 2`` is their "applied without a
    table check" code, ``query_first`` the first of :func:`layout`'s."""
    command = F.col("command")
    applied = F.lit(first + 2)
    conditions: list[tuple[Column, Column]] = [(command.isin(_NEVER_FILTERED), F.lit(query_first))]
    conditions += [(test, F.lit(code)) for test, code in database_conditions]
    database = command.isin(_DATABASE)
    conditions.append((database, applied if c.has_db_rules else _table_b(c, db_key, query_first + 2)))
    conditions.append((table_count() == 0, applied))
    if not c.table_rules_on:
        tail = applied
    else:
        exempt = (command == "SET_OPTION") | (
            (command == "DROP_TABLE") & F.coalesce(F.col("temporary"), F.lit(False)) & F.coalesce(F.col("if_exists"), F.lit(False))
        )
        conditions.append((exempt, applied))
        conditions.append((~F.coalesce(table_field("updating"), F.lit(True)), F.lit(query_first + 1)))
        conditions += [(test, F.lit(code)) for test, code in table_conditions]
        tail = table_tail
    out = F.when(conditions[0][0], conditions[0][1])
    for test, code in conditions[1:]:
        out = out.when(test, code)
    return out.otherwise(tail)


def _table_b(c: CompiledFilters, db_key: Column, first: int) -> Column:
    """Table B: the database's key and a dot against the wild rules, wild-do first."""
    subject = F.concat(db_key, F.lit("."))
    wild_do, wild_ignore = len(c.wild_do.rules), len(c.wild_ignore.rules)
    out: Column = F.lit(first + wild_do + wild_ignore + (0 if wild_do else 1))
    if wild_ignore:
        out = first_match(c.wild_ignore.rules, c, subject, first + wild_do, out)
    if wild_do:
        out = first_match(c.wild_do.rules, c, subject, first, out)
    return out


__all__ = ["QUERY_COMMANDS", "branch", "covered_queries", "layout", "rewrite_counted", "table_count", "table_field"]
