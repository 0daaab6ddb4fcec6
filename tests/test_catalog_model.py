"""The catalog model: names compared per lower_case_table_names, SHOW order, immutability."""

from __future__ import annotations

from hypothesis import given, strategies as st

from replfilter.core.filters import NameCollation
from replfilter.replica.catalog import Catalog, CatalogBuilder, RoutineDef, RoutineKind, TableDef, TriggerDef
from replfilter.replica.state import ReplicaState


def _catalog(lctn: int = 0) -> Catalog:
    return (Catalog(NameCollation(lctn))
            .with_table(TableDef("Shop", "Orders", ("id", "Total")))
            .with_table(TableDef("Shop", "items", ("id",)))
            .with_table(TableDef("Shop", "v", ("id",), is_view=True, base_tables=(("Shop", "Orders"),)))
            .with_trigger(TriggerDef("Shop", "trg_Orders", "Orders")))


def test_case_sensitive_names_under_lctn0():
    catalog = _catalog(0)
    assert catalog.has_database("Shop") and not catalog.has_database("shop")
    assert catalog.table("Shop", "Orders") is not None
    assert catalog.table("Shop", "orders") is None
    assert catalog.trigger("Shop", "trg_orders") is None


def test_case_insensitive_names_under_lctn1_and_2():
    for lctn in (1, 2):
        catalog = _catalog(lctn)
        assert catalog.has_database("SHOP")
        assert catalog.table("shop", "ORDERS").name == "Orders"   # as written in the DDL
        assert catalog.trigger("SHOP", "TRG_ORDERS").table == "Orders"


def test_lctn1_shows_names_lower_cased_lctn2_as_written():
    assert _catalog(1).databases() == ("shop",)
    assert _catalog(2).databases() == ("Shop",)


def test_show_order_is_binary_under_lctn0_and_folded_otherwise():
    names = ("b", "B", "a", "C")
    catalog = Catalog(NameCollation(0))
    for name in names:
        catalog = catalog.with_table(TableDef("d", name, ()))
    assert [t.name for t in catalog.tables("d")] == ["B", "C", "a", "b"]
    folded = Catalog(NameCollation(2))
    for name in ("b", "a", "C"):
        folded = folded.with_table(TableDef("d", name, ()))
    assert [t.name for t in folded.tables("d")] == ["a", "b", "C"]


def test_columns_are_case_insensitive_on_every_platform():
    table = _catalog(0).table("Shop", "Orders")
    assert table.column("total") == "Total" and table.column("nope") is None


def test_changes_return_new_catalogs_and_leave_the_old_one():
    before = _catalog()
    after = before.without_table("Shop", "Orders")
    assert before.table("Shop", "Orders") is not None
    assert after.table("Shop", "Orders") is None
    assert after.trigger("Shop", "trg_Orders") is None          # DROP TABLE drops its triggers
    assert after.without_database("Shop").databases() == ()
    assert before != after and before == _catalog()


def test_routines_are_case_insensitive_even_under_lctn0():
    catalog = Catalog().with_routine(RoutineDef("d", "Proc1", RoutineKind.PROCEDURE))
    assert catalog.routine("d", "PROC1", RoutineKind.PROCEDURE) is not None
    assert catalog.routine("d", "proc1", RoutineKind.FUNCTION) is None


def test_builder_shares_untouched_databases():
    start = _catalog().with_table(TableDef("other", "t", ()))
    builder = CatalogBuilder(start)
    builder.put_table(TableDef("other", "u", ()))
    frozen = builder.freeze()
    assert frozen.database("Shop") is start.database("Shop")
    assert frozen.table("other", "u") is not None and start.table("other", "u") is None


@given(st.lists(st.tuples(st.sampled_from(["a", "A", "b"]), st.sampled_from(["t", "T", "u"])), max_size=12),
       st.sampled_from([0, 1, 2]))
def test_a_table_is_found_exactly_when_some_added_name_compares_equal(pairs, lctn):
    collation = NameCollation(lctn)
    catalog = Catalog(collation)
    for db, name in pairs:
        catalog = catalog.with_table(TableDef(db, name, ()))
    for db in ("a", "A", "b"):
        for name in ("t", "T", "u"):
            expected = any(collation.equal(db, d) and collation.equal(name, n) for d, n in pairs)
            assert (catalog.table(db, name) is not None) == expected


def test_replica_state_catalogs_default_to_unknown():
    state = ReplicaState.fresh()
    assert state.replica_catalog is None and state.source_catalog("") is None


def test_source_catalog_per_channel_falls_back_to_every_source():
    shared, own = _catalog(), Catalog()
    state = ReplicaState.fresh().with_source_catalog(None, shared).with_source_catalog("ch2", own)
    assert state.source_catalog("ch1") is shared
    assert state.source_catalog("ch2") is own
    assert state.with_replica_catalog(own).replica_catalog is own
