"""The schema catalog of one server: databases, tables and views (with their columns), triggers,
stored routines and events.

A replica's outcome depends on objects, not only on rules: which table owns a column in a
multi-table UPDATE's ``SET``, which table a ``DROP TRIGGER`` names, whether a table the applier
touches exists at all (mysql-filter-evaluation.md, step 5 and the "objects on the replica" rows).
This module holds those objects and nothing else: reading DDL into a catalog is the job of the
evaluation layer (``replfilter.evaluation.catalog.ddl`` and ``catalog.loader``), so this module stays
pure and imports no SQL parser.

Names compare as the server compares them:

- databases, tables, views and triggers by ``lower_case_table_names`` (:class:`NameCollation`);
  with ``lower_case_table_names=1`` the server also *stores* them lower-cased, which is what
  ``SHOW`` prints (:meth:`Catalog.stored_name`);
- columns, stored routines and events case-insensitively on every platform (MySQL manual,
  "Identifier Case Sensitivity").

Everything is immutable. A change returns a new catalog that shares every untouched database with
the old one, so applying one event to a 50,000-table catalog copies one database's tables, not all
of them. Bulk loading goes through :class:`CatalogBuilder`, which mutates in place and freezes once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from ..core.filters import NameCollation, fold_case

_EMPTY: Mapping = MappingProxyType({})


@dataclass(frozen=True)
class ForeignKey:
    """A ``FOREIGN KEY (columns) REFERENCES db.table (columns)`` constraint of a table: the
    server needs the referenced table to create the table (1824) and to add or change a child
    row (1452). ``name`` is the constraint's, or InnoDB's ``<table>_ibfk_<n>`` when unnamed."""

    name: str
    columns: tuple[str, ...]
    ref_db: str
    ref_table: str
    ref_columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableDef:
    """A base table or a view. ``db`` and ``name`` are as written in the DDL."""

    db: str
    name: str
    columns: tuple[str, ...]     # definition order, as written
    is_view: bool = False
    base_tables: tuple[tuple[str, str], ...] = ()   # a view's (db, table) sources
    foreign_keys: tuple[ForeignKey, ...] = ()       # a base table's, in definition order

    def column(self, name: str) -> str | None:
        """The column's spelling in the definition, or None. Column names are case-insensitive
        on every platform, whatever ``lower_case_table_names`` says."""
        wanted = fold_case(name)
        for column in self.columns:
            if fold_case(column) == wanted:
                return column
        return None

    def has_column(self, name: str) -> bool:
        return self.column(name) is not None


@dataclass(frozen=True)
class TriggerDef:
    """A trigger; ``table`` is in the trigger's database (MySQL allows no other)."""

    db: str
    name: str
    table: str                   # the trigger's table, in the trigger's database
    timing: str = ""             # BEFORE / AFTER ("" when not known)
    event: str = ""              # INSERT / UPDATE / DELETE
    statement: str = ""          # the trigger body as written
    definer: str | None = None   # user@host, None when the DDL named none


class RoutineKind:
    """The kinds of named program objects a schema holds besides tables and triggers."""

    PROCEDURE = "PROCEDURE"
    FUNCTION = "FUNCTION"
    EVENT = "EVENT"
    ALL = (PROCEDURE, FUNCTION, EVENT)


@dataclass(frozen=True)
class RoutineDef:
    """A stored procedure, stored function or event (names case-insensitive everywhere)."""

    db: str
    name: str
    kind: str                    # RoutineKind.PROCEDURE / FUNCTION / EVENT


@dataclass(frozen=True)
class DatabaseDef:
    """One database and what it holds, each mapping keyed by the compared form of the name."""

    name: str
    tables: Mapping[str, TableDef] = field(default_factory=lambda: _EMPTY, hash=False)
    triggers: Mapping[str, TriggerDef] = field(default_factory=lambda: _EMPTY, hash=False)
    routines: Mapping[tuple[str, str], RoutineDef] = field(default_factory=lambda: _EMPTY, hash=False)


