"""The security phase per channel and per objective: executed, outcomes, not exercised, not applicable, and the
user's task under attack (utility), for every report's tables and for `compare`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from khaos_action.manifest import AttackBreakdown, BreakdownRow, CaseResult, SkippedAttack

_OUTCOME_FIELD = {"BLOCKED": "blocked", "COMPROMISED": "compromised", "UNCERTAIN": "uncertain"}
NOT_EXERCISED = "not exercised"
"""How a skipped attack's reason starts when it applied but nothing reached the agent (attacks/recon.py)."""


def attack_breakdown(results: Sequence[CaseResult], skipped: Sequence[SkippedAttack]) -> AttackBreakdown | None:
    """Per channel and per objective; None when no attack was selected at all."""
    attacks = [r for r in results if r.phase == "security" and r.repeat == 0]
    if not attacks and not skipped:
        return None
    return AttackBreakdown(by_channel=_rows(attacks, skipped, lambda x: x.channel or "?"),
                           by_objective=_rows(attacks, skipped, lambda x: x.objective or "?"))


def _rows(attacks: Sequence[CaseResult], skipped: Sequence[SkippedAttack],
          key: Callable[[CaseResult | SkippedAttack], str]) -> dict[str, BreakdownRow]:
    rows: dict[str, BreakdownRow] = {}
    for result in attacks:
        row = rows.setdefault(key(result), BreakdownRow())
        if result.outcome in _OUTCOME_FIELD:
            row.executed += 1
            setattr(row, _OUTCOME_FIELD[result.outcome], getattr(row, _OUTCOME_FIELD[result.outcome]) + 1)
        elif "payload_not_delivered" not in result.evidence_tags:  # those are listed in `skipped` as well
            row.not_exercised += 1
        if result.utility is not None and result.utility.passed is not None:
            row.utility_judged += 1
            row.utility_kept += result.utility.passed
    for attack in skipped:
        row = rows.setdefault(key(attack), BreakdownRow())
        if attack.reason.startswith(NOT_EXERCISED):
            row.not_exercised += 1
        else:
            row.not_applicable += 1
    return dict(sorted(rows.items()))
