"""`agent.context`, `agent.stream`, `agent.tracing` in khaos.yaml: accepted for in-process agents, refused with a fix
for agents that run in another process."""

from __future__ import annotations

from pathlib import Path

import pytest

from khaos_action.config.loader import load_config
from khaos_action.errors import ConfigError

BASE = "version: 1\ngolden_prompts: [hi]\npacks: [quickstart]\nagent:\n"


def test_framework_agent_takes_context_stream_and_tracing(tmp_path: Path) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_text(BASE + "  type: pydantic-ai\n  entry: agent.py:agent\n  context: agent.py:make_deps\n"
                           "  stream: true\n  tracing: true\n")
    agent = load_config(path).config.agent
    assert (agent.context, agent.stream, agent.tracing) == ("agent.py:make_deps", True, True)


def test_context_for_an_out_of_process_agent_says_to_remove_it(tmp_path: Path) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_text(BASE + "  type: http\n  url: http://127.0.0.1:9/chat\n  context: agent.py:make_deps\n")
    with pytest.raises(ConfigError, match=r"khaos\.yaml:7:3: agent\.context: agent\.context applies to types python, "
                                          r"pydantic-ai, langgraph, openai-agents, smolagents, llama-index, autogen, "
                                          r"google-adk, crewai; this agent is type http: remove it"):
        load_config(path)
