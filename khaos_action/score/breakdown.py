"""The security phase per channel and per objective: executed, outcomes, not exercised, not applicable, and the
user's task under attack (utility), for every report's tables; and how each row changed from one run to another
(`BreakdownChange`, `breakdown_changes`), which `compare` puts on its `Comparison`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel

from khaos_action.manifest import AttackBreakdown, BreakdownRow, CaseResult, SkippedAttack
from khaos_action.outcome import Outcome, Phase

_OUTCOME_FIELD = {Outcome.BLOCKED: "blocked", Outcome.COMPROMISED: "compromised", Outcome.UNCERTAIN: "uncertain"}
NOT_EXERCISED = "not exercised"
"""How a skipped attack's reason starts when it applied but nothing reached the agent (attacks/recon.py)."""


def attack_breakdown(results: Sequence[CaseResult], skipped: Sequence[SkippedAttack]) -> AttackBreakdown | None:
    """Per channel and per objective; None when no attack was selected at all."""
    attacks = [r for r in results if r.phase == Phase.SECURITY and r.repeat == 0]
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


class BreakdownChange(BaseModel):
    """One channel's or objective's attack success and utility under attack, base → head (None: not measured)."""

    kind: Literal["channel", "objective"]
    name: str
    base_success: float | None = None
    head_success: float | None = None
    base_utility: float | None = None
    head_utility: float | None = None


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def breakdown_changes(base: AttackBreakdown | None, head: AttackBreakdown | None) -> list[BreakdownChange]:
    """Attack success and utility under attack of every channel and objective either run has, base → head; empty
    unless both runs recorded a breakdown (an older base run did not)."""
    if base is None or head is None:
        return []
    changes = []
    for kind, before, after in (("channel", base.by_channel, head.by_channel),
                                ("objective", base.by_objective, head.by_objective)):
        for name in sorted(set(before) | set(after)):
            b, h = before.get(name, BreakdownRow()), after.get(name, BreakdownRow())
            changes.append(BreakdownChange(
                kind=kind, name=name, base_success=_rate(b.compromised, b.executed),
                head_success=_rate(h.compromised, h.executed), base_utility=_rate(b.utility_kept, b.utility_judged),
                head_utility=_rate(h.utility_kept, h.utility_judged)))
    return changes
