"""JSON lines read in bulk (line_shapes.py: no JSON parser for row and transaction events in
replfilter's or Spark's writing; json_lines.py: Spark's parser and a write-back check for the
rest) and the reference reader in Python for what both doubt: together they give exactly the
events and dead letters of ``replfilter evaluate``'s reader, on generated lines and nasty ones."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replfilter.evaluation.event_json import to_json
from replfilter.evaluation.events import CommandKind, QueryEvent, RowEvent, TableRef, TransactionEvent, TransactionKind

pytestmark = pytest.mark.spark

NAMES = ("", "d", "db1", "t_1", "a.b", "é", "straße", "中文", "😀", "a b", "a:b", "x,y", "{}", "[", "null",
         'q"', "b\\s", "c\x01", "tab\t", "\ufffd", "\u2028", "gtid", '","db":"', "ÿ", ": x", ", ", '", "db": "', ": ")
"""Names a value may hold: plain, non-ASCII, JSON's punctuation, and ones no line of a shape
holds unescaped (a quote, a backslash, control characters, U+FFFD), and ones that start with or
hold the spacing of replfilter's writing (``": "``, ``", "``), which only the writing's own
delimiters may be taken for."""

_name = st.sampled_from(NAMES)
_events = st.one_of(
    st.builds(RowEvent, _name, _name, _name),
    st.builds(TransactionEvent, _name, st.sampled_from(list(TransactionKind)), st.one_of(st.none(), _name)),
    st.builds(
        QueryEvent, _name, _name, st.sampled_from([CommandKind.INSERT, CommandKind.CREATE_TABLE]),
        st.lists(st.builds(TableRef, st.one_of(st.none(), _name), st.sampled_from(("t", "é", 'q"'))), max_size=2).map(tuple),
        st.one_of(st.none(), st.just("INSERT INTO t VALUES (1)")),
    ),
)


def _writings(event) -> list[str]:
    """replfilter's writing, compact, compact with NULLs left out (Spark's), ASCII with escapes."""
    d = event.to_dict()
    bare = {k: v for k, v in d.items() if v is not None}
    compact = dict(separators=(",", ":"), ensure_ascii=False)
    return [to_json(event), json.dumps(d, **compact), json.dumps(bare, **compact), json.dumps(d, separators=(",", ":"))]


TEXT_MUTATIONS = [
    lambda s: s[:-1] + ',"db":"x"}',  # a key twice (or a row key on another type)
    lambda s: s.replace('"type"', '"v":1,"type"', 1),  # v twice
    lambda s: s.replace('"table":"t"', '"table":"t","table":"t"'),  # a key twice inside a table list
    lambda s: s.replace('"channel":"', '"channel":"\\u0063', 1),  # a \u escape
    lambda s: s.replace('"channel":"', '"channel":"\\ud800', 1),  # a lone surrogate
    lambda s: s.replace('"channel":"', '"channel":"\\ud83d\\ude00', 1),  # a surrogate pair
    lambda s: s.replace('"v":1', '"v":"1"').replace('"v": 1', '"v": "1"'),  # a number as a string
    lambda s: s.replace('"v":1', '"v":1.0').replace('"v": 1', '"v": 1e0'),
    lambda s: s.replace('"db":"', '"db":5,"x":"', 1),  # a number for a string, and an extra key
    lambda s: s[:-1] + ',"extra":null}',
    lambda s: s.replace('"channel":""', '"channel":null').replace('"channel": ""', '"channel": null'),
    lambda s: s.replace('"kind":"', '"kind":["', 1).replace('","gtid"', '"],"gtid"', 1),
    lambda s: s.replace("{", "{ ", 1).replace(",", " ,\t", 1),  # other spacing
    lambda s: s.replace(",", ",\r", 1),
    lambda s: "  " + s + " ",
    lambda s: s + " x",
    lambda s: s[:-1],
    lambda s: s.replace('"', "'", 2),
    lambda s: s.replace('"gtid":null', '"gtid":""'),
    lambda s: s.replace('"channel"', '"CHANNEL"', 1),
]


def _in_first_value(line: bytes, inserted: bytes) -> bytes:
    """``inserted`` at the start of the line's first string value (compact or spaced writing)."""
    for colon in (b'":"', b'": "'):
        if colon in line:
            return line.replace(colon, colon + inserted, 1)
    return line + inserted


