"""Event JSON lines (the format of :mod:`replfilter.evaluation.events`) -> events + dead letters,
read exactly as :func:`~replfilter.evaluation.event_json.from_json` reads them.

Three steps, each for the lines the one before doubts. A row or transaction event in replfilter's
or Spark's writing — nearly every line of a relay log — is read without a JSON parser
(:mod:`.line_shapes`). Any other line is parsed natively (Spark's ``from_json`` with
``EVENT_SCHEMA``) and accepted only when it is, byte for byte, the JSON text of the values
Spark read (written back with ``to_json``, up to white space and the NULLs an event may spell
out) and those values make an event. Every other line — malformed, a wrong type, an unknown key, but also valid lines
Spark's parser reads differently from Python's (duplicate keys, lone surrogates) or writes
differently (keys in another order, ``\\u`` escapes) — goes to the reference reader
(:mod:`.fallback_reader`), which runs ``from_json`` itself: it becomes an event if ``from_json``
accepts it, else a dead letter whose ``reason`` is ``from_json``'s error message. So the split
equals the reference reader's by construction, and valid input in replfilter's or Spark's own
writing never touches Python.
"""

from __future__ import annotations

from typing import Callable, Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ..evaluation.event_lines import JSON_BLANKS
from .event_checks import defaulted_tables, values_ok
from .fallback_reader import parse_in_python, split_python
from .line_shapes import shaped_columns, shaped_fields
from .schema import EVENT_SCHEMA, INGESTED_COLUMNS, INGESTED_SCHEMA, UPDATING_UNKNOWN, Ingested, source_column

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



def _parsed_ok(e: Column, text: Column) -> Column:
    """True only for lines ``from_json`` certainly accepts, reading the same values: parsed by
    Spark into the event struct ``e`` (Spark's ``from_json`` with ``EVENT_SCHEMA``, the parser of
    ``spark.read.json``), read alike (:func:`_read_alike`) and valid (:func:`~.event_checks.values_ok`).
    ``e`` and ``text`` are NULL for the lines :mod:`.line_shapes` reads: Spark computes the parts
    this check uses twice for every line, before it looks at any condition, and on NULL they
    cost nothing.

    Measured in CPU seconds per 1,000,000 lines (the machine was shared): ``from_json`` 2.4 (Spark's
    ``read.json`` 2.1); ``try_parse_json`` 1.4, but the variant's fields cost 2.7 more to get as a
    struct, 0.6 each with ``variant_get``; this check 0.9."""
    # (updating_unknown is a field of the row form only, schema.py: from_dict refuses it in a line)
    json_form = F.coalesce(F.size(F.array_compact(e["tables"][UPDATING_UNKNOWN])) == 0, F.lit(True))
    return F.coalesce(e.isNotNull() & values_ok(e) & json_form & _read_alike(e, text), F.lit(False))


