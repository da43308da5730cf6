"""The fork-safe pattern's second half (`khaos-action post-comment`) against the local GitHub stand-in: a pull
request's uploaded comment lands on that run's own pull request, verified by head repository and commit, and never
on another pull request opened on the same commit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from khaos_action.errors import ConfigError
from khaos_action.github.client import GitHubClient, make_http_client
from khaos_action.github.comment import marker
from khaos_action.github.relay import post
from tests.github_api import REPOSITORY, TOKEN, serve

ROOT = Path(__file__).resolve().parents[2]
MARK = marker("khaos.yaml")
SHA = "c0ffee0000000000000000000000000000000000"


@pytest.fixture
def api():
    with serve() as state:
        yield state


@pytest.fixture
def gh(api):
    return GitHubClient(make_http_client(api.api_url, TOKEN), sleep=lambda s: None)


def workflow_run(head_repository: str | None, branch: str, sha: str = SHA, *, event: str = "pull_request",
                 numbers: tuple[int, ...] = (), run_id: int = 900) -> dict:
    """A `workflow_run` event as GitHub sends it to the trusted workflow (GitHub sets every field)."""
    repo = ({"full_name": head_repository, "owner": {"login": head_repository.split("/")[0]}}
            if head_repository else None)
    return {"action": "completed", "workflow_run": {
        "id": run_id, "event": event, "head_sha": sha, "head_branch": branch, "head_repository": repo,
        "repository": {"full_name": REPOSITORY}, "pull_requests": [{"number": n} for n in numbers]}}


def bodies(api, number: int) -> list[str]:
    return [c["body"] for c in api.comments.get(number, [])]


def test_a_second_pull_request_on_the_victims_commit_gets_only_its_own_comment(api, gh) -> None:
    """alice's PR #7 and mallory's PR #8 have the same head commit. Finding the PR by commit alone could post
    mallory's uploaded comment (which mallory's fork controls: it can change the first workflow) on #7."""
    api.add_pull(7, head_repository="alice/r", head_ref="feature", head_sha=SHA)
    api.add_pull(8, head_repository="mallory/r", head_ref="feature", head_sha=SHA)
    forged = f"{MARK}\n### ✅ khaos-action · all attacks blocked"
    result, _ = post(gh, repository=REPOSITORY, payload=workflow_run("mallory/r", "feature", run_id=901), body=forged)
    assert result.action == "created" and bodies(api, 8) == [forged] and bodies(api, 7) == []
    real = f"{MARK}\n### ❌ khaos-action · secret leaked"
    result, _ = post(gh, repository=REPOSITORY, payload=workflow_run("alice/r", "feature", run_id=902), body=real)
    assert result.action == "created" and bodies(api, 7) == [real] and bodies(api, 8) == [forged]
    listed = [r.query.get("head") for r in api.requests("GET", "/pulls$")]
    assert listed == [["mallory:feature"], ["alice:feature"]]


def test_the_sticky_comment_is_updated_in_place(api, gh) -> None:
    api.add_pull(7, head_repository="alice/r", head_ref="feature", head_sha=SHA)
    for text in ("first", "second"):
        post(gh, repository=REPOSITORY, payload=workflow_run("alice/r", "feature"), body=f"{MARK}\n{text}")
    assert bodies(api, 7) == [f"{MARK}\nsecond"]


def test_a_branch_of_this_repository_is_found_by_the_runs_pull_request_number(api, gh) -> None:
    api.add_pull(9, head_repository=REPOSITORY, head_ref="topic", head_sha=SHA)
    result, _ = post(gh, repository=REPOSITORY, payload=workflow_run(REPOSITORY, "topic", numbers=(9,)),
                     body=f"{MARK}\nok")
    assert result.action == "created" and bodies(api, 9) == [f"{MARK}\nok"]
    assert not api.requests("GET", "/pulls$")  # the number GitHub gave, verified, no search


@pytest.mark.parametrize("pull, why", [
    ({"head_sha": "0" * 40}, "its head is now 0000000, the run was on c0ffee0 (a newer run will comment)"),
    ({"state": "closed"}, "it is closed"),
    ({"head_repository": "mallory/r"}, "its head is in mallory/r, the run's in o/r"),
])
def test_a_pull_request_number_that_does_not_check_out_is_not_commented(api, gh, pull, why) -> None:
    api.add_pull(9, **{"head_repository": REPOSITORY, "head_ref": "topic", "head_sha": SHA, **pull})
    result, notes = post(gh, repository=REPOSITORY, payload=workflow_run(REPOSITORY, "topic", numbers=(9,)),
                         body=f"{MARK}\nok")
    assert result.action == "skipped" and "no open pull request into o/r has the run's head" in result.detail
    assert notes == [f"pull request #9 is not the run's: {why}"] and bodies(api, 9) == []