@dataclass(frozen=True)
class Catalog:
    """Databases, tables/views and triggers of one server; names compared as the server's
    lower_case_table_names says (NameCollation from replfilter.core.filters).

    An empty catalog means "this server has no objects"; "unknown" is expressed by having no
    catalog at all (``None`` in :class:`~replfilter.replica.state.ReplicaState`).
    """

    collation: NameCollation = field(default_factory=NameCollation)
    _databases: Mapping[str, DatabaseDef] = field(default_factory=lambda: _EMPTY, repr=False, hash=False)

    # ---- names -------------------------------------------------------------------------------

    def key(self, name: str) -> str:
        """The form in which a database, table or trigger name is compared."""
        return self.collation.key(name)

    def stored_name(self, name: str) -> str:
        """The name as the server stores and shows it: lower-cased under
        ``lower_case_table_names=1``, as written otherwise."""
        return fold_case(name) if self.collation.lower_case_table_names == 1 else name

    def _sort_key(self, name: str) -> tuple[str, bytes]:
        """SHOW DATABASES / SHOW TABLES order: information_schema sorts names with the name
        collation (utf8mb3_bin under lower_case_table_names=0, utf8mb3_tolower_ci otherwise)."""
        return (self.key(name), name.encode("utf-8"))

    # ---- the contract ------------------------------------------------------------------------

    def has_database(self, db: str) -> bool:
        return self.key(db) in self._databases

    def databases(self) -> tuple[str, ...]:
        """Database names as the server stores them, in SHOW DATABASES order."""
        names = (self.stored_name(d.name) for d in self._databases.values())
        return tuple(sorted(names, key=self._sort_key))

    def database(self, db: str) -> DatabaseDef | None:
        return self._databases.get(self.key(db))

    def table(self, db: str, name: str) -> TableDef | None:
        database = self._databases.get(self.key(db))
        return None if database is None else database.tables.get(self.key(name))

    def tables(self, db: str) -> tuple[TableDef, ...]:
        """The database's tables and views in SHOW TABLES order (empty when it does not exist)."""
        database = self._databases.get(self.key(db))
        if database is None:
            return ()
        return tuple(sorted(database.tables.values(), key=lambda t: self._sort_key(t.name)))

    def trigger(self, db: str, name: str) -> TriggerDef | None:
        database = self._databases.get(self.key(db))
        return None if database is None else database.triggers.get(self.key(name))

    def triggers(self, db: str) -> tuple[TriggerDef, ...]:
        """The database's triggers, ordered by name (SHOW TRIGGERS has its own order:
        :meth:`triggers_as_created`)."""
        database = self._databases.get(self.key(db))
        if database is None:
            return ()
        return tuple(sorted(database.triggers.values(), key=lambda t: self._sort_key(t.name)))

    def triggers_as_created(self, db: str) -> tuple[TriggerDef, ...]:
        """The database's triggers in the order they were created: the data dictionary's
        action order among the triggers of one table, event and timing."""
        database = self._databases.get(self.key(db))
        return () if database is None else tuple(database.triggers.values())

    # ---- more than the contract --------------------------------------------------------------

    def routine(self, db: str, name: str, kind: str) -> RoutineDef | None:
        database = self._databases.get(self.key(db))
        return None if database is None else database.routines.get((kind, fold_case(name)))

    def routines(self, db: str) -> tuple[RoutineDef, ...]:
        database = self._databases.get(self.key(db))
        if database is None:
            return ()
        return tuple(sorted(database.routines.values(), key=lambda r: (r.kind, fold_case(r.name))))

    def triggers_on(self, db: str, table: str) -> tuple[TriggerDef, ...]:
        """The triggers defined on one table (they go when the table goes)."""
        wanted = self.key(table)
        return tuple(t for t in self.triggers(db) if self.key(t.table) == wanted)

    @property
    def table_count(self) -> int:
        return sum(len(d.tables) for d in self._databases.values())

    def __len__(self) -> int:
        return len(self._databases)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Catalog):
            return NotImplemented
        return self.collation == other.collation and dict(self._databases) == dict(other._databases)

    def __hash__(self) -> int:
        return hash((self.collation, len(self._databases)))

    # ---- changes (each returns a new catalog) ------------------------------------------------

    def _changed(self, change) -> "Catalog":
        builder = CatalogBuilder(self)
        change(builder)
        return builder.freeze()

    def with_database(self, db: str) -> "Catalog":
        """Adds an empty database; an existing one is kept as it is."""
        return self if self.has_database(db) else self._changed(lambda b: b.add_database(db))

    def without_database(self, db: str) -> "Catalog":
        return self._changed(lambda b: b.drop_database(db))

    def with_table(self, table: TableDef) -> "Catalog":
        """Adds or replaces a table or view; its database is created if missing."""
        return self._changed(lambda b: b.put_table(table))

    def without_table(self, db: str, name: str) -> "Catalog":
        """Drops a table or view and the triggers on it (as DROP TABLE does)."""
        return self._changed(lambda b: b.drop_table(db, name))

    def with_trigger(self, trigger: TriggerDef) -> "Catalog":
        return self._changed(lambda b: b.put_trigger(trigger))

    def without_trigger(self, db: str, name: str) -> "Catalog":
        return self._changed(lambda b: b.drop_trigger(db, name))

    def with_routine(self, routine: RoutineDef) -> "Catalog":
        return self._changed(lambda b: b.put_routine(routine))

    def without_routine(self, db: str, name: str, kind: str) -> "Catalog":
        return self._changed(lambda b: b.drop_routine(db, name, kind))

    def all_tables(self) -> Iterable[TableDef]:
        for database in self._databases.values():
            yield from database.tables.values()

    def all_triggers(self) -> Iterable[TriggerDef]:
        for database in self._databases.values():
            yield from database.triggers.values()

    def all_routines(self) -> Iterable[RoutineDef]:
        for database in self._databases.values():
            yield from database.routines.values()

    def all_databases(self) -> Iterable[DatabaseDef]:
        return iter(self._databases.values())

    @classmethod
    def empty(cls, collation: NameCollation | None = None) -> "Catalog":
        return cls(collation or NameCollation())


