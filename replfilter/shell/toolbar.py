"""The bottom toolbar: each channel and whether its SQL (applier) thread runs, and the number of
conditions the last statement left (what ``SHOW COUNT(*) WARNINGS`` would print).

It reads the session's immutable state at each redraw, so it is never out of date and costs no
bookkeeping. ``--no-toolbar`` turns it off.
"""

from __future__ import annotations

from typing import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ..server.session import Session
from ..replica.state import ReplicaState

MAX_CHANNELS_SHOWN = 6


def channel_label(name: str) -> str:
    """How a channel is named to a person: quoted, so the default channel shows as ``''``."""
    return "'" + name.replace("'", "''") + "'"


def toolbar_fragments(state: ReplicaState, warning_count: int) -> StyleAndTextTuples:
    fragments: StyleAndTextTuples = [("class:bottom-toolbar.label", " channels: ")]
    channels = state.channels
    for index, channel in enumerate(channels[:MAX_CHANNELS_SHOWN]):
        if index:
            fragments.append(("class:bottom-toolbar", "  "))
        running = channel.sql_running
        fragments.append(("class:bottom-toolbar", channel_label(channel.name) + " SQL "))
        fragments.append(("class:bottom-toolbar.on" if running else "class:bottom-toolbar.off", "on" if running else "off"))
    if len(channels) > MAX_CHANNELS_SHOWN:
        fragments.append(("class:bottom-toolbar", f"  (+{len(channels) - MAX_CHANNELS_SHOWN} more, \\s lists all)"))
    fragments.append(("class:bottom-toolbar.label", "  |  warnings: "))
    fragments.append(("class:bottom-toolbar.warn" if warning_count else "class:bottom-toolbar", str(warning_count)))
    fragments.append(("class:bottom-toolbar.label", "  |  \\h help  \\q quit "))
    return fragments


def make_toolbar(session: Session) -> Callable[[], StyleAndTextTuples]:
    def toolbar() -> StyleAndTextTuples:
        return toolbar_fragments(session.state, len(session.diagnostics))

    return toolbar
