"""Caps on everything pull-request code runs in the action at once: processes, memory and disk, across `install`
and every agent process, however many it starts and whatever session it moves to.

rlimits bound one process each (khaos_action/engine/sandbox.py). What bounds them together is that they all run as
the agent user (KHAOS_AGENT_USER): the kernel counts that user's processes and threads against RLIMIT_NPROC, which
the action sets on itself so that every child inherits it (root is exempt, the agent user is not). A cgroup would
cap memory and disk too, but GitHub's runner starts a Docker action without one it may write to (no --privileged,
/sys/fs/cgroup read-only), so a thread of the action samples them instead: the proportional set size of every
process of the agent user (/proc/<pid>/smaps_rollup) and what the file systems it can write to gained since it
started (confirmed by adding up the agent user's files there). Over a cap it kills every process of the agent user
(`kill(-1)` from a process of that user, then a sweep) and records the breach for the action to report.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from khaos_action.engine.sandbox import Identity

MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Caps:
    """What all pull-request processes may use together; None: no cap."""

    memory_mb: int | None = 4096
    processes: int | None = 256
    disk_mb: int | None = 2048


@dataclass(frozen=True, slots=True)
class Breach:
    what: str
    """"memory" or "disk"."""
    used_mb: float
    cap_mb: int
    phase: str
    """What was running: "install" or "run"."""

    def describe(self) -> str:
        how = "used" if self.what == "memory" else "wrote"
        return (f"pull-request code {how} {self.used_mb:.0f} MiB of {self.what} in all, over its cap of "
                f"{self.cap_mb} MiB (input `max-{self.what}-mb`), during the {self.phase}: every process it had "
                "running was killed")


def limit_processes(cap: int | None) -> None:
    """RLIMIT_NPROC on this process, inherited by every child: the agent user's processes and threads together."""
    if cap is None:
        return
    resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))


@dataclass
class Watchdog:
    identity: Identity
    caps: Caps
    roots: list[str]
    """Where pull-request code can write (its venv's folder, its home, /tmp, the workspace): the file systems
    holding them are watched, and the agent user's files below them counted."""
    interval_s: float = 0.25
    proc: str = "/proc"
    kill: Callable[[Identity], None] | None = None
    usage: Callable[[Iterable[str]], dict[int, int]] | None = None
    """Bytes used per file system holding `roots` (default: statvfs)."""
    phase: str = "install"
    breaches: list[Breach] = field(default_factory=list)
    clock: Callable[[], float] = time.monotonic
    _start_used: dict[int, int] = field(default_factory=dict)
    _confirmed_below: int = 0
    _rss_fine_below: int = 0
    _pss_due: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        self.usage = self.usage or used_by_device
        self._start_used = self.usage(self.roots)

    def __enter__(self) -> Watchdog:
        self._thread = threading.Thread(target=self._loop, name="khaos-watchdog", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.check()
            except Exception:  # noqa: BLE001, S112 - one odd sample (a /proc entry gone mid-read) must not end the caps
                continue

    def check(self) -> Breach | None:
        """One look: a breach (its processes killed, the breach recorded) or None."""
        breach = self._memory() or self._disk()
        if breach is not None:
            self.breaches.append(breach)  # first: whoever sees its processes die asks why
            (self.kill or kill_user)(self.identity)
        return breach

    def _memory(self) -> Breach | None:
        """The resident sizes first (statm is cheap); only when they add up past the cap, the proportional sizes
        (smaps_rollup walks every page table, slow for big processes), which split the pages forked workers share."""
        if self.caps.memory_mb is None:
            return None
        cap = self.caps.memory_mb * MB
        pids = user_pids(self.identity.uid, self.proc)
        resident = sum(_rss(pid, self.proc) for pid in pids)
        if resident <= cap or (resident <= self._rss_fine_below and self.clock() < self._pss_due):
            return None
        used = sum(_pss(pid, self.proc) for pid in pids)
        if used <= cap:  # shared pages: fine; look again in a while, or once the resident sizes grow further
            self._rss_fine_below, self._pss_due = resident + cap // 16, self.clock() + 2.0
            return None
        return Breach("memory", used / MB, self.caps.memory_mb, self.phase)

    def _disk(self) -> Breach | None:
        if self.caps.disk_mb is None:
            return None
        cap = self.caps.disk_mb * MB
        assert self.usage is not None
        now = self.usage(self.roots)
        grown = sum(max(0, used - self._start_used.get(dev, used)) for dev, used in now.items())
        if grown <= max(cap, self._confirmed_below):
            return None
        # The file systems grew past the cap: count what is the agent user's (others may write there too).
        owned = owned_bytes(self.roots, self.identity.uid)
        if owned <= cap:
            self._confirmed_below = grown + cap // 8  # look again once they grow further
            return None
        return Breach("disk", owned / MB, self.caps.disk_mb, self.phase)


def user_pids(uid: int, proc: str = "/proc") -> list[int]:
    """Processes whose real uid is `uid`."""
    found = []
    for name in os.listdir(proc):
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) == uid:
                            found.append(int(name))
                        break
        except (OSError, ValueError, IndexError):
            continue
    return found


def _pss(pid: int, proc: str) -> int:
    """A process's proportional set size in bytes (shared pages split among their users: forked workers are not
    counted once each), else its resident set size."""
    try:
        with open(f"{proc}/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return _rss(pid, proc)


def _rss(pid: int, proc: str) -> int:
    """A process's resident set size in bytes (never less than its proportional one)."""
    try:
        with open(f"{proc}/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def used_by_device(roots: Iterable[str]) -> dict[int, int]:
    used: dict[int, int] = {}
    for root in roots:
        try:
            device = os.stat(root).st_dev
            info = os.statvfs(root)
        except OSError:
            continue
        used[device] = (info.f_blocks - info.f_bfree) * info.f_frsize
    return used


def owned_bytes(roots: Iterable[str], uid: int) -> int:
    """The space the files `uid` owns below `roots` take (each inode once; links not followed)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in (*dirs, *files):
                try:
                    info = os.lstat(os.path.join(folder, name))
                except OSError:
                    continue
                if info.st_uid == uid and (info.st_dev, info.st_ino) not in seen:
                    seen.add((info.st_dev, info.st_ino))
                    total += info.st_blocks * 512
    return total


def kill_user(identity: Identity, proc: str = "/proc") -> None:
    """SIGKILL to every process of the agent user: `kill(-1)` sent by a process of that user (the kernel walks every
    process, none forks past it), then a sweep for anything left."""
    def become() -> None:
        # Its own NPROC unlimited: a user at its limit could not exec anything else.
        resource.setrlimit(resource.RLIMIT_NPROC, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        os.setgroups([identity.gid])
        os.setgid(identity.gid)
        os.setuid(identity.uid)

    try:
        subprocess.run([sys.executable, "-I", "-S", "-c", "import os, signal; os.kill(-1, signal.SIGKILL)"],
                       preexec_fn=become, env={}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        pass
    for _ in range(3):
        left = user_pids(identity.uid, proc)
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def writable_roots(*paths: str | Path) -> list[str]:
    """The folders given that exist, once each (for `Watchdog.roots`)."""
    return [str(p) for p in dict.fromkeys(str(p) for p in paths) if os.path.isdir(p)]
