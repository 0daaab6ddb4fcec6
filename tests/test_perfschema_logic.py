"""AND, OR and NOT in a SELECT on the filter tables as MySQL evaluates them: each operand by
its ``val_bool`` (a number by whether it is zero, a string by its double, with warning 1292
when the text is not a number), three-valued (FALSE AND NULL = 0, TRUE OR NULL = 1, otherwise
NULL), short-circuited left to right, and always 1, 0 or NULL (``sql/item_cmpfunc.cc``:
``Item_cond_and::val_int``, ``Item_cond_or::val_int``, ``Item_func_not::val_int``). They used
Python's truth (``'x' OR 0`` was 1) and sqlglot's simplifier (``(0 AND NOT -1) OR (NOT 0 AND
-1)`` was -1)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings, strategies as st

from test_perfschema_literals import _replica

TABLE = "performance_schema.replication_applier_filters"
WARNING = "Truncated incorrect DOUBLE value: '{}'"

# Each literal's truth as MySQL reads it (None: NULL) and whether reading it warns; the strings'
# doubles are MySQL's my_strntod of their text ('1abc' is 1 with a warning, ' 2' is 2 without).
LITERALS = {"0": (False, False), "1": (True, False), "-1": (True, False), "2": (True, False),
            "0.0": (False, False), "0.5": (True, False), "NULL": (None, False), "'x'": (False, True),
            "'0'": (False, False), "'1abc'": (True, True), "' 2'": (True, False), "'0.0'": (False, False)}


@dataclass(frozen=True)
class Expr:
    op: str  # "lit", "AND", "OR", "NOT"
    args: tuple = ()
    text: str = ""

    def sql(self) -> str:
        if self.op == "lit":
            return self.text
        if self.op == "NOT":
            return f"(NOT {self.args[0].sql()})"
        return f"({self.args[0].sql()} {self.op} {self.args[1].sql()})"


def reference(expr: Expr, warnings: list[str]) -> bool | None:
    """Kleene's three-valued logic, evaluated left to right with the server's short circuit
    (an AND stops at FALSE, an OR at TRUE: the operands after it never warn)."""
    if expr.op == "lit":
        truth, warns = LITERALS[expr.text]
        if warns:
            warnings.append(WARNING.format(expr.text.strip("'")))
        return truth
    if expr.op == "NOT":
        value = reference(expr.args[0], warnings)
        return None if value is None else not value
    stop = expr.op == "OR"  # the value that decides the result
    left = reference(expr.args[0], warnings)
    if left is stop:
        return stop
    right = reference(expr.args[1], warnings)
    if right is stop:
        return stop
    return None if left is None or right is None else not stop


_EXPRS = st.recursive(
    st.sampled_from(sorted(LITERALS)).map(lambda text: Expr("lit", text=text)),
    lambda inner: st.one_of(st.tuples(st.sampled_from(["AND", "OR"]), inner, inner).map(lambda t: Expr(t[0], t[1:])),
                            inner.map(lambda e: Expr("NOT", (e,)))),
    max_leaves=6).filter(lambda e: e.op != "lit")  # a bare literal is itself, not a truth value


def _run(sql: str):
    return _replica(0).session.execute_text(sql)


@settings(max_examples=80, deadline=None)
@given(_EXPRS)
def test_logic_is_mysqls_three_valued_logic_on_numbers(expr):
    warnings: list[str] = []
    expected = reference(expr, warnings)
    result = _run(f"SELECT {expr.sql()} FROM {TABLE}")
    assert result.rows == (((None if expected is None else int(expected)),),)
    assert [(w.code, w.message) for w in result.warnings] == [(1292, w) for w in warnings]


@pytest.mark.parametrize("expression, value, warned", [
    ("'x' OR 0", 0, ["x"]),
    ("(0 AND NOT -1) OR (NOT 0 AND -1)", 1, []),
    ("0 AND 'x'", 0, []),  # short-circuited: 'x' is never read
    ("1 OR 'x'", 1, []),
    ("NULL AND 0", 0, []), ("NULL OR 1", 1, []), ("NULL AND 1", None, []), ("NOT NULL", None, []),
    ("2 AND 3", 1, []), ("NOT 7", 0, []), ("NOT 'x'", 1, ["x"]),
])
def test_examples(expression, value, warned):
    result = _run(f"SELECT {expression} FROM {TABLE}")
    assert result.rows == ((value,),)
    assert [w.message for w in result.warnings] == [WARNING.format(w) for w in warned]


def test_in_where_a_string_is_false_unless_a_number():
    assert _run(f"SELECT COUNTER FROM {TABLE} WHERE 'x' AND COUNTER = 0").rows == ()
    assert _run(f"SELECT COUNTER FROM {TABLE} WHERE 'x' OR COUNTER = 0").rows == ((0,),)
    assert _run(f"SELECT COUNTER FROM {TABLE} WHERE NOT 'x' AND FILTER_NAME LIKE 'REP%'").rows == ((0,),)
