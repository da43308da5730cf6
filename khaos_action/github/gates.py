"""The action's `fail-on` gates: which findings of the run and of the base-branch comparison fail the job."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from khaos_action.report.manifest import Manifest
from khaos_action.score.gates import (
    EXIT_AGENT,
    EXIT_GATE_FAILED,
    EXIT_PASSED,
    critical_failures,
)

CRITICAL_PREFIXES = ("critical invariant failed", "critical/high attack COMPROMISED")
INCOMPLETE_PREFIXES = ("budget exhausted", "nothing was executed")
"""Reasons that say the run did not test what it planned: they fail whatever `fail-on` lists (except `never`),
because a pass on what did not run would be a pass on nothing."""


@dataclass(frozen=True)
class Finding:
    gate: str
    """critical | regression | threshold | incomplete"""
    reason: str


@dataclass
class GateDecision:
    exit_code: int
    failing: list[Finding] = field(default_factory=list)
    """Findings of gates named in `fail-on`: these fail the job."""
    ignored: list[Finding] = field(default_factory=list)
    """Findings of gates not in `fail-on`: shown, not failing."""

    @property
    def passed(self) -> bool:
        return self.exit_code == EXIT_PASSED


def findings(manifest: Manifest, comparison: Any | None, *, min_score: float | None) -> list[Finding]:
    found = [Finding("critical", reason) for reason in critical_failures(manifest.cases)]
    if comparison is not None:
        found += [Finding("regression", reason) for reason in regression_reasons(comparison)]
    overall = manifest.scores.overall
    if min_score is not None:
        if overall is None:
            found.append(Finding("threshold", f"min-score {min_score:g} set but the run produced no overall score"))
        elif overall < min_score:
            found.append(Finding("threshold", f"overall score {overall:.1f} is below min-score {min_score:g}"))
    # The run's own verdict (config gates: goals, min_overall, uncertain rate, attacks executed); its critical
    # reasons are the `critical` gate's, already counted above from the cases themselves.
    for reason in manifest.verdict.reasons:
        if reason.startswith(INCOMPLETE_PREFIXES):
            found.append(Finding("incomplete", reason))
        elif not reason.startswith(CRITICAL_PREFIXES):
            found.append(Finding("threshold", reason))
    return found


def regression_reasons(comparison: Any) -> list[str]:
    """Significant score drops and cases that passed on base and fail on head (never noise)."""
    reasons = []
    for row in getattr(comparison, "scores", None) or getattr(comparison, "score_rows", None) or []:
        delta = _get(row, "delta")
        if _get(row, "significant") and delta is not None and delta < 0:
            p = _get(row, "p_value")
            shown = f", p={p:.3g}" if isinstance(p, (int, float)) else ""
            reasons.append(f"{_get(row, 'name')} score dropped {abs(delta):.1f} points vs the base branch "
                           f"(significant{shown})")
    newly = list(getattr(comparison, "newly_failing", None) or [])
    if newly:
        ids = [_case_id(item) for item in newly]
        more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
        reasons.append(f"{len(ids)} case{'s' if len(ids) != 1 else ''} passed on the base branch and "
                       f"{'fail' if len(ids) != 1 else 'fails'} now: "
                       + ", ".join(ids[:5]) + more)
    if not reasons and getattr(comparison, "significant_regression", False):
        reasons.append("significant regression against the base branch")
    return reasons


def decide(manifest: Manifest, comparison: Any | None, *, fail_on: Sequence[str],
           min_score: float | None) -> GateDecision:
    if manifest.verdict.exit_code == EXIT_AGENT:
        # The agent could not be run at all: not a gate the user can switch off.
        return GateDecision(EXIT_AGENT, [Finding("agent", r) for r in manifest.verdict.reasons])
    active = set(fail_on) - {"never"}
    if "never" not in fail_on:
        active.add("incomplete")
    all_findings = findings(manifest, comparison, min_score=min_score)
    failing = [f for f in all_findings if f.gate in active]
    ignored = [f for f in all_findings if f.gate not in active]
    return GateDecision(EXIT_GATE_FAILED if failing else EXIT_PASSED, failing, ignored)


def _get(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, dict) else getattr(row, name, None)


def _case_id(item: Any) -> str:
    if isinstance(item, str):
        return item
    return str(_get(item, "id") or _get(item, "case_id") or item)
