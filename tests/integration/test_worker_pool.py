"""The python worker pool (engine/worker/pool.py) against real worker processes: how many processes serve
concurrent cases, and which cases see each other's state. A sync agent's worker serves one case at a time; an async
agent's serves up to `lanes` cases at once; cases that run one after another go to the same worker."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

from khaos_action.config.models import AgentConfig
from khaos_action.engine.context import CaseContext
from khaos_action.engine.worker.pool import WorkerTransport
from khaos_action.messages import AgentRequest

AGENT = '''
import asyncio, os, time

CALLS = [0]


def sync_agent(text: str) -> str:
    CALLS[0] += 1
    time.sleep(0.2)
    return f"{os.getpid()} {CALLS[0]}"


def sync_agent_held(text: str) -> str:
    """Holds its worker until all four concurrent cases have started (or 10 s): a machine too busy to start a
    worker within one agent call still shows how many workers the cases need."""
    CALLS[0] += 1
    os.makedirs("started", exist_ok=True)
    open(os.path.join("started", text), "w").close()
    deadline = time.monotonic() + 10
    while len(os.listdir("started")) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    return f"{os.getpid()} {CALLS[0]}"


async def async_agent(text: str) -> str:
    CALLS[0] += 1
    await asyncio.sleep(0.2)
    return f"{os.getpid()} {CALLS[0]}"
'''


def _run(tmp_path: Path, entry: str, waves: list[int], lanes: int) -> list[list[tuple[int, int]]]:
    """Each wave runs its cases at once, one wave after another; per case: (worker pid, calls it had served)."""
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")

    async def go() -> list[list[tuple[int, int]]]:
        transport = WorkerTransport(AgentConfig(type="python", entry=f"agent.py:{entry}"), base_dir=tmp_path,
                                    environ=dict(os.environ), concurrency=max(waves), lanes=lanes)
        await transport.start()

        async def case(key: str) -> tuple[int, int]:
            ctx = CaseContext(case_id=key, rng=random.Random(0))
            async with transport.case_scope(ctx):
                reply = await transport.send(AgentRequest(key, [], key, case_id=key))
            pid, calls = reply.text.split()
            return int(pid), int(calls)

        try:
            return [list(await asyncio.gather(*(case(f"w{w}c{i}") for i in range(n)))) for w, n in enumerate(waves)]
        finally:
            await transport.close()

    return asyncio.run(go())


def test_an_async_agents_concurrent_cases_share_workers_of_lanes_cases_each(tmp_path: Path) -> None:
    [wave] = _run(tmp_path, "async_agent", [10], lanes=4)
    pids = [pid for pid, _ in wave]
    assert sorted(pids.count(p) for p in set(pids)) == [2, 4, 4], pids  # 3 workers: 4 + 4 + 2 cases


def test_a_sync_agents_concurrent_cases_each_have_a_worker(tmp_path: Path) -> None:
    [wave] = _run(tmp_path, "sync_agent_held", [4], lanes=16)
    assert len({pid for pid, _ in wave}) == 4 and {calls for _, calls in wave} == {1}, wave


def test_cases_that_run_one_after_another_see_the_same_agent_state(tmp_path: Path) -> None:
    for entry in ("sync_agent", "async_agent"):
        waves = _run(tmp_path, entry, [1, 1, 1], lanes=16)
        assert [pid for [(pid, _)] in waves] == [waves[0][0][0]] * 3, (entry, waves)
        assert [calls for [(_, calls)] in waves] == [1, 2, 3], (entry, waves)
