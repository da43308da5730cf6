"""Contract planner: invariants × chaos-matrix scenarios over the golden prompts (Flakestorm pillar 2).

One call per (scenario, prompt), checked by every applicable invariant; an invariant gets calls
of its own only when it has its own inputs (`probes`) or when `isolation: per_cell` asks for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from khaos_action.plan.cases import Case, case_id

if TYPE_CHECKING:
    from khaos_action.plan.scheduler import PlanContext, PlanPart, PlanSettings

# The scheduler (and the manifest models it imports) is imported by the planner: planning happens while the agent's
# worker starts. The contract's config is checked before (preflight/config_checks.py `check_contract`).

AUTO_BASELINE = "baseline (auto)"


def golden_key(prompt: str) -> str:
    return case_id("golden", prompt)


def plan_contract(ctx: PlanContext) -> PlanPart:
    """The contract's cases (its invariants are the config's own: nothing else to report)."""
    from khaos_action.plan.scheduler import PlanPart

    return PlanPart(cases=list(contract_cases(ctx.settings)))


def contract_cases(config: PlanSettings) -> Iterable[Case]:
    contract = config.contract
    if contract is None:
        return
    from khaos_action.plan.scheduler import scenario_faults

    prompt_invariants = [i for i in contract.invariants if not i.own_prompts()]
    probe_invariants = [i for i in contract.invariants if i.own_prompts()]
    needs_auto = any(i.needs_baseline_reply() for i in contract.invariants)
    if needs_auto and all(s.has_chaos for s in config.chaos_matrix):
        # behavior_unchanged compares each chaos reply with the no-chaos reply to the same prompt: make sure one
        # exists even when the matrix has no chaos-free scenario.
        for prompt in config.prompt_texts():
            yield Case(id=case_id("contract", AUTO_BASELINE, prompt), phase="contract", pillar=None,
                       input=prompt, scenario=AUTO_BASELINE, prompt_key=golden_key(prompt), group=AUTO_BASELINE)
    for scenario in config.chaos_matrix:
        faults = scenario_faults(scenario)
        for prompt in config.prompt_texts():
            if contract.isolation == "per_cell":
                for inv in prompt_invariants:
                    yield Case(
                        id=case_id("contract", scenario.name, prompt, inv.id), phase="contract", pillar="contract",
                        input=prompt, scenario=scenario.name, faults=faults, invariant_ids=(inv.id,),
                        prompt_key=golden_key(prompt), group=f"{scenario.name}/{inv.id}/{prompt}",
                    )
            elif prompt_invariants:
                yield Case(
                    id=case_id("contract", scenario.name, prompt), phase="contract", pillar="contract",
                    input=prompt, scenario=scenario.name, faults=faults,
                    invariant_ids=tuple(i.id for i in prompt_invariants), prompt_key=golden_key(prompt),
                    group=scenario.name,
                )
        for inv in probe_invariants:
            for probe in inv.own_prompts():
                yield Case(
                    id=case_id("contract", scenario.name, "probe", inv.id, probe), phase="contract",
                    pillar="contract", input=probe, scenario=scenario.name, faults=faults,
                    invariant_ids=(inv.id,), prompt_key=case_id("probe", probe),
                    group=scenario.name if contract.isolation == "per_prompt" else f"{scenario.name}/{inv.id}",
                )
