"""examples/langgraph_support through the real engine: tool faults reach the functions inside LangChain
StructuredTool objects run by LangGraph's ToolNode, change the answer, and are restored afterwards."""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph")

from khaos_action.engine.code_ref import find_loaded_module
from tests.integration.test_examples_helpers import (
    EXAMPLES,
    assert_scores_reported,
    contract_case,
    invariant,
    run_example,
)

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

WHERE = "Where is my order 1234?"
CANADA = "Do you ship to Canada?"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    return run_example("langgraph_support", tmp_path_factory.mktemp("langgraph") / "run")


def test_every_configured_fault_fires_inside_the_graph(run):
    counts = run.manifest.counts
    assert counts.faults_configured == counts.faults_fired > 0
    assert not [w for w in run.manifest.warnings if "no call reached" in w]


def test_an_unreachable_order_api_turns_the_real_answer_into_an_honest_one(run):
    clean = contract_case(run.manifest, "no-chaos", WHERE)
    down = contract_case(run.manifest, "order-api-unreachable", WHERE)
    assert "DH48213377" in clean.output
    assert down.output != clean.output and "sorry" in down.output.lower() and "DH48213377" not in down.output
    # ConnectionError is not worth a retry to this model: one call, raised by the wrapper inside the StructuredTool.
    assert [(c["name"], c["error"]) for c in down.tool_calls] == \
        [("lookup_order", "ConnectionError: order service unreachable")]
    assert invariant(down, "no-made-up-tracking-when-orders-fail") is True


def test_an_empty_help_centre_answer_and_a_slow_one_change_behaviour(run):
    clean = contract_case(run.manifest, "no-chaos", CANADA)
    empty = contract_case(run.manifest, "help-centre-empty", CANADA)
    slow = contract_case(run.manifest, "help-centre-slow", CANADA)
    assert "Canada" in clean.output and "can't reach our help centre" in empty.output
    assert slow.output == clean.output and slow.latency_ms >= 400 > clean.latency_ms
    assert invariant(clean, "answers-within-300-ms") is True
    assert invariant(slow, "answers-within-300-ms") is False


def test_mutation_and_replay_pillars_score_on_the_langgraph_agent(run):
    mutated = [c for c in run.manifest.cases if c.pillar == "mutation"]
    assert len({c.mutation for c in mutated}) >= 4
    replayed = {c.input: c for c in run.manifest.cases if c.pillar == "replay"}
    assert "GL77120044" in replayed["Where is my order 4711?"].output
    down = replayed[CANADA]
    assert down.fault_hits == {"replay:search_docs": 2}  # the 502 was retried once, both answered from the recording
    assert "sorry" in down.output.lower()
    assert_scores_reported(run, ("overall", "mutation", "chaos", "contract", "replay"))


def test_the_agent_ran_in_its_worker_and_never_in_the_actions_own_process(run):
    # The tools were wrapped (and faulted) inside the worker; our process never imported the agent. Restoring
    # wrapped references is the ToolPatcher's own promise (tests/integration/test_chaos_tools.py).
    assert find_loaded_module((EXAMPLES / "langgraph_support" / "agent.py").resolve()) is None
