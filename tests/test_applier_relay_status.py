"""SHOW REPLICA STATUS's relay log columns over a binlog relay directory
(replfilter/spark_runtime/applier.py) when the directory goes away or does not say yet: the
committed place stays, no traceback, and what was not found is asked again. No Spark needed."""

from __future__ import annotations

import shutil

from replfilter.spark_runtime import applier
from test_binlog_tail import relay_log


def test_a_removed_relay_directory_keeps_the_committed_place(tmp_path):
    relay = tmp_path / "relay"
    relay.mkdir()
    relay_log(relay)
    position = {"log": "relay-bin.000002", "pos": 4}
    shutil.rmtree(relay)
    assert applier._relay_log_columns(str(relay), position) == {"Relay_Log_File": "relay-bin.000002", "Relay_Log_Pos": 4}
    assert applier._relay_log_columns(str(relay), None) == {"Relay_Log_File": "", "Relay_Log_Pos": 4}


def test_source_coordinates_not_found_are_asked_again(tmp_path):
    relay = tmp_path / "relay"
    relay.mkdir()
    paths = relay_log(relay)
    end = len(open(paths[1], "rb").read())
    position = {"log": "relay-bin.000002", "pos": end}
    shutil.rmtree(relay)
    assert "Relay_Source_Log_File" not in applier._relay_log_columns(str(relay), position)
    relay.mkdir()
    relay_log(relay)  # the relay log is back: its source coordinates are read now
    columns = applier._relay_log_columns(str(relay), position)
    assert (columns["Relay_Source_Log_File"], columns["Exec_Source_Log_Pos"]) == ("source-bin.000001", 1000 + end)
