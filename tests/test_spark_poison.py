"""Poison input in a stream: bytes that are not UTF-8, binary files, truncated lines, odd line ends
and unknown channels are dead letters (bytes kept), the stream goes on, and every line is what
``replfilter evaluate`` makes of it: decided alike, or refused for the same reason."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replfilter.evaluation.event_lines import LineEvaluator, split_lines
from replfilter.server.session import Session

pytestmark = pytest.mark.spark

SETUP = """
CHANGE REPLICATION SOURCE TO SOURCE_HOST='src' FOR CHANNEL 'a';
CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(skipme) FOR CHANNEL 'a';
"""


def _row(channel: str, db: str, table: str = "t") -> bytes:
    return json.dumps({"v": 1, "type": "row", "channel": channel, "db": db, "table": table}).encode()


BAD_DB = _row("a", "d").replace(b'"db": "d"', b'"db": "d\xfe"')
"""A valid event but for one byte that is not UTF-8 inside its database name."""


def _session() -> Session:
    session = Session()
    session.execute_sql(SETUP)
    return session


def _evaluate(files: dict[str, bytes]) -> list[tuple[str, object]]:
    """What ``replfilter evaluate`` makes of each file's lines: ('APPLY'|'SKIP', event dict) or
    ('error', reason, line bytes, file, line number), blank lines left out."""
    evaluator = LineEvaluator(_session().state)
    out = []
    for name, data in files.items():
        lines = list(split_lines(io.BytesIO(data)))
        for result in evaluator.results(lines):
            if result.error is not None:
                out.append(("error", result.error, lines[result.line - 1], name, result.line))
            else:
                out.append((result.decision.decision.value, result.event.to_dict()))
    return out


def _stream_once(spark, tmp_path: Path, files: dict[str, bytes]):
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    events = tmp_path / "events"
    events.mkdir()
    for name, data in files.items():
        (events / name).write_bytes(data)
    config = StreamConfig(str(events), str(tmp_path / "out"), str(tmp_path / "ckpt"), skipped_dir=str(tmp_path / "skipped"))
    session = _session()
    stream = EventStream(spark, session, config)
    return stream, config, stream.run_available_now()


def _event_dict(row) -> dict:
    d = {"v": 1, "type": row["type"], "channel": row["channel"], "db": row["db"], "table": row["table"]}
    return d


def _stream_outcomes(spark, config) -> list[tuple[str, object]]:
    out = []
    for decision, directory in (("APPLY", config.output_dir), ("SKIP", config.skipped_dir)):
        if (Path(directory)).exists() and any(Path(directory).glob("batch_id=*")):
            for row in spark.read.parquet(directory).collect():
                out.append((decision, _event_dict(row)))
    if Path(config.dead_dir).exists() and any(Path(config.dead_dir).glob("batch_id=*")):
        for row in spark.read.parquet(config.dead_dir).collect():
            raw = bytes(row["record_bytes"]) if row["record_bytes"] is not None else row["record"].encode("utf-8")
            out.append(("error", row["reason"], raw, Path(row["source_file"]).name, row["line"]))
    return out


def _comparable(outcomes) -> Counter:
    """Row events compared as the evaluator's ``to_dict`` gives them (channel as named)."""
    return Counter(json.dumps(o, sort_keys=True, default=lambda b: b.decode("latin-1")) for o in outcomes)


MIXED = {
    "good.jsonl": b"\n".join([_row("a", "d1"), _row("a", "skipme"), _row("a", "d2")]) + b"\n",
    "binary.bin": bytes(range(256)) + b"\n\x00\xff\xfe\n\x89PNG\r\n\x1a\n",
    "truncated.jsonl": _row("a", "d3") + b"\n" + _row("a", "d4")[:17],
    "unknown.jsonl": _row("nope", "d5") + b"\n" + _row("a", "d6") + b"\n",
    "odd.jsonl": b"\t\n" + BAD_DB + b"\r\n" + _row("a", "d7")[:12] + b"\r" + _row("a", "d7")[12:] + b"\n" + b'{"v": 1, "x": ' + b"9" * 5000 + b"}\n",
}


def test_a_directory_of_poison_finishes_and_every_line_is_accounted_for_once(spark, tmp_path):
    stream, config, stats = _stream_once(spark, tmp_path, MIXED)
    expected = _evaluate(MIXED)
    assert sum(s.applied + s.skipped + s.dead for s in stats) == len(expected)
    assert sum(s.dead for s in stats) == sum(1 for o in expected if o[0] == "error")
    got = _stream_outcomes(spark, config)
    assert _comparable(got) == _comparable(expected)
    dead = spark.read.parquet(config.dead_dir).collect()
    not_utf8 = [r for r in dead if r["record_bytes"] is not None]
    assert {bytes(r["record_bytes"]) for r in not_utf8} >= {b"\x00\xff\xfe", BAD_DB}
    assert all(r["reason"].startswith("not UTF-8 text: byte 0x") for r in not_utf8)
    assert any("more than 4,300 digits" in r["reason"] for r in dead)
    assert all(r["source_file"] and r["line"] for r in dead)
    by_file = {(Path(r["source_file"]).name, r["line"]) for r in dead}
    assert {("truncated.jsonl", 2), ("unknown.jsonl", 1), ("odd.jsonl", 2), ("odd.jsonl", 3), ("odd.jsonl", 4)} <= by_file

    # a rerun on the same checkpoint writes nothing twice
    again = type(stream)(spark, _session(), config)
    assert again.run_available_now() == []
    assert Counter(map(str, _stream_outcomes(spark, config))) == Counter(map(str, got))


_LINES = st.one_of(
    st.binary(max_size=24),
    st.sampled_from([
        _row("a", "d1"), _row("a", "skipme"), _row("nope", "d1"), BAD_DB, b"\t", b" \r", b"",
        b"\xc2\xa0", _row("a", "d1")[:20], _row("a", "d1") + b"\r", b"\x0c", b'{"v": 1}',
    ]),
)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(files=st.lists(st.lists(_LINES, min_size=1, max_size=6).map(b"\n".join), min_size=1, max_size=2))
def test_evaluate_and_the_stream_agree_on_arbitrary_bytes(spark, tmp_path_factory, files):
    named = {f"{i}.jsonl": data for i, data in enumerate(files)}
    expected = _evaluate(named)
    if not expected:
        return  # nothing but blank lines: no batch has a line to compare
    tmp_path = tmp_path_factory.mktemp("fuzz")
    _stream, config, _stats = _stream_once(spark, tmp_path, named)
    assert _comparable(_stream_outcomes(spark, config)) == _comparable(expected)


def test_a_small_batch_prints_no_rate(spark, tmp_path):
    from replfilter.spark_runtime.stream import EventStream, StreamConfig

    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "1.jsonl").write_bytes(b"\n".join(_row("a", f"d{i}") for i in range(5)) + b"\n")
    progress = io.StringIO()
    config = StreamConfig(str(tmp_path / "events"), str(tmp_path / "out"), str(tmp_path / "ckpt"))
    EventStream(spark, _session(), config, progress=progress).run_available_now()
    line = progress.getvalue().strip()
    assert line.startswith("batch 0: 5 events: 5 applied") and "events/s" not in line
