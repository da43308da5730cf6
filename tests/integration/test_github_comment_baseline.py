"""Sticky comment and baseline artifact against the local GitHub stand-in: pagination, comments that
are not ours, posts that fail after a store, redirects, secondary limits, fork PRs, and which runs a baseline may
come from."""

from __future__ import annotations

import pytest

from khaos_action.github.baseline import BASELINE_FILE, load_baseline, write_baseline
from khaos_action.github.client import GitHubClient, make_http_client
from khaos_action.github.comment import COMMENT_FILE, find_comment, marker, publish
from khaos_action.github.event import parse_event
from tests.builders import make_manifest
from tests.github_api import TOKEN, WORKFLOW, serve, zip_bytes

MARK = marker("khaos.yaml")


def pr_event(*, fork: bool = False, name: str = "pull_request", base_sha: str = "base111"):
    head_repo = {"full_name": "fork/r"} if fork else {"full_name": "o/r"}
    raw = {"pull_request": {"number": 7, "base": {"ref": "main", "sha": base_sha, "repo": {"full_name": "o/r"}},
                            "head": {"ref": "feature", "sha": "head222", "repo": head_repo}},
           "repository": {"full_name": "o/r", "default_branch": "main"}}
    return parse_event(raw, name)


@pytest.fixture
def api():
    with serve() as state:
        yield state


@pytest.fixture
def gh(api):
    return GitHubClient(make_http_client(api.api_url, TOKEN), sleep=lambda s: None)


def post(gh, api, tmp_path, *, policy="always", passed=False, event=None, body=None):
    return publish(body=body or f"{MARK}\nresult", policy=policy, passed=passed, event=event or pr_event(),
                   github=gh, repository="o/r", marker_line=MARK, fallback_dir=tmp_path)


# ---- comment ------------------------------------------------------------------------------------------------------

def test_creates_the_comment_when_none_is_ours(api, gh, tmp_path) -> None:
    api.add_comment(7, "LGTM")
    api.add_comment(7, f"{marker('other/khaos.yaml')}\nother config")
    result, warnings = post(gh, api, tmp_path)
    assert result.action == "created" and warnings == []
    assert [c["body"] for c in api.comments[7]][-1] == f"{MARK}\nresult"
    assert api.comments[7][1]["body"].endswith("other config")  # another instance's comment is left alone


def test_updates_ours_in_place_even_on_page_two(api, gh, tmp_path) -> None:
    api.page_size = 3
    for i in range(4):
        api.add_comment(7, f"chatter {i}")
    ours = api.add_comment(7, f"{MARK}\nold", user="github-actions[bot]")
    api.add_comment(7, "more chatter")
    assert find_comment(gh, "o/r", 7, MARK) == ours
    result, _ = post(gh, api, tmp_path, body=f"{MARK}\nnew")
    assert result.action == "updated"
    assert len(api.comments[7]) == 6 and api.comments[7][4]["body"] == f"{MARK}\nnew"
    assert api.requests("PATCH", f"/issues/comments/{ours}$") and not api.requests("POST")


def test_a_quoted_marker_in_someone_elses_comment_is_not_ours(api, gh, tmp_path) -> None:
    api.add_comment(7, f"> {MARK}\nquoting the bot")
    result, _ = post(gh, api, tmp_path)
    assert result.action == "created" and api.comments[7][0]["body"].startswith("> ")


def test_someone_elses_comment_starting_with_our_marker_is_never_patched(api, gh, tmp_path) -> None:
    forged = api.add_comment(7, f"{MARK}\nall green, merge away", user="mallory")
    result, warnings = post(gh, api, tmp_path, body=f"{MARK}\nFAILED")
    assert result.action == "created" and warnings == []
    assert not api.requests("PATCH") and api.comments[7][0]["body"].endswith("merge away")
    assert [c["user"]["login"] for c in api.comments[7]] == ["mallory", "github-actions[bot]"]
    assert api.comments[7][0]["id"] == forged
    # The next run finds its own comment (by author and marker) and updates that one, not mallory's.
    result, _ = post(gh, api, tmp_path, body=f"{MARK}\npassed now")
    assert result.action == "updated" and api.requests("PATCH", f"/comments/{api.comments[7][1]['id']}$")
    assert api.comments[7][0]["body"].endswith("merge away")


