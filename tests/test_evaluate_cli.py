"""``replfilter evaluate``: one JSON line per event, bad lines reported by number, the run goes on."""

from __future__ import annotations

import io
import json
from pathlib import Path

from replfilter.cli import main as cli
from replfilter.evaluation.evaluator import apply_event, channel_filters
from replfilter.evaluation.events import RowEvent
from replfilter.core.filters import FilterType
from replfilter.server.session import Session

EVENTS = "\n".join([
    '{"v": 1, "type": "row", "channel": "", "db": "db1", "table": "t1"}',
    '{"v": 1, "type": "row", "channel": "", "db": "db2", "table": "t3"}',
    "not json",
    '{"v": 1, "type": "query", "channel": "", "default_db": "db1", "command": "UPDATE", "tables": [{"db": "db2", "table": "t3", "updating": true}]}',
    "",
    '{"v": 1, "type": "row", "channel": "nope", "db": "db2", "table": "t3"}',
    '{"v": 1, "type": "transaction", "channel": "", "kind": "XID", "gtid": null}',
]) + "\n"


def evaluate(argv: list[str]) -> tuple[int, list[dict], str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["evaluate", *argv], stdout=out, stderr=err)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_manual_example_ignore_db_and_do_table_on_the_default_channel(tmp_path: Path) -> None:
    """Seed 004's replicate-ignore-db=db1 + replicate-do-table=db2.t3, row events: the row on db1
    is skipped by the database rule, the row on db2.t3 applied by the table rule; under STATEMENT
    with default database db1 the UPDATE of db2.t3 is skipped at database level."""
    events = tmp_path / "events.jsonl"
    events.write_text(EVENTS, encoding="utf-8")
    status, records, err = evaluate(["--replicate-ignore-db=db1", "--replicate-do-table=db2.t3", str(events)])
    assert status == 1  # two bad lines
    assert [r["line"] for r in records] == [1, 2, 3, 4, 6, 7]
    assert [(r.get("decision"), r.get("filter")) for r in records] == [
        ("SKIP", "REPLICATE_IGNORE_DB"),
        ("APPLY", "REPLICATE_DO_TABLE"),
        (None, None),
        ("SKIP", "REPLICATE_IGNORE_DB"),
        (None, None),
        ("APPLY", None),
    ]
    assert records[2]["error"].startswith("not valid JSON")  # the line number is said once, in "line"
    assert "'nope'" in records[4]["error"]
    assert f"replfilter: {events}: line 3: not valid JSON" in err


def test_init_script_configures_channels(tmp_path: Path) -> None:
    init = tmp_path / "init.sql"
    init.write_text(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c1';\n"
        "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB=((a,b)) FOR CHANNEL 'c1';\n",
        encoding="utf-8",
    )
    events = tmp_path / "e.jsonl"
    events.write_text('{"v": 1, "type": "row", "channel": "c1", "db": "a", "table": "t"}\n', encoding="utf-8")
    status, records, err = evaluate(["--init", str(init), str(events)])
    assert (status, err) == (0, "")
    assert records[0]["decision"] == "APPLY" and records[0]["rewritten_db"] == "b"


def test_init_script_error_stops_with_its_line(tmp_path: Path) -> None:
    init = tmp_path / "init.sql"
    init.write_text("\nSHOW REPLICA STATUS FOR CHANNEL 'x';\n", encoding="utf-8")
    status, records, err = evaluate(["--init", str(init), "/dev/null"])
    assert status == 1 and records == []
    assert err == "ERROR 3074 (HY000) at line 2: Replica channel 'x' does not exist.\n"


def test_missing_events_file() -> None:
    status, records, err = evaluate(["/nonexistent/events.jsonl"])
    assert status == 1 and records == []
    assert err == "replfilter: can't read events file '/nonexistent/events.jsonl': No such file or directory\n"


def test_unconfigured_channel_is_decided_with_the_global_rules_and_counts_nothing() -> None:
    session = Session()
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(keep)")
    assert channel_filters(session.state, "").rules(FilterType.DO_DB) == ("keep",)
    decision, state = apply_event(session.state, RowEvent("", "other", "t"))
    assert decision.decision == "SKIP"
    assert state == session.state  # no P_S rows, no counters on an unconfigured channel


def test_counters_are_the_events_own_increments_and_stay_empty_on_an_unconfigured_channel(tmp_path: Path) -> None:
    """``counters`` is what one event adds to its channel's COUNTERs (not a running total). The
    default channel of a fresh replica is not configured: it decides with the global rules but,
    having no applier, counts nothing; once configured, the same events count."""
    events = tmp_path / "events.jsonl"
    row = '{"v": 1, "type": "row", "channel": "", "db": "d", "table": "t"}\n'
    events.write_text(row * 2, encoding="utf-8")
    status, records, _ = evaluate(["--replicate-do-db=d", str(events)])
    assert status == 0
    assert [(r["decision"], r["filter"], r["counters"]) for r in records] == [("APPLY", "REPLICATE_DO_DB", {})] * 2
    init = tmp_path / "init.sql"
    init.write_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h';\n", encoding="utf-8")
    status, records, _ = evaluate(["--replicate-do-db=d", "--init", str(init), str(events)])
    assert status == 0
    assert [r["counters"] for r in records] == [{"REPLICATE_DO_DB": 1}] * 2  # per event, not 1 then 2


def test_summary_is_sorted_by_channel_and_decision_and_counts_bad_lines(tmp_path: Path) -> None:
    row = '{{"v": 1, "type": "row", "channel": "{}", "db": "{}", "table": "t"}}'
    lines = [row.format("zz", "keep"), row.format("", "skip"), "not json", row.format("a", "keep"),
             row.format("", "keep"), row.format("zz", "skip"), '{"v": 1}', row.format("", "skip")]
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join(lines) + "\n", encoding="utf-8")
    init = tmp_path / "init.sql"
    init.write_text("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'zz';\n"
                    "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a';\n")
    status, records, err = evaluate(["--replicate-ignore-db=skip", "--init", str(init), "--summary", str(events)])
    assert status == 1 and len(records) == 8
    assert err.splitlines()[-6:] == [
        "channel '': APPLY 1", "channel '': SKIP 2", "channel 'a': APPLY 1",
        "channel 'zz': APPLY 1", "channel 'zz': SKIP 1", "bad lines: 2",
    ]


def test_a_subcommand_after_options_is_told_to_come_first(tmp_path: Path, capsys, monkeypatch) -> None:
    """``replfilter --defaults-file=x evaluate f``: each subcommand reads its own options."""
    import pytest

    monkeypatch.chdir(tmp_path)  # no file named evaluate here
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--defaults-file=my.cnf", "evaluate", "events.jsonl", "--summary"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "replfilter: error: the subcommand comes first: replfilter evaluate --defaults-file=my.cnf events.jsonl --summary"
    )
    (tmp_path / "evaluate").write_text("SHOW WARNINGS;\n")  # a script of that name runs as before
    assert cli.main(["--force", "evaluate"], stdout=io.StringIO(), stderr=io.StringIO()) == 0
