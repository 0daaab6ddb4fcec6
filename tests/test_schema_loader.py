"""Loading schema files: mysqldump shapes, the server's errors as warnings with file and line,
and the replica's catalog built through each channel's filters."""

from __future__ import annotations

from pathlib import Path

import pytest

from replfilter.evaluation.catalog.ddl import apply_statement
from replfilter.evaluation.catalog.text import execute_versioned_comments
from replfilter.evaluation.catalog.loader import SchemaFileError, load_schema_file, load_schema_lines
from replfilter.replica.catalog import Catalog
from replfilter.replica.state import ReplicaState
from replfilter.server.session import Session

DATA = Path(__file__).parent / "data" / "schema"
NODATA = str(DATA / "shop_nodata.sql")
FULL = str(DATA / "shop_full.sql")


def _load(text: str, state: ReplicaState | None = None, channel: str | None = None):
    return load_schema_lines(state or ReplicaState.fresh(), text.splitlines(), "f.sql", channel)


def _state(*statements: str, lctn: int = 0) -> ReplicaState:
    session = Session(ReplicaState.fresh(lctn))
    for statement in statements:
        session.execute_text(statement)
    return session.state


# --- the mysqldump fixture ---------------------------------------------------------------------


def test_mysqldump_no_data_loads_tables_views_triggers_routines_and_events():
    result = load_schema_file(ReplicaState.fresh(), NODATA)
    assert result.warnings == ()
    catalog = result.state.replica_catalog
    assert catalog.databases() == ("shop",)
    assert [t.name for t in catalog.tables("shop")] == ["audit_log", "customers", "order_totals", "orders"]
    assert catalog.table("shop", "orders").columns == ("id", "customer_id", "total", "status", "note")
    view = catalog.table("shop", "order_totals")
    assert view.is_view and view.columns == ("customer_id", "orders", "total")
    assert view.base_tables == (("shop", "orders"), ("shop", "customers"))
    assert {(t.name, t.table) for t in catalog.triggers("shop")} == {("orders_bi", "orders"), ("audit_log_ai", "audit_log")}
    assert {(r.kind, r.name) for r in catalog.routines("shop")} == {
        ("PROCEDURE", "close_order"), ("FUNCTION", "order_count"), ("EVENT", "purge_audit")}


def test_full_dump_gives_the_same_catalog_and_its_data_lines_are_skipped_unread():
    full = load_schema_file(ReplicaState.fresh(), FULL)
    nodata = load_schema_file(ReplicaState.fresh(), NODATA)
    assert full.warnings == ()
    assert full.state.replica_catalog == nodata.state.replica_catalog
    assert full.statistics.skipped - nodata.statistics.skipped >= 3 + 6   # 3 INSERTs, LOCK/UNLOCK
    # the data holds 'CREATE TABLE evil (a int);' inside a string: never executed
    assert full.state.replica_catalog.table("shop", "evil") is None


def test_a_multi_line_insert_is_still_split_correctly():
    result = _load("CREATE DATABASE d;\nUSE d;\nINSERT INTO t VALUES\n(1, 'x;\ny');\nCREATE TABLE t2 (a int);")
    assert result.warnings == ()
    assert result.state.replica_catalog.table("d", "t2").columns == ("a",)


def test_with_no_schema_the_catalogs_are_unknown_not_empty():
    state = ReplicaState.fresh()
    assert state.replica_catalog is None and state.source_catalog("") is None


def test_missing_file_is_an_error_not_a_warning():
    with pytest.raises(SchemaFileError):
        load_schema_file(ReplicaState.fresh(), str(DATA / "nope.sql"))


# --- versioned comments --------------------------------------------------------------------------


@pytest.mark.parametrize("version, executed", [("80403", True), ("50001", True), ("80404", False), ("90000", False)])
def test_versioned_comment_runs_at_or_below_the_server_version(version, executed):
    result = _load(f"CREATE DATABASE d;\n/*!{version} CREATE TABLE d.t (a int) */;")
    assert (result.state.replica_catalog.table("d", "t") is not None) is executed


def test_versioned_comment_follows_the_simulated_version():
    from replfilter.core.version import ServerVersion

    state = ReplicaState.fresh(version=ServerVersion.MYSQL_8_0)
    result = _load("CREATE DATABASE d;\n/*!80040 CREATE TABLE d.a (x int) */;\n/*!80041 CREATE TABLE d.b (x int) */;", state)
    assert [t.name for t in result.state.replica_catalog.tables("d")] == ["a"]


def test_versioned_comment_inside_a_string_is_text():
    assert execute_versioned_comments("SELECT '/*!99999 x */'") == "SELECT '/*!99999 x */'"
    assert execute_versioned_comments("CREATE /*!99999 junk */ TABLE").split() == ["CREATE", "TABLE"]


