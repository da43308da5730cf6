"""Credentials left in the workspace are found (checkout's real persisted formats) and made unreadable to the agent
user while the action runs; afterwards each gets its mode back, unless it is no longer the file we changed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from khaos_action.github.credentials import (
    find_credentials,
    hide,
    restore,
    runner_directories,
    token_forms,
)
from tests.fixtures.checkout import CREDENTIALS_NAME, basic_credential, extraheader, persisted_v4, persisted_v6

TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
AGENT_UID = 54321  # nobody's: the files' owner keeps its access


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / ".git").mkdir(parents=True)
    (path / "agent.py").write_text("def handle(text):\n    return text\n")
    (path / "README.md").write_text("clone with https://user:pass@example.com/r.git\n")  # docs, not a credential
    return path


def test_checkout_v4s_header_in_git_config_is_found(ws) -> None:
    (ws / ".git" / "config").write_text(persisted_v4(TOKEN))
    assert list(find_credentials(ws, tokens=[])) == [str(ws / ".git" / "config")]  # by its shape, token unknown
    assert list(find_credentials(ws, tokens=[TOKEN])) == [str(ws / ".git" / "config")]


def test_checkout_v6s_included_credentials_file_is_found(ws, tmp_path) -> None:
    temp = tmp_path / "runner_temp"
    temp.mkdir()
    (temp / CREDENTIALS_NAME).write_text(extraheader(TOKEN))
    (ws / ".git" / "config").write_text(persisted_v6("/home/runner/work/r/r", str(temp)))
    found = find_credentials(ws, tokens=[TOKEN])
    assert list(found) == [str(temp / CREDENTIALS_NAME)]  # the config itself holds only the includeIf lines
    assert ".git/config includes" in found[str(temp / CREDENTIALS_NAME)]


def test_submodule_and_nested_repository_configs_and_credential_stores_are_found(ws) -> None:
    (ws / ".git" / "config").write_text(persisted_v4(TOKEN).split("[http")[0])  # no credential
    (ws / ".git" / "modules" / "lib").mkdir(parents=True)
    (ws / ".git" / "modules" / "lib" / "config").write_text(persisted_v4(TOKEN))
    (ws / "vendor" / "other" / ".git").mkdir(parents=True)
    (ws / "vendor" / "other" / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = https://x-access-token:' + TOKEN + "@github.com/o/other\n")
    (ws / ".git-credentials").write_text("https://x-access-token:secret@github.com\n")
    found = find_credentials(ws, tokens=[])
    assert sorted(found) == sorted(str(ws / p) for p in (".git/modules/lib/config", "vendor/other/.git/config",
                                                         ".git-credentials"))


def test_any_file_holding_the_tokens_value_is_found_and_nothing_else(ws) -> None:
    (ws / "notes.txt").write_text(f"token={TOKEN}\n")
    (ws / "header.txt").write_text(f"Authorization: basic {basic_credential(TOKEN)}\n")
    assert sorted(find_credentials(ws, tokens=[TOKEN, "short"])) == [str(ws / "header.txt"), str(ws / "notes.txt")]
    assert token_forms(["short"]) == []


def test_hidden_files_lose_group_and_other_access_and_get_it_back(ws, tmp_path) -> None:
    (ws / ".git" / "config").write_text(persisted_v4(TOKEN))
    os.chmod(ws / ".git" / "config", 0o644)
    runner_home = tmp_path / "home"
    runner_home.mkdir(mode=0o755)
    hidden = hide(find_credentials(ws, tokens=[TOKEN]), agent_uid=AGENT_UID, directories=[str(runner_home)])
    assert (mode(ws / ".git" / "config"), mode(runner_home)) == (0o600, 0o700)
    assert restore(hidden) == 2
    assert (mode(ws / ".git" / "config"), mode(runner_home)) == (0o644, 0o755)


def test_a_file_replaced_or_changed_meanwhile_is_not_opened_up_again(ws) -> None:
    config, notes = ws / ".git" / "config", ws / "notes.txt"
    config.write_text(persisted_v4(TOKEN))
    notes.write_text(TOKEN)
    for path in (config, notes):
        os.chmod(path, 0o644)
    hidden = hide(find_credentials(ws, tokens=[TOKEN]), agent_uid=AGENT_UID)
    config.unlink()
    config.write_text("replaced")  # another file under the same name
    os.chmod(config, 0o600)
    os.chmod(notes, 0o400)  # someone chose another mode meanwhile
    assert restore(hidden) == 0
    assert (mode(config), mode(notes)) == (0o600, 0o400)


def test_a_link_is_never_followed_when_hiding(ws, tmp_path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text(TOKEN)
    os.chmod(outside, 0o644)
    (ws / "link.txt").symlink_to(outside)
    assert find_credentials(ws, tokens=[TOKEN]) == {}
    assert hide({str(ws / "link.txt"): "x"}, agent_uid=AGENT_UID) == [] and mode(outside) == 0o644


def test_runner_directories_are_the_runners_never_the_workspace(tmp_path) -> None:
    ws = tmp_path / "github" / "workspace"
    ws.mkdir(parents=True)
    found = runner_directories({"RUNNER_TEMP": str(tmp_path / "github"), "GITHUB_OUTPUT": "/elsewhere/out"}, ws)
    assert str(tmp_path / "github") not in found  # it holds the workspace


def test_a_file_reached_twice_is_hidden_and_restored_once(tmp_path) -> None:
    """As the runner's HOME is both /github/home and /github/runner_temp/_github_home (one folder, two mounts)."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(TOKEN)
    os.chmod(first, 0o644)
    os.link(first, second)
    hidden = hide({str(first): "x", str(second): "x"}, agent_uid=AGENT_UID)
    assert len(hidden) == 1 and mode(first) == 0o600
    assert restore(hidden) == 1 and mode(second) == 0o644


def test_dependency_folders_are_not_searched(ws) -> None:
    """node_modules, virtualenvs and caches: files no workflow step writes a credential into, in their tens of
    thousands; the set-up would read them all."""
    for folder in ("node_modules/pkg", ".venv/lib", "src/__pycache__"):
        (ws / folder).mkdir(parents=True)
        (ws / folder / "leak.txt").write_text(TOKEN)
    (ws / "src" / "settings.env").write_text(f"GH={TOKEN}\n")
    assert list(find_credentials(ws, tokens=[TOKEN])) == [str(ws / "src" / "settings.env")]
