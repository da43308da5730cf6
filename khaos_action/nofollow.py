"""Writes under a confined root follow no symbolic link: every directory on the way is opened from the root's
descriptor, one component at a time, with O_NOFOLLOW | O_DIRECTORY.

The action runs as root in a workspace a pull request fills. A link it commits (`.khaos` → the runner's command-file
folder, `.khaos/comment.md` → the runner's event payload) would otherwise turn our writes into writes anywhere, as
root. While `confine(workspace)` is active, khaos_action.atomic resolves every path it writes through `open_dir`:
a link at any component, or a path outside the root, is a `LinkRefused` naming it; nothing is written. Outside a
`confine` block (the CLI on a developer's machine) paths are opened as they always were.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from khaos_action.errors import OutputError

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class LinkRefused(OutputError):
    """A path about to be written goes through a symbolic link, or leaves the confined root (exit 3)."""


@dataclass(frozen=True, slots=True)
class _Root:
    shown: str
    """The root as given (what messages name)."""
    bases: tuple[str, ...]
    """The root as given and with its own links resolved: a path below either is below the root."""
    fd: int


_root: _Root | None = None


@contextmanager
def confine(root: str | os.PathLike[str]) -> Iterator[None]:
    """Until the block ends, everything khaos_action.atomic writes must lie under `root` and is reached from it
    without following a link. `root` itself (and the path to it) is trusted: the runner made it."""
    global _root
    given, real = os.path.abspath(root), os.path.realpath(root)
    fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    previous, _root = _root, _Root(given, tuple(dict.fromkeys((given, real))), fd)
    try:
        yield
    finally:
        _root = previous
        os.close(fd)


def parts_below(path: str | os.PathLike[str]) -> list[str] | None:
    """`path`'s components below the confined root (None when nothing is confined). `..` is resolved on the
    text: with no link allowed below the root, the text is the file system's truth."""
    root = _root
    if root is None:
        return None
    absolute = os.path.abspath(path)
    for base in root.bases:
        if absolute == base:
            return []
        prefix = base.rstrip("/") + "/"
        if absolute.startswith(prefix):
            return absolute[len(prefix):].split("/")
    raise LinkRefused(f"cannot write {path}: it is outside the workspace {root.shown}, the only place khaos-action "
                      "writes while it runs as the action (a link in the workspace may have led there)")


@contextmanager
def open_dir(directory: str | os.PathLike[str], *, create: bool = False) -> Iterator[int]:
    """A descriptor of `directory` (created with its parents when `create`), reached without following a link
    below the confined root."""
    parts = parts_below(directory)
    if parts is None:
        if create:
            os.makedirs(directory, exist_ok=True)
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    else:
        fd = _walk(parts, create=create)
    try:
        yield fd
    finally:
        os.close(fd)


def _walk(parts: list[str], *, create: bool) -> int:
    assert _root is not None
    fd = os.open(".", _DIR, dir_fd=_root.fd)
    try:
        for depth, name in enumerate(parts):
            child = _step(fd, name, parts[:depth + 1], create=create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _step(fd: int, name: str, shown: list[str], *, create: bool) -> int:
    try:
        return os.open(name, _DIR, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            refuse_link(fd, name, shown)
        raise
    try:
        os.mkdir(name, 0o777, dir_fd=fd)
    except FileExistsError:
        pass  # made meanwhile: opened below like any other, so a link made meanwhile is refused too
    try:
        return os.open(name, _DIR, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            refuse_link(fd, name, shown)
        raise


def refuse_link(dir_fd: int, name: str, shown: list[str] | str) -> None:
    """LinkRefused when `name` in `dir_fd` is a symbolic link (naming it and where it points); else nothing."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return
    if not stat.S_ISLNK(info.st_mode):
        return
    try:
        target = os.readlink(name, dir_fd=dir_fd)
    except OSError:
        target = "?"
    where = "/".join(shown) if isinstance(shown, list) else shown
    raise LinkRefused(f"cannot write {where}: it is a symbolic link (to {target}) in the workspace, and khaos-action "
                      "writes nothing through a link there (a pull request could point it at the runner's files). "
                      f"Remove the link from the repository (keep `.khaos/` in .gitignore)")


def shown_below(path: str | os.PathLike[str]) -> str:
    """`path` as messages name it: relative to the confined root when there is one."""
    try:
        parts = parts_below(path)
    except LinkRefused:
        parts = None
    return "/".join(parts) if parts else str(path)


def check_writable(path: str | os.PathLike[str]) -> None:
    """LinkRefused when writing `path` would meet a link: at a directory on the way that exists, or the file
    itself. Missing directories are fine (they would be made). Nothing is created."""
    parts = parts_below(path)
    if not parts:
        return
    assert _root is not None
    fd = os.open(".", _DIR, dir_fd=_root.fd)
    try:
        for depth, name in enumerate(parts[:-1]):
            try:
                child = _step(fd, name, parts[:depth + 1], create=False)
            except FileNotFoundError:
                return
            os.close(fd)
            fd = child
        refuse_link(fd, parts[-1], parts)
    finally:
        os.close(fd)
