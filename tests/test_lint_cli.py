"""``replfilter lint``: exit status, the three output formats, option-file lines, silencing,
workloads, and ``LINT REPLICATION`` in the dialect."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from replfilter.cli import main as cli
from replfilter.core.errors import MySQLError
from replfilter.dialect import ast
from replfilter.dialect.parser import parse_statement
from replfilter.dialect.printer import to_sql
from replfilter.server.session import Session

MY_CNF = """\
[mysqld]
server-id = 2
replicate-ignore-db = db1,db2
replicate-wild-do-table = db_1.%   # replfilter: ignore=RF105
replicate-wild-do-table = shop_2.%
"""


def lint(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["lint", *argv], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def my_cnf(tmp_path: Path) -> Path:
    path = tmp_path / "my.cnf"
    path.write_text(MY_CNF, encoding="utf-8")
    return path


def test_exit_status_zero_one_two() -> None:
    assert lint(["--replicate-wild-do-table=shop.%", "--binlog-format", "ROW"])[0] == 0
    assert lint(["--replicate-wild-do-table=shop_2.%", "--binlog-format", "ROW"])[0] == 1
    assert lint(["--replicate-do-db=a,b", "--binlog-format", "ROW"])[0] == 2


def test_text_output_names_file_line_and_fix(my_cnf: Path) -> None:
    status, out, _ = lint(["--defaults-file", str(my_cnf), "--binlog-format", "row"])
    assert status == 2
    assert f"{my_cnf}:3: channel '': error RF101 comma-in-name:" in out
    assert "    fix:  CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (`db1`, `db2`);" in out
    assert "--replicate-ignore-db=db1 --replicate-ignore-db=db2" in out
    assert "db_1.%" not in out.split("RF105", 1)[1].split("\n")[0]  # line 4 silenced by its comment
    assert f"{my_cnf}:5: channel '': warning RF105" in out
    assert out.rstrip().endswith("2 findings (1 error, 1 warning)")


def test_json_one_object_per_finding(my_cnf: Path) -> None:
    status, out, _ = lint(["--defaults-file", str(my_cnf), "--format", "json", "--binlog-format", "ROW"])
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 2
    first = records[0]
    assert {"channel", "level", "code", "rule", "message", "fix", "reference"} <= set(first)
    assert (first["channel"], first["level"], first["code"], first["rule"]) == ("", "error", "RF101", "REPLICATE_IGNORE_DB: db1,db2")
    assert first["fix"] == "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (`db1`, `db2`)"
    assert first["reference"].startswith("https://dev.mysql.com/doc/refman/8.4/en/")
    assert first["location"] == {"file": str(my_cnf), "line": 3}


def test_sarif_points_at_the_option_file_line(my_cnf: Path) -> None:
    _, out, _ = lint(["--defaults-file", str(my_cnf), "--format", "sarif", "--binlog-format", "ROW"])
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["RF101", "RF105"]
    result = run["results"][0]
    assert result["ruleId"] == "RF101" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": str(my_cnf)}, "region": {"startLine": 3}}


def test_ignore_option_by_code_and_name(my_cnf: Path) -> None:
    status, out, _ = lint(["--defaults-file", str(my_cnf), "--binlog-format", "ROW", "--ignore", "RF101", "--ignore", "unescaped-underscore"])
    assert status == 0 and out.strip() == "0 findings"
    with pytest.raises(SystemExit):
        lint(["--ignore", "RF999"])


def test_an_unknown_code_is_quoted_as_written_with_its_file_and_line(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        lint(["--ignore", "Unescaped-Underscores"])
    assert "unknown code 'Unescaped-Underscores'" in capsys.readouterr().err
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[mysqld]\nreplicate-do-db = a   # replfilter: ignore=RF105,NoSuchCode\n", encoding="utf-8")
    status, _, err = lint(["--defaults-file", str(cnf)])
    assert status == 2 and f"{cnf}:2: unknown code 'NoSuchCode'" in err


def test_reference_cites_only_what_a_user_can_open(my_cnf: Path) -> None:
    """The specification files are the developers', not shipped: ``reference`` cites the manual
    (and bug reports) only."""
    from replfilter.lint.codes import CODES

    for code in CODES.values():
        assert code.reference and all(part.startswith("https://") for part in code.reference.split("; ")), code.code
    _, out, _ = lint(["--defaults-file", str(my_cnf), "--format", "json", "--binlog-format", "ROW"])
    assert all(".md" not in json.loads(line)["reference"] for line in out.splitlines())


def test_startup_refusal_and_missing_workload_are_errors(tmp_path: Path) -> None:
    status, _, err = lint(["--replicate-do-table=nodot"])
    assert status == 2 and "Could not add do table rule 'nodot'!" in err
    status, _, err = lint(["--replicate-do-db=a", "--workload", str(tmp_path / "none.sql")])
    assert status == 2 and "can't read workload" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"v": 1, "type": "row"}\nnot json\n', encoding="utf-8")
    status, _, err = lint(["--replicate-do-db=a", "--workload", str(bad)])
    assert status == 2 and f"{bad}, line" in err


def test_workload_sql(tmp_path: Path) -> None:
    workload = tmp_path / "w.sql"
    workload.write_text("USE db1;\nUPDATE db2.t3 SET x = 1;\n", encoding="utf-8")
    status, out, _ = lint(["--replicate-ignore-db=db1", "--replicate-do-table=db2.t3", "--workload", str(workload), "--format", "json"])
    codes = [json.loads(line)["code"] for line in out.splitlines()]
    assert "RF501" in codes and "RF503" in codes
    assert status == 1


def test_init_script_channels(tmp_path: Path) -> None:
    init = tmp_path / "init.sql"
    init.write_text(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a';\n"
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'b';\n"
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (x) FOR CHANNEL 'a';\n",
        encoding="utf-8",
    )
    status, out, _ = lint(["--init", str(init), "--binlog-format", "ROW", "--format", "json"])
    assert out == "" and status == 0  # one unfiltered channel next to a filtered one: the manual's example


# --- LINT REPLICATION ------------------------------------------------------------------------


def test_lint_replication_parses_and_prints_back() -> None:
    for text, node in (("LINT REPLICATION", ast.LintReplication()), ("lint replication for channel 'A'", ast.LintReplication("a"))):
        parsed = parse_statement(text)
        assert parsed == node
        assert parse_statement(to_sql(parsed)) == parsed


def test_lint_replication_rows() -> None:
    session = Session()
    session.execute_sql(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c';"
        "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db_1.%') FOR CHANNEL 'c'"
    )
    result = session.execute_text("LINT REPLICATION FOR CHANNEL 'c'")
    assert result.columns == ("Channel", "Level", "Code", "Name", "Filter", "Rule", "Message", "Fix")  # type: ignore[union-attr]
    assert [(r[0], r[1], r[2], r[4], r[5], r[7]) for r in result.rows] == [  # type: ignore[union-attr]
        ("c", "warning", "RF105", "REPLICATE_WILD_DO_TABLE", "db_1.%",
         "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db\\_1.%') FOR CHANNEL 'c'"),
    ]
    assert session.execute_text("LINT REPLICATION").rows == result.rows  # type: ignore[union-attr]
    with pytest.raises(MySQLError) as error:
        session.execute_text("LINT REPLICATION FOR CHANNEL 'nope'")
    assert error.value.code == 3074


def test_lint_is_still_a_name() -> None:
    """LINT is not reserved: it can still name a database, as REPLAY and EXPLAIN's words can."""
    node = parse_statement("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (lint)")
    assert node.filters[0].rules == ("lint",)  # type: ignore[union-attr]


def test_an_option_fix_that_empties_a_channel_type_says_the_global_rules_still_apply() -> None:
    from replfilter.core.filters import FilterType
    from replfilter.lint.findings import Fix

    assert Fix(None, ((FilterType.IGNORE_TABLE, ()),)).options() == ("(no --replicate-ignore-table)",)
    assert Fix("eu", ((FilterType.IGNORE_TABLE, ()),)).options() == (
        "(no --replicate-ignore-table=eu:...; the global --replicate-ignore-table rules would still be copied in)",)


def test_readme_example_is_what_lint_prints(tmp_path: Path, monkeypatch) -> None:
    """README's lint example: the my.cnf it shows, and exactly the output it shows."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("$ cat my.cnf\n"):]
    cnf = section[len("$ cat my.cnf\n"):section.index("$ replfilter lint")]
    command = "$ replfilter lint --defaults-file my.cnf --binlog-format ROW\n"
    shown = section[section.index(command) + len(command):section.index("```")]
    (tmp_path / "my.cnf").write_text(cnf, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, _ = lint(["--defaults-file", "my.cnf", "--binlog-format", "ROW"])
    assert out == shown and status == 2
