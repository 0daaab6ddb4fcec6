"""The table statements of a DDL session: ``CREATE TABLE`` (columns, ``LIKE``, ``... SELECT``),
``ALTER TABLE`` (columns added, dropped, changed, renamed; the table renamed), ``RENAME TABLE``
and ``DROP TABLE/VIEW``, with the server's refusals.

Atomic DDL (8.0+): ``DROP TABLE a, missing`` and ``RENAME TABLE`` with a bad pair change nothing.
Choice (README, "Where replfilter chooses"): temporary tables are session objects and are not kept
(the dispatch in :mod:`.ddl` skips them).
"""

from __future__ import annotations

import re
from typing import Sequence

from ...core.filters import fold_case
from ...replica.catalog import ForeignKey, TableDef, TriggerDef
from .cursor import NeedAllTokens, StatementCursor
from .ddl_errors import (Refused, SqlSyntaxError, cant_drop_column, duplicate_column, no_such_table,
                            table_exists, too_many_columns, unknown_column, unknown_database, unknown_table,
                            wrong_object)
from .queries import table_columns
from .text import TABLE_ELEMENT_KEYWORDS, body_columns, find_column
from ..sql.tokens import SqlEventsError, Token, tokenize


class TableStatements(StatementCursor):
    """The statements that create, change, move and drop tables (and drop views)."""

    def create_table(self) -> None:
        quiet = self.if_not_exists()
        qualifier, name = self.qualified()
        db = self.existing_db(qualifier)
        if self.b.table(db, name) is not None:
            if not quiet:
                raise Refused(table_exists(name))
            return
        if self.word() == "LIKE" or (self.peek() is not None and self.peek().text == "(" and self.word(1) == "LIKE"):
            parens = self.accept_op("(")
            self.expect("LIKE")
            source_db, source = self.qualified()
            source_db = self.db_of(source_db)
            found = self.b.table(source_db, source)
            if found is None or found.is_view:
                raise Refused(no_such_table(source_db, source))
            if parens and not self.accept_op(")"):
                raise SqlSyntaxError
            self.b.put_table(TableDef(self.db_name(db), name, found.columns))
            return
        if self.body is not None:
            if not self.done:
                raise NeedAllTokens          # more than a name before the body: read it all
            columns = body_columns(self.sql[self.body:])
            if columns is None:
                raise NeedAllTokens          # LIKE, ... SELECT, comments: the full reading
        else:
            columns = table_columns(self.b, self.sql[self.tokens[0].start:], db)
        _check_column_count(len(columns), self.sql)
        keys = body_foreign_keys(self.sql[self.body:] if self.body is not None else self.sql, self.db_name(db), name)
        self.b.put_table(TableDef(self.db_name(db), name, columns, foreign_keys=keys))

    def alter_table(self) -> None:
        qualifier, name = self.qualified()
        db = self.db_of(qualifier)
        table = self.b.table(db, name)
        if table is None or table.is_view:
            raise Refused(no_such_table(db, name))
        columns = list(table.columns)
        keys = list(table.foreign_keys)
        new_db, new_name = db, name
        for action in _split_top_level(self.tokens[self.pos:]):
            words = [t.upper for t in action[:3]]
            if not words:
                continue
            if words[0] == "ADD":
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN":
                    rest = rest[1:]
                key = foreign_key(rest, table.db, table.name, _generated(keys, table.name) + 1)
                if key is not None:
                    keys.append(key)
                elif rest and rest[0].text == "(" and rest[0].kind == "op":
                    for element in _split_top_level(rest[1:-1]):
                        self._add(columns, element)
                elif rest and rest[0].upper not in TABLE_ELEMENT_KEYWORDS and rest[0].upper != "PARTITION":
                    self._add(columns, rest)
            elif words[0] == "DROP":
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN":
                    rest = rest[1:]
                elif len(rest) >= 3 and rest[0].upper == "FOREIGN" and rest[1].upper == "KEY":
                    keys = [k for k in keys if fold_case(k.name) != fold_case(rest[2].text)]
                    continue
                elif rest and rest[0].upper in TABLE_ELEMENT_KEYWORDS | {"PARTITION"}:
                    continue
                if not rest:
                    raise SqlSyntaxError
                if self._exists_if(rest):
                    rest = rest[2:]
                    index = find_column(columns, rest[0].text)
                    if index is not None:
                        del columns[index]
                    continue
                index = find_column(columns, rest[0].text)
                if index is None:
                    raise Refused(cant_drop_column(rest[0].text))
                del columns[index]
            elif words[0] in ("CHANGE", "MODIFY"):
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN":
                    rest = rest[1:]
                if not rest:
                    raise SqlSyntaxError
                old = rest[0].text
                index = find_column(columns, old)
                if index is None:
                    raise Refused(unknown_column(old, name))
                new = rest[1].text if words[0] == "CHANGE" and len(rest) > 1 else old
                del columns[index]
                if any(fold_case(new) == fold_case(c) for c in columns):
                    raise Refused(duplicate_column(new))
                columns.insert(_position(columns, rest, index), new)
            elif words[0] == "RENAME":
                rest = action[1:]
                if rest and rest[0].upper == "COLUMN" and len(rest) >= 4:
                    index = find_column(columns, rest[1].text)
                    if index is None:
                        raise Refused(unknown_column(rest[1].text, name))
                    if any(fold_case(rest[3].text) == fold_case(c) for i, c in enumerate(columns) if i != index):
                        raise Refused(duplicate_column(rest[3].text))
                    columns[index] = rest[3].text
                elif rest and rest[0].upper in ("INDEX", "KEY"):
                    continue
                else:
                    if rest and rest[0].upper in ("TO", "AS"):
                        rest = rest[1:]
                    if len(rest) >= 3 and rest[1].text == ".":
                        new_db, new_name = rest[0].text, rest[2].text
                    elif rest:
                        new_name = rest[0].text
                    if not self.b.has_database(new_db):
                        raise Refused(unknown_database(new_db))
                    clash = self.b.table(new_db, new_name)
                    if clash is not None and clash is not table:
                        raise Refused(table_exists(new_name))
        renamed = (self.b.key(new_db), self.b.key(new_name)) != (self.b.key(db), self.b.key(name))
        if renamed:
            self._move_table(table, new_db, new_name)
            table = self.b.table(new_db, new_name)
        if len(columns) > len(table.columns):
            _check_column_count(len(columns), self.sql)
        self.b.put_table(TableDef(table.db, table.name, tuple(columns), foreign_keys=tuple(keys)))

    @staticmethod
    def _exists_if(rest: Sequence[Token]) -> bool:
        return len(rest) >= 3 and rest[0].upper == "IF" and rest[1].upper == "EXISTS"

    @staticmethod
    def _add(columns: list[str], element: Sequence[Token]) -> None:
        """``ADD [COLUMN] [IF NOT EXISTS] name ... [FIRST | AFTER x]``; a key or index adds no column."""
        if not element:
            raise SqlSyntaxError
        if element[0].upper in TABLE_ELEMENT_KEYWORDS:
            return
        if element[0].upper == "IF" and len(element) > 3 and element[1].upper == "NOT":
            element = element[3:]
            if find_column(columns, element[0].text) is not None:
                return
        new = element[0].text
        if find_column(columns, new) is not None:
            raise Refused(duplicate_column(new))
        columns.insert(_position(columns, element, len(columns)), new)

    def _move_table(self, table: TableDef, new_db: str, new_name: str) -> None:
        """RENAME: the table moves with its triggers' table name updated (MySQL keeps triggers
        with their table, and refuses to move a table with triggers to another database)."""
        triggers = self.b.triggers_on(table.db, table.name)
        self.b.drop_table(table.db, table.name)
        self.b.put_table(TableDef(self.db_name(new_db), new_name, table.columns, table.is_view, table.base_tables, table.foreign_keys))
        for trigger in triggers:
            self.b.put_trigger(TriggerDef(trigger.db, trigger.name, new_name))

    def rename_tables(self) -> None:
        """``RENAME TABLE a TO b, c TO d``: all pairs or none."""
        pairs: list[tuple[tuple[str, str], tuple[str | None, str]]] = []
        while True:
            source = self.qualified()
            self.expect("TO")
            target = self.qualified()
            pairs.append((source, target))
            if not self.accept_op(","):
                break
        # checked in order against the catalog as each earlier pair left it; all or nothing
        undo: list[tuple[TableDef, str, str]] = []
        try:
            for (source_db, source), (target_db, target) in pairs:
                sdb, tdb = self.db_of(source_db), self.db_of(target_db)
                table = self.b.table(sdb, source)
                if table is None:
                    raise Refused(no_such_table(sdb, source))
                if not self.b.has_database(tdb):
                    raise Refused(unknown_database(tdb))
                if self.b.table(tdb, target) is not None:
                    raise Refused(table_exists(target))
                self._move_table(table, tdb, target)
                undo.append((table, tdb, target))
        except Refused:
            for table, tdb, target in reversed(undo):
                moved = self.b.table(tdb, target)
                self._move_table(moved, table.db, table.name)
            raise

    def drop_tables(self, view: bool) -> None:
        """``DROP TABLE``/``DROP VIEW`` of a list: every name checked before any is dropped."""
        quiet = self.if_exists()
        names: list[tuple[str, str]] = []
        while True:
            qualifier, name = self.qualified()
            names.append((self.db_of(qualifier), name))
            if not self.accept_op(","):
                break
        missing: list[str] = []
        for db, name in names:
            found = self.b.table(db, name)
            if found is not None and view and not found.is_view:
                raise Refused(wrong_object(db, name, "VIEW"))
            if found is None or (found.is_view and not view):
                missing.append(f"{db}.{name}")
        if missing and not quiet:
            raise Refused(unknown_table(",".join(missing)))
        for db, name in names:
            found = self.b.table(db, name)
            if found is not None and found.is_view == view:
                self.b.drop_table(db, name)


