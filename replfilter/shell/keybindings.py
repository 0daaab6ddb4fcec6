"""The keys that differ from prompt_toolkit's emacs defaults (which already give Ctrl-R history
search, Ctrl-A/E, Alt-B/F...). Ctrl-C and Ctrl-D keep prompt_toolkit's meaning: Ctrl-C abandons the
input being typed, Ctrl-D on an empty line leaves the shell."""

from __future__ import annotations

from prompt_toolkit.filters import completion_is_selected
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


def shell_key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter", filter=completion_is_selected)
    def _take_completion(event: KeyPressEvent) -> None:
        """Enter on a highlighted completion takes it, and does not run the statement (mycli)."""
        event.current_buffer.complete_state = None

    return bindings