# --- the server's refusals become warnings naming file and line -----------------------------------


def test_refused_statements_are_warnings_with_file_and_line_and_the_rest_loads():
    text = "\n".join([
        "CREATE DATABASE d;",                 # 1
        "USE d;",                             # 2
        "CREATE TABLE t (a int);",            # 3
        "CREATE TABLE t (b int);",            # 4: exists
        "CREATE TABLE nope.x (a int);",       # 5: unknown database
        "this is not sql;",                   # 6: 1064
        "CREATE TABLE u (a int, a int);",     # 7: duplicate column
        "CREATE TABLE v (c int);",            # 8
    ])
    result = _load(text)
    assert [(w.line, w.error.code) for w in result.warnings] == [(4, 1050), (5, 1049), (6, 1064), (7, 1060)]
    assert str(result.warnings[0]) == "f.sql:4: ERROR 1050 (42S01): Table 't' already exists"
    assert [t.name for t in result.state.replica_catalog.tables("d")] == ["t", "v"]


def test_a_statement_before_any_use_has_no_database():
    result = _load("CREATE TABLE t (a int);")
    assert [w.error.code for w in result.warnings] == [1046]


# --- two catalogs: the source's, and what the filters let through --------------------------------


def test_a_table_created_under_an_ignore_rule_is_on_the_source_only():
    state = _state("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.audit_log)")
    result = load_schema_file(state, NODATA)
    assert result.state.source_catalog("").table("shop", "audit_log") is not None
    assert result.state.replica_catalog.table("shop", "audit_log") is None
    # its trigger went with it: CREATE TRIGGER ... ON audit_log is decided by that table too,
    # and on the replica the table is missing
    assert result.state.replica_catalog.trigger("shop", "audit_log_ai") is None
    assert result.state.replica_catalog.table("shop", "orders") is not None


def test_an_ignored_database_never_reaches_the_replica():
    state = _state("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (shop)")
    result = load_schema_file(state, NODATA)
    assert result.state.replica_catalog.databases() == ()
    assert result.state.source_catalog("").databases() == ("shop",)


def test_rewrite_db_puts_unqualified_tables_in_the_rewritten_database():
    state = _state("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((src, dst))")
    result = _load("CREATE DATABASE dst;\nCREATE DATABASE src;\nUSE src;\nCREATE TABLE t (a int);", state)
    assert result.state.source_catalog("").table("src", "t") is not None
    assert result.state.replica_catalog.table("dst", "t") is not None
    assert result.state.replica_catalog.table("src", "t") is None


def test_a_schema_for_one_channel_is_that_sources_only():
    state = _state(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='a' FOR CHANNEL 'a'",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='b' FOR CHANNEL 'b'",
        "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (other) FOR CHANNEL 'b'",
    )
    state = _load("CREATE DATABASE app;\nCREATE TABLE app.t (a int);", state, channel="a").state
    state = _load("CREATE DATABASE other;\nCREATE TABLE other.u (a int);", state, channel="b").state
    assert state.source_catalog("a").has_database("app") and not state.source_catalog("a").has_database("other")
    assert state.source_catalog("b").has_database("other")
    assert state.replica_catalog.databases() == ("app",)          # b's filters kept 'other' off


def test_the_same_source_schema_through_two_channels_lands_once():
    state = _state(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='a' FOR CHANNEL 'a'",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='b' FOR CHANNEL 'b'",
    )
    result = load_schema_file(state, NODATA)
    assert result.warnings == ()
    assert len(result.state.replica_catalog.tables("shop")) == 4


def test_replica_side_refusal_is_a_warning_naming_the_channel():
    # a rewrite sends d's unqualified tables to r, which the source never created: the
    # replica's applier would stop with 1049 on the CREATE TABLE
    state = _state("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((d, r))")
    result = _load("CREATE DATABASE d;\nUSE d;\nCREATE TABLE t (a int);", state)
    assert [(w.line, w.error.code, w.channel) for w in result.warnings] == [(3, 1049, "")]
    assert "on the replica (channel '')" in str(result.warnings[0])


def test_lower_case_table_names_1_compares_and_stores_lower_case():
    result = _load("CREATE DATABASE Shop;\nUSE SHOP;\nCREATE TABLE Orders (a int);\nCREATE TABLE ORDERS (b int);",
                   _state(lctn=1))
    assert [w.error.code for w in result.warnings] == [1050]
    assert result.state.replica_catalog.databases() == ("shop",)


# --- DDL semantics -----------------------------------------------------------------------------------


def _apply(catalog: Catalog, *statements: str, db: str = "d") -> tuple[Catalog, list[int]]:
    codes = []
    for sql in statements:
        catalog, errors = apply_statement(catalog, sql, db)
        codes.extend(e.code for e in errors)
    return catalog, codes


