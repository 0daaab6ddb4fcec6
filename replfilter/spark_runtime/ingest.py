"""Input records -> event rows of the published schema, and dead letters for the rest.

Three inputs, one result (:class:`Ingested`: ``events`` with :data:`~.schema.INGESTED_SCHEMA`,
``dead`` with :data:`~.schema.DEAD_LETTER_SCHEMA`); nothing is dropped silently, nothing stops:

* **Event JSON lines** (:func:`parse_event_lines`) — the format of
  :mod:`replfilter.evaluation.events`, read exactly as :func:`~replfilter.evaluation.event_json.from_json`
  reads it. Each line is parsed natively (Spark's ``from_json`` with ``EVENT_SCHEMA``); a line
  is accepted natively only when it is, byte for byte, the JSON text of the values Spark read
  (written back with ``to_json``, up to white space and the NULLs an event may spell out) and
  those values make an event. Every other line — malformed, a wrong type, an unknown key, but
  also valid lines Spark's parser reads differently from Python's (duplicate keys, lone
  surrogates) or writes differently (keys in another order, ``\\u`` escapes) — goes to a small
  Python step that runs ``from_json`` itself: it becomes an event if ``from_json`` accepts it,
  else a dead letter whose ``reason`` is ``from_json``'s error message. So the split equals the
  reference reader's by construction, and valid input in replfilter's or Spark's own writing
  never touches Python. :func:`read_events` parses and checks each line once (a local
  checkpoint), so both passes of ``apply_filters`` read parsed rows.
* **Event rows** (:func:`normalize_event_rows`) — Parquet (or any DataFrame) of
  :data:`~.schema.EVENT_SCHEMA`: NULL optional fields take the JSON defaults; rows that are not
  events (NULL required field, unknown command, a field of another type set...) are dead
  letters with ``from_dict``'s message for the row as a JSON object (NULLs left out).
* **Debezium MySQL change events** (:func:`parse_debezium`) — the JSON envelope, with or
  without the converter's ``schema``/``payload`` wrapper: ``op`` c/u/d/r -> a row event on
  ``source.db``/``source.table`` (a snapshot read ``r`` is treated like an insert); ``op`` t
  (TRUNCATE) -> a TRUNCATE query event on that table; a schema change event (``ddl``,
  ``databaseName``) -> a query event whose command and tables come from the DDL text
  (:mod:`.sql_tables`); transaction metadata (``status`` BEGIN/END) -> BEGIN/COMMIT
  transaction events. The whole record is kept in ``record`` (``before``/``after`` included).
  Tombstones (a null value after a delete) are not change events: dead letters, so they are
  counted, not lost. Debezium has no replication channel: all events go to ``channel``.

:func:`split_unknown_channels` then moves events of channels the replica does not have to the
dead letters (per batch, against the state of that batch).
"""

from __future__ import annotations

import json
from typing import Callable, Iterator, Sequence

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType
from pyspark.sql.window import Window

from ..evaluation.event_lines import JSON_BLANKS
from ..evaluation.events import CommandKind, TransactionKind
from ..replica.state import ReplicaState
from .schema import (
    DEAD_LETTER_SCHEMA, EVENT_COLUMNS, EVENT_SCHEMA, INGESTED_COLUMNS, INGESTED_SCHEMA, TABLE_SCHEMA_V1,
    UPDATING_UNKNOWN, Ingested,
)
from .sql_tables import decide_unknown_updating, needs_sql_tables, resolve_sql_tables
from .source_schemas import SourceSchemas

_TYPE_FIELDS = {
    "query": ("v", "type", "channel", "default_db", "command", "tables", "sql", "temporary", "if_exists"),
    "row": ("v", "type", "channel", "db", "table"),
    "transaction": ("v", "type", "channel", "kind", "gtid"),
}
_COMMANDS = [c.value for c in CommandKind]
_KINDS = [k.value for k in TransactionKind]


# --- helpers ---------------------------------------------------------------------------------


def _defaulted_table(t: Column) -> Column:
    """One table entry with ``updating``'s default (true) filled in, unless whether it is
    updating is not known (``updating_unknown``: then NULL, schema.py)."""
    unknown = F.coalesce(t[UPDATING_UNKNOWN], F.lit(False))
    return F.struct(
        t["db"].alias("db"), t["table"].alias("table"),
        F.when(unknown, F.lit(None).cast("boolean")).otherwise(F.coalesce(t["updating"], F.lit(True))).alias("updating"),
        F.when(unknown, F.lit(True)).alias(UPDATING_UNKNOWN),
    )


def _current_tables(df: DataFrame) -> DataFrame:
    """``df`` with a ``tables`` column of :data:`~.schema.TABLE_SCHEMA_V1` (written before
    ``updating_unknown`` existed) given that field, NULL: the same events."""
    element = getattr(df.schema["tables"].dataType, "elementType", None)
    if element is None or element.names != TABLE_SCHEMA_V1.names:
        return df
    upgraded = F.transform(F.col("tables"), lambda t: F.struct(
        t["db"].alias("db"), t["table"].alias("table"), t["updating"].alias("updating"),
        F.lit(None).cast("boolean").alias(UPDATING_UNKNOWN)))
    return df.withColumn("tables", upgraded)


