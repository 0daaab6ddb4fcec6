"""How the ``mysql`` command-line client prints results, errors and warnings.

Everything here is a pure function from values to text, so the script runner, the shell and the
tests all print exactly the same bytes. The reference is MySQL 8.x ``client/mysql.cc``
(``print_table_data``, ``print_table_data_vertically``, ``print_tab_data``, ``tee_write``,
``com_go``, ``put_info``, ``print_warnings``, ``nice_time``); where the client has a quirk, the quirk
is reproduced and named in the docstring, because users compare our output with the real client's.

Width rules (``print_table_data``):

* a column is as wide as the longest header or value **in bytes** (UTF-8, the client's
  connection character set), never less than 4 when the column is nullable (room for ``NULL``);
* each cell is padded with ``width - cells(value)`` spaces, where ``cells`` is MySQL's
  ``my_numcells_mb``: one cell per character, two for East Asian wide/fullwidth characters, **zero**
  for characters outside the BMP (a MySQL quirk: they are skipped byte by byte). So CJK text
  aligns (with the extra trailing spaces the real client shows) and every line has the same
  display width;
* columns wider than 1024 bytes (``MAX_COLUMN_LENGTH``) are padded only to 1024 and their header
  too, while the border keeps the full width -- the real client misaligns such tables and so do we;
* values are printed raw: a newline inside a value breaks the line exactly as in the client, and a
  NUL byte is printed as a space.

Status lines (``com_go``) are printed only in interactive (table) mode; in batch mode the client
prints nothing but the rows. The ``Warnings: N`` text that the client shows for some statements is
the server's ``mysql_info()`` string (``Records: 3  Duplicates: 0  Warnings: 0`` after an INSERT);
no statement of the replication-filter dialect sends one, so only the ``, N warning(s)`` suffix of
the status line exists here.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from ..core.errors import Condition, MySQLError
from ..core.results import Result, ResultSet, Value
from .redaction import redact_passwords

MAX_COLUMN_LENGTH = 1024
"""``client/mysql.cc``: cells wider than this are not padded further."""

ROW_BANNER = "*************************** {}. row ***************************"

_BATCH_ESCAPES = {"\0": "\\0", "\t": "\\t", "\n": "\\n", "\\": "\\\\"}
_BATCH_UNESCAPES = {"0": "\0", "t": "\t", "n": "\n", "\\": "\\"}


# --------------------------------------------------------------------------------------------
# Cell text and widths
# --------------------------------------------------------------------------------------------


def value_text(value: Value) -> str:
    """The text the server sends for a value: ``NULL`` for SQL NULL, decimal digits for ints."""
    if value is None:
        return "NULL"
    return str(value)


def byte_length(text: str) -> int:
    """UTF-8 length: the client sizes columns by the bytes it received, not by characters."""
    return len(text.encode("utf-8", "surrogatepass"))


def display_cells(text: str) -> int:
    """MySQL's ``my_numcells_mb`` for utf8mb4: how many terminal cells the client thinks
    ``text`` takes. East Asian wide and fullwidth characters take two, other BMP characters one
    (combining marks included), and characters beyond U+FFFF zero (MySQL's quirk)."""
    cells = 0
    for char in text:
        if ord(char) > 0xFFFF:
            continue
        cells += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return cells


def _is_numeric_column(values: Sequence[Value]) -> bool:
    """The client right-aligns by column *type*; we only have values, so a column is numeric when
    it holds at least one int and no strings (NULLs follow the column's alignment)."""
    present = [v for v in values if v is not None]
    return bool(present) and all(isinstance(v, int) and not isinstance(v, bool) for v in present)


def _column_width(header: str | None, values: Sequence[Value], nullable: bool) -> int:
    """``print_table_data``: max byte length of header and values; at least 4 if nullable."""
    width = byte_length(header) if header is not None else 0
    for value in values:
        if value is not None:
            width = max(width, byte_length(value_text(value)))
    if width < 4 and nullable:
        width = 4
    return width


def _pad(text: str, target_cells: int, right: bool) -> str:
    """``tee_print_sized_data``: pad with spaces up to ``target_cells``; NUL prints as a space."""
    shown = text.replace("\0", " ")
    spaces = " " * max(0, target_cells - display_cells(text))
    return spaces + shown if right else shown + spaces


# --------------------------------------------------------------------------------------------
# Result layouts
# --------------------------------------------------------------------------------------------


def format_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Value]],
    *,
    column_names: bool = True,
    numeric: Sequence[bool] | None = None,
    nullable: Sequence[bool] | None = None,
) -> str:
    """The boxed table of interactive mode (and of ``-t``), every line ending in a newline.

    ``numeric`` says which columns are right-aligned and ``nullable`` which may hold NULL (4-cell
    minimum); both default to what the values show. ``column_names=False`` is ``-N``: no header
    row and no second border.
    """
    columns = list(columns)
    by_column = [[row[i] for row in rows] for i in range(len(columns))]
    numeric = list(numeric) if numeric is not None else [_is_numeric_column(c) for c in by_column]
    nullable = list(nullable) if nullable is not None else [None in c for c in by_column]
    widths = [
        _column_width(name if column_names else None, values, is_nullable)
        for name, values, is_nullable in zip(columns, by_column, nullable)
    ]
    border = "+" + "".join("-" * (w + 2) + "+" for w in widths)
    lines = [border]
    if column_names:
        lines.append("|" + "".join(_header_cell(n, w) for n, w in zip(columns, widths)))
        lines.append(border)
    for row in rows:
        cells = [_data_cell(v, w, right) for v, w, right in zip(row, widths, numeric)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append(border)
    return "".join(line + "\n" for line in lines)


def _header_cell(name: str, width: int) -> str:
    """`` %-*s |`` with the client's byte-based width correction, capped at 1024 bytes."""
    target_bytes = min(width + byte_length(name) - display_cells(name), MAX_COLUMN_LENGTH)
    spaces = " " * max(0, target_bytes - byte_length(name))
    return f" {name}{spaces} |"


def _data_cell(value: Value, width: int, right: bool) -> str:
    """One value padded to the column; over-wide columns are padded to 1024, left-aligned."""
    text = value_text(value)
    if width > MAX_COLUMN_LENGTH:
        return _pad(text, MAX_COLUMN_LENGTH, right=False)
    return _pad(text, width, right)


def format_vertical(
    columns: Sequence[str], rows: Sequence[Sequence[Value]], *, column_names: bool = True
) -> str:
    """``\\G`` output: a banner per row, then ``name: value`` with names right-aligned to the
    longest name (in bytes, as ``%*s`` does). Values are raw, NUL printed as a space."""
    name_width = max((byte_length(name) for name in columns), default=0)
    lines: list[str] = []
    for number, row in enumerate(rows, start=1):
        lines.append(ROW_BANNER.format(number))
        for name, value in zip(columns, row):
            label = " " * (name_width - byte_length(name)) + name + ": " if column_names else ""
            lines.append(label + value_text(value).replace("\0", " "))
    return "".join(line + "\n" for line in lines)


def escape_batch_value(text: str) -> str:
    """``mysql -B`` escaping (``MY_PRINT_ESC_0 | MY_PRINT_CTRL``): NUL, tab, newline and
    backslash become ``\\0``, ``\\t``, ``\\n``, ``\\\\`` so that a row stays on one line."""
    return "".join(_BATCH_ESCAPES.get(char, char) for char in text)


def unescape_batch_value(text: str) -> str:
    """The inverse of :func:`escape_batch_value`, for programs that read ``-B`` output.
    A backslash before any other character is kept as it is (the client never writes one)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in _BATCH_UNESCAPES:
            out.append(_BATCH_UNESCAPES[text[i + 1]])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


def format_batch(
    columns: Sequence[str],
    rows: Sequence[Sequence[Value]],
    *,
    column_names: bool = True,
    raw: bool = False,
) -> str:
    """``mysql -B``: a tab-separated header line (names are not escaped, as in the client) unless
    ``column_names`` is off (``-N``), then one line per row; NULL is ``NULL``; ``raw`` (``-r``)
    turns the escaping off."""
    lines: list[str] = []
    if column_names:
        lines.append("\t".join(columns))
    for row in rows:
        fields = [
            "NULL" if v is None else (value_text(v) if raw else escape_batch_value(value_text(v)))
            for v in row
        ]
        lines.append("\t".join(fields))
    return "".join(line + "\n" for line in lines)


# --------------------------------------------------------------------------------------------
# Status lines, warnings, errors
# --------------------------------------------------------------------------------------------


def format_elapsed(seconds: float) -> str:
    """``nice_time`` inside parentheses: ``(0.00 sec)``, ``(1 min 2.50 sec)``,
    ``(2 hours 1 min 0.00 sec)``, ``(1 day 0.00 sec)``."""
    parts: list[str] = []
    for unit, singular, plural in ((86400.0, " day ", " days "), (3600.0, " hour ", " hours ")):
        if seconds >= unit:
            count = math.floor(seconds / unit)
            seconds -= unit * count
            parts.append(f"{count}{plural if count > 1 else singular}")
    if seconds >= 60.0:
        count = math.floor(seconds / 60.0)
        seconds -= 60.0 * count
        parts.append(f"{count} min ")
    parts.append(f"{seconds:.2f} sec")
    return "(" + "".join(parts) + ")"


def warnings_suffix(count: int) -> str:
    """``, 1 warning`` / ``, 2 warnings``; nothing when there are none."""
    if count == 0:
        return ""
    return f", {count} warning" + ("" if count == 1 else "s")


def status_line(result: Result, elapsed: float | None = 0.0) -> str:
    """The line after a statement in interactive mode, without its newline:
    ``3 rows in set, 1 warning (0.00 sec)``, ``Empty set (0.00 sec)``,
    ``Query OK, 0 rows affected (0.00 sec)``. ``elapsed=None`` drops the timing, as ``-s`` does."""
    if isinstance(result, ResultSet):
        count = len(result.rows)
        text = "Empty set" if count == 0 else f"{count} {'row' if count == 1 else 'rows'} in set"
    else:
        affected = result.affected_rows
        text = f"Query OK, {affected} {'row' if affected == 1 else 'rows'} affected"
    text += warnings_suffix(len(result.warnings))
    if elapsed is not None:
        text += " " + format_elapsed(elapsed)
    return text


def format_warnings(conditions: Sequence[Condition], error_code: int | None = None) -> str:
    """``--show-warnings`` / ``\\W``: one ``Level (Code N): message`` line per condition.

    Like ``print_warnings``, a lone condition that repeats the error just printed is skipped.
    """
    if not conditions:
        return ""
    if error_code is not None and len(conditions) == 1 and conditions[0].code == error_code:
        return ""
    return "".join(f"{c.level} (Code {c.code}): {c.message}\n" for c in conditions)


def format_error(
    error: MySQLError,
    *,
    line: int | None = None,
    file: str | None = None,
) -> str:
    """The error line the client writes to standard error, without its newline.

    Batch/script form: ``ERROR 3074 (HY000) at line 12: msg``, inside ``source``:
    ``ERROR 1064 (42000) at line 3 in file: 'f.sql': msg``; interactive form (``line=None``):
    ``ERROR 3074 (HY000): msg``.
    """
    where = ""
    if line:
        where = f" at line {line}"
        if file is not None:
            where += f" in file: '{file}'"
    return f"ERROR {error.code} ({error.sqlstate}){where}: {undecodable_as_hex(error.message)}"


_UNDECODABLE = re.compile("[\udc80-\udcff]")


def undecodable_as_hex(text: str) -> str:
    """Input bytes that are not UTF-8 (read as lone surrogates, ``surrogateescape``) written as
    ``\\xFF``, the notation the server uses for bytes it cannot print in a message (``err_conv``,
    sql/sql_error.cc), instead of Python's ``\\udcff``."""
    return _UNDECODABLE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02X}", text)


