"""Import and entry hints name the fix: the environment variable an import read, the agent type that runs a
framework's object (from the transport registry), or the handle() + agent.tools recipe."""

from __future__ import annotations

import pytest

from khaos_action.engine.hints import import_hint, missing_variable


@pytest.mark.parametrize(("error", "name"), [
    (KeyError("OPENAI_API_KEY"), "OPENAI_API_KEY"),
    (RuntimeError("The api_key client option must be set either by passing api_key to the client or by setting "
                  "the OPENAI_API_KEY environment variable"), "OPENAI_API_KEY"),
    (ValueError("Missing env var GROQ_API_KEY"), "GROQ_API_KEY"),
    (RuntimeError("ANTHROPIC_API_KEY is not set"), "ANTHROPIC_API_KEY"),
    (ImportError("Error importing native provider: OPENAI_API_KEY is required"), "OPENAI_API_KEY"),  # CrewAI's LLM
    (ValueError("ORDER_ID is required"), None),  # not the name of a key, token or endpoint
    (KeyError("order_id"), None),  # a dict lookup in the module, not the environment
    (ValueError("bad value for MAX_SIZE"), None),
])
def test_the_variable_an_import_missed_is_named(error, name):
    assert missing_variable(error) == name


def test_the_hint_names_the_variable_and_both_config_keys():
    hint = import_hint(KeyError("LABSYNC_API_KEY"))
    assert "LABSYNC_API_KEY" in hint and "`agent.pass_env`" in hint and "`agent.env: {LABSYNC_API_KEY: ...}`" in hint
    assert import_hint(ZeroDivisionError("division by zero")) is None
