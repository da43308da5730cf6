"""examples/command_agent through the real engine: two long-lived JSON-lines processes whose model calls go
through the chaos proxy (`OPENAI_BASE_URL: "{{ llm_proxy }}"`); LLM faults fire per case and change the answers;
mutation runs on an out-of-process agent."""

from __future__ import annotations

import socket

import pytest

from tests.integration.test_examples_helpers import (
    assert_scores_reported,
    contract_case,
    invariant,
    run_example,
)

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

WHERE = "Where is my order 1234?"
FACTS = "Order 1234 shipped with DHL (tracking DH48213377) and should arrive Thursday."
MODEL_PORT = 18941  # examples/command_agent/model_backend.py


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    return run_example("command_agent", tmp_path_factory.mktemp("command_agent") / "run")


def test_without_faults_the_model_writes_the_reply_through_the_proxy(run):
    clean = contract_case(run.manifest, "no-chaos", WHERE)
    assert clean.output == f"Happy to help! {FACTS} Have a great day."
    assert [(c["status"], c["source"]) for c in clean.llm_calls] == [(200, "live")]


@pytest.mark.parametrize("scenario, statuses", [
    ("model-unavailable", [503]),
    ("model-timeout", [504]),  # the proxy held the request, then answered a gateway timeout
    ("model-garbage", [200]),  # a 200 whose body is random bytes
])
def test_model_faults_reach_the_child_process_through_the_proxy_and_it_sends_plain_facts(run, scenario, statuses):
    case = contract_case(run.manifest, scenario, WHERE)
    assert [c["status"] for c in case.llm_calls] == statuses
    assert all(c["fault"] for c in case.llm_calls) and sum(case.fault_hits.values()) == len(statuses)
    assert case.output == FACTS
    assert invariant(case, "polished-by-the-model") is False
    assert invariant(case, "keeps-the-facts") is True


def test_mutated_prompts_run_through_the_golden_invariants(run):
    mutated = [c for c in run.manifest.cases if c.pillar == "mutation"]
    assert len({c.mutation for c in mutated}) == 6 and len(mutated) == 12
    assert all(c.fault_hits == {} and c.output.startswith("Happy to help!") for c in mutated)


def test_scores_are_reported_and_the_processes_are_stopped_after_the_run(run):
    assert run.manifest.counts.faults_fired == run.manifest.counts.faults_configured == 3
    assert_scores_reported(run, ("overall", "contract", "mutation"))
    assert run.manifest.verdict.passed
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", MODEL_PORT))  # raises if an agent process still serves the model
