"""How long ``replfilter lint`` takes on a large configuration.

10,000 rules over 4 configured channels of 2,500 rules each: two list what they keep (do-db,
exact and wild do-table, exact ignore rules carving tables out of the wild ones, rewrites), two
what they drop (ignore-db, exact and wild ignore-table, rewrites); one rule in a hundred is a
trap the lint finds, so findings are built with their messages, examples and fixes. The
sources' schema (every channel's, as ``--schema FILE`` gives it) has 50,000 tables: every table
an exact rule names, one table per wild pattern, the rest filler tables in the same databases,
so the schema checks (RF601-RF603) run over all of them. Measured: ``lint_state`` (every check, every channel, sorted findings) and the JSON output of
its findings; best of ``--repeat`` runs. Target: under 2 s.

    .venv/bin/python bench/lint.py [--rules N] [--tables N] [--repeat R] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation  # noqa: E402
from replfilter.lint.linter import LintOptions, lint_state  # noqa: E402
from replfilter.lint.output import to_json_lines  # noqa: E402
from replfilter.lint.patterns import escape_like  # noqa: E402
from replfilter.replica.catalog import CatalogBuilder, TableDef  # noqa: E402
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


def with_schema(state: ReplicaState, tables: int, seed: int) -> ReplicaState:
    """Every channel's source schema: the tables the rules name, then filler up to ``tables``."""
    rng = random.Random(seed)
    builder = CatalogBuilder(collation=state.collation)
    names: list[tuple[str, str]] = []
    dbs: list[str] = []
    for channel in state.channels:
        for ftype in (FT.DO_TABLE, FT.IGNORE_TABLE):
            names.extend(tuple(str(r).split(".", 1)) for r in channel.filters.rules(ftype))  # type: ignore[misc]
        for ftype in (FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE):
            for rule in channel.filters.rules(ftype):
                db, _, table = str(rule).replace("\\", "").partition(".")
                names.append((db, table.replace("%", "a")))
        dbs.extend(str(r) for r in channel.filters.rules(FT.DO_DB))
        names.extend((str(r), "t") for r in channel.filters.rules(FT.IGNORE_DB))
        dbs.extend(f"{channel.name}db{i}" for i in range(200))
    names = names[:tables]
    while len(names) < tables:
        names.append((rng.choice(dbs), f"f{len(names)}"))
    for db, table in names:
        if not builder.has_database(db):
            builder.add_database(db)
        builder.put_table(TableDef(db, table, ("id",)))
    return state.with_source_catalog(None, builder.freeze())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=50_000, help="schema tables (0: no schema)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    state = build_state(args.rules, args.seed)
    if args.tables:
        state = with_schema(state, args.tables, args.seed)
    rules = sum(len(slot.rules) for channel in state.channels for slot in channel.filters.slots)
    best = best_cpu = None
    for _ in range(args.repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        findings = lint_state(state, LintOptions())
        text = to_json_lines(findings)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - started_cpu
        best = elapsed if best is None else min(best, elapsed)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
    by_code: dict[str, int] = {}
    for finding in findings:
        by_code[finding.code] = by_code.get(finding.code, 0) + 1
    schema = f"a {args.tables:,}-table schema" if args.tables else "no schema"
    print(f"rules: {rules} over {len(state.channels)} channels, {schema}")
    print(f"findings: {len(findings)} ({', '.join(f'{c} {n}' for c, n in sorted(by_code.items()))}); JSON {len(text) / 1e6:.1f} MB")
    print(f"lint + JSON output: {best:.2f} s wall, {best_cpu:.2f} s CPU (best of {args.repeat}; target < 2 s)")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
