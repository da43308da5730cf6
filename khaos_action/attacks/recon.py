"""The reconnaissance pass of a run: baseline first, then indirect attacks bound to the prompts that reach their
channel (attacks/surface.py), then everything else; and the attacks that turned out not exercised."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from khaos_action.attacks.surface import bind_carriers, discover_surface, own_carriers, recon_cases
from khaos_action.manifest import SkippedAttack
from khaos_action.plan.cases import Case
from khaos_action.roles import ToolRole, guess_role


def _key(case: Any) -> str:
    return case.id if case.repeat == 0 else f"{case.id}#{case.repeat}"


async def run_with_recon(run: Callable[[Sequence[Case]], Awaitable[list[Any]]], plan: Any, golden: Sequence[str],
                         roles: Sequence[ToolRole], *, in_process: bool) -> list[Any]:
    """Run `plan.cases` through `run` (the engine). With indirect attacks in the plan, baseline cases (plus one
    no-fault call of each golden prompt no baseline case runs, not scored) run first and map the attack surface;
    `plan.cases` is then rewritten with the bound carriers, and the attacks nothing reaches go to
    `plan.skipped` as not exercised. Returns the invocations of `plan.cases`."""
    if not any(case.phase == "security" and case.injections for case in plan.cases):
        return await run(plan.cases)
    first = [case for case in plan.cases if case.phase == "baseline" and not case.faults]
    done = await run([*first, *recon_cases(plan.cases, golden)])
    known = {role.tool for role in roles}
    seen = sorted({call.name for inv in done for call in inv.tool_calls} - known)
    # Carriers are the golden prompts (every one is mapped, whatever the shard), so every shard binds the same way.
    carriers = set(golden) | set(own_carriers(plan.cases))
    mapped = [inv for inv in done if inv.case.input in carriers] if golden else done
    surface = discover_surface(mapped, [*roles, *(guess_role(name) for name in seen)], in_process=in_process)
    plan.attack_surface = surface.as_dict()
    for inv in done:
        if inv.case.phase == "baseline" and not inv.case.faults and not inv.error:
            plan.baseline_replies.setdefault(inv.case.input, inv.text)
    ran = {_key(case) for case in first}
    bound = bind_carriers([case for case in plan.cases if _key(case) not in ran], surface, plan.seed)
    plan.skipped.extend(
        skipped_attack(case, f"not exercised: {reason}; to exercise it, {fix}")
        for case, reason, fix in bound.not_exercised if case.repeat == 0)
    rebound = {_key(case): case for case in bound.cases}
    plan.cases = [case if _key(case) in ran else rebound[_key(case)] for case in plan.cases
                  if _key(case) in ran or _key(case) in rebound]
    rest = await run([case for case in plan.cases if _key(case) not in ran])
    return [inv for inv in done if not inv.case.recon] + rest


def skipped_attack(case: Any, reason: str) -> SkippedAttack:
    return SkippedAttack(attack_id=case.attack_id or case.id, category=case.category or "",
                         channel=case.channel or "", owasp=list(case.owasp), reason=reason, objective=case.objective)


def undelivered(results: Sequence[Any]) -> list[SkippedAttack]:
    """Attacks whose payload never reached the agent when they ran: not exercised, listed with the reason and
    the fix (never UNCERTAIN, never in a rate)."""
    return [skipped_attack(r, f"not exercised: the {r.channel} payload was never delivered (the agent did not call "
                              f"a tool that carries it when the attack ran); to exercise it, add a golden prompt "
                              f"that reliably makes the agent use that tool")
            for r in results if r.phase == "security" and r.repeat == 0 and r.outcome is None
            and "payload_not_delivered" in r.evidence_tags]
