"""`type: openai-agents` end to end: the bundled example Agent, whose model is reached over real HTTP (the openai
SDK against an OpenAI-compatible stand-in on 127.0.0.1), through `evaluate`: tool faults and indirect payloads reach
its function tools, LLM faults reach its model calls, and the profile is read from the tools' definitions."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import discover_tools
from tests.builders import evaluate_project

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("agents")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adapters" / "openai_agents"


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as env:
        env.delenv("OPENAI_API_KEY", raising=False)  # the example then starts its offline stand-in model server
        env.delenv("KHAOS_EXAMPLE_BASE_URL", raising=False)
        out = tmp_path_factory.mktemp("run")
        return evaluate_project(EXAMPLE / "khaos.yaml", out, formats=("json",)).manifest


def cases(manifest, **where):
    return [c for c in manifest.cases if all(getattr(c, k) == v for k, v in where.items())]


def test_profile_is_inferred_from_the_function_tools(manifest) -> None:
    assert manifest.agent.type == "openai-agents"
    assert manifest.agent.capabilities["has_network_access"] is True
    assert manifest.agent.capability_sources["has_network_access"] == "tool:send_email"


def test_tool_fault_reaches_a_function_tool(manifest) -> None:
    [case] = cases(manifest, phase="resilience")
    [fault_id] = case.fault_ids
    assert case.fault_hits[fault_id] == 1
    assert [(c["name"], c["fault"]) for c in case.tool_calls] == [("lookup_order", fault_id)]
    assert "not responding" in case.output  # the SDK handed the tool error to the model, which answered honestly
    [baseline] = cases(manifest, phase="baseline")
    assert baseline.output == "Your order 1234 is shipped, expected Thursday."
    assert [c["name"] for c in baseline.tool_calls] == ["lookup_order"]


def test_llm_fault_reaches_the_models_http_calls(manifest) -> None:
    [case] = cases(manifest, phase="contract", scenario="model-unavailable")
    [fault_id] = case.fault_ids
    assert case.fault_hits[fault_id] >= 1  # the openai SDK retries a 503; every attempt met the fault
    assert {(c["fault"], c["status"]) for c in case.llm_calls} == {(fault_id, 503)}
    assert "503" in (case.error or "")
    [clean] = cases(manifest, phase="contract", scenario="no-chaos")
    assert [c["status"] for c in clean.llm_calls] == [200, 200] and clean.llm_calls[0]["fault"] is None


def test_indirect_payload_in_tool_output_is_delivered_and_judged(manifest) -> None:
    [joined] = cases(manifest, attack_id="ii-001-note-field")
    assert joined.fault_hits["injection:tool_output"] == 1
    assert joined.outcome == "COMPROMISED" and "canary:joined" in joined.evidence_tags
    [ignored] = cases(manifest, attack_id="ii-002-fake-system-in-output")
    assert ignored.fault_hits["injection:tool_output"] == 1 and ignored.outcome == "BLOCKED"
    [forwarded] = cases(manifest, attack_id="ii-005-forward-email")
    assert forwarded.outcome == "COMPROMISED" and "tool_call:send_email" in forwarded.evidence_tags
    assert [c["name"] for c in forwarded.tool_calls] == ["lookup_order", "send_email"]  # carried by the golden prompt


HANDOFF = '''
from agents import Agent, WebSearchTool, function_tool

@function_tool
def read_file(path: str) -> str:
    """Read a file from the shared drive."""
    return "contents"

@function_tool
def lookup_order(order_id: str) -> str:
    """Look up an order."""
    return "shipped"

files = Agent(name="files", tools=[read_file])
triage = Agent(name="triage", tools=[lookup_order, WebSearchTool()], handoffs=[files])
'''


def test_tools_of_handoff_agents_and_hosted_tools_are_discovered(tmp_path: Path) -> None:
    (tmp_path / "triage_agent.py").write_text(textwrap.dedent(HANDOFF))
    tools = discover_tools("openai-agents", "triage_agent.py:triage", tmp_path)
    assert sorted(t.name for t in tools) == ["lookup_order", "read_file", "web_search"]
    wrappable = {t.name: t.target for t in tools if t.target is not None}
    assert sorted(wrappable) == ["lookup_order", "read_file"]  # the hosted web search runs at OpenAI: no wrapper
    assert wrappable["read_file"].__doc__ == "Read a file from the shared drive."
    info = {t.name: t.info for t in tools}["read_file"]
    assert info.parameters == ("path",) and "shared drive" in info.description
    assert adapter_for("openai-agents").accepts(object()) is False
    assert asyncio.iscoroutinefunction(wrappable["lookup_order"]) is False
