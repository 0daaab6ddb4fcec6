"""``replfilter stream`` refuses, before Spark starts, inputs it cannot read as asked
(replfilter/cli/stream.py): an empty EVENTS_DIR without ``--format``, binary logs at a URL that
is not a local directory, ``--rows`` without binlog input. One clear line each, exit status 1;
``file://`` URLs of local directories are read as their paths."""

from __future__ import annotations

import io

import pytest

import binlog_builder as W
from replfilter.cli.stream import main
from replfilter.evaluation.binlog.tail import local_log_directory


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    status = main(list(argv), io.StringIO(), err)
    return status, err.getvalue()


@pytest.fixture
def dirs(tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    return events, str(tmp_path / "out"), str(tmp_path / "ckpt")


def test_an_empty_events_dir_needs_format(dirs):
    events, out, ckpt = dirs
    (events / ".hidden").write_text("")  # Spark skips such names: still empty
    status, err = _run(str(events), out, ckpt, "--available-now")
    assert status == 1 and err == (
        f"replfilter stream: events directory '{events}' is empty: give --format (json, parquet, debezium or "
        "binlog), the format of the files that will arrive\n"
    )
    status, err = _run(f"file://{events}", out, ckpt, "--available-now")
    assert status == 1 and "is empty: give --format" in err and err.count("\n") == 1


@pytest.mark.parametrize("url", ["s3a://bucket/binlogs", "hdfs://nn:8020/binlogs"])
def test_binlog_input_at_a_url_that_is_not_a_local_directory_is_refused(dirs, url):
    _events, out, ckpt = dirs
    status, err = _run(url, out, ckpt, "--format", "binlog")
    assert status == 1 and err == (
        f"replfilter stream: --format binlog: binary logs are read from a local directory, not '{url}': "
        "copy or mount the log files into a local directory and give its path\n"
    )


def test_a_file_url_names_its_local_directory(tmp_path):
    assert local_log_directory(f"file://{tmp_path}") == str(tmp_path)
    assert local_log_directory(f"file://localhost{tmp_path}") == str(tmp_path)
    assert local_log_directory(str(tmp_path)) == str(tmp_path)
    with pytest.raises(ValueError, match="not 'file://otherhost/x'"):
        local_log_directory("file://otherhost/x")


def test_rows_needs_binlog_input(dirs):
    events, out, ckpt = dirs
    (events / "a.json").write_text('{"type": "query", "sql": "CREATE TABLE t (a INT)"}\n')
    status, err = _run(str(events), out, ckpt, "--rows")
    assert status == 1 and err == (
        "replfilter stream: --rows decodes binary log row images; the events are json (give --format binlog, "
        "or an EVENTS_DIR of binary or relay log files)\n"
    )
    status, err = _run(str(events), out, ckpt, "--rows", "--format", "parquet")
    assert status == 1 and "the events are parquet" in err


def test_rows_with_a_detected_binlog_dir_passes_the_checks(dirs):
    """A directory of binary logs given as a ``file://`` URL is detected as binlog input."""
    from argparse import Namespace

    from replfilter.cli.stream import _detected_format, _refused_input

    events, out, ckpt = dirs
    (events / "binlog.000001").write_bytes(bytes(W.BinlogWriter()))
    args = Namespace(events_dir=f"file://{events}", format=None, rows=True)
    assert _detected_format(args.events_dir) == "binlog"
    assert _refused_input(args) is None
