"""The statements of a DDL session for the objects beside tables: views (``CREATE [OR REPLACE]
VIEW``, ``ALTER VIEW``), triggers, and the routines and events (``CREATE/DROP PROCEDURE``,
``FUNCTION``, ``EVENT``), with the server's refusals.

Choices (README, "Where replfilter chooses"): a view's columns are its select list's names (``*``
expanded from the catalog), its base tables the tables its query names; trigger, routine and event
bodies are kept as text, not read.
"""

from __future__ import annotations

from ...replica.catalog import RoutineDef, RoutineKind, TableDef, TriggerDef
from .cursor import StatementCursor
from .ddl_errors import (Refused, SqlSyntaxError, no_such_table, routine_exists, routine_missing, table_exists,
                            trigger_exists, trigger_missing, wrong_object)
from .queries import base_tables, parse, query_columns


class ObjectStatements(StatementCursor):
    """The statements that create, change and drop views, triggers, routines and events."""

    def create_view(self, or_replace: bool, must_exist: bool) -> None:
        qualifier, name = self.qualified()
        db = self.existing_db(qualifier)
        existing = self.b.table(db, name)
        if existing is not None and not existing.is_view:
            if or_replace or must_exist:
                raise Refused(wrong_object(db, name, "VIEW"))
            raise Refused(table_exists(name))
        if existing is not None and not (or_replace or must_exist):
            raise Refused(table_exists(name))
        if existing is None and must_exist:
            raise Refused(no_such_table(db, name))
        listed: list[str] = []
        if self.accept_op("("):
            while not self.accept_op(")"):
                listed.append(self.name())
                self.accept_op(",")
        self.expect("AS")
        query = parse(self.rest_text())
        if query is None:
            raise SqlSyntaxError
        columns = listed or query_columns(self.b, query, db)
        self.b.put_table(TableDef(self.db_name(db), name, tuple(columns), is_view=True,
                                  base_tables=base_tables(self.b, query, db)))

    def create_routine(self, what: str) -> None:
        """``CREATE PROCEDURE/FUNCTION/EVENT``; a loadable function (``RETURNS ... SONAME``) is
        no database object."""
        quiet = self.if_not_exists()
        db, name = self.qualified()
        if what == RoutineKind.FUNCTION and db is None and self.word() == "RETURNS":
            if any(t.upper == "SONAME" for t in self.tokens[self.pos:]):
                return
        database = self.existing_db(db)
        if self.b.routine(database, name, what) is not None:
            if not quiet:
                raise Refused(routine_exists(what, name))
            return
        self.b.put_routine(RoutineDef(self.db_name(database), name, what))

    def drop_routine(self, what: str) -> None:
        quiet = self.if_exists()
        qualifier, name = self.qualified()
        db = self.db_of(qualifier)
        if self.b.routine(db, name, what) is None:
            if not quiet:
                raise Refused(routine_missing(what, db, name))
            return
        self.b.drop_routine(db, name, what)

    def create_trigger(self) -> None:
        quiet = self.if_not_exists()
        qualifier, name = self.qualified()
        db = self.existing_db(qualifier)
        timing, event = self.word(), self.word(1)
        self.expect("BEFORE", "AFTER")
        self.expect("INSERT", "UPDATE", "DELETE")
        self.expect("ON")
        table_db, table_name = self.qualified()
        table_db = table_db or db
        table = self.b.table(table_db, table_name)
        if table is None:
            raise Refused(no_such_table(table_db, table_name))
        if table.is_view:
            raise Refused(wrong_object(table_db, table_name, "BASE TABLE"))
        if self.b.trigger(db, name) is not None:
            if not quiet:
                raise Refused(trigger_exists())
            return
        body = self._trigger_body()
        self.b.put_trigger(TriggerDef(self.db_name(db), name, table.name, timing, event, body, self.definer))

    def _trigger_body(self) -> str:
        """What follows ``FOR EACH ROW`` (and an optional FOLLOWS/PRECEDES other_trigger)."""
        self.expect("FOR")
        self.expect("EACH")
        self.expect("ROW")
        if self.accept("FOLLOWS", "PRECEDES"):
            self.name()
        return self.rest_text().strip()

    def drop_trigger(self) -> None:
        quiet = self.if_exists()
        qualifier, name = self.qualified()
        db = self.db_of(qualifier)
        if self.b.trigger(db, name) is None:
            if not quiet:
                raise Refused(trigger_missing())
            return
        self.b.drop_trigger(db, name)
