"""How long ``replfilter lint`` takes on a large configuration.

10,000 rules over 4 configured channels of 2,500 rules each: two list what they keep (do-db,
exact and wild do-table, exact ignore rules carving tables out of the wild ones, rewrites), two
what they drop (ignore-db, exact and wild ignore-table, rewrites); one rule in a hundred is a
trap the lint finds, so findings are built with their messages, examples and fixes. The schema catalog had not landed
when this was written, so the figure is for rules without a schema.

Measured: ``lint_state`` (every check, every channel, sorted findings) and the JSON output of
its findings; best of ``--repeat`` runs. Target: under 5 s.

    .venv/bin/python bench/lint.py [--rules N] [--repeat R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation  # noqa: E402
from replfilter.lint.linter import LintOptions, lint_state  # noqa: E402
from replfilter.lint.output import to_json_lines  # noqa: E402
from replfilter.lint.patterns import escape_like  # noqa: E402
from replfilter.replica.state import Channel, ReplicaState, SourceSettings  # noqa: E402

FT = FilterType
CHANNELS = ("east", "north", "south", "west")
TRAP_RATE = 0.01  # one rule in a hundred is one of the traps the lint finds


def do_channel(rng: random.Random, ch: str, count: int) -> dict[FilterType, list]:
    """A channel that lists what it keeps: do-db for its databases, exact and wild do-table
    rules inside them, exact ignore rules carving tables out of the wild ones, rewrites."""
    dbs = [f"{ch}_db{i}" for i in range(count * 6 // 100)]
    wild = [f"{escape_like(rng.choice(dbs))}.w{n}\\_%" for n in range(count * 30 // 100)]
    return {
        FT.DO_DB: dbs,
        FT.DO_TABLE: [_trap(rng, f"{rng.choice(dbs)}.e{n}", "%") for n in range(count * 40 // 100)],
        FT.IGNORE_TABLE: [p[:-3].replace("\\_", "_") + "_tmp" for p in rng.sample(wild, count * 20 // 100)],
        FT.WILD_DO_TABLE: [_trap(rng, p, "_") for p in wild],
        FT.REWRITE_DB: [(f"{ch}src{n}", rng.choice(dbs)) for n in range(count * 4 // 100)],
    }


def ignore_channel(rng: random.Random, ch: str, count: int) -> dict[FilterType, list]:
    """A channel that lists what it drops: ignore-db, exact and wild ignore-table rules."""
    dbs = [f"{ch}db{i}" for i in range(200)]
    return {
        FT.IGNORE_DB: [_trap(rng, f"{ch}skip{i}", ",") for i in range(count * 6 // 100)],
        FT.IGNORE_TABLE: [f"{rng.choice(dbs)}.i{n}" for n in range(count * 40 // 100)],
        FT.WILD_IGNORE_TABLE: [_trap(rng, f"{rng.choice(dbs)}.tmp{n}\\_%", "_") for n in range(count * 50 // 100)],
        FT.REWRITE_DB: [(f"{ch}src{n}", rng.choice(dbs)) for n in range(count * 4 // 100)],
    }


def _trap(rng: random.Random, rule: str, kind: str) -> str:
    if rng.random() >= TRAP_RATE:
        return rule
    if kind == "%":
        return rule + "%"
    if kind == ",":
        return rule + ",other"
    return rule.replace("\\_", "_", 1)


def build_state(total: int, seed: int) -> ReplicaState:
    rng = random.Random(seed)
    channels = []
    collation = NameCollation(0)
    for name in CHANNELS:
        filters = FilterSet()
        build = do_channel if name in ("east", "north") else ignore_channel
        for ftype, rules in build(rng, name, total // len(CHANNELS)).items():
            filters = filters.set_type(ftype, rules, ConfiguredBy.CHANGE_REPLICATION_FILTER_FOR_CHANNEL, 1, collation)
        channels.append(Channel(name, SourceSettings(host="src"), filters=filters))
    return ReplicaState(channels=tuple(channels), collation=collation)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    state = build_state(args.rules, args.seed)
    rules = sum(len(slot.rules) for channel in state.channels for slot in channel.filters.slots)
    best = None
    for _ in range(args.repeat):
        started = time.perf_counter()
        findings = lint_state(state, LintOptions())
        text = to_json_lines(findings)
        elapsed = time.perf_counter() - started
        best = elapsed if best is None else min(best, elapsed)
    by_code: dict[str, int] = {}
    for finding in findings:
        by_code[finding.code] = by_code.get(finding.code, 0) + 1
    print(f"rules: {rules} over {len(state.channels)} channels, no schema")
    print(f"findings: {len(findings)} ({', '.join(f'{c} {n}' for c, n in sorted(by_code.items()))}); JSON {len(text) / 1e6:.1f} MB")
    print(f"lint + JSON output: {best:.2f} s (best of {args.repeat}; target < 5 s)")


if __name__ == "__main__":
    main()
