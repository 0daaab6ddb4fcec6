"""What reading one statement's text yields (:class:`StatementAnalysis`), and what a reader
works on (:class:`ReaderContext`).

The analysis is format-independent: the derivation (:mod:`.logged_events`) turns it into the
events of one binlog format. It holds what the replica's filter code looks at
(mysql-filter-evaluation.md, section 3.2, "Statement-kind → table list"): the command kind and
the table list in statement order with updating flags, plus what decides whether anything is
logged at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...replica.catalog import Catalog
from ..events import CommandKind, TableRef
from .tokens import Token


@dataclass(frozen=True)
class StatementAnalysis:
    """What the text of one statement says, independent of binlog format.

    ``tables`` is the server's table list in statement order with updating flags; ``event_db``
    is the named database of CREATE/ALTER/DROP DATABASE (the source logs it as the event's db);
    ``logged`` is False for statements the source does not write to the binlog (SELECT, USE,
    SHOW ...); ``use_db`` is set by USE. ``tables_known`` is False when the text alone cannot
    say which tables are updating (``notes`` says why). ``source_error`` is the error the source
    refuses the statement with (then nothing is logged); ``trigger`` the ``(db, name)`` a DROP
    TRIGGER names, which the replica looks up in its own catalog.
    """

    command: CommandKind
    tables: tuple[TableRef, ...] = ()
    logged: bool = True
    event_db: str | None = None
    temporary: bool = False
    if_exists: bool = False
    create_select: bool = False
    tables_known: bool = True
    notes: tuple[str, ...] = ()
    use_db: str | None = None
    parsed_by: str = "tokens"
    source_error: str | None = None
    trigger: tuple[str | None, str] | None = None
    unknown_owners: tuple[str, ...] = ()
    """SET columns of a multi-table UPDATE whose table is not known (no schema)."""

    @property
    def undecided(self) -> str | None:
        """What is missing for the table list to be certain, and what to do; None when it is."""
        if not self.unknown_owners:
            return None
        return "; ".join(owner_unknown(column) for column in self.unknown_owners)

    def with_note(self, note: str, known: bool | None = None) -> "StatementAnalysis":
        return replace(
            self,
            notes=self.notes + (note,),
            tables_known=self.tables_known if known is None else known,
        )


@dataclass(frozen=True)
class ReaderContext:
    """One statement as its reader sees it: the text, its tokens and executable-comment
    markers, the command kind classification found, and the session's default database.
    ``use_sqlglot=False`` makes every reader take its tokenizer path (the fallback used when
    sqlglot cannot parse a statement), so the two paths can be compared. ``catalog`` is the
    source's schema: with it, columns resolve as the source resolves them."""

    sql: str
    tokens: list[Token]
    markers: list[tuple[int, int]]
    command: CommandKind
    default_db: str
    use_sqlglot: bool = True
    catalog: Catalog | None = None  # the source's schema, when given


def owner_unknown(column: str) -> str:
    """The reason a SET column's table is not known, and the two ways to make it known."""
    return f"which table owns `{column}` is not known: give the schema with `--schema`, or qualify the column"
