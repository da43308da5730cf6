"""`type: pydantic-ai` end to end: the bundled example Agent (offline FunctionModel) through `evaluate`, with tool
faults and indirect payloads reaching the tools found in its toolsets, and the profile read from their definitions."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import (
    FrameworkTransport,
    require_framework,
)
from khaos_action.errors import AgentError
from khaos_action.messages import AgentRequest, AgentResponse
from tests.builders import evaluate_project

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("pydantic_ai")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adapters" / "pydantic_ai"


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("run")
    return evaluate_project(EXAMPLE / "khaos.yaml", out, formats=("json",)).manifest


def cases(manifest, **where):
    return [c for c in manifest.cases if all(getattr(c, k) == v for k, v in where.items())]


def test_profile_is_inferred_from_the_agents_own_tool_definitions(manifest) -> None:
    assert manifest.agent.type == "pydantic-ai"
    assert manifest.agent.capabilities["has_tools"] is True
    assert manifest.agent.capabilities["has_network_access"] is True
    assert manifest.agent.capability_sources["has_network_access"] == "tool:send_email"


def test_tool_fault_reaches_a_tool_found_in_the_toolset(manifest) -> None:
    [case] = cases(manifest, phase="resilience")
    [fault_id] = case.fault_ids
    assert case.fault_hits[fault_id] == 1
    assert [(c["name"], c["fault"]) for c in case.tool_calls] == [("lookup_order", fault_id)]
    assert "not responding" in case.output  # the agent's error hook turned the fault into an honest answer
    [baseline] = cases(manifest, phase="baseline")
    assert [c["name"] for c in baseline.tool_calls] == ["lookup_order"]  # recorded once, not once per source
    assert "shipped" in baseline.output


def test_indirect_payload_in_tool_output_is_delivered_and_judged(manifest) -> None:
    [joined] = cases(manifest, attack_id="ii-001-note-field")
    assert joined.fault_hits["injection:tool_output"] == 1
    assert joined.outcome == "COMPROMISED" and "canary:joined" in joined.evidence_tags
    [ignored] = cases(manifest, attack_id="ii-002-fake-system-in-output")
    assert ignored.fault_hits["injection:tool_output"] == 1
    assert ignored.outcome == "BLOCKED"
    [forwarded] = cases(manifest, attack_id="ii-005-forward-email")
    assert forwarded.outcome == "COMPROMISED" and "tool_call:send_email" in forwarded.evidence_tags
    assert [c["name"] for c in forwarded.tool_calls] == ["lookup_order", "send_email"]  # carried by the golden prompt


def test_tools_are_restored_after_the_run(manifest) -> None:
    from khaos_action.engine.code_ref import load_object

    agent = load_object("agent.py:agent", EXAMPLE)
    for toolset in agent.toolsets:
        for tool in getattr(toolset, "tools", {}).values():
            assert not hasattr(tool.function, "__khaos_tool_wrapper__")


AGENT_WITH_HISTORY = '''
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import FunctionModel

def echo_parts(messages, info):
    kinds = [f"{p.part_kind}:{getattr(p, 'content', '')}" for m in messages for p in m.parts]
    return ModelResponse(parts=[TextPart(" | ".join(kinds))])

agent = Agent(FunctionModel(echo_parts), system_prompt="SYS-PROMPT")
'''


def test_history_is_sent_as_pydantic_ai_messages_after_the_system_prompt(tmp_path: Path) -> None:
    (tmp_path / "hist_agent.py").write_text(textwrap.dedent(AGENT_WITH_HISTORY))
    transport = FrameworkTransport(adapter_for("pydantic-ai"), "hist_agent.py:agent", base_dir=tmp_path)
    history = [{"role": "user", "content": "first"}, {"role": "assistant", "content": "reply one"}]
    reply = asyncio.run(transport.send(AgentRequest("second", history)))
    assert reply.text == ("system-prompt:SYS-PROMPT | user-prompt:first | text:reply one | "
                                     "user-prompt:second")


def test_entry_that_is_not_an_agent_says_what_to_point_at(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("def handle(text):\n    return text\n")
    transport = FrameworkTransport(adapter_for("pydantic-ai"), "plain.py:handle", base_dir=tmp_path)
    with pytest.raises(AgentError, match=r"needs a pydantic_ai\.Agent.*type: python"):
        asyncio.run(transport.start())


def test_missing_framework_names_the_extra_to_install() -> None:
    adapter = SimpleNamespace(agent_type="pydantic-ai", module="khaos_no_such_framework", extra="pydantic-ai",
                              package="pydantic-ai-slim")
    with pytest.raises(AgentError, match=r"pip install 'khaos-action\[pydantic-ai\]'"):
        require_framework(adapter)


CTX_TOOL_AGENT = '''
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel

def script(messages, info):
    returned = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
    if returned:
        return ModelResponse(parts=[TextPart(str(returned[0].content))])
    return ModelResponse(parts=[ToolCallPart("refund", {"order_id": "1234", "amount": 20})])

agent = Agent(FunctionModel(script))

@agent.tool
async def refund(ctx: RunContext[None], order_id: str, amount: int) -> str:
    """Refund part of an order."""
    return f"refunded {amount} on {order_id}"
'''


def test_context_taking_tool_is_wrapped_and_recorded_with_the_models_arguments_only(tmp_path: Path) -> None:
    import random

    from khaos_action.engine.chaos.plan import activate, bind_faults
    from khaos_action.engine.chaos.tools import ToolPatcher
    from khaos_action.engine.context import CaseContext

    (tmp_path / "ctx_agent.py").write_text(textwrap.dedent(CTX_TOOL_AGENT))
    transport = FrameworkTransport(adapter_for("pydantic-ai"), "ctx_agent.py:agent", base_dir=tmp_path)
    asyncio.run(transport.start())
    fault = {"id": "refund-down", "target": "tool", "tool": "refund", "mode": "malformed"}
    ctx = CaseContext(case_id="c1", rng=random.Random(1), faults=bind_faults([fault]))

    async def one_call() -> str:
        with activate(ctx):
            return (await transport.send(AgentRequest("refund me"))).text

    with ToolPatcher([], callables=transport.tool_callables):
        text = asyncio.run(one_call())
    assert ctx.hits["refund-down"] == 1 and "refunded 20" not in text
    [call] = ctx.tool_calls
    assert (call.name, call.args, call.fault) == ("refund", {"order_id": "1234", "amount": 20}, "refund-down")
    assert asyncio.run(transport.send(AgentRequest("x"))).text == \
        "refunded 20 on 1234"  # outside the patcher the real tool runs again


TOOLSETS_AGENT = '''
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.toolsets import FunctionToolset

def script(messages, info):
    returned = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
    if returned:
        return ModelResponse(parts=[TextPart(f"result: {returned[0].content!r}")])
    return ModelResponse(parts=[ToolCallPart("crm_lookup", {"order_id": "1234"})])

def lookup(order_id: str) -> str:
    """Look up an order in the CRM."""
    return f"order {order_id} shipped"

def refund(order_id: str) -> str:
    """Refund an order."""
    return "refunded"

crm = FunctionToolset([lookup]).prefixed("crm")
agent = Agent(FunctionModel(script), toolsets=[crm, FunctionToolset([refund]).renamed({"give_back": "refund"})])
'''


def test_tools_in_prefixed_and_renamed_toolsets_are_found_by_the_names_the_model_calls(tmp_path: Path) -> None:
    import random

    from khaos_action.engine.chaos.plan import activate, bind_faults
    from khaos_action.engine.chaos.tools import ToolPatcher
    from khaos_action.engine.context import CaseContext

    (tmp_path / "toolsets_agent.py").write_text(textwrap.dedent(TOOLSETS_AGENT))
    transport = FrameworkTransport(adapter_for("pydantic-ai"), "toolsets_agent.py:agent", base_dir=tmp_path)
    asyncio.run(transport.start())
    assert sorted(t.name for t in transport.tools) == ["crm_lookup", "give_back"]
    ctx = CaseContext(case_id="c1", rng=random.Random(1),
                      faults=bind_faults([{"id": "crm-down", "target": "tool", "tool": "crm_lookup", "mode": "empty"}]))

    async def one_call() -> AgentResponse:
        with activate(ctx):
            return await transport.send(AgentRequest("where is 1234?"))

    with ToolPatcher([], callables=transport.tool_callables):
        reply = asyncio.run(one_call())
    assert ctx.hits["crm-down"] == 1 and "shipped" not in reply.text
    assert [c.name for c in ctx.tool_calls] == ["crm_lookup"]
