"""Which tables a multi-table UPDATE's ``SET`` assigns: the source's bitmap of updating tables.

The source resolves every ``SET`` column before it runs the statement and logs the tables it
assigns with the Query event (mysql-filter-evaluation.md, section 3.2, step 5); the replica's
table rules see only those tables as updating. The resolution is MySQL's
``find_field_in_tables`` (sql/sql_base.cc), over the statement's tables in join order:

* ``t.c`` / ``db.t.c``: the table whose alias is ``t`` (or the un-aliased table named ``t``);
  with the source's schema, a column it lacks is error 1054 (``Unknown column 't.c' in
  'field list'``);
* ``c``: every table is searched; a second table with ``c`` is error 1052 (``Column 'c' in
  field list is ambiguous``), none is error 1054. Without the schema the owner is *not known*:
  each table is a candidate (:attr:`~.events.TableRef.updating` ``None``), never a guess.

The tables are every leaf of the join tree, however nested (:func:`.tree.from_list`). A column
that may belong to a derived table (``JOIN (SELECT ...) AS q``) has no owner the schema can
name: it is left undecided rather than called unknown (the source may find it there).

A statement the source refuses is not logged at all, so the result then carries the error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from sqlglot import exp

from ...core.errors import ER, error_line
from ...replica.catalog import Catalog, TableDef
from .tree import derived_aliases, resolve_qualifier

WHERE = "field list"  # THD::DEFAULT_WHERE: where a SET column is resolved


@dataclass
class Assignment:
    """The outcome of resolving the SET list: tables assigned for certain (by ``id`` of their
    tree node), the candidate tables of each column whose owner is unknown, or the error the
    source refuses the statement with."""

    assigned: set[int] = field(default_factory=set)
    unknown: dict[str, list[int]] = field(default_factory=dict)
    error: str | None = None
    undecidable: list[str] = field(default_factory=list)  # SET items that are not columns

    def updating(self, ref: exp.Table) -> bool | None:
        if id(ref) in self.assigned:
            return True
        if any(id(ref) in candidates for candidates in self.unknown.values()):
            return None
        return False


def resolve_set_columns(
    tree: exp.Update, refs: Sequence[exp.Table], default_db: str, catalog: Catalog | None
) -> Assignment:
    """Resolve each ``SET`` column to its table (see the module docstring)."""
    result = Assignment()
    derived = {alias.lower() for alias in derived_aliases(tree.this)}
    for item in tree.expressions:
        column = item.this if isinstance(item, exp.EQ) else None
        if not isinstance(column, exp.Column):
            result.undecidable.append(item.sql("mysql"))
            continue
        name = column.name
        written = column.sql("mysql").replace("`", "")
        if column.table:
            found = resolve_qualifier(refs, column.text("db") or None, column.table, default_db)
            if not found and not column.text("db") and column.table.lower() in derived:
                result.undecidable.append(written)
                continue
            if len(found) != 1:
                if catalog is not None and not found:
                    result.error = error_line(ER.BAD_FIELD_ERROR, written, WHERE)
                    return result
                result.undecidable.append(written)
                continue
            definition = _definition(found[0], default_db, catalog)
            if catalog is not None and definition is None:  # the source lacks the table (1146)
                result.error = error_line(ER.NO_SUCH_TABLE, found[0].text("db") or default_db, found[0].name)
                return result
            if definition is not None and not definition.has_column(name):
                result.error = error_line(ER.BAD_FIELD_ERROR, written, WHERE)
                return result
            result.assigned.add(id(found[0]))
            continue
        if catalog is None:
            result.unknown[name] = [id(ref) for ref in refs]
            continue
        owners: list[exp.Table] = []
        unknown_tables: list[exp.Table] = []
        for ref in refs:
            definition = _definition(ref, default_db, catalog)
            if definition is None:
                unknown_tables.append(ref)
            elif definition.has_column(name):
                owners.append(ref)
        if len(owners) > 1:
            result.error = error_line(ER.NON_UNIQ_ERROR, name, WHERE)
            return result
        if derived and not unknown_tables:  # the column may be a derived table's
            result.undecidable.append(written)
            continue
        if unknown_tables:  # a table the schema lacks: the source refuses the statement (1146)
            missing = unknown_tables[0]
            result.error = error_line(ER.NO_SUCH_TABLE, missing.text("db") or default_db, missing.name)
            return result
        if not owners:
            result.error = error_line(ER.BAD_FIELD_ERROR, name, WHERE)
            return result
        result.assigned.add(id(owners[0]))
    return result


def _definition(ref: exp.Table, default_db: str, catalog: Catalog | None) -> TableDef | None:
    if catalog is None:
        return None
    return catalog.table(ref.text("db") or default_db, ref.name)
