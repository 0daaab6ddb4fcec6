"""``--datadir`` on hostile ground: full disks, corrupt and impossible files, symbolic links, a
read-only directory, the leftovers of a killed writer (README, "The data directory").

Every case runs the ``replfilter`` command (in-process, as scripts call it) on real files: a full
disk is a real tmpfs filled to the last block, a read-only directory a real read-only mount. Those
two need ``mount`` (root); where it is refused, they are skipped with that reason.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from replfilter.cli import main as cli

CONFIGURE = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h1' FOR CHANNEL 'ch1';\n"
ROOT = Path(__file__).resolve().parent.parent


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, stdin=io.StringIO(""), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def metadata(datadir: Path, channels: list[dict]) -> Path:
    datadir.mkdir(exist_ok=True)
    path = datadir / "connection_metadata.json"
    path.write_text(json.dumps({"version": 1, "channels": channels}), encoding="utf-8")
    return path


# ---- real file systems: a full disk, a read-only mount ---------------------------------------------


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"mount {' '.join(args)} was refused here: {done.stderr.strip()}")


@pytest.fixture
def tmpfs(tmp_path: Path):
    """A 256 KiB tmpfs of our own, unmounted afterwards."""
    point = tmp_path / "fs"
    point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    _mount("-t", "tmpfs", "-o", "size=256k", "tmpfs", str(point))
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def _fill(point: Path) -> None:
    """Write until the file system says it is full (ENOSPC), as a real full disk does."""
    with open(point / "filler", "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == 28, exc


def test_full_disk_with_a_new_directory_is_one_line(tmpfs: Path) -> None:
    _fill(tmpfs)
    datadir = tmpfs / "new"
    status, _, err = run(["--datadir", str(datadir), "-e", "SHOW WARNINGS"])
    assert status == 1
    line = one_error_line(err)
    assert line == f"replfilter: [ERROR] Error writing file '{datadir}/replfilter.lock' (OS errno 28 - No space left on device)"


def test_full_disk_when_saving_fails_the_statement_only(tmpfs: Path) -> None:
    datadir = tmpfs / "d"
    assert run(["--datadir", str(datadir), "-e", CONFIGURE])[0] == 0
    before = (datadir / "connection_metadata.json").read_text()
    _fill(tmpfs)
    status, _, err = run(["--datadir", str(datadir), "--force", "-e", "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h2' FOR CHANNEL 'ch2'; SHOW REPLICA STATUS FOR CHANNEL 'ch1'\\G"])
    assert status == 1
    assert one_error_line(err) == (
        f"ERROR 3 (HY000) at line 1: Error writing file '{datadir}/connection_metadata.json' (OS errno 28 - No space left on device)"
    )
    assert (datadir / "connection_metadata.json").read_text() == before
    assert [n for n in os.listdir(datadir) if n.startswith(".connection_metadata.")] == []


def test_read_only_directory_serves_reads_and_refuses_changes(tmpfs: Path) -> None:
    """Choice (README, "The data directory"): as ``mysqld --read-only`` still answers reads, a
    data directory that cannot be written is opened read-only."""
    datadir = tmpfs / "d"
    assert run(["--datadir", str(datadir), "-e", CONFIGURE])[0] == 0
    os.unlink(datadir / "replfilter.lock")  # e.g. a copy of a data directory, read-only
    _mount("-o", "remount,ro", str(tmpfs))
    status, out, err = run([
        "--datadir", str(datadir), "-e",
        "SELECT CHANNEL_NAME FROM performance_schema.replication_applier_filters;"
        "SHOW REPLICA STATUS FOR CHANNEL 'ch1'\\G"
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d) FOR CHANNEL 'ch1';"
        "SELECT CHANNEL_NAME, FILTER_RULE FROM performance_schema.replication_applier_filters",
    ])
    assert status == 0, err
    assert err == (
        f"replfilter: [Warning] Data directory '{datadir}' is read-only (Read-only file system): its channels are loaded, "
        "and statements that would change them fail\n"
    )
    assert "Source_Host: h1" in out and "ch1\td" in out
    status, _, err = run(["--datadir", str(datadir), "--force", "-e", "CHANGE REPLICATION SOURCE TO SOURCE_PORT=3307 FOR CHANNEL 'ch1'; SHOW WARNINGS"])
    assert status == 1
    assert err.splitlines()[1] == (
        f"ERROR 3 (HY000) at line 1: Error writing file '{datadir}/connection_metadata.json' (OS errno 30 - Read-only file system)"
    )


def test_a_read_only_view_of_a_directory_a_writer_holds_is_refused(tmp_path: Path) -> None:
    """The reader takes a shared lock on an existing lock file, so a writer that holds the
    directory keeps it even against a read-only view of it (here a read-only bind mount of the
    same directory: the lock file is the same inode)."""
    datadir = tmp_path / "d"
    view = tmp_path / "view"
    view.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-m", "replfilter", "--datadir", str(datadir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        lock = datadir / "replfilter.lock"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (lock.exists() and lock.read_text().strip()):
            time.sleep(0.05)
        if os.geteuid() != 0:
            pytest.skip("a bind mount needs root")
        _mount("--bind", str(datadir), str(view))
        try:
            _mount("-o", "remount,bind,ro", str(view))
            status, _, err = run(["--datadir", str(view), "-e", "SHOW WARNINGS"])
        finally:
            subprocess.run(["umount", "-l", str(view)], capture_output=True)
        assert status == 1
        assert one_error_line(err) == (
            f"replfilter: [ERROR] Unable to lock '{view}/replfilter.lock': data directory '{view}' is in use by replfilter pid {holder.pid}"
        )
    finally:
        holder.kill()
        holder.wait()


# ---- what is in the files ----------------------------------------------------------------------------


def test_deeply_nested_metadata_is_a_corrupt_file_not_a_recursion_error(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    datadir.mkdir()
    path = datadir / "connection_metadata.json"
    path.write_text("[" * 100_000)
    status, _, err = run(["--datadir", str(datadir), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == f"replfilter: [ERROR] Corrupt '{path}': nested too deeply"
    assert path.read_text() == "[" * 100_000  # left alone


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"port": -5}, "source setting 'port' is -5, outside 0..4294967295"),
        ({"port": 10**30}, f"source setting 'port' is {10**30}, outside 0..4294967295"),
        ({"connect_retry": 2**32}, "source setting 'connect_retry' is 4294967296, outside 0..4294967295"),
        ({"delay": 2**31}, "source setting 'delay' is 2147483648, outside 0..2147483647"),
        ({"auto_position": 2}, "source setting 'auto_position' is 2, outside 0..1"),
        ({"log_pos": 2**64}, "source setting 'log_pos' is 18446744073709551616, outside 0..18446744073709551615"),
    ],
)
def test_values_mysql_would_refuse_are_refused_on_load(tmp_path: Path, source: dict, message: str) -> None:
    path = metadata(tmp_path / "d", [{"name": "", "source": {}}, {"name": "a", "source": {"host": "h", **source}}])
    status, _, err = run(["--datadir", str(tmp_path / "d"), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == f"replfilter: [ERROR] Corrupt '{path}': channel 'a': {message} (what MySQL stores)"


def test_a_number_too_long_for_python_is_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "d" / "connection_metadata.json"
    path.parent.mkdir()
    path.write_text('{"version": 1, "channels": [{"name": "a", "source": {"port": ' + "9" * 5000 + "}}]}")
    status, _, err = run(["--datadir", str(tmp_path / "d"), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == f"replfilter: [ERROR] Corrupt '{path}': a number too long to be a setting"


@pytest.mark.parametrize("name", ["x" * 100, "x" * 65, "é" * 64 + "é", "trailing ", "ü" * 97])
def test_a_channel_name_mysql_would_refuse_is_refused_on_load(tmp_path: Path, name: str) -> None:
    path = metadata(tmp_path / "d", [{"name": name, "source": {"host": "h"}}])
    status, _, err = run(["--datadir", str(tmp_path / "d"), "-e", "SHOW WARNINGS"])
    assert status == 1
    line = one_error_line(err)
    assert line.startswith(f"replfilter: [ERROR] Corrupt '{path}': channel #1: field 'name': ")
    assert line.endswith("is not a channel name MySQL accepts (at most 64 characters, 192 bytes, no trailing space)")


def test_values_at_mysqls_limits_load(tmp_path: Path) -> None:
    limits = {"port": 2**32 - 1, "connect_retry": 0, "delay": 2**31 - 1, "log_pos": 2**64 - 1, "auto_position": 1}
    metadata(tmp_path / "d", [{"name": "c" * 64, "source": {"host": "h", **limits}}])
    status, out, err = run(["--datadir", str(tmp_path / "d"), "-E", "-e", "SHOW REPLICA STATUS"])
    assert (status, err) == (0, "")
    assert "Source_Port: 4294967295" in out and "SQL_Delay: 2147483647" in out


# ---- symbolic links -----------------------------------------------------------------------------------


def test_dangling_link_as_data_directory_says_so(tmp_path: Path) -> None:
    link = tmp_path / "d"
    link.symlink_to(tmp_path / "nowhere")
    status, _, err = run(["--datadir", str(link), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == f"replfilter: [ERROR] Data directory '{link}' is a symbolic link to '{tmp_path / 'nowhere'}', which does not exist"
    assert not (tmp_path / "nowhere").exists()


def test_link_loop_as_data_directory_says_so(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    status, _, err = run(["--datadir", str(tmp_path / "a"), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == f"replfilter: [ERROR] Data directory '{tmp_path / 'a'}' is a symbolic link that loops ('{tmp_path / 'b'}')"


def test_link_to_a_file_or_a_file_as_data_directory_says_so(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "d").symlink_to(tmp_path / "file")
    status, _, err = run(["--datadir", str(tmp_path / "d"), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == f"replfilter: [ERROR] Data directory '{tmp_path / 'd'}' is a symbolic link to '{tmp_path / 'file'}', which is not a directory"
    status, _, err = run(["--datadir", str(tmp_path / "file"), "-e", "SHOW WARNINGS"])
    assert one_error_line(err) == f"replfilter: [ERROR] Data directory '{tmp_path / 'file'}' is a file, not a directory"


def test_link_to_a_directory_is_a_data_directory(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "d").symlink_to(tmp_path / "real")
    assert run(["--datadir", str(tmp_path / "d"), "-e", CONFIGURE])[0] == 0
    assert (tmp_path / "real" / "connection_metadata.json").exists()


def test_a_symlinked_metadata_file_is_written_through_its_link(tmp_path: Path) -> None:
    """The link stays a link, and its target holds every write (the rename happens beside the
    target, so it is still atomic)."""
    datadir = tmp_path / "d"
    assert run(["--datadir", str(datadir), "-e", CONFIGURE])[0] == 0
    kept = tmp_path / "elsewhere" / "meta.json"
    kept.parent.mkdir()
    os.replace(datadir / "connection_metadata.json", kept)
    (datadir / "connection_metadata.json").symlink_to(kept)
    assert run(["--datadir", str(datadir), "-e", "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h2' FOR CHANNEL 'ch2'"])[0] == 0
    assert (datadir / "connection_metadata.json").is_symlink()
    names = [c["name"] for c in json.loads(kept.read_text())["channels"]]
    assert names == ["", "ch1", "ch2"]
    assert sorted(os.listdir(kept.parent)) == ["meta.json"]  # no temporary file left beside it
    status, out, _ = run(["--datadir", str(datadir), "-e", "SELECT COUNT(*) FROM performance_schema.replication_applier_filters; SHOW REPLICA STATUS FOR CHANNEL 'ch2'\\G"])
    assert status == 0 and "Source_Host: h2" in out


def test_a_dangling_metadata_link_is_refused_not_replaced(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    datadir.mkdir()
    (datadir / "connection_metadata.json").symlink_to(tmp_path / "gone.json")
    status, _, err = run(["--datadir", str(datadir), "-e", CONFIGURE])
    assert status == 1
    assert one_error_line(err) == (
        f"replfilter: [ERROR] Can't read '{datadir / 'connection_metadata.json'}': a symbolic link to "
        f"'{tmp_path / 'gone.json'}', which does not exist or loops"
    )
    assert (datadir / "connection_metadata.json").is_symlink() and not (tmp_path / "gone.json").exists()


# ---- a killed writer ----------------------------------------------------------------------------------


def test_temporary_files_left_by_a_killed_writer_are_removed_at_the_next_start(tmp_path: Path) -> None:
    """A writer killed between creating its temporary file and renaming it leaves
    ``.connection_metadata.XXXX``; the next start removes every one (it holds the lock, so none
    belongs to a live writer). Killed for real here, with SIGKILL, mid-way through writes."""
    datadir = tmp_path / "d"
    assert run(["--datadir", str(datadir), "-e", CONFIGURE])[0] == 0
    script = "".join(f"CHANGE REPLICATION SOURCE TO SOURCE_PORT={3307 + i % 2} FOR CHANNEL 'ch1';\n" for i in range(200_000))
    (tmp_path / "writes.sql").write_text(script)
    writer = subprocess.Popen(
        [sys.executable, "-m", "replfilter", "--datadir", str(datadir), str(tmp_path / "writes.sql")],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:  # kill it once it has rewritten the file a few times: mid-way through its writes
        first = (datadir / "connection_metadata.json").stat().st_mtime_ns
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (datadir / "connection_metadata.json").stat().st_mtime_ns == first:
            time.sleep(0.02)
        time.sleep(0.2)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    # Whether or not the kill landed between write and rename, leave the state it can leave:
    for leftover in ("abc123", "x_9f"):
        (datadir / f".connection_metadata.{leftover}").write_text('{"version": 1, "chan')
    status, out, err = run(["--datadir", str(datadir), "-e", "SHOW REPLICA STATUS FOR CHANNEL 'ch1'\\G"])
    assert (status, err) == (0, "")
    assert sorted(os.listdir(datadir)) == ["connection_metadata.json", "replfilter.lock"]
    assert "Source_Host: h1" in out


def test_a_deeply_nested_catalog_file_is_a_corrupt_file(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    datadir.mkdir()
    (datadir / "replica_catalog.json").write_text("[" * 100_000)
    status, _, err = run(["--datadir", str(datadir), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == f"replfilter: [ERROR] Corrupt '{datadir / 'replica_catalog.json'}': nested too deeply"


def test_a_killed_catalog_writers_temporary_files_are_removed_too(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    datadir.mkdir()
    (datadir / ".replica_catalog.k2j4").write_text("{")
    assert run(["--datadir", str(datadir), "-e", "SHOW WARNINGS"])[0] == 0
    assert sorted(os.listdir(datadir)) == ["replfilter.lock"]


@pytest.mark.parametrize("name", ["connection_metadata.json", "replica_catalog.json"])
def test_a_stored_file_that_is_not_utf8_or_has_a_huge_number_names_file_line_and_column(tmp_path: Path, name: str):
    # both stored files are read by one reader: no codec wording, no traceback
    datadir = tmp_path / "d"
    datadir.mkdir()
    (datadir / name).write_bytes(b'{\n  "a": "x\xd0"\n}\n')
    status, _, err = run(["--datadir", str(datadir), "-e", "SHOW WARNINGS"])
    assert status == 1
    assert one_error_line(err) == (
        f"replfilter: [ERROR] Corrupt '{datadir / name}' at line 2, column 10: not UTF-8 text (byte 0xD0)")
    (datadir / name).write_text('{"a": ' + "9" * 5000 + "}")
    status, _, err = run(["--datadir", str(datadir), "-e", "SHOW WARNINGS"])
    assert (status, one_error_line(err)) == (1, f"replfilter: [ERROR] Corrupt '{datadir / name}': a number too long to be a setting")
