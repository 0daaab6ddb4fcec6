"""The light install: the package without its ``spark`` extra (README, "Quick start").

The shell, scripts, EXPLAIN and ``replfilter evaluate`` run on lark, prompt_toolkit, pygments and
sqlglot alone; ``replfilter stream`` and ``START REPLICA`` on a channel with a relay log answer
with one line that says how to install the Spark runtime. Each test runs the real command in a
real virtual environment that has no pyspark, pyarrow or pandas:

* the fast one builds the venv from the packages ``pyproject.toml`` names as dependencies (and
  theirs), linked from this interpreter's site-packages, with this checkout on ``PYTHONPATH``;
  a module that starts importing a package missing from ``dependencies`` fails it;
* the e2e one runs README's first command itself: ``pip install .`` into a fresh venv (it
  needs the package index).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WALKTHROUGH = ROOT / "replfilter" / "examples" / "walkthrough.sql"
INSTALL_LINE = re.compile(r"the Spark runtime is not installed \(missing: pyspark, pyarrow, pandas\); install it with pip install 'replfilter\[spark\]'")


def _requirement_name(requirement: str) -> str | None:
    """The distribution a requirement names, or None for one behind an extra or a marker that
    does not hold here."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0)
    if ";" in requirement:
        marker = requirement.split(";", 1)[1]
        if "extra" in marker:
            return None
        from packaging.markers import Marker  # pip's and pytest's own dependency

        if not Marker(marker).evaluate():
            return None
    return name


def _dependency_closure() -> list[importlib.metadata.Distribution]:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pending = [n for n in map(_requirement_name, declared) if n]
    seen: dict[str, importlib.metadata.Distribution] = {}
    while pending:
        name = pending.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        dist = importlib.metadata.distribution(name)
        seen[key] = dist
        pending.extend(n for n in map(_requirement_name, dist.requires or []) if n)
    return list(seen.values())


def _light_venv(where: Path) -> Path:
    """A venv with the light dependencies only; returns its python."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(where)
    python = where / "bin" / "python"
    site = Path(subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
    for dist in _dependency_closure():
        tops = {Path(str(f)).parts[0] for f in dist.files or ()}
        for top in tops:
            source = Path(dist.locate_file(top))
            if source.exists() and not (site / top).exists() and top not in ("..", "bin", "__pycache__"):
                (site / top).symlink_to(source)
    return python


@pytest.fixture(scope="module")
def light_python(tmp_path_factory) -> Path:
    return _light_venv(tmp_path_factory.mktemp("light") / "venv")


def _run(python: Path, *args: str, stdin: str = "", cwd: Path | None = None, path: str | None = str(ROOT)) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    if path:
        env["PYTHONPATH"] = path
    return subprocess.run([str(python), *args], input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def test_the_light_venv_has_no_spark_packages(light_python):
    probe = _run(light_python, "-c", "import importlib.util as u; print([n for n in ('pyspark', 'pyarrow', 'pandas', 'numpy') if u.find_spec(n)])")
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "[]"


def test_walkthrough_runs_without_spark(light_python):
    done = _run(light_python, "-m", "replfilter", "-t", str(WALKTHROUGH))
    assert done.returncode == 0, done.stderr
    assert "Channel_Name: eu" in done.stdout


def test_evaluate_and_explain_run_without_spark(light_python, tmp_path):
    events = '{"v": 1, "type": "row", "channel": "", "db": "sales", "table": "t"}\n'
    decided = _run(light_python, "-m", "replfilter", "evaluate", "--replicate-do-db=sales", "-", stdin=events)
    assert decided.returncode == 0, decided.stderr
    assert '"decision": "APPLY"' in decided.stdout
    explained = _run(light_python, "-m", "replfilter", "-e", "EXPLAIN REPLICATION OF 'UPDATE db2.t3 SET x = 1' DEFAULT DATABASE db1")
    assert explained.returncode == 0, explained.stderr
    assert "db2" in explained.stdout


def test_stream_says_how_to_install_spark(light_python, tmp_path):
    (tmp_path / "events").mkdir()
    done = _run(light_python, "-m", "replfilter", "stream", str(tmp_path / "events"), str(tmp_path / "out"), str(tmp_path / "ck"))
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("replfilter stream: ") and INSTALL_LINE.search(lines[0]), lines[0]
    assert not (tmp_path / "out").exists()  # refused before anything was written
    helped = _run(light_python, "-m", "replfilter", "stream", "--help")
    assert helped.returncode == 0 and "CHECKPOINT_DIR" in helped.stdout


def test_start_replica_with_a_relay_log_says_how_to_install_spark(light_python, tmp_path):
    (tmp_path / "relay").mkdir()
    script = (
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', RELAY_LOG_FILE='{tmp_path / 'relay'}' FOR CHANNEL 'c';\n"
        "START REPLICA FOR CHANNEL 'c';\n"
        "SHOW REPLICA STATUS FOR CHANNEL 'c'\\G\n"
    )
    done = _run(light_python, "-m", "replfilter", "--force", stdin=script)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("ERROR 1593 (HY000) at line 2: Fatal error: the applier of channel 'c' cannot start: ")
    assert INSTALL_LINE.search(lines[0])
    assert "Replica_SQL_Running: No" in done.stdout  # the failed START changed nothing


@pytest.mark.e2e
def test_readme_first_command_installs_the_light_package(tmp_path):
    """README's first command, as written there: ``pip install .`` into a fresh venv, then the
    walkthrough with the installed ``replfilter``; the venv holds no Spark package."""
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"```sh\n# 1\.[^\n]*\n([^\n]+)\n```", readme).group(1)
    assert "pip install -q . " in command + " " and "replfilter/examples/walkthrough.sql" in command
    checkout = tmp_path / "checkout"  # the checkout's files as they are, without its .venv or caches
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(["sh", "-c", command], cwd=checkout, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Channel_Name: eu" in done.stdout
    python = checkout / ".venv" / "bin" / "python"
    probe = _run(python, "-c", "import importlib.util as u; print([n for n in ('pyspark', 'pyarrow', 'pandas', 'numpy') if u.find_spec(n)])", path=None)
    assert probe.stdout.strip() == "[]"
    stream = subprocess.run([str(checkout / ".venv" / "bin" / "replfilter"), "stream", str(tmp_path), str(tmp_path / "o"), str(tmp_path / "c")], capture_output=True, text=True, env=env, timeout=120)
    assert stream.returncode == 1 and len(stream.stderr.splitlines()) == 1 and INSTALL_LINE.search(stream.stderr)


def test_ci_runs_readme_test_command_verbatim():
    """CI runs what README tells a newcomer to run: the second Quick start command, unchanged."""
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"```sh\n# 2\.[^\n]*\n([^\n]+)\n```", readme).group(1)
    assert "'.[test,spark]'" in command
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert command in ci_lines
    assert any("tmux" in line and "apt-get install" in line for line in ci_lines)  # the e2e shell tests need it
