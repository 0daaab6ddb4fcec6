"""``--schema [channel:]FILE``: the sources' schemas, loaded at start-up for every front-end.

The channel prefix reads as in the ``--replicate-*`` options (mysql-filter-statements.md,
"Startup options"): ``ch:FILE`` is channel ``ch``'s source, ``:FILE`` the default channel's, and
a bare ``FILE`` every channel's source. The option is repeatable; files load in order.

Loading happens after the start-up options (and a subcommand's ``--init`` script), so the DDL is
replayed through the filters those set. A replica whose catalog came back from ``--datadir``
keeps it: a restarted replica does not apply its sources' history again, so then only the
sources' catalogs are loaded (README, "Where replfilter chooses").
"""

from __future__ import annotations

import argparse
import os
from typing import Sequence, TextIO

from ..server.session import Session

SCHEMA_HELP = (
    "a source's schema (mysqldump --no-data output or any DDL script); 'ch:FILE' for channel ch's "
    "source, FILE alone for every channel's source; repeatable"
)


def add_schema_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--schema", metavar="[CHANNEL:]FILE", action="append", default=[], help=SCHEMA_HELP)


def split_schema_value(value: str) -> tuple[str | None, str]:
    """``ch:FILE`` -> (``ch``, FILE); ``:FILE`` -> (``''``, FILE); ``FILE`` -> (None, FILE)."""
    channel, sep, path = value.partition(":")
    return (channel, path) if sep else (None, value)


def load_schema_options(session: Session, values: Sequence[str], stderr: TextIO) -> bool:
    """Load each ``--schema``; False (the reason on ``stderr``) when a file cannot be read.
    The server's refusals inside a file are warnings, written as mysqld logs them."""
    if not values:
        return True
    from ..evaluation.catalog.loader import SchemaFileError, load_schema_file  # sqlglot: only with --schema

    replay = session.state.replica_catalog is None
    for value in values:
        channel, path = split_schema_value(value)
        if channel is not None and session.state.channel(channel) is None:
            hint = ""
            if os.path.isfile(value):
                # A file name with a colon reads as channel:FILE, as --replicate-* values do.
                hint = (f" (a file named '{value}' is read as channel:FILE: name its channel before it, "
                        f"e.g. --schema=:{value} for the default channel, or use LOAD SCHEMA FROM '{value}')")
            stderr.write(
                f"replfilter: [Warning] --schema={value}: replica channel '{channel}' does not exist. "
                f"The schema has been discarded{hint}.\n"
            )
            continue
        try:
            result = load_schema_file(session.state, path, channel, replay=replay)
        except SchemaFileError as error:
            stderr.write(f"replfilter: [ERROR] --schema: cannot read '{path}': {error.strerror}\n")
            return False
        for warning in result.warnings:
            stderr.write(f"replfilter: [Warning] {warning}\n")
        session.update(lambda _old, new=result.state: new)
    return True
