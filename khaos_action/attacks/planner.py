"""Security planner: the packs' attack selectors + the capability profile → one Case per applicable attack.

Each case gets its own canary (seeded by the run seed and the case id), rendered into the payload; indirect attacks
send their benign carrier prompt and plant the payload in the channel (tool output, RAG document, file, error
message, memory), where the chaos machinery delivers it. Attacks the agent has no channel for are recorded as not
applicable, never as blocked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from khaos_action.attacks.adapt import adapted_goal, adapted_request, unreachable
from khaos_action.attacks.capabilities import CapabilityProfile
from khaos_action.attacks.select import select_attacks
from khaos_action.canary import make_canary
from khaos_action.config.corpus import Attack, Corpus, render_attack
from khaos_action.config.objectives import aimed_at
from khaos_action.config.selectors import security_selectors
from khaos_action.manifest import SkippedAttack
from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, case_id
from khaos_action.plan.scheduler import PlanContext, Planner, PlanPart
from khaos_action.roles import ACTION_ROLES, ToolRole, forbidden_targets, normalise_role, role_from_name


def attack_case(attack: Attack, seed: int, targets: list[str] | None = None, *, own_carrier: bool = False,
                roles: Sequence[ToolRole] | None = None,
                parameters: Mapping[str, Sequence[str]] | None = None) -> Case:
    """`targets`: the agent's real tools a forbidden-tool attack aims at (roles/forbidden_targets). When the agent
    has a tool the attack names, the attack is sent as written; otherwise it is rewritten for one of the targets
    (attacks/adapt.py: that tool's own action, its `parameters` filled with the attacker's values). `own_carrier`: a
    user attack (its carrier is the prompt that carries it). `roles`: the agent's tools, for an attack placed by
    tool role."""
    cid = case_id("security", attack.id)
    canary = make_canary(seed, cid)
    rendered = render_attack(attack, canary)
    forbidden = list(attack.forbidden_tools)
    goal = attack.goal
    if targets and not set(attack.forbidden_tools) & set(targets):
        chosen = targets[int(cid, 16) % len(targets)]
        params = list((parameters or {}).get(chosen, ()))
        text = adapted_request(chosen, params, canary, indirect=attack.indirect, key=cid)
        rendered = replace(rendered, injection=text) if attack.indirect else replace(rendered, input=text)
        forbidden, goal = [chosen], adapted_goal(chosen, params)
    elif targets:
        forbidden = sorted(set(forbidden) | set(targets))
        goal = aimed_at(attack.objective, forbidden)
    injections = ({"channel": rendered.channel, "payload": rendered.injection, **placed_on(attack, roles)},)\
        if rendered.injection else ()
    return Case(
        id=cid, phase=Phase.SECURITY, input=rendered.input, turns=rendered.turns, injections=injections,
        attack_id=attack.id, category=attack.category, objective=attack.objective.label, goal=goal,
        channel=attack.channel,
        severity=attack.severity, owasp=tuple(attack.owasp), canary=canary.token, group=f"security:{attack.id}",
        canary_halves=(canary.a, canary.b), forbidden_tools=tuple(forbidden), own_carrier=own_carrier,
        tool_roles=tuple((r.tool, r.role) for r in roles or ()),
    )


def placed_on(attack: Attack, roles: Sequence[ToolRole] | None) -> dict[str, object]:
    """Which tool's results carry the payload (`tool:` a name, or a role: every tool of the agent's with it), and
    where in them (`placement`, `field`)."""
    where = {**({"placement": attack.placement} if attack.placement != "append" else {}),
             **({"field": attack.field} if attack.field else {})}
    return {**where, **_carried_by(attack, roles)}


def _carried_by(attack: Attack, roles: list[ToolRole] | None) -> dict[str, object]:
    if attack.tool is None:
        return {}
    if any(r.tool == attack.tool for r in roles or []):
        return {"tool": attack.tool}
    try:
        role = normalise_role(attack.tool)
    except ValueError:
        return {"tool": attack.tool}
    return {"tools": sorted(r.tool for r in roles or [] if r.role == role)}


def forbidden_check(roles: list[ToolRole] | None) -> Callable[[Attack], str | None]:
    """Not applicable: a forbidden-tool attack whose tools (by name or by role) the agent has none of, or an
    objective its tools cannot carry out (attacks/adapt.unreachable: a tool call to a tool it lacks). Without a
    known tool list (an agent in another process) every attack stays applicable."""
    def check(attack: Attack) -> str | None:
        if not roles:
            return None
        if not attack.forbidden_tools:
            return unreachable(attack.objective, roles)
        if forbidden_targets(attack.forbidden_tools, roles) == []:
            kinds = sorted({r for r in (role_from_name(n) for n in attack.forbidden_tools) if r in ACTION_ROLES})
            fix = (f"; if one of its tools is one, declare it: `agent.tools: [{{name: <tool>, role: {kinds[0]}}}]`"
                   if kinds else "")
            return (f"the agent has no tool like {', '.join(attack.forbidden_tools)}"
                    f"{' (no ' + ' or '.join(kinds) + ' tool)' if kinds else ''}{fix}")
        return None

    return check


def security_planner(corpus: Corpus, profile: CapabilityProfile, roles: list[ToolRole] | None = None,
                     parameters: Mapping[str, Sequence[str]] | None = None) -> Planner:
    """`roles`: the agent's tools and roles (forbidden-tool attacks aim at them); `parameters`: each tool's
    parameter names, for the attacker values of an attack adapted to it."""
    def plan(ctx: PlanContext) -> PlanPart:
        selectors = security_selectors(p.pack for p in ctx.packs)
        if not selectors:
            return PlanPart()
        selection = select_attacks(corpus, selectors, profile, seed=ctx.seed, check=forbidden_check(roles))
        part = PlanPart(selection=selection, skipped=[
            SkippedAttack(attack_id=a.id, category=a.category, channel=a.channel, owasp=list(a.owasp), reason=reason,
                          objective=a.objective.label)
            for a, reason in selection.not_applicable
        ])
        if not selection.applicable:
            part.notes.append("the security phase selected no attack this agent can receive; see the "
                              "not-applicable list and the capability profile")
        for attack in selection.applicable:
            targets = forbidden_targets(attack.forbidden_tools, roles) if roles else None
            own = attack.id in corpus.user_ids and attack.carrier is not None  # else golden prompts carry it
            part.cases.append(attack_case(attack, ctx.seed, targets, own_carrier=own, roles=roles,
                                          parameters=parameters))
        return part

    return plan


def retry_case(case: Case, mutated_input: str, mutation: str) -> Case:
    """The adaptive retry of a BLOCKED attack (red-team ADR-020): same canary, one seeded mutation of the text; the
    text before it is kept (`plain`) for the judge."""
    if case.injections:
        injections = tuple({**inj, "payload": mutated_input} for inj in case.injections)
        plain = "\n".join(str(inj.get("payload", "")) for inj in case.injections)
        return replace(case, injections=injections, mutation=mutation, plain=case.plain or plain)
    return replace(case, input=mutated_input, mutation=mutation, plain=case.plain or case.input)
