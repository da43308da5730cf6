"""Tool faults aimed at every tool are set aside, with the reason, for an agent with no tool to fail."""

from __future__ import annotations

from khaos_action.config.fault_entries import parse_fault
from khaos_action.plan.applicable import NO_TOOLS, out_of_process_reason, set_aside_tool_faults
from khaos_action.plan.cases import Case
from khaos_action.plan.scheduler import Plan

EVERY_TOOL = parse_fault({"id": "tool:error:aa", "target": "tool", "mode": "error", "tool": "*"})
GLOB = parse_fault({"id": "tool:timeout:bb", "target": "tool", "mode": "timeout", "tool": "lookup_*"})
NAMED = parse_fault({"id": "lookup_order:error:cc", "target": "tool", "mode": "error", "tool": "lookup_order"})
LLM = parse_fault({"id": "llm:rate_limit:dd", "target": "llm", "mode": "rate_limit"})


def plan_of(*cases: Case) -> Plan:
    return Plan(cases=list(cases), config_hash="h", seed=1)


def test_cases_of_every_tool_faults_are_dropped_and_listed_with_their_counts():
    plan = plan_of(Case(id="1", phase="resilience", input="a", faults=(EVERY_TOOL,)),
                   Case(id="2", phase="resilience", input="b", faults=(EVERY_TOOL,)),
                   Case(id="3", phase="resilience", input="a", faults=(GLOB,)),
                   Case(id="4", phase="resilience", input="a", faults=(LLM,)),
                   Case(id="5", phase="baseline", input="a"))
    aside = set_aside_tool_faults(plan, NO_TOOLS)
    listed = aside.faults_not_applicable
    assert [(f.id, f.mode, f.cases) for f in listed] == [("tool:error:aa", "error", 2),
                                                         ("tool:timeout:bb", "timeout", 1)]
    assert [c.id for c in aside.cases] == ["4", "5"] and len(plan.cases) == 5  # a new plan: the planned one stays
    assert aside.notes == [f"not applicable: tool faults tool:error:aa (error), tool:timeout:bb (timeout): {NO_TOOLS}; "
                          f"their 3 case(s) were not run and count neither as passes nor as failures"]


def test_a_scenario_with_an_llm_fault_too_keeps_it_and_a_named_tool_stays_for_the_config_check():
    plan = plan_of(Case(id="mixed", phase="contract", input="a", faults=(EVERY_TOOL, LLM)),
                   Case(id="named", phase="contract", input="a", faults=(NAMED,)))
    aside = set_aside_tool_faults(plan, out_of_process_reason("http"))
    listed = aside.faults_not_applicable
    assert [f.id for f in listed] == ["tool:error:aa"]
    assert "http agent's tools run in its own process" in listed[0].reason
    assert [(c.id, [f.id for f in c.faults]) for c in aside.cases] == [("mixed", ["llm:rate_limit:dd"]),
                                                                      ("named", ["lookup_order:error:cc"])]


def test_nothing_to_set_aside_leaves_the_plan_alone():
    plan = plan_of(Case(id="4", phase="resilience", input="a", faults=(LLM,)))
    assert set_aside_tool_faults(plan, NO_TOOLS) is plan and plan.notes == [] and len(plan.cases) == 1
