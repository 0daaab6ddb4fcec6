"""The keys that differ from prompt_toolkit's emacs defaults, so that they do what readline does in
the mysql client (prompt_toolkit already gives Ctrl-A/E, Alt-B/F, Ctrl-R search, Ctrl-D on an
empty line to leave).

* Enter on a continuation line inserts a bare line break: prompt_toolkit would copy the current
  line's indentation into the new line, which changes a string literal that spans lines;
* Enter while searching history (Ctrl-R) runs the statement found, as readline's
  ``accept-line`` does in an incremental search;
* Up and Down walk history one entry at a time, even when the entry spans several lines (mysql
  keeps a multi-line statement as one history entry);
* Ctrl-C shows ``^C`` where it was pressed and abandons the input, as mysql's SIGINT handler does;
* a bracketed paste is handed to the shell, which runs each complete statement in it
  (:meth:`replfilter.shell.app.Shell.paste`).
"""

from __future__ import annotations

from typing import Callable

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Filter, completion_is_selected, has_completions, is_searching
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.search import accept_search

INTERRUPT_MARK = "^C"


def shell_key_bindings(
    multiline: Filter, paste: Callable[[Buffer, str], None], input_buffer: Callable[[], Buffer]
) -> KeyBindings:
    """``multiline`` is true while Enter should continue the input; ``paste`` receives a bracketed
    paste; ``input_buffer`` is the buffer the statement is typed in (not the search field)."""
    bindings = KeyBindings()

    @bindings.add("enter", filter=completion_is_selected)
    def _take_completion(event: KeyPressEvent) -> None:
        """Enter on a highlighted completion takes it, and does not run the statement (mycli)."""
        event.current_buffer.complete_state = None

    @bindings.add("enter", filter=multiline & ~completion_is_selected & ~is_searching)
    def _continue(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("enter", filter=is_searching)
    def _run_found(event: KeyPressEvent) -> None:
        accept_search()
        buffer = input_buffer()
        buffer.cursor_position = len(buffer.text)
        buffer.validate_and_handle()

    @bindings.add("up", filter=~has_completions & ~is_searching)
    def _older(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        buffer.history_backward(count=event.arg)
        buffer.cursor_position = len(buffer.text)

    @bindings.add("down", filter=~has_completions & ~is_searching)
    def _newer(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        buffer.history_forward(count=event.arg)
        buffer.cursor_position = len(buffer.text)

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = input_buffer()
        buffer.cursor_position = len(buffer.text)
        buffer.insert_text(INTERRUPT_MARK)
        event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    @bindings.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        if event.current_buffer is not input_buffer():  # pasted into the Ctrl-R search field
            event.current_buffer.insert_text(event.data.replace("\r", ""))
            return
        paste(event.current_buffer, event.data)

    return bindings
