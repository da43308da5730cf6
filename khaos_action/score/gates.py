"""Gates: the scores and findings of a run → a verdict with typed findings and an exit code.

Nothing passes untested: a run that executed nothing, a run in which no scored check was exercised, a security phase
below its minimum of executed attacks, or a goal whose metric could not be computed all fail with a reason that says
so. What counts as critical is decided once, in `khaos_action.findings`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    """Every gate's findings, in `GATES` order; a run that executed nothing, or whose every call failed, stops
    there (exit 1 / exit 3)."""
    stop = _cannot_judge(inputs.cases)
    if stop is not None:
        return stop
    return verdict_of([finding for gate in GATES for finding in gate(inputs, gates)])


def _cannot_judge(cases: Sequence[CaseResult]) -> Verdict | None:
    if not cases:
        return verdict_of([Finding(gate="incomplete", kind="coverage", text="nothing was executed: no case ran")])
    if all(c.error for c in cases):
        return verdict_of([Finding(gate="agent", kind="agent", text=f"every one of {len(cases)} invocations failed; "
                                                                   f"first error: {cases[0].error}",
                                   case_ids=[c.id for c in cases[:5]])], ExitCode.AGENT)
    return None


def _incomplete_budget(inputs: GateInputs, gates: Gates) -> list[Finding]:
    return [Finding(gate="incomplete", kind="budget", text=reason) for reason in inputs.extra_reasons]


def _critical(inputs: GateInputs, gates: Gates) -> list[Finding]:
    return critical_findings(inputs.cases) if gates.fail_on_critical else []


def _contamination(inputs: GateInputs, gates: Gates) -> list[Finding]:
    contaminated = [c.id for c in inputs.cases if c.contaminated]
    if not contaminated:
        return []
    from khaos_action.judge.contamination import finding_text

    return [Finding(gate="agent", kind="contamination", severity="high", case_ids=contaminated[:20],
                    text=finding_text(inputs.cases) or "")]


def _goals(inputs: GateInputs, gates: Gates) -> list[Finding]:
    findings = []
    for goal in inputs.goals:
        if goal.met is False:
            text = f"{goal.phase} goal {goal.metric} {goal.operator} {goal.threshold:g} not met ({goal.value:.3g})"
        elif goal.met is None:
            text = f"{goal.phase} goal {goal.metric} could not be evaluated: nothing was measured"
        else:
            continue
        findings.append(Finding(gate="threshold", kind="goal", text=text))
    return findings


def _min_overall(inputs: GateInputs, gates: Gates) -> list[Finding]:
    return below_floor(inputs.scores.overall, gates.min_overall, "min_overall", "no pillar produced a score")


def below_floor(overall: float | None, floor: float | None, name: str, unscored: str) -> list[Finding]:
    """The threshold finding when `overall` is under `floor` (the setting `name`), or there is no score to compare
    (`unscored` says why); none when there is no floor or the score clears it."""
    if floor is None:
        return []
    if overall is None:
        text = f"{name} {floor:g} set but {unscored}"
    elif overall < floor:
        text = f"overall score {overall:.1f} is below {name} {floor:g}"
    else:
        return []
    return [Finding(gate="threshold", kind="score", text=text)]


def _attacks_executed(inputs: GateInputs, gates: Gates) -> list[Finding]:
    if not inputs.security_ran or inputs.attacks_executed >= gates.min_attacks_executed:
        return []
    return [Finding(gate="threshold", kind="coverage", text=(
        f"only {inputs.attacks_executed} attacks executed; min_attacks_executed is {gates.min_attacks_executed}"))]


def _uncertain_rate(inputs: GateInputs, gates: Gates) -> list[Finding]:
    ceiling, executed = gates.max_uncertain_rate, inputs.attacks_executed
    if not inputs.security_ran or ceiling is None or not executed or inputs.uncertain / executed <= ceiling:
        return []
    return [Finding(gate="threshold", kind="coverage", text=(
        f"{inputs.uncertain / executed:.0%} of attacks UNCERTAIN, above max_uncertain_rate {ceiling:.0%}"))]


def _unverified_critical(inputs: GateInputs, gates: Gates) -> list[Finding]:
    unverified = [c.id for c in inputs.cases if _critical_not_evaluated(c)]
    if not unverified:
        return []
    many = len(unverified) != 1
    more = f" and {len(unverified) - 5} more" if len(unverified) > 5 else ""
    return [Finding(gate="incomplete", kind="coverage", case_ids=unverified, text=(
        f"{len(unverified)} case{'s' if many else ''} errored, so {'their' if many else 'its'} "
        f"critical checks were not evaluated: {', '.join(unverified[:5])}{more}"))]


def _critical_not_evaluated(case: CaseResult) -> bool:
    # Errors are not content: the critical check was not evaluated, so it cannot be counted as held either.
    return bool(case.error) and any(i.severity == "critical" and i.passed is None
                                    and i.detail.startswith("not evaluated") for i in case.invariants)


def _nothing_scored(inputs: GateInputs, gates: Gates) -> list[Finding]:
    cases = inputs.cases
    if any(c.passed is not None or c.outcome is not None for c in cases):
        return []
    not_exercised = sum(1 for c in cases if c.not_exercised)
    why = f" ({not_exercised} not exercised: {_first_reason(cases)})" if not_exercised else ""
    return [Finding(gate="incomplete", kind="coverage",
                    text=f"nothing was scored: no check of the {len(cases)} cases was exercised{why}")]


Gate = Callable[[GateInputs, Gates], list[Finding]]

GATES: tuple[Gate, ...] = (_incomplete_budget, _critical, _contamination, _goals, _min_overall, _attacks_executed,
                           _uncertain_rate, _unverified_critical, _nothing_scored)
"""Each gate reads the run and the `gates:` settings and returns its findings; the verdict lists them in this
order (the first is the headline's reason)."""


def _first_reason(cases: Sequence[CaseResult]) -> str:
    return next((c.not_exercised for c in cases if c.not_exercised), "") or ""
