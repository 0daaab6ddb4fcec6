"""Query events with SQL text but no table list: command and tables from the text.

A query event whose ``tables`` is NULL (the key was absent) or whose ``command`` is NULL (a
Debezium DDL event) and that has ``sql`` gets them from
:func:`replfilter.evaluation.sql.logged_events.analyse_event_sql` — the reader ``replfilter evaluate``
uses (sqlglot's MySQL dialect plus a tokenizer), so Spark and the evaluator read a statement alike.

Batched: the distinct ``(sql, default_db)`` pairs of the batch are parsed in Python with
``mapInArrow`` (one Arrow batch of texts at a time, each distinct text parsed once), and the
result is joined back. Only the rows that need it go through this; the others are untouched.
For CREATE/ALTER/DROP DATABASE read from the text, the event's database becomes the named
database (the source logs it there). A text that cannot be read is a dead letter, not a guess;
a text whose table list cannot be read is decided where the replica's rules decide it whatever
its tables, as ``replfilter evaluate`` decides it (evaluation/undecided.py), when those rules
are given; so is a multi-table UPDATE whose unqualified SET columns' tables are not known (no
source schema: ``updating_unknown``, schema.py) where none of those tables meets a rule; a DROP
TRIGGER waits for the replica's catalog (:mod:`.catalog_follow`).
"""

from __future__ import annotations

from typing import Iterator

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, StringType, StructField, StructType

from ..replica.state import ReplicaState
from .schema import EVENT_COLUMNS, EVENT_SCHEMA, INGESTED_COLUMNS, UPDATING_UNKNOWN, Ingested
from .source_schemas import SourceSchemas

_RESULT = StructType(
    [
        StructField("sql", StringType(), False),
        StructField("default_db", StringType(), False),
        StructField("_r_command", StringType(), True),
        StructField("_r_tables", EVENT_SCHEMA["tables"].dataType, True),
        StructField("_r_event_db", StringType(), True),
        StructField("_r_temporary", BooleanType(), True),
        StructField("_r_if_exists", BooleanType(), True),
        StructField("_r_error", StringType(), True),
        StructField("_r_unknown", StringType(), True),
        StructField("_r_undecided", StringType(), True),
    ]
)


def unresolved_drop_trigger() -> Column:
    """:func:`~replfilter.evaluation.drop_trigger.is_unresolved_drop_trigger` as a column: a DROP
    TRIGGER with its text and an empty table list (the replica finds its table)."""
    return (F.col("type") == "query") & (F.col("command") == "DROP_TRIGGER") & (F.size(F.col("tables")) == 0) \
        & F.col("sql").isNotNull() & (F.col("sql") != "")


def needs_sql_tables(triggers: bool = True) -> Column:
    """Query events whose command or table list must come from their SQL text (with
    ``triggers``, a DROP TRIGGER with an empty list too: its table is the trigger's, which only
    the text names; the replica's catalog gives it, :func:`.catalog_follow.resolve_drop_triggers`)."""
    query = (F.col("type") == "query") & F.col("sql").isNotNull()
    waiting = F.col("tables").isNull() | F.col("command").isNull()
    if triggers:
        waiting = waiting | ((F.col("command") == "DROP_TRIGGER") & (F.size(F.col("tables")) == 0))
    return F.coalesce(query & waiting, F.lit(False))


def key_needs_sql(key, triggers: bool = True) -> bool:
    """Whether a key of pass 1 (a dict or Row of the key columns) is a query event that may still
    wait for its table list or command: :func:`needs_sql_tables` for a key, which has no ``sql``
    column (so a row it stands for may also have no text, and need nothing)."""
    return key["type"] == "query" and (
        key["tables"] is None or key["command"] is None
        or (triggers and key["command"] == "DROP_TRIGGER" and not key["tables"])
    )


