"""Where the shell's text goes: the terminal, a ``tee`` file, and a ``pager``.

As in the mysql client, ``tee`` copies everything (what was typed, results, errors) to a file,
and ``pager`` pipes each statement's result through a command; errors go to standard error and
are never paged. The two streams are offered as file-like objects so the script runner (used by
``source``) writes through the same path.
"""

from __future__ import annotations

import io
import subprocess
from contextlib import contextmanager
from typing import IO, Iterator, TextIO


class _Stream(io.TextIOBase):
    """A write-only text stream that hands everything to :class:`ShellOutput`."""

    def __init__(self, output: "ShellOutput", is_error: bool) -> None:
        self._output = output
        self._is_error = is_error

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:  # type: ignore[override]
        if self._is_error:
            self._output.error(text)
        else:
            self._output.write(text)
        return len(text)

    def flush(self) -> None:
        self._output.flush()


class ShellOutput:
    def __init__(self, stdout: TextIO, stderr: TextIO) -> None:
        self._stdout = stdout
        self._stderr = stderr
        self.tee_path: str | None = None
        self.last_tee_path: str | None = None
        self._tee: IO[str] | None = None
        self.pager: str | None = None
        self._paged: list[str] | None = None
        self.stdout = _Stream(self, is_error=False)
        self.stderr = _Stream(self, is_error=True)

    # ---- writing
    def write(self, text: str) -> None:
        if self._paged is not None:
            self._paged.append(text)
        else:
            self._stdout.write(text)
        self._to_tee(text)

    def write_terminal(self, text: str) -> None:
        """Text for the terminal only, never the tee file: ``tee``'s own "Logging to file"
        (mysql prints it before it starts copying) and a pasted input's echo (the tee file gets
        each input once, from :meth:`log_input`)."""
        self.flush()
        self._stdout.write(text)
        self._stdout.flush()

    def error(self, text: str) -> None:
        self.flush()
        self._stderr.write(text)
        self._stderr.flush()
        self._to_tee(text)

    def log_input(self, text: str) -> None:
        """What was typed, for the tee file only (the terminal already shows it)."""
        self._to_tee(text)

    def flush(self) -> None:
        if self._paged is None:
            self._stdout.flush()
        if self._tee is not None:
            self._tee.flush()

    def _to_tee(self, text: str) -> None:
        if self._tee is not None:
            try:
                self._tee.write(text)
            except OSError as exc:
                self._tee = None
                self._stderr.write(f"Error writing to outfile '{self.tee_path}': {exc.strerror or exc}; outfile disabled.\n")
                self.tee_path = None

    # ---- tee
    def start_tee(self, path: str) -> None:
        """Raises OSError when the file cannot be opened for appending."""
        handle = open(path, "a", encoding="utf-8")
        self.stop_tee()
        self._tee = handle
        self.tee_path = self.last_tee_path = path

    def stop_tee(self) -> None:
        if self._tee is not None:
            try:
                self._tee.close()
            except OSError:
                pass
        self._tee = None
        self.tee_path = None

    # ---- pager
    @contextmanager
    def paged(self) -> Iterator[None]:
        """Collect the output written inside the block and pipe it through the pager, if any."""
        if self.pager is None or self._paged is not None:
            yield
            return
        self._paged = []
        try:
            yield
        finally:
            text, self._paged = "".join(self._paged), None
            if text:
                self._run_pager(text)

    def _run_pager(self, text: str) -> None:
        self._stdout.flush()
        try:
            subprocess.run(self.pager or "", shell=True, input=text.encode("utf-8"), check=False)
        except OSError as exc:
            self._stderr.write(f"ERROR: pager '{self.pager}' failed: {exc.strerror or exc}\n")
            self._stdout.write(text)

    def close(self) -> None:
        self.stop_tee()
        self.flush()
