"""Odd lines a user's file holds, read by the Spark runtime as ``replfilter evaluate`` reads them:
a UTF-8 byte order mark (on the file's first line, and on a later one, as ``cat a b`` gives),
a key given twice, a version written ``true``."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.spark

BOM = b"\xef\xbb\xbf"
LINES = [
    BOM + b'{"v": 1, "type": "row", "channel": "", "db": "d", "table": "first"}',
    b'{"v": 1, "type": "row", "channel": "", "db": "d", "table": "a", "table": "b"}',
    b'{"v": 1, "type": "row", "channel": "", "db": "d", "db": "d", "table": "same"}',
    b'{"v": true, "type": "row", "channel": "", "db": "d", "table": "t"}',
    BOM + b'{"v": 1, "type": "row", "channel": "", "db": "d", "table": "joined"}',
    BOM,
    b'{"v": 1, "type": "query", "channel": "", "default_db": "d", "command": "INSERT", '
    b'"tables": [{"db": null, "table": "t", "table": "u"}]}',
    b'{"v": 1, "type": "row", "channel": "", "db": "d", "table": "last"}',
]


def test_bom_duplicate_keys_and_json_spelling_as_evaluate(spark, tmp_path):
    from replfilter.evaluation.event_lines import evaluate_lines
    from replfilter.server.session import Session
    from replfilter.spark_runtime.ingest import read_events

    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join(LINES) + b"\n")
    results, _ = evaluate_lines(Session().state, path.read_bytes().split(b"\n")[:-1])
    want_events = sorted(r.event.table for r in results if r.event is not None)  # type: ignore[union-attr]
    want_dead = sorted((r.error, r.line) for r in results if r.error is not None)
    assert want_events == ["first", "joined", "last"]
    assert want_dead == [
        ("field 'db': given twice in one object (a JSON reader may keep either value)", 3),
        ("field 'table': given twice in one object (a JSON reader may keep either value)", 2),
        ("field 'table': given twice in one object (a JSON reader may keep either value)", 7),
        ("field 'v': unsupported version true (this reader understands 1)", 4),
    ]

    ingested = read_events(spark, str(path), "json", resolve_sql=False)
    assert sorted(r.table for r in ingested.events.collect()) == want_events
    assert sorted((r.reason, r.line) for r in ingested.dead.collect()) == want_dead
    assert all(json.loads(r.record) for r in ingested.dead.collect())  # the lines as written
