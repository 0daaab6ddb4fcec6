"""What ``from_dict`` (:mod:`replfilter.evaluation.event_json`) requires of an event's values,
as one column expression over the event's fields: shared by the native checks of JSON lines
(:mod:`.json_lines`) and of event rows (:mod:`.event_rows`)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from ..evaluation.events import CommandKind, TransactionKind
from .schema import UPDATING_UNKNOWN

COMMAND_VALUES = [c.value for c in CommandKind]
KIND_VALUES = [k.value for k in TransactionKind]


def values_ok(e: Column) -> Column:
    """What ``from_dict`` requires of the values themselves (their JSON types are those of the
    rewriting): version 1, the required keys, known commands and kinds, a non-empty table name
    in every entry of a table list (no entry null)."""
    typ = e["type"]
    names = e["tables"]["table"]
    tables_ok = e["tables"].isNull() | (
        ~F.array_contains(names, F.lit("")) & (F.size(F.array_compact(names)) == F.size(e["tables"]))
    )
    query = (typ == "query") & e["command"].isin(*COMMAND_VALUES) & tables_ok
    row = (typ == "row") & e["db"].isNotNull() & e["table"].isNotNull()
    transaction = (typ == "transaction") & e["kind"].isin(*KIND_VALUES)
    return (e["v"] == 1) & (query | row | transaction)


def defaulted_tables(tables: Column) -> Column:
    """A table list with ``updating``'s default (true) filled in where it is NULL, unless whether
    the table is updating is not known (``updating_unknown``, schema.py: then it stays NULL).
    The (interpreted) lambda runs only for the rows that have an entry without ``updating``."""
    def entry(t: Column) -> Column:
        unknown = F.coalesce(t[UPDATING_UNKNOWN], F.lit(False))
        return F.struct(
            t["db"].alias("db"), t["table"].alias("table"),
            F.when(unknown, F.lit(None).cast("boolean")).otherwise(F.coalesce(t["updating"], F.lit(True))).alias("updating"),
            F.when(unknown, F.lit(True)).alias(UPDATING_UNKNOWN),
        )

    lacks_updating = F.size(F.array_compact(tables["updating"])) != F.size(tables)
    return F.when(lacks_updating, F.transform(tables, entry)).otherwise(tables)

