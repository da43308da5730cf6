"""The action's whole flow after set-up: evaluate, compare with the base branch, gate, and report back to GitHub.

Everything real is passed in (settings, GitHub client, the evaluate function and the run's `Services`, built by
entrypoint.py), so tests run it against a local GitHub stand-in and a real evaluate function. Comment and baseline
failures are warnings: they never change the exit code, which only the gates decide.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from khaos_action.errors import ConfigError, KhaosError, guard
from khaos_action.extensions import extension_path
from khaos_action.findings import ordered
from khaos_action.github import annotations as annotations_mod
from khaos_action.github import baseline as baseline_mod
from khaos_action.github import comment as comment_mod
from khaos_action.github import gates
from khaos_action.github.client import GitHubClient
from khaos_action.github.event import EventInfo, read_event
from khaos_action.github.finish import Finish
from khaos_action.github.render import render_sections, summary_markdown
from khaos_action.github.settings import ActionSettings, Places
from khaos_action.github.workflow import (
    WorkflowLog,
    append_summary,
    cap_annotations,
    set_outputs,
)
from khaos_action.manifest import Manifest
from khaos_action.manifest_read import load_manifest
from khaos_action.nofollow import check_writable, confine, open_dir
from khaos_action.outcome import Outcome
from khaos_action.reporters import REPORTERS, action_outputs
from khaos_action.run_api import EvaluateRequest, EvaluateResult
from khaos_action.score.compare import Comparison, compare_manifests
from khaos_action.services import Services

OUTPUTS = ("passed", "score", "security-score", "resilience-score", *action_outputs(), "manifest-path", "comment-file")
"""The action's outputs (action.yml declares each); report formats name theirs in khaos_action/reporters.py."""
LOGGED_OUTPUTS = 10
"""Failing cases whose (untrusted) agent output is printed to the log."""

Compare = Callable[[Manifest, Manifest], Comparison]
Evaluate = Callable[..., EvaluateResult]
"""`evaluate(request: EvaluateRequest, *, services: Services) -> EvaluateResult` (khaos_action.evaluate.evaluate)."""


def run_action(
    settings: ActionSettings,
    *,
    places: Places,
    github: GitHubClient | None,
    evaluate: Evaluate,
    services: Services,
    log: WorkflowLog,
    compare: Compare = compare_manifests,
) -> int:
    """The flow, in `places` (computed once, by the entrypoint). What stops it is raised: the action's one error
    boundary (`boundary`, around set-up too) turns it into the exit code, the summary and the outputs."""
    # Root writes in a workspace the pull request filled: nothing we write there may follow a link it committed
    # (khaos_action/nofollow.py), for the whole run: reports, events, cassettes, comment file, baseline.
    with confine(places.workspace):
        _check_workdir(settings, places)
        event = read_event(settings.GITHUB_EVENT_PATH, settings.GITHUB_EVENT_NAME, settings.GITHUB_REF)
        if event.problem:
            log.warning(event.problem)
        result = _evaluate(settings, places.workdir, places.workspace, evaluate, services, log)
        return _report(settings, places.workspace, places.workdir, event, result, github, log, compare)


def boundary(body: Callable[[], int], *, log: WorkflowLog, on_exit: Finish) -> int:
    """The action's one error boundary (khaos_action/errors.py `guard`, as the CLI's): the same exit-code table,
    tracebacks only for our bugs and only where workflow commands are stopped (a traceback may quote agent text);
    `on_exit` hands the workspace back and, without a verdict, writes a summary and outputs saying why."""
    return guard(body, say=log.error, show_traceback=log.untrusted, on_exit=on_exit)


def _check_workdir(settings: ActionSettings, places: Places) -> None:
    """The working directory exists, reached from the workspace without following a link (we write below it)."""
    try:
        with open_dir(places.workdir):
            pass
    except OSError:
        raise ConfigError(f"working-directory {settings.working_directory!r} does not exist under "
                          f"{places.workspace}; fix the `working-directory` input") from None


def _refuse_links(out_dir: Path, workspace: Path) -> None:
    """Before the agent runs: a link committed where one of our files will go is an error naming it now, not after
    the run (the writes themselves refuse it too)."""
    for path in (out_dir / "manifest.json", workspace / comment_mod.COMMENT_FILE,
                 workspace / baseline_mod.BASELINE_FILE):
        check_writable(path)