def _native_event_columns() -> list[Column]:
    e = F.col("_e")
    typ = e["type"]
    is_query, is_row, is_trx = typ == "query", typ == "row", typ == "transaction"
    tables = e["tables"]
    return [
        F.lit(1).cast("long").alias("v"),
        typ.alias("type"),
        F.coalesce(e["channel"], F.lit("")).alias("channel"),
        F.when(is_query, F.coalesce(e["default_db"], F.lit(""))).alias("default_db"),
        F.when(is_query, e["command"]).alias("command"),
        F.when(is_query, defaulted_tables(tables)).alias("tables"),
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
    query_place: bool = False,
) -> tuple[DataFrame, DataFrame | None]:
    """The lines that are not blank, each parsed and checked natively (``_ok``, the event
    columns of ``INGESTED_SCHEMA``; for the refused lines only, what the reference reader needs:
    the text ``_record``, the file ``_source``, and ``_pos``/``_block`` for their line number),
    and every line's position (None without a file column): see :func:`parse_event_lines`.
    ``keep_place``: every line keeps ``_source``, ``_pos`` and ``_block`` (the replica's catalog
    follows DDL in the order of the input); ``query_place``: so do query events, the only ones
    that may become dead letters after this check (their SQL text, :mod:`.sql_tables`), so that
    those name their file and line too.

    An accepted line carries nothing but its event, so keeping the checked lines costs little
    more than keeping the events."""
    raw = f"cast(`{value_col}` as binary)"
    # byte-wise: a string function would replace the bytes of a line that is not UTF-8
    without_cr = F.expr(f"CASE WHEN endswith({raw}, X'0D') THEN substr({raw}, 1, octet_length({raw}) - 1) ELSE {raw} END")
    positioned = "_block" in df.columns and source_col is not None
    # taken as the lines are scanned, before any filter: dead letters' line numbers (or given,
    # by the scan that set these lines apart: :func:`shaped_lines`)
    position = F.col("_pos") if "_pos" in df.columns else F.monotonically_increasing_id()
    every_line = df.select(
        without_cr.cast("string").alias("_record"),
        source_column(df, source_col).alias("_source"),
        (position if positioned else F.lit(None).cast("long")).alias("_pos"),
        (F.col("_block") if positioned else F.lit(None).cast("long")).alias("_block"),
    )
    lines = every_line.where(F.btrim(F.col("_record"), F.lit(JSON_BLANKS)) != "")
    for name, column in shaped_columns("_record"):  # most lines: read without a JSON parser
        lines = lines.withColumn(name, column)
    # the other lines: parsed by Spark, then checked (NULL for the lines read without a parser)
    doubtful = F.col("_shaped").isNull()
    parsed = lines.withColumn("_doubtful", F.when(doubtful, F.col("_record")))
    parsed = parsed.withColumn("_parsed", F.from_json(F.col("_doubtful"), EVENT_SCHEMA))
    parsed = parsed.withColumn("_e", F.coalesce(F.col("_shaped"), F.col("_parsed")))
    shaped_or_parsed_ok = ~doubtful | _parsed_ok(F.col("_parsed"), F.col("_doubtful"))
    parsed = parsed.withColumn("_ok", shaped_or_parsed_ok & _known_channel(channels))
    refused = ~F.col("_ok")
    placed = refused | (F.col("_e.type") == "query") if query_place else refused
    parsed = parsed.select(
        F.when(refused, F.col("_record")).alias("_record"),
        *[(F.col(c) if keep_place else F.when(placed, F.col(c))).alias(c) for c in ("_source", "_pos", "_block")],
        "_ok",
        *_native_event_columns(),
    )
    numbered = every_line.select("_source", "_block", "_pos") if positioned else None
    return parsed, numbered


def shaped_lines(df: DataFrame, value_col: str = "value", source_col: str | None = None) -> DataFrame:
    """Every line that is not blank: ``_shaped`` true and its event columns when
    :mod:`.line_shapes` reads it, else ``_shaped`` false and the line itself (``value``, its
    bytes as read) with its file and place (``_source``, ``_pos``, ``_block``), for
    :func:`checked_lines` to check later, on those lines alone.

    Why a step of its own: :func:`checked_lines` parses the lines the shapes do not read with
    ``from_json``, which runs outside whole-stage code generation, so every line, read or not,
    crosses into and out of it; and it takes each event's columns from a struct of the shape's
    and the parser's. Here only string functions run, in generated code, and the doubtful
    lines (query events: 5 % of a ROW-format relay log) are parsed in a second, small job
    (README, "Benchmarks")."""
    positioned = "_block" in df.columns and source_col is not None
    line = F.col(value_col)
    every_line = df.select(
        line.alias("_line"),
        source_column(df, source_col).alias("_source"),
        (F.monotonically_increasing_id() if positioned else F.lit(None).cast("long")).alias("_pos"),
        (F.col("_block") if positioned else F.lit(None).cast("long")).alias("_block"),
    )
    for name, column in shaped_columns("_line")[:-1]:  # (not the struct: the fields, flat)
        every_line = every_line.withColumn(name, column)
    shaped = F.col("_clean")
    raw = "cast(`_line` as binary)"
    blank = F.btrim(F.expr(f"CASE WHEN endswith({raw}, X'0D') THEN substr({raw}, 1, octet_length({raw}) - 1) ELSE {raw} END")
                    .cast("string"), F.lit(JSON_BLANKS)) == ""
    fields = shaped_fields()
    return every_line.where(shaped | ~blank).select(
        shaped.alias("_shaped"),
        F.when(~shaped, F.col("_line")).alias("value"),
        *[F.when(~shaped, F.col(c)).alias(c) for c in ("_source", "_pos", "_block")],
        *[F.when(shaped, fields[c]).cast(INGESTED_SCHEMA[c].dataType).alias(c) if c in fields
          else F.lit(None).cast(INGESTED_SCHEMA[c].dataType).alias(c) for c in INGESTED_COLUMNS],
    )


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
    return split_python(parse_in_python(refused, "json", channels), lines, positioned)
