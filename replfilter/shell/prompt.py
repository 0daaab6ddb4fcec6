"""The prompt string: ``replfilter> ``, or what ``prompt`` / ``\\R`` set, expanded as the mysql
client's ``construct_prompt`` expands it.

Every escape of mysql's prompt is read. Those about the connection are answered for the simulated
server: ``\\h`` is ``localhost``, ``\\p`` the port ``3306``, ``\\u``/``\\U`` the user ``root``
(``root@localhost``), ``\\C`` the connection id ``1``, ``\\v`` the simulated version; ``\\d`` is
the default database, ``(none)`` when there is none, as mysql shows it. An unknown escape stands
for its letter, as in mysql.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

DEFAULT_PROMPT = "replfilter> "
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
NO_DATABASE = "(none)"


@dataclass(frozen=True)
class PromptFacts:
    """What the escapes of a prompt string stand for at one moment."""

    counter: int
    database: str | None
    delimiter: str
    version: str
    host: str = "localhost"
    port: int = 3306
    user: str = "root"
    connection_id: int = 1


def render_prompt(template: str, facts: PromptFacts, now: time.struct_time | None = None) -> str:
    """``template`` with its ``\\x`` escapes expanded (``construct_prompt`` in client/mysql.cc)."""
    t = now or time.localtime()
    out: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch != "\\" or i + 1 == len(template):
            out.append(ch)
            i += 1
            continue
        code = template[i + 1]
        i += 2
        out.append(_escape(code, facts, t))
    return "".join(out)


def _escape(code: str, facts: PromptFacts, t: time.struct_time) -> str:
    hour12 = t.tm_hour % 12 or 12
    simple = {
        "c": str(facts.counter),
        "C": str(facts.connection_id),
        "v": facts.version,
        "d": facts.database if facts.database is not None else NO_DATABASE,
        "h": facts.host,
        "p": str(facts.port),
        "U": f"{facts.user}@{facts.host}",
        "u": facts.user,
        "\\": "\\",
        "n": "\n",
        " ": " ",
        "_": " ",
        "R": f"{t.tm_hour:02d}",
        "r": f"{hour12:02d}",
        "m": f"{t.tm_min:02d}",
        "y": f"{t.tm_year % 100:02d}",
        "Y": str(t.tm_year),
        "D": time.asctime(t),  # ctime(), as mysql
        "s": f"{t.tm_sec:02d}",
        "w": DAY_NAMES[t.tm_wday],
        "P": "am" if t.tm_hour < 12 else "pm",
        "o": str(t.tm_mon),
        "O": MONTH_NAMES[t.tm_mon - 1],
        "'": "'",
        '"': '"',
        "S": ";",
        "t": "\t",
        "l": facts.delimiter,
    }
    return simple.get(code, code)
