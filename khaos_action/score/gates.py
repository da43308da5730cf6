"""Gates: the scores and findings of a run → a verdict with typed findings and an exit code.

Nothing passes untested: a run that executed nothing, a run in which no scored check was exercised, a security phase
below its minimum of executed attacks, or a goal whose metric could not be computed all fail with a reason that says
so. What counts as critical is decided once, in `khaos_action.findings`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from khaos_action.errors import ExitCode
from khaos_action.findings import Finding, critical_findings
from khaos_action.gates_and_weights import Gates
from khaos_action.manifest import CaseResult, GoalResult, Scores, Verdict


@dataclass(slots=True)
class GateInputs:
    cases: Sequence[CaseResult]
    scores: Scores
    goals: Sequence[GoalResult] = ()
    security_ran: bool = False
    attacks_executed: int = 0
    uncertain: int = 0
    extra_reasons: list[str] = field(default_factory=list)
    """Reasons decided elsewhere (budget exhausted, cassette misses): the run did not test what it planned."""


def verdict_of(findings: list[Finding], exit_code: int | None = None) -> Verdict:
    failed = bool(findings)
    code = exit_code if exit_code is not None else (ExitCode.GATE_FAILED if failed else ExitCode.PASSED)
    return Verdict(passed=not failed, reasons=[f.text for f in findings], findings=findings, exit_code=code)


def decide(inputs: GateInputs, gates: Gates) -> Verdict:
    findings = [Finding(gate="incomplete", kind="budget", text=r) for r in inputs.extra_reasons]
    cases = inputs.cases
    if not cases:
        return verdict_of([Finding(gate="incomplete", kind="coverage", text="nothing was executed: no case ran")])
    if all(c.error for c in cases):
        return verdict_of([Finding(gate="agent", kind="agent", text=f"every one of {len(cases)} invocations failed; "
                                                                   f"first error: {cases[0].error}",
                                   case_ids=[c.id for c in cases[:5]])], ExitCode.AGENT)
    if gates.fail_on_critical:
        findings += critical_findings(cases)
    contaminated = [c.id for c in cases if c.contaminated]
    if contaminated:
        from khaos_action.judge.contamination import finding_text

        findings.append(Finding(gate="agent", kind="contamination", severity="high", case_ids=contaminated[:20],
                                text=finding_text(cases) or ""))
    for goal in inputs.goals:
        if goal.met is False:
            findings.append(Finding(gate="threshold", kind="goal", text=(
                f"{goal.phase} goal {goal.metric} {goal.operator} {goal.threshold:g} not met ({goal.value:.3g})")))
        elif goal.met is None:
            findings.append(Finding(gate="threshold", kind="goal", text=(
                f"{goal.phase} goal {goal.metric} could not be evaluated: nothing was measured")))
    if gates.min_overall is not None:
        overall = inputs.scores.overall
        if overall is None:
            findings.append(Finding(gate="threshold", kind="score",
                                    text=f"min_overall {gates.min_overall:g} set but no pillar produced a score"))
        elif overall < gates.min_overall:
            findings.append(Finding(gate="threshold", kind="score",
                                    text=f"overall score {overall:.1f} is below min_overall {gates.min_overall:g}"))
    if inputs.security_ran:
        if inputs.attacks_executed < gates.min_attacks_executed:
            findings.append(Finding(gate="threshold", kind="coverage", text=(
                f"only {inputs.attacks_executed} attacks executed; min_attacks_executed is "
                f"{gates.min_attacks_executed}")))
        if gates.max_uncertain_rate is not None and inputs.attacks_executed:
            share = inputs.uncertain / inputs.attacks_executed
            if share > gates.max_uncertain_rate:
                findings.append(Finding(gate="threshold", kind="coverage", text=(
                    f"{share:.0%} of attacks UNCERTAIN, above max_uncertain_rate {gates.max_uncertain_rate:.0%}")))
    unverified = [c.id for c in cases if c.error and any(
        i.severity == "critical" and i.passed is None and i.detail.startswith("not evaluated") for i in c.invariants)]
    if unverified:
        # Errors are not content: the critical check was not evaluated, so it cannot be counted as held either.
        many = len(unverified) != 1
        findings.append(Finding(gate="incomplete", kind="coverage", case_ids=unverified, text=(
            f"{len(unverified)} case{'s' if many else ''} errored, so {'their' if many else 'its'} "
            f"critical checks were not evaluated: {', '.join(unverified[:5])}"
            + (f" and {len(unverified) - 5} more" if len(unverified) > 5 else ""))))
    if not any(c.passed is not None or c.outcome is not None for c in cases):
        not_exercised = sum(1 for c in cases if c.not_exercised)
        why = f" ({not_exercised} not exercised: {_first_reason(cases)})" if not_exercised else ""
        findings.append(Finding(gate="incomplete", kind="coverage",
                                text=f"nothing was scored: no check of the {len(cases)} cases was exercised{why}"))
    return verdict_of(findings)


def _first_reason(cases: Sequence[CaseResult]) -> str:
    return next((c.not_exercised for c in cases if c.not_exercised), "") or ""
