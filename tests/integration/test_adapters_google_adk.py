"""`type: google-adk` on a hiking-conditions agent laid out as Google ADK's quickstart is
(tests/fixtures/frameworks/adk_app: a package whose agent.py defines `root_agent`; plain functions returning status
dicts as tools; a model through `LiteLlm`), the agent object as the entry, no `handle()`. Real ADK and LiteLLM (its
aiohttp transport) against the offline model on 127.0.0.1."""

from __future__ import annotations

import asyncio
import random
import shutil
import textwrap
from pathlib import Path

import pytest

from khaos_action.engine.chaos.plan import activate
from khaos_action.engine.context import CaseContext
from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import FrameworkTransport, discover_tools
from khaos_action.messages import AgentRequest
from tests import frameworks as fw

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("google.adk")
pytest.importorskip("litellm")

APP = fw.APPS / "adk_app"
TOOLS = {"get_trail_conditions", "get_sunset_time"}


@pytest.fixture(scope="module")
def servers():
    yield from fw.stand_ins()


@pytest.fixture(scope="module")
def runs(servers, tmp_path_factory: pytest.TempPathFactory):
    return fw.base_and_head(servers[0], APP / "khaos.yaml", tmp_path_factory)


def test_init_finds_the_tools_on_the_root_agent_and_writes_the_type(servers, tmp_path: Path) -> None:
    written = fw.init_writes("trail_agent/agent.py:root_agent", APP, tmp_path)
    assert "type: google-adk" in written
    assert "get_trail_conditions-down" in written and "get_sunset_time-down" in written


