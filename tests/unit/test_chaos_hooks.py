"""The engine runs cases through the chaos hooks: faults bound per case, hits reported per invocation."""

from __future__ import annotations

import asyncio

from khaos_action import sdk
from khaos_action.config.fault_entries import parse_fault
from khaos_action.engine.chaos.hooks import FaultHooks
from khaos_action.engine.chaos.plan import activate
from khaos_action.engine.chaos.tools import ToolPatcher
from khaos_action.engine.runner import Engine, EngineSettings
from khaos_action.engine.transport.mock import MockTransport
from khaos_action.messages import AgentRequest
from khaos_action.plan.cases import Case


@sdk.tool
def lookup_order(order_id: str) -> dict:
    return {"order_id": order_id, "status": "shipped"}


def tool_agent(request: AgentRequest) -> str:
    """An in-process agent: calls its tool and reports what it saw, plus the history it was handed."""
    try:
        text = f"status {lookup_order('1')['status']}"
    except Exception as exc:  # noqa: BLE001
        text = f"failed: {exc}"
    return f"{text}; history {len(request.history)}"


def run(cases: list[Case], hooks: FaultHooks) -> dict[str, object]:
    engine = Engine(MockTransport(tool_agent), settings=EngineSettings(concurrency=4), chaos=hooks, activate=activate)
    with ToolPatcher([], None):
        return {inv.case.id: inv for inv in asyncio.run(engine.run(cases))}


def test_each_case_gets_its_own_faults_and_hit_counts():
    cases = [
        Case(id="down", phase="resilience", input="q",
             faults=(parse_fault({"id": "err", "target": "tool", "mode": "error", "tool": "lookup_order",
                                  "error_code": 503}),)),
        Case(id="clean", phase="resilience", input="q"),
        Case(id="poison", phase="resilience", input="q",
             faults=(parse_fault({"id": "mem", "target": "context", "mode": "memory_poisoning"}),)),
    ]
    results = run(cases, FaultHooks(context_in_payload=True))
    assert results["down"].text == "failed: 503 Service Unavailable; history 0"
    assert results["down"].fault_hits == {"err": 1}
    assert results["clean"].text == "status shipped; history 0" and results["clean"].fault_hits == {}
    assert results["poison"].text == "status shipped; history 2" and results["poison"].fault_hits == {"mem": 1}
    assert [c.fault for c in results["down"].tool_calls] == ["err"]


def test_context_attacks_stay_out_of_the_payload_unless_asked():
    case = Case(id="poison", phase="resilience", input="q",
                faults=(parse_fault({"id": "mem", "target": "context", "mode": "memory_poisoning"}),))
    results = run([case], FaultHooks())
    assert results["poison"].text == "status shipped; history 0" and results["poison"].fault_hits == {}


def test_a_context_attack_rewrites_the_request_s_conversation_and_keeps_the_rest_of_it():
    from khaos_action.engine.chaos.plan import bind_faults
    from khaos_action.engine.context import CaseContext
    from khaos_action.engine.runner import case_rng

    ctx = CaseContext(case_id="poison", rng=case_rng(42, "poison"))
    ctx.faults = bind_faults([parse_fault({"id": "mem", "target": "context", "mode": "memory_poisoning"})], ctx.rng)
    request = AgentRequest("q", [], "poison", case_id="poison", phase="resilience", run_id="r1")
    poisoned = FaultHooks(context_in_payload=True).transform_request(request, ctx)
    assert poisoned.text == "q" and len(poisoned.history) == 2 and request.history == []
    assert (poisoned.session_id, poisoned.case_id, poisoned.phase, poisoned.run_id) == ("poison", "poison",
                                                                                        "resilience", "r1")
    assert FaultHooks().transform_request(request, ctx) is request
