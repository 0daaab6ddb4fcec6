"""The three ways findings are written: text for people, JSON lines for scripts, SARIF 2.1.0
for code review (each result points at the option file and line its rule came from)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Sequence

from .. import __version__
from .codes import CODES
from .findings import Finding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def to_text(findings: Sequence[Finding]) -> str:
    lines = []
    for f in findings:
        where = f"{f.location[0]}:{f.location[1]}: " if f.location else ""
        lines.append(f"{where}channel '{f.channel}': {f.level.value} {f.code} {f.name}: {f.message}")
        if f.rule_text:
            lines.append(f"    rule: {f.rule_text}")
        if f.fix is not None:
            lines.append(f"    fix:  {f.fix.statement()};")
            lines.append(f"          (as startup options: {' '.join(f.fix.options())})")
    counts = Counter(f.level.value for f in findings)
    summary = ", ".join(f"{counts[level]} {level}{'s' if counts[level] != 1 else ''}" for level in ("error", "warning", "note") if counts[level])
    lines.append(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}" + (f" ({summary})" if summary else ""))
    return "\n".join(lines) + "\n"


def to_json_lines(findings: Sequence[Finding]) -> str:
    return "".join(json.dumps(f.to_dict(), ensure_ascii=False) + "\n" for f in findings)


def to_sarif(findings: Sequence[Finding]) -> str:
    used = sorted({f.code for f in findings})
    rules = [
        {
            "id": code,
            "name": CODES[code].name,
            "shortDescription": {"text": CODES[code].summary},
            "helpUri": CODES[code].reference.split(";")[0].strip(),
            "defaultConfiguration": {"level": CODES[code].level},
        }
        for code in used
    ]
    results = []
    for f in findings:
        text = f.message + (f" Fix: {f.fix.statement()};" if f.fix is not None else "")
        result: dict = {
            "ruleId": f.code,
            "ruleIndex": used.index(f.code),
            "level": f.level.value,
            "message": {"text": text},
            "properties": {"channel": f.channel, "rule": f.rule_text, "fix": f.fix_text},
        }
        if f.location is not None:
            result["locations"] = [{
                "physicalLocation": {
                    "artifactLocation": {"uri": f.location[0]},
                    "region": {"startLine": f.location[1]},
                }
            }]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "replfilter", "version": __version__,
                                "informationUri": "https://dev.mysql.com/doc/refman/8.4/en/replication-rules.html",
                                "rules": rules}},
            "results": results,
        }],
    }
    return json.dumps(log, ensure_ascii=False, indent=2) + "\n"
