"""Sessions whose filter tables hold known rows, for the tests of SELECT over them."""

from __future__ import annotations

from replfilter.server.session import Session


def channels_with_do_db(rules: dict[str, str]) -> Session:
    """A session with one channel per entry of ``rules``, each with that REPLICATE_DO_DB rule:
    one row per channel in ``replication_applier_filters``."""
    session = Session()
    for channel, rule in rules.items():
        session.execute_text(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL '{channel}'")
        session.execute_text(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`{rule}`) FOR CHANNEL '{channel}'")
    return session
