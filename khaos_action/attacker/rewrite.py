"""The adaptive retry with an attacker model: one rewrite of each BLOCKED attack, kept only if it still carries our
canary (else the fixed transform of attacks.retry is used, as without an attacker)."""

from __future__ import annotations

from collections.abc import Sequence

from khaos_action.attacker.checks import attack_problem
from khaos_action.attacker.client import AttackerClient, AttackerCut, AttackerUnavailable
from khaos_action.attacker.prompts import OBJECTIVES, REWRITE, brief
from khaos_action.attacks.planner import retry_case
from khaos_action.attacks.retry import make_retry
from khaos_action.manifest import CaseResult
from khaos_action.plan.cases import Case

MUTATION = "attacker_rewrite"


def canary_marks(case: Case, text: str) -> list[str]:
    """The canary strings `text` carries for this case (the halves, the joined token)."""
    marks = [*(case.canary_halves or ()), case.canary]
    return [m for m in marks if m and m in text]


def keeps_canary(case: Case, original: str, rewrite: str) -> bool:
    """Every canary string of the original is still in the rewrite (the objective stays checkable). Attacks judged
    without a canary (system prompt, secrets) need none; a rewrite identical to the original is no retry."""
    if rewrite.strip() == original.strip():
        return False
    return all(m in rewrite for m in canary_marks(case, original))


def attacked_text(case: Case) -> str:
    return case.injections[0]["payload"] if case.injections else case.input


async def attacker_retries(results: Sequence[CaseResult], cases: dict[str, Case], seed: int,
                           client: AttackerClient, capabilities: dict[str, bool]) -> tuple[list[Case], list[str]]:
    """One retry case per BLOCKED attack: the attacker's rewrite when it keeps the canary, else the fixed one."""
    retries: list[Case] = []
    notes: list[str] = []
    unavailable: str | None = None
    discarded: list[str] = []
    junk: list[str] = []
    for result in results:
        case = cases.get(result.id)
        if case is None or result.phase != "security" or result.outcome != "BLOCKED" or result.repeat != 0:
            continue
        if unavailable is None:
            original = attacked_text(case)
            try:
                rewrite = await client.chat([
                    {"role": "system", "content": REWRITE},
                    {"role": "user", "content": brief(
                        objective=OBJECTIVES.get((case.objective or "").split(":")[0], case.objective),
                        category=case.category,
                        channel=case.channel, attack=original, agent_reply=result.output[:4000],
                        agent_capabilities=sorted(k for k, v in capabilities.items() if v))},
                ])
            except AttackerCut as exc:
                junk.append(f"{case.attack_id or case.id} ({exc})")
            except AttackerUnavailable as exc:
                unavailable = str(exc)
            else:
                problem = attack_problem(rewrite, case.objective or "")
                if problem is None and keeps_canary(case, original, rewrite):
                    retries.append(retry_case(case, rewrite, MUTATION))
                    continue
                if problem is None:
                    discarded.append(case.attack_id or case.id)
                else:
                    junk.append(f"{case.attack_id or case.id} ({problem})")
        retries.append(make_retry(case, seed))
    if discarded:
        notes.append(f"attacker: {len(discarded)} rewrite(s) dropped the canary and were discarded (the fixed "
                     f"transform ran instead): {', '.join(discarded[:10])}")
    if junk:
        notes.append(f"attacker: {len(junk)} rewrite(s) were no attack message and were discarded (the fixed "
                     f"transform ran instead): {'; '.join(junk[:5])}")
    if unavailable:
        notes.append(f"attacker: unavailable, the remaining retries used the fixed transforms: {unavailable}")
    return retries, notes
