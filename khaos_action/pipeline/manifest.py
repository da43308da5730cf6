"""The score and manifest stages: the run's results scored against its gates, goals and weights, into the one
`Manifest` every report, `compare` and `merge` read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action import __version__
from khaos_action.outcome import Phase

if TYPE_CHECKING:
    from khaos_action.attacks.capabilities import CapabilityProfile
    from khaos_action.gates_and_weights import Gates, Weights
    from khaos_action.manifest import CaseResult, GitInfo, Manifest, SkippedAttack, Telemetry
    from khaos_action.plan.scheduler import Plan


@dataclass(frozen=True, slots=True)
class ManifestSettings:
    """What scoring and the manifest read of the config (the config stage makes it)."""

    agent_name: str
    agent_type: str
    config_path: str
    """As reports show it (`display_path`)."""
    gates: Gates
    weights: Weights
    packs: tuple[str, ...] = ()
    config_lines: Mapping[str, int] = field(default_factory=dict)
    similarity_backend: str = "lexical"
    secrets: tuple[str, ...] = ()
    """agent.secrets: masked in the manifest once, before anything is rendered."""


@dataclass(slots=True)
class RunRecord:
    """Everything the agent's part of a run produced (recon, plan, execute, judge), as the manifest takes it."""

    plan: Plan
    results: list[CaseResult]
    skipped: list[SkippedAttack]
    """Every attack not run: not applicable (planning), not exercised (reconnaissance), never delivered."""
    profile: CapabilityProfile
    profile_sources: dict[str, str]
    warnings: list[str] = field(default_factory=list)
    attack_surface: dict[str, Any] | None = None
    telemetry: Telemetry | None = None
    """LLM usage of the run (khaos_action.engine.llm_runtime.telemetry_section)."""
    not_run: list[str] = field(default_factory=list)
    extra_reasons: list[str] = field(default_factory=list)
    """Verdict reasons decided by the run itself (budget exhausted, cassette misses)."""
    tool_roles: dict[str, str] = field(default_factory=dict)
    """Each tool's role (declared or guessed), for the reports' list of consequential calls."""


def build_manifest(settings: ManifestSettings, run: RunRecord, *, run_id: str, started_at: str, finished_at: str,
                   git: GitInfo, shard: tuple[int, int] | None = None, warnings: Sequence[str] = ()) -> Manifest:
    """The run scored (score/summary.py: gates, goals, weights) and recorded; `warnings`: the config stage's."""
    from khaos_action.manifest import AgentInfo, Manifest
    from khaos_action.score.breakdown import attack_breakdown
    from khaos_action.score.summary import GoalSpec, summarise

    plan, results = run.plan, run.results
    summary = summarise(
        results, goals=[GoalSpec(phase, g.metric, g.operator, g.threshold) for phase, g in plan.goals],
        gates=settings.gates, weights=settings.weights, attacks_skipped=len(run.skipped),
        security_planned=any(phase == Phase.SECURITY for phase, _ in plan.goals), extra_reasons=run.extra_reasons,
    )
    return Manifest(
        run_id=run_id, tool_version=__version__, seed=plan.seed, config_hash=plan.config_hash,
        config_path=settings.config_path, started_at=started_at, finished_at=finished_at, git=git,
        agent=AgentInfo(name=settings.agent_name, type=settings.agent_type, capabilities=run.profile.as_dict(),
                        capability_sources=run.profile_sources),
        packs=list(settings.packs), shard=f"{shard[0]}/{shard[1]}" if shard else None,
        scores=summary.scores, score_notes=summary.score_notes, verdict=summary.verdict,
        counts=summary.counts.model_copy(update={"not_run": len(run.not_run)}), not_run=run.not_run,
        metrics=summary.metrics, goals=summary.goals, warnings=[*warnings, *plan.notes, *run.warnings],
        alerts=summary.alerts,
        cases=results,
        skipped=run.skipped, faults_not_applicable=plan.faults_not_applicable, stats=summary.stats,
        flaky=summary.flaky,
        coverage=_coverage(plan, results), attack_breakdown=attack_breakdown(results, run.skipped),
        attack_surface=run.attack_surface, gates=settings.gates.model_dump(),
        weights=settings.weights.model_dump(), config_lines=dict(settings.config_lines),
        similarity_backend=settings.similarity_backend, telemetry=run.telemetry, tool_roles=run.tool_roles,
    )


def mask(manifest: Manifest, settings: ManifestSettings) -> Manifest:
    """The manifest with agent.secrets masked in every encoding: done once, before anything is rendered (reports,
    summary, comment, log and console all read this copy)."""
    from khaos_action.redact import Redactor, redact_manifest

    return redact_manifest(manifest, Redactor(list(settings.secrets)))


def _coverage(plan: Plan, results: Sequence[CaseResult]) -> dict:
    selection = plan.selection
    if selection is None:
        return {}
    from khaos_action.attacks.coverage import coverage_table

    return coverage_table(selection, {r.attack_id for r in results if r.outcome is not None and r.attack_id})


def display_path(path: Path) -> str:
    """The config path as reports show it: relative to the working directory (the repository root in CI) when it
    is inside it, so SARIF results and annotations point at the repository file, not at a container path."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)
