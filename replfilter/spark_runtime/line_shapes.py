"""Row and transaction events in the two writings a stream meets, read without a JSON parser.

Nearly every line of a ROW-format relay log is a row or transaction event (mysql-filter-evaluation.md,
section 2), written by replfilter (``event_json.to_json``: keys in a fixed order, ``", "`` and
``": "``) or by Spark's JSON writer (the same order, compact, NULLs left out). Such a line is a
fixed text with string values in between, for instance::

    {"v":1,"type":"row","channel":"<channel>","db":"<db>","table":"<table>"}

A line that is exactly one of these :data:`SHAPES` (after the spaces of replfilter's writing are
taken out), whose values hold no ``"``, no ``\\`` (so no escape), no control character (JSON
forbids them raw, and ``from_json`` refuses them) and only UTF-8 text, is valid JSON with no key
twice, no unknown key and no value of another type: ``from_json`` reads it as the event of those
values, byte for byte. Each check is a byte-wise string function (``startswith``,
``substring_index``, ``concat``, ``==``, ``is_valid_utf8``); only the values, a few bytes, meet
a regular expression. So no JSON parser runs for these lines, nor a regular expression over the
whole line (which cost more than Spark's parser: README, "Benchmarks").

Every other line — a query event, another key order or spacing, an escape, a byte order mark,
a key the shape does not have — is not doubted to be wrong, only not read here: it goes on to
the parsing check of :mod:`.json_lines` and, when that refuses it, to the reference reader.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F

from .event_checks import KIND_VALUES
from .schema import EVENT_SCHEMA


@dataclass(frozen=True)
class Shape:
    """One writing of an event type: ``{"v":1,"type":"<type>","<key>":"<value>",...<end>``,
    the keys in the order ``event_json.to_json`` writes them, every value a string."""

    type: str
    keys: tuple[str, ...]
    end: str = '"}'

    @property
    def prefix(self) -> str:
        return f'{{"v":1,"type":"{self.type}","{self.keys[0]}":"'

    @property
    def delimiters(self) -> tuple[str, ...]:
        """The fixed text between two values."""
        return tuple(f'","{key}":"' for key in self.keys[1:])


SHAPES = (
    Shape("row", ("channel", "db", "table")),
    Shape("transaction", ("channel", "kind", "gtid")),
    Shape("transaction", ("channel", "kind"), '","gtid":null}'),  # replfilter's writing of no GTID
    Shape("transaction", ("channel", "kind")),  # Spark's writing of no GTID (NULLs left out)
)
"""The line's start says its type, and its end, and whether it has a ``gtid`` string, say which
shape of that type it can be."""

_ROW, _WITH_GTID, _NULL_GTID, _NO_GTID = SHAPES

_SPACED = (('{"v": 1, "', '{"v":1,"'), ('": ', '":'), ('", "', '","'))
"""replfilter's writing made compact. A line of a shape has no backslash, so its ``"`` open and
close strings in turn, in the line as in its compact form (the same ``"``, in the same order);
each space taken out follows a closing ``"`` and its ``:`` or ``,``, or starts the line: JSON
white space outside every string, which takes nothing from the values."""

_NOT_IN_VALUES = r'[\x00-\x1f\\\x{FFFD}]'
"""What no value of a line read here holds, besides ``"`` (a value ends at the first): a control
character, a backslash, or U+FFFD (what a byte that is not UTF-8 becomes in a Java string; a
real U+FFFD is only sent on)."""


def _compact(line: Column) -> Column:
    text = line
    for spaced, compact in _SPACED:
        text = F.replace(text, F.lit(spaced), F.lit(compact))
    return F.when(line.startswith('{"v": 1, '), text).otherwise(line)


def _by_type(typ: Column, row: Column, transaction: Column) -> Column:
    return F.when(typ == "row", row).when(typ == "transaction", transaction)


def _written_back(shape: Shape, values: list[Column]) -> Column:
    parts = [F.lit(shape.prefix), values[0]]
    for delimiter, value in zip(shape.delimiters, values[1:]):
        parts += [F.lit(delimiter), value]
    return F.concat(*parts, F.lit(shape.end))


def shaped_columns(line: str) -> list[tuple[str, Column]]:
    """Columns to add (name, column), in order (each may use the ones before): ``_text`` (the
    line, compact), ``_type`` (the type its start says), ``_after0`` and ``_after1``, ``_after2``
    (the text after the start, after the first delimiter, after the second), and ``_shaped``,
    the event struct (``EVENT_SCHEMA``) when the line is read here, else NULL. Each value is
    the text up to the next ``"``.

    Separate columns so that Spark computes each once per line (a column used twice is not
    computed twice, an expression copied into two places is), and each a byte-wise string
    function, one per column: the cost is a few copies of a short string per line."""
    text, typ = F.col("_text"), F.col("_type")
    after = [F.col(f"_after{k}") for k in range(3)]
    values = [F.substring_index(rest, '"', 1) for rest in after]
    has_gtid = text.contains(_WITH_GTID.delimiters[-1])
    transaction = (
        F.when(text.endswith(_NULL_GTID.end), _written_back(_NULL_GTID, values))
        .when(has_gtid, _written_back(_WITH_GTID, values))
        .otherwise(_written_back(_NO_GTID, values))
    )
    clean = (
        (_by_type(typ, _written_back(_ROW, values), transaction) == text)
        & ~F.concat(*values).rlike(_NOT_IN_VALUES)
        & F.is_valid_utf8(F.col(line))
        & ((typ == "row") | values[1].isin(*KIND_VALUES))
    )
    is_row, is_trx = typ == "row", typ == "transaction"
    fields = {
        "v": F.lit(1).cast("long"),
        "type": typ,
        "channel": values[0],
        "db": F.when(is_row, values[1]),
        "table": F.when(is_row, values[2]),
        "kind": F.when(is_trx, values[1]),
        "gtid": F.when(is_trx & has_gtid, values[2]),
    }
    event = F.struct(*[fields.get(f.name, F.lit(None)).cast(f.dataType).alias(f.name) for f in EVENT_SCHEMA.fields])
    starts = {kind: text.startswith(shape.prefix) for kind, shape in (("row", _ROW), ("transaction", _NO_GTID))}
    return [
        ("_text", _compact(F.col(line))),
        ("_type", F.when(starts["row"], F.lit("row")).when(starts["transaction"], F.lit("transaction"))),
        ("_after0", _by_type(typ, F.substr(text, F.lit(len(_ROW.prefix) + 1)), F.substr(text, F.lit(len(_NO_GTID.prefix) + 1)))),
        ("_after1", _by_type(typ, F.substring_index(after[0], _ROW.delimiters[0], -1), F.substring_index(after[0], _NO_GTID.delimiters[0], -1))),
        ("_after2", _by_type(typ, F.substring_index(after[1], _ROW.delimiters[1], -1), F.substring_index(after[1], _WITH_GTID.delimiters[1], -1))),
        ("_shaped", F.when(F.coalesce(clean, F.lit(False)), event)),
    ]
