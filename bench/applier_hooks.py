"""What the Spark applier's hooks cost a statement, with no JVM: every front-end installs them
(``replfilter script.sql``, the shell, ``replfilter serve``), and they run after each change of
the replica's state.

Two figures: the hooks' own time a state change (one channel's filters changed, on ``--channels``
channels: ``_check`` before the commit, ``_changed`` after it), and bench/serve.py's script in
process on a Session with the hooks and without, run in turns (CPU time a statement).

    PYTHONPATH=. .venv/bin/python bench/applier_hooks.py [--channels 64] [--statements 8000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import in_process_rate  # noqa: E402


def hook_costs(channels: int, rounds: int) -> tuple[float, float]:
    """CPU seconds of ``_check`` and ``_changed`` a state change, each on fresh states (a
    state's channel index is built on its first lookup, as after a real statement)."""
    from replfilter.server.session import Session
    from replfilter.spark_runtime.applier import install_applier

    session = Session()
    applier = install_applier(session)
    for k in range(channels):
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='s{k}' FOR CHANNEL 'ch_{k}'")
    pairs = []
    for i in range(rounds):
        old = session.state
        session.execute_text(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d{i}) FOR CHANNEL 'ch_{i % channels}'")
        pairs.append((old, session.state))
    check = changed = 0.0
    for old, new in pairs:
        fresh_old, fresh_new = replace(old), replace(new)  # copies without a cached channel index
        started = time.process_time()
        applier._check(fresh_old, fresh_new)
        middle = time.process_time()
        applier._changed(fresh_old, fresh_new)
        check, changed = check + middle - started, changed + time.process_time() - middle
    return check / rounds, changed / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--statements", type=int, default=8000)
    parser.add_argument("--rounds", type=int, default=5000)
    options = parser.parse_args()
    check, changed = hook_costs(options.channels, options.rounds)
    print(f"hooks a state change on {options.channels} channels: _check {check * 1e6:.2f} us, "
          f"_changed {changed * 1e6:.2f} us (load average {os.getloadavg()[0]:.2f})")
    for _ in range(3):
        bare = in_process_rate(options.statements, applier_hooks=False)[1]
        hooked = in_process_rate(options.statements, applier_hooks=True)[1]
        print(f"serve.py's script in process: {bare * 1e6:.1f} us CPU a statement bare, {hooked * 1e6:.1f} us "
              f"with the hooks (+{(hooked - bare) * 1e6:.1f} us)")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
