"""Contract planner: invariants × chaos-matrix scenarios over the golden prompts (Flakestorm pillar 2).

One call per (scenario, prompt), checked by every applicable invariant; an invariant gets calls
of its own only when it has its own inputs (`probes`) or when `isolation: per_cell` asks for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, case_id

if TYPE_CHECKING:
    from khaos_action.checkers import Invariant
    from khaos_action.config.fault_entries import CaseFault
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
    """The contract's cells: the auto-baseline replies its comparisons need, then per scenario the golden prompts'
    calls and the invariants' own probes."""
    contract = config.contract
    if contract is None:
        return
    from khaos_action.plan.scheduler import scenario_faults

    yield from _auto_baseline(config)
    prompt_invariants = [i for i in contract.invariants if not i.own_prompts()]
    probe_invariants = [i for i in contract.invariants if i.own_prompts()]
    for scenario in config.chaos_matrix:
        faults = scenario_faults(scenario)
        for prompt in config.prompt_texts():
            yield from _prompt_cells(contract.isolation, scenario.name, prompt, faults, prompt_invariants)
        for inv in probe_invariants:
            yield from _probe_cells(contract.isolation, scenario.name, faults, inv)


def _auto_baseline(config: PlanSettings) -> Iterable[Case]:
    """behavior_unchanged compares each chaos reply with the no-chaos reply to the same prompt: make sure one exists
    even when the matrix has no chaos-free scenario."""
    contract = config.contract
    needs_auto = any(i.needs_baseline_reply() for i in contract.invariants)
    if not needs_auto or not all(s.has_chaos for s in config.chaos_matrix):
        return
    for prompt in config.prompt_texts():
        yield Case(id=case_id("contract", AUTO_BASELINE, prompt), phase=Phase.CONTRACT, pillar=None,
                   input=prompt, scenario=AUTO_BASELINE, prompt_key=golden_key(prompt), group=AUTO_BASELINE)


def _prompt_cells(isolation: str, scenario: str, prompt: str, faults: tuple[CaseFault, ...],
                  invariants: list[Invariant]) -> Iterable[Case]:
    """One call of `prompt` under `scenario`, checked by every invariant; one per invariant with `per_cell`."""
    if isolation == "per_cell":
        for inv in invariants:
            yield Case(
                id=case_id("contract", scenario, prompt, inv.id), phase=Phase.CONTRACT, pillar="contract",
                input=prompt, scenario=scenario, faults=faults, invariant_ids=(inv.id,),
                prompt_key=golden_key(prompt), group=f"{scenario}/{inv.id}/{prompt}",
            )
    elif invariants:
        yield Case(
            id=case_id("contract", scenario, prompt), phase=Phase.CONTRACT, pillar="contract",
            input=prompt, scenario=scenario, faults=faults,
            invariant_ids=tuple(i.id for i in invariants), prompt_key=golden_key(prompt),
            group=scenario,
        )


def _probe_cells(isolation: str, scenario: str, faults: tuple[CaseFault, ...], inv: Invariant) -> Iterable[Case]:
    """An invariant's own inputs, each a call of its own under `scenario`."""
    for probe in inv.own_prompts():
        yield Case(
            id=case_id("contract", scenario, "probe", inv.id, probe), phase=Phase.CONTRACT,
            pillar="contract", input=probe, scenario=scenario, faults=faults,
            invariant_ids=(inv.id,), prompt_key=case_id("probe", probe),
            group=scenario if isolation == "per_prompt" else f"{scenario}/{inv.id}",
        )