def test_on_failure_never_patches_a_forged_comment_either(api, gh, tmp_path) -> None:
    api.add_comment(7, f"{MARK}\nforged", user="mallory")
    result, _ = post(gh, api, tmp_path, policy="on-failure", passed=True)
    assert result.action == "skipped" and not api.requests("PATCH") and not api.requests("POST")


def test_with_a_personal_token_ours_is_the_token_users(api, gh, tmp_path) -> None:
    api.viewer = "octocat"  # GET /user answers for a personal token
    api.add_comment(7, f"{MARK}\nby the actions bot", user="github-actions[bot]")
    mine = api.add_comment(7, f"{MARK}\nby octocat", user="octocat")
    result, _ = post(gh, api, tmp_path, body=f"{MARK}\nnew")
    assert result.action == "updated" and api.requests("PATCH", f"/comments/{mine}$")
    assert api.comments[7][0]["body"].endswith("by the actions bot")


def test_a_user_named_like_the_bot_but_not_a_bot_is_not_us(api, gh, tmp_path) -> None:
    api.add_comment(7, f"{MARK}\nspoof", user="github-actions[bot]")
    api.comments[7][0]["user"]["type"] = "User"
    result, _ = post(gh, api, tmp_path)
    assert result.action == "created" and not api.requests("PATCH")


def test_a_post_stored_then_answered_5xx_is_not_posted_twice(api, gh, tmp_path) -> None:
    api.fail("POST", "/comments$", 502, after=True)
    result, warnings = post(gh, api, tmp_path)
    assert result.action == "created" and warnings == [] and "stored it despite" in result.detail
    assert len(api.requests("POST")) == 1 and len(api.comments[7]) == 1
    # it re-listed before deciding: GET /user, list, POST, list again
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in api.log] == [
        ("GET", "user"), ("GET", "comments"), ("POST", "comments"), ("GET", "comments")]


def test_a_post_lost_before_storing_is_created_once_after_re_listing(api, gh, tmp_path) -> None:
    api.fail("POST", "/comments$", 502)
    result, warnings = post(gh, api, tmp_path)
    assert result.action == "created" and warnings == [] and result.detail == "on the second attempt"
    assert len(api.requests("POST")) == 2 and len(api.comments[7]) == 1


def test_a_post_answered_with_a_redirect_is_not_reported_as_created(api, gh, tmp_path) -> None:
    api.fail("POST", "/comments$", 302, headers={"location": f"{api.api_url}/elsewhere"})
    result, warnings = post(gh, api, tmp_path)
    assert result.action == "skipped" and "returned 302" in warnings[0] and api.comments.get(7) is None


def test_a_secondary_limit_on_the_post_is_waited_out_then_posted_once(api, tmp_path) -> None:
    waits: list[float] = []
    gh = GitHubClient(make_http_client(api.api_url, TOKEN), sleep=waits.append)
    api.secondary_limit("POST", "/comments$")
    result, _ = post(gh, api, tmp_path)
    assert result.action == "created" and waits == [60.0] and len(api.comments[7]) == 1


def test_on_failure_policy(api, gh, tmp_path) -> None:
    result, _ = post(gh, api, tmp_path, policy="on-failure", passed=True)
    assert result.action == "skipped" and not api.requests("POST")
    post(gh, api, tmp_path, policy="on-failure", passed=False)
    result, _ = post(gh, api, tmp_path, policy="on-failure", passed=True, body=f"{MARK}\nnow passing")
    assert result.action == "updated" and api.comments[7][0]["body"].endswith("now passing")


def test_never_policy_and_non_pr_events_do_nothing(api, gh, tmp_path) -> None:
    assert post(gh, api, tmp_path, policy="never")[0].action == "skipped"
    push = parse_event({"ref": "refs/heads/main", "repository": {"default_branch": "main"}}, "push")
    assert post(gh, api, tmp_path, event=push)[0].action == "skipped"
    assert api.log == []


def test_fork_pr_writes_the_comment_file_instead(api, gh, tmp_path) -> None:
    result, warnings = post(gh, api, tmp_path, event=pr_event(fork=True))
    assert result.action == "file" and result.file == tmp_path / COMMENT_FILE
    assert (tmp_path / COMMENT_FILE).read_text() == f"{MARK}\nresult"
    assert "workflow_run" in warnings[0] and api.log == []


def test_pull_request_target_from_a_fork_may_comment(api, gh, tmp_path) -> None:
    assert post(gh, api, tmp_path, event=pr_event(fork=True, name="pull_request_target"))[0].action == "created"


