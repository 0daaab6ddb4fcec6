"""Loading a schema file: a source's catalog, and what of it reaches the replica.

A schema file is read as the ``mysql`` client feeds it to a server (the project's statement
splitter: ``DELIMITER``, comments, line numbers), each statement's ``/*!NNNNN ... */`` resolved
against the simulated server version, then executed on the *source's* catalog
(:mod:`.ddl`). It may be ``mysqldump --no-data --triggers --routines --events`` output, a
full dump, or any ``.sql`` file of DDL.

The replica's catalog is built the way a real replica's is: each DDL statement the source
executed is turned into the Query event the source logs (``sql.logged_events``), decided by that
channel's filters (the reference evaluator), and applied on the replica only when the filters
let it through — in the rewritten database when a rewrite rule matched. So a table created under
an ignore rule does not exist on the replica (mysql-filter-evaluation.md, sections 3 and 5).

Speed (the data section of a full dump must not be read row by row): a line that starts an
``INSERT``/``REPLACE`` statement and ends it on the same line (mysqldump writes every extended
INSERT on one line) is skipped by one regular-expression match, without the splitter or any
parser; other statements that cannot change the schema are skipped by their first word.
Memory stays proportional to the schema: the file is read line by line and nothing of the
data section is kept.

Errors: a statement the server would refuse becomes a :class:`SchemaWarning` naming the file
and line, and the rest loads. A replica-side refusal (the replica lacks what a passing statement
needs) is a warning too: it is where the applier would stop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator, Sequence

from ...core.errors import MySQLError
from ...core.paths import check_path
from ...dialect.splitter import ClientCommand, StatementBuffer, StatementText
from ...replica.catalog import Catalog, CatalogBuilder
from ...replica.state import ReplicaState
from ..evaluator import channel_filters, decide
from .ddl import apply_to_builder
from .ddl_errors import syntax_error
from .text import event_text, execute_versioned_comments, first_word, is_schema_statement
from ..events import CommandKind, QueryEvent, TableRef
from ..sql.logged_events import BinlogFormat, statement_events
from ..sql.tokens import SqlEventsError


class SchemaFileError(OSError):
    """The schema file cannot be opened or read at all (nothing is loaded)."""


@dataclass(frozen=True)
class SchemaWarning:
    """A statement of the file that did not load, or that would stop the replica's applier."""

    file: str
    line: int
    error: MySQLError
    channel: str | None = None      # set for a replica-side refusal: the channel whose applier stops

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        text = f"ERROR {self.error.code} ({self.error.sqlstate}): {self.error.message}"
        if self.channel is not None:
            return f"{where}: on the replica (channel '{self.channel}'), the applier would stop: {text}"
        return f"{where}: {text}"


@dataclass
class LoadStatistics:
    statements: int = 0          # statements executed as DDL (or USE)
    skipped: int = 0             # statements skipped without being read (data, SET, LOCK ...)
    lines: int = 0


# --- reading the file as the mysql client does ----------------------------------------------

_DATA_LINE = re.compile(r"\s*(?:INSERT|REPLACE)\b", re.I)
_ONE_LINE_STATEMENT = re.compile(
    r"""(?:[^'"`;\\]++|'(?:[^'\\]++|\\.|'')*+'|"(?:[^"\\]++|\\.|"")*+"|`(?:[^`]++|``)*+`|\\.)*+;\s*+""",
    re.S,
)


def _is_whole_data_line(line: str) -> bool:
    """A line holding one whole INSERT/REPLACE statement, ended by ``;`` outside quotes."""
    return _DATA_LINE.match(line) is not None and _ONE_LINE_STATEMENT.fullmatch(line) is not None


