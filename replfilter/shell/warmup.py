"""Make the first statement and the first Tab as quick as the later ones.

The first parse of a process compiles the lexer and the completion engine builds its own parser;
together a few tens of milliseconds, paid on the first Enter or Tab. A daemon thread,
started shortly after the first prompt is shown, parses the example of every help topic and asks
the completion engine about a few prefixes, so that cost is paid while the person is still typing.
It only reads: no statement is executed and no state changes.
"""

from __future__ import annotations

import threading

START_DELAY_SECONDS = 0.3
COMPLETION_PREFIXES = (
    "CHANGE REPLICATION FILTER ",
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL ",
    "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', ",
    "SELECT * FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME = ",
    "SELECT COUNT(*) FROM x ORDER BY ",
    "START REPLICA SQL_THREAD FOR CHANNEL ",
    "SHOW REPLICA STATUS ",
)


def warm_up() -> None:
    try:
        from ..dialect.parser import parse_statement
        from ..dialect.splitter import StatementText, split_statements
        from .completion import suggest
        from .helptext import TOPICS

        for topic in TOPICS:
            for item in split_statements(topic.example):
                if isinstance(item, StatementText) and item.text:
                    parse_statement(item.text)
        for prefix in COMPLETION_PREFIXES:
            suggest(prefix)
    except Exception:  # only an optimisation: never let it be seen
        pass


def start_warm_up(delay: float = START_DELAY_SECONDS) -> threading.Timer:
    timer = threading.Timer(delay, warm_up)
    timer.daemon = True
    timer.start()
    return timer
