"""`type: pydantic-ai` end to end: the bundled example Agent (offline FunctionModel) through `evaluate`, with tool
faults and indirect payloads reaching the tools found in its toolsets, and the profile read from their definitions."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from khaos_action.engine.messages import TransportMessage
from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import (
    FrameworkTransport,
    require_framework,
)
from khaos_action.errors import AgentError
from khaos_action.main import evaluate
from khaos_action.run_api import EvaluateRequest

pytest.importorskip("pydantic_ai")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adapters" / "pydantic_ai"


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("run")
    return evaluate(EvaluateRequest(config_path=EXAMPLE / "khaos.yaml", out_dir=out, formats=("json",))).manifest


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
    assert [c["name"] for c in forwarded.tool_calls] == ["read_inbox", "send_email"]


def test_tools_are_restored_after_the_run(manifest) -> None:
    from khaos_action.engine.transport.python import load_object

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
    reply = asyncio.run(transport.send(TransportMessage("invoke", {"text": "second", "history": history})))
    assert reply.payload["text"] == ("system-prompt:SYS-PROMPT | user-prompt:first | text:reply one | "
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