MAX_FIELDS = 4096
"""sql_table.cc, ``mysql_prepare_create_table``: no table has more columns, whatever its engine."""
INNODB_MAX_COLUMNS = 1017
"""InnoDB's ``REC_MAX_N_USER_FIELDS`` (1023 less its 6 system columns): 8.4's default engine
refuses a 1018th column with the same error (ha_innodb.cc, ``HA_ERR_TOO_MANY_FIELDS``)."""
_ENGINE = re.compile(r"\bENGINE\s*=\s*[`'\"]?(\w+)", re.IGNORECASE)


def _check_column_count(count: int, sql: str) -> None:
    """1117, ``Too many columns``: over 4,096 columns for any engine, over 1,017 for InnoDB (the
    default; a table whose ``ENGINE =`` names another engine keeps the server's own limit)."""
    engine = _ENGINE.search(sql)
    innodb = engine is None or engine.group(1).upper() == "INNODB"
    if count > MAX_FIELDS or (innodb and count > INNODB_MAX_COLUMNS):
        raise Refused(too_many_columns())


def _position(columns: Sequence[str], element: Sequence[Token], default: int) -> int:
    """Where ``FIRST`` / ``AFTER x`` at the end of a column definition puts it."""
    for i, tok in enumerate(element):
        if tok.upper == "FIRST" and i == len(element) - 1:
            return 0
        if tok.upper == "AFTER" and i == len(element) - 2:
            index = find_column(columns, element[i + 1].text)
            if index is None:
                raise Refused(unknown_column(element[i + 1].text, ""))
            return index + 1
    return default


