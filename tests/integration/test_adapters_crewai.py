"""`type: crewai` on an observing-night planner written as CrewAI's guides and example crews are
(tests/fixtures/frameworks/crew_app): `@tool("name")` tools, an agent with a role, a goal and a backstory, a task
whose `{request}` placeholder takes the message, a sequential `Crew` as the entry, no `handle()`. Real CrewAI (its
ReAct loop, its LLM class over LiteLLM) against the offline model on 127.0.0.1."""

from __future__ import annotations

import asyncio
import random
import textwrap
from pathlib import Path

import pytest

from khaos_action.engine.chaos.plan import activate
from khaos_action.engine.chaos.tools import ToolPatcher
from khaos_action.engine.context import CaseContext
from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import FrameworkTransport, discover_tools
from khaos_action.engine.transport.frameworks.crewai import kickoff_inputs
from khaos_action.errors import ConfigError
from khaos_action.messages import AgentRequest
from tests import frameworks as fw

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("crewai")

APP = fw.APPS / "crew_app"
TOOLS = {"lookup_catalogue", "sky_forecast"}


@pytest.fixture(scope="module")
def servers():
    yield from fw.stand_ins()


@pytest.fixture(scope="module")
def runs(servers, tmp_path_factory: pytest.TempPathFactory):
    return fw.base_and_head(servers[0], APP / "khaos.yaml", tmp_path_factory)


def test_init_finds_the_crews_tools_and_writes_the_type(servers, tmp_path: Path) -> None:
    written = fw.init_writes("observatory.py:crew", APP, tmp_path)
    assert "type: crewai" in written
    assert "lookup_catalogue-down" in written and "sky_forecast-down" in written


