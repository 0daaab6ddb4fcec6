"""Time from process start to the shell's first prompt, in a real pseudo-terminal.

Each run starts the installed ``replfilter`` console script (the one next to this Python, else the
one on PATH) with a pty as its terminal, answers the cursor-position request prompt_toolkit sends
(as a terminal would), and stops the clock when the prompt ``replfilter>`` has been drawn. HOME and the
history file are temporary, so the real history is not touched; the history file is read as in a
normal start; PYTHONPATH is passed on (to measure a worktree's code), PYTHONDONTWRITEBYTECODE
is not (an install has its .pyc files). Target: <= 0.3 s.

    .venv/bin/python bench/startup_shell.py [--runs N] [-- extra replfilter options]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

PROMPT = b"replfilter>"  # the trailing space is drawn as a cursor move
CURSOR_POSITION_REQUEST = b"\x1b[6n"
TIMEOUT_SECONDS = 10.0
TARGET_SECONDS = 0.3


def replfilter_command() -> list[str]:
    beside = Path(sys.executable).with_name("replfilter")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("replfilter")
    return [found] if found else [sys.executable, "-m", "replfilter"]


CPU_SECONDS: list[float] = []
"""CPU time (user + system) of each measured process, from its start to its kill just after the
prompt: on a shared machine the steadier figure."""


def time_to_prompt(command: list[str], env: dict[str, str]) -> float:
    """Seconds from fork to the first prompt on the terminal."""
    started = time.perf_counter()
    pid, master = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        try:
            os.execve(command[0], command, env)
        finally:
            os._exit(127)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    seen = b""
    try:
        while True:
            remaining = TIMEOUT_SECONDS - (time.perf_counter() - started)
            if remaining <= 0:
                raise TimeoutError(f"no prompt after {TIMEOUT_SECONDS} s; the terminal shows {seen[-300:]!r}")
            ready, _, _ = select.select([master], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child ended
                raise RuntimeError(f"replfilter ended before its prompt: {seen[-300:]!r}") from None
            seen += chunk
            if CURSOR_POSITION_REQUEST in chunk:
                os.write(master, b"\x1b[1;1R")
            if PROMPT in seen:
                return time.perf_counter() - started
    finally:
        os.kill(pid, signal.SIGKILL)
        _, _, usage = os.wait4(pid, 0)
        CPU_SECONDS.append(usage.ru_utime + usage.ru_stime)
        os.close(master)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("extra", nargs="*", help="options passed to replfilter (after --)")
    options = parser.parse_args()
    command = replfilter_command()
    if len(command) > 1:  # -m fallback: execve needs the interpreter path first
        command = [command[0], *command[1:]]
    command += options.extra
    with tempfile.TemporaryDirectory() as home:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "REPLFILTER_HISTFILE": str(Path(home) / "history"),
            "TERM": "xterm-256color",
            "LANG": os.environ.get("LANG", "C.UTF-8"),
        }
        if "PYTHONPATH" in os.environ:  # a worktree first on the path: measure its code
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        time_to_prompt(command, env)  # one unmeasured run: OS file cache, Lark/pyc caches
        CPU_SECONDS.clear()
        times = [time_to_prompt(command, env) for _ in range(options.runs)]
    median = statistics.median(times)
    print(f"command: {' '.join(command)}")
    print(f"first prompt after (process start -> prompt drawn on the pty), {options.runs} runs:")
    print(f"  median {median:.3f} s   min {min(times):.3f} s   max {max(times):.3f} s   (target <= {TARGET_SECONDS} s)")
    print(f"  CPU time to the prompt: median {statistics.median(CPU_SECONDS):.3f} s")
    return 0 if median <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
