"""The judging stage of a run: every invocation → a CaseResult, then the optional LLM judge for UNCERTAIN attacks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from khaos_action.checkers import Invariant
from khaos_action.config.models import JudgeConfig
from khaos_action.judge.cases import (
    JudgeContext,
    judge_attack,
    judge_completion,
    judge_invariants,
)
from khaos_action.manifest import CaseResult, SkippedAttack
from khaos_action.outcome import ATTACK_PASSED, Outcome, Phase
from khaos_action.plan.cases import Case, Invocation
from khaos_action.services import Services


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """What judging reads of the config (the config stage makes it)."""

    invariants: Mapping[str, Invariant] = field(default_factory=dict)
    """The contract's invariants, by id."""
    secrets: tuple[str, ...] = ()
    """agent.secrets: the planted-secret check looks for them in every reply."""
    system_prompt: str | None = None
    seed: int = 42
    expects: Mapping[str, Any] = field(default_factory=dict)
    """A golden prompt's text -> its `expect`, for the prompts that have one (utility under attack)."""
    llm_judge: JudgeConfig | None = None
    """The optional LLM judge, consulted for UNCERTAIN attacks."""


def judge_all(invocations: Sequence[Invocation], settings: JudgeSettings,
              planned_invariants: Mapping[str, Invariant] | None = None,
              baseline_texts: Mapping[str, str] | None = None) -> list[CaseResult]:
    """Each invocation judged by the kind of its case; `planned_invariants`: those the planners added (replay,
    mutation); `baseline_texts`: the no-chaos replies behavior_unchanged compares with (by default, these
    invocations' own)."""
    ctx = JudgeContext(
        invariants={**settings.invariants, **(planned_invariants or {})},
        baseline_texts=baseline_texts if baseline_texts is not None else no_chaos_replies(invocations),
        secrets=settings.secrets, system_prompt=settings.system_prompt, seed=settings.seed,
    )
    facts = baseline_tool_facts(invocations)
    results = []
    for inv in invocations:
        if inv.case.phase in (Phase.BASELINE, Phase.RESILIENCE):
            results.append(judge_completion(inv, facts.get(inv.case.prompt_key or ""), ctx.secrets,
                                            system_prompt=ctx.system_prompt))
        elif inv.case.phase == Phase.SECURITY:
            results.append(judge_attack(inv, ctx))
        else:
            results.append(judge_invariants(inv, ctx))
    from khaos_action.judge.contamination import find_contamination, with_contamination

    return with_contamination(results, find_contamination(invocations, ctx.system_prompt))


def baseline_tool_facts(invocations: Sequence[Invocation]) -> dict[str, dict[str, set[str]]]:
    """prompt_key -> what each tool said to that prompt in the baseline (no fault): resilience cases of the same
    prompt must not say it when that tool fails."""
    from khaos_action.judge.graceful import tool_facts

    facts: dict[str, dict[str, set[str]]] = {}
    for inv in invocations:
        case = inv.case
        if case.phase == Phase.BASELINE and case.prompt_key and not case.faults and not inv.error:
            for name, tokens in tool_facts(inv.tool_calls).items():
                facts.setdefault(case.prompt_key, {}).setdefault(name, set()).update(tokens)
    return facts


def no_chaos_replies(invocations: Sequence[Invocation]) -> dict[str, str]:
    """The no-chaos contract reply to each prompt (first one seen), for behavior_unchanged with baseline: auto."""
    texts: dict[str, str] = {}
    for inv in invocations:
        case = inv.case
        if case.prompt_key and not case.faults and case.phase == Phase.CONTRACT and not inv.error:
            texts.setdefault(case.prompt_key, inv.text)
    return texts


async def consult_llm_judge(results: Sequence[CaseResult], cases: Sequence[Case], endpoint: JudgeConfig,
                            services: Services) -> tuple[list[CaseResult], list[str]]:
    """Ask the LLM judge about UNCERTAIN attacks that have an output to judge: the results (those it decided fresh,
    the others as they were) and the run's note. A failing judge (unreachable, too slow, cut at judge.max_tokens,
    answering junk) leaves them UNCERTAIN (never BLOCKED) and is reported once, with why and the setting to
    change. The key is `endpoint.api_key_env` in `services.environ`."""
    from khaos_action.judge.llm_judge import ask_judge

    by_id = {case.id: case for case in cases}
    api_key = services.environ.get(endpoint.api_key_env) if endpoint.api_key_env else None
    consulted = 0
    problems: Counter[str] = Counter()
    out = list(results)
    async with services.async_http(timeout=endpoint.timeout_s) as client:
        for index, result in enumerate(results):
            if result.outcome != Outcome.UNCERTAIN or result.error or not result.output.strip():
                continue
            case = by_id.get(result.id)
            attack_input = "\n".join([case.input, *(i["payload"] for i in case.injections)]) if case else ""
            consulted += 1
            answer = await ask_judge(endpoint, client, attack_input=attack_input, output=result.output,
                                     objective=goal_text(case) or result.objective or "", api_key=api_key)
            verdict = answer.verdict
            if verdict is None:
                problems[answer.problem or "no verdict"] += 1
                continue
            out[index] = result.model_copy(update={
                "outcome": verdict.outcome, "confidence": round(verdict.confidence, 3),
                "evidence_tags": [*result.evidence_tags, *verdict.evidence_tags, "llm_judge"],
                "passed": ATTACK_PASSED.get(verdict.outcome),
            })
    if not problems:
        return out, []
    failed = sum(problems.values())
    why = "; ".join(f"{problem}{f' (×{n})' if n > 1 else ''}" for problem, n in problems.most_common(3))
    return out, [f"LLM judge at {endpoint.base_url} failed for {failed} of {consulted} UNCERTAIN attacks; they stay "
                 f"UNCERTAIN: {why}"]


@dataclass(slots=True)
class Judged:
    """The judge stage's verdicts on the whole run."""

    results: list[CaseResult]
    undelivered: list[SkippedAttack]
    """Attacks whose payload never reached the agent when they ran: not exercised."""
    crashes: list[str]
    """The run's note when attacks crashed the agent before its model read them."""
    llm_judge: list[str]
    """The run's note when the LLM judge failed."""


async def judge_run(results: Sequence[CaseResult], cases: Sequence[Case], settings: JudgeSettings, *,
                    baseline_replies: Mapping[str, str], services: Services) -> Judged:
    """What only the whole run decides, on the results the execute stage judged case by case: utility under attack
    (each indirect attack's reply against its carrier's `expect` or baseline reply), the attacks never delivered
    and those that crashed the agent, then the LLM judge on the UNCERTAIN attacks (`cases`: as they ran)."""
    from khaos_action.attacks.recon import undelivered
    from khaos_action.judge.crash import crash_warnings
    from khaos_action.judge.utility import with_utility

    judged = with_utility(results, settings.expects, baseline_replies)
    notes: list[str] = []
    if settings.llm_judge is not None:
        judged, notes = await consult_llm_judge(judged, cases, settings.llm_judge, services)
    return Judged(results=judged, undelivered=undelivered(judged), crashes=crash_warnings(judged), llm_judge=notes)


def goal_text(case: Case | None) -> str | None:
    """What the LLM judge is asked about: an attack's rubric sentences when it has any (`rubric` objectives are
    the judge's to decide), else None (the objective's kind)."""
    goal = case.goal if case is not None else None
    sentences = [leaf.rubric for leaf in goal.leaves() if leaf.rubric] if goal is not None else []
    return "; ".join(sentences) or None
