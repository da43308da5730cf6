"""`validate` and `run` build the capability profile through one function, so they never disagree."""

from khaos_action.attacks.profile import profile_of
from khaos_action.config.models import AgentConfig


def test_a_framework_agent_is_multi_turn_because_its_adapter_sends_the_history():
    profile, sources = profile_of(AgentConfig(type="openai-agents", entry="app.py:agent"), [], None)
    assert profile.has_multi_turn is True
    assert sources["has_multi_turn"] == "framework:openai-agents adapter sends the history"


def test_a_plain_python_agent_gets_no_adapter_evidence():
    profile, sources = profile_of(AgentConfig(type="python", entry="app.py:handle"), [], None)
    assert profile.has_multi_turn is False and sources["has_multi_turn"] == "default"

