"""Which runs may provide the baseline (github/provenance.py): the workflow a baseline must come from, and the table
of checks a looked-up run passes or fails, each failure said in words."""

from __future__ import annotations

import pytest

from khaos_action.github.provenance import Expected, choose, expected_workflow, run_problem

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


class _Runs:
    """The one call `choose` makes of the GitHub client: a run by id (an id listed in `broken` fails)."""

    def __init__(self, runs: dict[str, dict], broken: tuple[str, ...] = ()) -> None:
        self.runs, self.broken = runs, broken

    def get(self, path: str, **_: object) -> dict:
        from khaos_action.github.client import GitHubUnavailable

        run_id = path.rsplit("/", 1)[1]
        if run_id in self.broken:
            raise GitHubUnavailable(f"GitHub API GET {path}: 502")
        return self.runs[run_id]


_EXPECTED = Expected(repository="acme/shop", branch="main", workflow=".github/workflows/khaos.yml")


def _artifact(run_id: str, sha: str, created: str, **kw) -> dict:
    run = {"id": run_id, "head_branch": kw.pop("branch", "main"), "head_sha": sha, "repository_id": 1,
           "head_repository_id": kw.pop("head_repository_id", 1)}
    return {"id": f"a{run_id}", "name": kw.pop("name", "khaos-baseline"), "created_at": created,
            "workflow_run": run, **kw}


def _run(run_id: str, sha: str, **kw) -> dict:
    return {"id": run_id, "repository": {"full_name": "acme/shop"}, "head_repository": {"full_name": "acme/shop"},
            "event": "push", "head_branch": "main", "path": ".github/workflows/khaos.yml", "head_sha": sha, **kw}


_RUNS = {"1": _run("1", "s1"), "2": _run("2", "s2"), "3": _run("3", "s3", event="pull_request"),
         "4": _run("4", "s4")}


@pytest.mark.parametrize(("artifacts", "prefer", "broken", "chosen", "warned"), [
    ([_artifact("1", "s1", "2024-01-01"), _artifact("2", "s2", "2024-02-01")], [], (), "a2", 0),  # the newest
    ([_artifact("1", "s1", "2024-01-01"), _artifact("2", "s2", "2024-02-01")], ["s1"], (), "a1", 0),  # preferred
    ([_artifact("3", "s3", "2024-03-01"), _artifact("1", "s1", "2024-01-01")], [], (), "a1", 1),  # not a push
    ([_artifact("9", "s9", "2024-03-01", head_repository_id=2), _artifact("1", "s1", "2024-01-01")], [], (),
     "a1", 1),  # a fork's branch named main
    ([_artifact("2", "s2", "2024-02-01"), _artifact("1", "s1", "2024-01-01")], [], ("2",), "a1", 1),
    # the live one names another commit than its run's; the trusted one has expired
    ([_artifact("5", "s5", "2024-05-01"), _artifact("4", "s4", "2024-04-01", expired=True)], [], (), None, 1),
    ([_artifact("6", "s6", "2024-05-01", branch="feature")], [], (), None, 0),
    ([_artifact("1", "s1", "2024-01-01", name="other")], [], (), None, 0),
    ([_artifact("7", "s7", "2024-05-01")], [], (), None, 0),  # the current run's own
])
def test_choosing_a_baseline_artifact_as_a_table(artifacts, prefer, broken, chosen, warned) -> None:
    runs = {**_RUNS, "5": _run("5", "other-sha")}  # run 5's artifact names another commit: never trusted
    choice = choose(_Runs(runs, broken), artifacts, name="khaos-baseline", expected=_EXPECTED, prefer=prefer,
                    current_run_id="7")
    assert (choice.artifact or {}).get("id") == chosen and len(choice.warnings) == warned
    assert bool(choice.why_none) is (chosen is None)
