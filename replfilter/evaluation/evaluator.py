"""The reference evaluator: what a channel's filters decide for each event, why, and which
``performance_schema.replication_applier_filters`` COUNTERs move.

This is the single source of truth for filter decisions (the Spark runtime is checked against
it). It restates ``mysql-filter-evaluation.md`` sections 3-7 and 9 as pure functions:

* :func:`decide` — one event against one :class:`FilterSet` -> :class:`Decision`.
* :func:`apply_event` / :func:`apply_events` — the same against a :class:`ReplicaState`,
  returning the new state with the event's channel counters moved.
* :class:`Evaluator` — memoising decisions by :func:`decision_key`, the small tuple of event
  fields a decision depends on (the Spark runtime reuses the idea: decide once per distinct key).

Choices where mysql-filter-evaluation.md leaves room, each tested in ``tests/test_evaluator*.py``:

* Version: 8.4-era code. XA boundaries are exempt like BEGIN/COMMIT (mysql-filter-evaluation.md, section 10, checklist item 37, "new").
* Name equality uses ``NameCollation.key`` (the filter set stores exact table rules under that
  key), while lower-casing an incoming name and LIKE matching use ``str.lower`` as mysql-filter-evaluation.md, section 5 says;
  the two differ only for a handful of non-ASCII letters such as ``ß``.
* The source error-code quirk (a second DB_OK count, mysql-filter-evaluation.md, section 7, quirk 2) is not modelled:
  events carry no error code, so every event moves each counter at most once.
* ``DROP TRIGGER`` whose event has an empty table list means "trigger not found on the replica"
  and is skipped whatever the rules (mysql-filter-evaluation.md, section 3.2, step 4), the only SKIP without rules.
* The *deciding* filter is the rule that ended the evaluation: a table rule that hit; else, for
  an APPLY after a do-db match, that do-db rule; else ``None`` with the default named in
  ``reason``. ``rewrite`` is reported separately (``rewritten_db``, ``rewrite_rule``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from .events import (
    BOUNDARY_COMMANDS,
    DATABASE_COMMANDS,
    CommandKind,
    Event,
    QueryEvent,
    RowEvent,
    TransactionEvent,
)
from .rule_checks import (
    APPLY,
    SKIP,
    CompiledFilters,
    Trace,
    Verdict,
    compile_filters,
    db_ok,
    db_ok_with_wild,
    rules_key,  # callers that memoise by rules (spark_runtime.exact_path) import it from here
    tables_ok,
)
from ..core.filters import FilterSet, FilterType, NameCollation, TypeSlot, display_rules, fold_case
from ..core.errors import MySQLError
from ..replica.state import Channel, ReplicaState

FT = FilterType

_NO_COUNTS: Mapping[FilterType, int] = MappingProxyType({})


@dataclass(frozen=True)
class Decision:
    """What the applier does with one event, and why.

    ``db`` is the database the decision used: for a query event the event's database after
    lower-casing and rewrite, for a row event the table's database after the same; ``None`` for
    transaction events. ``rewritten_db`` is set only when a rewrite rule matched.
    ``increments`` are the COUNTER moves, per filter type (read-only mapping).
    ``decision`` is ``None`` when the outcome depends on what is not known (which table owns an
    unqualified SET column, without the schema): ``reason`` then says what is missing.
    """

    decision: Verdict | None
    filter_type: FilterType | None
    rule: str | None
    reason: str
    db: str | None = None
    rewritten_db: str | None = None
    rewrite_rule: str | None = None
    increments: Mapping[FilterType, int] = field(default_factory=lambda: _NO_COUNTS)

    @property
    def applied(self) -> bool:
        return self.decision is APPLY

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (what ``replfilter evaluate`` prints per event)."""
        return {
            "decision": self.decision.value if self.decision is not None else None,
            "filter": self.filter_type.keyword if self.filter_type else None,
            "rule": self.rule,
            "reason": self.reason,
            "db": self.db,
            "rewritten_db": self.rewritten_db,
            "rewrite_rule": self.rewrite_rule,
            "counters": {ftype.keyword: self.increments[ftype] for ftype in FilterType if ftype in self.increments},
        }


