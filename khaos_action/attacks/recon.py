"""The reconnaissance pass of a run: baseline first, then indirect attacks bound to the prompts that reach their
channel (attacks/surface.py), then everything else; and the attacks that turned out not exercised.

Nothing here changes the plan: `run_with_recon` returns the cases as they ran beside their invocations, with what
the pass mapped and what it set aside, and the stages after it read those.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from khaos_action.attacks.surface import AttackSurface, bind_carriers, discover_surface, own_carriers, recon_cases
from khaos_action.manifest import SkippedAttack
from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case
from khaos_action.plan.cases import invocation_key as _key
from khaos_action.roles import ToolRole, guess_role

RunCases = Callable[[Sequence[Case]], Awaitable[list[Any]]]


@dataclass(slots=True)
class Reconnoitred:
    """The plan's cases run with reconnaissance first."""

    invocations: list[Any]
    """One per case that ran (the pass's own calls left out), in the order of `cases`' runs."""
    cases: list[Case]
    """The cases as they ran: indirect attacks on the carrier prompt that reaches their channel, those no prompt
    reaches left out."""
    not_exercised: list[SkippedAttack] = field(default_factory=list)
    """The indirect attacks no prompt reaches, with the reason and the fix."""
    surface: dict[str, Any] | None = None
    """Which golden prompt reached which tools (AttackSurface.as_dict), when the pass ran."""
    baseline_replies: dict[str, str] = field(default_factory=dict)
    """Prompt text -> its first no-fault baseline reply, when the pass ran: what an indirect attack's reply is
    compared with for utility under attack (judge/utility.py)."""


async def run_with_recon(run: RunCases, cases: Sequence[Case], golden: Sequence[str], roles: Sequence[ToolRole],
                         seed: int, *, in_process: bool) -> Reconnoitred:
    """Run `cases` through `run` (the engine). With indirect attacks among them, baseline cases (plus one no-fault
    call of each golden prompt no baseline case runs, not scored) run first and map the attack surface; the rest
    then run with their carriers bound, and the attacks nothing reaches are set aside as not exercised."""
    if not _carries_attacks(cases):
        return Reconnoitred(invocations=await run(cases), cases=list(cases))
    first = [case for case in cases if case.phase == Phase.BASELINE and not case.faults]
    done = await run([*first, *recon_cases(cases, golden)])
    surface = _surface(done, cases, golden, roles, in_process=in_process)
    ran = {_key(case) for case in first}
    bound = bind_carriers(_not_in(cases, ran), surface, seed)
    as_run = _as_run(cases, ran, bound.cases)
    rest = await run(_not_in(as_run, ran))
    return Reconnoitred(
        invocations=[inv for inv in done if not inv.case.recon] + rest, cases=as_run,
        not_exercised=_not_exercised(bound.not_exercised), surface=surface.as_dict(),
        baseline_replies=baseline_replies(done))


def _not_in(cases: Sequence[Case], ran: set[Any]) -> list[Case]:
    return [case for case in cases if _key(case) not in ran]


def _carries_attacks(cases: Sequence[Case]) -> bool:
    """Whether any case is an indirect attack (its payload rides on a carrier the baseline must find)."""
    return any(case.phase == Phase.SECURITY and case.injections for case in cases)


def _as_run(cases: Sequence[Case], ran: set[Any], bound: Sequence[Case]) -> list[Case]:
    """The cases in their planned order: those run first as they were, the rest with their carriers bound (the
    ones nothing reaches left out)."""
    rebound = {_key(case): case for case in bound}
    return [case if _key(case) in ran else rebound[_key(case)] for case in cases
            if _key(case) in ran or _key(case) in rebound]


def _not_exercised(skipped: Sequence[tuple[Case, str, str]]) -> list[SkippedAttack]:
    return [skipped_attack(case, f"not exercised: {reason}; to exercise it, {fix}")
            for case, reason, fix in skipped if case.repeat == 0]


def _surface(done: Sequence[Any], cases: Sequence[Case], golden: Sequence[str], roles: Sequence[ToolRole], *,
             in_process: bool) -> AttackSurface:
    """What the golden prompts (and the user's attacks' own carriers) reached; tools the agent used that its
    roles do not name get a role guessed from their name."""
    known = {role.tool for role in roles}
    seen = sorted({call.name for inv in done for call in inv.tool_calls} - known)
    # Carriers are the golden prompts (every one is mapped, whatever the shard), so every shard binds the same way.
    carriers = set(golden) | set(own_carriers(cases))
    mapped = [inv for inv in done if inv.case.input in carriers] if golden else done
    return discover_surface(mapped, [*roles, *(guess_role(name) for name in seen)], in_process=in_process)


def baseline_replies(done: Sequence[Any]) -> dict[str, str]:
    """Each prompt's first reply without a fault or an error (reconnaissance calls included)."""
    replies: dict[str, str] = {}
    for inv in done:
        if inv.case.phase == Phase.BASELINE and not inv.case.faults and not inv.error:
            replies.setdefault(inv.case.input, inv.text)
    return replies


def skipped_attack(case: Any, reason: str) -> SkippedAttack:
    return SkippedAttack(attack_id=case.attack_id or case.id, category=case.category or "",
                         channel=case.channel or "", owasp=list(case.owasp), reason=reason, objective=case.objective)


def undelivered(results: Sequence[Any]) -> list[SkippedAttack]:
    """Attacks whose payload never reached the agent when they ran: not exercised, listed with the reason and
    the fix (never UNCERTAIN, never in a rate)."""
    return [skipped_attack(r, f"not exercised: the {r.channel} payload was never delivered (the agent did not call "
                              f"a tool that carries it when the attack ran); to exercise it, add a golden prompt "
                              f"that reliably makes the agent use that tool")
            for r in results if r.phase == Phase.SECURITY and r.repeat == 0 and r.outcome is None
            and "payload_not_delivered" in r.evidence_tags]
