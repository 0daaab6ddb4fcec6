"""Spark failures reach the user as one line that names the cause, never a stack trace."""

from __future__ import annotations

import subprocess
import sys

import pytest

from replfilter.spark_runtime.failure import failure_line
from replfilter.spark_runtime.session import check_master


@pytest.mark.parametrize("master", ["local", "local[*]", "local[2]", "local[2, 3]", "local-cluster[2, 1, 1024]",
                                    "spark://127.0.0.1:7077", "spark://h1:7077,h2:7077", "yarn", "k8s://https://h:443"])
def test_master_urls_spark_accepts(master):
    assert check_master(master) == master


@pytest.mark.parametrize("master", ["bogus://x", "local[x]", "", "spark:/h", "Local"])
def test_other_master_urls_are_refused_before_the_jvm_starts(master):
    with pytest.raises(ValueError, match="not a Spark master URL"):
        check_master(master)


def test_the_innermost_cause_is_the_line_shown():
    text = (
        "[STREAM_FAILED] Query terminated with exception: [FOREACH_BATCH_USER_FUNCTION_ERROR] ... Traceback (most recent call last):\n"
        '  File "x.py", line 1, in f\n'
        "org.apache.spark.SparkException: [FAILED_READ_FILE.NO_HINT] Encountered error while reading file file:///e/1.jsonl.\n"
        "\tat org.apache.spark.Foo.bar(Foo.scala:1)\n"
        "Caused by: py4j.Py4JException: An exception was raised by the Python Proxy.\n"
        "Caused by: java.lang.RuntimeException: file:/e/1.jsonl is not a Parquet file. Expected magic number\n"
        "\t... 34 more\n"
    )
    assert failure_line(RuntimeError(text)) == (
        "file:/e/1.jsonl is not a Parquet file. Expected magic number (are the files Parquet? --format names their format)"
    )
    assert failure_line(ValueError("first\nsecond")) == "first"


def test_a_python_error_in_a_batch_is_the_line_shown():
    """The message of a StreamingQueryException whose batch function raised (as Spark 4 words it):
    the exception that ended the batch's Python traceback, not "[STREAM_FAILED] ... Traceback"."""
    text = (
        "[STREAM_FAILED] Query [id = 1, runId = 2] terminated with exception: [FOREACH_BATCH_USER_FUNCTION_ERROR] "
        "An error occurred in the user provided function in foreach batch sink. Reason: An exception was raised "
        "by the Python Proxy. Return Message: Traceback (most recent call last):\n"
        '  File "/venv/py4j/clientserver.py", line 644, in _call_proxy\n'
        "    return_value = getattr(self.pool[obj_id], method)(*params)\n"
        '  File "/x/stream.py", line 4, in f\n'
        '    b"\\xff".decode("utf-8")\n'
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte\n"
        " SQLSTATE: 39000 SQLSTATE: XXKST\n"
        "=== Streaming Query ===\n"
        "Identifier: [id = 1, runId = 2]\n"
    )
    assert failure_line(RuntimeError(text)) == (
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"
    )
    ours = text.replace("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
                        "RuntimeError: out already holds batch 0 of another stream")
    assert failure_line(RuntimeError(ours)) == "out already holds batch 0 of another stream"


def test_stream_command_with_a_bad_master_says_so_in_one_line(tmp_path):
    (tmp_path / "events").mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "replfilter", "stream", str(tmp_path / "events"), str(tmp_path / "out"),
         str(tmp_path / "ckpt"), "--master", "bogus://x", "--available-now", "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 1
    assert run.stderr == (
        "replfilter stream: not a Spark master URL: 'bogus://x' "
        "(expected local, local[N], local[*], spark://HOST:PORT, yarn or k8s://URL)\n"
    )


@pytest.mark.spark
def test_json_files_read_as_parquet_fail_with_the_file_and_the_reason(tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    (events / "1.jsonl").write_text('{"v": 1, "type": "row", "db": "a", "table": "t"}\n')
    run = subprocess.run(
        [sys.executable, "-m", "replfilter", "stream", str(events), str(tmp_path / "out"), str(tmp_path / "ckpt"),
         "--format", "parquet", "--available-now", "--master", "local[1]"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(f"replfilter stream: file:{events}/1.jsonl is not a Parquet file") and "--format" in last
    assert "Traceback" not in run.stderr and "\tat " not in run.stderr