def test_403_falls_back_to_the_comment_file(api, gh, tmp_path) -> None:
    api.fail("POST", "/comments$", 403, body={"message": "Resource not accessible by integration"})
    result, warnings = post(gh, api, tmp_path)
    assert result.action == "file" and (tmp_path / COMMENT_FILE).exists()
    assert "Resource not accessible" in warnings[0]


@pytest.mark.parametrize("status", [401, 404, 422, 500])
def test_other_api_errors_are_warnings_never_exceptions(api, gh, tmp_path, status: int) -> None:
    api.fail("POST", "/comments$", status, times=10)
    result, warnings = post(gh, api, tmp_path)
    assert result.action == "skipped" and f"returned {status}" in warnings[0]
    assert TOKEN not in warnings[0]


def test_no_token_writes_the_file(tmp_path) -> None:
    result, _ = publish(body="b", policy="always", passed=False, event=pr_event(), github=None, repository="o/r",
                        marker_line=MARK, fallback_dir=tmp_path)
    assert result.action == "file"


# ---- baseline -----------------------------------------------------------------------------------------------------

def baseline(gh, api, **kw):
    return load_baseline(mode="artifact", github=gh, repository="o/r", event=kw.pop("event", pr_event()),
                         workflow=kw.pop("workflow", WORKFLOW), current_run_id="999", **kw)


def test_baseline_artifact_from_the_base_branch_preferring_the_base_sha(api, gh) -> None:
    api.add_artifact(branch="main", sha="base111", created_at="2026-11-01T00:00:00Z",
                     manifest=make_manifest(run_id="exact-sha"))
    api.add_artifact(branch="main", sha="newer", created_at="2026-11-05T00:00:00Z",
                     manifest=make_manifest(run_id="newer"))
    api.add_artifact(branch="feature", sha="x", created_at="2026-11-09T00:00:00Z",
                     manifest=make_manifest(run_id="wrong-branch"))
    found = baseline(gh, api)
    assert found.manifest is not None and found.manifest.run_id == "exact-sha" and found.warnings == []
    assert "main@base111" in found.source
    assert "authorization" not in api.requests("GET", "^/blob/")[0].headers


def test_newest_on_the_branch_when_the_base_sha_has_none(api, gh) -> None:
    api.add_artifact(sha="old", created_at="2026-11-01T00:00:00Z", manifest=make_manifest(run_id="old"))
    api.add_artifact(sha="new", created_at="2026-11-05T00:00:00Z", manifest=make_manifest(run_id="new"))
    api.add_artifact(sha="newest", created_at="2026-11-06T00:00:00Z", run_id=999,
                     manifest=make_manifest(run_id="this-run"))  # the current run's own upload is skipped
    assert baseline(gh, api).manifest.run_id == "new"


def test_a_forks_artifact_from_a_branch_named_like_the_base_is_ignored_naming_the_run(api, gh) -> None:
    api.add_artifact(sha="real", created_at="2026-11-01T00:00:00Z", manifest=make_manifest(run_id="real"))
    api.add_artifact(sha="forged", created_at="2026-11-09T00:00:00Z", run_id=4040, head_repository="evil/r",
                     event="pull_request", manifest=make_manifest(run_id="forged"))
    found = baseline(gh, api)
    assert found.manifest is not None and found.manifest.run_id == "real"
    warning, = found.warnings
    assert "ignored `khaos-baseline` artifact" in warning and "of run 4040 (forged)" in warning
    assert "came from another repository (a fork's branch named like the base branch)" in warning
    assert not api.requests("GET", "/actions/runs/4040$")  # the listing said enough: no lookup


@pytest.mark.parametrize("run, why", [
    ({"event": "pull_request_target"}, "triggered by `pull_request_target`, not by a push to main"),
    ({"event": "workflow_run"}, "triggered by `workflow_run`"),
    ({"event": "pull_request"}, "triggered by `pull_request`"),
    ({"workflow": ".github/workflows/other.yml"},
     "the run is of workflow .github/workflows/other.yml, not .github/workflows/khaos.yml (set the "
     "`baseline-workflow` input"),
])
def test_a_run_this_repository_does_not_trust_is_ignored_naming_it_and_why(api, gh, run, why) -> None:
    api.add_artifact(sha="real", created_at="2026-11-01T00:00:00Z", manifest=make_manifest(run_id="real"))
    api.add_artifact(sha="other", created_at="2026-11-09T00:00:00Z", run_id=4141, manifest=make_manifest(run_id="x"),
                     **run)
    found = baseline(gh, api)
    assert found.manifest is not None and found.manifest.run_id == "real"
    assert len(found.warnings) == 1 and "of run 4141 (other)" in found.warnings[0] and why in found.warnings[0]


