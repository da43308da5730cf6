"""A case whose faults never fired tested nothing: it carries the reason in `not_exercised`, like a case whose model
never answered, so the counts line ("N not exercised") and the reports count it instead of saying 0."""

from __future__ import annotations

from khaos_action.checkers import Invariant
from khaos_action.config.fault_entries import parse_fault
from khaos_action.gates_and_weights import Gates, Weights
from khaos_action.judge.cases import JudgeContext, judge_completion, judge_invariants
from khaos_action.plan.cases import Case, Invocation
from khaos_action.score.summary import summarise

FAULT = parse_fault({"id": "tool:error:abc", "target": "tool", "mode": "error"})
INVARIANTS = {i.id: i for i in (Invariant(id="answers", type="output_not_empty", severity="critical"),
                                Invariant(id="calm", type="contains", value="order", when="no_chaos"))}


def invocation(case_id: str, phase: str, *, faults=(), fired: bool = False) -> Invocation:
    case = Case(id=case_id, phase=phase, pillar="contract" if phase == "contract" else "resilience",
                input="where is my order?", faults=faults,
                invariant_ids=tuple(INVARIANTS) if phase == "contract" else ())
    return Invocation(case=case, text="Your order shipped.", fault_hits={f"fault:{FAULT.id}": 1} if fired else {})


def test_cells_and_resilience_cases_whose_faults_never_fired_are_counted_not_exercised() -> None:
    ctx = JudgeContext(invariants=INVARIANTS)
    missed_cell = judge_invariants(invocation("c1", "contract", faults=(FAULT,)), ctx)
    fired_cell = judge_invariants(invocation("c2", "contract", faults=(FAULT,), fired=True), ctx)
    calm_cell = judge_invariants(invocation("c3", "contract"), ctx)
    missed_case = judge_completion(invocation("r1", "resilience", faults=(FAULT,)))
    fired_case = judge_completion(invocation("r2", "resilience", faults=(FAULT,), fired=True))

    assert (missed_cell.passed, missed_cell.not_exercised) == (None, "none of the scenario's faults fired")
    assert (missed_case.passed, missed_case.not_exercised) == (None, "none of the configured faults fired")
    assert [r.not_exercised for r in (fired_cell, calm_cell, fired_case)] == [None, None, None]
    assert fired_cell.passed is True and calm_cell.passed is True and fired_case.passed is not None

    summary = summarise([missed_cell, fired_cell, calm_cell, missed_case, fired_case], goals=[], gates=Gates(),
                        weights=Weights())
    assert summary.counts.not_exercised == 2