BASE = apply_statement(apply_statement(Catalog(), "CREATE DATABASE d", "")[0], "CREATE TABLE t (a int, b int)", "d")[0]


def test_alter_table_changes_columns_in_order():
    catalog, codes = _apply(BASE, "ALTER TABLE t ADD COLUMN c int FIRST, DROP COLUMN a, CHANGE b bb int, ADD (x int, y int)")
    assert codes == [] and catalog.table("d", "t").columns == ("c", "bb", "x", "y")
    catalog, codes = _apply(catalog, "ALTER TABLE t RENAME COLUMN x TO z, MODIFY y bigint AFTER c")
    assert catalog.table("d", "t").columns == ("c", "y", "bb", "z")


def test_alter_table_refusals_change_nothing():
    catalog, codes = _apply(BASE, "ALTER TABLE t ADD COLUMN c int, DROP COLUMN nope", "ALTER TABLE t ADD a int",
                            "ALTER TABLE missing ADD c int")
    assert codes == [1091, 1060, 1146] and catalog == BASE


def test_rename_is_all_or_nothing_and_keeps_triggers_with_their_table():
    catalog, codes = _apply(BASE, "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x = 1",
                            "RENAME TABLE t TO t2, missing TO m")
    assert codes == [1146] and catalog.table("d", "t") is not None
    catalog, codes = _apply(catalog, "RENAME TABLE t TO t2")
    assert codes == [] and catalog.trigger("d", "tr").table == "t2"


def test_drop_table_is_atomic_and_takes_the_triggers():
    catalog, codes = _apply(BASE, "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x = 1", "DROP TABLE t, nope")
    assert codes == [1051] and catalog.table("d", "t") is not None
    catalog, codes = _apply(catalog, "DROP TABLE IF EXISTS t, nope")
    assert codes == [] and catalog.table("d", "t") is None and catalog.trigger("d", "tr") is None


def test_create_table_like_and_select():
    catalog, codes = _apply(BASE, "CREATE TABLE l LIKE t", "CREATE TABLE s (z int) SELECT t.*, 1 AS one FROM t",
                            "CREATE TABLE bad LIKE nope")
    assert codes == [1146]
    assert catalog.table("d", "l").columns == ("a", "b")
    assert catalog.table("d", "s").columns == ("z", "a", "b", "one")


def test_views_keep_columns_and_base_tables_and_refuse_a_missing_base():
    catalog, codes = _apply(BASE, "CREATE VIEW v AS SELECT * FROM t", "CREATE VIEW w (p) AS SELECT a FROM d.t",
                            "CREATE VIEW bad AS SELECT * FROM nope", "CREATE VIEW v AS SELECT 1",
                            "CREATE OR REPLACE VIEW t AS SELECT 1")
    assert codes == [1146, 1050, 1347]
    assert catalog.table("d", "v").columns == ("a", "b") and catalog.table("d", "v").base_tables == (("d", "t"),)
    assert catalog.table("d", "w").columns == ("p",)


def test_triggers_routines_and_events_errors():
    catalog, codes = _apply(
        BASE,
        "CREATE TRIGGER tr AFTER UPDATE ON t FOR EACH ROW SET @x = 1",
        "CREATE TRIGGER tr AFTER UPDATE ON t FOR EACH ROW SET @x = 1",
        "CREATE TRIGGER IF NOT EXISTS tr AFTER UPDATE ON t FOR EACH ROW SET @x = 1",
        "CREATE TRIGGER tn AFTER UPDATE ON nope FOR EACH ROW SET @x = 1",
        "DROP TRIGGER nope",
        "CREATE PROCEDURE p() BEGIN END", "CREATE PROCEDURE P() BEGIN END",
        "DROP FUNCTION f",
        "CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO SET @x = 1", "DROP EVENT nope",
    )
    assert codes == [1359, 1146, 1360, 1304, 1305, 1539]
    assert catalog.trigger("d", "tr").table == "t"


def test_databases():
    catalog, codes = _apply(Catalog(), "CREATE DATABASE a", "CREATE DATABASE a", "CREATE SCHEMA IF NOT EXISTS a",
                            "DROP DATABASE b", "DROP DATABASE IF EXISTS b", "USE nope", db="")
    assert codes == [1007, 1008, 1049] and catalog.databases() == ("a",)
    catalog, codes = _apply(catalog, "DROP SCHEMA a", db="")
    assert catalog.databases() == ()


def test_temporary_tables_are_not_kept():
    catalog, codes = _apply(BASE, "CREATE TEMPORARY TABLE tmp (a int)")
    assert codes == [] and catalog.table("d", "tmp") is None


# --- the plain CREATE TABLE reading agrees with sqlglot's ----------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from replfilter.evaluation.catalog.queries import table_columns  # noqa: E402  (the sqlglot reading)
from replfilter.replica.catalog import CatalogBuilder  # noqa: E402

