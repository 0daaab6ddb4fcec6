"""What a lint finding is: one rule (or channel) that does not do what it looks like it does.

A finding names the channel, the rule as SHOW REPLICA STATUS writes it, a stable code from
:mod:`replfilter.lint.codes`, a message that says what happens instead, and, when one exists, a
fix: the filter types to set on that channel so the configuration does what was probably meant.
The fix is kept as data (the new rule lists) so that it can be printed as a CHANGE REPLICATION
FILTER statement or as startup options, and applied in tests to check that it cures the finding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..core.filters import FilterType, Rule, display_rules
from .codes import CODES


class Level(str, Enum):
    """SARIF's levels; ``error`` loses data for sure, ``warning`` may, ``note`` informs."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "note": 2}[self.value]


@dataclass(frozen=True)
class Fix:
    """The rule lists to set on ``channel`` (None: the global filter, i.e. no FOR CHANNEL).

    ``types`` maps each changed type to its complete new list, as CHANGE REPLICATION FILTER
    replaces a type's list whole (mysql-filter-statements.md, section 4.2).
    """

    channel: str | None
    types: tuple[tuple[FilterType, tuple[Rule, ...]], ...]

    def statement(self) -> str:
        from ..dialect import ast
        from ..dialect.printer import to_sql

        defs = []
        for ftype, rules in self.types:
            values: list[Any] = []
            for rule in rules:
                if ftype in (FilterType.DO_TABLE, FilterType.IGNORE_TABLE):
                    db, _, table = str(rule).partition(".")
                    values.append(ast.QualifiedName(db, table))
                else:
                    values.append(rule)
            defs.append(ast.FilterDef(ftype, tuple(values)))
        return to_sql(ast.ChangeReplicationFilter(tuple(defs), self.channel))

    def options(self) -> tuple[str, ...]:
        """The same change as ``--replicate-*`` options: every option of each changed type is
        replaced by these (startup options add up, so the old ones must go)."""
        prefix = "" if self.channel is None else f"{self.channel}:"
        out: list[str] = []
        for ftype, rules in self.types:
            if not rules and self.channel is None:
                out.append(f"(no --{ftype.option})")
            elif not rules:
                # A channel with no rules of a type gets the global ones copied in at start-up
                # (mysql-filter-statements.md, section 5.2): options cannot empty it alone.
                out.append(f"(no --{ftype.option}={self.channel}:...; the global --{ftype.option} rules would still be copied in)")
            for rule in rules:
                value = f"{rule[0]}->{rule[1]}" if isinstance(rule, tuple) else rule
                out.append(f"--{ftype.option}={prefix}{value}")
        return tuple(out)


@dataclass(frozen=True)
class Finding:
    """One finding. ``ftype``/``rule`` say which rule it is about (None for a channel-wide
    finding); ``example_event`` is the event the message quotes, when there is one (tests decide
    it with the configuration and with the fix, and hold the message to both verdicts)."""

    channel: str
    code: str
    message: str
    ftype: FilterType | None = None
    rule: Rule | None = None
    fix: Fix | None = None
    example_event: Any = field(default=None, compare=False)
    level_override: "Level | None" = None
    location: tuple[str, int] | None = field(default=None, compare=False)

    @property
    def level(self) -> Level:
        if self.level_override is not None:
            return self.level_override
        return Level(CODES[self.code].level)

    @property
    def name(self) -> str:
        return CODES[self.code].name

    @property
    def reference(self) -> str:
        return CODES[self.code].reference

    @property
    def rule_text(self) -> str | None:
        """``REPLICATE_DO_DB: db1,db2``: the type and the rule as SHOW REPLICA STATUS writes it."""
        if self.ftype is None:
            return None
        if self.rule is None:
            return self.ftype.keyword
        return f"{self.ftype.keyword}: {display_rules(self.ftype, (self.rule,))}"

    @property
    def fix_text(self) -> str | None:
        return self.fix.statement() if self.fix is not None else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``replfilter lint --format json`` writes."""
        return {
            "channel": self.channel,
            "level": self.level.value,
            "code": self.code,
            "name": self.name,
            "rule": self.rule_text,
            "message": self.message,
            "fix": self.fix_text,
            "fix_options": list(self.fix.options()) if self.fix is not None else None,
            "reference": self.reference,
            "location": {"file": self.location[0], "line": self.location[1]} if self.location else None,
        }


def sort_key(finding: Finding) -> tuple:
    """Channels in MySQL's byte order, then the code, then the rule."""
    return (finding.channel.encode("utf-8"), finding.code, str(finding.rule))