def test_when_only_forged_artifacts_exist_there_is_no_baseline(api, gh) -> None:
    for index in range(8):
        api.add_artifact(sha=f"f{index}", run_id=5000 + index, head_repository="evil/r")
    found = baseline(gh, api)
    assert found.manifest is None and found.source == "no baseline yet"
    assert len(found.warnings) == 7  # five named, the rest counted, and why there is none
    assert "ignored 3 more `khaos-baseline` artifacts" in found.warnings[5]
    assert "comes from a run this repository trusts (a push/workflow_dispatch/schedule run of " \
           ".github/workflows/khaos.yml in o/r)" in found.warnings[6]


@pytest.mark.parametrize("event", ["workflow_dispatch", "schedule"])
def test_dispatched_and_scheduled_runs_of_the_base_branch_are_trusted(api, gh, event) -> None:
    api.add_artifact(sha="nightly", event=event, manifest=make_manifest(run_id="nightly"))
    found = baseline(gh, api)
    assert found.manifest is not None and found.manifest.run_id == "nightly" and found.warnings == []


def test_baselines_from_another_workflow_file_are_used_when_the_input_names_it(api, gh) -> None:
    api.add_artifact(sha="b", workflow=".github/workflows/nightly.yml", manifest=make_manifest(run_id="nightly"))
    assert baseline(gh, api).manifest is None
    found = baseline(gh, api, workflow=".github/workflows/nightly.yml")
    assert found.manifest is not None and found.manifest.run_id == "nightly"


def test_the_run_at_the_merge_base_is_preferred_to_the_base_commit_and_the_newest(api, gh) -> None:
    api.merge_bases["base111...head222"] = "mb0000"
    api.add_artifact(sha="mb0000", created_at="2026-11-01T00:00:00Z", manifest=make_manifest(run_id="merge-base"))
    api.add_artifact(sha="base111", created_at="2026-11-03T00:00:00Z", manifest=make_manifest(run_id="base"))
    api.add_artifact(sha="newest", created_at="2026-11-05T00:00:00Z", manifest=make_manifest(run_id="newest"))
    found = baseline(gh, api)
    assert found.manifest.run_id == "merge-base" and "main@mb0000" in found.source
    assert api.requests("GET", "/compare/base111...head222$")


def test_a_forged_artifact_at_the_merge_base_loses_to_a_trusted_older_one(api, gh) -> None:
    api.add_artifact(sha="older", created_at="2026-11-01T00:00:00Z", manifest=make_manifest(run_id="trusted"))
    api.add_artifact(sha="base111", created_at="2026-11-03T00:00:00Z", run_id=6000, event="pull_request_target",
                     manifest=make_manifest(run_id="forged"))
    found = baseline(gh, api)
    assert found.manifest.run_id == "trusted" and "run 6000" in found.warnings[0]


def test_no_merge_base_and_no_run_lookup_are_warnings_never_a_forged_baseline(api, gh) -> None:
    api.add_artifact(sha="base111", manifest=make_manifest(run_id="base"))
    api.fail("GET", "/compare/", 500, times=10)
    found = baseline(gh, api)
    assert found.manifest.run_id == "base" and "cannot find the pull request's merge base" in found.warnings[0]
    api.fail("GET", "/actions/runs/77$", 404)
    found = baseline(gh, api)
    assert found.manifest is None and any("cannot check where baseline artifact" in w for w in found.warnings)


def test_without_knowing_the_workflow_no_artifact_is_trusted(api, gh) -> None:
    api.add_artifact()
    found = load_baseline(mode="artifact", github=gh, repository="o/r", event=pr_event(), workflow=None)
    assert found.manifest is None and "set the `baseline-workflow` input" in found.warnings[0]
    assert not api.requests("GET", "/actions/artifacts$")


def test_missing_baseline_is_a_warning_and_no_baseline(api, gh) -> None:
    api.add_artifact(branch="other")
    found = baseline(gh, api)
    assert found.manifest is None and found.source == "no baseline yet"
    assert "no `khaos-baseline` artifact from a run on main yet (1 found on other branches)" in found.warnings[0]


