"""The workflows docs/github-action.md documents are the ones the product is built for: each parses, and the ones
with a security or completeness duty do it (a sharded run fails closed; the fork-safe pattern posts through
`khaos-action post-comment`, which maps the comment to the run's own pull request, tested in
tests/integration/test_github_relay.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

DOCS = Path(__file__).resolve().parents[2] / "docs" / "github-action.md"


def workflows() -> list[dict[str, Any]]:
    """Every ```yaml block of the page that defines jobs, parsed."""
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), flags=re.DOTALL)
    parsed = [yaml.safe_load(block) for block in blocks]
    return [w for w in parsed if isinstance(w, dict) and "jobs" in w]


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps", [])


def uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).startswith(action)


def sharded() -> dict[str, Any]:
    found = [w for w in workflows() if any("matrix" in job.get("strategy", {}) for job in w["jobs"].values())]
    assert len(found) == 1, "the page documents one sharded workflow"
    return found[0]


def test_every_documented_workflow_parses_and_has_jobs() -> None:
    assert len(workflows()) >= 4
    for workflow in workflows():
        for name, job in workflow["jobs"].items():
            assert steps(job), name


def test_every_shard_uploads_its_manifest_even_when_the_shard_failed() -> None:
    jobs = sharded()["jobs"]
    shard_job = next(job for job in jobs.values() if "matrix" in job.get("strategy", {}))
    upload = [s for s in steps(shard_job) if uses(s, "actions/upload-artifact")]
    assert len(upload) == 1 and "always()" in str(upload[0].get("if", ""))


def test_the_report_job_expects_as_many_shards_as_the_matrix_runs() -> None:
    jobs = sharded()["jobs"]
    shard_job = next(job for job in jobs.values() if "matrix" in job.get("strategy", {}))
    count = len(shard_job["strategy"]["matrix"]["shard"])
    action = next(s for s in steps(shard_job) if "shard" in s.get("with", {}))
    assert action["with"]["shard"] == "${{ matrix.shard }}/" + str(count)
    report = next(job for job in jobs.values() if any("khaos-action merge" in s.get("run", "") for s in steps(job)))
    merge = next(s["run"] for s in steps(report) if "khaos-action merge" in s.get("run", ""))
    assert f"--expect {count}" in merge and "--allow-partial" not in merge
    assert report.get("if") == "always()"  # a failed shard job must not skip the report that fails the run


def test_the_fork_safe_comment_is_posted_by_post_comment_never_found_by_commit() -> None:
    trusted = [w for w in workflows() if "workflow_run" in (w.get("on") or w.get(True) or {})]
    assert len(trusted) == 1
    job, = trusted[0]["jobs"].values()
    assert not any(uses(s, "actions/checkout") for s in steps(job))  # never the pull request's code
    scripts = "\n".join(s.get("run", "") for s in steps(job))
    assert "khaos-action post-comment comment.md" in scripts and "head.sha" not in scripts
    poster = next(s for s in steps(job) if "post-comment" in s.get("run", ""))
    assert poster["env"] == {"GITHUB_TOKEN": "${{ github.token }}"}
    assert trusted[0]["permissions"] == {"pull-requests": "write", "actions": "read"}
