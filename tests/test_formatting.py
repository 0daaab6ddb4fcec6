"""The mysql client's output, byte for byte (client/mysql.cc of MySQL 8.x)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from replfilter.client.formatting import (
    OutputMode,
    display_cells,
    escape_batch_value,
    format_batch,
    format_elapsed,
    format_error,
    format_result,
    format_table,
    format_vertical,
    format_warnings,
    statement_json,
    statement_record,
    status_line,
    unescape_batch_value,
)
from replfilter.core.errors import Condition, MySQLError
from replfilter.core.results import Ok, ResultSet

PS_COLUMNS = ("CHANNEL_NAME", "FILTER_NAME", "FILTER_RULE", "CONFIGURED_BY", "COUNTER")
PS_ROWS = (
    ("ch1", "REPLICATE_DO_DB", "db1,db2", "CHANGE_REPLICATION_FILTER", 0),
    ("ch2", "REPLICATE_REWRITE_DB", "(a,b)", "STARTUP_OPTIONS_FOR_CHANNEL", 12),
)
NOTE_3083 = Condition("Note", 3083, "Replication thread(s) for channel '' are already runnning.")
WARN_1287 = Condition(
    "Warning",
    1287,
    "'START SLAVE' is deprecated and will be removed in a future release. "
    "Please use START REPLICA instead",
)


# --- boxed table -----------------------------------------------------------------------------


def test_table_layout_strings_left_numbers_right() -> None:
    assert format_table(PS_COLUMNS, PS_ROWS) == (
        "+--------------+----------------------+-------------+-----------------------------+---------+\n"
        "| CHANNEL_NAME | FILTER_NAME          | FILTER_RULE | CONFIGURED_BY               | COUNTER |\n"
        "+--------------+----------------------+-------------+-----------------------------+---------+\n"
        "| ch1          | REPLICATE_DO_DB      | db1,db2     | CHANGE_REPLICATION_FILTER   |       0 |\n"
        "| ch2          | REPLICATE_REWRITE_DB | (a,b)       | STARTUP_OPTIONS_FOR_CHANNEL |      12 |\n"
        "+--------------+----------------------+-------------+-----------------------------+---------+\n"
    )


def test_table_null_and_nullable_minimum_width() -> None:
    # A nullable column is at least 4 wide ("NULL"); NULL in a numeric column is right-aligned.
    assert format_table(("a", "b"), ((1, "x"), (None, None))) == (
        "+------+------+\n"
        "| a    | b    |\n"
        "+------+------+\n"
        "|    1 | x    |\n"
        "| NULL | NULL |\n"
        "+------+------+\n"
    )
    # NOT NULL columns keep their natural width, like SELECT 1.
    assert format_table(("1",), ((1,),)) == "+---+\n| 1 |\n+---+\n| 1 |\n+---+\n"
    assert format_table(("1",), ((1,),), nullable=(True,)) == (
        "+------+\n| 1    |\n+------+\n|    1 |\n+------+\n"
    )


def test_table_alignment_overrides() -> None:
    # Seconds_Behind_Source is numeric even when every value is NULL.
    out = format_table(("Seconds_Behind_Source",), ((None,),), numeric=(True,))
    assert out.splitlines()[3] == "|                  NULL |"


def test_table_skip_column_names() -> None:
    assert format_table(("name",), (("ab",),), column_names=False) == "+----+\n| ab |\n+----+\n"


def test_table_cjk_uses_byte_width_and_cell_padding() -> None:
    # The client sizes the column by bytes (6 for 日本) and pads by cells: extra spaces, aligned.
    assert format_table(("n",), (("日本",), ("ab",))) == (
        "+--------+\n"
        "| n      |\n"
        "+--------+\n"
        "| 日本   |\n"
        "| ab     |\n"
        "+--------+\n"
    )
    assert format_table(("日本",), (("x",),)) == (
        "+--------+\n| 日本   |\n+--------+\n| x      |\n+--------+\n"
    )


def test_table_multiline_value_is_printed_raw_and_nul_as_space() -> None:
    assert format_table(("v",), (("a\nb",), ("x\0y",))) == (
        "+-----+\n| v   |\n+-----+\n| a\nb |\n| x y |\n+-----+\n"
    )


def test_table_over_1024_bytes_pads_only_to_1024_like_the_client() -> None:
    long_value = "x" * 1030
    lines = format_table(("c",), ((long_value,), ("y",))).splitlines()
    assert lines[0] == "+" + "-" * 1032 + "+"
    assert lines[1] == "| c" + " " * 1023 + " |"
    assert lines[3] == "| " + long_value + " |"
    assert lines[4] == "| y" + " " * 1023 + " |"


def test_display_cells() -> None:
    assert display_cells("abc") == 3
    assert display_cells("日本") == 4
    assert display_cells("ｘ") == 2  # fullwidth
    assert display_cells("e\u0301") == 2  # MySQL counts a combining mark as one cell
    assert display_cells("\U0001F600") == 0  # MySQL skips characters beyond the BMP


def _table_row() -> st.SearchStrategy[tuple[str | int | None, ...]]:
    bmp_text = st.text(
        alphabet=st.characters(
            max_codepoint=0xFFFF,
            blacklist_categories=("Cs", "Cc", "Mn", "Me", "Cf", "Zl", "Zp"),
        ),
        max_size=30,
    )
    value = st.one_of(st.none(), st.integers(-(10**12), 10**12), bmp_text)
    return st.tuples(value, value, value)


@given(st.lists(_table_row(), min_size=1, max_size=8))
def test_every_table_line_has_the_same_display_width(rows: list[tuple[object, ...]]) -> None:
    out = format_table(("a", "列名", "Level"), rows)  # type: ignore[arg-type]
    widths = {display_cells(line) for line in out.splitlines()}
    assert len(widths) == 1


# --- vertical ----------------------------------------------------------------------------------


def test_vertical_layout() -> None:
    assert format_vertical(("Channel_Name", "Replicate_Do_DB", "Port"), (("ch1", "", 3306), ("ch2", "a,b", None))) == (
        "*************************** 1. row ***************************\n"
        "   Channel_Name: ch1\n"
        "Replicate_Do_DB: \n"
        "           Port: 3306\n"
        "*************************** 2. row ***************************\n"
        "   Channel_Name: ch2\n"
        "Replicate_Do_DB: a,b\n"
        "           Port: NULL\n"
    )


def test_vertical_values_raw_without_names() -> None:
    assert format_vertical(("a",), (("x\ny",),), column_names=False) == (
        "*************************** 1. row ***************************\nx\ny\n"
    )


# --- batch -------------------------------------------------------------------------------------


def test_batch_layout_and_escaping() -> None:
    rows = (("a\tb", "c\nd", "e\\f", "g\0h", None, 7, "NULL"),)
    cols = ("t", "n", "b", "z", "x", "i", "s")
    assert format_batch(cols, rows) == (
        "t\tn\tb\tz\tx\ti\ts\n" "a\\tb\tc\\nd\te\\\\f\tg\\0h\tNULL\t7\tNULL\n"
    )
    assert format_batch(cols, rows, column_names=False) == (
        "a\\tb\tc\\nd\te\\\\f\tg\\0h\tNULL\t7\tNULL\n"
    )
    assert format_batch(("v",), (("a\tb",),), raw=True) == "v\na\tb\n"


def test_batch_escape_leaves_carriage_return_alone() -> None:
    assert escape_batch_value("a\rb") == "a\rb"


batch_values = st.one_of(st.none(), st.integers(), st.text(max_size=20).filter(lambda s: s != "NULL"))


@given(st.lists(st.tuples(batch_values, batch_values), max_size=6))
def test_batch_round_trips_through_unescaping(rows: list[tuple[object, object]]) -> None:
    out = format_batch(("first", "second"), rows)  # type: ignore[arg-type]
    lines = out.split("\n")
    assert lines[-1] == "" and lines[0] == "first\tsecond"
    body = lines[1:-1]
    assert len(body) == len(rows)  # escaping keeps one row per line
    for line, row in zip(body, rows):
        fields = [unescape_batch_value(field) for field in line.split("\t")]
        expected = ["NULL" if v is None else str(v) for v in row]
        assert fields == expected


@given(st.text())
def test_unescape_inverts_escape(text: str) -> None:
    assert unescape_batch_value(escape_batch_value(text)) == text


# --- status lines, warnings, errors ------------------------------------------------------------


def test_status_lines() -> None:
    one = ResultSet(("a",), (("x",),))
    two = ResultSet(("a",), (("x",), ("y",)))
    empty = ResultSet(("a",), ())
    assert status_line(one) == "1 row in set (0.00 sec)"
    assert status_line(two) == "2 rows in set (0.00 sec)"
    assert status_line(empty) == "Empty set (0.00 sec)"
    assert status_line(Ok()) == "Query OK, 0 rows affected (0.00 sec)"
    assert status_line(Ok(1)) == "Query OK, 1 row affected (0.00 sec)"
    assert status_line(Ok(0, (NOTE_3083,))) == "Query OK, 0 rows affected, 1 warning (0.00 sec)"
    assert (
        status_line(ResultSet(("a",), (), (NOTE_3083, WARN_1287)))
        == "Empty set, 2 warnings (0.00 sec)"
    )
    assert status_line(two, elapsed=None) == "2 rows in set"


def test_elapsed_like_nice_time() -> None:
    assert format_elapsed(0.0) == "(0.00 sec)"
    assert format_elapsed(0.126) == "(0.13 sec)"
    assert format_elapsed(62.5) == "(1 min 2.50 sec)"
    assert format_elapsed(7260.0) == "(2 hours 1 min 0.00 sec)"
    assert format_elapsed(90000.0) == "(1 day 1 hour 0.00 sec)"


def test_warning_lines() -> None:
    assert format_warnings((WARN_1287, NOTE_3083)) == (
        "Warning (Code 1287): 'START SLAVE' is deprecated and will be removed in a future "
        "release. Please use START REPLICA instead\n"
        "Note (Code 3083): Replication thread(s) for channel '' are already runnning.\n"
    )
    assert format_warnings(()) == ""


def test_warning_duplicate_of_the_error_is_not_repeated() -> None:
    err = Condition("Error", 3074, "Replica channel 'x' does not exist.")
    assert format_warnings((err,), error_code=3074) == ""
    assert format_warnings((err, NOTE_3083), error_code=3074).count("\n") == 2


def test_error_lines() -> None:
    error = MySQLError(3074, "HY000", "Replica channel 'x' does not exist.")
    assert format_error(error, line=12) == (
        "ERROR 3074 (HY000) at line 12: Replica channel 'x' does not exist."
    )
    assert format_error(error) == "ERROR 3074 (HY000): Replica channel 'x' does not exist."
    syntax = MySQLError(1064, "42000", "You have an error in your SQL syntax")
    assert format_error(syntax, line=3, file="f.sql") == (
        "ERROR 1064 (42000) at line 3 in file: 'f.sql': You have an error in your SQL syntax"
    )


# --- a whole statement's output -----------------------------------------------------------------


def test_interactive_result_block() -> None:
    result = ResultSet(("Level", "Code", "Message"), (("Note", 3083, "m"),))
    assert format_result(result) == (
        "+-------+------+---------+\n"
        "| Level | Code | Message |\n"
        "+-------+------+---------+\n"
        "| Note  | 3083 | m       |\n"
        "+-------+------+---------+\n"
        "1 row in set (0.00 sec)\n"
        "\n"
    )


def test_interactive_empty_set_prints_no_table() -> None:
    assert format_result(ResultSet(("a",), ())) == "Empty set (0.00 sec)\n\n"


def test_interactive_ok_with_shown_warnings() -> None:
    out = format_result(Ok(0, (NOTE_3083,)), OutputMode(show_warnings=True))
    assert out == (
        "Query OK, 0 rows affected, 1 warning (0.00 sec)\n"
        "\n"
        "Note (Code 3083): Replication thread(s) for channel '' are already runnning.\n"
    )


def test_interactive_vertical() -> None:
    out = format_result(ResultSet(("a", "bb"), ((1, "x"),)), OutputMode(vertical=True))
    assert out == (
        "*************************** 1. row ***************************\n"
        " a: 1\n"
        "bb: x\n"
        "1 row in set (0.00 sec)\n"
        "\n"
    )


def test_batch_mode_prints_rows_only() -> None:
    batch = OutputMode(batch=True)
    assert format_result(ResultSet(("a", "b"), ((1, "x"),)), batch) == "a\tb\n1\tx\n"
    assert format_result(ResultSet(("a",), ()), batch) == ""
    assert format_result(Ok(0, (NOTE_3083,)), batch) == ""
    assert format_result(Ok(0, (NOTE_3083,)), OutputMode(batch=True, show_warnings=True)) == (
        "Note (Code 3083): Replication thread(s) for channel '' are already runnning.\n"
    )
    assert format_result(ResultSet(("a",), (("x",),)), OutputMode(batch=True, table=True)) == (
        "+---+\n| a |\n+---+\n| x |\n+---+\n"
    )
    assert format_result(
        ResultSet(("a",), (("x",),)), OutputMode(batch=True, column_names=False)
    ) == "x\n"


# --- JSON -----------------------------------------------------------------------------------------


def test_json_result_set() -> None:
    result = ResultSet(("a", "n"), (("日本", 1), (None, 2)), (NOTE_3083,))
    assert statement_record(4, "SELECT ...", result) == {
        "line": 4,
        "statement": "SELECT ...",
        "columns": ["a", "n"],
        "rows": [["日本", 1], [None, 2]],
        "warnings": [{"level": "Note", "code": 3083, "message": NOTE_3083.message}],
    }
    text = statement_json(4, "SELECT ...", result)
    assert "\n" not in text and "日本" in text
    assert json.loads(text) == statement_record(4, "SELECT ...", result)
    assert list(json.loads(text)) == ["line", "statement", "columns", "rows", "warnings"]


def test_json_ok_and_error() -> None:
    assert statement_record(1, "STOP REPLICA", Ok(0)) == {
        "line": 1,
        "statement": "STOP REPLICA",
        "ok": 0,
        "warnings": [],
    }
    error = MySQLError(3074, "HY000", "Replica channel 'x' does not exist.")
    assert statement_record(2, "RESET REPLICA FOR CHANNEL 'x'", error) == {
        "line": 2,
        "statement": "RESET REPLICA FOR CHANNEL 'x'",
        "error": {"code": 3074, "sqlstate": "HY000", "message": error.message},
        "warnings": [],
    }
    with_diag = statement_record(2, "s", error, warnings=(Condition.from_error(error),))
    assert with_diag["warnings"] == [{"level": "Error", "code": 3074, "message": error.message}]