_COLUMN_NAMES = st.sampled_from(["id", "a", "`key`", "`select`", "`a b`", "name", "`x``y`", "total", "`é`"])
_TYPES = st.sampled_from(["int", "varchar(10)", "decimal(10,2)", "enum('a','b,c')", "int NOT NULL DEFAULT '0'",
                          "json DEFAULT NULL", "int GENERATED ALWAYS AS (1 + 2) VIRTUAL",
                          "datetime DEFAULT CURRENT_TIMESTAMP COMMENT 'x, y'"])
_KEYS = st.sampled_from(["PRIMARY KEY (`id`)", "KEY `k` (`a`, `id`)", "UNIQUE KEY `u` (`id`)",
                         "CONSTRAINT `fk` FOREIGN KEY (`id`) REFERENCES `other` (`id`)", "CHECK (`id` > 0)",
                         "FULLTEXT KEY `f` (`id`)", "INDEX (`id`)"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_COLUMN_NAMES, _TYPES), min_size=1, max_size=6, unique_by=lambda c: c[0].strip("`").lower()),
       st.lists(_KEYS, max_size=3), st.sampled_from(["", " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4", " COMMENT='a (b'",
                                                      " COMMENT='as select'", " AS SELECT 1 AS extra"]))
def test_the_quick_body_reading_gives_the_columns_sqlglot_gives(columns, keys, options):
    body = ",\n  ".join([f"{name} {kind}" for name, kind in columns] + keys)
    sql = f"CREATE TABLE `t` (\n  {body}\n){options}"
    catalog, errors = apply_statement(Catalog().with_database("d"), sql, "d")
    assert errors == () and catalog.table("d", "t").columns == table_columns(CatalogBuilder(), sql, "d")


def test_create_table_parenthesised_like_copies_the_source():
    catalog, codes = _apply(BASE, "CREATE TABLE c (LIKE t)")
    assert codes == [] and catalog.table("d", "c").columns == ("a", "b")


def test_drop_trigger_is_replayed_by_the_triggers_table_on_the_replica():
    # the event's text names no table; the replica finds the trigger's table (d.t, on the do
    # list) in its own catalog, so the DROP applies there too
    state = _state("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.t)")
    result = _load("CREATE DATABASE d;\nUSE d;\nCREATE TABLE t (a int);\n"
                   "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x = 1;\nDROP TRIGGER tr;", state)
    assert result.warnings == ()
    assert result.state.source_catalog("").trigger("d", "tr") is None
    assert result.state.replica_catalog.trigger("d", "tr") is None
    assert result.state.replica_catalog.table("d", "t") is not None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_COLUMN_NAMES, _TYPES), min_size=1, max_size=6, unique_by=lambda c: c[0].strip("`").lower()),
       st.lists(_KEYS, max_size=3), st.sampled_from(["", " ENGINE=InnoDB", " COMMENT='x'", " AS SELECT * FROM src"]),
       st.sampled_from(["`t`", "d2.t", "IF NOT EXISTS `t`"]))
def test_the_shortened_event_text_gives_the_same_event(columns, keys, options, name):
    from replfilter.evaluation.catalog.text import event_text
    from replfilter.evaluation.sql.logged_events import statement_events

    body = ", ".join([f"{c} {kind}" for c, kind in columns] + keys)
    sql = f"CREATE TABLE {name} ({body}){options}"
    full, short = statement_events(sql, "d"), statement_events(event_text(sql), "d")
    assert [e.tables for e in full.events] == [e.tables for e in short.events]
    assert [(e.command, e.default_db, e.if_exists) for e in full.events] == [
        (e.command, e.default_db, e.if_exists) for e in short.events]


@pytest.mark.parametrize("as_select", [False, True])
def test_a_wide_table_keeps_every_column_and_still_refuses_a_late_duplicate(as_select: bool):
    # The duplicate check once compared each column with all before it (a 1.8 MB statement of
    # 80,000 columns ran for minutes); it is a set lookup now. Both readers: the plain-body
    # reader and sqlglot's (taken for ``... SELECT``).
    names = [f"c{i}" for i in range(4000)]
    tail = " ENGINE=MyISAM" + (" SELECT 1 AS extra" if as_select else "")  # InnoDB stops at 1,017 columns
    body = ", ".join(f"{n} int" for n in names)
    result = _load(f"CREATE DATABASE d;\nCREATE TABLE d.t ({body}){tail};\n")
    expected = tuple(names) + (("extra",) if as_select else ())
    assert result.state.source_catalog("").table("d", "t").columns == expected
    clash = _load(f"CREATE DATABASE d;\nCREATE TABLE d.t ({body}, C3999 int){tail};\n")
    assert [w.error.code for w in clash.warnings] == [1060]
    assert clash.state.source_catalog("").table("d", "t") is None
