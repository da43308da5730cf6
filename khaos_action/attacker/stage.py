"""The attacker in a run: its client for the run's duration, and the tailored attacks it writes for the plan."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

from khaos_action.attacker.client import AttackerClient
from khaos_action.config.models import AgentConfig, AttackerConfig
from khaos_action.engine.llm_calls import LlmRuntime
from khaos_action.plan.cases import Case
from khaos_action.plan.scheduler import Selection, select_shard
from khaos_action.services import Services


@contextlib.asynccontextmanager
async def attacker_session(settings: AttackerConfig, llm: LlmRuntime,
                           services: Services) -> AsyncIterator[AttackerClient]:
    """The attacker model's client for this run (its own HTTP client, the run's cassette and budget; its key is
    `attacker.api_key_env` in `services.environ`)."""
    async with services.async_http() as http:
        yield AttackerClient(settings, http, llm, services.environ)


async def tailored_attacks(attacker: AttackerClient, selection: Selection | None, *, seed: int, agent: AgentConfig,
                           tools: Sequence[str], shard: tuple[int, int] | None) -> tuple[list[Case], list[str]]:
    """The attacker's attacks for this agent (the same shard rule as every case), and its notes."""
    per_category = attacker.config.tailored_per_category
    if not per_category or selection is None:
        return [], []
    from khaos_action.attacker.tailored import tailored_cases

    purpose = agent.purpose or agent.system_prompt
    names = list(dict.fromkeys([*agent.tool_names(), *tools]))
    cases, notes = await tailored_cases(attacker, selection.applicable, per_category=per_category, seed=seed,
                                        purpose=purpose, tools=names)
    return (select_shard(cases, *shard) if shard is not None else cases), notes
