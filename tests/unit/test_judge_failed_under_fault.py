"""A call that timed out or crashed while a fault of its scenario was firing is a failure to handle that fault:
a resilience case fails with the reason, a contract cell's checks of the output fail with it (the contract score
counts them), and neither is ever "not exercised". Without a fired fault the old rules hold."""

from __future__ import annotations

import pytest

from khaos_action.checkers import Invariant
from khaos_action.config.fault_entries import parse_fault
from khaos_action.judge.cases import JudgeContext, failed_under_fault, fault_name, judge_completion, judge_invariants
from khaos_action.plan.cases import Case, Invocation
from khaos_action.score.pillars import weighted_invariant_score

SLOW = parse_fault({"id": "directory_lookup:slow:9f31c2", "target": "tool", "mode": "slow", "tool": "directory_lookup"})
RATE = parse_fault({"id": "llm:rate_limit:0a1b2c", "target": "llm", "mode": "rate_limit"})
INVARIANTS = {i.id: i for i in (
    Invariant(id="answers", type="output_not_empty", severity="critical"),
    Invariant(id="fast", type="latency", max_ms=2000, severity="medium"),
    Invariant(id="finishes", type="completes", severity="high"),
    Invariant(id="llm-only", type="output_not_empty", when="llm_faults_active", severity="low"),
)}


def run(phase: str, *, faults=(SLOW,), hits=None, timed_out=False, error=None, text="") -> Invocation:
    case = Case(id="c", phase=phase, pillar="contract" if phase == "contract" else "chaos",
                input="Who is on call for the billing service tonight?", faults=faults,
                invariant_ids=tuple(INVARIANTS) if phase == "contract" else ())
    return Invocation(case=case, text=text, timed_out=timed_out, timeout_s=5.0 if timed_out else None,
                      error=error or ("timed out after 5s (agent.timeout_s)" if timed_out else None),
                      fault_hits={f.id: 1 for f in faults} if hits is None else hits)


def test_fault_names_drop_the_entry_digest_only() -> None:
    assert fault_name("directory_lookup:slow:9f31c2") == "directory_lookup:slow"
    assert fault_name("llm:rate_limit:0a1b2c") == "llm:rate_limit"
    assert fault_name("my-custom-id") == "my-custom-id"
    assert fault_name("pager:slow:notahex1") == "pager:slow:notahex1"


@pytest.mark.parametrize("invocation, reason", [
    (run("resilience", timed_out=True), "no answer within timeout_s (5s) while directory_lookup:slow was active"),
    (run("resilience", faults=(SLOW, RATE), timed_out=True),
     "no answer within timeout_s (5s) while directory_lookup:slow, llm:rate_limit were active"),
    (run("resilience", error="agent raised KeyError: 'oncall'"),
     "the agent failed while directory_lookup:slow was active: agent raised KeyError: 'oncall'"),
    (run("resilience", timed_out=True, hits={}), None),  # nothing fired: not under the fault
    (run("resilience", text="Billing on call: Sam."), None),  # answered
    (run("resilience", hits={"injection:tool_output": 1}, timed_out=True), None),  # a payload is no fault
])
def test_why_a_failed_call_under_a_fired_fault_fails(invocation: Invocation, reason: str | None) -> None:
    assert failed_under_fault(invocation) == reason


def test_a_resilience_case_that_timed_out_under_its_fault_fails_with_the_reason() -> None:
    result = judge_completion(run("resilience", timed_out=True))
    assert result.passed is False and result.not_exercised is None
    assert result.faults_fired == [SLOW.id]
    assert "no answer within timeout_s (5s) while directory_lookup:slow was active" in result.notes


def test_a_timeout_without_a_fired_fault_is_still_not_exercised() -> None:
    result = judge_completion(run("resilience", timed_out=True, hits={}))
    assert result.passed is None and result.not_exercised == "none of the configured faults fired"


def test_a_contract_cell_that_timed_out_under_its_fault_fails_the_checks_that_read_the_output() -> None:
    result = judge_invariants(run("contract", timed_out=True), JudgeContext(invariants=INVARIANTS))
    verdicts = {i.id: (i.passed, i.detail) for i in result.invariants}
    reason = "no answer within timeout_s (5s) while directory_lookup:slow was active"
    assert verdicts["answers"] == (False, reason)
    assert verdicts["fast"][0] is False and verdicts["finishes"][0] is False  # they judge a timeout themselves
    assert verdicts["llm-only"] == (None, "not applicable here (when: llm_faults_active)")
    assert result.passed is False and result.not_exercised is None
    assert weighted_invariant_score([result]) == (0.0, 3)


def test_a_contract_cell_that_crashed_under_its_fault_is_failed_not_left_out() -> None:
    result = judge_invariants(run("contract", error="agent raised RuntimeError: pager directory unreachable"),
                              JudgeContext(invariants=INVARIANTS))
    answers = next(i for i in result.invariants if i.id == "answers")
    assert answers.passed is False
    assert answers.detail.startswith("the agent failed while directory_lookup:slow was active: agent raised")
    assert result.passed is False


def test_a_contract_cell_that_crashed_with_no_fault_fired_keeps_its_old_verdicts() -> None:
    result = judge_invariants(run("contract", error="agent raised RuntimeError: boom", hits={}),
                              JudgeContext(invariants=INVARIANTS))
    assert result.passed is None and result.not_exercised == "none of the scenario's faults fired"
    calm = judge_invariants(run("contract", faults=(), error="agent raised RuntimeError: boom", hits={}),
                            JudgeContext(invariants=INVARIANTS))
    answers = next(i for i in calm.invariants if i.id == "answers")
    assert calm.passed is False and answers.passed is None and answers.detail.startswith("not evaluated")
