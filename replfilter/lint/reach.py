"""What a channel's rules let through, database by database, without a schema.

mysql-filter-evaluation.md, section 3.1: a row event's database passes the database rules
first (``DB_OK``), then its table the table rules (``TABLES_OK``). So a database that the
database rules pass can still have nothing applied (every table falls to the default skip,
because do rules exist and none names a table of it), and a table rule whose database part no
passing database can fill never matches (Bug #12209: ``--replicate-do-db=test
--replicate-wild-do-table=cache%.%``). This module answers both questions for literal database
names and for wild database parts (``cache%``, ``db_``, ``%``); the checks and the checking of
fixes (:mod:`.checks_reach`) read it.
"""

from __future__ import annotations

from ..core.filters import FilterType, NameCollation
from .context import View
from .patterns import escape_like, tokens

FT = FilterType


def _units(text: str, collation: NameCollation) -> list[str]:
    """What one ``_`` consumes: a byte under lower_case_table_names=0, else a character
    (mysql-filter-evaluation.md, section 4)."""
    key = collation.key(text)
    if collation.case_insensitive:
        return list(key)
    return [chr(b) for b in key.encode("utf-8")]


def can_match_db(pattern: str, db: str, collation: NameCollation) -> bool:
    """True when ``pattern`` matches some ``db.table`` (a non-empty table name): the pattern
    can consume ``db.`` from its start and still has something left for the table. ``%`` may
    span the dot, as the server's LIKE does, so ``%.orders`` and ``%`` can match any database."""
    toks: list[tuple[str, str]] = []
    for kind, ch in tokens(collation.key(pattern)):
        if kind == "lit":
            toks.extend(("lit", unit) for unit in _units(ch, collation))
        else:
            toks.append((kind, ch))
    states = {0}
    for unit in _units(db + ".", collation):
        following: set[int] = set()
        for state in _closure(states, toks):
            if state >= len(toks):
                continue
            kind, ch = toks[state]
            if kind == "any":
                following.add(state)
            elif kind == "one" or ch == unit:
                following.add(state + 1)
        states = following
        if not states:
            return False
    # Something must be left for the table name: a token not yet consumed, or a ``%`` in use.
    return any(state < len(toks) for state in _closure(states, toks))


def _closure(states: set[int], toks: list[tuple[str, str]]) -> set[int]:
    """States plus those reached by letting a ``%`` match nothing."""
    out = set(states)
    stack = list(states)
    while stack:
        state = stack.pop()
        if state < len(toks) and toks[state][0] == "any" and state + 1 not in out:
            out.add(state + 1)
            stack.append(state + 1)
    return out


def db_exclusion(view: View, db: str) -> str | None:
    """Why the database rules exclude ``db`` (table A of mysql-filter-evaluation.md section
    3.3), or None when they pass it."""
    if view.rules(FT.DO_DB):
        if view.key(db) not in view.keys(FT.DO_DB):
            return f"'{db}' is not in REPLICATE_DO_DB"
        return None
    if view.key(db) in view.keys(FT.IGNORE_DB):
        return f"'{db}' is in REPLICATE_IGNORE_DB"
    return None


def wild_db_exclusion(view: View, pattern: str) -> str | None:
    """Why no database a wild pattern's database part can match passes REPLICATE_DO_DB, or
    None when one can (or when there is no do-db: ignore-db excludes only the names it lists,
    and a wild database part names others too)."""
    from .patterns import literal_prefix

    do_db = [str(r) for r in view.rules(FT.DO_DB)]
    prefix = view.key(literal_prefix(pattern))
    if not do_db or any(can_match_db(pattern, db, view.collation) for db in do_db
                        if view.key(db + ".").startswith(prefix) or prefix.startswith(view.key(db + "."))):
        return None
    listed = ", ".join(repr(db) for db in do_db[:5]) + (f" and {len(do_db) - 5} more" if len(do_db) > 5 else "")
    return f"its database part matches no database of REPLICATE_DO_DB ({listed}), and only those pass"


def _do_table_dbs(view: View) -> frozenset[str]:
    """Collation keys of every database a REPLICATE_DO_TABLE rule names a table of. The whole
    rule is the key (mysql-filter-evaluation.md, section 1): ``a.b.c`` names a table of ``a``
    and one of ``a.b``, so each text before a dot counts. Cached per view."""
    found = view._keys.get("do-table-dbs")
    if found is None:
        dbs: set[str] = set()
        for rule in view.rules(FT.DO_TABLE):
            key = view.key(str(rule))
            start = key.find(".")
            while 0 <= start < len(key) - 1:
                dbs.add(key[:start])
                start = key.find(".", start + 1)
        found = view._keys["do-table-dbs"] = frozenset(dbs)
    return found


def table_rules_admit(view: View, db: str) -> bool:
    """True when the table rules apply some table of ``db`` (a database the database rules
    pass): with do rules, one of them must name a table of it (an exact rule, or a wild
    pattern that can match ``db.``); without, no wild-ignore pattern may take the whole
    database (``db.%``, ``%.%``). An exact ignore rule names one table, so some other is left."""
    do_tables, wild_do = view.rules(FT.DO_TABLE), view.rules(FT.WILD_DO_TABLE)
    if do_tables or wild_do:
        if view.key(db) in _do_table_dbs(view):
            return True
        return any(can_match_db(p, db, view.collation) for p in _prefix_compatible(view, FT.WILD_DO_TABLE, db))
    return view.wild_index(FT.WILD_IGNORE_TABLE).first_cover(escape_like(db) + ".%") is None


