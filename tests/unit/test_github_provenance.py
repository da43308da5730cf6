"""Which runs may provide the baseline (github/provenance.py): the workflow a baseline must come from, and the table
of checks a looked-up run passes or fails, each failure said in words."""

from __future__ import annotations

import pytest

from khaos_action.github.provenance import Expected, expected_workflow, run_problem

EXPECTED = Expected(repository="Octo/Repo", branch="main", workflow=".github/workflows/khaos.yml")


@pytest.mark.parametrize("configured, ref, expected", [
    (None, "octo/repo/.github/workflows/khaos.yml@refs/pull/3/merge", ".github/workflows/khaos.yml"),
    (None, "Octo/Repo/.github/workflows/ci.yaml@refs/heads/main", ".github/workflows/ci.yaml"),
    (None, "other/repo/.github/workflows/shared.yml@v1", ".github/workflows/shared.yml"),
    ("nightly.yml", "octo/repo/.github/workflows/khaos.yml@refs/pull/3/merge", ".github/workflows/nightly.yml"),
    ("./.github/workflows/nightly.yml", None, ".github/workflows/nightly.yml"),
    (None, None, None),
    (None, "garbage", None),
])
def test_the_expected_workflow_is_the_input_or_this_runs_own(configured, ref, expected) -> None:
    assert expected_workflow(configured, ref, "octo/repo") == expected


def run(**overrides):
    data = {"repository": {"full_name": "octo/repo"}, "head_repository": {"full_name": "octo/repo"},
            "event": "push", "head_branch": "main", "path": ".github/workflows/khaos.yml", "head_sha": "abc"}
    return data | overrides


ARTIFACT = {"id": 1, "workflow_run": {"id": 9, "head_sha": "abc", "head_branch": "main"}}


@pytest.mark.parametrize("event", ["push", "workflow_dispatch", "schedule"])
def test_this_repositorys_own_run_of_the_workflow_on_the_base_branch_is_trusted(event) -> None:
    assert run_problem(run(event=event), ARTIFACT, EXPECTED) is None
    assert run_problem(run(path=".github/workflows/KHAOS.yml@refs/heads/main"), ARTIFACT, EXPECTED) is None


@pytest.mark.parametrize("overrides, why", [
    ({"repository": {"full_name": "evil/repo"}}, "the run belongs to evil/repo, not Octo/Repo"),
    ({"head_repository": {"full_name": "evil/repo"}}, "the run's code came from evil/repo, not from Octo/Repo"),
    ({"head_repository": None}, "the run's code came from a deleted fork"),
    ({"event": "pull_request_target"}, "triggered by `pull_request_target`, not by a push to main"),
    ({"event": "workflow_run"}, "triggered by `workflow_run`"),
    ({"event": None}, "triggered by `None`"),
    ({"head_branch": "main2"}, "the run was on branch 'main2', not 'main'"),
    ({"path": ".github/workflows/other.yml"}, "the run is of workflow .github/workflows/other.yml, not "
                                              ".github/workflows/khaos.yml"),
    ({"head_sha": "def"}, "the artifact's commit is not the run's"),
])
def test_any_other_run_is_not_trusted_and_says_why(overrides, why) -> None:
    assert why in run_problem(run(**overrides), ARTIFACT, EXPECTED)