def read_statements(lines: Iterable[str], stats: LoadStatistics | None = None) -> Iterator[StatementText]:
    """The statements of a script as the mysql client sends them, data lines skipped unread.
    ``DELIMITER`` and ``use`` are honoured; other client commands are ignored (``source`` is not followed:
    a schema file is one file)."""
    stats = stats if stats is not None else LoadStatistics()
    buffer = StatementBuffer()
    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        stats.lines += 1
        if not buffer.in_progress and buffer.delimiter == ";" and _is_whole_data_line(line):
            buffer.line_number += 1
            stats.skipped += 1
            continue
        for item in buffer.feed_line(line):
            if isinstance(item, StatementText) and item.text:
                yield item
            elif isinstance(item, ClientCommand) and item.name == "use" and item.argument:
                # the client's ``use`` command (what a dump's ``USE `db`;`` line is): COM_INIT_DB
                yield StatementText(f"USE {item.argument}", item.line)
    for item in buffer.finish():
        if isinstance(item, StatementText) and item.text:
            yield item


# --- loading -----------------------------------------------------------------------------------


def receiving_channels(state: ReplicaState) -> tuple[str, ...]:
    """The channels whose source's DDL reaches the replica: the configured ones; on a replica
    with none configured, the default channel (decided with the global rules, as
    ``channel_filters`` explains)."""
    configured = tuple(c.name for c in state.configured_channels())
    return configured or (("",) if state.channel("") is not None else ())


@dataclass
class _Replay:
    """The replica side of a load: one catalog, fed by the channels' decisions."""

    builder: CatalogBuilder
    channels: Sequence[str]
    state: ReplicaState
    warnings: list[SchemaWarning] = field(default_factory=list)

    def statement(self, file: str, line: int, sql: str, default_db: str) -> None:
        applied_by_earlier = False
        for channel in self.channels:
            filters = channel_filters(self.state, channel)
            target_db = default_db
            if not filters.is_empty:
                try:
                    derived = statement_events(event_text(sql), default_db, BinlogFormat.STATEMENT, channel)
                except SqlEventsError as error:
                    self.warnings.append(SchemaWarning(file, line, _undecided(f"its event cannot be read: {error}"), channel))
                    continue
                events = [e for e in derived.events if isinstance(e, QueryEvent)]
                if not events:
                    continue
                event = events[0]
                decision = decide(filters, self.state.collation, event)
                trigger = getattr(derived.analysis, "trigger", None)
                if event.command is CommandKind.DROP_TRIGGER and trigger is not None:
                    # the replica looks the trigger up in its own catalog: its table decides
                    db = trigger[0] if trigger[0] is not None else (decision.db or default_db)
                    found = self.builder.trigger(db, trigger[1])
                    if found is not None:
                        event = replace(event, tables=(TableRef(db, found.table, True),))
                        decision = decide(filters, self.state.collation, event)
                if decision.decision is None:     # undecided: never a guess either way
                    self.warnings.append(SchemaWarning(file, line, _undecided(decision.reason), channel))
                    continue
                if not decision.applied:
                    continue
                if decision.rewritten_db:
                    target_db = decision.rewritten_db
            outcome = apply_to_builder(self.builder, sql, target_db)
            if outcome.error is None:
                applied_by_earlier = True
            elif not (applied_by_earlier and outcome.error.code in _EXISTS_ERRORS):
                self.warnings.append(SchemaWarning(file, line, outcome.error, channel))


def _undecided(reason: str) -> MySQLError:
    """Whether the replica applied this statement is not known: it is left off the replica's
    catalog, and the warning says so (MySQL's generic 1105, with the reason)."""
    return MySQLError(1105, "HY000", f"not known whether the replica applied this statement ({reason}); "
                                     "it is left out of the replica's catalog")


_EXISTS_ERRORS = frozenset({1007, 1050, 1304, 1359, 1537})
"""An object that one channel already brought to the replica arrives again through another
channel sharing the same source schema: the replica keeps the one copy (no warning)."""


@dataclass(frozen=True)
class LoadResult:
    state: ReplicaState
    warnings: tuple[SchemaWarning, ...]
    statistics: LoadStatistics


