"""An entry that is an object we cannot call gets the agent type that runs it, asked of every framework adapter: each
one imports its framework (real packages; importing LiteLLM, through CrewAI and Google ADK, may fetch its model price
list from the network). The other hints: tests/unit/test_engine_hints.py."""

from __future__ import annotations

import pytest

from khaos_action.engine.hints import RECIPE, object_hint
from khaos_action.transports import framework_types

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command


class Pipeline:
    def run(self, text: str) -> str:
        return text


def test_an_unknown_object_gets_the_registered_types_and_the_recipe():
    hint = object_hint(Pipeline())
    assert "test_engine_hints_frameworks.Pipeline is no agent object khaos-action runs itself" in hint
    assert all(f"`type: {name}`" in hint for name in framework_types()) and RECIPE in hint


def test_a_frameworks_own_object_is_pointed_at_its_type():
    graph_module = pytest.importorskip("langgraph.graph")
    builder = graph_module.StateGraph(dict)
    builder.add_node("echo", lambda state: state)
    builder.set_entry_point("echo")
    hint = object_hint(builder.compile())
    assert hint.startswith("it is a langgraph agent") and "set `type: langgraph`" in hint
