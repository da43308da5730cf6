"""The action's `fail-on` gates: which findings of the run and of the base-branch comparison fail the job."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from khaos_action.findings import Finding, critical_findings
from khaos_action.manifest import Manifest
from khaos_action.score.gates import EXIT_AGENT, EXIT_GATE_FAILED, EXIT_PASSED

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
        return self.exit_code == EXIT_PASSED


def findings(manifest: Manifest, comparison: Any | None, *, min_score: float | None) -> list[Finding]:
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


def regression_findings(comparison: Any) -> list[Finding]:
    """What `compare` calls a regression: newly compromised attacks, newly failing critical checks, cases that
    passed on base and fail on head, and significant score drops (never noise)."""
    out = []
    for change in getattr(comparison, "newly_compromised", None) or []:
        out.append(Finding(gate="regression", kind="attack", severity=_get(change, "severity") or "medium",
                           text=f"attack {_get(change, 'attack_id') or _case_id(change)} "
                                f"[{_get(change, 'severity') or '?'}] is newly COMPROMISED (blocked or not "
                                f"compromised on the base branch)", case_ids=[_case_id(change)]))
    for change in getattr(comparison, "newly_critical", None) or []:
        checks = ", ".join(_get(change, "failed_invariants") or []) or "a critical check"
        out.append(Finding(gate="regression", kind="invariant", severity="critical",
                           text=f"case {_case_id(change)}: {checks} newly failing (critical)",
                           case_ids=[_case_id(change)]))
    for row in getattr(comparison, "scores", None) or []:
        delta = _get(row, "delta")
        if _get(row, "direction") == "drop" or (_get(row, "direction") is None and _get(row, "significant")
                                                and delta is not None and delta < 0):
            p = _get(row, "p_value")
            shown = f", p={p:.3g}" if isinstance(p, (int, float)) else ""
            out.append(Finding(gate="regression", kind="score", text=(
                f"{_get(row, 'name')} score dropped {abs(delta or 0):.1f} points vs the base branch "
                f"(significant{shown})")))
    newly = [c for c in (getattr(comparison, "newly_failing", None) or []) if not _get(c, "attack_id")
             or _get(c, "outcome") != "COMPROMISED"]
    if newly:
        ids = [_case_id(item) for item in newly]
        more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
        critical = [i for i in newly if _get(i, "critical")]
        out.append(Finding(gate="regression", kind="regression", severity="critical" if critical else "medium",
                           text=f"{len(ids)} case{'s' if len(ids) != 1 else ''} passed on the base branch and "
                                f"{'fail' if len(ids) != 1 else 'fails'} now"
                                + (f" ({len(critical)} with a critical check)" if critical else "") + ": "
                                + ", ".join(ids[:5]) + more, case_ids=ids))
    if not out and getattr(comparison, "regression", False):
        out.append(Finding(gate="regression", kind="regression", text="regression against the base branch"))
    return out


def decide(manifest: Manifest, comparison: Any | None, *, fail_on: Sequence[str],
           min_score: float | None) -> GateDecision:
    if manifest.verdict.exit_code == EXIT_AGENT:
        # The agent could not be run at all: not a gate the user can switch off.
        found = _verdict_findings(manifest) or [Finding(gate="agent", kind="agent", text=r)
                                                for r in manifest.verdict.reasons]
        return GateDecision(EXIT_AGENT, found)
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