BYTE_MUTATIONS = [
    lambda b: b"\xef\xbb\xbf" + b,  # a byte order mark
    lambda b: _in_first_value(b, b'\xff'),  # not UTF-8
    lambda b: _in_first_value(b, b'\xc0\x80'),  # overlong
    lambda b: _in_first_value(b, b'\xed\xa0\x80'),  # a surrogate's bytes
    lambda b: _in_first_value(b, b'\xf4\x90\x80\x80'),  # past U+10FFFF
    lambda b: _in_first_value(b, b'\xe4\xb8'),  # cut short
    lambda b: _in_first_value(b, b'\x01'),  # a raw control character
    lambda b: _in_first_value(b, b'\t'),
    lambda b: _in_first_value(b, b'x"'),  # a quote in a value
]
BLANKS = [b"", b"  ", b"\t", b" \r", b"\xef\xbb\xbf", b"\xef\xbb\xbf  "]


@st.composite
def nasty_lines(draw) -> bytes:
    """A line as bytes: an event in one of its writings, most of them clean, many mutated."""
    choice = draw(st.integers(0, 9))
    if choice == 9:
        return draw(st.sampled_from(BLANKS))
    text = draw(st.sampled_from(_writings(draw(_events))))
    if choice >= 5:
        text = draw(st.sampled_from(TEXT_MUTATIONS))(text)
    line = text.encode("utf-8", "surrogatepass")
    if choice == 8:
        line = draw(st.sampled_from(BYTE_MUTATIONS))(line)
    return line


def _reference(line: bytes):
    """What ``replfilter evaluate`` makes of a line: ("event", dict), ("dead", message) or None."""
    from replfilter.evaluation.event_lines import read_line

    try:
        event = read_line(line)
    except ValueError as err:
        return "dead", str(err)
    return None if event is None else ("event", event.to_dict())


def _comparable(event: dict) -> str:
    keys = ("v", "type", "channel", "default_db", "command", "tables", "sql", "temporary", "if_exists", "db", "table", "kind", "gtid")
    d = {k: v for k, v in event.items() if k in keys and v is not None}
    if d.get("type") == "query":
        d.setdefault("tables", [])
        d["tables"] = [{k: v for k, v in t.items() if v is not None} for t in d["tables"]]
    return json.dumps(d, sort_keys=True, ensure_ascii=False)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(nasty_lines(), min_size=1, max_size=60))
def test_read_events_reads_nasty_lines_exactly_as_evaluate(spark, tmp_path_factory, lines):
    """Every line, from a file through ``read_events``: the event ``replfilter evaluate`` reads,
    or a dead letter with its reason and its line number; a blank line neither."""
    from replfilter.spark_runtime.ingest import read_events

    path = tmp_path_factory.mktemp("nasty") / "events.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    want_events, want_dead = [], []
    for number, line in enumerate(lines, start=1):
        got = _reference(line)
        if got is not None and got[0] == "event":
            want_events.append(_comparable(got[1]))
        elif got is not None:
            want_dead.append((got[1], number))
    ingested = read_events(spark, str(path), "json", resolve_sql=False)
    got_events = sorted(_comparable(r.asDict(recursive=True)) for r in ingested.events.collect())
    assert got_events == sorted(want_events)
    assert sorted((r.reason, r.line) for r in ingested.dead.collect()) == sorted(want_dead)


