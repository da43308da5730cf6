"""The stateful-agent probe (Flakestorm): with no reset hook, does the agent answer the same prompt the same way twice?

Contract cells are meant to be independent. Without `agent.reset` / `reset_endpoint` nothing clears the agent's
state between them, so an agent that remembers (a conversation buffer, a counter, a cache) can make one cell's
result depend on another's. The probe sends the first golden prompt twice, one call after the other, and warns
when the replies differ. It never fails a run: an agent may legitimately vary (sampling), and the user decides.

The two probe cases are kept in the manifest (phase "contract", pillar None, so no score counts them; passed None).
When the run sends one case at a time (concurrency 1, or a shared server run serially) they run after the plan, as
calls N+1 and N+2: the order is deterministic, and they cannot disturb the scored cells. When cases run concurrently,
the probe runs alongside the plan (`StateProbe`, its first call started ahead of the cells so it holds a slot; its
two calls still one after the other): there the cells already share a stateful agent in no fixed order, so two more
calls among them change nothing a cell could rely on, and the run does not wait 2 × the agent's latency at its end
(a small contract run would spend most of its time on the probe). The slots are the engine's, taken per case, so the
plan and the probe together never put more than `concurrency` calls at the agent. It lives in the engine, not plan/: it
runs cases and reads their invocations (plan/ is below the engine and never imports it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any, Protocol

from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, Invocation, case_id
from khaos_action.plan.contract import golden_key
from khaos_action.plan.scheduler import select_shard

STATE_WARNING = ("Warning: No reset_endpoint configured. Contract matrix cells may share state. Results may be "
                 "contaminated. Add reset_endpoint to your config for accurate isolation.")
"""Flakestorm's wording, kept exactly so users (and their log filters) recognise it."""
PROBE_SCENARIO = "state probe"
PROBE_NOTE = "stateful-agent probe (no reset configured): the first golden prompt sent twice in a row; not scored"


class Runs(Protocol):
    async def run(self, cases: Sequence[Case]) -> list[Invocation]: ...


def state_probe_cases(prompt: str | None, shard: tuple[int, int] | None = None) -> list[Case]:
    """The two probe cases of `prompt` (stable ids; none without one). Under `--shard` they go with the shard that
    holds their prompt's cells, so merged shards contain them exactly once."""
    if prompt is None:
        return []
    cases = [
        Case(id=case_id("contract", PROBE_SCENARIO, prompt, attempt), phase=Phase.CONTRACT, pillar=None, input=prompt,
             scenario=PROBE_SCENARIO, prompt_key=golden_key(prompt), group=f"{PROBE_SCENARIO}/{attempt}")
        for attempt in (1, 2)
    ]
    return select_shard(cases, *shard) if shard else cases


def state_warning(first: Invocation, second: Invocation) -> str | None:
    """The warning when two answers to the same prompt differ; None when they agree or either call failed (a
    failure says nothing about state, and is already recorded on its case)."""
    if first.error or second.error or first.timed_out or second.timed_out:
        return None
    return STATE_WARNING if first.text != second.text else None


async def probe_state(engine: Runs, prompt: str | None,
                      shard: tuple[int, int] | None = None) -> tuple[list[Invocation], list[str]]:
    """Run the probe (each call awaited before the next, whatever the concurrency) and say whether to warn."""
    cases = state_probe_cases(prompt, shard)
    invocations: list[Invocation] = []
    for case in cases:
        invocations += await engine.run([case])
    for invocation in invocations:
        invocation.notes.append(PROBE_NOTE)
    if len(invocations) != 2:
        return invocations, []
    warning = state_warning(*invocations)
    return invocations, [warning] if warning else []


class StateProbe:
    """The run's probe, entered around the plan: `alongside` (cases run concurrently) starts it with the plan and
    `result()` waits for it; otherwise `result()` runs it then. Leaving the block early cancels it."""

    def __init__(self, engine: Runs, prompt: str | None, shard: tuple[int, int] | None = None, *,
                 alongside: bool) -> None:
        self.engine, self.prompt, self.shard, self.alongside = engine, prompt, shard, alongside
        self._task: asyncio.Task[tuple[list[Invocation], list[str]]] | None = None

    async def __aenter__(self) -> StateProbe:
        if self.alongside and self.prompt is not None:
            self._task = asyncio.get_running_loop().create_task(probe_state(self.engine, self.prompt, self.shard))
            await asyncio.sleep(0)  # the probe's first case is queued before the plan's cells: it gets a slot
        return self

    async def result(self) -> tuple[list[Invocation], list[str]]:
        if self._task is None:
            return await probe_state(self.engine, self.prompt, self.shard)
        return await self._task

    async def __aexit__(self, *exc: Any) -> None:
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
