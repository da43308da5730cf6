"""The plan stage: the run's cases from the plan settings and the agent's recon: the packs' phases, the contract over
its chaos matrix, mutations (with the LLM's rewrites when configured), replay sessions, the attacks the packs
select (and those the attacker model writes for this agent), one shard of them; faults that cannot reach this
agent set aside with the reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from khaos_action import gc_freeze

if TYPE_CHECKING:
    from khaos_action.attacker.client import AttackerClient
    from khaos_action.config.models import AgentConfig, Mutation
    from khaos_action.pipeline.recon import Recon
    from khaos_action.plan.scheduler import Plan, PlanSettings
    from khaos_action.services import Services


async def plan_run(settings: PlanSettings, recon: Recon, *, agent: AgentConfig, services: Services,
                   attacker: AttackerClient | None = None, shard: tuple[int, int] | None = None) -> Plan:
    """The run's plan: `make_plan` with the LLM's rewrites of the golden prompts (mutation), then the attacker
    model's attacks tailored to `agent`, when one is configured."""
    rewrites, notes = await llm_mutations(settings.mutation, settings.prompt_texts(), services)
    with gc_freeze.bulk():
        plan = make_plan(settings, recon, shard=shard, llm_variants=rewrites)
    if attacker is not None:
        from khaos_action.attacker.stage import tailored_attacks

        cases, said = await tailored_attacks(attacker, plan.selection, seed=plan.seed, agent=agent,
                                             tools=recon.wrapped, shard=shard)
        plan = replace(plan, cases=[*plan.cases, *cases], notes=[*plan.notes, *said])
    return replace(plan, notes=[*notes, *plan.notes]) if notes else plan


def make_plan(settings: PlanSettings, recon: Recon | None = None, *, shard: tuple[int, int] | None = None,
              llm_variants: dict[str, list[str]] | None = None) -> Plan:
    """The run's cases (`validate` prints this plan; a run adds the attacker's): the security phase aims at the
    tools and capabilities `recon` found (a plan with a security phase needs it)."""
    from khaos_action.plan.applicable import set_aside_tool_faults
    from khaos_action.plan.contract import plan_contract
    from khaos_action.plan.mutation import mutation_planner
    from khaos_action.plan.scheduler import SeededScheduler, select_shard

    planners: list = [plan_contract, mutation_planner(llm_variants)]
    if settings.replay is not None:  # planners' modules are imported for what they plan (fixed costs)
        from khaos_action.plan.replay import plan_replay

        planners.append(plan_replay)
    if settings.corpus is not None:  # only a pack's security phase selects attacks
        from khaos_action.attacks.planner import security_planner

        if recon is None:
            raise ValueError("a plan with a security phase is made for an agent: pass its recon")
        planners.append(security_planner(settings.corpus, recon.profile, recon.roles, recon.parameters))
    plan = SeededScheduler(settings, planners=planners).plan()
    if shard is not None:
        plan = replace(plan, cases=select_shard(plan.cases, *shard))
    if recon is not None and recon.tool_faults_unreachable is not None:
        plan = set_aside_tool_faults(plan, recon.tool_faults_unreachable)
    return plan


async def llm_mutations(settings: Mutation | None, prompts: Sequence[str],
                        services: Services) -> tuple[dict[str, list[str]], list[str]]:
    """Optional LLM rewrites of the golden prompts; a failing endpoint is reported, never scored as 0."""
    if settings is None or not settings.enabled or settings.llm is None:
        return {}, []
    from khaos_action.mutation.llm import MutationLlmError, llm_rewrite

    variants: dict[str, list[str]] = {}
    async with services.async_http(timeout=settings.llm.timeout_s) as client:
        for prompt in prompts:
            try:
                variants[prompt] = await llm_rewrite(settings.llm, client, prompt, 3, environ=services.environ)
            except MutationLlmError as exc:
                return {}, [f"mutation: LLM rewriting failed, only rule-based mutations ran: {exc}"]
    return variants, []