def test_a_fork_pushed_again_since_the_run_gets_no_stale_comment(api, gh) -> None:
    api.add_pull(7, head_repository="alice/r", head_ref="feature", head_sha="1" * 40)
    result, notes = post(gh, repository=REPOSITORY, payload=workflow_run("alice/r", "feature"), body=f"{MARK}\nold")
    assert result.action == "skipped" and "a newer run will comment" in notes[0] and bodies(api, 7) == []


def test_two_pull_requests_with_the_runs_head_get_none(api, gh) -> None:
    api.add_pull(7, head_repository="alice/r", head_ref="feature", head_sha=SHA)
    api.add_pull(10, head_repository="alice/r", head_ref="feature", head_sha=SHA, base_ref="release")
    result, _ = post(gh, repository=REPOSITORY, payload=workflow_run("alice/r", "feature"), body=f"{MARK}\nx")
    assert result.action == "skipped" and "#7, #10 all have the run's head" in result.detail
    assert bodies(api, 7) == bodies(api, 10) == []


def test_a_deleted_fork_or_a_run_of_another_event_posts_nothing(api, gh) -> None:
    result, _ = post(gh, repository=REPOSITORY, payload=workflow_run(None, "feature"), body=f"{MARK}\nx")
    assert result.action == "skipped" and "deleted fork" in result.detail
    result, _ = post(gh, repository=REPOSITORY, payload=workflow_run(REPOSITORY, "main", event="push"),
                     body=f"{MARK}\nx")
    assert result.action == "skipped" and "triggered by `push`" in result.detail
    assert not api.requests("GET", "/pulls")


@pytest.mark.parametrize("body, why", [
    ("### ✅ no marker", "does not start with khaos-action's marker"),
    ("<!-- khaos-action:x --> and more\n", "does not start with khaos-action's marker"),
    (f"{MARK}\n" + "x" * 70_000, "over GitHub's 65,536"),
])
def test_only_a_comment_file_the_action_wrote_is_posted(api, gh, body, why) -> None:
    api.add_pull(7, head_repository="alice/r", head_ref="feature", head_sha=SHA)
    with pytest.raises(ConfigError, match=why):
        post(gh, repository=REPOSITORY, payload=workflow_run("alice/r", "feature"), body=body)
    assert bodies(api, 7) == []


def test_an_event_that_is_not_a_workflow_run_is_a_usage_error(gh) -> None:
    with pytest.raises(ConfigError, match=r"reads a `workflow_run` event; this event has no valid workflow_run"):
        post(gh, repository=REPOSITORY, payload={"pull_request": {"number": 7}}, body=f"{MARK}\nx")


def test_the_command_posts_from_a_workflow_run_jobs_environment(api, tmp_path) -> None:
    api.add_pull(8, head_repository="mallory/r", head_ref="feature", head_sha=SHA)
    api.add_pull(7, head_repository="alice/r", head_ref="feature", head_sha=SHA)
    (tmp_path / "event.json").write_text(json.dumps(workflow_run("alice/r", "feature")))
    (tmp_path / "comment.md").write_text(f"{MARK}\nfrom the file")
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "GITHUB_EVENT_NAME": "workflow_run",
           "GITHUB_EVENT_PATH": str(tmp_path / "event.json"), "GITHUB_REPOSITORY": REPOSITORY,
           "GITHUB_API_URL": api.api_url, "GITHUB_TOKEN": TOKEN}
    done = subprocess.run([sys.executable, "-m", "khaos_action.cli", "post-comment", "comment.md"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "post-comment: comment created" in done.stdout and TOKEN not in done.stdout + done.stderr
    assert bodies(api, 7) == [f"{MARK}\nfrom the file"] and bodies(api, 8) == []
    wrong = subprocess.run([sys.executable, "-m", "khaos_action.cli", "post-comment", "comment.md"], cwd=tmp_path,
                           env={**env, "GITHUB_EVENT_NAME": "pull_request"}, capture_output=True, text=True,
                           timeout=60, check=False)
    assert wrong.returncode == 2 and "runs in a workflow triggered by `workflow_run`" in wrong.stderr
