"""Credentials a workflow left where pull-request code could read them, made unreadable to it while the action runs.

actions/checkout persists the job token unless told `persist-credentials: false`: v4 writes
`http.https://github.com/.extraheader = AUTHORIZATION: basic base64(x-access-token:<token>)` into `.git/config`;
v6 writes it into `<RUNNER_TEMP>/git-credentials-<uuid>.config` (mounted into Docker actions at
/github/runner_temp) and names that file from `.git/config` with `includeIf.gitdir:<git dir>.path`. Both files are
mode 0644, so the unprivileged user that runs `install` and the agent could read them. Before any pull-request code
starts, the action (root) takes group and other access away from:
- every git config in the workspace holding a credential (an `extraheader` with AUTHORIZATION, a URL with a
  password) and every file its `include`/`includeIf` entries name that does;
- every `.git-credentials` file, and every file of the workspace (up to `SCAN_LIMIT` bytes, outside dependency
  folders and caches: `NOT_SCANNED`) holding one of the job's tokens, raw or as the basic credential checkout writes;
- the runner's own folders mounted into the container (its HOME, temp folder, workflow and command-file folders):
  nothing in them is for pull-request code.
The owner (the runner's user) keeps its access, so later steps (checkout's post step removes the header; a `git
push` uses it) work as before. When the action ends each entry gets its mode (and owner) back, but only if it is
still the same file with the mode we set: nothing pull-request code replaced is ever opened up.
"""

from __future__ import annotations