def _split_top_level(tokens: Sequence[Token]) -> list[list[Token]]:
    """Split at commas outside parentheses."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.kind == "op" and tok.text == "(":
            depth += 1
        elif tok.kind == "op" and tok.text == ")":
            depth -= 1
        elif tok.kind == "op" and tok.text == "," and depth == 0:
            parts.append([])
            continue
        parts[-1].append(tok)
    return [p for p in parts if p]


def body_foreign_keys(body: str, db: str, table: str) -> tuple[ForeignKey, ...]:
    """The ``FOREIGN KEY ... REFERENCES`` constraints of a ``CREATE TABLE`` body (or statement),
    in definition order. Inline ``REFERENCES`` in a column definition is parsed and ignored by
    8.4, as the manual says, so only table constraints count. Unreadable text gives none."""
    if "FOREIGN" not in body.upper():
        return ()
    try:
        tokens, _ = tokenize(body)
    except SqlEventsError:
        return ()
    start = next((i for i, t in enumerate(tokens) if t.kind == "op" and t.text == "("), None)
    if start is None:
        return ()
    depth, end = 0, len(tokens)
    for i in range(start, len(tokens)):
        if tokens[i].kind == "op" and tokens[i].text in "()":
            depth += 1 if tokens[i].text == "(" else -1
            if depth == 0:
                end = i
                break
    keys: list[ForeignKey] = []
    for element in _split_top_level(tokens[start + 1:end]):
        key = foreign_key(element, db, table, _generated(keys, table) + 1)
        if key is not None:
            keys.append(key)
    return tuple(keys)


def foreign_key(element: Sequence[Token], db: str, table: str, number: int) -> ForeignKey | None:
    """``[CONSTRAINT [symbol]] FOREIGN KEY [index] (cols) REFERENCES [db.]t [(cols)] ...``, or
    None for any other table element. Unnamed, InnoDB names it ``<table>_ibfk_<number>``."""
    i, name = 0, None
    if i < len(element) and element[i].upper == "CONSTRAINT":
        i += 1
        if i < len(element) and element[i].is_name and element[i].upper != "FOREIGN":
            name = element[i].text
            i += 1
    if i + 1 >= len(element) or element[i].upper != "FOREIGN" or element[i + 1].upper != "KEY":
        return None
    i += 2
    if i < len(element) and element[i].is_name:
        i += 1  # the index name
    columns, i = _name_list(element, i)
    if i >= len(element) or element[i].upper != "REFERENCES" or i + 1 >= len(element):
        return None
    ref_db, ref_table = db, element[i + 1].text
    i += 2
    if i + 1 < len(element) and element[i].kind == "op" and element[i].text == "." and element[i + 1].is_name:
        ref_db, ref_table = ref_table, element[i + 1].text
        i += 2
    ref_columns, _ = _name_list(element, i)
    return ForeignKey(name or f"{table}_ibfk_{number}", columns, ref_db, ref_table, ref_columns)


def _generated(keys: Sequence[ForeignKey], table: str) -> int:
    """The highest ``<table>_ibfk_<n>`` number in use: InnoDB numbers unnamed constraints on."""
    prefix = fold_case(f"{table}_ibfk_")
    numbers = [int(k.name[len(prefix):]) for k in keys
               if fold_case(k.name).startswith(prefix) and k.name[len(prefix):].isdigit()]
    return max(numbers, default=0)


def _name_list(element: Sequence[Token], i: int) -> tuple[tuple[str, ...], int]:
    """``( a, b )`` at ``i``: the names (a key part's length or order ignored) and the position after."""
    if i >= len(element) or element[i].kind != "op" or element[i].text != "(":
        return (), i
    names: list[str] = []
    depth, expect = 0, True
    for j in range(i, len(element)):
        tok = element[j]
        if tok.kind == "op" and tok.text == "(":
            depth += 1
        elif tok.kind == "op" and tok.text == ")":
            depth -= 1
            if depth == 0:
                return tuple(names), j + 1
        elif tok.kind == "op" and tok.text == "," and depth == 1:
            expect = True
        elif expect and depth == 1 and tok.is_name:
            names.append(tok.text)
            expect = False
    return tuple(names), len(element)
