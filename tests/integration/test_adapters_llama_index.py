"""`type: llama-index` on a research assistant written as LlamaIndex's multi-agent tutorial is
(tests/fixtures/frameworks/llama): plain async functions as tools (one taking the workflow `Context`),
FunctionAgents with handoffs, an `AgentWorkflow` as the entry, no `handle()`. Real LlamaIndex (its OpenAI LLM over
the openai SDK) against the offline model on 127.0.0.1."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from khaos_action.engine.chaos.plan import activate
from khaos_action.engine.context import CaseContext
from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import FrameworkTransport, discover_tools
from khaos_action.messages import AgentRequest
from tests import frameworks as fw

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.llms.openai")

APP = fw.APPS / "llama"
TOOLS = {"search_web", "record_notes"}


@pytest.fixture(scope="module")
def servers():
    yield from fw.stand_ins()


@pytest.fixture(scope="module")
def runs(servers, tmp_path_factory: pytest.TempPathFactory):
    return fw.base_and_head(servers[0], APP / "khaos.yaml", tmp_path_factory)


def test_init_finds_every_agents_tools_and_writes_the_type(servers, tmp_path: Path) -> None:
    written = fw.init_writes("research.py:agent_workflow", APP, tmp_path)
    assert "type: llama-index" in written
    assert all(f"{name}-down" in written for name in ("search_web", "record_notes", "write_report"))


def test_validate_passes(servers) -> None:
    done = fw.cli("validate", "-c", str(APP / "khaos.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_fault_fires_and_the_baseline_is_clean(runs) -> None:
    base, _ = runs
    fw.assert_clean_baseline(base)
    fw.assert_every_fault_fired(base)
    [clean] = [c for c in fw.cases(base, scenario="no-chaos") if "lighthouses" in c.input]
    assert [c["name"] for c in clean.tool_calls] == ["search_web", "record_notes"]
    assert clean.tool_calls[1]["args"] == {"notes": clean.tool_calls[1]["args"]["notes"], "notes_title": "findings"}


def test_indirect_payloads_ride_on_the_real_tools_and_are_judged(runs) -> None:
    base, _ = runs
    attacks = fw.assert_indirect_attacks_ride_on_real_tools(base, TOOLS)
    assert {c.outcome for c in attacks} == {"BLOCKED"}


def test_compare_catches_a_model_that_starts_obeying_injected_instructions(runs) -> None:
    base, head = runs
    fw.assert_compare_catches_the_regression(base, head)


def test_a_single_function_agent_and_its_function_tools_are_found(servers) -> None:
    names = [t.name for t in discover_tools("llama-index", "research.py:research_agent", APP)]
    assert names == ["search_web", "record_notes"]


def test_the_workflow_context_is_fresh_per_case_and_kept_within_one(servers) -> None:
    transport = FrameworkTransport(adapter_for("llama-index"), "research.py:agent_workflow", base_dir=APP,
                                   stream=True)
    asked = "Research the history of lighthouses and record notes on it."

    async def memory_sizes() -> list[int]:
        sizes = []
        for session, history in (("a", []), ("a", [{"role": "user", "content": asked},
                                                   {"role": "assistant", "content": "Noted."}]), ("b", [])):
            with activate(CaseContext(case_id=session, rng=random.Random(1))):
                reply = await transport.send(AgentRequest(asked, history, session))
            assert reply.text.startswith("Here is what I found")  # joined from the stream's deltas
            _, memory = transport.adapter.sessions.resume(transport._obj, session, [*history, {}, {}])
            sizes.append(len([m for m in await memory.aget_all() if m.role == "user"]))
        return sizes

    assert asyncio.run(memory_sizes()) == [1, 2, 1]