class CatalogBuilder:
    """A mutable catalog for loading and applying DDL: a schema file adds tens of thousands of
    objects, and copying a mapping per object would make loading quadratic. A database's mappings
    are copied the first time it changes (copy on write), so building from a large catalog and
    changing one table costs one database, not the whole schema. ``freeze`` hands the result
    over as an ordinary immutable :class:`Catalog`, sharing every database that did not change."""

    def __init__(self, start: Catalog | None = None, collation: NameCollation | None = None) -> None:
        start = start if start is not None else Catalog(collation or NameCollation())
        self.collation = start.collation
        self._start = start
        self._frozen: dict[str, DatabaseDef] = dict(start._databases)   # untouched databases
        self._open: dict[str, _OpenDatabase] = {}                         # copied, changing

    # ---- reading -----------------------------------------------------------------------------

    def key(self, name: str) -> str:
        return self.collation.key(name)

    def has_database(self, db: str) -> bool:
        key = self.key(db)
        return key in self._open or key in self._frozen

    def database_name(self, db: str) -> str | None:
        key = self.key(db)
        if key in self._open:
            return self._open[key].name
        found = self._frozen.get(key)
        return None if found is None else found.name

    def _view(self, db: str) -> "DatabaseDef | _OpenDatabase | None":
        key = self.key(db)
        return self._open.get(key) or self._frozen.get(key)

    def table(self, db: str, name: str) -> TableDef | None:
        database = self._view(db)
        return None if database is None else database.tables.get(self.key(name))

    def tables(self, db: str) -> tuple[TableDef, ...]:
        database = self._view(db)
        return () if database is None else tuple(database.tables.values())

    def trigger(self, db: str, name: str) -> TriggerDef | None:
        database = self._view(db)
        return None if database is None else database.triggers.get(self.key(name))

    def routine(self, db: str, name: str, kind: str) -> RoutineDef | None:
        database = self._view(db)
        return None if database is None else database.routines.get((kind, fold_case(name)))

    def triggers_on(self, db: str, table: str) -> list[TriggerDef]:
        database = self._view(db)
        if database is None:
            return []
        key = self.key(table)
        return [t for t in database.triggers.values() if self.key(t.table) == key]

    # ---- changing ----------------------------------------------------------------------------

    def _opened(self, db: str) -> "_OpenDatabase":
        key = self.key(db)
        database = self._open.get(key)
        if database is None:
            frozen = self._frozen.pop(key, None)
            database = _OpenDatabase.of(frozen) if frozen is not None else _OpenDatabase(db, {}, {}, {})
            self._open[key] = database
        return database

    def add_database(self, db: str) -> None:
        self._opened(db)

    def drop_database(self, db: str) -> None:
        key = self.key(db)
        self._open.pop(key, None)
        self._frozen.pop(key, None)

    def put_table(self, table: TableDef) -> None:
        self._opened(table.db).tables[self.key(table.name)] = table

    def drop_table(self, db: str, name: str) -> None:
        """Drops a table or view and the triggers on it (as DROP TABLE does)."""
        if not self.has_database(db):
            return
        database = self._opened(db)
        key = self.key(name)
        database.tables.pop(key, None)
        for trigger_key, trigger in list(database.triggers.items()):
            if self.key(trigger.table) == key:
                del database.triggers[trigger_key]

    def put_trigger(self, trigger: TriggerDef) -> None:
        self._opened(trigger.db).triggers[self.key(trigger.name)] = trigger

    def drop_trigger(self, db: str, name: str) -> None:
        if self.has_database(db):
            self._opened(db).triggers.pop(self.key(name), None)

    def put_routine(self, routine: RoutineDef) -> None:
        self._opened(routine.db).routines[(routine.kind, fold_case(routine.name))] = routine

    def drop_routine(self, db: str, name: str, kind: str) -> None:
        if self.has_database(db):
            self._opened(db).routines.pop((kind, fold_case(name)), None)

    def freeze(self) -> Catalog:
        if not self._open:
            if self._frozen.keys() == self._start._databases.keys():
                return self._start
        databases = dict(self._frozen)
        for key, database in self._open.items():
            databases[key] = database.freeze()
        return Catalog(self.collation, MappingProxyType(databases))


@dataclass
class _OpenDatabase:
    """A database being changed by a :class:`CatalogBuilder` (plain dicts, copied once)."""

    name: str
    tables: dict[str, TableDef]
    triggers: dict[str, TriggerDef]
    routines: dict[tuple[str, str], RoutineDef]

    @classmethod
    def of(cls, database: DatabaseDef) -> "_OpenDatabase":
        return cls(database.name, dict(database.tables), dict(database.triggers), dict(database.routines))

    def freeze(self) -> DatabaseDef:
        return DatabaseDef(self.name, MappingProxyType(self.tables), MappingProxyType(self.triggers),
                           MappingProxyType(self.routines))
