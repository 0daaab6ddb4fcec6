"""Row and transaction events in the two writings a stream meets, read without a JSON parser.

Nearly every line of a ROW-format relay log is a row or transaction event (mysql-filter-evaluation.md,
section 2), written by replfilter (``event_json.to_json``: keys in a fixed order, ``", "`` and
``": "``) or by Spark's JSON writer (the same order, compact, NULLs left out). Such a line is a
fixed text with string values in between, for instance::

    {"v":1,"type":"row","channel":"<channel>","db":"<db>","table":"<table>"}

A line that is exactly one of these :data:`SHAPES` (in either writing), whose values hold no ``"``, no ``\\`` (so no escape), no control character (JSON
forbids them raw, and ``from_json`` refuses them) and only UTF-8 text, is valid JSON with no key
twice, no unknown key and no value of another type: ``from_json`` reads it as the event of those
values, byte for byte. Each check is a byte-wise string function (``startswith``,
``substring_index``, ``concat``, ``==``, ``is_valid_utf8``); only the values, a few bytes, meet
a regular expression. So no JSON parser runs for these lines, nor a regular expression over the
whole line (which cost more than Spark's parser: README, "Benchmarks").

Each writing is cut with its own delimiters, never made compact first: a value may hold
``": "`` or ``", "`` itself.

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
    the keys in the order ``event_json.to_json`` writes them, every value a string; ``spaced``:
    replfilter's writing (``", "`` and ``": "``), else Spark's (compact)."""

    type: str
    keys: tuple[str, ...]
    null_gtid: bool = False
    """The line ends with ``"gtid": null`` (replfilter's writing of no GTID)."""
    spaced: bool = False

    @property
    def _comma(self) -> str:
        return ", " if self.spaced else ","

    @property
    def _colon(self) -> str:
        return ": " if self.spaced else ":"

    @property
    def prefix(self) -> str:
        c, k = self._comma, self._colon
        return f'{{"v"{k}1{c}"type"{k}"{self.type}"{c}"{self.keys[0]}"{k}"'

    @property
    def delimiters(self) -> tuple[str, ...]:
        """The fixed text between two values."""
        return tuple(f'"{self._comma}"{key}"{self._colon}"' for key in self.keys[1:])

    @property
    def end(self) -> str:
        return f'"{self._comma}"gtid"{self._colon}null}}' if self.null_gtid else '"}'

    def spaced_form(self) -> "Shape":
        return Shape(self.type, self.keys, self.null_gtid, spaced=True)


_COMPACT = (
    Shape("row", ("channel", "db", "table")),
    Shape("transaction", ("channel", "kind", "gtid")),
    Shape("transaction", ("channel", "kind"), null_gtid=True),  # replfilter's writing of no GTID
    Shape("transaction", ("channel", "kind")),  # Spark's writing of no GTID (NULLs left out)
)
SHAPES = _COMPACT + tuple(shape.spaced_form() for shape in _COMPACT)
"""The line's start says its type and writing, and its end, and whether it has a ``gtid``
string, say which shape of that type it can be. Each writing has its own delimiters: a value
may itself hold ``": "`` or ``", "`` (only its quotes and backslashes are escaped), so taking
the spaces out of a line before cutting it would change such a value."""

_NOT_IN_VALUES = r'[\x00-\x1f\\\x{FFFD}]'
"""What no value of a line read here holds, besides ``"`` (a value ends at the first): a control
character, a backslash, or U+FFFD (what a byte that is not UTF-8 becomes in a Java string; a
real U+FFFD is only sent on)."""

_STARTS = {(shape.type, shape.spaced): shape for shape in SHAPES if len(shape.keys) == 3}
"""Per type and writing, the shape whose prefix and delimiters cut the line (a transaction's
three shapes share its prefix and first delimiter; the one with a ``gtid`` string, its second)."""


def _by_start(kind: Column, pick) -> Column:
    """A CASE over the line's (type, writing), ``kind`` from :func:`shaped_columns`."""
    out = F.lit(None)
    for k, shape in reversed(list(enumerate(_STARTS.values()))):
        out = F.when(kind == k, pick(shape)).otherwise(out)
    return out


