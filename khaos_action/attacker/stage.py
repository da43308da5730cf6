"""The attacker in a run: its client for the run's duration, and the tailored attacks it adds to the plan."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

from khaos_action.attacker.client import AttackerClient
from khaos_action.config.models import KhaosConfig
from khaos_action.engine.llm_calls import LlmRuntime
from khaos_action.plan.scheduler import Plan, select_shard
from khaos_action.services import Services


@contextlib.asynccontextmanager
async def attacker_session(config: KhaosConfig, llm: LlmRuntime,
                           services: Services) -> AsyncIterator[AttackerClient]:
    """The attacker model's client for this run (its own HTTP client, the run's cassette and budget; its key is
    `attacker.api_key_env` in `services.environ`)."""
    assert config.attacker is not None
    async with services.async_http() as http:
        yield AttackerClient(config.attacker, http, llm, services.environ)


async def add_tailored_attacks(plan: Plan, config: KhaosConfig, attacker: AttackerClient, tools: Sequence[str],
                               shard: tuple[int, int] | None) -> list[str]:
    """The attacker's attacks for this agent, appended to the plan (the same shard rule as every case)."""
    selection = plan.selection
    if config.attacker is None or not config.attacker.tailored_per_category or selection is None:
        return []
    from khaos_action.attacker.tailored import tailored_cases

    purpose = config.agent.purpose or config.agent.system_prompt
    names = list(dict.fromkeys([*config.agent.tool_names(), *tools]))
    cases, notes = await tailored_cases(attacker, selection.applicable,
                                        per_category=config.attacker.tailored_per_category, seed=plan.seed,
                                        purpose=purpose, tools=names)
    plan.cases.extend(select_shard(cases, *shard) if shard is not None else cases)
    return notes
