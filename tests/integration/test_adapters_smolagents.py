"""`type: smolagents` on a travel desk written as smolagents' own examples are (tests/fixtures/frameworks/smol): its
`@tool` functions given to a ToolCallingAgent and a CodeAgent, the agent object as the entry, no `handle()`. Real
smolagents against the offline model on 127.0.0.1: init finds the tools and writes the type, validate passes,
every fault fires (the agent still calls its own Tool objects: none is replaced by a function), indirect payloads
ride on the real tools, and compare catches a model that starts obeying them."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from khaos_action.engine.chaos.plan import activate
from khaos_action.engine.chaos.tools import ToolPatcher
from khaos_action.engine.context import CaseContext
from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import FrameworkTransport
from khaos_action.messages import AgentRequest
from tests import frameworks as fw

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("smolagents")

APP = fw.APPS / "smol"
TOOLS = {"convert_currency", "search_wikipedia"}


@pytest.fixture(scope="module")
def servers():
    yield from fw.stand_ins()


@pytest.fixture(scope="module")
def runs(servers, tmp_path_factory: pytest.TempPathFactory):
    return fw.base_and_head(servers[0], APP / "khaos.yaml", tmp_path_factory)


def test_init_finds_the_tools_on_the_agent_object_and_writes_the_type(servers, tmp_path: Path) -> None:
    written = fw.init_writes("travel_desk.py:agent", APP, tmp_path)
    assert "type: smolagents" in written
    assert "convert_currency-down" in written and "search_wikipedia-down" in written


def test_validate_passes_with_the_tools_found_on_the_agent(servers) -> None:
    done = fw.cli("validate", "-c", str(APP / "khaos.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "convert_currency" in done.stdout and "search_wikipedia" in done.stdout


def test_every_fault_fires_and_the_baseline_is_clean(runs) -> None:
    base, _ = runs
    fw.assert_clean_baseline(base)
    fw.assert_every_fault_fired(base)
    [down] = fw.cases(base, scenario="rates-down")[:1]
    assert [c["name"] for c in down.tool_calls][0] == "convert_currency" and down.tool_calls[0]["fault"]
    assert not [c for c in base.cases if "to_tool_calling_prompt" in (c.error or "")]


def test_indirect_payloads_ride_on_the_real_tools_and_are_judged(runs) -> None:
    base, _ = runs
    attacks = fw.assert_indirect_attacks_ride_on_real_tools(base, TOOLS)
    assert {c.outcome for c in attacks} == {"BLOCKED"}


def test_compare_catches_a_model_that_starts_obeying_injected_instructions(runs) -> None:
    base, head = runs
    assert {c.outcome for c in head.cases if c.phase == "security"} == {"COMPROMISED"}
    fw.assert_compare_catches_the_regression(base, head)


def test_code_agent_runs_its_tools_from_its_own_executor_through_the_wrappers(servers, tmp_path: Path) -> None:
    manifest = fw.run(APP / "code.khaos.yaml", tmp_path)  # stream: true, and a CodeAgent
    fw.assert_clean_baseline(manifest)
    fw.assert_every_fault_fired(manifest)
    assert manifest.agent.capabilities["has_code_execution"] is True


def test_memory_is_fresh_per_case_and_kept_within_one(servers) -> None:
    transport = FrameworkTransport(adapter_for("smolagents"), "travel_desk.py:agent", base_dir=APP)

    async def turns() -> list[int]:
        await transport.start()
        agent = transport._obj
        sizes = []
        for session, history in (("a", []), ("a", [{"role": "user", "content": "Convert 10 USD to EUR"},
                                                   {"role": "assistant", "content": "9.2 EUR"}]), ("b", [])):
            with activate(CaseContext(case_id=session, rng=random.Random(1))):
                text = "Convert 10 USD to EUR" if session == "a" and not history else "Tell me about Brest"
                await transport.send(AgentRequest(text, history, session))
            sizes.append(sum(type(s).__name__ == "TaskStep" for s in agent.memory.steps))
        return sizes

    with ToolPatcher([], callables=[]):
        assert asyncio.run(turns()) == [1, 2, 1]  # the second turn continues case a; case b starts afresh


def test_tool_objects_listed_for_a_python_entry_stay_tools_inside_the_agent(servers, tmp_path: Path) -> None:
    """`type: python` with the `@tool` objects in agent.tools: they are wrapped in place, so the agent still reads
    its own Tools (it used to get functions: "'function' object has no attribute 'to_tool_calling_prompt'")."""
    manifest = fw.run(APP / "python.khaos.yaml", tmp_path)
    fw.assert_clean_baseline(manifest)
    fw.assert_every_fault_fired(manifest)
    assert not [c for c in manifest.cases if c.error]