def _evaluate(settings: ActionSettings, workdir: Path, workspace: Path, evaluate: Evaluate, services: Services,
              log: WorkflowLog) -> EvaluateResult:
    if settings.manifest:
        path = (workdir / settings.manifest).resolve()
        manifest = load_manifest(path)
        reports = {kind: path.parent / reporter.file for kind, reporter in REPORTERS.items()
                   if (path.parent / reporter.file).exists()}
        reports["json"] = path
        log.info(f"khaos-action: reporting on {_rel(path, workspace)} (input `manifest`); the agent is not run")
        return EvaluateResult(manifest=manifest, out_dir=path.parent, reports=reports)
    config_path = (workdir / settings.config).resolve()
    if not config_path.is_file():
        raise ConfigError(f"config file {_rel(config_path, workspace)} not found; add a khaos.yaml (see "
                          "`khaos-action demo`) or point the `config` input at yours")
    run_name = f"github-{settings.GITHUB_RUN_ID or 'local'}"
    if settings.shard:
        run_name += f"-shard-{settings.shard[0]}-of-{settings.shard[1]}"
    out_dir = workdir / ".khaos" / "runs" / run_name
    _refuse_links(out_dir, workspace)
    request = EvaluateRequest(
        config_path=config_path, out_dir=out_dir, packs=tuple(settings.packs),
        seed=settings.seed, concurrency=settings.concurrency, shard=settings.shard, min_score=settings.min_score,
        force=True,  # a re-run attempt of the same workflow run replaces its own earlier run, never mixes with it
        extensions=tuple(extension_path(spec, workdir) for spec in settings.extensions),
    )
    log.info(f"khaos-action: evaluating {_rel(config_path, workspace)}")
    # Whatever the agent prints while it runs is untrusted (pull-request code): it must not issue workflow commands.
    from khaos_action.engine.events import keeping_cases

    with log.commands_stopped(), keeping_cases(request.out_dir):
        result = evaluate(request, services=services)
    return result


def _report(settings: ActionSettings, workspace: Path, workdir: Path, event: EventInfo, result: EvaluateResult,
            github: GitHubClient | None, log: WorkflowLog, compare: Compare) -> int:
    manifest = result.manifest
    config_file = _rel((workdir / settings.config).resolve(), workspace)
    instance = comment_mod.instance_id(config_file)

    base = baseline_mod.load_baseline(
        mode=settings.baseline, path=(workdir / settings.baseline_path) if settings.baseline_path else None,
        artifact_name=settings.baseline_artifact, github=github, repository=settings.GITHUB_REPOSITORY, event=event,
        workflow=settings.expected_workflow, current_run_id=settings.GITHUB_RUN_ID, config_hash=manifest.config_hash)
    for warning in base.warnings:
        log.warning(warning)
    comparison = None
    if base.manifest is not None:
        try:
            comparison = compare(base.manifest, manifest)
        except KhaosError as exc:
            log.warning(f"cannot compare with the baseline ({base.source}); regression gates skipped: {exc}")

    # `min-score` is applied once: a run took it as its gates.min_overall (the config stage), and its verdict holds
    # the finding; a manifest reported on (input `manifest`: nothing runs) gets it here.
    floor = settings.min_score if settings.manifest else None
    decision = gates.decide(manifest, comparison, fail_on=settings.fail_on, min_score=floor)
    sections, footer = render_sections(
        manifest, comparison=comparison, decision=decision, baseline_source=base.source, fail_on=settings.fail_on,
        instance=instance, run_url=settings.run_url, head_sha=settings.GITHUB_SHA, base=base.manifest)

    lines = (annotations_mod.lines_from_manifest(manifest.config_lines)
             or annotations_mod.config_lines(_read_text(workdir / settings.config)))
    found = annotations_mod.build_annotations(manifest, config_file=config_file, lines=lines)
    shown, overflow = cap_annotations(found)
    for annotation in shown:
        log.annotate(annotation)
    _log_agent_output(manifest, log)

    report_md = _read_text(result.reports["md"]) if "md" in result.reports else None
    append_summary(settings.GITHUB_STEP_SUMMARY,
                   summary_markdown(sections, footer, report_md=report_md, overflow=overflow), link=settings.run_url)

    comment_file = ""
    if settings.shard:
        log.info("khaos-action: shard runs do not comment; the job that merges the shards does (see docs)")
    else:
        body = comment_mod.fit_body(sections, footer=footer, marker_line=comment_mod.marker(instance),
                                    run_url=settings.run_url)
        posted, warnings = comment_mod.publish(
            body=body, policy=settings.comment, passed=decision.passed, event=event, github=github,
            repository=settings.GITHUB_REPOSITORY, marker_line=comment_mod.marker(instance), fallback_dir=workspace)
        for warning in warnings:
            log.warning(warning)
        log.info(f"khaos-action: PR comment {posted.action}{': ' + posted.detail if posted.detail else ''}"
                 f"{' ' + posted.url if posted.url else ''}")
        if posted.file is not None:
            comment_file = _inside(posted.file, workspace)

    if event.writes_baseline:
        written = baseline_mod.write_baseline(result.manifest_path, workspace)
        log.info(f"khaos-action: default-branch {event.name} run; baseline written to {_rel(written, workspace)} "
                 f"(upload it as the `{settings.baseline_artifact}` artifact)")

    set_outputs(settings.GITHUB_OUTPUT, _outputs(manifest, result, decision, workspace, comment_file))
    _log_verdict(decision, manifest, log)
    return decision.exit_code


