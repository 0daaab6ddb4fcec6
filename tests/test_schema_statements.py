"""The catalog at the surface: --schema, LOAD SCHEMA, SHOW DATABASES/TABLES/TRIGGERS, the
catalog following applied DDL in REPLAY EVENTS, and persistence in --datadir."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from replfilter.cli import main as cli
from replfilter.core.errors import MySQLError
from replfilter.core.results import Ok
from replfilter.replica.state import ReplicaState
from replfilter.server.session import Session

DATA = Path(__file__).parent / "data" / "schema"
NODATA = str(DATA / "shop_nodata.sql")


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, stdin=io.StringIO(""), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def rows(session: Session, sql: str):
    result = session.execute_text(sql)
    return result.columns, result.rows


# --- SHOW ----------------------------------------------------------------------------------------


@pytest.fixture
def shop() -> Session:
    session = Session(ReplicaState.fresh())
    session.execute_text(f"LOAD SCHEMA FROM '{NODATA}'")
    return session


def test_show_databases_and_tables_in_mysql_columns(shop: Session):
    assert rows(shop, "SHOW DATABASES") == (("Database",), (("shop",),))
    assert rows(shop, "SHOW DATABASES LIKE 'sh%'") == (("Database (sh%)",), (("shop",),))
    assert rows(shop, "SHOW TABLES FROM shop") == (
        ("Tables_in_shop",), (("audit_log",), ("customers",), ("order_totals",), ("orders",)))
    assert rows(shop, "SHOW FULL TABLES IN shop LIKE 'order%'") == (
        ("Tables_in_shop (order%)", "Table_type"), (("order_totals", "VIEW"), ("orders", "BASE TABLE")))


def test_show_triggers_columns_and_rows(shop: Session):
    columns, found = rows(shop, "SHOW TRIGGERS FROM shop")
    assert columns == ("Trigger", "Event", "Table", "Statement", "Timing", "Created", "sql_mode", "Definer",
                       "character_set_client", "collation_connection", "Database Collation")
    assert [(r[0], r[1], r[2], r[4], r[7]) for r in found] == [
        ("audit_log_ai", "INSERT", "audit_log", "AFTER", "root@localhost"),
        ("orders_bi", "INSERT", "orders", "BEFORE", "root@localhost"),
    ]
    assert found[0][3] == "SET @last_audit = NEW.id"
    assert rows(shop, "SHOW TRIGGERS FROM shop LIKE 'ord%'")[1][0][0] == "orders_bi"   # LIKE is on the table


def test_show_errors(shop: Session):
    with pytest.raises(MySQLError) as no_db:
        shop.execute_text("SHOW TABLES")
    assert no_db.value.code == 1046
    with pytest.raises(MySQLError) as unknown:
        shop.execute_text("SHOW TRIGGERS FROM nope")
    assert (unknown.value.code, unknown.value.message) == (1049, "Unknown database 'nope'")


def test_without_a_schema_show_says_it_is_unknown_rather_than_empty():
    with pytest.raises(MySQLError) as error:
        Session().execute_text("SHOW DATABASES")
    assert error.value.code == 1105 and "--schema" in error.value.message


def test_show_under_lower_case_table_names_1_prints_stored_lower_case_names():
    session = Session(ReplicaState.fresh(1))
    session.execute_text(f"LOAD SCHEMA FROM '{NODATA}'")
    assert rows(session, "SHOW TABLES FROM SHOP")[0] == ("Tables_in_shop",)


# --- LOAD SCHEMA -----------------------------------------------------------------------------------


def test_load_schema_is_ok_with_warnings_naming_file_and_line(tmp_path: Path):
    path = tmp_path / "s.sql"
    path.write_text("CREATE DATABASE d;\nCREATE DATABASE d;\nCREATE TABLE d.t (a int);\n")
    session = Session()
    result = session.execute_text(f"LOAD SCHEMA FROM '{path}'")
    assert isinstance(result, Ok) and result.affected_rows == 3
    assert [(w.code, w.message) for w in result.warnings] == [
        (1007, f"{path}:2: ERROR 1007 (HY000): Can't create database 'd'; database exists")]
    assert rows(session, "SHOW WARNINGS")[1][0][1] == 1007


def test_load_schema_for_a_missing_channel_or_file_fails_and_changes_nothing(tmp_path: Path):
    session = Session()
    with pytest.raises(MySQLError) as channel:
        session.execute_text(f"LOAD SCHEMA FROM '{NODATA}' FOR CHANNEL 'nope'")
    assert channel.value.code == 3074
    with pytest.raises(MySQLError) as missing:
        session.execute_text(f"LOAD SCHEMA FROM '{tmp_path / 'none.sql'}'")
    assert missing.value.code == 29
    assert session.state.replica_catalog is None


def test_a_binary_file_or_a_directory_as_schema_is_refused_whole_naming_it(tmp_path: Path):
    binary = tmp_path / "dump.bin"
    binary.write_bytes(b"CREATE DATABASE d;\n\x7fELF\x00\x01\x02")
    session = Session()
    with pytest.raises(MySQLError) as error:
        session.execute_text(f"LOAD SCHEMA FROM '{binary}'")
    assert error.value.code == 1016
    assert "not a text file (a NUL byte on line 2)" in error.value.message
    with pytest.raises(MySQLError) as folder:
        session.execute_text(f"LOAD SCHEMA FROM '{tmp_path}'")
    assert folder.value.code == 1016 and "Is a directory" in folder.value.message
    assert session.state.replica_catalog is None
    status, _out, err = run(["--schema", str(binary), "-e", "SHOW DATABASES"])
    assert (status, err) == (1, f"replfilter: [ERROR] --schema: cannot read '{binary}': "
                                "not a text file (a NUL byte on line 2)\n")


def test_load_schema_for_channel_replays_through_that_channels_filters():
    session = Session()
    for sql in ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'eu'",
                "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('shop.order%') FOR CHANNEL 'eu'",
                f"LOAD SCHEMA FROM '{NODATA}' FOR CHANNEL 'eu'"):
        session.execute_text(sql)
    assert rows(session, "SHOW TABLES FROM shop")[1] == (("audit_log",), ("customers",))
    assert session.state.source_catalog("eu").table("shop", "orders") is not None
    assert session.state.source_catalog("") is None


# --- the command line --------------------------------------------------------------------------------


def test_schema_option_loads_through_the_startup_filters():
    status, out, err = run(["--replicate-ignore-table=shop.customers", "--schema", NODATA, "-e", "SHOW TABLES FROM shop"])
    assert status == 0
    assert out.split() == ["Tables_in_shop", "audit_log", "orders"]
    # the view reads customers: on the replica its CREATE VIEW fails, where the applier stops
    assert err == (f"replfilter: [Warning] {NODATA}:213: on the replica (channel ''), the applier would stop: "
                   "ERROR 1146 (42S02): Table 'shop.customers' doesn't exist\n")


def test_schema_option_warnings_go_to_stderr_with_file_and_line(tmp_path: Path):
    path = tmp_path / "bad.sql"
    path.write_text("CREATE DATABASE d;\nUSE d;\nCREATE TABLE t (a int, a int);\n")
    status, _out, err = run([f"--schema={path}", "-e", "SHOW DATABASES"])
    assert status == 0
    assert err == f"replfilter: [Warning] {path}:3: ERROR 1060 (42S21): Duplicate column name 'a'\n"


def test_schema_option_missing_file_stops_the_start(tmp_path: Path):
    status, _out, err = run(["--schema", str(tmp_path / "none.sql"), "-e", "SHOW DATABASES"])
    assert status == 1 and "cannot read" in err and "none.sql" in err


def test_schema_option_for_an_unknown_channel_is_discarded_with_a_warning():
    status, _out, err = run([f"--schema=eu:{NODATA}", "-e", "SHOW DATABASES"])
    assert status == 1          # the schema was discarded: SHOW says the catalog is unknown
    assert "replica channel 'eu' does not exist" in err


def test_schema_option_naming_a_file_with_a_colon_says_how_to_load_it(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a:b.sql").write_text("CREATE DATABASE d;\n")
    status, _out, err = run(["--schema=a:b.sql", "-e", "SHOW DATABASES"])
    assert status == 1 and "replica channel 'a' does not exist" in err
    assert "--schema=:a:b.sql" in err and "LOAD SCHEMA FROM 'a:b.sql'" in err
    status, out, _err = run(["--schema=:a:b.sql", "-e", "SHOW DATABASES"])
    assert status == 0 and "d" in out.split()


def test_evaluate_takes_schema_and_follows_applied_ddl(tmp_path: Path):
    events = tmp_path / "e.jsonl"
    events.write_text("\n".join(json.dumps(e) for e in [
        {"v": 1, "type": "query", "channel": "", "default_db": "shop", "command": "CREATE_TABLE",
         "tables": [{"db": None, "table": "t_new", "updating": True}], "sql": "CREATE TABLE t_new (a int)"},
    ]) + "\n")
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["evaluate", "--schema", NODATA, str(events)], stdout=out, stderr=err)
    assert status == 0, err
    assert json.loads(out.getvalue().splitlines()[0])["decision"] == "APPLY"


def test_a_renaming_alter_is_checked_against_the_catalog_before_it_runs(tmp_path: Path):
    """The applier opens ``t`` to run ``ALTER TABLE t RENAME TO u``: it exists then, so there is
    no error (after the rename it is gone, and looking it up then gave a false 1146)."""
    events = tmp_path / "e.jsonl"
    rename = {"v": 1, "type": "query", "channel": "", "default_db": "shop", "command": "ALTER_TABLE",
              "sql": "ALTER TABLE orders RENAME TO orders_old"}
    missing = {**rename, "sql": "ALTER TABLE nope RENAME TO nope2"}
    rows_on = [{"v": 1, "type": "row", "channel": "", "db": "shop", "table": t} for t in ("orders_old", "orders")]
    events.write_text("\n".join(json.dumps(e) for e in [rename, *rows_on, missing]) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["evaluate", "--schema", NODATA, str(events)], stdout=out, stderr=err) == 0, err.getvalue()
    errors = [json.loads(line)["applier_error"] for line in out.getvalue().splitlines()]
    assert errors == [None, None, "ERROR 1146 (42S02): Table 'shop.orders' doesn't exist",
                      "ERROR 1146 (42S02): Table 'shop.nope' doesn't exist"]


# --- REPLAY EVENTS changes the replica's catalog ----------------------------------------------------


def _replay(session: Session, tmp_path: Path, *events: dict) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    session.execute_text(f"REPLAY EVENTS FROM '{path}'")


def _create(table: str, db: str = "shop") -> dict:
    return {"v": 1, "type": "query", "channel": "", "default_db": db, "command": "CREATE_TABLE",
            "tables": [{"db": None, "table": table, "updating": True}], "sql": f"CREATE TABLE {table} (a int)"}


def test_replay_creates_a_passing_table_and_not_a_skipped_one(shop: Session, tmp_path: Path):
    shop.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.skipped)")
    _replay(shop, tmp_path, _create("passed"), _create("skipped"))
    names = [r[0] for r in rows(shop, "SHOW TABLES FROM shop")[1]]
    assert "passed" in names and "skipped" not in names


def test_replay_without_a_schema_keeps_it_unknown(tmp_path: Path):
    session = Session()
    _replay(session, tmp_path, _create("t", "d"))
    assert session.state.replica_catalog is None


def test_replay_applies_in_the_rewritten_database(tmp_path: Path):
    session = Session()
    path = tmp_path / "s.sql"
    path.write_text("CREATE DATABASE src;\nCREATE DATABASE dst;\n")
    session.execute_text(f"LOAD SCHEMA FROM '{path}'")
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((src, dst))")
    _replay(session, tmp_path, _create("t", "src"))
    assert session.state.replica_catalog.table("dst", "t") is not None
    assert session.state.replica_catalog.table("src", "t") is None


# --- persistence ---------------------------------------------------------------------------------------


def test_the_replica_catalog_persists_in_the_datadir_and_the_sources_do_not(tmp_path: Path):
    datadir = str(tmp_path / "dd")
    status, _out, err = run(["--datadir", datadir, "--replicate-ignore-table=shop.orders", "--schema", NODATA,
                             "-e", "SELECT 1 FROM performance_schema.replication_applier_filters LIMIT 0"])
    assert (tmp_path / "dd" / "replica_catalog.json").exists()
    # restarted without the ignore rule and without --schema: the replica still lacks 'orders'
    status, out, err = run(["--datadir", datadir, "-e", "SHOW TABLES FROM shop"])
    assert status == 0, err
    assert "orders" not in out.split() and "customers" in out.split()


def test_a_restart_with_schema_does_not_replay_onto_a_persisted_catalog(tmp_path: Path):
    datadir = str(tmp_path / "dd")
    run(["--datadir", datadir, "--schema", NODATA, "-e", "SHOW DATABASES"])
    status, out, err = run(["--datadir", datadir, "--schema", NODATA, "-e", "SHOW DATABASES"])
    assert status == 0 and err == ""          # no "table exists" warnings: nothing replayed


def test_a_corrupt_catalog_file_is_an_error_naming_it(tmp_path: Path):
    (tmp_path / "replica_catalog.json").write_text("{")
    status, _out, err = run(["--datadir", str(tmp_path), "-e", "SHOW DATABASES"])
    assert status == 1 and "replica_catalog.json" in err and "Corrupt" in err


def test_schema_prefix_colon_alone_is_the_default_channels_source():
    status, out, err = run([f"--schema=:{NODATA}", "-e", "SHOW DATABASES"])
    assert status == 0 and err == "" and out.split() == ["Database", "shop"]


def test_every_front_end_takes_schema():
    for command in (["evaluate", "--help"], ["stream", "--help"]):
        out, err = io.StringIO(), io.StringIO()
        with pytest.raises(SystemExit):
            import contextlib

            with contextlib.redirect_stdout(out):
                cli.main(command, stdout=out, stderr=err)
        assert "--schema" in out.getvalue(), command


def test_show_triggers_in_the_servers_order_which_survives_the_datadir(tmp_path: Path):
    """ORDER BY Table, Event, Timing, action_order (dd/info_schema/show.cc): Event and Timing
    sort in their ENUM's order (INSERT, UPDATE, DELETE; BEFORE, AFTER), and the action order is
    creation order, which the --datadir copy keeps."""
    from replfilter.replica.catalog_store import catalog_from_document, catalog_to_document

    schema = tmp_path / "triggers.sql"
    schema.write_text(
        "CREATE DATABASE d; USE d;\n"
        "CREATE TABLE t1 (id INT); CREATE TABLE t2 (id INT);\n"
        "CREATE TRIGGER z_trg AFTER INSERT ON t2 FOR EACH ROW SET @a = 1;\n"
        "CREATE TRIGGER a1 AFTER DELETE ON t1 FOR EACH ROW SET @a = 1;\n"
        "CREATE TRIGGER b BEFORE UPDATE ON t1 FOR EACH ROW SET @a = 1;\n"
        "CREATE TRIGGER y AFTER INSERT ON t1 FOR EACH ROW SET @a = 1;\n"
        "CREATE TRIGGER x BEFORE INSERT ON t1 FOR EACH ROW SET @a = 1;\n"
        "CREATE TRIGGER w AFTER INSERT ON t1 FOR EACH ROW SET @a = 1;\n"
    )
    session = Session(ReplicaState.fresh())
    session.execute_text(f"LOAD SCHEMA FROM '{schema}'")
    want = [("x", "INSERT", "BEFORE"), ("y", "INSERT", "AFTER"), ("w", "INSERT", "AFTER"),
            ("b", "UPDATE", "BEFORE"), ("a1", "DELETE", "AFTER"), ("z_trg", "INSERT", "AFTER")]
    assert [(r[0], r[1], r[4]) for r in rows(session, "SHOW TRIGGERS FROM d")[1]] == want
    catalog = session.state.replica_catalog
    again = catalog_from_document(json.loads(json.dumps(catalog_to_document(catalog))), catalog.collation)
    assert [t.name for t in again.triggers_as_created("d")] == [t.name for t in catalog.triggers_as_created("d")]
