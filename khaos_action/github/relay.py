"""`khaos-action post-comment`: the fork-safe pattern's trusted half posts the comment a pull request's run uploaded,
on that run's own pull request.

Which run it was comes from GitHub's `workflow_run` event (the run's head repository, branch and commit), never from
the uploaded file, which the pull request wrote. The pull request is the run's own: the number GitHub gives in
`workflow_run.pull_requests` (filled for a branch of this repository), else the open pull request whose head is the
run's head repository and branch (`GET /repos/{owner}/{repo}/pulls?head=OWNER:BRANCH`, the way to find a fork's).
Each candidate is then read back (`GET /repos/{owner}/{repo}/pulls/{number}`) and used only if it is open, into this
repository, and its head is exactly the run's repository and commit. A second pull request opened on the same
commit from another repository has another head repository: it never gets this run's comment, nor this run its.
https://docs.github.com/en/rest/pulls/pulls#list-pull-requests
https://docs.github.com/en/webhooks/webhook-events-and-payloads#workflow_run
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from khaos_action.errors import ConfigError, UsageError
from khaos_action.github.client import GitHubClient, make_http_client
from khaos_action.github.comment import BODY_LIMIT, MARKER_PREFIX, CommentResult, upsert_comment

MARKER_LINE = re.compile(re.escape(MARKER_PREFIX) + r"[A-Za-z0-9._/-]+ -->")
"""The first line of every comment body the action writes (comment.marker)."""
MAX_CANDIDATES = 10


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Owner(_Lenient):
    login: str | None = None


class _Repo(_Lenient):
    full_name: str | None = None
    owner: _Owner | None = None


class _Number(_Lenient):
    number: int


class _Run(_Lenient):
    id: int
    event: str
    head_sha: str
    head_branch: str | None = None
    head_repository: _Repo | None = None
    pull_requests: list[_Number] = []


class _Payload(_Lenient):
    workflow_run: _Run


@dataclass(frozen=True)
class TriggeringRun:
    """The run whose uploaded comment is being posted, as GitHub describes it."""

    id: int
    event: str
    head_sha: str
    head_branch: str | None
    head_repository: str | None
    head_owner: str | None
    numbers: tuple[int, ...]


def triggering_run(payload: Any) -> TriggeringRun:
    """The `workflow_run` event's run; ConfigError when the event is not one."""
    try:
        run = _Payload.model_validate(payload).workflow_run
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"post-comment reads a `workflow_run` event; this event has no valid {where} "
                          f"({first['msg']}): run it in a workflow triggered by `workflow_run`") from None
    repo = run.head_repository
    return TriggeringRun(run.id, run.event, run.head_sha, run.head_branch, repo.full_name if repo else None,
                         _owner(repo), tuple(pr.number for pr in run.pull_requests))


def _owner(repo: Any) -> str | None:
    """The head repository's owner: as GitHub names it, else the first part of its full name."""
    if not repo:
        return None
    return (repo.owner.login if repo.owner else None) or (repo.full_name.split("/")[0] if repo.full_name else None)


def marker_of(body: str) -> str:
    """The body's marker line; ConfigError unless the body is one the action wrote (marker first, within size)."""
    first = body.split("\n", 1)[0]
    if not MARKER_LINE.fullmatch(first):
        raise ConfigError(f"the comment file does not start with khaos-action's marker ({MARKER_PREFIX}…-->); "
                          "post only the file the action wrote (output `comment-file`)")
    if len(body) > BODY_LIMIT:
        raise ConfigError(f"the comment file has {len(body):,} characters, over GitHub's {BODY_LIMIT:,}")
    return first


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.lower() == b.lower()


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _repo_name(end: dict[str, Any]) -> Any:
    """The full name of a pull request end's repository (None when it is gone: a deleted fork)."""
    repo = end.get("repo")
    return (repo or {}).get("full_name") if isinstance(repo, dict) else None


def pull_request_problem(pull: Any, run: TriggeringRun, repository: str) -> str | None:
    """Why the pull request (as GET .../pulls/{number} returns it) is not the run's own, or None."""
    pull = pull if isinstance(pull, dict) else {}
    head, base = _mapping(pull.get("head")), _mapping(pull.get("base"))
    head_repo, base_repo = _repo_name(head), _repo_name(base)
    for holds, why in (
        (pull.get("state") == "open", f"it is {pull.get('state')}"),
        (_same(base_repo, repository), f"it is into {base_repo}, not {repository}"),
        (_same(head_repo, run.head_repository),
         f"its head is in {head_repo or 'a deleted fork'}, the run's in {run.head_repository}"),
        (head.get("sha") == run.head_sha,
         f"its head is now {str(head.get('sha'))[:7]}, the run was on {run.head_sha[:7]} (a newer run will comment)"),
    ):
        if not holds:
            return why
    return None