# --------------------------------------------------------------------------------------------
# One statement's whole output
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputMode:
    """The client switches that decide what a result looks like.

    ``batch`` is ``-B`` (or standard input/output not a terminal): tab-separated rows, no status
    lines. ``vertical`` is ``\\G``/``-E``; ``table`` is ``-t`` (boxes even in batch mode);
    ``column_names=False`` is ``-N``; ``raw`` is ``-r``; ``show_warnings`` is ``--show-warnings``.
    """

    batch: bool = False
    vertical: bool = False
    table: bool = False
    column_names: bool = True
    raw: bool = False
    show_warnings: bool = False


def format_result(result: Result, mode: OutputMode = OutputMode(), elapsed: float | None = 0.0) -> str:
    """Everything ``com_go`` prints on standard output for one successful statement.

    An empty result set prints no table at all (``Empty set`` in interactive mode, nothing in
    batch mode). Interactive mode ends with the status line and an empty line; warnings, when
    shown, come after that empty line.
    """
    body = ""
    if isinstance(result, ResultSet) and result.rows:
        body = _format_rows(result, mode)
    tail = "" if mode.batch else status_line(result, elapsed) + "\n\n"
    warnings = format_warnings(result.warnings) if mode.show_warnings else ""
    return body + tail + warnings


