"""The adaptive retry with an attacker model: one rewrite of each BLOCKED attack, kept only if it still carries our
canary (else the fixed transform of attacks.retry is used, as without an attacker)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from khaos_action.attacker.checks import attack_problem
from khaos_action.attacker.client import AttackerClient, AttackerCut, AttackerUnavailable
from khaos_action.attacker.prompts import OBJECTIVES, REWRITE, brief
from khaos_action.attacks.planner import retry_case
from khaos_action.attacks.retry import make_retry
from khaos_action.manifest import CaseResult
from khaos_action.outcome import Outcome, Phase
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


@dataclass(slots=True)
class Rewrites:
    """What became of the attacker's rewrites: the retry cases, and why some rewrites were not used."""

    retries: list[Case] = field(default_factory=list)
    dropped_canary: list[str] = field(default_factory=list)
    junk: list[str] = field(default_factory=list)
    unavailable: str | None = None

    def notes(self) -> list[str]:
        notes = []
        if self.dropped_canary:
            notes.append(f"attacker: {len(self.dropped_canary)} rewrite(s) dropped the canary and were discarded (the "
                         f"fixed transform ran instead): {', '.join(self.dropped_canary[:10])}")
        if self.junk:
            notes.append(f"attacker: {len(self.junk)} rewrite(s) were no attack message and were discarded (the "
                         f"fixed transform ran instead): {'; '.join(self.junk[:5])}")
        if self.unavailable:
            notes.append(f"attacker: unavailable, the remaining retries used the fixed transforms: {self.unavailable}")
        return notes


async def attacker_retries(results: Sequence[CaseResult], cases: dict[str, Case], seed: int,
                           client: AttackerClient, capabilities: dict[str, bool]) -> tuple[list[Case], list[str]]:
    """One retry case per BLOCKED attack: the attacker's rewrite when it is an attack message that keeps the
    canary, else the fixed one."""
    done = Rewrites()
    for result in results:
        case = cases.get(result.id)
        if case is None or result.phase != Phase.SECURITY or result.outcome != Outcome.BLOCKED or result.repeat != 0:
            continue
        rewrite = await _rewrite(client, case, result, capabilities, done) if done.unavailable is None else None
        done.retries.append(retry_case(case, rewrite, MUTATION) if rewrite is not None else make_retry(case, seed))
    return done.retries, done.notes()


async def _rewrite(client: AttackerClient, case: Case, result: CaseResult, capabilities: dict[str, bool],
                   done: Rewrites) -> str | None:
    """The attacker's rewrite of `case`'s attack, or None (recorded in `done`: why it cannot be used)."""
    original = attacked_text(case)
    name = case.attack_id or case.id
    try:
        rewrite = await client.chat([
            {"role": "system", "content": REWRITE},
            {"role": "user", "content": brief(
                objective=OBJECTIVES.get((case.objective or "").split(":")[0], case.objective),
                category=case.category, channel=case.channel, attack=original, agent_reply=result.output[:4000],
                agent_capabilities=sorted(k for k, v in capabilities.items() if v))},
        ])
    except AttackerCut as exc:
        done.junk.append(f"{name} ({exc})")
        return None
    except AttackerUnavailable as exc:
        done.unavailable = str(exc)
        return None
    problem = attack_problem(rewrite, case.objective or "")
    if problem is not None:
        done.junk.append(f"{name} ({problem})")
        return None
    if not keeps_canary(case, original, rewrite):
        done.dropped_canary.append(name)
        return None
    return rewrite
