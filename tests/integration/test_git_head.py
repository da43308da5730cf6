"""The commit is read without git (the image has none): .git/ files agree with `git rev-parse` in every layout."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from khaos_action.services import git_head_files, read_git

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="git is needed to make the reference repositories")


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e",
           "HOME": str(cwd), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "f").write_text("1")
    git(path, "add", "f")
    git(path, "commit", "-q", "-m", "one")
    (path / "sub").mkdir()
    return path


def test_loose_ref_from_a_subdirectory(repo) -> None:
    assert git_head_files(repo / "sub") == (git(repo, "rev-parse", "HEAD"), "main")


def test_packed_ref(repo) -> None:
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert git_head_files(repo) == (git(repo, "rev-parse", "HEAD"), "main")


def test_detached_head(repo) -> None:
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach")
    assert git_head_files(repo) == (sha, "HEAD")


def test_worktree_reads_its_own_head(repo, tmp_path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "f").write_text("2")
    git(repo, "commit", "-q", "-am", "two")
    git(repo, "checkout", "-q", "main")
    git(repo, "pack-refs", "--all")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "other")
    assert git_head_files(tmp_path / "wt") == (git(tmp_path / "wt", "rev-parse", "HEAD"), "other")
    assert git_head_files(tmp_path / "wt")[0] != git_head_files(repo)[0]


def test_no_repository_and_an_unborn_branch(tmp_path) -> None:
    assert git_head_files(tmp_path) == (None, None)
    (tmp_path / "new").mkdir()
    git(tmp_path / "new", "init", "-q", "-b", "fresh")
    assert git_head_files(tmp_path / "new") == (None, "fresh")


def test_the_runners_sha_and_ref_in_the_run_environment_win_over_the_checkout(tmp_path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    pr = "refs/pull/3/merge"
    assert read_git({"GITHUB_SHA": "c0ffee", "GITHUB_REF": pr}, repo) == ("c0ffee", pr)
    assert read_git({"GITHUB_REF": pr}, repo) == (git(repo, "rev-parse", "HEAD"), pr)
    assert read_git({}, repo) == (git(repo, "rev-parse", "HEAD"), "main")
