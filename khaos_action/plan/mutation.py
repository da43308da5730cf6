"""Mutation planner: each golden prompt rewritten the ways real users type it, checked by the contract invariants.

The mutated reply must still satisfy every invariant that applies without chaos (`always` / `no_chaos`);
`behavior_unchanged` compares it with the no-chaos reply to the original prompt. Without a contract, the minimal
checks `completes` and `output_not_empty` are used (and the report says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from khaos_action.checkers import Invariant
from khaos_action.mutation import mutate
from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, case_id
from khaos_action.plan.contract import golden_key
from khaos_action.plan.scheduler import PlanContext, Planner, PlanPart

DEFAULT_CHECKS = (
    Invariant(id="mutation:completes", type="completes", severity="high"),
    Invariant(id="mutation:output_not_empty", type="output_not_empty", severity="high"),
)


def mutation_invariants(ctx: PlanContext) -> list[Invariant]:
    contract = ctx.settings.contract
    if contract is None:
        return list(DEFAULT_CHECKS)
    chosen = [i for i in contract.invariants if not i.own_prompts() and i.when in ("always", "no_chaos")]
    return chosen or list(DEFAULT_CHECKS)


def mutation_planner(llm_variants: Mapping[str, Sequence[str]] | None = None) -> Planner:
    """`llm_variants`: optional LLM rewrites per golden prompt (fetched before planning: pipeline/plan.py)."""

    def plan(ctx: PlanContext) -> PlanPart:
        part = PlanPart()
        settings = ctx.settings.mutation
        if settings is None or not settings.enabled:
            return part
        if not ctx.settings.golden_prompts:
            part.notes.append("mutation is configured but golden_prompts is empty: no mutated prompt to run")
            return part
        invariants = mutation_invariants(ctx)
        if invariants[0] is DEFAULT_CHECKS[0]:
            part.notes.append("mutation: no contract invariants apply without chaos; checked only that "
                              "mutated prompts complete with a non-empty reply")
        part.invariants.update({i.id: i for i in invariants})
        ids = tuple(i.id for i in invariants)
        for prompt in ctx.settings.prompt_texts():
            variants = [(m.type, m.index, m.text)
                        for m in mutate(prompt, types=settings.types, per_prompt=settings.per_prompt, seed=ctx.seed)]
            variants += [("llm_rewrite", n, text) for n, text in enumerate((llm_variants or {}).get(prompt, ()))]
            part.cases += [
                Case(id=case_id("mutation", prompt, kind, index), phase=Phase.MUTATION, pillar="mutation", input=text,
                     mutation=kind, invariant_ids=ids, prompt_key=golden_key(prompt), group=f"mutation:{kind}",
                     )
                for kind, index, text in variants
            ]
        return part

    return plan
