"""Judging many cases: each result owns its lists; the invariant's configured form is one dict that every
result shares (150k copies of a few dicts at 50k cases × 3 invariants), and cases with the same verdict on an
invariant share its (read-only) result."""

from __future__ import annotations

from khaos_action.checkers import Invariant
from khaos_action.judge.cases import JudgeContext, judge_invariants
from khaos_action.plan.cases import Case, Invocation


def test_results_share_the_invariants_spec_and_own_their_lists() -> None:
    invariants = {i.id: i for i in (Invariant(id="answers", type="output_not_empty", severity="critical"),
                                    Invariant(id="order", type="contains", value="order"))}
    ctx = JudgeContext(invariants=invariants)
    first, second = (judge_invariants(Invocation(case=Case(id=f"c{n}", phase="contract", input="where?",
                                                           invariant_ids=tuple(invariants)), text=text), ctx)
                     for n, text in enumerate(("Your order shipped", "no idea, I am sad!")))

    assert [i.passed for i in first.invariants] == [True, True] and first.passed is True
    assert [i.passed for i in second.invariants] == [True, False] and second.passed is False
    for mine, theirs in zip(first.invariants, second.invariants):
        assert mine.spec is theirs.spec and mine.spec == invariants[mine.id].model_dump(exclude_defaults=True,
                                                                                       mode="json")
    for name in ("invariants", "evidence_tags", "attempts", "notes", "tool_calls"):
        assert getattr(first, name) is not getattr(second, name), name
    assert first.invariants[0] is second.invariants[0]  # both answered 18 characters: one shared result
    assert first.invariants[1] is not second.invariants[1]  # passed / failed
    again = judge_invariants(Invocation(case=Case(id="c3", phase="contract", input="where?",
                                                  invariant_ids=tuple(invariants)), text="nothing to say!!!!"), ctx)
    assert again.invariants[1] is second.invariants[1] and again.passed is False