# --- events -------------------------------------------------------------------------------

REWRITE_UNCOUNTED_COMMANDS = frozenset(
    {CommandKind.CREATE_DB, CommandKind.DROP_DB, CommandKind.BEGIN, CommandKind.COMMIT}
)
"""Query commands whose rewritten default database moves no REWRITE_DB COUNTER
(:func:`decide_query`; the Spark runtime compiles the same rule)."""

# Per command value: (never filtered, database statement, counts REWRITE_DB). Looked up by the
# member's plain ``_value_`` string: Enum hashing and ``.value`` go through Python code, and
# this is the hot path of every cache miss.
_COMMAND_CLASS: dict[str, tuple[bool, bool, bool]] = {
    kind._value_: (kind in BOUNDARY_COMMANDS, kind in DATABASE_COMMANDS, kind not in REWRITE_UNCOUNTED_COMMANDS)
    for kind in CommandKind
}
_TRANSACTION_DECISION = Decision(APPLY, None, None, "transaction event: never filtered")
TRIGGER_NOT_FOUND = "DROP TRIGGER: the trigger is not found on the replica"


def _finish(
    verdict: Verdict | None,
    ftype: FilterType | None,
    rule: str | None,
    reason: str,
    db: str,
    rewrite: tuple[str, str] | None,
    trace: Trace,
) -> Decision:
    if verdict is APPLY and ftype is None and trace.do_db_rule is not None:
        ftype, rule = FT.DO_DB, trace.do_db_rule
        reason = f"database {db!r} is in replicate-do-db; {reason}"
    return Decision(
        verdict,
        ftype,
        rule,
        reason,
        db,
        rewrite[1] if rewrite else None,
        display_rules(FT.REWRITE_DB, (rewrite,)) if rewrite else None,
        # An undecided event moves no COUNTER: which types the replica moves depends on what is
        # not known, so a partial count (say the do-db check that ran first) would be a guess,
        # and Spark's dead letter for the same event moves none.
        MappingProxyType(trace.counts) if trace.counts and verdict is not None else _NO_COUNTS,
    )


def decide_query(c: CompiledFilters, ev: QueryEvent) -> Decision:
    """mysql-filter-evaluation.md, sections 3.2 and 9 (``on QueryEvent``)."""
    trace = Trace()
    folded = fold_case(ev.default_db) if c.ci else ev.default_db
    rewrite = c.rewrite_db(folded) if c.rewrite else None
    d = rewrite[1] if rewrite else folded
    cmd = ev.command
    never_filtered, database_statement, rewrite_counts = _COMMAND_CLASS[cmd._value_]
    # REWRITE_DB counts when the (folded) string changed, whatever the outcome (quirk 1: A->a
    # under lctn != 0 never counts), except for CREATE/DROP DATABASE, BEGIN and COMMIT.
    if rewrite_counts and d != folded:
        trace.bump(FT.REWRITE_DB)

    if never_filtered:
        return _finish(APPLY, None, None, f"{cmd._value_} is never filtered", d, rewrite, trace)

    ok, ftype, rule, reason = db_ok(c, d, trace)
    if not ok:
        return _finish(SKIP, ftype, rule, reason, d, rewrite, trace)
    if database_statement and not c.has_db_rules:
        verdict, ftype, rule, reason = db_ok_with_wild(c, d, trace)
        return _finish(verdict, ftype, rule, reason, d, rewrite, trace)
    if cmd is CommandKind.DROP_TRIGGER and not ev.tables:
        return _finish(SKIP, None, None, TRIGGER_NOT_FOUND, d, rewrite, trace)
    if not ev.tables or database_statement:
        return _finish(APPLY, ftype, rule, _db_pass_reason(reason, "the statement has no table list"), d, rewrite, trace)
    if not c.table_rules_on:
        return _finish(APPLY, ftype, rule, _db_pass_reason(reason, "no table rules"), d, rewrite, trace)
    if ev.exempt_from_table_rules:
        what = "SET" if cmd is CommandKind.SET_OPTION else "DROP TEMPORARY TABLE IF EXISTS"
        return _finish(APPLY, ftype, rule, f"{what} is exempt from table rules", d, rewrite, trace)
    resolved = [(t.db if t.db is not None else d, t.table, t.updating) for t in ev.tables]
    verdict, ftype, rule, reason = tables_ok(c, resolved, trace)
    return _finish(verdict, ftype, rule, reason, d, rewrite, trace)


