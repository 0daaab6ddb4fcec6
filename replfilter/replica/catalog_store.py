"""The replica's catalog in ``--datadir`` (``replica_catalog.json``), beside the channels.

A real replica keeps its tables across restarts, unlike its filters, which start-up options
rebuild; so the replica's catalog persists and the sources' catalogs (given again with
``--schema`` at each start) do not. The file is written atomically (temporary file, fsync,
rename) whenever the catalog changes; an unreadable or corrupt file is an error that names the
file and the reason, and is never overwritten. No file means "no schema known" (None).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.errors import MySQLError
from ..core.filters import NameCollation
from .atomic_file import write_atomically
from .stored_json import StoredFileError, read_stored_json
from .catalog import Catalog, CatalogBuilder, ForeignKey, RoutineDef, TableDef, TriggerDef

CATALOG_FILE = "replica_catalog.json"
TEMPORARY_PREFIX = ".replica_catalog."
CATALOG_FORMAT_VERSION = 1


class CatalogStoreError(ValueError):
    """The stored catalog cannot be read; the message names the file and the reason."""


def catalog_to_document(catalog: Catalog) -> dict[str, Any]:
    databases = []
    for database in sorted(catalog.all_databases(), key=lambda d: d.name):
        databases.append({
            "name": database.name,
            "tables": [
                {"name": t.name, "columns": list(t.columns), "is_view": t.is_view,
                 "base_tables": [list(pair) for pair in t.base_tables],
                 **({"foreign_keys": [{"name": k.name, "columns": list(k.columns), "ref_db": k.ref_db,
                                       "ref_table": k.ref_table, "ref_columns": list(k.ref_columns)}
                                      for k in t.foreign_keys]} if t.foreign_keys else {})}
                for t in sorted(database.tables.values(), key=lambda t: t.name)
            ],
            "triggers": [
                {"name": t.name, "table": t.table, "timing": t.timing, "event": t.event,
                 "statement": t.statement, "definer": t.definer}
                for t in database.triggers.values()   # creation order: SHOW TRIGGERS' action order
            ],
            "routines": [{"name": r.name, "kind": r.kind}
                         for r in sorted(database.routines.values(), key=lambda r: (r.kind, r.name))],
        })
    return {"version": CATALOG_FORMAT_VERSION, "databases": databases}


def catalog_from_document(document: Any, collation: NameCollation) -> Catalog:
    if not isinstance(document, dict) or document.get("version") != CATALOG_FORMAT_VERSION:
        raise ValueError(f"expected an object with \"version\": {CATALOG_FORMAT_VERSION}")
    builder = CatalogBuilder(collation=collation)
    for entry in document.get("databases", []):
        db = _text(entry, "name")
        builder.add_database(db)
        for table in entry.get("tables", []):
            builder.put_table(TableDef(
                db, _text(table, "name"), tuple(_texts(table.get("columns", []))),
                bool(table.get("is_view", False)),
                tuple((_texts(pair)[0], _texts(pair)[1]) for pair in table.get("base_tables", [])),
                tuple(ForeignKey(_text(k, "name"), tuple(_texts(k.get("columns", []))), _text(k, "ref_db"),
                                 _text(k, "ref_table"), tuple(_texts(k.get("ref_columns", []))))
                      for k in table.get("foreign_keys", [])),
            ))
        for trigger in entry.get("triggers", []):
            definer = trigger.get("definer")
            builder.put_trigger(TriggerDef(
                db, _text(trigger, "name"), _text(trigger, "table"), str(trigger.get("timing", "")),
                str(trigger.get("event", "")), str(trigger.get("statement", "")),
                definer if isinstance(definer, str) else None,
            ))
        for routine in entry.get("routines", []):
            builder.put_routine(RoutineDef(db, _text(routine, "name"), _text(routine, "kind")))
    return builder.freeze()


def _text(entry: Any, key: str) -> str:
    if not isinstance(entry, dict) or not isinstance(entry.get(key), str):
        raise ValueError(f"expected an object with a string {key!r}, got {entry!r:.80}")
    return entry[key]


def _texts(values: Any) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError(f"expected a list of strings, got {values!r:.80}")
    return values


def load_catalog(directory: Path, collation: NameCollation) -> Catalog | None:
    path = directory / CATALOG_FILE
    if not path.exists():
        return None
    try:
        document = read_stored_json(path)
    except StoredFileError as exc:
        raise CatalogStoreError(str(exc)) from None
    try:
        return catalog_from_document(document, collation)
    except (ValueError, TypeError, AttributeError, IndexError) as exc:
        raise CatalogStoreError(f"Corrupt '{path}': {exc}") from None


def save_catalog(directory: Path, catalog: Catalog | None) -> None:
    """Atomically replace the file (or remove it when the catalog became unknown)."""
    path = directory / CATALOG_FILE
    try:
        if catalog is None:
            if path.exists():
                path.unlink()
            return
        text = json.dumps(catalog_to_document(catalog), ensure_ascii=False, separators=(",", ":")) + "\n"
        write_atomically(path, text, TEMPORARY_PREFIX)
    except OSError as exc:
        raise MySQLError(3, "HY000", f"Error writing file '{path}' (OS errno {exc.errno} - {exc.strerror})") from None