def _outputs(manifest: Manifest, result: EvaluateResult, decision: gates.GateDecision, workspace: Path,
             comment_file: str) -> dict[str, str]:
    # Paths are relative to the workspace: the container sees /github/workspace, later steps the runner's path. A
    # file outside it (only a `manifest` input can be) is nothing the next step can read: no output.
    def path(kind: str) -> str:
        return _inside(result.reports[kind], workspace) if kind in result.reports else ""

    return {
        "passed": "true" if decision.passed else "false",
        "score": _score(manifest.scores.overall),
        "security-score": _score(manifest.scores.security),
        "resilience-score": _score(manifest.scores.resilience),
        **{reporter.action_output: path(kind) for kind, reporter in REPORTERS.items() if reporter.action_output},
        "manifest-path": _inside(result.manifest_path, workspace), "comment-file": comment_file,
    }


def _log_verdict(decision: gates.GateDecision, manifest: Manifest, log: WorkflowLog) -> None:
    score = _score(manifest.scores.overall) or "not run"
    security = _score(manifest.scores.security) or "not run"
    for alert in manifest.alerts:
        log.untrusted(f"WARNING: {alert}")  # may quote the agent's error: inert
    first = ordered(decision.failing)
    why = f": {first[0].text}" if first else ""
    log.untrusted(f"khaos-action: {'passed' if decision.passed else 'FAILED'}{why} · overall {score} · "
                  f"security {security}")
    if decision.failing or decision.ignored:
        # Reasons may quote agent errors: keep them inert.
        log.untrusted("\n".join([f"  failing  [{f.gate}] {f.text}" for f in decision.failing] +
                                [f"  ignored  [{f.gate}] {f.text}" for f in decision.ignored]))
    if not decision.passed:
        log.error(f"khaos-action gates failed ({len(decision.failing)} finding"
                  f"{'s' if len(decision.failing) != 1 else ''}); see the job summary")


def _log_agent_output(manifest: Manifest, log: WorkflowLog) -> None:
    failing = [c for c in manifest.cases if c.passed is False or c.outcome == Outcome.COMPROMISED]
    if not failing:
        return
    with log.group(f"Agent output of {min(len(failing), LOGGED_OUTPUTS)} failing case(s) (untrusted)"):
        log.untrusted("\n".join(f"--- {c.id} ({c.scenario or c.attack_id or c.phase})\n{c.output[:2000]}"
                                for c in failing[:LOGGED_OUTPUTS]))


def _rel(path: Path, workspace: Path) -> str:
    try:
        return path.resolve().relative_to(workspace).as_posix()
    except ValueError:
        return str(path)


def _inside(path: Path, workspace: Path) -> str:
    shown = _rel(path, workspace)
    return "" if os.path.isabs(shown) else shown


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _read_text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