import base64
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SCAN_LIMIT = 1024 * 1024
"""Files larger than this are not read for a token's value (a credential file is a few hundred bytes)."""
NOT_SCANNED = frozenset({"node_modules", ".venv", "venv", "site-packages", "__pycache__", ".tox", ".nox",
                         ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cache"})
"""Folders not searched: installed dependencies and caches, tens of thousands of files a workflow step never writes
a credential into (the action's set-up time grows with every file it reads)."""
HIDDEN_BITS = 0o077
"""Group and other access: the agent user is neither the owner nor in the owner's group."""
RUNNER_DIRS = ("/github/home", "/github/runner_temp", "/github/workflow", "/github/file_commands")
"""Where GitHub's runner mounts its own folders into a Docker action (actions/runner, ContainerOperationProvider)."""
SKIPPED_DIRS = frozenset({"objects", "lfs"})
"""Inside a `.git` folder: object stores (compressed, never a credential file of their own)."""

_CREDENTIAL = re.compile(rb"extraheader\s*=\s*\"?\s*authorization\s*:|https?://[^\s/:@]+:[^\s/@]+@",
                         re.IGNORECASE)
_SECTION = re.compile(rb"^\s*\[\s*([^\]\s\"]+)")
_PATH = re.compile(rb"^\s*path\s*=\s*(.+?)\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class HiddenEntry:
    path: str
    why: str
    device: int
    inode: int
    mode: int
    """The mode it had (restored at the end)."""
    uid: int
    gid: int
    set_mode: int
    """The mode we gave it: restoring only happens while it still has this one."""
    changed_ns: int | None
    """A file's ctime once we changed it: any later change (a new file under the same inode number, a write, a
    chmod) moves it, and the file is left as it is. None for a folder (its entries come and go)."""


def token_forms(tokens: Iterable[str]) -> list[bytes]:
    """What a file holding a token contains: the token itself, or the basic credential checkout persists."""
    forms: list[bytes] = []
    for token in tokens:
        if len(token) < 8:
            continue
        forms.append(token.encode())
        forms.append(base64.b64encode(f"x-access-token:{token}".encode()))
    return sorted(set(forms))


def included_paths(config: Path, data: bytes, home: str | None) -> list[Path]:
    """The files a git config's `include.path` / `includeIf.<condition>.path` entries name."""
    found, section = [], b""
    for line in data.splitlines():
        if match := _SECTION.match(line):
            section = match[1].lower()
            continue
        if not section.startswith(b"include"):
            continue
        if match := _PATH.match(line):
            value = match[1].strip(b'"').decode("utf-8", "replace")
            if value.startswith("~/") and home:
                value = os.path.join(home, value[2:])
            found.append(Path(value) if os.path.isabs(value) else config.parent / value)
    return found


def find_credentials(workspace: Path, *, tokens: Iterable[str], home: str | None = None) -> dict[str, str]:
    """{path: why} for every file of `workspace` holding a credential, and every file its repositories' git configs
    (.git/config, worktree and submodule configs, repositories checked out into subfolders) include that does."""
    forms = token_forms(tokens)
    found: dict[str, str] = {}
    for root, dirs, files in os.walk(workspace):
        in_git = ".git" in Path(root).relative_to(workspace).parts
        dirs[:] = [d for d in dirs if d not in NOT_SCANNED and not (in_git and d in SKIPPED_DIRS)]
        for name in files:
            found.update(_credential_in(Path(root) / name, in_git, workspace, forms, home))
    return found


def _credential_in(path: Path, in_git: bool, workspace: Path, forms: list[bytes], home: str | None) -> dict[str, str]:
    """{path: why} for one file: a git config (and the files it includes), a credential store, or a file holding
    the job's token."""
    if in_git and path.name in ("config", "config.worktree"):
        return _git_config(path, workspace, forms, home)
    if path.name == ".git-credentials":
        return {str(path): "a git credential store"}
    if forms and _holds(_read(path) or b"", forms):
        return {str(path): "a file holding the job's token"}
    return {}


def _git_config(config: Path, workspace: Path, forms: list[bytes], home: str | None) -> dict[str, str]:
    data = _read(config)
    if data is None:
        return {}
    found = {}
    if _CREDENTIAL.search(data) or _holds(data, forms):
        found[str(config)] = "a git config holding a credential (actions/checkout's persisted token)"
    for included in included_paths(config, data, home):
        text = _read(included)
        if text is not None and (_CREDENTIAL.search(text) or _holds(text, forms)
                                 or included.name.startswith("git-credentials")):
            found[str(included)] = f"the credentials file {config.relative_to(workspace)} includes"
    return found


def _holds(data: bytes, forms: list[bytes]) -> bool:
    return any(form in data for form in forms)


def _read(path: Path) -> bytes | None:
    """A regular file's bytes (never through a link, never past SCAN_LIMIT), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > SCAN_LIMIT:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(SCAN_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def hide(paths: dict[str, str], *, agent_uid: int, directories: Iterable[str] = ()) -> list[HiddenEntry]:
    """Take group and other access away from each file in `paths` and each of `directories` (the runner's
    folders); a file owned by the agent's uid is given to root as well. Returns what to restore."""
    hidden: list[HiddenEntry] = []
    seen: set[tuple[int, int]] = set()  # one entry per file: the runner's HOME is also a folder of its temp folder
    wanted = [(path, why, False) for path, why in paths.items()]
    wanted += [(path, "a folder of the runner's", True) for path in directories]
    for path, why, directory in wanted:
        entry = _hide_one(path, why, agent_uid, directory=directory, seen=seen)
        if entry is not None:
            hidden.append(entry)
    return hidden


def _hide_one(path: str, why: str, agent_uid: int, *, directory: bool,
              seen: set[tuple[int, int]]) -> HiddenEntry | None:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_DIRECTORY if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)) or (info.st_dev, info.st_ino) in seen:
            return None
        seen.add((info.st_dev, info.st_ino))
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid == agent_uid:
            os.fchown(fd, 0, info.st_gid)
        os.fchmod(fd, mode & ~HIDDEN_BITS)
        changed = None if directory else os.fstat(fd).st_ctime_ns
        return HiddenEntry(path, why, info.st_dev, info.st_ino, mode, info.st_uid, info.st_gid, mode & ~HIDDEN_BITS,
                           changed)
    except OSError:
        return None
    finally:
        os.close(fd)


def restore(hidden: Iterable[HiddenEntry]) -> int:
    """Give each entry its mode and owner back if it is still the file we changed, as we left it. Returns how many
    were restored."""
    restored = 0
    for entry in hidden:
        try:
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) != (entry.device, entry.inode) or \
                    stat.S_IMODE(info.st_mode) != entry.set_mode or \
                    entry.changed_ns not in (None, info.st_ctime_ns):
                continue
            if (info.st_uid, info.st_gid) != (entry.uid, entry.gid):
                os.fchown(fd, entry.uid, entry.gid)
            os.fchmod(fd, entry.mode)
            restored += 1
        except OSError:
            continue
        finally:
            os.close(fd)
    return restored


def runner_directories(environ: dict[str, str], workspace: Path) -> list[str]:
    """The runner's folders visible in this container (never the workspace, nor a folder that holds it)."""
    candidates = list(RUNNER_DIRS)
    for name in ("RUNNER_TEMP", "GITHUB_EVENT_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV",
                 "GITHUB_PATH", "GITHUB_STATE"):
        value = environ.get(name, "")
        if value.startswith("/github/"):
            candidates.append(value if name == "RUNNER_TEMP" else os.path.dirname(value))
    inside = os.path.realpath(workspace) + "/"
    found = []
    for path in dict.fromkeys(candidates):
        real = os.path.realpath(path)
        if os.path.isdir(path) and not inside.startswith(real + "/") and not real.startswith(inside):
            found.append(path)
    return found