def _shaped(spark, lines: list[bytes]) -> list:
    """Each line's ``_shaped`` event (None when line_shapes does not read it)."""
    from pyspark.sql import functions as F

    from replfilter.spark_runtime.line_shapes import shaped_columns

    df = spark.createDataFrame([(i, line) for i, line in enumerate(lines)], "i long, raw binary")
    df = df.select("i", F.col("raw").cast("string").alias("_record"))
    for name, column in shaped_columns("_record"):
        df = df.withColumn(name, column)
    return [r["_shaped"] for r in sorted(df.select("i", "_shaped").collect())]


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(nasty_lines(), min_size=1, max_size=60))
def test_a_line_read_without_a_parser_is_the_event_evaluate_reads(spark, lines):
    """Soundness of the bulk path on its own: whatever line it reads, the reference reader reads
    the same event from it."""
    for line, shaped in zip(lines, _shaped(spark, lines)):
        if shaped is not None:
            kind, value = _reference(line)
            assert kind == "event" and _comparable(value) == _comparable(shaped.asDict()), line


def test_row_and_transaction_events_in_both_writings_take_the_bulk_path(spark):
    """The lines of a ROW-format relay log, in replfilter's and Spark's writing, need no JSON
    parser; a line with an escape, a BOM, other spacing or a doubtful byte is sent on."""
    clean = [
        RowEvent("", "db1", "t1"), RowEvent("c1", "é", "straße"), RowEvent("", "", "a.b"),
        TransactionEvent("", TransactionKind.GTID, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1"),
        TransactionEvent("c2", TransactionKind.XID, None), TransactionEvent("", TransactionKind.BEGIN, ""),
    ]
    lines = [w.encode() for event in clean for w in _writings(event)[:3]]
    shaped = _shaped(spark, lines)
    assert all(s is not None for s in shaped)
    assert [_comparable(s.asDict()) for s in shaped] == [_comparable(json.loads(line)) for line in lines]
    doubtful = [
        to_json(RowEvent("", "d\\", "t")), to_json(RowEvent("", 'd"', "t")), to_json(RowEvent("", "d\x01", "t")),
        json.dumps(RowEvent("", "é", "t").to_dict(), separators=(",", ":")),  # \u00e9
        " " + to_json(RowEvent("", "d", "t")), to_json(RowEvent("", "d", "t")).replace(", ", ","),  # mixed spacing
        json.dumps({"v": 1, "type": "row", "db": "d", "table": "t"}),  # no channel key
        json.dumps({"v": 1, "type": "row", "channel": "", "table": "t", "db": "d"}),  # another order
        json.dumps({"v": 1, "type": "transaction", "channel": "", "kind": "NOPE"}),
    ]
    raw = [line.encode() for line in doubtful] + [b"\xef\xbb\xbf" + lines[0], lines[0].replace(b"db1", b"db\xff")]
    assert _shaped(spark, raw) == [None] * len(raw)



@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(nasty_lines(), min_size=1, max_size=40))
def test_shaped_lines_accepts_only_what_evaluate_reads_and_sends_the_rest_on(spark, lines):
    """``read_events``' first step (flat columns, no parser): a line it accepts is the event the
    reference reader reads; every other line that is not blank is sent on whole, never dropped."""
    from replfilter.evaluation.event_lines import is_blank
    from replfilter.spark_runtime.json_lines import shaped_lines

    df = spark.createDataFrame([(line,) for line in lines], "raw binary").selectExpr("cast(raw as binary) as value")
    rows = shaped_lines(df.selectExpr("cast(value as string) as value")).selectExpr("*", "cast(value as binary) as raw").collect()
    kept = [line for line in lines if not is_blank(line)]
    assert len(rows) == len(kept)  # (a scan keeps the lines' order)
    for line, row in zip(kept, rows):
        if row["_shaped"]:
            kind, value = _reference(line)
            assert kind == "event" and _comparable(value) == _comparable(row.asDict()), line
            assert row["raw"] is None
        else:
            assert bytes(row["raw"]) == line
