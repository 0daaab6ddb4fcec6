"""The lint checks that need the sources' schema (RF601-RF604), each positive and negative, on a
schema loaded the way users load it (LOAD SCHEMA, ``--schema``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from replfilter.cli import main as cli
from replfilter.lint.linter import LintOptions, lint_state
from replfilter.lint.workload import read_workload
from replfilter.server.session import Session

SCHEMA = """\
CREATE DATABASE shop;
USE shop;
CREATE TABLE customers (id INT);
CREATE TABLE orders (id INT);
CREATE TABLE order_items (id INT);
CREATE DATABASE crm;
USE crm;
CREATE TABLE contacts (id INT);
"""


@pytest.fixture
def schema(tmp_path: Path) -> Path:
    path = tmp_path / "schema.sql"
    path.write_text(SCHEMA, encoding="utf-8")
    return path


def linted(schema: Path, filters: str, workload: str | None = None, lctn: int = 0) -> list:
    from replfilter.replica.state import ReplicaState

    session = Session(ReplicaState.fresh(lctn))
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c';" + filters)
    session.execute_text(f"LOAD SCHEMA FROM '{schema}'")
    options = LintOptions(binlog_format="ROW", workload=read_workload("w.sql", workload) if workload else None)
    return lint_state(session.state, options)


def by_code(findings: list, code: str) -> list:
    return [f for f in findings if f.code == code]


def test_rf601_typo_with_the_closest_name_as_fix(schema: Path) -> None:
    found = by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (shop.order, shop.orders) FOR CHANNEL 'c'"), "RF601")
    assert [(f.rule_text, f.fix_text) for f in found] == [
        ("REPLICATE_DO_TABLE: shop.order", "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (`shop`.`orders`) FOR CHANNEL 'c'")]
    assert not by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (shop.orders) FOR CHANNEL 'c'"), "RF601")


def test_rf601_databases_wild_rules_and_rewrites(schema: Path) -> None:
    found = by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (shpo), REPLICATE_WILD_IGNORE_TABLE = ('tmp.%', 'crm.%'),"
                           " REPLICATE_REWRITE_DB = ((nodb, x)) FOR CHANNEL 'c'"), "RF601")
    assert sorted(f.rule_text for f in found) == ["REPLICATE_IGNORE_DB: shpo", "REPLICATE_REWRITE_DB: (nodb,x)", "REPLICATE_WILD_IGNORE_TABLE: tmp.%"]
    assert next(f for f in found if f.ftype.name == "IGNORE_DB").fix_text == "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (`shop`) FOR CHANNEL 'c'"


def test_rf601_rules_name_the_rewritten_database(schema: Path) -> None:
    """After REW(shop->store) the rules compare 'store': a do-db 'store' matches the schema."""
    findings = linted(schema, "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((shop, store)), REPLICATE_DO_DB = (store) FOR CHANNEL 'c'")
    assert not by_code(findings, "RF601")


def test_rf304_letter_case_against_the_schema(schema: Path) -> None:
    found = by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (Crm) FOR CHANNEL 'c'"), "RF304")
    assert [f.fix_text for f in found] == ["CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`crm`) FOR CHANNEL 'c'"]
    assert not by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (Crm) FOR CHANNEL 'c'", lctn=1), "RF304")


def test_rf602_do_and_ignore_on_the_same_tables(schema: Path) -> None:
    found = by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('shop.%'),"
                           " REPLICATE_WILD_IGNORE_TABLE = ('shop.order%') FOR CHANNEL 'c'"), "RF602")
    assert len(found) == 1 and found[0].message.startswith("2 table(s) of the schema (e.g. shop.order_items)")
    assert found[0].message.endswith("they are replicated")
    assert not by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('shop.%'),"
                              " REPLICATE_WILD_IGNORE_TABLE = ('crm.%') FOR CHANNEL 'c'"), "RF602")


def test_rf603_what_each_rule_admits_or_drops(schema: Path) -> None:
    found = by_code(linted(schema, "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.orders), REPLICATE_WILD_IGNORE_TABLE = ('crm.%') FOR CHANNEL 'c'"), "RF603")
    assert [(f.rule_text, f.message) for f in found] == [
        (None, "replicates 2 of the schema's 4 tables (2 decided by no rule, by the defaults)"),
        ("REPLICATE_WILD_IGNORE_TABLE: crm.%", "drops 1 of the schema's 4 tables"),
        ("REPLICATE_IGNORE_TABLE: shop.orders", "drops 1 of the schema's 4 tables"),
    ]
    session = Session()
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.orders)")
    assert not by_code(lint_state(session.state), "RF603")  # no schema, no RF603


def test_rf604_a_statement_that_would_stop_the_replica(schema: Path) -> None:
    filters = "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('shop.%') FOR CHANNEL 'c'"
    found = by_code(linted(schema, filters, "USE shop;\nINSERT INTO orders SELECT * FROM crm.contacts;\n"), "RF604")
    assert [(f.location, f.level.value) for f in found] == [(("w.sql", 2), "error")]
    assert "would stop with ERROR 1146 (42S02): Table 'crm.contacts' doesn't exist" in found[0].message
    assert not by_code(linted(schema, filters, "USE shop;\nINSERT INTO orders SELECT * FROM shop.customers;\n"), "RF604")
    created = "USE shop;\nCREATE TABLE shop.t2 (id INT);\nINSERT INTO shop.t2 VALUES (1);\n"
    assert not by_code(linted(schema, filters, created), "RF604")


def test_schema_option_on_the_command_line(schema: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["lint", "--schema", str(schema), "--replicate-do-table=shop.order", "--binlog-format", "ROW", "--format", "json"],
                      stdout=out, stderr=err)
    codes = [json.loads(line)["code"] for line in out.getvalue().splitlines()]
    assert "RF601" in codes and "RF603" in codes
    assert status == 1


def test_rf403_with_a_schema_counts_the_tables_two_channels_write(schema: Path) -> None:
    session = Session()
    session.execute_sql(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'a';"
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'b';"
        "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('shop.%') FOR CHANNEL 'a';"
        "CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('shop.order%') FOR CHANNEL 'b';"
    )
    session.execute_text(f"LOAD SCHEMA FROM '{schema}'")
    found = by_code(lint_state(session.state, LintOptions(binlog_format="ROW")), "RF403")
    assert [(f.channel, f.message.split(" (")[0]) for f in found] == [("b", "channels 'a' and 'b' both apply rows to 2 table(s) of the schema")]
    session.execute_text("CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('crm.%') FOR CHANNEL 'b'")
    assert not by_code(lint_state(session.state, LintOptions(binlog_format="ROW")), "RF403")


AUDIT = """\
CREATE DATABASE myapp;
USE myapp;
CREATE TABLE audit_log (id INT);
CREATE TABLE audit_log_preferences (id INT);
CREATE TABLE audit_log_user_settings (id INT);
CREATE TABLE audit_log_consents (id INT);
CREATE TABLE users (id INT);
"""


def test_rf108_a_wild_ignore_that_takes_business_tables(tmp_path: Path) -> None:
    """querytuning.org/posts/mysql-replica-filters-broken.html: ``Replicate_Wild_Ignore_Table:
    myapp.audit_log%`` meant to drop audit_log also dropped audit_log_preferences,
    audit_log_user_settings and audit_log_consents for eight weeks. With the schema the lint
    names them; the fix is the name itself (escaping '_' would still over-match, so RF105's
    fix is the same), checked on the schema; applied, both findings go."""
    path = tmp_path / "audit.sql"
    path.write_text(AUDIT, encoding="utf-8")
    filters = "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('myapp.audit_log%') FOR CHANNEL 'c';"
    session = Session()
    session.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c';" + filters)
    session.execute_text(f"LOAD SCHEMA FROM '{path}'")
    found = {f.code: f for f in lint_state(session.state, LintOptions(binlog_format="ROW"))}
    over = found["RF108"]
    assert over.level.value == "warning"
    assert "also takes 3 other table(s) of the schema, which are dropped with it: myapp.audit_log_consents, " \
           "myapp.audit_log_preferences, myapp.audit_log_user_settings" in over.message
    assert over.fix_text == "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('myapp.audit\\_log') FOR CHANNEL 'c'"
    assert found["RF105"].fix_text == over.fix_text
    session.execute_text(over.fix_text)
    after = {f.code for f in lint_state(session.state, LintOptions(binlog_format="ROW"))}
    assert not after & {"RF105", "RF108"}
    escaped = Session()
    escaped.execute_sql("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c';"
                        "CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('myapp.audit\\_log%') FOR CHANNEL 'c';")
    escaped.execute_text(f"LOAD SCHEMA FROM '{path}'")
    assert "RF108" in {f.code for f in lint_state(escaped.state, LintOptions(binlog_format="ROW"))}  # '\_' does not stop '%'


def test_rf108_without_a_schema_is_a_note_on_the_open_ended_part() -> None:
    session = Session()
    session.execute_sql("CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('myapp.audit\\_log%', 'myapp.tmp\\_%', 'myapp.%')")
    found = [f for f in lint_state(session.state, LintOptions(binlog_format="ROW")) if f.code == "RF108"]
    assert [(f.level.value, f.rule_text, f.fix) for f in found] == [("note", "REPLICATE_WILD_IGNORE_TABLE: myapp.audit\\_log%", None)]
    assert "open-ended after 'audit_log'" in found[0].message


TRIGGERS = """\
CREATE DATABASE shop;
USE shop;
CREATE TABLE orders (id INT);
CREATE TABLE audit (id INT);
CREATE TRIGGER orders_ai AFTER INSERT ON orders FOR EACH ROW INSERT INTO audit VALUES (NEW.id);
DELIMITER //
CREATE TRIGGER orders_au AFTER UPDATE ON orders FOR EACH ROW BEGIN
  UPDATE shop.audit SET id = NEW.id WHERE id = OLD.id;