def test_validate_passes(servers) -> None:
    done = fw.cli("validate", "-c", str(APP / "khaos.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_fault_fires_and_the_baseline_is_clean(runs) -> None:
    base, _ = runs
    fw.assert_clean_baseline(base)
    fw.assert_every_fault_fired(base)
    # ADK hands a tool's exception to nobody: the run stops, and the case says which fault did it
    [down] = [c for c in fw.cases(base, scenario="trail-reports-down") if "Eagle" in c.input]
    assert "ToolFaultError: 503" in down.error and down.tool_calls[0]["fault"]


def test_indirect_payloads_ride_on_the_real_tools_and_are_judged(runs) -> None:
    base, _ = runs
    attacks = fw.assert_indirect_attacks_ride_on_real_tools(base, TOOLS)
    assert {c.outcome for c in attacks} == {"BLOCKED"}


def test_compare_catches_a_model_that_starts_obeying_injected_instructions(runs) -> None:
    base, head = runs
    fw.assert_compare_catches_the_regression(base, head)


RUNNER = '''
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from trail_agent.agent import root_agent

session_service = InMemorySessionService()
runner = Runner(agent=root_agent, app_name="trails", session_service=session_service)
'''


def test_a_runner_entry_uses_its_session_service_one_session_per_case(servers, tmp_path: Path) -> None:
    shutil.copytree(APP / "trail_agent", tmp_path / "trail_agent")
    (tmp_path / "serve.py").write_text(textwrap.dedent(RUNNER))
    assert {t.name for t in discover_tools("google-adk", "serve.py:runner", tmp_path)} == TOOLS
    transport = FrameworkTransport(adapter_for("google-adk"), "serve.py:runner", base_dir=tmp_path, stream=True)
    asked = "When is sunset in Grenoble?"

    async def sessions_after_each_turn() -> list[int]:
        counts = []
        for session, history in (("a", []), ("a", [{"role": "user", "content": asked},
                                                   {"role": "assistant", "content": "21:18"}]), ("b", [])):
            with activate(CaseContext(case_id=session, rng=random.Random(1))):
                reply = await transport.send(AgentRequest(asked, history, session))
            assert "21:18" in reply.text
            service = transport._obj.session_service
            counts.append(len((await service.list_sessions(app_name="trails", user_id="khaos-action")).sessions))
        return counts

    assert asyncio.run(sessions_after_each_turn()) == [1, 1, 2]  # case a kept its session; case b got its own


@pytest.fixture
def gemini(servers, monkeypatch):
    """The dice agent's Gemini model at the scripted model (its generateContent); tools chosen by what they do."""
    llm, _ = servers
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", llm.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "offline")
    llm.generic = True
    yield llm
    llm.generic = False


def test_an_app_on_a_gemini_model_meets_every_fault_in_googles_own_error_shapes(gemini, tmp_path: Path) -> None:
    """ADK's own sample style: a Gemini model by id, a ToolContext tool, the agent in an `App`. The App is the
    entry (its root agent's tools found), and LLM faults answer google-genai's generateContent calls."""
    assert {t.name for t in discover_tools("google-adk", "dice_agent.agent:app", APP)} == {"roll_die", "check_prime"}
    manifest = fw.run(APP / "gemini.khaos.yaml", tmp_path)
    fw.assert_clean_baseline(manifest)
    fw.assert_every_fault_fired(manifest)
    errors = {c.scenario: c.error or "" for c in fw.cases(manifest, phase="contract")}
    assert "RESOURCE_EXHAUSTED" in errors["model-rate-limited"] and "UNAVAILABLE" in errors["model-unavailable"]
    assert {c.llm_calls[0]["provider"] for c in manifest.cases if c.llm_calls} == {"gemini"}


MULTI_AGENT = '''
from google.adk.agents import Agent
from google.adk.examples.example import Example
from google.adk.tools.example_tool import ExampleTool
from google.genai import types

from dice_agent.agent import check_prime, roll_die

example_tool = ExampleTool([Example(input=types.UserContent(parts=[types.Part(text="Roll a 6-sided die.")]),
                                    output=[types.ModelContent(parts=[types.Part(text="I rolled a 4 for you.")])])])
roll_agent = Agent(name="roll_agent", model="gemini-2.0-flash", description="Handles rolling dice.", tools=[roll_die])
prime_agent = Agent(name="prime_agent", model="gemini-2.0-flash", description="Checks primes.", tools=[check_prime])
root_agent = Agent(model="gemini-2.0-flash", name="root_agent", instruction="Delegate to your sub-agents.",
                   sub_agents=[roll_agent, prime_agent], tools=[example_tool])
'''


def test_init_gives_faults_only_to_tools_the_engine_wraps(tmp_path: Path) -> None:
    """ADK's hello_world_ma sample (contributing/samples/hello_world_ma in google/adk-python) gives its root agent an
    ExampleTool (few-shot examples, never called): init listed it with a fault, so validate passed and run refused
    the config (exit 2, "Tool faults target example_tool, which the agent does not declare")."""
    shutil.copytree(APP / "dice_agent", tmp_path / "dice_agent")
    (tmp_path / "ma.py").write_text(textwrap.dedent(MULTI_AGENT))
    written = fw.init_writes("ma.py:root_agent", tmp_path, tmp_path)
    assert "roll_die-down" in written and "check_prime-down" in written
    assert "example_tool-down" not in written and "example_tool" in written  # listed, with why it gets no fault


def test_validate_refuses_a_tool_fault_on_a_tool_out_of_the_engines_reach_as_run_does(tmp_path: Path) -> None:
    """validate said valid, then run stopped at exit 2: both now refuse the fault, at its line."""
    shutil.copytree(APP / "dice_agent", tmp_path / "dice_agent")
    (tmp_path / "ma.py").write_text(textwrap.dedent(MULTI_AGENT))
    (tmp_path / "khaos.yaml").write_text(textwrap.dedent("""
        version: 1
        agent: {name: dice, type: google-adk, entry: ma.py:root_agent}
        golden_prompts: ["Roll a die with 6 sides please."]
        contract:
          name: c
          invariants: [{id: answers, type: output_not_empty, severity: critical}]
        chaos_matrix:
          - name: no-chaos
          - {name: examples-down, tool_faults: [{tool: example_tool, mode: error}]}
    """))
    done = fw.cli("validate", "-c", str(tmp_path / "khaos.yaml"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "chaos_matrix[1].tool_faults[0].tool" in done.stdout + done.stderr
    assert "example_tool" in done.stdout + done.stderr and "out of the engine's reach" in done.stdout + done.stderr