def load_schema_lines(
    state: ReplicaState, lines: Iterable[str], file: str, channel: str | None = None, replay: bool = True
) -> LoadResult:
    """Load one schema script into ``channel``'s source (``None``: every channel's source) and,
    with ``replay``, apply what the filters let through to the replica's catalog. The state's
    catalogs are created on first use (an empty replica catalog even without ``replay``: the
    schema is then known, and the replica kept none of it)."""
    stats = LoadStatistics()
    empty = Catalog(state.collation)
    if channel is None:
        targets: list[tuple[str | None, Catalog]] = [(None, state.every_source_catalog or empty)]
        targets += [(name, catalog) for name, catalog in state.channel_source_catalogs]
        channels = receiving_channels(state)
    else:
        own = state.source_catalog(channel) or empty
        targets = [(channel, own)]
        channels = (channel,)
    sources = [(name, CatalogBuilder(catalog)) for name, catalog in targets]
    replica = _Replay(CatalogBuilder(state.replica_catalog or empty), channels, state)
    warnings: list[SchemaWarning] = []
    default_db = ""
    for statement in read_statements(lines, stats):
        text = statement.text
        word = first_word(text)
        if not is_schema_statement(word):
            if word and word not in _KNOWN_STATEMENT_WORDS:
                warnings.append(SchemaWarning(file, statement.line, syntax_error(text)))
            stats.skipped += 1
            continue
        text = execute_versioned_comments(text, state.version.number)
        if not is_schema_statement(first_word(text)):
            stats.skipped += 1
            continue
        stats.statements += 1
        first_outcome = None
        for _name, builder in sources:
            outcome = apply_to_builder(builder, text, default_db)
            first_outcome = first_outcome or outcome
        assert first_outcome is not None
        if first_outcome.error is not None:
            warnings.append(SchemaWarning(file, statement.line, first_outcome.error))
            continue
        if replay and first_word(text) != "USE":
            replica.statement(file, statement.line, text, default_db)
        default_db = first_outcome.default_db
    for name, builder in sources:
        state = state.with_source_catalog(name, builder.freeze())
    state = state.with_replica_catalog(replica.builder.freeze())
    return LoadResult(state, tuple(warnings + replica.warnings), stats)


_BINARY_SNIFF = 8192
"""How much of a schema file is looked at for a NUL byte. mysqldump writes NUL as ``\\0`` and
the mysql client refuses a raw one outside --binary-mode, so a NUL near the start means the
file is not SQL text (an executable, an archive): it is refused whole rather than read as one
long 1064."""


def load_schema_file(state: ReplicaState, path: str, channel: str | None = None, replay: bool = True) -> LoadResult:
    """:func:`load_schema_lines` on a file; bytes that are not UTF-8 are kept as they are
    (a dump's data section may hold any bytes) and cannot stop the load."""
    try:
        handle = open(check_path(path), encoding="utf-8", errors="surrogateescape", newline="")
        with open(path, "rb") as raw:
            head = raw.read(_BINARY_SNIFF)
    except OSError as err:
        raise SchemaFileError(err.errno, err.strerror, path) from None
    if b"\0" in head:
        handle.close()
        line = head.count(b"\n", 0, head.index(b"\0")) + 1
        raise SchemaFileError(0, f"not a text file (a NUL byte on line {line})", path)
    with handle:
        try:
            return load_schema_lines(state, handle, path, channel, replay)
        except UnicodeError as err:  # pragma: no cover - surrogateescape accepts every byte
            raise SchemaFileError(0, str(err), path) from None


_KNOWN_STATEMENT_WORDS = frozenset("""
    SELECT INSERT REPLACE UPDATE DELETE SET LOCK UNLOCK BEGIN START COMMIT ROLLBACK SAVEPOINT RELEASE
    GRANT REVOKE FLUSH ANALYZE OPTIMIZE REPAIR CHECK CHECKSUM TRUNCATE LOAD CALL DO HANDLER SHOW
    DESCRIBE DESC EXPLAIN HELP KILL RESET PURGE CHANGE STOP INSTALL UNINSTALL XA PREPARE EXECUTE
    DEALLOCATE WITH TABLE VALUES IMPORT CLONE RESTART SHUTDOWN BINLOG CACHE SIGNAL RESIGNAL GET
    CREATE ALTER DROP RENAME USE
""".split())
"""Words a MySQL statement can start with: any other first word is the server's 1064 (the
statement is not read further: it cannot be DDL)."""