def _db_pass_reason(db_reason: str, table_part: str) -> str:
    return f"{db_reason}; {table_part}"


def decide_row(c: CompiledFilters, ev: RowEvent) -> Decision:
    """mysql-filter-evaluation.md, sections 3.4 and 9 (``on TableMapEvent``): the table's own
    database decides."""
    trace = Trace()
    db, table = (fold_case(ev.db), fold_case(ev.table)) if c.ci else (ev.db, ev.table)
    rewrite = c.rewrite_db(db) if c.rewrite else None
    if rewrite is not None:
        trace.bump(FT.REWRITE_DB)  # any match counts for a Table_map, even a no-op rename
        db = rewrite[1]
    ok, ftype, rule, reason = db_ok(c, db, trace)
    if not ok:
        return _finish(SKIP, ftype, rule, reason, db, rewrite, trace)
    if not c.table_rules_on:
        return _finish(APPLY, ftype, rule, _db_pass_reason(reason, "no table rules"), db, rewrite, trace)
    verdict, ftype, rule, reason = tables_ok(c, ((db, table, True),), trace)
    return _finish(verdict, ftype, rule, reason, db, rewrite, trace)


def decide_compiled(c: CompiledFilters, event: Event) -> Decision:
    if isinstance(event, RowEvent):
        return decide_row(c, event)
    if isinstance(event, QueryEvent):
        return decide_query(c, event)
    if isinstance(event, TransactionEvent):
        return _TRANSACTION_DECISION
    raise TypeError(f"not an event: {event!r}")


def decide(filters: FilterSet, collation: NameCollation, event: Event) -> Decision:
    """Decide one event against one channel's filter set. Pure: counters are only reported."""
    return decide_compiled(compile_filters(filters, collation), event)


# --- state level ----------------------------------------------------------------------------


class UnknownChannelError(ValueError):
    """An event names a channel the replica does not have."""

    def __init__(self, channel: str):
        self.channel = channel
        super().__init__(f"event for channel {channel!r}, which does not exist on this replica")


def channel_filters(state: ReplicaState, channel: str) -> FilterSet:
    """The filter set that decides a channel's events.

    Choice (MySQL cannot say, since an unconfigured channel receives no events): a channel that
    exists but is not configured never holds rules of its own (CHANGE REPLICATION FILTER refuses
    it, startup discards its per-channel rules), and the moment CHANGE REPLICATION SOURCE
    configures it, it receives the global rules. Its events are therefore decided with the global
    rules — the answer it will give once it can receive events — so that a fresh replica started
    with ``--replicate-*`` options answers as a single-source replica does. Its counters do not
    move (it has no P_S rows).
    """
    found = state.channel(channel)
    if found is None:
        raise UnknownChannelError(channel)
    if not found.configured and not found.is_group_replication:
        return found.filters.with_global_copy(state.global_filters, 0)
    return found.filters



def with_counts(
    state: ReplicaState,
    counts: Mapping[str, Mapping[FilterType, int]],
    decided_with: ReplicaState | None = None,
) -> ReplicaState:
    """Move each channel's COUNTERs by the given increments (channel name -> type -> n).

    ``decided_with`` is the state the events were decided with, when ``state`` may have changed
    since (a stream's batch runs while statements run): an increment then moves a counter only
    if that channel's type still has the rules and statistics it was decided with, since CHANGE
    REPLICATION FILTER resets a type's counter (mysql-filter-statements.md, section 4.2) and RESET
    REPLICA ALL removes the channel (section 4.6). Without it, an unknown channel is an error.
    """
    for name, increments in counts.items():
        if not any(increments.values()):
            continue
        channel = state.channel(name)
        if decided_with is not None:
            before = decided_with.channel(name)
            if before is None or channel is None:
                continue
            increments = {
                ftype: n for ftype, n in increments.items() if n and _same_slot(before.filters[ftype], channel.filters[ftype])
            }
            if not increments:
                continue
        if channel is None:
            raise UnknownChannelError(name)
        if not channel.configured:
            continue  # decided with the global rules (see channel_filters); no applier counts
        state = state.with_channel(replace(channel, filters=channel.filters.with_counts(dict(increments))))
    return state