def _source(df: DataFrame, source_col: str | None) -> Column:
    return F.col(source_col).cast("string") if source_col else F.lit(None).cast("string")


def _python_parse_schema() -> StructType:
    return StructType([
        *INGESTED_SCHEMA.fields,
        StructField("_error", StringType(), True),
        StructField("source_file", StringType(), True),
        StructField("record_bytes", BinaryType(), True),
        StructField("_pos", LongType(), True),
        StructField("_block", LongType(), True),
    ])


def _parse_in_python(df: DataFrame, how: str, channels: Sequence[str] | None = None) -> DataFrame:
    """The reference reader on the records native parsing could not accept. ``how`` is
    ``"json"`` (column ``_record``: the line's bytes, read by
    :func:`~replfilter.evaluation.event_lines.read_line` as ``replfilter evaluate`` reads it) or
    ``"row"`` (``_record``: the row as JSON with NULL fields left out). Output: event columns,
    ``record``, ``_error``, ``source_file``, ``record_bytes`` (a line that is not UTF-8).
    ``channels``: the replica's channels; an event of another is refused with the evaluator's
    message, its record as read."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    out_schema = _python_parse_schema()
    arrow_schema = to_arrow_schema(out_schema)

    def run(batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        from replfilter.evaluation.evaluator import UnknownChannelError as _Unknown
        from replfilter.evaluation.event_json import UnknownTables as _UnknownTables
        from replfilter.evaluation.event_json import from_dict as _from_dict
        from replfilter.evaluation.event_lines import read_line as _read_line

        known = None if channels is None else frozenset(channels)

        for batch in batches:
            records = batch.column("_record").to_pylist()
            sources = batch.column("_source").to_pylist()
            names = batch.schema.names
            positions = batch.column("_pos").to_pylist() if "_pos" in names else [None] * len(records)
            blocks = batch.column("_block").to_pylist() if "_block" in names else [None] * len(records)
            rows = []
            for record, source, position, block in zip(records, sources, positions, blocks):
                row = {name: None for name in out_schema.names}
                row["source_file"] = source
                row["_pos"], row["_block"] = position, block
                try:
                    try:
                        if how == "json":
                            event = _read_line(record)
                            if event is None:  # blank once its byte order mark is gone: skipped
                                continue
                        else:  # a Parquet row: the fields of its own type, NULLs left out
                            data = json.loads(record)
                            own = _TYPE_FIELDS.get(data.get("type"))
                            for t in data.get("tables") or ():  # a field of the row form only
                                if isinstance(t, dict):
                                    t.pop(UPDATING_UNKNOWN, None)
                            event = _from_dict({k: v for k, v in data.items() if own is None or k in own})
                    except _UnknownTables as err:  # an event: its text is read again (sql_tables.py)
                        event = err.event
                    if known is not None and event.channel not in known:
                        raise _Unknown(event.channel)
                except ValueError as err:  # not UTF-8, not JSON, not an event
                    row["_error"] = str(err)
                    if isinstance(record, bytes):
                        row["record"] = record.decode("utf-8", "replace")
                        row["record_bytes"] = None if row["record"].encode("utf-8") == record else record
                    else:
                        row["record"] = record
                else:
                    row.update(event.to_dict())
                    if row["type"] == "query" and "tables" not in json.loads(record):
                        row["tables"] = None  # absent in the record: sql_tables may derive it
                rows.append(row)
            yield pa.RecordBatch.from_pylist(rows, schema=arrow_schema)

    return df.mapInArrow(run, out_schema)


def _split_python(parsed: DataFrame, lines: DataFrame | None = None, positioned: bool = False) -> Ingested:
    carried = [F.col("source_file").alias("_source"), "_block", "_pos"] if positioned else []
    events = parsed.where(F.col("_error").isNull()).select(*INGESTED_COLUMNS, *carried)
    dead = parsed.where(F.col("_error").isNotNull())
    if lines is None:
        line = F.lit(None).cast("long")
    else:
        dead = _with_line_numbers(dead, lines)
        line = F.col("_line")
    dead = dead.select(
        F.col("_error").alias("reason"), F.col("record"), F.col("source_file"), line.alias("line"), F.col("record_bytes")
    )
    return Ingested(events, dead)


def _with_line_numbers(dead: DataFrame, lines: DataFrame) -> DataFrame:
    """``_line``: each dead letter's line number in its file, 1-based, blank lines counted.

    Lines get consecutive positions within a partition as they are scanned (``_pos``, taken
    before any filter), and a file's lines are read block by block (``_block``: the byte offset
    the block starts at), each block within one partition. So a line's number is its position
    minus its block's first, plus the lines of the file's earlier blocks. Only batches with dead
    letters pay for it: one more aggregate over their lines, a few rows per file."""
    blocks = lines.groupBy(F.col("_source").alias("_in_file"), F.col("_block").alias("_in_block")).agg(
        F.min("_pos").alias("_first"), F.count(F.lit(1)).alias("_n")
    )
    earlier = Window.partitionBy("_in_file").orderBy("_in_block").rowsBetween(Window.unboundedPreceding, -1)
    blocks = blocks.withColumn("_before", F.coalesce(F.sum("_n").over(earlier), F.lit(0)))
    keys = F.col("source_file").eqNullSafe(F.col("_in_file")) & (F.col("_block") == F.col("_in_block"))
    joined = dead.join(F.broadcast(blocks), keys, "left")
    return joined.withColumn("_line", F.col("_pos") - F.col("_first") + 1 + F.col("_before"))


# --- event JSON lines --------------------------------------------------------------------------

_OWN_FIELDS = {
    "row": ("v", "type", "channel", "db", "table"),
    "transaction": ("v", "type", "channel", "kind", "gtid"),
    "query": ("v", "type", "channel", "default_db", "command", "tables", "sql", "temporary", "if_exists"),
}
"""Each type's keys in the order replfilter writes them (``event_json.to_json``), which is also
``EVENT_SCHEMA``'s order, so Spark's JSON writer keeps it too."""

_JSON_SPACES = (" ", "\t", "\r")
_NULLS_ALLOWED = {
    # the only keys whose value may be null (event_json.from_dict): as absent, the text without them
    "transaction": ((',"gtid":null', ""),),
    "query": ((',"sql":null', ""), ('[{"db":null,', "[{"), ('},{"db":null,', "},{")),
}
"""Where an explicit ``null`` may stand, per type: removed from the line before it is compared
with its rewriting (which leaves NULLs out). Only inside a table list can ``{"db":null,`` be
matched: an unescaped ``"`` cannot occur in a JSON string, and a ``[`` or ``},`` before ``{``
only in an array; so a ``db`` key at the top of a query event still fails the comparison."""


def _rewritten(e: Column) -> Column:
    """The line as Spark read it, written back: the fields of the event's type, in replfilter's
    order, compact, NULLs left out (``to_json``). NULL for a record of no known type."""
    out = F.lit(None).cast("string")
    for typ, fields in reversed(list(_OWN_FIELDS.items())):
        out = F.when(e["type"] == typ, F.to_json(F.struct(*[e[f].alias(f) for f in fields]))).otherwise(out)
    return out


def _without_spaces(text: Column) -> Column:
    for space in _JSON_SPACES:
        text = F.replace(text, F.lit(space), F.lit(""))
    return text


def _without_allowed_nulls(text: Column, typ: Column) -> Column:
    out = text
    for kind, pairs in _NULLS_ALLOWED.items():
        stripped = text
        for null, rest in pairs:
            stripped = F.replace(stripped, F.lit(null), F.lit(rest))
        out = F.when(typ == kind, stripped).otherwise(out)
    return out


def _read_alike(e: Column, text: Column) -> Column:
    """The line is exactly the JSON text of the values Spark read from it, up to JSON white
    space and the NULLs an event may spell out.

    That one comparison rules out everything Spark's parser accepts and reads differently from
    Python's ``json`` + ``from_dict``: a key the event's type does not have (Spark drops it, the
    rewriting lacks it), a value of another JSON type (Spark casts ``5`` to ``"5"``), duplicate
    keys, text after the object, single quotes, escapes Spark and Python decode differently
    (``\\ud800``): the rewriting never spells them as the line did. A line it refuses is not
    lost, only slower: the reference reader decides it (keys in another order, ``\\u`` escapes,
    a ``null`` db placed after ``table``...). The comparison is byte-wise, so an equal line is
    UTF-8 text: ``to_json`` writes nothing else.

    Cost per 1,000,000 lines (2 cores): the exact comparison, which compact lines (Spark's JSON
    writer) pass, first; the spaces of ``to_json``'s ``", "``/``": "`` removed only for the
    others."""
    rewritten = _rewritten(e)
    loose = _without_allowed_nulls(_without_spaces(text), e["type"]) == _without_spaces(rewritten)
    return (text == rewritten) | loose


def _values_ok(e: Column) -> Column:
    """What ``from_dict`` requires of the values themselves (their JSON types are those of the
    rewriting): version 1, the required keys, known commands and kinds, a non-empty table name
    in every entry of a table list (no entry null)."""
    typ = e["type"]
    names = e["tables"]["table"]
    tables_ok = e["tables"].isNull() | (
        ~F.array_contains(names, F.lit("")) & (F.size(F.array_compact(names)) == F.size(e["tables"]))
        # (a key of the row form only, schema.py: from_dict refuses it in a line)
        & (F.size(F.array_compact(e["tables"][UPDATING_UNKNOWN])) == 0)
    )
    query = (typ == "query") & e["command"].isin(*_COMMANDS) & tables_ok
    row = (typ == "row") & e["db"].isNotNull() & e["table"].isNotNull()
    transaction = (typ == "transaction") & e["kind"].isin(*_KINDS)
    return (e["v"] == 1) & (query | row | transaction)


def _native_ok() -> Column:
    """True only for lines ``from_json`` certainly accepts, reading the same values: parsed by
    Spark into the event struct ``_e`` (Spark's ``from_json`` with ``EVENT_SCHEMA``, the parser of
    ``spark.read.json``), read alike (:func:`_read_alike`) and valid (:func:`_values_ok`).

    Measured in CPU seconds per 1,000,000 lines (the machine was shared): ``from_json`` 2.4 (Spark's
    ``read.json`` 2.1); ``try_parse_json`` 1.4, but the variant's fields cost 2.7 more to get as a
    struct, 0.6 each with ``variant_get``; this check 0.9."""
    e = F.col("_e")
    return F.coalesce(e.isNotNull() & _values_ok(e) & _read_alike(e, F.col("_record")), F.lit(False))


def _native_event_columns() -> list[Column]:
    e = F.col("_e")
    typ = e["type"]
    is_query, is_row, is_trx = typ == "query", typ == "row", typ == "transaction"
    tables = e["tables"]
    # updating defaults to true; the (interpreted) lambda runs only for the rows that have an
    # entry without it
    defaulted = F.transform(tables, _defaulted_table)
    lacks_updating = F.size(F.array_compact(tables["updating"])) != F.size(tables)
    return [
        F.lit(1).cast("long").alias("v"),
        typ.alias("type"),
        F.coalesce(e["channel"], F.lit("")).alias("channel"),
        F.when(is_query, F.coalesce(e["default_db"], F.lit(""))).alias("default_db"),
        F.when(is_query, e["command"]).alias("command"),
        F.when(is_query, F.when(lacks_updating, defaulted).otherwise(tables)).alias("tables"),
        F.when(is_query, e["sql"]).alias("sql"),
        F.when(is_query, F.coalesce(e["temporary"], F.lit(False))).alias("temporary"),
        F.when(is_query, F.coalesce(e["if_exists"], F.lit(False))).alias("if_exists"),
        F.when(is_row, e["db"]).alias("db"),
        F.when(is_row, e["table"]).alias("table"),
        F.when(is_trx, e["kind"]).alias("kind"),
        F.when(is_trx, e["gtid"]).alias("gtid"),
        F.lit(None).cast("string").alias("record"),
    ]


def parse_event_lines(
    df: DataFrame,
    value_col: str = "value",
    source_col: str | None = None,
    keep: Callable[[DataFrame], DataFrame] | None = None,
    channels: Sequence[str] | None = None,
) -> Ingested:
    """Event JSON lines (one record per row of ``value_col``) -> events + dead letters.

    Lines are read as :mod:`replfilter.evaluation.event_lines` reads them: a ``\\r`` ending the
    line is part of the line end; a line of JSON white space only is blank, not a record; a line
    that is not UTF-8 text fails the native check, and the reference reader makes it a dead letter
    with its bytes (``record_bytes``). Read files with the ``lineSep`` option ``\\n``
    so that only a line feed ends a line (Spark's default also ends one at ``\\r``). ``source_col``
    names a column with the file each line came from (kept in dead letters). ``keep`` (e.g.
    ``DataFrame.persist``) is applied to the parsed lines, so that events and dead letters
    come from one parse; the kept frame is ``Ingested.parsed`` (columns ``_source``, ``_ok``).
    ``channels`` (the replica's, when known): a line of another channel fails the native check,
    and the reference reader makes it a dead letter that keeps the line and its file.
    """
    parsed, numbered = checked_lines(df, value_col, source_col, channels)
    if keep is not None:
        parsed = keep(parsed)
    native = parsed.where(F.col("_ok")).select(*INGESTED_COLUMNS)
    fallback = lines_fallback(parsed, channels, numbered)
    return Ingested(native.unionByName(fallback.events), fallback.dead, parsed, numbered)


def checked_lines(
    df: DataFrame,
    value_col: str = "value",
    source_col: str | None = None,
    channels: Sequence[str] | None = None,
    keep_place: bool = False,
) -> tuple[DataFrame, DataFrame | None]:
    """The lines that are not blank, each parsed and checked natively (``_ok``, the event
    columns of ``INGESTED_SCHEMA``; for the refused lines only, what the reference reader needs:
    the text ``_record``, the file ``_source``, and ``_pos``/``_block`` for their line number),
    and every line's position (None without a file column): see :func:`parse_event_lines`.
    ``keep_place``: every line keeps ``_source``, ``_pos`` and ``_block`` (the replica's catalog
    follows DDL in the order of the input).

    An accepted line carries nothing but its event, so keeping the checked lines costs little
    more than keeping the events."""
    raw = f"cast(`{value_col}` as binary)"
    # byte-wise: a string function would replace the bytes of a line that is not UTF-8
    without_cr = F.expr(f"CASE WHEN endswith({raw}, X'0D') THEN substr({raw}, 1, octet_length({raw}) - 1) ELSE {raw} END")
    positioned = "_block" in df.columns and source_col is not None
    every_line = df.select(
        without_cr.cast("string").alias("_record"),
        _source(df, source_col).alias("_source"),
        # taken as the lines are scanned, before any filter: dead letters' line numbers
        (F.monotonically_increasing_id() if positioned else F.lit(None).cast("long")).alias("_pos"),
        (F.col("_block") if positioned else F.lit(None).cast("long")).alias("_block"),
    )
    lines = every_line.where(F.btrim(F.col("_record"), F.lit(JSON_BLANKS)) != "")
    parsed = lines.withColumn("_e", F.from_json(F.col("_record"), EVENT_SCHEMA))
    parsed = parsed.withColumn("_ok", _native_ok() & _known_channel(channels))
    refused = ~F.col("_ok")
    parsed = parsed.select(
        F.when(refused, F.col("_record")).alias("_record"),
        *[(F.col(c) if keep_place else F.when(refused, F.col(c))).alias(c) for c in ("_source", "_pos", "_block")],
        "_ok",
        *_native_event_columns(),
    )
    numbered = every_line.select("_source", "_block", "_pos") if positioned else None
    return parsed, numbered


def _known_channel(channels: Sequence[str] | None) -> Column:
    if channels is None:
        return F.lit(True)
    return F.coalesce(F.col("_e.channel"), F.lit("")).isin(*channels) if channels else F.lit(False)


def lines_fallback(
    parsed: DataFrame, channels: Sequence[str] | None = None, lines: DataFrame | None = None, positioned: bool = False
) -> Ingested:
    """The reference reader (``from_json``, in Python) on the parsed lines the native check did
    not accept (``_ok`` false): the events it makes of them and its dead letters (numbered from
    ``lines``, :attr:`Ingested.lines`, when given). ``positioned``: the events keep each line's
    ``_source``, ``_block`` and ``_pos`` (its place in the input: the replica's catalog follows
    DDL in that order)."""
    refused = parsed.where(~F.col("_ok")).select(
        F.col("_record").cast("binary").alias("_record"), "_source", "_pos", "_block"
    )
    return _split_python(_parse_in_python(refused, "json", channels), lines, positioned)


# --- event rows (Parquet) ----------------------------------------------------------------------


def _row_ok() -> Column:
    """The row is an event. Only the fields of the row's own type are read (a flat Parquet
    schema has every column: a ``gtid`` on a row event, say, is carried along, not an error)."""
    typ = F.col("type")
    # Every element present with a non-empty table name, without a lambda: higher-order
    # functions are interpreted, not compiled (+1 s per 10 M events in the key count).
    # array_contains is NULL when a name is NULL, and array_compact drops NULL names (and the
    # names of NULL elements), so both kinds of bad element make the row not ok.
    names = F.col("tables.table")
    tables_ok = F.col("tables").isNull() | (
        ~F.array_contains(names, F.lit("")) & (F.size(F.array_compact(names)) == F.size(F.col("tables")))
    )
    query = (typ == "query") & F.col("command").isin(*_COMMANDS) & tables_ok
    row = (typ == "row") & F.col("db").isNotNull() & F.col("table").isNotNull()
    transaction = (typ == "transaction") & F.col("kind").isin(*_KINDS)
    return F.coalesce((F.col("v") == 1) & (query | row | transaction), F.lit(False))


def mark_event_rows(
    df: DataFrame, source_col: str | None = None, keep_tables_null: bool = True, channels: Sequence[str] | None = None,
    positioned: bool = False,
) -> DataFrame:
    """Rows of ``EVENT_SCHEMA`` normalized to ``INGESTED_SCHEMA`` plus ``_ok`` (the row is an
    event, checked natively) and ``_source`` — one scan serves events and the dead-letter check.
    Rows with ``_ok`` false go through :func:`rows_fallback`; with ``channels``, so do rows of a
    channel the replica does not have (dead letters that keep their file)."""
    missing = [c for c in EVENT_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"not an event DataFrame: missing column(s) {', '.join(missing)}")
    df = _current_tables(df)
    is_query = F.col("type") == "query"
    # updating defaults to true; the (interpreted) lambda runs only for the rare rows that have
    # an element without it
    defaulted = F.transform(F.col("tables"), _defaulted_table)
    lacks_updating = F.size(F.array_compact(F.col("tables.updating"))) != F.size(F.col("tables"))
    tables = F.when(is_query, F.when(lacks_updating, defaulted).otherwise(F.col("tables")))
    if not keep_tables_null:
        tables = F.when(is_query, F.coalesce(tables, F.array().cast(EVENT_SCHEMA["tables"].dataType)))
    return df.select(
        F.col("v"),
        F.col("type"),
        F.coalesce(F.col("channel"), F.lit("")).alias("channel"),
        F.when(is_query, F.coalesce(F.col("default_db"), F.lit(""))).alias("default_db"),
        F.col("command"),
        tables.alias("tables"),
        F.col("sql"),
        F.when(is_query, F.coalesce(F.col("temporary"), F.lit(False))).alias("temporary"),
        F.when(is_query, F.coalesce(F.col("if_exists"), F.lit(False))).alias("if_exists"),
        F.col("db"),
        F.col("table"),
        F.col("kind"),
        F.col("gtid"),
        (F.col("record") if "record" in df.columns else F.lit(None).cast("string")).alias("record"),
        (_row_ok() & _known_row_channel(channels)).alias("_ok"),
        _source(df, source_col).alias("_source"),
        # what from_dict is shown for a bad row: the row as JSON, NULL fields left out
        F.to_json(F.struct(*[F.col(c) for c in EVENT_COLUMNS])).alias("_as_json"),
        # ``positioned``: each row's place (``df`` has ``_block`` and ``_pos``, its row in the file)
        *([F.col("_block"), F.col("_pos")] if positioned else []),
    )


def _known_row_channel(channels: Sequence[str] | None) -> Column:
    if channels is None:
        return F.lit(True)
    return F.coalesce(F.col("channel"), F.lit("")).isin(*channels) if channels else F.lit(False)


def rows_fallback(marked: DataFrame, channels: Sequence[str] | None = None, positioned: bool = False) -> Ingested:
    """The reference reader on marked rows that failed the native check (``positioned``: the
    events keep ``_source``, ``_block`` and ``_pos``)."""
    place = ["_block", "_pos"] if positioned else []
    bad = marked.where(~F.col("_ok")).select(F.col("_as_json").alias("_record"), F.col("_source"), *place)
    return _split_python(_parse_in_python(bad, "row", channels), positioned=positioned)


def normalize_event_rows(df: DataFrame, source_col: str | None = None, keep_tables_null: bool = True) -> Ingested:
    """Rows of ``EVENT_SCHEMA`` (e.g. Parquet files) -> events with JSON defaults + dead letters.

    ``tables`` stays NULL when it is NULL (absent), so :mod:`.sql_tables` can derive it from
    ``sql``; pass ``keep_tables_null=False`` to default it to an empty list instead.
    """
    marked = mark_event_rows(df, source_col, keep_tables_null)
    native = marked.where(F.col("_ok")).select(*INGESTED_COLUMNS)
    fallback = rows_fallback(marked)
    return Ingested(native.unionByName(fallback.events), fallback.dead)


# --- Debezium ----------------------------------------------------------------------------------


def parse_debezium(
    df: DataFrame,
    value_col: str = "value",
    channel: str = "",
    source_col: str | None = None,
    keep: Callable[[DataFrame], DataFrame] | None = None,
    positioned: bool = False,
) -> Ingested:
    """Debezium MySQL change events (JSON text per row; Kafka ``value`` cast to string works).
    ``keep`` (e.g. a local checkpoint) is applied to the parsed records, events and dead letters
    together (columns of ``INGESTED_SCHEMA`` plus ``_kind`` and ``_source``), so that both come
    from one parse; the kept frame is ``Ingested.parsed``. ``positioned``: ``df`` has ``_block``
    and ``_pos`` (each record's place), kept on the events with ``_source``."""
    src = _source(df, source_col)
    place = ["_block", "_pos"] if positioned else []
    records = df.select(F.col(value_col).cast("string").alias("_record"), src.alias("_source"), *place)
    j = F.expr("try_parse_json(_record)")
    parsed = records.withColumn("_j0", j).withColumn(
        "_j",
        F.when(F.expr("variant_get(_j0, '$.payload') is not null and variant_get(_j0, '$.schema') is not null"),
               F.expr("variant_get(_j0, '$.payload')")).otherwise(F.col("_j0")),
    )

    def get(path: str) -> Column:
        return F.expr(f"try_variant_get(_j, '{path}', 'string')")

    op, db, table = get("$.op"), get("$.source.db"), get("$.source.table")
    ddl, database_name, status = get("$.ddl"), get("$.databaseName"), get("$.status")
    null_value = F.col("_record").isNull() | (F.trim(F.col("_record")).isin("", "null")) | F.expr(
        "_j0 is not null and is_variant_null(_j)"
    )
    kind = (
        F.when(null_value, "tombstone")
        .when(F.col("_j").isNull(), "bad_json")
        .when(op.isin("c", "u", "d", "r") & db.isNotNull() & table.isNotNull(), "row")
        .when(op.isin("c", "u", "d", "r"), "row_without_table")
        .when((op == "t") & db.isNotNull() & table.isNotNull(), "truncate")
        .when(op.isNull() & ddl.isNotNull(), "ddl")
        .when(op.isNull() & status.isin("BEGIN", "END"), "transaction")
        .otherwise("unknown")
    )
    parsed = parsed.withColumn("_kind", kind)
    null = F.lit(None).cast("string")
    ch = F.lit(channel)
    table_list = F.array(F.struct(db.alias("db"), table.alias("table"), F.lit(True).alias("updating"),
                                  F.lit(None).cast("boolean").alias(UPDATING_UNKNOWN)))
    is_kind = F.col("_kind")
    rows = parsed.select(
        F.lit(1).cast("long").alias("v"),
        F.when(is_kind == "row", "row").when(is_kind == "transaction", "transaction").otherwise("query").alias("type"),
        ch.alias("channel"),
        F.when(is_kind == "truncate", db)
        .when(is_kind == "ddl", F.coalesce(database_name, db, F.lit("")))
        .alias("default_db"),
        F.when(is_kind == "truncate", F.lit("TRUNCATE")).otherwise(null).alias("command"),
        F.when(is_kind == "truncate", table_list).alias("tables"),
        F.when(is_kind == "ddl", ddl).when(is_kind == "truncate", get("$.source.query")).alias("sql"),
        F.when(is_kind.isin("truncate", "ddl"), F.lit(False)).alias("temporary"),
        F.when(is_kind.isin("truncate", "ddl"), F.lit(False)).alias("if_exists"),
        F.when(is_kind == "row", db).alias("db"),
        F.when(is_kind == "row", table).alias("table"),
        F.when(is_kind == "transaction", F.when(status == "BEGIN", "BEGIN").otherwise("COMMIT")).alias("kind"),
        F.when(is_kind == "transaction", get("$.id")).alias("gtid"),
        F.col("_record").alias("record"),
        is_kind.alias("_kind"),
        F.col("_source"),
        *place,
    )
    if keep is not None:
        rows = keep(rows)
    is_kind = F.col("_kind")
    carried = ["_source", *place] if positioned else []
    events = rows.where(is_kind.isin("row", "truncate", "ddl", "transaction")).select(*INGESTED_COLUMNS, *carried)
    reason = (
        F.when(is_kind == "tombstone", F.lit("Debezium tombstone (null value after a delete): not a change event"))
        .when(is_kind == "bad_json", F.lit("not valid JSON"))
        .when(is_kind == "row_without_table", F.lit("Debezium change event without source.db and source.table"))
        .otherwise(F.lit("not a Debezium change event (no op with source.db/source.table, no ddl, no transaction status)"))
    )
    dead = rows.where(~is_kind.isin("row", "truncate", "ddl", "transaction")).select(
        reason.alias("reason"), F.col("record"), F.col("_source").alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
    )
    return Ingested(events, dead, rows if keep is not None else None)


# --- channels ----------------------------------------------------------------------------------


def split_unknown_channels(ingested: Ingested, state: ReplicaState) -> Ingested:
    """Events of channels the replica does not have become dead letters (the message is the
    evaluator's ``UnknownChannelError``); the record is kept, or the event as JSON."""
    known = list(state.channel_names)
    ok = F.col("channel").isin(*known) if known else F.lit(False)
    events = ingested.events.where(ok)
    unknown = ingested.events.where(~ok)
    event_json = F.to_json(F.struct(*[F.col(c) for c in EVENT_COLUMNS]))
    dead = unknown.select(
        F.concat(F.lit("event for channel '"), F.col("channel"), F.lit("', which does not exist on this replica")).alias("reason"),
        F.coalesce(F.col("record"), event_json).alias("record"),
        F.lit(None).cast("string").alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
    )
    return Ingested(events, ingested.dead.unionByName(dead))


# --- files -------------------------------------------------------------------------------------

FORMATS = ("json", "parquet", "debezium", "binlog")


def read_events(
    spark, path: str, fmt: str = "json", channel: str = "", resolve_sql: bool = True, state: ReplicaState | None = None
) -> Ingested:
    """Read a file or directory of events (``json`` lines, ``parquet``, ``debezium`` JSON, or
    ``binlog``: binary and relay log files, :mod:`.binlog_files`).

    With ``resolve_sql`` (the default) query events that carry SQL text but no table list (or,
    from Debezium, no command) get them from the text, as the JSON reader of ``replfilter
    evaluate`` does, and a text that cannot be read becomes a dead letter: the events are then
    events in full, ready for :func:`~replfilter.spark_runtime.transform.apply_filters`. Pass
    ``False`` for inputs known to have no such rows, to save the split of the events it costs.
    ``state``: the replica whose sources' schemas (``--schema``) read those texts, as
    ``replfilter evaluate`` reads them (a multi-table UPDATE with unqualified columns is then
    decided rather than a dead letter).
    """
    if fmt == "binlog":  # binary and relay log files: parsed per file, in parallel (binlog_files.py)
        from .binlog_files import read_binlog_events

        return read_binlog_events(spark, path, channel, state)
    if fmt == "parquet":
        df = spark.read.schema(_parquet_read_schema()).parquet(path)
        ingested = normalize_event_rows(df.withColumn("_file", F.col("_metadata.file_path")), source_col="_file")
    elif fmt in ("debezium", "json"):
        lines = spark.read.option("lineSep", "\n").text(path).select(
            "value", F.col("_metadata.file_path").alias("_file"), F.col("_metadata.file_block_start").alias("_block")
        )
        if fmt == "debezium":
            return _read_debezium(lines, channel, resolve_sql, state)
        return _read_event_lines(lines, resolve_sql, state)
    else:
        raise ValueError(f"unknown input format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if not resolve_sql:
        return ingested
    sources = SourceSchemas.of(state) if state is not None else None
    resolved = resolve_sql_tables(ingested.events, sources, state)
    dead = ingested.dead.unionByName(resolved.dead)
    if state is not None:  # rows that carry tables whose updating flag is not known (schema.py)
        decided = decide_unknown_updating(resolved.events, state, F.lit(None))
        resolved, dead = decided, dead.unionByName(decided.dead)
    return Ingested(resolved.events, dead, ingested.parsed)


def _read_event_lines(lines: DataFrame, resolve_sql: bool, state: ReplicaState | None) -> Ingested:
    """Event JSON lines of files, parsed and checked once, now: the checked lines are kept as a
    local checkpoint (:meth:`DataFrame.localCheckpoint`, on the executors, memory then disk),
    so the two passes of ``apply_filters`` read parsed rows instead of parsing every line again.
    Spark releases the checkpoint when no DataFrame built on it is left.

    The same job counts the refused lines and the events that need their SQL text read
    (``observe``): without any, the events are the accepted lines alone, one plain scan; with
    some, the reference reader and :mod:`.sql_tables` run on the kept lines, never on the files
    again. Measured in ``bench/spark_ingest.py`` (README, "Spark performance")."""
    parsed, numbered = checked_lines(lines, source_col="_file")
    kept, found = _kept_once(parsed, refused=~F.col("_ok"), need_sql=F.col("_ok") & needs_sql_tables())
    native = kept.where(F.col("_ok")).select(*INGESTED_COLUMNS)
    if found["refused"]:
        fallback = lines_fallback(kept, None, numbered)
        ingested = Ingested(native.unionByName(fallback.events), fallback.dead, kept, numbered)
    else:
        empty = lines.sparkSession.createDataFrame([], DEAD_LETTER_SCHEMA)
        ingested = Ingested(native, empty, kept, numbered)
    if not resolve_sql or not (found["refused"] or found["need_sql"]):
        return ingested
    resolved = resolve_sql_tables(ingested.events, SourceSchemas.of(state) if state is not None else None, state)
    return Ingested(resolved.events, ingested.dead.unionByName(resolved.dead), kept, numbered)


def _read_debezium(lines: DataFrame, channel: str, resolve_sql: bool, state: ReplicaState | None) -> Ingested:
    """Debezium envelopes of files, parsed once and kept (a local checkpoint, as
    :func:`_read_event_lines` keeps JSON lines): the SQL texts of schema changes are read only
    when there are any."""
    found: dict = {}

    def keep(table: DataFrame) -> DataFrame:
        kept, counts = _kept_once(table, need_sql=needs_sql_tables())
        found.update(counts)
        return kept

    ingested = parse_debezium(lines, channel=channel, source_col="_file", keep=keep)
    if not resolve_sql or not found["need_sql"]:
        return ingested
    resolved = resolve_sql_tables(ingested.events, SourceSchemas.of(state) if state is not None else None, state)
    return Ingested(resolved.events, ingested.dead.unionByName(resolved.dead), ingested.parsed)


def _kept_once(frame: DataFrame, **counted: Column) -> tuple[DataFrame, dict[str, int]]:
    """``frame`` computed now and kept on the executors (a local checkpoint: memory, then disk;
    Spark drops it once no DataFrame built on it is left), and how many of its rows each of
    ``counted`` holds for, counted by the same job (``observe``)."""
    counts = Observation("replfilter-ingest")
    observed = frame.observe(counts, *[F.count_if(condition).alias(name) for name, condition in counted.items()])
    kept = observed.localCheckpoint(eager=True)
    return kept, dict(counts.get)


def _parquet_read_schema() -> StructType:
    """The event columns and the optional ``record`` (a row image, say): a file without it
    reads it as NULL, and one with it keeps it through to the outputs."""
    return INGESTED_SCHEMA


__all__ = [
    "FORMATS",
    "Ingested",
    "mark_event_rows",
    "checked_lines",
    "normalize_event_rows",
    "rows_fallback",
    "parse_debezium",
    "parse_event_lines",
    "read_events",
    "split_unknown_channels",
]
