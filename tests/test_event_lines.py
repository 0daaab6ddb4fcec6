"""Event files read line by line as JSON Lines: bytes that are not UTF-8, odd line ends, blank and
odd lines are each one line's error or skip, never the end of the run (``replfilter evaluate``)."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from replfilter.cli import main as cli
from replfilter.evaluation.event_lines import LineEvaluator, is_blank, read_line, split_lines
from replfilter.evaluation.events import RowEvent
from replfilter.server.session import Session

ROW = b'{"v": 1, "type": "row", "db": "d", "table": "t"}'


def evaluate_bytes(tmp_path: Path, data: bytes, *options: str) -> tuple[int, list[dict], str]:
    events = tmp_path / "events.jsonl"
    events.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["evaluate", *options, str(events)], stdout=out, stderr=err)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_a_line_that_is_not_utf8_is_that_lines_error_and_the_rest_is_decided(tmp_path):
    status, records, err = evaluate_bytes(tmp_path, ROW + b"\n\xff\n" + ROW + b"\n")
    assert status == 1
    assert [(r["line"], r.get("decision")) for r in records] == [(1, "APPLY"), (2, None), (3, "APPLY")]
    assert records[1]["error"] == "not UTF-8 text: byte 0xFF at byte 1 of the line"
    assert err.endswith("events.jsonl: line 2: not UTF-8 text: byte 0xFF at byte 1 of the line\n")


def test_an_invalid_byte_inside_a_name_is_refused_not_replaced(tmp_path):
    status, records, _ = evaluate_bytes(tmp_path, b'{"v": 1, "type": "row", "db": "d\xfe", "table": "t"}\n')
    assert status == 1
    assert records == [{"line": 1, "error": "not UTF-8 text: byte 0xFE at byte 33 of the line"}]


def test_only_a_line_feed_ends_a_line(tmp_path):
    """A bare carriage return is part of the line (an error here, where it splits JSON), so line
    numbers follow ``wc -l``; ``\\r\\n`` ends a line like ``\\n``."""
    data = ROW + b"\r\n" + b'{"v": 1, "type": "row",\r "db": "d", "table": "t"}\n' + ROW[:10] + b"\r" + ROW[10:] + b"\n" + ROW
    status, records, _ = evaluate_bytes(tmp_path, data)
    assert [r["line"] for r in records] == [1, 2, 3, 4]
    assert [r.get("decision") for r in records] == ["APPLY", "APPLY", None, "APPLY"]  # \r is JSON white space
    assert records[2]["error"].startswith("not valid JSON")
    assert data.count(b"\n") + 1 == 4


def test_blank_means_json_white_space_only(tmp_path):
    status, records, _ = evaluate_bytes(tmp_path, b"\t\n  \r\n\x0c\n\xc2\xa0\n" + ROW + b"\n")
    assert [r["line"] for r in records] == [3, 4, 5]  # a form feed and a no-break space are not blank
    assert status == 1 and records[2]["decision"] == "APPLY"


def test_errors_are_in_replfilters_words():
    for text, reason in [
        ('{"v": ' + "9" * 5000 + "}", "not valid JSON: a number has more than 4,300 digits"),
        ("[" * 100_000, "not valid JSON: nested too deeply"),
        ('{"v": 1, "type": "row", "db": "\\ud800", "table": "t"}', "a name is not valid Unicode (a lone surrogate such as \\ud800)"),
    ]:
        try:
            read_line(text)
        except ValueError as err:
            assert str(err) == reason
        else:
            raise AssertionError(f"accepted: {text[:40]}")


def test_results_come_as_lines_are_read():
    """Nothing is kept per line: results of an endless input arrive one by one."""
    evaluator = LineEvaluator(Session().state)
    endless = itertools.repeat(ROW)
    first = list(itertools.islice(evaluator.results(endless), 3))
    assert [r.line for r in first] == [1, 2, 3]
    assert evaluator.counts == {("", "APPLY"): 3}


def test_summary_counts_what_was_printed(tmp_path):
    data = ROW + b"\n" + ROW.replace(b'"d"', b'"skip"') + b"\n\xff\n" + ROW + b"\n"
    status, records, err = evaluate_bytes(tmp_path, data, "--replicate-ignore-db=skip", "--summary")
    assert status == 1
    assert [r.get("decision") for r in records] == ["APPLY", "SKIP", None, "APPLY"]
    assert err.splitlines()[-3:] == ["channel '': APPLY 2", "channel '': SKIP 1", "bad lines: 1"]


def test_split_lines_keeps_everything_but_the_line_end():
    handle = io.BytesIO(b"a\r\nb\rc\n\n\xff\r")
    assert list(split_lines(handle)) == [b"a", b"b\rc", b"", b"\xff"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=30), st.sampled_from([ROW, b"\t", b"", b"\r", ROW + b"\r", b"\xff"])), max_size=8))
def test_any_bytes_give_one_result_per_line_that_is_not_blank(tmp_path_factory, lines):
    data = b"\n".join(lines)
    # the binary log magic, or an encrypted MySQL binlog's header: such a file is read as a binlog
    assume(not data.startswith((b"\xfebin", b"\xfdbin")))
    status, records, _ = evaluate_bytes(tmp_path_factory.mktemp("e"), data)
    physical = list(split_lines(io.BytesIO(data)))
    expected = [n for n, raw in enumerate(physical, start=1) if not _blank_bytes(raw)]
    assert [r["line"] for r in records] == expected
    assert all(("error" in r) != ("decision" in r) for r in records)
    assert status == (1 if any("error" in r for r in records) else 0)


def _blank_bytes(raw: bytes) -> bool:
    try:
        return is_blank(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return False


def test_read_line_matches_the_event_model():
    assert read_line(ROW) == RowEvent("", "d", "t")
    assert read_line(b" \t") is None