def _counted_on(channel: Channel | None, decision: Decision) -> Decision:
    """``decision`` as its channel reports it: an unconfigured channel has no applier and no
    P_S rows (mysql-filter-statements.md, 5.1 step 3), so nothing it decides moves a counter,
    and the decision says so (``increments`` are what the event adds to the channel's COUNTERs)."""
    if channel is not None and not channel.configured and decision.increments:
        return replace(decision, increments=_NO_COUNTS)
    return decision


def _same_slot(a: TypeSlot, b: TypeSlot) -> bool:
    """The same rules set by the same statement at the same time: the counter is the same one."""
    return (a.rules, a.configured_by, a.active_since) == (b.rules, b.configured_by, b.active_since)


def apply_event(state: ReplicaState, event: Event) -> tuple[Decision, ReplicaState]:
    """Decide ``event`` on its channel and return the state with that channel's counters moved."""
    decision = _counted_on(state.channel(event.channel), decide(channel_filters(state, event.channel), state.collation, event))
    if decision.increments:
        state = with_counts(state, {event.channel: decision.increments})
    return decision, state


def apply_events(state: ReplicaState, events: Iterable[Event]) -> tuple[list[Decision], ReplicaState]:
    """Decide a batch in order; counters of all events are moved once at the end (same result
    as applying one by one, since decisions never depend on counters)."""
    evaluator = Evaluator(state)
    decisions = evaluator.decide_all(events)
    return decisions, evaluator.state()


# --- memoising evaluator ------------------------------------------------------------------

DecisionKey = tuple
"""``(channel, kind, command, db, tables)`` — see :func:`decision_key`."""


def decision_key(event: Event) -> DecisionKey:
    """The small key a decision depends on; events with equal keys get equal decisions.

    * query: ``(channel, "query", command, default_db, tables)`` where ``command`` is the
      command kind's value, with ``"+TEMPORARY_IF_EXISTS"`` appended for a DROP TABLE that has
      both flags (the one flag combination that changes decisions), and ``tables`` is a tuple of
      ``(db or None, table, updating)`` triples in statement order;
    * row: ``(channel, "row", "", db, table)``;
    * transaction: ``(channel, "transaction", kind, "", "")``.

    The SQL text and GTID are not part of it. Names are not case-folded: a cache is per
    evaluator, hence per ``lower_case_table_names``.
    """
    if type(event) is RowEvent:
        return (event.channel, "row", "", event.db, event.table)
    if type(event) is QueryEvent:
        command = event.command._value_
        if event.temporary and event.if_exists and event.command is CommandKind.DROP_TABLE:
            command += "+TEMPORARY_IF_EXISTS"
        tables = tuple([(t.db, t.table, t.updating) for t in event.tables])
        return (event.channel, "query", command, event.default_db, tables)
    if type(event) is TransactionEvent:
        return (event.channel, "transaction", event.kind._value_, "", "")
    raise TypeError(f"not an event: {event!r}")


