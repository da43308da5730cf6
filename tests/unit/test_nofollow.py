"""Writes inside a confined root (the action's workspace) follow no link, at any component; outside `confine` they
behave as they always did. Real files in tmp_path; the links are what a pull request can commit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from khaos_action.atomic import make_dirs, open_text, remove, replace, staged_file, symlink, write_atomic
from khaos_action.errors import ExitCode
from khaos_action.nofollow import LinkRefused, check_writable, confine


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """The runner's files, outside the workspace: what a committed link points at."""
    path = tmp_path / "runner"
    path.mkdir()
    (path / "event.json").write_text("the runner's event")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def untouched(outside: Path) -> bool:
    return sorted(p.name for p in outside.iterdir()) == ["event.json"] and \
        (outside / "event.json").read_text() == "the runner's event"


def test_a_link_where_the_file_goes_is_refused_naming_it(ws, outside) -> None:
    (ws / ".khaos").mkdir()
    (ws / ".khaos" / "comment.md").symlink_to(outside / "event.json")
    with confine(ws), pytest.raises(LinkRefused) as caught:
        write_atomic(ws / ".khaos" / "comment.md", "the comment")
    assert ".khaos/comment.md: it is a symbolic link" in str(caught.value) and str(outside) in str(caught.value)
    assert caught.value.exit_code == ExitCode.AGENT
    assert untouched(outside) and (ws / ".khaos" / "comment.md").is_symlink()
    assert [p.name for p in (ws / ".khaos").iterdir()] == ["comment.md"]  # no temp file left behind


@pytest.mark.parametrize("link", [".khaos", ".khaos/runs", ".khaos/runs/github-1"])
def test_a_link_at_any_directory_on_the_way_is_refused(ws, outside, link) -> None:
    (ws / link).parent.mkdir(parents=True, exist_ok=True)
    (ws / link).symlink_to(outside, target_is_directory=True)
    target = ws / ".khaos" / "runs" / "github-1" / "manifest.json"
    for write in (lambda: make_dirs(target.parent), lambda: write_atomic(target, "{}"),
                  lambda: open_text(target), lambda: check_writable(target)):
        with confine(ws), pytest.raises(LinkRefused, match=f"cannot write {link}: it is a symbolic link"):
            write()
    assert untouched(outside)


def test_a_relative_link_climbing_out_is_refused_too(ws, outside) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "out").symlink_to(os.path.relpath(outside, ws / "sub"))
    with confine(ws), pytest.raises(LinkRefused, match="sub/out"):
        write_atomic(ws / "sub" / "out" / "event.json", "overwritten")
    assert untouched(outside)


def test_a_path_outside_the_root_is_refused(ws, outside) -> None:
    with confine(ws), pytest.raises(LinkRefused, match="outside the workspace"):
        write_atomic(ws / ".." / "runner" / "event.json", "overwritten")
    assert untouched(outside)


def test_a_link_replacing_a_directory_after_it_was_made_is_refused(ws, outside) -> None:
    """The check is made by every write, not once: a directory swapped for a link later is refused there."""
    with confine(ws):
        make_dirs(ws / ".khaos" / "runs")
        (ws / ".khaos" / "runs").rmdir()
        (ws / ".khaos" / "runs").symlink_to(outside)
        with pytest.raises(LinkRefused, match=".khaos/runs"):
            with staged_file(ws / ".khaos" / "runs" / ".x.tmp") as handle:
                handle.write(b"x")
    assert untouched(outside)


def test_confined_writes_work_where_there_is_no_link(ws) -> None:
    with confine(ws):
        make_dirs(ws / ".khaos" / "runs" / "r")
        write_atomic(ws / ".khaos" / "runs" / "r" / "manifest.json", "{}")
        with open_text(ws / ".khaos" / "runs" / "r" / "events.jsonl") as log:
            log.write("line\n")
        tmp = ws / ".khaos" / ".staged"
        with staged_file(tmp) as handle:
            handle.write(b"staged")
        replace(tmp, ws / ".khaos" / "moved")
        symlink("runs/r", ws / ".khaos" / "latest")
        remove(ws / ".khaos" / "moved")
    assert (ws / ".khaos/runs/r/manifest.json").read_text() == "{}"
    assert (ws / ".khaos/runs/r/events.jsonl").read_text() == "line\n"
    assert os.readlink(ws / ".khaos" / "latest") == "runs/r" and not (ws / ".khaos" / "moved").exists()


def test_a_root_reached_through_a_link_is_trusted(tmp_path, ws) -> None:
    """The root itself (and the path to it) is the runner's: only what lies below it is checked."""
    (tmp_path / "ws-link").symlink_to(ws)
    with confine(tmp_path / "ws-link"):
        write_atomic(tmp_path / "ws-link" / "b.txt", "ok")
        write_atomic(ws / "c.txt", "ok")  # the same root, named by its real path
    assert (ws / "b.txt").read_text() == (ws / "c.txt").read_text() == "ok"


def test_outside_a_confine_block_links_are_followed_as_before(ws, outside) -> None:
    (ws / ".khaos").symlink_to(outside)
    write_atomic(ws / ".khaos" / "report.md", "local run")
    make_dirs(ws / ".khaos" / "runs")
    assert (outside / "report.md").read_text() == "local run" and (outside / "runs").is_dir()


def test_check_writable_accepts_what_does_not_exist_yet(ws) -> None:
    with confine(ws):
        check_writable(ws / ".khaos" / "runs" / "x" / "manifest.json")
    assert not (ws / ".khaos").exists()
