"""The workflow event the run was triggered by (`GITHUB_EVENT_PATH`): which PR, which base, whether it is a fork."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

PR_EVENTS = ("pull_request", "pull_request_target")


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Repo(_Lenient):
    full_name: str | None = None
    default_branch: str | None = None


class _Ref(_Lenient):
    ref: str
    sha: str
    repo: _Repo | None = None
    """Null when the fork that opened the PR was deleted."""


class _PullRequest(_Lenient):
    number: int
    html_url: str | None = None
    base: _Ref
    head: _Ref


class _Event(_Lenient):
    pull_request: _PullRequest | None = None
    repository: _Repo | None = None
    ref: str | None = None


@dataclass(frozen=True)
class PullRequest:
    number: int
    base_ref: str
    base_sha: str
    head_sha: str
    base_repo: str | None
    head_repo: str | None

    @property
    def is_fork(self) -> bool:
        # A deleted fork has head.repo null: treat it as a fork (its token cannot comment either).
        return self.head_repo is None or (self.base_repo is not None and self.head_repo != self.base_repo)


@dataclass(frozen=True)
class EventInfo:
    name: str | None
    pull_request: PullRequest | None = None
    default_branch: str | None = None
    ref: str | None = None
    problem: str | None = None
    """Why the event could not be read (shown as a warning); None when it was fine or absent by design."""

    @property
    def writes_baseline(self) -> bool:
        """A run of the default branch's own code that PRs may compare with: a push to it, or a `workflow_dispatch`
        of it; a `schedule` run always runs the default branch (its event has no payload to name the branch by).
        The baseline is only ever taken from these runs (github/provenance.py TRUSTED_EVENTS)."""
        if self.name == "schedule":
            return True
        on_default = self.default_branch is not None and self.ref == f"refs/heads/{self.default_branch}"
        return on_default and self.name in ("push", "workflow_dispatch")

    @property
    def base_branch(self) -> str | None:
        """The branch whose baseline this run is compared with: the PR's base, else the default branch."""
        return self.pull_request.base_ref if self.pull_request else self.default_branch


def read_event(event_path: str | None, event_name: str | None, ref: str | None = None) -> EventInfo:
    """Never raises: an unreadable event only disables PR features, the evaluation still runs."""
    if not event_path:
        return EventInfo(name=event_name, ref=ref, problem="GITHUB_EVENT_PATH is not set (not running on GitHub "
                                                            "Actions?); no PR comment and no base-branch diff")
    try:
        raw: Any = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return EventInfo(
            name=event_name,
            ref=ref,
            problem=f"cannot read the event file {event_path}: "
            f"{type(exc).__name__}; no PR comment and no base-branch diff",
        )
    return parse_event(raw, event_name, ref)


def parse_event(raw: Any, event_name: str | None, ref: str | None = None) -> EventInfo:
    try:
        event = _Event.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return EventInfo(name=event_name, ref=ref, problem=f"unexpected event payload at {where}: {first['msg']}")
    default_branch = event.repository.default_branch if event.repository else None
    pr = None
    if event.pull_request is not None and event_name in PR_EVENTS:
        p = event.pull_request
        pr = PullRequest(
            number=p.number,
            base_ref=p.base.ref,
            base_sha=p.base.sha,
            head_sha=p.head.sha,
            base_repo=p.base.repo.full_name if p.base.repo else None,
            head_repo=p.head.repo.full_name if p.head.repo else None,
        )
    return EventInfo(name=event_name, pull_request=pr, default_branch=default_branch, ref=event.ref or ref)
