"""How long the shell takes over a one-megabyte paste, and where the time goes.

The paste of the shell's tests, sent through prompt_toolkit's pipe input as a terminal sends a
bracketed paste: one statement of 1 MB on one line (a filter list of 500,000 names) and one of
20,000 lines. The figures: the whole paste, from the first byte to the next prompt's statement
having run; and, of that, cutting the paste into inputs (the statement splitter) and parsing the
1 MB statement (the Lark grammar), measured alone. One run; the machine may be shared, so read
the parts as shares of the whole.

    PYTHONPATH=. .venv/bin/python bench/shell_paste.py
"""

from __future__ import annotations

import io
import threading
import time

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from replfilter.core.errors import MySQLError
from replfilter.server.session import Session
from replfilter.shell.app import run_shell
from replfilter.shell.buffer import split_paste

PASTE_START, PASTE_END, ENTER = "\x1b[200~", "\x1b[201~", "\r"
BIG_LINE = "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (" + "x," * 500_000 + ";"
MANY_LINES = "\n".join(["SELECT * FROM performance_schema.replication_applier_filters WHERE"] + ["x" * 48] * 20_000) + ";"


def _send(pipe, keys: str) -> None:  # type: ignore[no-untyped-def]
    for start in range(0, len(keys), 16384):
        pipe.send_text(keys[start : start + 16384])
    pipe.close()


def whole_paste() -> float:
    keys = PASTE_START + BIG_LINE + "\n" + MANY_LINES + "\n" + PASTE_END + "SHOW COUNT(*) WARNINGS;" + ENTER
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    with create_pipe_input() as pipe:
        writer = threading.Thread(target=_send, args=(pipe, keys), daemon=True)
        writer.start()
        run_shell(Session(), None, input=pipe, output=DummyOutput(), stdout=out, stderr=err,
                  environ={"REPLFILTER_HISTFILE": ""}, warm_up=False)
    elapsed = time.perf_counter() - started
    assert err.getvalue().count("ERROR 1064 (42000)") == 2, err.getvalue()[:500]
    return elapsed


def splitting() -> float:
    started = time.perf_counter()
    split_paste(BIG_LINE + "\n" + MANY_LINES + "\n")
    return time.perf_counter() - started


def parsing() -> float:
    started = time.perf_counter()
    try:
        Session().execute_text(BIG_LINE[:-1])
    except MySQLError:
        pass
    return time.perf_counter() - started


def main() -> None:
    total = whole_paste()
    split = splitting()
    parse = parsing()
    print(f"1 MB paste, first byte to next statement run: {total:.1f} s")
    print(f"  cutting the paste into inputs (splitter):   {split:.1f} s ({split / total:.0%})")
    print(f"  parsing the 1 MB statement (Lark):          {parse:.1f} s ({parse / total:.0%})")


if __name__ == "__main__":
    main()
