"""The action's `fail-on` gates: which findings of the run and of the base-branch comparison fail the job."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from khaos_action.errors import ExitCode
from khaos_action.findings import Finding, critical_findings
from khaos_action.manifest import Manifest
from khaos_action.outcome import Outcome
from khaos_action.score.compare import CaseChange, Comparison, ScoreRow
from khaos_action.score.gates import below_floor

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
    found += below_floor(manifest.scores.overall, min_score, "min-score", "the run produced no overall score")
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
    out = [*map(_newly_compromised, comparison.newly_compromised),
           *map(_newly_critical, comparison.newly_critical),
           *(_score_drop(row) for row in comparison.scores if row.direction == "drop"),
           *_newly_failing([c for c in comparison.newly_failing
                            if not c.attack_id or c.outcome != Outcome.COMPROMISED])]
    if not out and comparison.regression:
        out.append(Finding(gate="regression", kind="regression", text="regression against the base branch"))
    return out


def _newly_compromised(change: CaseChange) -> Finding:
    return Finding(gate="regression", kind="attack", severity=change.severity or "medium",
                   text=f"attack {change.attack_id or change.id} [{change.severity or '?'}] is newly "
                        f"COMPROMISED (blocked or not compromised on the base branch)", case_ids=[change.id])


def _newly_critical(change: CaseChange) -> Finding:
    checks = ", ".join(change.failed_invariants) or "a critical check"
    return Finding(gate="regression", kind="invariant", severity="critical",
                   text=f"case {change.id}: {checks} newly failing (critical)", case_ids=[change.id])


def _score_drop(row: ScoreRow) -> Finding:
    shown = f", p={row.p_value:.3g}" if row.p_value is not None else ""
    return Finding(gate="regression", kind="score", text=(
        f"{row.name} score dropped {abs(row.delta or 0):.1f} points vs the base branch (significant{shown})"))


def _newly_failing(newly: list[CaseChange]) -> list[Finding]:
    """One finding for every case that passed on base and fails now (attacks newly COMPROMISED have their own)."""
    if not newly:
        return []
    ids = [change.id for change in newly]
    critical = sum(1 for change in newly if change.critical)
    return [Finding(gate="regression", kind="regression", severity="critical" if critical else "medium",
                    text=_newly_failing_text(ids, critical), case_ids=ids)]


def _newly_failing_text(ids: list[str], critical: int) -> str:
    many = len(ids) != 1
    more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
    with_critical = f" ({critical} with a critical check)" if critical else ""
    return (f"{len(ids)} case{'s' if many else ''} passed on the base branch and {'fail' if many else 'fails'} "
            f"now{with_critical}: " + ", ".join(ids[:5]) + more)


def decide(manifest: Manifest, comparison: Comparison | None, *, fail_on: Sequence[str],
           min_score: float | None) -> GateDecision:
    if manifest.verdict.exit_code == ExitCode.AGENT:
        # The agent could not be run at all: not a gate the user can switch off.
        found = _verdict_findings(manifest) or [Finding(gate="agent", kind="agent", text=r)
                                                for r in manifest.verdict.reasons]
        return GateDecision(ExitCode.AGENT, found)
    active = _active_gates(fail_on, fail_on_regression=manifest.gates.fail_on_regression)
    all_findings = findings(manifest, comparison, min_score=min_score)
    failing = [f for f in all_findings if f.gate in active]
    ignored = [f for f in all_findings if f.gate not in active]
    return GateDecision(ExitCode.GATE_FAILED if failing else ExitCode.PASSED, failing, ignored)


def _active_gates(fail_on: Sequence[str], *, fail_on_regression: bool) -> set[str]:
    """The gates whose findings fail the job: `fail-on`'s, and `incomplete` unless it says `never`."""
    active = set(fail_on) - {"never"}
    if "never" not in fail_on:
        active.add("incomplete")
    if not fail_on_regression:
        # khaos.yaml's `gates.fail_on_regression: false` is the project's own say: regressions are still shown
        # (ignored findings), whatever the workflow's `fail-on` lists.
        active.discard("regression")
    return active