class Evaluator:
    """Decides events against a replica state, memoising one decision per :func:`decision_key`.

    Counters accumulate inside the evaluator (as a count of events per key); :meth:`state`
    returns the starting state with them moved, :meth:`counters` the increments per channel.
    ``memoise=False`` decides every event afresh (same results; used to measure the gain).
    """

    def __init__(self, state: ReplicaState, memoise: bool = True):
        self._state = state
        self._memoise = memoise
        self._compiled = {ch.name: compile_filters(channel_filters(state, ch.name), state.collation) for ch in state.channels}
        # key -> [decision, times seen]
        self._cache: dict[DecisionKey, list] = {}
        self._uncached: dict[str, dict[FilterType, int]] = {}

    def decide(self, event: Event) -> Decision:
        if self._memoise:
            key = decision_key(event)
            entry = self._cache.get(key)
            if entry is None:
                entry = self._cache[key] = [self._decide_fresh(event), 0]
            entry[1] += 1
            return entry[0]
        decision = self._decide_fresh(event)
        if decision.increments:
            totals = self._uncached.setdefault(event.channel, {})
            for ftype, n in decision.increments.items():
                totals[ftype] = totals.get(ftype, 0) + n
        return decision

    def compiled(self, channel: str) -> CompiledFilters:
        """The filters ``channel`` decides with (UnknownChannelError for a channel the replica
        does not have)."""
        compiled = self._compiled.get(channel)
        if compiled is None:
            raise UnknownChannelError(channel)
        return compiled

    def _decide_fresh(self, event: Event) -> Decision:
        return _counted_on(self._state.channel(event.channel), decide_compiled(self.compiled(event.channel), event))

    def decide_all(self, events: Iterable[Event]) -> list[Decision]:
        """Decide many events; the hot loop of the benchmark, kept free of per-call overhead."""
        if not self._memoise:
            return [self.decide(event) for event in events]
        cache = self._cache
        key_of = decision_key
        row = RowEvent
        out: list[Decision] = []
        append = out.append
        for event in events:
            # decision_key inlined for row events, the bulk of a stream
            key = (event.channel, "row", "", event.db, event.table) if type(event) is row else key_of(event)
            entry = cache.get(key)
            if entry is None:
                entry = cache[key] = [self._decide_fresh(event), 0]
            entry[1] += 1
            append(entry[0])
        return out

    @property
    def distinct_keys(self) -> int:
        return len(self._cache)

    def counters(self) -> dict[str, dict[FilterType, int]]:
        """Counter increments so far, per channel name and filter type."""
        totals: dict[str, dict[FilterType, int]] = {
            name: dict(counts) for name, counts in self._uncached.items()
        }
        for key, (decision, seen) in self._cache.items():
            if decision.increments:
                per_channel = totals.setdefault(key[0], {})
                for ftype, n in decision.increments.items():
                    per_channel[ftype] = per_channel.get(ftype, 0) + n * seen
        return totals

    def state(self) -> ReplicaState:
        """The starting state with every decided event's counters moved."""
        return with_counts(self._state, self.counters())


@dataclass(frozen=True)
class TransactionOutcome:
    """What became of one GTID transaction (mysql-filter-evaluation.md, section 3.6): the GTID is always consumed;
    the transaction is *empty* when none of its content events was applied. ``xa_filtered``
    marks an XA transaction a filter hit: MySQL reports ER_XA_REPLICATION_FILTERS there and its
    data outcome is unsupported (mysql-filter-evaluation.md, section 10, checklist item 78) — callers should treat it as an error case."""

    channel: str
    gtid: str | None
    applied: int
    skipped: int
    xa: bool = False

    @property
    def empty(self) -> bool:
        return self.applied == 0

    @property
    def xa_filtered(self) -> bool:
        return self.xa and self.skipped > 0


def transaction_outcomes(events: Sequence[Event], decisions: Sequence[Decision]) -> list[TransactionOutcome]:
    """Group a decided stream into GTID transactions, per channel: each GTID (or anonymous
    GTID) event opens one that lasts until the channel's next GTID event. Boundaries and
    session-context events (INTVAR, RAND, USER_VAR) are not content."""
    groups: list[list] = []
    open_: dict[str, list] = {}
    for event, decision in zip(events, decisions):
        if isinstance(event, TransactionEvent):
            if event.kind.value in ("GTID", "ANONYMOUS_GTID"):
                open_[event.channel] = [event.channel, event.gtid, 0, 0, False]
                groups.append(open_[event.channel])
            continue
        current = open_.get(event.channel)
        if current is None:
            continue
        if isinstance(event, QueryEvent) and event.command in BOUNDARY_COMMANDS:
            current[4] = current[4] or event.command is CommandKind.XA_START
            continue
        current[2 if decision.applied else 3] += 1
    return [TransactionOutcome(*fields_) for fields_ in groups]


def decide_batch(
    filters: FilterSet, collation: NameCollation, events: Sequence[Event]
) -> list[Decision]:
    """Decide many events against one filter set (no state, no channel lookup)."""
    compiled = compile_filters(filters, collation)
    return [decide_compiled(compiled, event) for event in events]