def analyse_texts(
    texts: DataFrame, sources: SourceSchemas | None = None, replica_known: bool = False, rules_known: bool = False
) -> DataFrame:
    """``(sql, default_db)`` rows -> the analysis of each (``_RESULT`` schema). With ``sources``
    the rows also have ``channel``, and each text is read with its channel's source schema, as
    ``replfilter evaluate`` reads it (the result then has ``channel`` too). A DROP TRIGGER is
    read here and decided later, by the replica's catalog where it stands
    (:func:`.catalog_follow.resolve_drop_triggers`): undecided (a dead letter, in ``evaluate``'s
    words) when ``replica_known`` is false, as ``evaluate`` without ``--schema`` decides it.
    A text whose table list cannot be read is undecided too, unless ``rules_known`` (the
    channels' rules are at hand to decide it anyway, :func:`resolve_sql_tables`): then
    ``_r_unknown`` says why, as ``evaluate``'s reader does (:class:`~replfilter.evaluation.event_json.UnknownTables`)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    result = _RESULT if sources is None else StructType([StructField("channel", StringType(), True), *_RESULT.fields])
    arrow_schema = to_arrow_schema(result)

    def run(batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        from replfilter.evaluation.drop_trigger import UNKNOWN_REPLICA
        from replfilter.evaluation.event_json import UNKNOWN_TABLES, EventFormatError, read_event_sql
        from replfilter.evaluation.events import CommandKind

        from .schema import table_values

        for batch in batches:
            rows = []
            channels = batch.column("channel").to_pylist() if sources is not None else [None] * batch.num_rows
            for sql, default_db, channel in zip(batch.column("sql").to_pylist(), batch.column("default_db").to_pylist(), channels):
                row = {"sql": sql, "default_db": default_db}
                catalog = None
                if sources is not None:
                    row["channel"] = channel
                    catalog = sources.catalog("" if channel is None else channel)
                try:  # the JSON reader's own reading: the same refusals, in the same words
                    a = read_event_sql(sql, default_db, catalog)
                except EventFormatError as err:
                    row["_r_error"] = str(err).split(": ", 1)[1]
                else:
                    if a.undecided is not None:  # never a silent APPLY or SKIP on a guessed table list
                        # (the rules decide it where no table that may be updating meets one)
                        row["_r_undecided" if rules_known else "_r_error"] = f"undecided: {a.undecided}"
                    elif a.command is CommandKind.DROP_TRIGGER and (a.trigger is None or not replica_known):
                        row["_r_error"] = UNKNOWN_REPLICA
                    elif not a.tables_known and a.trigger is None:
                        undecided = f"undecided: {UNKNOWN_TABLES}: {'; '.join(a.notes)}"
                        if rules_known:
                            row["_r_unknown"], row["_r_undecided"] = "; ".join(a.notes), undecided
                        else:
                            row["_r_error"] = undecided
                    row.update(
                        _r_command=a.command.value,
                        _r_tables=[table_values(t) for t in a.tables],
                        _r_event_db=a.event_db,
                        _r_temporary=a.temporary,
                        _r_if_exists=a.if_exists,
                    )
                rows.append(row)
            yield pa.RecordBatch.from_pylist(rows, schema=arrow_schema)

    return texts.mapInArrow(run, result)


def _contradiction() -> Column:
    """:func:`replfilter.evaluation.event_json.contradiction` as a column: a given ``command``
    the text's command kind contradicts (the single- and multi-table forms of one statement do
    not; a text read as ``OTHER`` contradicts nothing)."""
    given, read = F.col("command"), F.col("_r_command")
    family = lambda c: F.regexp_replace(c, "_(SELECT|MULTI)$", "")  # noqa: E731
    clash = given.isNotNull() & read.isNotNull() & (read != "OTHER") & (family(given) != family(read))
    message = F.concat(F.lit("'"), given, F.lit("' contradicts the SQL text, which is a "), read,
                       F.lit(" statement (leave out `command` to take the text's)"))
    return F.when(clash, message)


def resolve_sql_tables(
    df: DataFrame, sources: SourceSchemas | None = None, state: ReplicaState | None = None, carry_dead: tuple[str, ...] = ()
) -> Ingested:
    """``df`` (``INGESTED_SCHEMA``, plus any columns the caller carries, such as an order) with
    commands and tables filled in from SQL where needed; unreadable texts become dead letters.
    ``sources`` (:meth:`SourceSchemas.of` the state): each text is read with its channel's
    source schema; the distinct texts are then per channel. ``state``: the replica that decides
    the events, as ``evaluate`` has it: with its catalog a DROP TRIGGER stays an event
    (:func:`analyse_texts`), and with its channels' rules a statement whose table list the text
    cannot give is decided where the rules decide it whatever its tables
    (:func:`unless_rules_decide`), as is one whose SET columns' tables are not known (no source
    schema); without it, all three are dead letters. A dead letter names the event's file when
    ``df`` carries it (``_source``); ``carry_dead``: more carried columns the dead letters keep
    (e.g. ``_block`` and ``_pos``, to number a JSON line)."""
    need = needs_sql_tables()
    rest = df.where(~need)
    todo = df.where(need)
    on = ["sql", "default_db"] if sources is None else ["sql", "default_db", "channel"]
    texts = todo.select(*on).distinct()
    analysed = analyse_texts(texts, sources, state is not None and state.replica_catalog is not None, state is not None)
    joined = todo.join(analysed, on=on, how="left")
    carried = [c for c in df.columns if c not in INGESTED_COLUMNS]
    event_json = F.to_json(F.struct(*[F.col(c) for c in EVENT_COLUMNS]))
    joined = joined.withColumns({
        "_r_error": F.coalesce(F.col("_r_error"), _contradiction()),
        "_r_record": F.coalesce(F.col("record"), event_json),  # a dead letter shows the record as read
    })
    derived_command = F.col("command").isNull()
    derived = joined.select(
        *[
            {
                "command": F.when(F.col("command").isNotNull() & (F.col("_r_command") == "OTHER"), F.col("command"))
                .otherwise(F.coalesce(F.col("_r_command"), F.col("command"))),
                "tables": F.coalesce(F.col("tables"), F.col("_r_tables")),
                "default_db": F.when(derived_command & F.col("_r_event_db").isNotNull(), F.col("_r_event_db")).otherwise(F.col("default_db")),
                "temporary": F.when(derived_command, F.col("_r_temporary")).otherwise(F.col("temporary")),
                "if_exists": F.when(derived_command, F.col("_r_if_exists")).otherwise(F.col("if_exists")),
            }.get(c, F.col(c)).alias(c)
            for c in INGESTED_COLUMNS
        ],
        *carried, "_r_error", "_r_record", "_r_unknown", "_r_undecided",
    )
    if state is not None:
        unknown = F.coalesce(F.col("_r_undecided").isNotNull() & F.col("_r_error").isNull(), F.lit(False))
        derived = derived.where(~unknown).unionByName(unless_rules_decide(derived.where(unknown), state))
    resolved = derived.where(F.col("_r_error").isNull()).select(*INGESTED_COLUMNS, *carried)
    dead = derived.where(F.col("_r_error").isNotNull()).select(
        F.col("_r_error").alias("reason"),
        F.col("_r_record").alias("record"),
        source_file(df).alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
        *carry_dead,
    )
    return Ingested(rest.unionByName(resolved), dead)


def source_file(events: DataFrame) -> Column:
    """The file each event came from, when the reader carried it (``_source``), else NULL: what
    a dead letter made of the event keeps in ``source_file``."""
    return (F.col("_source") if "_source" in events.columns else F.lit(None)).cast("string")


UNKNOWN_UPDATING = (
    "which of the statement's tables it updates is not known (unqualified SET columns): give the "
    "source's schema, or the replica's state, whose rules decide it where none of those tables meets one"
)


def decide_unknown_updating(events: DataFrame, state: ReplicaState | None, source: Column | None = None) -> Ingested:
    """``events`` (``INGESTED_SCHEMA``) whose table lists already hold tables with an unknown
    updating flag (``updating_unknown``, schema.py; from a binary log, say): each such event is
    decided by ``state``'s rules where they decide it, as ``evaluate`` decides it
    (:func:`unless_rules_decide`); else, or with no ``state``, it is a dead letter with the
    evaluator's undecided reason (``source``: the dead letter's file; by default the events'
    ``_source`` when they carry it, :func:`source_file`). One compiled check of
    the rows (no lambda), and Python only for those events."""
    unknown = F.coalesce(
        (F.col("type") == "query") & F.array_contains(F.col(f"tables.{UPDATING_UNKNOWN}"), F.lit(True)), F.lit(False)
    )
    flagged = events.where(unknown).withColumns({
        "_r_error": F.lit(None if state is not None else f"undecided: {UNKNOWN_UPDATING}").cast("string"),
        "_r_unknown": F.lit(None).cast("string"),
        "_r_undecided": F.lit(f"undecided: {UNKNOWN_UPDATING}"),
    })
    if state is not None:
        flagged = unless_rules_decide(flagged, state)
    dead = flagged.where(F.col("_r_error").isNotNull()).select(
        F.col("_r_error").alias("reason"),
        F.coalesce(*[F.col(c) for c in ("record",) if c in events.columns],
                   F.to_json(F.struct(*[F.col(c) for c in EVENT_COLUMNS]))).alias("record"),
        (source if source is not None else source_file(events)).cast("string").alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
    )
    kept = flagged.where(F.col("_r_error").isNull()).select(*events.columns)
    return Ingested(events.where(~unknown).unionByName(kept), dead)


def unless_rules_decide(unknown: DataFrame, state: ReplicaState) -> DataFrame:
    """Events whose table list is not known in full, decided as ``evaluate`` decides them: kept
    where the channel's rules decide it anyway (its key then decides it as the evaluator does:
    the same event), else ``_r_error`` is the evaluator's undecided reason. Two kinds, both
    carrying ``_r_undecided`` (the reason when no event can be made of the row) and
    ``_r_error``: a text whose table list cannot be read (``_r_unknown`` says why,
    :func:`~replfilter.evaluation.undecided.unless_tables_matter`), and tables whose updating
    flag is not known (``updating_unknown``, schema.py: decided by the rules where none of them
    meets one, mysql-filter-evaluation.md, Table C). Such texts are rare (a statement the readers
    cannot parse, unqualified SET columns with no schema): the rows go through Python as they are."""
    from ..evaluation.evaluator import channel_filters

    schema = unknown.schema
    # (the state itself does not pickle: its catalogs hold read-only mappings)
    filter_sets = {channel.name: channel_filters(state, channel.name) for channel in state.channels}
    collation = state.collation

    def run(batches):
        import pyarrow as pa

        from replfilter.evaluation.evaluator import compile_filters, decide_compiled
        from replfilter.evaluation.undecided import unless_tables_matter

        from .key_events import InvalidEventError, event_from_key

        compiled: dict = {}
        for batch in batches:
            values = batch.to_pylist()
            errors = []
            for row in values:
                error = row["_r_undecided"]
                try:
                    event = event_from_key(row)
                except InvalidEventError:
                    errors.append(error)  # not an event: refused later for what it is
                    continue
                rules = compiled.get(event.channel)
                if rules is None:
                    if event.channel not in filter_sets:  # an unknown channel: refused for that
                        errors.append(error)
                        continue
                    rules = compiled[event.channel] = compile_filters(filter_sets[event.channel], collation)
                decision = unless_tables_matter(decide_compiled(rules, event), event, rules, row["_r_unknown"])
                errors.append(decision.reason if decision.decision is None else None)
            index = batch.schema.get_field_index("_r_error")
            columns = list(batch.columns)
            columns[index] = pa.array(errors, pa.string())
            yield pa.RecordBatch.from_arrays(columns, schema=batch.schema)

    return unknown.mapInArrow(run, schema)


__all__ = [
    "UNKNOWN_UPDATING", "analyse_texts", "decide_unknown_updating", "key_needs_sql", "needs_sql_tables", "resolve_sql_tables",
    "source_file", "unless_rules_decide", "unresolved_drop_trigger",
]