def find_pull_request(github: GitHubClient, repository: str, run: TriggeringRun) -> tuple[int | None, list[str]]:
    """The run's own pull request, verified, or None; and what was looked at and why it was not it."""
    if run.head_repository is None or run.head_owner is None or not run.head_branch:
        return None, ["the run's head repository is gone (a deleted fork): there is no pull request to comment on"]
    notes, verified = [], []
    for number in _candidates(github, repository, run):
        problem = pull_request_problem(github.get(f"repos/{repository}/pulls/{number}"), run, repository)
        if problem is None:
            verified.append(number)
        else:
            notes.append(f"pull request #{number} is not the run's: {problem}")
    if len(verified) == 1:
        return verified[0], notes
    return None, [*notes, _none_verified(repository, run, verified)]


def _candidates(github: GitHubClient, repository: str, run: TriggeringRun) -> list[int]:
    """The pull requests the run may be for: those the event names, else (a fork's: GitHub leaves
    workflow_run.pull_requests empty) the open ones from the run's head branch."""
    numbers = list(run.numbers)
    if not numbers:
        listed = github.paginate(f"repos/{repository}/pulls",
                                 params={"state": "open", "head": f"{run.head_owner}:{run.head_branch}"}, max_pages=2)
        numbers = [pull.get("number") for pull in listed if isinstance(pull, dict)]
    return [n for n in numbers if isinstance(n, int)][:MAX_CANDIDATES]


def _none_verified(repository: str, run: TriggeringRun, verified: list[int]) -> str:
    """Why no pull request is commented: several have the run's head, or none has."""
    head = f"{run.head_repository}:{run.head_branch} at {run.head_sha[:7]}"
    if verified:
        return (f"pull requests {', '.join(f'#{n}' for n in verified)} all have the run's head ({head}): not telling "
                "which one the run was for, none is commented")
    return f"no open pull request into {repository} has the run's head ({head})"


def post(github: GitHubClient, *, repository: str, payload: Any, body: str) -> tuple[CommentResult, list[str]]:
    """Post or update the sticky comment `body` on the triggering run's own pull request; (result, notes)."""
    run = triggering_run(payload)
    marker_line = marker_of(body)
    if run.event != "pull_request":
        return CommentResult("skipped", f"the run was triggered by `{run.event}`, not by `pull_request`"), []
    number, notes = find_pull_request(github, repository, run)
    if number is None:
        return CommentResult("skipped", notes[-1]), notes[:-1]
    return upsert_comment(github, repository, number, body, marker_line), notes


def post_from_environ(path: Path, *, environ: Mapping[str, str], http: Callable[..., Any]) -> list[str]:
    """The command: the event, repository and token from a `workflow_run` job's environment (GITHUB_TOKEN or
    GH_TOKEN), the body from `path`. Returns the lines to print."""
    if environ.get("GITHUB_EVENT_NAME") != "workflow_run":
        raise UsageError("post-comment runs in a workflow triggered by `workflow_run` (GITHUB_EVENT_NAME is "
                         f"{environ.get('GITHUB_EVENT_NAME') or 'not set'}): see the fork-safe pattern in "
                         "docs/github-action.md")
    token, repository, event_path = _job_environ(environ)
    payload = _read_json(Path(event_path))
    body = _read_body(path)
    with make_http_client(environ.get("GITHUB_API_URL") or "https://api.github.com", token, factory=http) as client:
        result, notes = post(GitHubClient(client), repository=repository, payload=payload, body=body)
    shown = f"comment {result.action}" + (f": {result.detail}" if result.detail else "")
    return [*notes, shown + (f" {result.url}" if result.url else "")]


def _job_environ(environ: Mapping[str, str]) -> tuple[str, str, str]:
    """The token (GITHUB_TOKEN or GH_TOKEN), the repository and the event file's path; UsageError without one."""
    token = (environ.get("GITHUB_TOKEN") or environ.get("GH_TOKEN") or "").strip()
    repository, event_path = environ.get("GITHUB_REPOSITORY"), environ.get("GITHUB_EVENT_PATH")
    if not token or not repository or not event_path:
        raise UsageError("post-comment needs GITHUB_TOKEN (e.g. `env: {GITHUB_TOKEN: ${{ github.token }}}`), "
                         "GITHUB_REPOSITORY and GITHUB_EVENT_PATH")
    return token, repository, event_path


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read the event file {path}: {type(exc).__name__}") from None


def _read_body(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(BODY_LIMIT * 4 + 1)  # at most 4 bytes a character
        return raw.decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the comment file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the comment file {path} is not UTF-8 text") from None
