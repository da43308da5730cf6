"""Where a baseline artifact may come from: this repository's own run of the expected workflow, on the base branch,
triggered by a push (or a `workflow_dispatch` / `schedule` run of that branch).

A pull request's run can upload an artifact under any name, and a fork's branch can be named like the base branch;
listing artifacts by name and branch (what GitHub's artifact listing offers) cannot tell those apart. So every
candidate's run is looked up (GET /repos/{owner}/{repo}/actions/runs/{run_id}) and checked against `Expected`;
anything else is ignored with a warning naming the run and why. Among the trusted runs, the one at the pull
request's merge base (GET /repos/{owner}/{repo}/compare/{base}...{head}, `merge_base_commit`) is preferred, then
the base commit the event names, then the newest.
https://docs.github.com/en/rest/actions/workflow-runs#get-a-workflow-run
https://docs.github.com/en/rest/commits/commits#compare-two-commits
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from khaos_action.github.client import GitHubClient, GitHubError

TRUSTED_EVENTS = ("push", "workflow_dispatch", "schedule")
"""Runs of the base branch's own code: a pull request's code never runs in them. (`pull_request_target` and
`workflow_run` runs also carry the base branch's name, and may run what a pull request sent: not trusted.)"""
MAX_RUNS_CHECKED = 10
"""Candidate runs looked up at most (one API call each), newest and preferred first."""
MAX_WARNINGS = 5
"""Ignored artifacts named one by one; the rest are counted."""
WORKFLOWS_DIR = ".github/workflows/"


@dataclass(frozen=True)
class Expected:
    """What a trusted baseline run is."""

    repository: str
    """owner/name of this repository."""
    branch: str
    """The base branch."""
    workflow: str
    """The workflow file that writes baselines, e.g. `.github/workflows/khaos.yml`."""


def expected_workflow(configured: str | None, workflow_ref: str | None, repository: str | None) -> str | None:
    """The workflow file a baseline must come from: the `baseline-workflow` input (a file name in
    .github/workflows/ or a path), else this run's own workflow (GITHUB_WORKFLOW_REF,
    `owner/repo/.github/workflows/khaos.yml@refs/pull/1/merge`); None when neither is known."""
    if configured:
        name = configured.strip().removeprefix("./")
        return name if "/" in name else WORKFLOWS_DIR + name
    if not workflow_ref:
        return None
    path = workflow_ref.split("@", 1)[0]
    prefix = f"{repository}/" if repository else ""
    if prefix and path.lower().startswith(prefix.lower()):
        return path[len(prefix):]
    at = path.find(WORKFLOWS_DIR)
    return path[at:] if at >= 0 else None


@dataclass
class Choice:
    artifact: dict[str, Any] | None
    warnings: list[str] = field(default_factory=list)
    why_none: str = ""


def _same(a: object, b: object) -> bool:
    # Repository and workflow names are case-insensitive on GitHub.
    return isinstance(a, str) and isinstance(b, str) and a.lower() == b.lower()


def _full_name(repo: object) -> object:
    return repo.get("full_name") if isinstance(repo, dict) else None


RunCheck = tuple[Callable[[dict[str, Any], dict[str, Any], Expected], bool],
                 Callable[[dict[str, Any], dict[str, Any], Expected], str]]
RUN_CHECKS: tuple[RunCheck, ...] = (
    (lambda run, art, exp: _same(_full_name(run.get("repository")), exp.repository),
     lambda run, art, exp: f"the run belongs to {_full_name(run.get('repository'))}, not {exp.repository}"),
    (lambda run, art, exp: _same(_full_name(run.get("head_repository")), exp.repository),
     lambda run, art, exp: (f"the run's code came from {_full_name(run.get('head_repository')) or 'a deleted fork'}, "
                            f"not from {exp.repository} itself")),
    (lambda run, art, exp: run.get("event") in TRUSTED_EVENTS,
     lambda run, art, exp: (f"the run was triggered by `{run.get('event')}`, not by a push to {exp.branch} "
                            f"({', '.join(TRUSTED_EVENTS)} runs are trusted)")),
    (lambda run, art, exp: run.get("head_branch") == exp.branch,
     lambda run, art, exp: f"the run was on branch {run.get('head_branch')!r}, not {exp.branch!r}"),
    (lambda run, art, exp: _same(str(run.get("path") or "").split("@", 1)[0], exp.workflow),
     lambda run, art, exp: (f"the run is of workflow {str(run.get('path') or '?').split('@', 1)[0]}, not "
                            f"{exp.workflow} (set the `baseline-workflow` input if baselines come from another "
                            "workflow)")),
    (lambda run, art, exp: run.get("head_sha") == _run_of(art).get("head_sha"),
     lambda run, art, exp: "the artifact's commit is not the run's"),
)
"""A looked-up run and its artifact: each check, and what to say when it fails (the first failing one is said)."""


def run_problem(run: dict[str, Any], artifact: dict[str, Any], expected: Expected) -> str | None:
    """Why the artifact's run is not a trusted baseline run, or None."""
    for holds, why in RUN_CHECKS:
        if not holds(run, artifact, expected):
            return why(run, artifact, expected)
    return None


def _run_of(artifact: dict[str, Any]) -> dict[str, Any]:
    run = artifact.get("workflow_run")
    return run if isinstance(run, dict) else {}


def _from_fork(artifact: dict[str, Any]) -> bool:
    """The listing's own say (no lookup needed): the run's code came from another repository than the run's."""
    run = _run_of(artifact)
    return run.get("head_repository_id") is not None and run.get("head_repository_id") != run.get("repository_id")


def _label(artifact: dict[str, Any]) -> str:
    run = _run_of(artifact)
    return f"artifact {artifact.get('id')} of run {run.get('id')} ({str(run.get('head_sha') or '?')[:7]})"


def choose(github: GitHubClient, artifacts: Sequence[dict[str, Any]], *, name: str, expected: Expected,
           prefer: Sequence[str], current_run_id: str | None) -> Choice:
    """The artifact to use, warnings naming every artifact ignored for its provenance, and why there is none."""
    named = _named(artifacts, name)
    on_branch = _on_branch(named, expected.branch, current_run_id)
    live = [a for a in on_branch if not a.get("expired")]
    if not live:
        return Choice(None, why_none=_none_found(name, expected.branch, named, on_branch))
    ignored = [(a, "its run's code came from another repository (a fork's branch named like the base branch)")
               for a in live if _from_fork(a)]
    candidates = _candidates(live, prefer)
    chosen, more, failures = _first_trusted(github, candidates[:MAX_RUNS_CHECKED], expected)
    warnings = _ignored_warnings(name, ignored + more) + failures
    if chosen is not None:
        return Choice(chosen, warnings)
    return Choice(None, warnings, _none_trusted(name, expected, unchecked=len(candidates) - MAX_RUNS_CHECKED))


def _named(artifacts: Sequence[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [a for a in artifacts if isinstance(a, dict) and a.get("name") == name]


def _on_branch(artifacts: list[dict[str, Any]], branch: str, current_run_id: str | None) -> list[dict[str, Any]]:
    """The artifacts of runs on `branch`, this run's own apart."""
    return [a for a in artifacts if _run_of(a).get("head_branch") == branch
            and str(_run_of(a).get("id")) != str(current_run_id)]


def _candidates(artifacts: list[dict[str, Any]], prefer: Sequence[str]) -> list[dict[str, Any]]:
    """The artifacts of runs of this repository's own code, newest first, the runs of the preferred commits (in
    their order) before all others."""
    rank: dict[str, int] = {}
    for sha in prefer:
        rank.setdefault(sha, len(rank))
    own = [a for a in artifacts if not _from_fork(a)]
    newest = sorted(own, key=lambda a: a.get("created_at") or "", reverse=True)
    return sorted(newest, key=lambda a: rank.get(_run_of(a).get("head_sha"), len(rank)))


def _none_trusted(name: str, expected: Expected, *, unchecked: int) -> str:
    return (f"no `{name}` artifact on {expected.branch} comes from a run this repository trusts (a "
            f"{'/'.join(TRUSTED_EVENTS)} run of {expected.workflow} in {expected.repository})"
            + (f"; {unchecked} older ones were not checked" if unchecked > 0 else ""))


def _first_trusted(github: GitHubClient, candidates: Sequence[dict[str, Any]], expected: Expected
                   ) -> tuple[dict[str, Any] | None, list[tuple[dict[str, Any], str]], list[str]]:
    ignored, failures = [], []
    for artifact in candidates:
        run_id = _run_of(artifact).get("id")
        try:
            run = github.get(f"repos/{expected.repository}/actions/runs/{run_id}")
        except GitHubError as exc:
            failures.append(f"cannot check where baseline {_label(artifact)} comes from, so it is not used: {exc}")
            continue
        problem = run_problem(run if isinstance(run, dict) else {}, artifact, expected)
        if problem is None:
            return artifact, ignored, failures
        ignored.append((artifact, problem))
    return None, ignored, failures


def _ignored_warnings(name: str, ignored: list[tuple[dict[str, Any], str]]) -> list[str]:
    shown = [f"ignored `{name}` {_label(artifact)}: {why}" for artifact, why in ignored[:MAX_WARNINGS]]
    if len(ignored) > MAX_WARNINGS:
        shown.append(f"ignored {len(ignored) - MAX_WARNINGS} more `{name}` artifacts for where they come from")
    return shown


def _none_found(name: str, branch: str, named: list, on_branch: list) -> str:
    if on_branch:
        return (f"every `{name}` artifact from {branch} has expired; re-run the default-branch workflow (or raise "
                "its retention-days) to create a new baseline")
    where = f" ({len(named)} found on other branches)" if named else ""
    return (f"no `{name}` artifact from a run on {branch} yet{where}; it appears after the workflow runs on a push "
            f"to {branch} (see docs/github-action.md)")


def merge_base(github: GitHubClient, repository: str, base_sha: str, head_sha: str) -> tuple[str | None, str | None]:
    """(the pull request's merge base, or None; a warning when it could not be asked)."""
    try:
        data = github.get(f"repos/{repository}/compare/{base_sha}...{head_sha}", params={"per_page": 1})
    except GitHubError as exc:
        return None, f"cannot find the pull request's merge base (the base commit's baseline is preferred): {exc}"
    commit = data.get("merge_base_commit") if isinstance(data, dict) else None
    sha = commit.get("sha") if isinstance(commit, dict) else None
    return (sha if isinstance(sha, str) and sha else None), None
