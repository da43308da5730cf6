"""Multi-turn strategies for objectives one message rarely reaches (system-prompt leak, forbidden tool call).

- Crescendo (Russinovich et al. 2024, arXiv:2404.01833): one conversation that starts harmless and escalates a
  little each turn, building on the agent's own answers; the agent sees the whole history.
- PAIR (Chao et al. 2023, arXiv:2310.08419): fresh single-message attempts, each refined from the previous reply
  and the judge's verdict.
Both are bounded by `attacker.max_turns`; the judge decides every turn from the attack's objectives, as for any
attack, and every turn is kept in the case's attempts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from khaos_action.attacker.checks import attack_problem
from khaos_action.attacker.client import AttackerClient, AttackerUnavailable
from khaos_action.attacker.prompts import CRESCENDO, OBJECTIVES, PAIR, brief
from khaos_action.manifest import Attempt, CaseResult
from khaos_action.outcome import Outcome, Phase
from khaos_action.plan.cases import Case, Invocation

MULTI_TURN_OBJECTIVES = frozenset({"system_prompt", "tool_call"})
STRATEGIES = ("crescendo", "pair")

RunCases = Callable[[list[Case]], Awaitable[list[Invocation]]]
JudgeInvocations = Callable[[list[Invocation]], list[CaseResult]]


def candidates(results: Sequence[CaseResult], cases: dict[str, Case]) -> list[tuple[Case, CaseResult]]:
    """BLOCKED direct attacks whose objective a conversation can reach."""
    return [(cases[r.id], r) for r in results
            if r.phase == Phase.SECURITY and r.outcome == Outcome.BLOCKED and r.repeat == 0 and r.id in cases
            and (cases[r.id].objective or "").split(":")[0] in MULTI_TURN_OBJECTIVES and not cases[r.id].injections]


def _attempt(result: CaseResult, mutation: str) -> Attempt:
    return Attempt(input=result.input, output=result.output, outcome=result.outcome, mutation=mutation,
                   evidence_tags=result.evidence_tags)


async def converse(strategy: str, case: Case, first: CaseResult, *, client: AttackerClient, run: RunCases,
                   judge: JudgeInvocations, max_turns: int) -> CaseResult:
    """Run one strategy against one blocked attack; the result carries every turn in `attempts`."""
    earlier = list(first.attempts) or [_attempt(first, first.mutation or "original")]
    history: list[dict[str, str]] = []
    tried: list[dict[str, str]] = []
    system = CRESCENDO if strategy == "crescendo" else PAIR
    turns: list[Attempt] = []
    for turn in range(1, max_turns + 1):
        kind = (case.objective or "").split(":")[0]
        facts = brief(objective=OBJECTIVES.get(kind, case.objective), original_attack=case.input,
                      reference_code=case.canary if kind == "tool_call" else None,
                      conversation=history if strategy == "crescendo" else None,
                      previous_attempts=tried if strategy == "pair" else None)
        try:
            message = await client.chat([{"role": "system", "content": system.format(turn=turn, max_turns=max_turns)},
                                         {"role": "user", "content": facts}])
        except AttackerUnavailable:
            break
        if attack_problem(message, "") is not None:  # a first turn may be harmless: only junk is refused
            break  # junk (a refusal, a fragment) is never sent to the agent as a turn
        mutation = f"{strategy}:{turn}"
        step = replace(case, input=message, turns=(), mutation=mutation,
                       history=tuple(history) if strategy == "crescendo" else ())
        [invocation] = await run([step])
        [result] = judge([invocation])
        turns.append(_attempt(result, mutation))
        if result.outcome == Outcome.COMPROMISED:
            return result.model_copy(update={"attempts": [*earlier, *turns],
                                             "evidence_tags": [*result.evidence_tags, f"after_{mutation}"]})
        history += [{"role": "user", "content": message}, {"role": "assistant", "content": result.output}]
        tried.append({"attempt": message, "agent_reply": result.output[:2000], "verdict": result.outcome or ""})
    return first.model_copy(update={"attempts": [*earlier, *turns]})


async def multi_turn(results: list[CaseResult], cases: dict[str, Case], strategies: Sequence[str], *,
                     client: AttackerClient, run: RunCases, judge: JudgeInvocations,
                     max_turns: int) -> list[CaseResult]:
    """Results with each eligible BLOCKED attack replaced by its conversation(s), strategies in order until one
    breaks through."""
    chosen = [s for s in STRATEGIES if s in strategies]
    if not chosen:
        return results
    updated: dict[str, CaseResult] = {}
    for case, first in candidates(results, cases):
        current = first
        for strategy in chosen:
            current = await converse(strategy, case, current, client=client, run=run, judge=judge,
                                     max_turns=max_turns)
            if current.outcome == Outcome.COMPROMISED:
                break
        updated[case.id] = current
    return [updated.get(r.id, r) if r.repeat == 0 else r for r in results]