def test_validate_passes(servers) -> None:
    done = fw.cli("validate", "-c", str(APP / "khaos.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_fault_fires_and_the_baseline_is_clean(runs) -> None:
    base, _ = runs
    fw.assert_clean_baseline(base)
    fw.assert_every_fault_fired(base)
    # each case reaches the tools itself: the crew's cache of tool results is dropped between cases
    assert all(c.tool_calls for c in fw.cases(base, phase="contract") if c.scenario in ("no-chaos", "forecast-empty"))


def test_indirect_payloads_ride_on_the_real_tools_and_are_judged(runs) -> None:
    base, _ = runs
    attacks = fw.assert_indirect_attacks_ride_on_real_tools(base, TOOLS)
    assert {c.outcome for c in attacks} == {"BLOCKED"}


def test_compare_catches_a_model_that_starts_obeying_injected_instructions(runs) -> None:
    base, head = runs
    fw.assert_compare_catches_the_regression(base, head)


def test_the_message_fills_the_crews_one_placeholder_or_the_configured_inputs(servers) -> None:
    from khaos_action.engine.code_ref import load_object

    crew = load_object("observatory.py:crew", APP)
    assert kickoff_inputs(crew, "Is M42 up?", {}) == {"request": "Is M42 up?"}
    assert kickoff_inputs(crew, "Is M42 up?", {"request": "{{input}} (from the club)", "site": "Pic du Midi"}) == {
        "request": "Is M42 up? (from the club)", "site": "Pic du Midi"}
    crew.tasks[0].description += " at {site}"
    try:
        with pytest.raises(ConfigError, match=r"several inputs \(request, site\).*agent.inputs"):
            kickoff_inputs(crew, "Is M42 up?", {})
    finally:
        crew.tasks[0].description = crew.tasks[0].description.replace(" at {site}", "")


CREW_BASE = '''
from crewai import Agent, Crew, Task
from crewai.project import CrewBase, agent, crew, task
from observatory import llm, lookup_catalogue

@CrewBase
class ObservingCrew:
    @agent
    def planner(self) -> Agent:
        return Agent(role="Planner", goal="Plan the night", backstory="An astronomer.", tools=[lookup_catalogue],
                     llm=llm)

    @task
    def plan(self) -> Task:
        return Task(description="Answer: {request}", expected_output="A plan.", agent=self.planner())

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks)
'''


def test_a_crew_base_class_is_run_through_the_crew_it_builds(servers, tmp_path: Path) -> None:
    (tmp_path / "observatory.py").write_text((APP / "observatory.py").read_text())
    (tmp_path / "project.py").write_text(textwrap.dedent(CREW_BASE))
    assert [t.name for t in discover_tools("crewai", "project.py:ObservingCrew", tmp_path)] == ["lookup_catalogue"]
    transport = FrameworkTransport(adapter_for("crewai"), "project.py:ObservingCrew", base_dir=tmp_path)
    ctx = CaseContext(case_id="c", rng=random.Random(1))

    async def turn() -> str:
        await transport.start()
        with ToolPatcher([], callables=transport.tool_callables), activate(ctx):
            message = AgentRequest("Is M31 worth observing?", session_id="c")
            return (await transport.send(message)).text

    assert "Andromeda" in asyncio.run(turn()) and [c.name for c in ctx.tool_calls] == ["lookup_catalogue"]


@pytest.mark.parametrize("config", ["agent.khaos.yaml", "stream.khaos.yaml"], ids=["agent-entry", "stream-crew"])
def test_an_agent_entry_and_a_streaming_crew_run_with_their_faults(servers, config: str,
                                                                   tmp_path: Path) -> None:
    """`entry` an `Agent` (a chat: `agent.kickoff(messages)`), or a crew made with `stream=True` (its kickoff returns
    a CrewStreamingOutput, read to its end before its result): the tools are faulted and the answer is the result's."""
    manifest = fw.run(APP / config, tmp_path)
    fw.assert_clean_baseline(manifest)
    fw.assert_every_fault_fired(manifest)
    clean = fw.cases(manifest, phase="contract", scenario="no-chaos")
    assert all("Andromeda" in c.output and "lookup_catalogue" in {t["name"] for t in c.tool_calls} for c in clean)
    down = fw.cases(manifest, phase="contract", scenario="catalogue-down")
    assert down and all(c.output and "Andromeda" not in c.output for c in down), [c.output for c in down]


KEYLESS_CREW = '''
from crewai import Agent, Crew, Task
from crewai.project import CrewBase, agent, crew, task

@CrewBase
class Researchers:
    @agent
    def researcher(self) -> Agent:
        return Agent(role="Researcher", goal="Find facts", backstory="Curious.", llm="gpt-4o-mini")

    @task
    def research(self) -> Task:
        return Task(description="Research {topic}", expected_output="Facts.", agent=self.researcher())

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks)
'''


def test_init_on_a_crew_class_that_cannot_be_built_names_the_missing_key(servers, tmp_path: Path) -> None:
    """A @CrewBase class whose crew() needs OPENAI_API_KEY: init used to call it a `type: python` function; it
    now says the crew could not be built and names the variable and where to set it."""
    (tmp_path / "crew.py").write_text(textwrap.dedent(KEYLESS_CREW))
    done = fw.cli("init", cwd=tmp_path)  # found by reading the source, then built in the worker: no key there
    assert done.returncode == 3, done.stdout + done.stderr
    assert "crew.py:Researchers" in done.stderr and "building the crewai agent" in done.stderr
    assert "OPENAI_API_KEY" in done.stderr and "agent.pass_env" in done.stderr
    assert not (tmp_path / "khaos.yaml").exists()


def test_validate_refuses_a_crew_whose_message_has_nowhere_to_go(servers, tmp_path: Path) -> None:
    """Two `{placeholders}` and no `agent.inputs`: every case would fail inside kickoff; validate says so at once,
    with the fix, and accepts the crew once `agent.inputs` says which placeholder takes the message."""
    (tmp_path / "observatory.py").write_text((APP / "observatory.py").read_text())
    (tmp_path / "site_crew.py").write_text(
        "from crewai import Crew, Task\nfrom observatory import planner\n"
        "task = Task(description='Plan {request} at {site}', expected_output='A plan.', agent=planner)\n"
        "crew = Crew(agents=[planner], tasks=[task])\n")
    config = (APP / "agent.khaos.yaml").read_text().replace("observatory.py:planner", "site_crew.py:crew")
    (tmp_path / "khaos.yaml").write_text(config)
    done = fw.cli("validate", "-c", str(tmp_path / "khaos.yaml"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "several inputs (request, site)" in done.stderr and "agent.inputs" in done.stderr
    assert ": valid" not in done.stdout
    (tmp_path / "khaos.yaml").write_text(config.replace(
        "  timeout_s: 30\n", "  timeout_s: 30\n  inputs: {request: \"{{input}}\", site: Pic du Midi}\n"))
    done = fw.cli("validate", "-c", str(tmp_path / "khaos.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
