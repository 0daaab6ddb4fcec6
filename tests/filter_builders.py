"""Filter sets for evaluator tests: ``fset(do_db=["d"], wild_ignore=["d.tmp%"])``."""

from __future__ import annotations

from typing import Any

from replfilter.core.filters import ConfiguredBy, FilterSet, FilterType, NameCollation

RULE_TYPES = {
    "do_db": FilterType.DO_DB,
    "ignore_db": FilterType.IGNORE_DB,
    "do_table": FilterType.DO_TABLE,
    "ignore_table": FilterType.IGNORE_TABLE,
    "wild_do": FilterType.WILD_DO_TABLE,
    "wild_ignore": FilterType.WILD_IGNORE_TABLE,
    "rewrite": FilterType.REWRITE_DB,
}


def fset(lctn: int = 0, **rules: Any) -> FilterSet:
    """A filter set with the given rules, each type set as a startup option would set it."""
    filters = FilterSet()
    for name, values in rules.items():
        filters = filters.set_type(RULE_TYPES[name], values, ConfiguredBy.STARTUP_OPTIONS, now_us=1, collation=NameCollation(lctn))
    return filters
