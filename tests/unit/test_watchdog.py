"""The caps on all pull-request processes together: what the watchdog counts and when it acts. A /proc tree of
files stands in for the kernel's (the watchdog reads only `status` and `smaps_rollup`); the kill is passed in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from khaos_action.engine.sandbox import Identity
from khaos_action.engine.watchdog import MB, Caps, Watchdog, owned_bytes, user_pids

AGENT = Identity(uid=10001, gid=10001, groups=(10001,), name="khaos-agent", home="/home/khaos-agent")


def fake_proc(root: Path, processes: dict[int, tuple[int, int]], *, shared: float = 2.0) -> str:
    """{pid: (real uid, Pss in MiB)} as /proc shows them; each resident size is `shared` times its Pss."""
    page = os.sysconf("SC_PAGE_SIZE")
    for pid, (uid, pss_mb) in processes.items():
        (root / str(pid)).mkdir(parents=True, exist_ok=True)
        (root / str(pid) / "status").write_text(f"Name:\tpython\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n")
        rss = int(pss_mb * shared * MB)
        (root / str(pid) / "smaps_rollup").write_text(f"Rss:\t{rss // 1024} kB\nPss:\t{pss_mb * 1024} kB\n")
        (root / str(pid) / "statm").write_text(f"{rss // page * 3} {rss // page} 0 0 0 0 0\n")
    (root / "self").mkdir(parents=True, exist_ok=True)
    return str(root)


def watchdog(tmp_path: Path, processes: dict[int, tuple[int, int]], *, caps: Caps, usage=None) -> tuple[Watchdog, list]:
    killed: list[Identity] = []
    dog = Watchdog(AGENT, caps, [str(tmp_path)], proc=fake_proc(tmp_path / "proc", processes), kill=killed.append,
                   usage=usage or (lambda roots: {1: 0}))
    return dog, killed


def test_memory_is_the_agent_users_processes_together_and_over_the_cap_they_are_killed(tmp_path) -> None:
    # Each under 4 GiB (one process's limit), together over the cap; root's big process is not the agent's.
    dog, killed = watchdog(tmp_path, {10: (10001, 700), 11: (10001, 700), 12: (0, 9000)},
                           caps=Caps(memory_mb=1024, disk_mb=None))
    assert sorted(user_pids(10001, dog.proc)) == [10, 11]
    breach = dog.check()
    assert breach is not None and killed == [AGENT] and dog.breaches == [breach]
    assert (breach.what, round(breach.used_mb), breach.cap_mb, breach.phase) == ("memory", 1400, 1024, "install")
    assert "1400 MiB of memory in all, over its cap of 1024 MiB (input `max-memory-mb`)" in breach.describe()


def test_under_the_caps_nothing_is_killed(tmp_path) -> None:
    dog, killed = watchdog(tmp_path, {10: (10001, 300), 11: (10001, 300)}, caps=Caps(memory_mb=1024, disk_mb=64))
    assert dog.check() is None and killed == []


def test_pages_forked_workers_share_count_once(tmp_path) -> None:
    """Eight workers forked from one zygote: resident sizes add up past the cap, proportional ones do not. The
    expensive proportional count then waits until the resident sizes grow further (or 2 s)."""
    now = [0.0]
    dog, killed = watchdog(tmp_path, {pid: (10001, 100) for pid in range(10, 18)}, caps=Caps(memory_mb=1024))
    dog.clock = lambda: now[0]
    assert dog.check() is None and killed == []  # 8 x 200 MiB resident, 8 x 100 MiB proportional
    fake_proc(Path(dog.proc), {10: (10001, 700)}, shared=1.0)  # one worker grows: 7 x 200 + 700 resident
    assert dog.check() is not None and killed == [AGENT]


def test_disk_growth_is_confirmed_by_the_agent_users_own_files_before_it_acts(tmp_path) -> None:
    grown = {"bytes": 0}
    dog, killed = watchdog(tmp_path, {}, caps=Caps(memory_mb=None, disk_mb=1),
                           usage=lambda roots: {1: grown["bytes"]})
    grown["bytes"] = 3 * MB  # the disk grew, but not by files of the agent user's: someone else wrote
    assert dog.check() is None and killed == []
    ours = tmp_path / "fill"
    ours.write_bytes(b"x" * (2 * MB))
    dog.identity = Identity(os.getuid(), os.getgid(), (), "me", str(tmp_path))  # files this test writes are "its"
    assert owned_bytes([str(tmp_path)], os.getuid()) >= 2 * MB
    grown["bytes"] = 4 * MB  # grown past where it last looked
    breach = dog.check()
    assert breach is not None and breach.what == "disk" and killed == [dog.identity]


@pytest.mark.parametrize("caps", [Caps(memory_mb=None, disk_mb=None, processes=None)])
def test_no_cap_no_look(tmp_path, caps) -> None:
    dog, killed = watchdog(tmp_path, {10: (10001, 99999)}, caps=caps)
    assert dog.check() is None and killed == []