def _written_back(shape: Shape, values: list[Column]) -> Column:
    parts = [F.lit(shape.prefix), values[0]]
    for delimiter, value in zip(shape.delimiters, values[1:]):
        parts += [F.lit(delimiter), value]
    return F.concat(*parts, F.lit(shape.end))


def _transaction(spaced: bool, text: Column, values: list[Column]) -> Column:
    with_gtid, null_gtid, no_gtid = (s for s in SHAPES if s.type == "transaction" and s.spaced == spaced)
    return (
        F.when(text.endswith(null_gtid.end), _written_back(null_gtid, values))
        .when(text.contains(with_gtid.delimiters[-1]), _written_back(with_gtid, values))
        .otherwise(_written_back(no_gtid, values))
    )


def shaped_fields() -> dict[str, Column]:
    """The event's fields (``EVENT_SCHEMA`` names) from the columns of :func:`shaped_columns`,
    meaningful where ``_clean`` is true."""
    text, kind = F.col("_text"), F.col("_type")
    values = [F.col(f"_value{k}") for k in range(3)]
    is_row = _by_start(kind, lambda s: F.lit(s.type == "row"))
    is_trx = ~is_row
    has_gtid = _by_start(kind, lambda s: text.contains(s.delimiters[-1]))
    return {
        "v": F.lit(1).cast("long"),
        "type": F.when(is_row, F.lit("row")).otherwise(F.lit("transaction")),
        "channel": values[0],
        "db": F.when(is_row, values[1]),
        "table": F.when(is_row, values[2]),
        "kind": F.when(is_trx, values[1]),
        "gtid": F.when(is_trx & has_gtid, values[2]),
    }


def shaped_columns(line: str) -> list[tuple[str, Column]]:
    """Columns to add (name, column), in order (each may use the ones before): ``_text`` (the
    line), ``_type`` (the index of the (type, writing) its start says, in ``_STARTS``),
    ``_after0`` and ``_after1``, ``_after2`` (the text after the start, after the first
    delimiter, after the second), ``_value0`` to ``_value2`` (each the text up to the next
    ``"``), ``_clean`` (true when the line is read here) and ``_shaped``, the event struct
    (``EVENT_SCHEMA``) when the line is read here, else NULL.

    Separate columns so that Spark computes each once per line (a column used twice is not
    computed twice, an expression copied into two places is), and each a byte-wise string
    function, one per column: the cost is a few copies of a short string per line."""
    text, kind = F.col("_text"), F.col("_type")
    after = [F.col(f"_after{k}") for k in range(3)]
    values = [F.col(f"_value{k}") for k in range(3)]
    is_row = _by_start(kind, lambda s: F.lit(s.type == "row"))
    written = _by_start(
        kind, lambda s: _written_back(s, values) if s.type == "row" else _transaction(s.spaced, text, values)
    )
    clean = (
        (written == text)
        & ~F.concat(*values).rlike(_NOT_IN_VALUES)
        & F.is_valid_utf8(F.col(line))
        & (is_row | values[1].isin(*KIND_VALUES))
    )
    fields = shaped_fields()
    event = F.struct(*[fields.get(f.name, F.lit(None)).cast(f.dataType).alias(f.name) for f in EVENT_SCHEMA.fields])
    starts = list(_STARTS.values())
    start = F.lit(None).cast("int")
    for k, shape in reversed(list(enumerate(starts))):
        start = F.when(text.startswith(shape.prefix), F.lit(k)).otherwise(start)
    return [
        ("_text", F.col(line)),
        ("_type", start),
        ("_after0", _by_start(kind, lambda s: F.substr(text, F.lit(len(s.prefix) + 1)))),
        ("_after1", _by_start(kind, lambda s: F.substring_index(after[0], s.delimiters[0], -1))),
        ("_after2", _by_start(kind, lambda s: F.substring_index(after[1], s.delimiters[1], -1))),
        *[(f"_value{k}", F.substring_index(after[k], '"', 1)) for k in range(3)],
        ("_clean", F.coalesce(clean, F.lit(False))),
        ("_shaped", F.when(F.col("_clean"), event)),
    ]