def test_baseline_that_expires_between_listing_and_download_says_expired(api, gh) -> None:
    artifact = api.add_artifact()
    api.fail("GET", f"/artifacts/{artifact}/zip$", 410, body={"message": "Artifact has expired"})
    found = baseline(gh, api)
    assert found.manifest is None and "has expired (GitHub answered 410 Gone)" in found.warnings[0]


def test_expired_baseline(api, gh) -> None:
    api.add_artifact(expired=True)
    found = baseline(gh, api)
    assert found.manifest is None and "expired" in found.warnings[0]


@pytest.mark.parametrize("content,why", [
    (b"not a zip at all", "not a zip archive"),
    (zip_bytes({"other.txt": "x"}), "no manifest.json inside"),
    (zip_bytes({"manifest.json": "{nope"}), "not valid JSON"),
    (zip_bytes({"manifest.json": '{"hello": 1}'}), "not a khaos-action manifest"),
    (zip_bytes({"manifest.json": '{"run_id": "r", "seed": "x"}'}), "invalid manifest"),
])
def test_corrupt_baseline_is_a_warning(api, gh, content: bytes, why: str) -> None:
    api.add_artifact(content=content)
    found = baseline(gh, api)
    assert found.manifest is None and why in found.warnings[0]


def test_manifest_in_a_subfolder_is_found(api, gh) -> None:
    api.add_artifact(content=zip_bytes({"baseline/manifest.json": make_manifest().model_dump_json()}))
    assert baseline(gh, api).manifest is not None


def test_baseline_from_another_config_warns_and_still_pairs(api, gh) -> None:
    api.add_artifact(manifest=make_manifest(config_hash="f" * 64))
    found = baseline(gh, api, config_hash="0" * 64)
    assert found.manifest is not None and "different config" in found.warnings[0]


def test_huge_baseline_is_refused_from_the_listing_and_while_streaming(api, gh) -> None:
    api.add_artifact(size=10**9)
    found = baseline(gh, api)
    assert found.manifest is None and "over the" in found.warnings[0] and not api.requests("GET", "^/blob/")
    api.artifacts.clear()
    api.add_artifact(content=b"x" * 5000, size=10)  # the listing lies: the stream is still capped
    found = baseline(gh, api, max_bytes=1000)
    assert found.manifest is None and "1,000 byte limit" in found.warnings[0]
    api.blob_length = False  # no content-length either: stopped while streaming
    found = baseline(gh, api, max_bytes=1000)
    assert found.manifest is None and "exceeded the 1,000 byte limit" in found.warnings[0]


def test_artifact_listing_forbidden_is_a_warning(api, gh) -> None:
    api.fail("GET", "/actions/artifacts$", 403, body={"message": "Resource not accessible by integration"})
    found = baseline(gh, api)
    assert found.manifest is None and "actions: read" in found.warnings[0]


def test_no_token_or_no_base_branch(api) -> None:
    assert "no `github-token`" in load_baseline(mode="artifact", github=None, repository="o/r",
                                               event=pr_event(), workflow=WORKFLOW).warnings[0]
    gh = GitHubClient(make_http_client(api.api_url, TOKEN))
    dispatch = parse_event({}, "workflow_dispatch")
    assert "no base branch" in load_baseline(mode="artifact", github=gh, repository="o/r",
                                             event=dispatch, workflow=WORKFLOW).warnings[0]


def test_path_and_none_modes(tmp_path) -> None:
    path = tmp_path / "m.json"
    make_manifest(run_id="from-file").write(path)
    assert load_baseline(mode="path", path=path).manifest.run_id == "from-file"
    missing = load_baseline(mode="path", path=tmp_path / "absent.json")
    assert missing.manifest is None and "no such manifest" in missing.warnings[0]
    assert load_baseline(mode="none").manifest is None and load_baseline(mode="none").warnings == []


def test_write_baseline_puts_the_manifest_where_the_docs_upload_it(tmp_path) -> None:
    source = tmp_path / "run" / "manifest.json"
    source.parent.mkdir()
    make_manifest().write(source)
    assert write_baseline(source, tmp_path) == tmp_path / BASELINE_FILE
    assert (tmp_path / ".khaos/baseline/manifest.json").read_text() == source.read_text()
