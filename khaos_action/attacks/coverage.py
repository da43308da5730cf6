"""Coverage of a selection: per category and per OWASP id, how many attacks ran and how many could not apply.

Pure: the report renders the table; an OWASP id with nothing executed is listed so nobody reads silence as safety.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from khaos_action.config.corpus import ASI_IDS, LLM_IDS, Attack
from khaos_action.plan.scheduler import Selection


def _row() -> dict[str, int]:
    return {"selected": 0, "executed": 0, "not_executed": 0, "not_applicable": 0}


def coverage_table(selection: Selection, executed_ids: Iterable[str]) -> dict[str, Any]:
    """`executed_ids`: attack ids that actually ran (a shard or a crashed case may leave applicable ones unrun).

    Returns {"totals": row, "categories": {cat: row}, "owasp": {id: row}, "not_applicable_reasons": {reason: n},
    "uncovered_owasp": [ids with nothing executed]}; row = selected / executed / not_executed / not_applicable.
    """
    executed = set(executed_ids)
    totals = _row()
    categories: dict[str, dict[str, int]] = {}
    owasp: dict[str, dict[str, int]] = {oid: _row() for oid in ASI_IDS + LLM_IDS}
    reasons: dict[str, int] = {}

    def count(attack: Attack, column: str) -> None:
        for row in (totals, categories.setdefault(attack.category, _row()),
                    *(owasp.setdefault(o, _row()) for o in attack.owasp)):
            row["selected"] += 1
            row[column] += 1

    for attack in selection.applicable:
        count(attack, "executed" if attack.id in executed else "not_executed")
    for attack, reason in selection.not_applicable:
        count(attack, "not_applicable")
        reasons[reason] = reasons.get(reason, 0) + 1
    return {
        "totals": totals,
        "categories": dict(sorted(categories.items())),
        "owasp": owasp,
        "not_applicable_reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        "uncovered_owasp": [oid for oid, row in owasp.items() if row["executed"] == 0],
    }