def _prefix_compatible(view: View, ftype: FilterType, db: str) -> list[str]:
    """The type's patterns whose literal prefix agrees with ``db.`` as far as both go: only
    those can match a table of ``db`` (the rest are ruled out without running the NFA)."""
    from .patterns import literal_prefix

    subject = view.key(db + ".")
    out = []
    for pattern in view.wild_index(ftype).patterns:
        prefix = view.key(literal_prefix(pattern))
        if subject.startswith(prefix) or prefix.startswith(subject):
            out.append(pattern)
    return out


def nothing_applied(view: View, db: str, dropped_on_purpose: bool = True) -> str | None:
    """Why no event of database ``db`` (as the replica sees it, after any rewrite) is applied
    for row events, or None when some can be. ``dropped_on_purpose`` False leaves out the
    databases an ignore rule names (REPLICATE_IGNORE_DB, a wild-ignore pattern taking it
    whole): the writer asked for that."""
    excluded = db_exclusion(view, db)
    if excluded is not None:
        return excluded if dropped_on_purpose or view.rules(FT.DO_DB) else None
    if table_rules_admit(view, db):
        return None
    if view.rules(FT.DO_TABLE) or view.rules(FT.WILD_DO_TABLE):
        return (f"'{db}' passes the database rules, but no REPLICATE_DO_TABLE or REPLICATE_WILD_DO_TABLE "
                f"rule names a table of it, so each of its tables falls to the default: skipped")
    return f"a REPLICATE_WILD_IGNORE_TABLE pattern takes every table of '{db}'" if dropped_on_purpose else None


def excluded_table_rules(view: View) -> list[tuple[FilterType, str, str | None, str]]:
    """Every table rule the database rules keep from ever matching a row event, as (type, rule,
    its literal database or None for a wild database part, why). A literal database is
    excluded by do-db or ignore-db; a wild database part only by do-db, when no do-db name can
    fill it (``cache%.%`` next to do-db ``test``; ``shop_eu.%`` next to do-db ``billing``)."""
    from .patterns import literal_db

    if not view.rules(FT.DO_DB) and not view.rules(FT.IGNORE_DB):
        return []
    out: list[tuple[FilterType, str, str | None, str]] = []
    for ftype in (FT.DO_TABLE, FT.IGNORE_TABLE, FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE):
        wild = ftype in (FT.WILD_DO_TABLE, FT.WILD_IGNORE_TABLE)
        for rule in map(str, view.rules(ftype)):
            db = literal_db(rule) if wild else rule.partition(".")[0]
            if db is not None:
                reason = db_exclusion(view, db)
            else:
                reason = wild_db_exclusion(view, rule)
            if reason is not None:
                out.append((ftype, rule, db, reason))
    return out


def empty_databases(view: View) -> list[tuple[FilterType, object, str, str]]:
    """Databases the configuration names for replication that get nothing applied, as (the
    type and rule that names it, the database as the replica sees it, why): each
    REPLICATE_DO_DB name, the literal database of each do-table / wild-do rule that the
    database rules drop, and each rewrite target that do-db or the do rules leave out (every
    event of its source is then lost; an ignore rule on the target says the loss is meant).
    A rewrite from a name a database rule also names is RF102's, not listed here."""
    out: list[tuple[FilterType, object, str, str]] = []
    sources = {view.key(src) for src, _dst in view.rules(FT.REWRITE_DB)}  # type: ignore[misc]
    targets = {view.key(dst) for _src, dst in view.rules(FT.REWRITE_DB)}  # type: ignore[misc]
    for rule in view.rules(FT.DO_DB):
        if view.key(str(rule)) in sources and view.key(str(rule)) not in targets:
            continue  # no event arrives under that name: RF102
        reason = nothing_applied(view, str(rule))
        if reason is not None:
            out.append((FT.DO_DB, rule, str(rule), reason))
    for ftype, rule, db, why in excluded_table_rules(view):
        if ftype in (FT.DO_TABLE, FT.WILD_DO_TABLE) and db is not None and not _spelled_otherwise(view, db):
            out.append((ftype, rule, db, why))  # a do rule on a database the database rules drop
    named = view.keys(FT.DO_DB) | view.keys(FT.IGNORE_DB)
    seen: set[str] = set()
    for rule in view.rules(FT.REWRITE_DB):
        source, target = rule  # type: ignore[misc]
        if view.key(source) in seen or view.key(source) in named:
            continue  # a later rule from the same name never runs; RF102 says more
        seen.add(view.key(source))
        reason = nothing_applied(view, target, dropped_on_purpose=False)
        if reason is not None:
            out.append((FT.REWRITE_DB, rule, target, reason))
    return out


def _spelled_otherwise(view: View, db: str) -> bool:
    """Under lower_case_table_names=0, a database rule naming ``db`` in other letter case: then
    the finding is RF304's (which spelling is right needs the schema)."""
    from ..core.filters import fold_case

    if view.collation.case_insensitive:
        return False
    return any(str(r) != db and fold_case(str(r)) == fold_case(db) for t in (FT.DO_DB, FT.IGNORE_DB) for r in view.rules(t))


def problems(view: View) -> set[tuple]:
    """The identities of what :func:`excluded_table_rules` and :func:`empty_databases` find,
    and of values with a comma (RF101): a fix is offered only if it adds none of these
    (``checks_reach.offered``)."""
    found: set[tuple] = {("RF301", ftype, view.key(rule)) for ftype, rule, _db, _why in excluded_table_rules(view)}
    for ftype in FilterType:  # a comma in a value is one name with a comma in it (RF101)
        found.update(("RF101", ftype, rule) for rule in view.rules(ftype) if "," in "".join(rule if isinstance(rule, tuple) else (str(rule),)))
    for ftype, rule, _db, _why in empty_databases(view):
        found.add(("RF305", ftype, tuple(map(view.key, rule)) if isinstance(rule, tuple) else view.key(str(rule))))
    return found
