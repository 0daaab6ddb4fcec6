"""The event model and its JSON form (version 1); SQL text -> events is tests/test_sql_events.py."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replfilter.evaluation.event_json import EventFormatError, from_dict, from_json, to_json
from replfilter.evaluation.events import (
    CommandKind,
    QueryEvent,
    RowEvent,
    TableRef,
    TransactionEvent,
    TransactionKind,
)

CK = CommandKind

# --- JSON ---------------------------------------------------------------------------------


def test_query_event_json_is_stable() -> None:
    ev = QueryEvent("ch1", "d", CK.INSERT, (TableRef(None, "t"), TableRef("e", "s", False)), "INSERT ...")
    text = to_json(ev)
    assert text == (
        '{"v": 1, "type": "query", "channel": "ch1", "default_db": "d", "command": "INSERT", '
        '"tables": [{"db": null, "table": "t", "updating": true}, {"db": "e", "table": "s", "updating": false}], '
        '"sql": "INSERT ...", "temporary": false, "if_exists": false}'
    )
    assert from_json(text) == ev


def test_row_and_transaction_json() -> None:
    row = RowEvent("", "d", "t")
    assert to_json(row) == '{"v": 1, "type": "row", "channel": "", "db": "d", "table": "t"}'
    trx = TransactionEvent("c", TransactionKind.GTID, "uuid:1")
    assert json.loads(to_json(trx)) == {"v": 1, "type": "transaction", "channel": "c", "kind": "GTID", "gtid": "uuid:1"}
    assert from_json(to_json(row)) == row and from_json(to_json(trx)) == trx


def test_optional_fields_default() -> None:
    assert from_json('{"v": 1, "type": "query", "command": "BEGIN"}') == QueryEvent(command=CK.BEGIN)
    assert from_json('{"v": 1, "type": "row", "db": "d", "table": "t"}') == RowEvent("", "d", "t")
    assert from_json('{"v":1,"type":"query","command":"INSERT","tables":[{"db":null,"table":"t"}]}').tables == (
        TableRef(None, "t", True),
    )


def test_sql_without_a_table_list_gives_the_tables() -> None:
    event = from_json('{"v": 1, "type": "query", "default_db": "d", "command": "INSERT", '
                      '"sql": " INSERT INTO x.t SELECT * FROM u ; "}')
    assert event.tables == (TableRef("x", "t", True), TableRef(None, "u", False))
    # an explicit list, even an empty one, is taken as given
    assert from_json('{"v": 1, "type": "query", "command": "INSERT", "tables": [], "sql": "INSERT INTO t VALUES (1)"}').tables == ()
    with pytest.raises(EventFormatError) as err:
        from_json('{"v": 1, "type": "query", "command": "INSERT", "sql": "  ;"}')
    assert err.value.field == "sql" and "cannot derive the tables from the SQL text" in str(err.value)


def test_non_ascii_kept_verbatim() -> None:
    ev = RowEvent("", "dä", "tö")
    assert "dä" in to_json(ev) and from_json(to_json(ev)) == ev


@pytest.mark.parametrize(
    "text, field, words",
    [
        ("not json", "", "not valid JSON"),
        ("[1]", "", "JSON object"),
        ('{"type": "row", "db": "d", "table": "t"}', "v", "missing"),
        ('{"v": 2, "type": "row", "db": "d", "table": "t"}', "v", "unsupported version"),
        ('{"v": true, "type": "row", "db": "d", "table": "t"}', "v", "unsupported version"),
        ('{"v": 1, "type": "rows", "db": "d", "table": "t"}', "type", "expected one of"),
        ('{"v": 1, "type": "row", "db": "d"}', "table", "missing"),
        ('{"v": 1, "type": "row", "db": 3, "table": "t"}', "db", "expected a string"),
        ('{"v": 1, "type": "row", "db": "d", "table": "t", "tabel": "x"}', "tabel", "unknown field"),
        ('{"v": 1, "type": "query", "command": "INSRET"}', "command", "unknown value"),
        ('{"v": 1, "type": "query", "command": "INSERT", "tables": {}}', "tables", "expected a list"),
        ('{"v": 1, "type": "query", "command": "INSERT", "tables": ["d.t"]}', "tables[0]", "expected an object"),
        ('{"v": 1, "type": "query", "command": "INSERT", "tables": [{"table": ""}]}', "tables[0].table", "non-empty"),
        ('{"v": 1, "type": "query", "command": "INSERT", "tables": [{"table": "t", "updating": "yes"}]}', "tables[0].updating", "true or false"),
        ('{"v": 1, "type": "query", "command": "INSERT", "tables": [{"table": "t", "x": 1}]}', "tables[0].x", "unknown field"),
        ('{"v": 1, "type": "query", "command": "INSERT", "tables": [{"db": 1, "table": "t"}]}', "tables[0].db", "string or null"),
        ('{"v": 1, "type": "query", "command": "DROP_TABLE", "temporary": 1}', "temporary", "true or false"),
        ('{"v": 1, "type": "query", "command": "INSERT", "sql": 5}', "sql", "string or null"),
        ('{"v": 1, "type": "transaction", "kind": "NOPE"}', "kind", "unknown value"),
        ('{"v": 1, "type": "row", "channel": null, "db": "d", "table": "t"}', "channel", "expected a string"),
    ],
)
def test_bad_json_names_the_field(text: str, field: str, words: str) -> None:
    with pytest.raises(EventFormatError) as info:
        from_json(text)
    assert isinstance(info.value, ValueError)
    assert info.value.field == field
    assert words in str(info.value)


def test_from_dict_rejects_non_objects() -> None:
    with pytest.raises(EventFormatError):
        from_dict("row")


_names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
_tables = st.lists(st.builds(TableRef, st.none() | _names, _names.filter(bool), st.booleans()), max_size=4)
_events = st.one_of(
    st.builds(
        QueryEvent, _names, _names, st.sampled_from(list(CK)), _tables.map(tuple), st.none() | _names, st.booleans(), st.booleans()
    ),
    st.builds(RowEvent, _names, _names, _names),
    st.builds(TransactionEvent, _names, st.sampled_from(list(TransactionKind)), st.none() | _names),
)


@settings(max_examples=200, deadline=None)
@given(_events)
def test_json_round_trip(event) -> None:
    assert from_json(to_json(event)) == event
    assert "\n" not in to_json(event)


def test_command_kind_properties() -> None:
    assert CK.INSERT_SELECT.is_dml and CK.LOAD.is_dml and not CK.CREATE_TABLE.is_dml
    assert CK.ALTER_DB.is_database_statement and not CK.CREATE_TABLE.is_database_statement
    drop_tmp = QueryEvent(command=CK.DROP_TABLE, temporary=True, if_exists=True)
    assert drop_tmp.exempt_from_table_rules
    assert not QueryEvent(command=CK.DROP_TABLE, temporary=True).exempt_from_table_rules
    assert QueryEvent(command=CK.SET_OPTION).exempt_from_table_rules


def test_a_json_syntax_error_says_what_and_at_which_column_once():
    with pytest.raises(EventFormatError) as info:
        from_json('{"bad json')
    assert "not valid JSON: Unterminated string starting at column 2" in str(info.value)
    assert " at at " not in str(info.value)