def _format_rows(result: ResultSet, mode: OutputMode) -> str:
    if mode.vertical:
        return format_vertical(result.columns, result.rows, column_names=mode.column_names)
    if mode.batch and not mode.table:
        return format_batch(
            result.columns, result.rows, column_names=mode.column_names, raw=mode.raw
        )
    numeric, nullable = _declared_columns(result)
    return format_table(result.columns, result.rows, column_names=mode.column_names, numeric=numeric,
                        nullable=nullable)


def _declared_columns(result: ResultSet) -> tuple[list[bool] | None, list[bool] | None]:
    """``print_table_data`` reads the column's type: right-aligned when ``IS_NUM``, 4 cells at
    least unless NOT_NULL_FLAG. A declared type decides; a column without one, its values."""
    if result.column_types is None:
        return None, None
    numeric, nullable = [], []
    for index, declared in enumerate(result.column_types):
        values = [row[index] for row in result.rows]
        numeric.append(declared.numeric if declared is not None else _is_numeric_column(values))
        nullable.append(declared.nullable if declared is not None else None in values)
    return numeric, nullable


# --------------------------------------------------------------------------------------------
# --format json
# --------------------------------------------------------------------------------------------


def condition_record(condition: Condition) -> dict[str, object]:
    return {"level": condition.level, "code": condition.code, "message": condition.message}


