"""`discover` finds framework agent objects by reading source: the constructor's import says the type; members of
another found object are left out; nothing is imported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from khaos_action.discover import discover, format_discovered

CASES = [
    ("from smolagents import ToolCallingAgent, tool\nagent = ToolCallingAgent(tools=[], model=m)\n",
     [("agent", "smolagents")]),
    ("from crewai import Agent, Crew, Task\nplanner = Agent(role='r', goal='g', backstory='b')\n"
     "plan = Task(description='{request}', agent=planner)\ncrew = Crew(agents=[planner], tasks=[plan])\n",
     [("crew", "crewai")]),
    ("from google.adk.agents import Agent\nhelper = Agent(name='h')\n"
     "root_agent = Agent(name='r', sub_agents=[helper])\n", [("root_agent", "google-adk")]),
    ("from google.adk import Agent\nfrom google.adk.apps import App\nroot_agent = Agent(name='r')\n"
     "app = App(name='a', root_agent=root_agent)\n", [("app", "google-adk")]),
    ("from autogen_agentchat.agents import AssistantAgent\nfrom autogen_agentchat.teams import RoundRobinGroupChat\n"
     "a = AssistantAgent('a', model_client=c)\nb = AssistantAgent('b', model_client=c)\n"
     "team = RoundRobinGroupChat([a, b])\n", [("team", "autogen")]),
    ("from llama_index.core.agent.workflow import FunctionAgent\nagent = FunctionAgent(tools=[f], llm=llm)\n",
     [("agent", "llama-index")]),
    # an alternate constructor, as LlamaIndex's starter tutorial makes its agent
    ("from llama_index.core.agent.workflow import AgentWorkflow\n"
     "agent = AgentWorkflow.from_tools_or_functions([multiply], llm=llm)\n", [("agent", "llama-index")]),
    ("from my_lib import Agent\nagent = Agent.from_config(c)\n", []),
    # the project `crewai create crew` writes: a @CrewBase class whose crew() builds the crew
    ("from crewai import Agent, Crew\nfrom crewai.project import CrewBase, agent, crew\n"
     "@CrewBase\nclass LatestAi():\n    @crew\n    def crew(self) -> Crew:\n        return Crew(agents=self.agents)\n",
     [("LatestAi", "crewai")]),
    ("from my_lib import CrewBase\n@CrewBase\nclass Other:\n    pass\n", []),
    ("from langchain.agents import create_agent\nagent = create_agent(model, tools=[t])\n", [("agent", "langgraph")]),
    ("from langgraph.graph import StateGraph\nbuilder = StateGraph(S)\ngraph = builder.compile()\n",
     [("graph", "langgraph")]),
    ("from agents import Agent\ntriage = Agent[Ctx](name='t')\n", [("triage", "openai-agents")]),
    ("import pydantic_ai\nagent = pydantic_ai.Agent('openai:gpt-4o')\n", [("agent", "pydantic-ai")]),
    ("from my_lib import Agent\nagent = Agent()\n", []),  # not a framework's: nothing
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_framework_objects_are_found_by_their_constructors_import(tmp_path: Path, source: str, expected) -> None:
    (tmp_path / "app.py").write_text(textwrap.dedent(source))
    assert [(d.name, d.metadata["type"]) for d in discover(tmp_path)] == expected


def test_the_agent_block_names_the_type(tmp_path: Path) -> None:
    (tmp_path / "crew.py").write_text(CASES[1][0])
    assert "type: crewai\n  entry: crew.py:crew" in format_discovered(discover(tmp_path))
