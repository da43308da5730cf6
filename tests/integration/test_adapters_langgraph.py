"""`type: langgraph` end to end: the bundled example graph (offline langchain_core chat model) through `evaluate`,
with tool faults and indirect payloads reaching the tools found in its ToolNode, and the profile read from them."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import FrameworkTransport
from khaos_action.errors import AgentError
from khaos_action.messages import AgentRequest
from tests.builders import evaluate_project

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("langgraph")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adapters" / "langgraph"


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("run")
    return evaluate_project(EXAMPLE / "khaos.yaml", out, formats=("json",)).manifest


def cases(manifest, **where):
    return [c for c in manifest.cases if all(getattr(c, k) == v for k, v in where.items())]


def test_profile_is_inferred_from_the_tool_nodes_tools(manifest) -> None:
    assert manifest.agent.type == "langgraph"
    assert manifest.agent.capabilities["has_network_access"] is True
    assert manifest.agent.capability_sources["has_network_access"] == "tool:send_email"
    assert manifest.agent.capability_sources["has_tools"] == "tool:lookup_order"


def test_tool_fault_reaches_a_tool_in_the_tool_node(manifest) -> None:
    [case] = cases(manifest, phase="resilience")
    [fault_id] = case.fault_ids
    assert case.fault_hits[fault_id] == 1
    assert [(c["name"], c["fault"]) for c in case.tool_calls] == [("lookup_order", fault_id)]
    assert "not responding" in case.output  # ToolNode(handle_tool_errors=True) showed the model the error
    [contract] = cases(manifest, phase="contract", scenario="order-api-down")
    assert contract.fault_hits[contract.fault_ids[0]] == 1


def test_indirect_payload_in_tool_output_is_delivered_and_judged(manifest) -> None:
    [joined] = cases(manifest, attack_id="ii-001-note-field")
    assert joined.fault_hits["injection:tool_output"] == 1
    assert joined.outcome == "COMPROMISED" and "canary:joined" in joined.evidence_tags
    [ignored] = cases(manifest, attack_id="ii-002-fake-system-in-output")
    assert ignored.fault_hits["injection:tool_output"] == 1 and ignored.outcome == "BLOCKED"
    [forwarded] = cases(manifest, attack_id="ii-005-forward-email")
    assert forwarded.outcome == "COMPROMISED" and "tool_call:send_email" in forwarded.evidence_tags
    assert [c["name"] for c in forwarded.tool_calls] == ["lookup_order", "send_email"]  # carried by the golden prompt


def test_tool_not_called_invariant_sees_the_graphs_tool_calls(manifest) -> None:
    [clean] = cases(manifest, phase="contract", scenario="no-chaos")
    assert {i.id: i.passed for i in clean.invariants}["never-emails-on-its-own"] is True


CHECKPOINTED = '''
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

def count(state: MessagesState) -> dict:
    return {"messages": [AIMessage(content=f"I have seen {len(state['messages'])} messages")]}

builder = StateGraph(MessagesState)
builder.add_node("count", count)
builder.add_edge(START, "count")
graph = builder.compile(checkpointer=InMemorySaver())
'''


def test_checkpointed_graph_gets_a_fresh_thread_so_turns_do_not_pile_up(tmp_path: Path) -> None:
    (tmp_path / "memory_graph.py").write_text(textwrap.dedent(CHECKPOINTED))
    transport = FrameworkTransport(adapter_for("langgraph"), "memory_graph.py:graph", base_dir=tmp_path)
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]

    async def two_turns() -> list[str]:
        return [(await transport.send(AgentRequest("again", history, "case-1"))).text for _ in range(2)]

    assert asyncio.run(two_turns()) == ["I have seen 3 messages", "I have seen 3 messages"]


def test_uncompiled_graph_is_refused_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "builder.py").write_text("from langgraph.graph import MessagesState, StateGraph\n"
                                         "builder = StateGraph(MessagesState)\n")
    transport = FrameworkTransport(adapter_for("langgraph"), "builder.py:builder", base_dir=tmp_path)
    with pytest.raises(AgentError, match=r"needs a compiled graph"):
        asyncio.run(transport.start())
