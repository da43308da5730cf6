"""examples/openai_sdk_agent through the real engine: LLM faults reach the real `openai` SDK (its retry and typed
errors run on the injected 429/503/cut replies from a local OpenAI-compatible server) and change the answer; a
tool fault reaches a function the agent keeps in a dict."""

from __future__ import annotations

import pytest

pytest.importorskip("openai")

from tests.integration.test_examples_helpers import (
    assert_scores_reported,
    contract_case,
    invariant,
    run_example,
)

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

WHERE = "Where is my order 1234?"
RETURNS = "What is your return policy?"
APOLOGY = "I'm sorry, I'm having trouble answering right now. Please try again in a minute."


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    return run_example("openai_sdk_agent", tmp_path_factory.mktemp("openai_sdk") / "run")


def test_without_faults_the_model_answers_from_the_tool_over_two_real_completions(run):
    clean = contract_case(run.manifest, "no-chaos", WHERE)
    assert clean.output == "Your order 1234 is shipped with DHL (tracking DH48213377), expected Thursday."
    assert [(c["status"], c["source"]) for c in clean.llm_calls] == [(200, "live"), (200, "live")]


@pytest.mark.parametrize("scenario, status", [("model-rate-limited", 429), ("model-unavailable", 503)])
def test_provider_errors_reach_the_sdk_which_retries_once_and_then_the_agent_apologises(run, scenario, status):
    for prompt in (WHERE, RETURNS):
        case = contract_case(run.manifest, scenario, prompt)
        # max_retries=1: the SDK's own retry sent a second request, and the fault answered both.
        assert [c["status"] for c in case.llm_calls] == [status, status]
        assert sum(case.fault_hits.values()) == 2
        assert case.output == APOLOGY
        assert case.tool_calls == []  # the model never got to ask for a tool
        assert invariant(case, "honest-when-the-model-fails") is True
        assert invariant(case, "same-answer-when-the-model-degrades") is False


def test_a_completion_cut_for_length_is_replaced_by_the_tool_facts(run):
    clean = contract_case(run.manifest, "no-chaos", WHERE)
    cut = contract_case(run.manifest, "model-cut-after-tool-call", WHERE)
    assert [c["fault"] is not None for c in cut.llm_calls] == [False, True]  # after_calls: 1 spared the tool call
    assert cut.output != clean.output
    assert cut.output.startswith("Our assistant is unavailable") and "DH48213377" in cut.output


def test_a_tool_fault_reaches_the_function_held_in_the_agents_tool_dict(run):
    down = contract_case(run.manifest, "order-api-down", WHERE)
    assert [(c["name"], c["error"]) for c in down.tool_calls] == [
        ("lookup_order", "ToolFaultError: 503 Service Unavailable")
    ]
    assert "not responding" in down.output and "DH48213377" not in down.output
    assert invariant(down, "no-made-up-tracking-when-orders-fail") is True
    untouched = contract_case(run.manifest, "order-api-down", RETURNS)
    assert untouched.passed is None and untouched.fault_hits == {}  # search_docs only: not exercised


def test_contract_score_is_reported_and_the_gate_passes(run):
    assert run.manifest.counts.faults_fired == run.manifest.counts.faults_configured == 4
    assert_scores_reported(run, ("overall", "contract"))
    assert run.manifest.scores.mutation is None and run.manifest.verdict.passed