def statement_record(
    line: int,
    statement: str,
    outcome: Result | MySQLError,
    warnings: Sequence[Condition] | None = None,
) -> dict[str, object]:
    """One statement as a JSON-ready dict: ``line``, ``statement`` (passwords redacted as the
    server's logs redact them, :mod:`.redaction`), then ``columns`` + ``rows``,
    or ``error`` {code, sqlstate, message}, or ``ok`` (affected rows), then ``warnings``.

    ``warnings`` defaults to the result's conditions (none for an error); pass the diagnostics
    area explicitly when an error came with warnings.
    """
    record: dict[str, object] = {"line": line, "statement": redact_passwords(statement)}
    if isinstance(outcome, MySQLError):
        record["error"] = {
            "code": outcome.code,
            "sqlstate": outcome.sqlstate,
            "message": outcome.message,
        }
        conditions: Sequence[Condition] = warnings if warnings is not None else ()
    elif isinstance(outcome, ResultSet):
        record["columns"] = list(outcome.columns)
        record["rows"] = [list(row) for row in outcome.rows]
        conditions = warnings if warnings is not None else outcome.warnings
    else:
        record["ok"] = outcome.affected_rows
        conditions = warnings if warnings is not None else outcome.warnings
    record["warnings"] = [condition_record(c) for c in conditions]
    return record


def statement_json(
    line: int,
    statement: str,
    outcome: Result | MySQLError,
    warnings: Sequence[Condition] | None = None,
) -> str:
    """:func:`statement_record` as one line of JSON (non-ASCII kept readable), no newline."""
    return json.dumps(statement_record(line, statement, outcome, warnings), ensure_ascii=False)


__all__ = [
    "MAX_COLUMN_LENGTH",
    "OutputMode",
    "byte_length",
    "condition_record",
    "display_cells",
    "escape_batch_value",
    "format_batch",
    "format_elapsed",
    "format_error",
    "format_result",
    "format_table",
    "format_vertical",
    "format_warnings",
    "statement_json",
    "statement_record",
    "status_line",
    "unescape_batch_value",
    "value_text",
    "warnings_suffix",
]
