"""Judged cases → metrics, goals, scores, counts and verdict: shared by a run and by `merge` of shard manifests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from khaos_action.llm.health import run_alert
from khaos_action.manifest import CaseResult, Counts, GoalResult, Scores, Verdict
from khaos_action.metrics import completion_metrics, evaluate_goal, rate
from khaos_action.policy import Gates, Weights
from khaos_action.score.gates import GateInputs, decide
from khaos_action.score.pillars import compute_scores
from khaos_action.score.statistics import mark_flaky, pass_rates, security_breakdown

OUTCOME_METRIC = {"BLOCKED": "block_rate", "COMPROMISED": "compromise_rate", "UNCERTAIN": "uncertain_rate"}


@dataclass(slots=True)
class GoalSpec:
    phase: str
    metric: str
    operator: str
    threshold: float


@dataclass(slots=True)
class Summary:
    scores: Scores
    score_notes: dict[str, str]
    metrics: dict[str, dict]
    goals: list[GoalResult]
    counts: Counts
    verdict: Verdict
    stats: dict = field(default_factory=dict)
    flaky: list[str] = field(default_factory=list)
    alerts: list[str] = field(default_factory=list)
    """What every view says first (the agent's model failing), from the cases' LLM telemetry."""


def phase_metrics(results: Sequence[CaseResult]) -> dict[str, dict]:
    by_phase: dict[str, list[CaseResult]] = {}
    for r in results:
        by_phase.setdefault(r.phase, []).append(r)
    metrics: dict[str, dict] = {}
    for phase, cases in by_phase.items():
        m = completion_metrics(cases)
        if phase == "resilience":
            m["recovery_rate"] = m["task_completion"]
            m["not_exercised"] = sum(1 for c in cases if c.passed is None and not c.error)
        if phase == "security":
            executed = [c for c in cases if c.outcome]
            for outcome, key in OUTCOME_METRIC.items():
                m[key] = rate(sum(1 for c in executed if c.outcome == outcome), len(executed))
        metrics[phase] = m
    return metrics


def _counts(results: Sequence[CaseResult], attacks_skipped: int) -> Counts:
    """Every count in one pass over the cases (ten passes were 0.1 s of `merge` at 50k cases, issue 19)."""
    invocations = errors = executed = not_exercised = 0
    outcomes = dict.fromkeys(OUTCOME_METRIC, 0)
    ids: set[str] = set()
    configured: set[str] = set()
    fired: set[str] = set()
    for r in results:
        invocations += len(r.attempts) or 1
        ids.add(r.id)
        if r.error:
            errors += 1
        if r.outcome is not None and r.phase == "security":
            executed += 1
            if r.outcome in outcomes:
                outcomes[r.outcome] += 1
        if r.fault_ids:
            configured.update(r.fault_ids)
        if r.faults_fired:
            fired.update(r.faults_fired)
        if r.not_exercised:
            not_exercised += 1
    return Counts(invocations=invocations, cases=len(ids), errors=errors, attacks_executed=executed,
                  attacks_skipped=attacks_skipped, blocked=outcomes["BLOCKED"], compromised=outcomes["COMPROMISED"],
                  uncertain=outcomes["UNCERTAIN"], faults_configured=len(configured), faults_fired=len(fired),
                  not_exercised=not_exercised)


def summarise(results: Sequence[CaseResult], *, goals: Sequence[GoalSpec], gates: Gates, weights: Weights,
              attacks_skipped: int = 0, security_planned: bool = False,
              extra_reasons: Sequence[str] = ()) -> Summary:
    flaky = mark_flaky(results)
    scores, notes = compute_scores(results, weights)
    metrics = phase_metrics(results)
    goal_results = [
        GoalResult(phase=g.phase, metric=g.metric, operator=g.operator, threshold=g.threshold,
                   value=metrics.get(g.phase, {}).get(g.metric),
                   met=evaluate_goal(metrics.get(g.phase, {}).get(g.metric), g.operator, g.threshold))
        for g in goals
    ]
    counts = _counts(results, attacks_skipped)
    verdict = decide(GateInputs(
        cases=results, scores=scores, goals=goal_results,
        security_ran=security_planned or any(r.phase == "security" for r in results),
        attacks_executed=counts.attacks_executed, uncertain=counts.uncertain, extra_reasons=list(extra_reasons),
    ), gates)
    stats = {"pass_rates": pass_rates(results), "security": security_breakdown(results)}
    alert = run_alert(results)
    return Summary(scores=scores, score_notes=notes, metrics=metrics, goals=goal_results, counts=counts,
                   verdict=verdict, stats=stats, flaky=flaky, alerts=[alert] if alert else [])
