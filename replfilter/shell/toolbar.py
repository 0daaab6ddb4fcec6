"""The bottom toolbar: each channel and whether its SQL (applier) thread runs, and the number of
conditions the last statement left (what ``SHOW COUNT(*) WARNINGS`` would print).

It reads the session's immutable state at each redraw, so it is never out of date and costs no
bookkeeping. It fits the terminal's width: every channel by name when they fit, else a summary
("16 channels, 1 SQL running, 2 warnings") that names the running ones when there is room, and
the help hints only when there is room left. The warning count is never cut and a running thread
is never hidden. ``--no-toolbar`` turns it off.
"""

from __future__ import annotations

from typing import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ..replica.state import ReplicaState
from ..server.session import Session

LABEL, PLAIN = "class:bottom-toolbar.label", "class:bottom-toolbar"
ON, OFF, WARN = "class:bottom-toolbar.on", "class:bottom-toolbar.off", "class:bottom-toolbar.warn"
HINTS = "  |  \\h help  \\q quit "


def channel_label(name: str) -> str:
    """How a channel is named to a person: quoted, so the default channel shows as ``''``."""
    return "'" + name.replace("'", "''") + "'"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _warnings(count: int) -> StyleAndTextTuples:
    return [(WARN if count else PLAIN, _plural(count, "warning"))]


def _listed(state: ReplicaState, warning_count: int) -> StyleAndTextTuples:
    fragments: StyleAndTextTuples = [(LABEL, " channels: ")]
    for index, channel in enumerate(state.channels):
        if index:
            fragments.append((PLAIN, "  "))
        running = channel.sql_running
        fragments.append((PLAIN, channel_label(channel.name) + " SQL "))
        fragments.append((ON if running else OFF, "on" if running else "off"))
    fragments.append((LABEL, "  |  "))
    return fragments + _warnings(warning_count)


def _summary(state: ReplicaState, warning_count: int, name_running: bool) -> StyleAndTextTuples:
    running = [channel.name for channel in state.channels if channel.sql_running]
    text = f" {_plural(len(state.channels), 'channel')}, {len(running)} SQL running"
    fragments: StyleAndTextTuples = [(PLAIN, text)]
    if running and name_running:
        fragments.append((ON, " (" + ", ".join(channel_label(name) for name in running) + ")"))
    fragments.append((PLAIN, ", "))
    return fragments + _warnings(warning_count)


def _width(fragments: StyleAndTextTuples) -> int:
    return sum(len(text) for _, text, *_ in fragments)


def toolbar_fragments(state: ReplicaState, warning_count: int, width: int = 200) -> StyleAndTextTuples:
    """The toolbar for a terminal ``width`` columns wide: the first of these that fits -- every
    channel, the summary naming the running channels, the bare summary -- with the help hints
    when they fit too; at worst the warning count alone, first, so it is never cut."""
    for candidate in (_listed(state, warning_count), _summary(state, warning_count, True), _summary(state, warning_count, False)):
        if _width(candidate) + len(HINTS) <= width:
            return candidate + [(LABEL, HINTS)]
        if _width(candidate) <= width:
            return candidate
    return [(PLAIN, " ")] + _warnings(warning_count)


def make_toolbar(session: Session) -> Callable[[], StyleAndTextTuples]:
    def toolbar() -> StyleAndTextTuples:
        from prompt_toolkit.application import get_app

        try:
            width = get_app().output.get_size().columns
        except Exception:  # no terminal size (a pipe): assume a wide one
            width = 200
        return toolbar_fragments(session.state, len(session.diagnostics), width)

    return toolbar
