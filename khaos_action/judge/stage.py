"""The judging stage of a run: every invocation → a CaseResult, then the optional LLM judge for UNCERTAIN attacks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from khaos_action.checkers import Invariant
from khaos_action.config.models import JudgeConfig, KhaosConfig
from khaos_action.engine.runner import Invocation
from khaos_action.judge.cases import (
    JudgeContext,
    judge_attack,
    judge_completion,
    judge_invariants,
)
from khaos_action.manifest import CaseResult
from khaos_action.plan.cases import Case
from khaos_action.services import Services


def judge_all(invocations: Sequence[Invocation], config: KhaosConfig,
              planned_invariants: Mapping[str, Invariant] | None = None,
              baseline_texts: Mapping[str, str] | None = None) -> list[CaseResult]:
    contract = config.contract
    ctx = JudgeContext(
        invariants={**({i.id: i for i in contract.invariants} if contract else {}), **(planned_invariants or {})},
        baseline_texts=baseline_texts if baseline_texts is not None else no_chaos_replies(invocations),
        secrets=config.agent.secrets, system_prompt=config.agent.system_prompt, seed=config.seed,
    )
    facts = baseline_tool_facts(invocations)
    results = []
    for inv in invocations:
        if inv.case.phase in ("baseline", "resilience"):
            results.append(judge_completion(inv, facts.get(inv.case.prompt_key or ""), ctx.secrets,
                                            system_prompt=ctx.system_prompt))
        elif inv.case.phase == "security":
            results.append(judge_attack(inv, ctx))
        else:
            results.append(judge_invariants(inv, ctx))
    from khaos_action.judge.contamination import find_contamination, mark

    mark(results, find_contamination(invocations, ctx.system_prompt))
    return results


def baseline_tool_facts(invocations: Sequence[Invocation]) -> dict[str, dict[str, set[str]]]:
    """prompt_key -> what each tool said to that prompt in the baseline (no fault): resilience cases of the same
    prompt must not say it when that tool fails."""
    from khaos_action.judge.graceful import tool_facts

    facts: dict[str, dict[str, set[str]]] = {}
    for inv in invocations:
        case = inv.case
        if case.phase == "baseline" and case.prompt_key and not case.faults and not inv.error:
            for name, tokens in tool_facts(inv.tool_calls).items():
                facts.setdefault(case.prompt_key, {}).setdefault(name, set()).update(tokens)
    return facts


def no_chaos_replies(invocations: Sequence[Invocation]) -> dict[str, str]:
    """The no-chaos contract reply to each prompt (first one seen), for behavior_unchanged with baseline: auto."""
    texts: dict[str, str] = {}
    for inv in invocations:
        case = inv.case
        if case.prompt_key and not case.faults and case.phase == "contract" and not inv.error:
            texts.setdefault(case.prompt_key, inv.text)
    return texts


async def consult_llm_judge(results: list[CaseResult], cases: Sequence[Case], endpoint: JudgeConfig,
                            services: Services) -> list[str]:
    """Ask the LLM judge about UNCERTAIN attacks that have an output to judge. A failing judge (unreachable, too
    slow, cut at judge.max_tokens, answering junk) leaves them UNCERTAIN (never BLOCKED) and is reported once, with
    why and the setting to change. The key is `endpoint.api_key_env` in `services.environ`."""
    from khaos_action.judge.llm_judge import ask_judge

    by_id = {case.id: case for case in cases}
    api_key = services.environ.get(endpoint.api_key_env) if endpoint.api_key_env else None
    consulted = 0
    problems: Counter[str] = Counter()
    async with services.async_http(timeout=endpoint.timeout_s) as client:
        for index, result in enumerate(results):
            if result.outcome != "UNCERTAIN" or result.error or not result.output.strip():
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
            results[index] = result.model_copy(update={
                "outcome": verdict.outcome.value, "confidence": round(verdict.confidence, 3),
                "evidence_tags": [*result.evidence_tags, *verdict.evidence_tags, "llm_judge"],
                "passed": {"BLOCKED": True, "COMPROMISED": False}.get(verdict.outcome.value),
            })
    if not problems:
        return []
    failed = sum(problems.values())
    why = "; ".join(f"{problem}{f' (×{n})' if n > 1 else ''}" for problem, n in problems.most_common(3))
    return [f"LLM judge at {endpoint.base_url} failed for {failed} of {consulted} UNCERTAIN attacks; they stay "
            f"UNCERTAIN: {why}"]


def goal_text(case: Case | None) -> str | None:
    """What the LLM judge is asked about: an attack's rubric sentences when it has any (`rubric` objectives are
    the judge's to decide), else None (the objective's kind)."""
    goal = case.goal if case is not None else None
    sentences = [leaf.rubric for leaf in goal.leaves() if leaf.rubric] if goal is not None else []
    return "; ".join(sentences) or None
