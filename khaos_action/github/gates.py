"""The action's `fail-on` gates: which findings of the run and of the base-branch comparison fail the job."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from khaos_action.errors import ExitCode
from khaos_action.findings import Finding, critical_findings
from khaos_action.manifest import Manifest
from khaos_action.score.compare import Comparison

__all__ = ["Finding", "GateDecision", "decide", "findings", "regression_findings"]


@dataclass
class GateDecision:
    exit_code: int
    failing: list[Finding] = field(default_factory=list)
    """Findings of gates named in `fail-on`: these fail the job."""
    ignored: list[Finding] = field(default_factory=list)
    """Findings of gates not in `fail-on`: shown, not failing."""

    @property
    def passed(self) -> bool:
        return self.exit_code == ExitCode.PASSED


def findings(manifest: Manifest, comparison: Comparison | None, *, min_score: float | None) -> list[Finding]:
    # Critical findings come from the cases themselves (fail-on: critical works whatever the config's
    # fail_on_critical says); every other finding of the run's verdict keeps its gate.
    found = critical_findings(manifest.cases)
    if comparison is not None:
        found += regression_findings(comparison)
    overall = manifest.scores.overall
    if min_score is not None:
        if overall is None:
            found.append(Finding(gate="threshold", kind="score",
                                 text=f"min-score {min_score:g} set but the run produced no overall score"))
        elif overall < min_score:
            found.append(Finding(gate="threshold", kind="score",
                                 text=f"overall score {overall:.1f} is below min-score {min_score:g}"))
    found += [f for f in _verdict_findings(manifest) if f.gate != "critical"]
    return found


def _verdict_findings(manifest: Manifest) -> list[Finding]:
    """The verdict's typed findings; a manifest written before findings were typed has reasons only: those are
    threshold findings (its critical ones are recomputed from the cases above)."""
    if manifest.verdict.findings or not manifest.verdict.reasons:
        return list(manifest.verdict.findings)
    legacy = ("critical invariant failed", "critical/high attack COMPROMISED")
    return [Finding(gate="incomplete" if r.startswith(("budget exhausted", "nothing was executed")) else "threshold",
                    text=r) for r in manifest.verdict.reasons if not r.startswith(legacy)]


def regression_findings(comparison: Comparison) -> list[Finding]:
    """What `compare` calls a regression: newly compromised attacks, newly failing critical checks, cases that
    passed on base and fail on head, and significant score drops (never noise)."""
    out = []
    for change in comparison.newly_compromised:
        out.append(Finding(gate="regression", kind="attack", severity=change.severity or "medium",
                           text=f"attack {change.attack_id or change.id} [{change.severity or '?'}] is newly "
                                f"COMPROMISED (blocked or not compromised on the base branch)", case_ids=[change.id]))
    for change in comparison.newly_critical:
        checks = ", ".join(change.failed_invariants) or "a critical check"
        out.append(Finding(gate="regression", kind="invariant", severity="critical",
                           text=f"case {change.id}: {checks} newly failing (critical)", case_ids=[change.id]))
    for row in comparison.scores:
        if row.direction == "drop":
            shown = f", p={row.p_value:.3g}" if row.p_value is not None else ""
            out.append(Finding(gate="regression", kind="score", text=(
                f"{row.name} score dropped {abs(row.delta or 0):.1f} points vs the base branch "
                f"(significant{shown})")))
    newly = [c for c in comparison.newly_failing if not c.attack_id or c.outcome != "COMPROMISED"]
    if newly:
        ids = [change.id for change in newly]
        more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
        critical = [change for change in newly if change.critical]
        out.append(Finding(gate="regression", kind="regression", severity="critical" if critical else "medium",
                           text=f"{len(ids)} case{'s' if len(ids) != 1 else ''} passed on the base branch and "
                                f"{'fail' if len(ids) != 1 else 'fails'} now"
                                + (f" ({len(critical)} with a critical check)" if critical else "") + ": "
                                + ", ".join(ids[:5]) + more, case_ids=ids))
    if not out and comparison.regression:
        out.append(Finding(gate="regression", kind="regression", text="regression against the base branch"))
    return out


def decide(manifest: Manifest, comparison: Comparison | None, *, fail_on: Sequence[str],
           min_score: float | None) -> GateDecision:
    if manifest.verdict.exit_code == ExitCode.AGENT:
        # The agent could not be run at all: not a gate the user can switch off.
        found = _verdict_findings(manifest) or [Finding(gate="agent", kind="agent", text=r)
                                                for r in manifest.verdict.reasons]
        return GateDecision(ExitCode.AGENT, found)
    active = set(fail_on) - {"never"}
    if "never" not in fail_on:
        active.add("incomplete")
    if not manifest.gates.fail_on_regression:
        # khaos.yaml's `gates.fail_on_regression: false` is the project's own say: regressions are still shown
        # (ignored findings), whatever the workflow's `fail-on` lists.
        active.discard("regression")
    all_findings = findings(manifest, comparison, min_score=min_score)
    failing = [f for f in all_findings if f.gate in active]
    ignored = [f for f in all_findings if f.gate not in active]
    return GateDecision(ExitCode.GATE_FAILED if failing else ExitCode.PASSED, failing, ignored)
