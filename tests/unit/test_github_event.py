"""Reading the workflow event: PR, base branch, forks (including deleted ones), default-branch pushes."""

from __future__ import annotations

import pytest

from khaos_action.github.event import parse_event, read_event


def pr(head_repo: object = {"full_name": "o/r"}) -> dict:
    return {"pull_request": {"number": 5, "base": {"ref": "main", "sha": "b", "repo": {"full_name": "o/r"}},
                             "head": {"ref": "x", "sha": "h", "repo": head_repo}},
            "repository": {"default_branch": "main"}}


def test_same_repo_pull_request() -> None:
    event = parse_event(pr(), "pull_request")
    assert event.pull_request.number == 5 and not event.pull_request.is_fork and event.base_branch == "main"


def test_fork_and_deleted_fork_are_forks() -> None:
    assert parse_event(pr({"full_name": "someone/r"}), "pull_request").pull_request.is_fork
    assert parse_event(pr(None), "pull_request").pull_request.is_fork


def test_a_pr_payload_under_another_event_name_is_not_a_pr() -> None:
    event = parse_event(pr(), "issue_comment")
    assert event.pull_request is None and event.base_branch == "main"


@pytest.mark.parametrize("name, ref, writes", [
    ("push", "refs/heads/main", True),
    ("push", "refs/heads/dev", False),
    ("workflow_dispatch", "refs/heads/main", True),
    ("workflow_dispatch", "refs/heads/dev", False),
    ("schedule", None, True),  # a scheduled run always runs the default branch
    ("pull_request_target", "refs/heads/main", False),  # runs on the base branch, may handle a PR's code
    ("workflow_run", "refs/heads/main", False),
    ("pull_request", "refs/pull/1/merge", False),
])
def test_runs_of_the_default_branch_write_the_baseline(name, ref, writes) -> None:
    event = parse_event({"repository": {"default_branch": "main"}} | ({"ref": ref} if ref else {}), name)
    assert event.writes_baseline is writes


def test_missing_unreadable_and_malformed_events_are_problems_not_crashes(tmp_path) -> None:
    assert "GITHUB_EVENT_PATH is not set" in read_event(None, "pull_request").problem
    assert "cannot read the event file" in read_event(str(tmp_path / "absent.json"), "pull_request").problem
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "cannot read the event file" in read_event(str(bad), "pull_request").problem
    weird = parse_event({"pull_request": {"number": "x"}}, "pull_request")
    assert weird.pull_request is None and "pull_request" in weird.problem
