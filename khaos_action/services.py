"""What a run takes from the world around it: the environment, HTTP clients, the clock and the git checkout.

The shells (the CLI's commands, the action's entrypoint) build one `Services` from the real process and pass it
down through `evaluate`; nothing below them reads `os.environ` or constructs an HTTP client, so a test hands in its
own environment, clock or client factory instead of patching globals (STYLE: wire real things once, pass them in).
Bottom layer: the standard library and progress.py only; httpx is imported when a client is first built (startup
time is measured).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.progress import Progress

if TYPE_CHECKING:
    import httpx

GitHead = tuple["str | None", "str | None"]
"""(commit sha, ref) of the checkout a run is of; either is None when unknown."""


def http_client(**kwargs: Any) -> httpx.Client:
    """A synchronous httpx client (the GitHub API); `kwargs` are httpx.Client's."""
    import httpx

    return httpx.Client(**kwargs)


def async_http_client(**kwargs: Any) -> httpx.AsyncClient:
    """An asynchronous httpx client (http agents, LLM endpoints); `kwargs` are httpx.AsyncClient's."""
    import httpx

    return httpx.AsyncClient(**kwargs)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


# ---- the git reader ----------------------------------------------------------------------------------------------

def read_git(environ: Mapping[str, str], cwd: Path) -> GitHead:
    """The commit and ref the run is of: GITHUB_SHA/GITHUB_REF (always set by Actions), else git, else .git/ read
    directly (the container image has no git)."""
    sha = environ.get("GITHUB_SHA")
    ref = environ.get("GITHUB_REF")
    if sha is None or ref is None:
        head_sha, head_ref = git_head_files(cwd)
        if sha is None:
            sha = _git(["rev-parse", "HEAD"], cwd) or head_sha
        if ref is None:
            ref = _git(["rev-parse", "--abbrev-ref", "HEAD"], cwd) or head_ref
    return sha, ref


def git_head_files(cwd: Path) -> GitHead:
    """(sha, branch) of HEAD from the files under .git, without git: loose or packed refs, worktrees' `.git` files."""
    dot_git = next((root / ".git" for root in (cwd, *cwd.parents) if (root / ".git").exists()), None)
    if dot_git is None:
        return None, None
    try:
        dot_git, common = _git_dirs(dot_git)
        head = (dot_git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head or None, "HEAD"
        ref = head[5:]
        return _ref_sha(dot_git, common, ref), ref.removeprefix("refs/heads/")  # None: a branch with no commit yet
    except OSError:
        return None, None


def _git_dirs(dot_git: Path) -> tuple[Path, Path]:
    """The repository's git directory (a worktree's or submodule's `.git` file says where: "gitdir: <path>") and
    the common one holding the shared refs."""
    if dot_git.is_file():
        dot_git = (dot_git.parent / dot_git.read_text().split(":", 1)[1].strip()).resolve()
    if (dot_git / "commondir").is_file():
        return dot_git, (dot_git / (dot_git / "commondir").read_text().strip()).resolve()
    return dot_git, dot_git


def _ref_sha(dot_git: Path, common: Path, ref: str) -> str | None:
    """The commit `ref` names: a loose ref file, else a line of packed-refs."""
    for base in (dot_git, common):
        if (base / ref).is_file():
            return (base / ref).read_text().strip() or None
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    return None


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


@dataclass(frozen=True)
class Services:
    environ: Mapping[str, str]
    """The environment as the shell saw it: `api_key_env` keys, `${VAR}` in agent.env / agent.headers (less the
    runner's secrets, engine/sandbox.py), the cassette mode, GITHUB_SHA / GITHUB_REF, the agent's python and user.
    Agent processes get their clean environment from this mapping, never from the process's own."""
    http: Callable[..., httpx.Client] = http_client
    """Builds synchronous HTTP clients."""
    async_http: Callable[..., httpx.AsyncClient] = async_http_client
    """Builds asynchronous HTTP clients (one per http agent, LLM judge, mutation endpoint, attacker)."""
    clock: Callable[[], datetime] = utc_now
    """The wall clock (aware, UTC): the manifest's started_at / finished_at."""
    git: Callable[[Mapping[str, str], Path], GitHead] = read_git
    """Reads the (sha, ref) of the checkout at a directory; GITHUB_SHA / GITHUB_REF in the environment win."""
    progress: Callable[[], Progress] = Progress
    """Builds the display a run shows while it works, on stderr (khaos_action/progress.py: the shells choose a bar
    on a terminal, plain lines in CI, or none); by default none."""

    def git_head(self, cwd: Path | None = None) -> GitHead:
        return self.git(self.environ, Path(cwd or Path.cwd()))