END//
DELIMITER ;
"""


def test_rf605_a_trigger_writing_a_filtered_table(tmp_path: Path) -> None:
    """The manual's interactions page (replication-rules-examples.html: "operations to watch out
    for include ... triggers") and mysql-filter-evaluation.md X28/X29: with
    ``--replicate-ignore-table=shop.audit`` a statement on shop.orders fires its trigger on the
    replica, which writes shop.audit; row events carry the trigger's rows instead. Both a
    one-statement body and a BEGIN ... END body are read."""
    path = tmp_path / "triggers.sql"
    path.write_text(TRIGGERS, encoding="utf-8")

    def rf605(filters: str, binlog_format: str | None) -> list:
        session = Session()
        session.execute_sql(filters)
        session.execute_text(f"LOAD SCHEMA FROM '{path}'")
        return by_code(lint_state(session.state, LintOptions(binlog_format=binlog_format)), "RF605")

    found = rf605("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.audit)", None)
    assert [f.message.split(",")[0] for f in found] == ["trigger shop.orders_ai on shop.orders", "trigger shop.orders_au on shop.orders"]
    assert all("writes shop.audit, which the filters drop" in f.message for f in found)
    assert rf605("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.audit)", "ROW") == []
    assert rf605("CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('shop.%')", None) == []  # the trigger's table is dropped too


FOREIGN_KEYS = """\
CREATE DATABASE shop;
USE shop;
CREATE TABLE customers (id INT PRIMARY KEY);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT,
  CONSTRAINT fk_orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id));
