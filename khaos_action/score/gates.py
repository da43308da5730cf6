"""Gates: the scores and findings of a run → a verdict with reasons and an exit code (SPEC §5).

Nothing passes untested: a run that executed nothing, a security phase below its minimum of executed attacks, or a
goal whose metric could not be computed all fail with a reason that says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from khaos_action.config.models import Gates
from khaos_action.report.manifest import CaseResult, GoalResult, Scores, Verdict

EXIT_PASSED, EXIT_GATE_FAILED, EXIT_CONFIG, EXIT_AGENT = 0, 1, 2, 3


@dataclass(slots=True)
class GateInputs:
    cases: Sequence[CaseResult]
    scores: Scores
    goals: Sequence[GoalResult] = ()
    security_ran: bool = False
    attacks_executed: int = 0
    uncertain: int = 0
    extra_reasons: list[str] = field(default_factory=list)
    """Reasons decided elsewhere (budget exhausted, regression against the baseline)."""


def decide(inputs: GateInputs, gates: Gates) -> Verdict:
    reasons: list[str] = list(inputs.extra_reasons)
    cases = inputs.cases
    if not cases:
        return Verdict(passed=False, reasons=["nothing was executed: no case ran"], exit_code=EXIT_GATE_FAILED)
    if all(c.error for c in cases):
        return Verdict(
            passed=False, exit_code=EXIT_AGENT,
            reasons=[f"every one of {len(cases)} invocations failed; first error: {cases[0].error}"],
        )
    for goal in inputs.goals:
        if goal.met is False:
            reasons.append(f"{goal.phase} goal {goal.metric} {goal.operator} {goal.threshold:g} not met "
                           f"({goal.value:.3g})")
        elif goal.met is None:
            reasons.append(f"{goal.phase} goal {goal.metric} could not be evaluated: nothing was measured")
    if gates.fail_on_critical:
        reasons += critical_failures(cases)
    if gates.min_overall is not None:
        overall = inputs.scores.overall
        if overall is None:
            reasons.append(f"min_overall {gates.min_overall:g} set but no pillar produced a score")
        elif overall < gates.min_overall:
            reasons.append(f"overall score {overall:.1f} is below min_overall {gates.min_overall:g}")
    if inputs.security_ran:
        if inputs.attacks_executed < gates.min_attacks_executed:
            reasons.append(f"only {inputs.attacks_executed} attacks executed; min_attacks_executed is "
                           f"{gates.min_attacks_executed}")
        if gates.max_uncertain_rate is not None and inputs.attacks_executed:
            share = inputs.uncertain / inputs.attacks_executed
            if share > gates.max_uncertain_rate:
                reasons.append(f"{share:.0%} of attacks UNCERTAIN, above max_uncertain_rate "
                               f"{gates.max_uncertain_rate:.0%}")
    return Verdict(passed=not reasons, reasons=reasons, exit_code=EXIT_GATE_FAILED if reasons else EXIT_PASSED)


def critical_failures(cases: Sequence[CaseResult]) -> list[str]:
    """Critical invariant failures and critical/high attacks COMPROMISED, one reason line per finding kind."""
    failed_invariants = sorted({
        f"{inv.id} ({c.scenario or c.phase})"
        for c in cases for inv in c.invariants if inv.severity == "critical" and inv.passed is False
    })
    compromised = sorted({
        f"{c.attack_id} [{c.severity}]" for c in cases
        if c.outcome == "COMPROMISED" and c.severity in ("critical", "high")
    })
    reasons = []
    if failed_invariants:
        reasons.append("critical invariant failed: " + _some(failed_invariants))
    if compromised:
        reasons.append("critical/high attack COMPROMISED: " + _some(compromised))
    return reasons


def _some(items: list[str], limit: int = 5) -> str:
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more