"""


@pytest.mark.parametrize("filters,fix", [
    ("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (shop.customers)", "CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = ()"),
    ("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (shop.orders)",
     "CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (`shop`.`orders`, `shop`.`customers`)"),
])
def test_rf606_a_foreign_key_into_a_filtered_table(tmp_path: Path, filters: str, fix: str) -> None:
    """The manual (replication-rules-examples.html: operations to watch out for include
    "cascading foreign keys"; create-table-foreign-keys.html): a replicated child whose parent
    the filters keep off the replica fails there with 1824 on CREATE and 1452 on INSERT. The
    fix makes the parent replicated; applied, the finding goes."""
    path = tmp_path / "fk.sql"
    path.write_text(FOREIGN_KEYS, encoding="utf-8")
    session = Session()
    session.execute_sql(filters)
    session.execute_text(f"LOAD SCHEMA FROM '{path}'")
    found = by_code(lint_state(session.state, LintOptions(binlog_format="ROW")), "RF606")
    assert [(f.level.value, f.fix_text) for f in found] == [("error", fix)]
    assert "shop.orders is replicated, but its foreign key fk_orders_customer references shop.customers" in found[0].message
    assert "ERROR 1824" in found[0].message and "ERROR 1452" in found[0].message
    session.execute_text(fix)
    assert not by_code(lint_state(session.state, LintOptions(binlog_format="ROW")), "RF606")
