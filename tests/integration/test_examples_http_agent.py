"""examples/http_agent through the real engine: two agent server processes started from `start` with `{{port}}`,
whose model and orders API calls go through the chaos proxy (`{{ llm_proxy }}`, `{{ proxy(...) }}`); LLM and
HTTP faults fire per case and change the answers."""

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
CANADA = "Do you ship to Canada?"
BACKEND_PORT = 18931  # examples/http_agent/backend.py


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    return run_example("http_agent", tmp_path_factory.mktemp("http_agent") / "run")


def test_the_agents_model_calls_go_through_the_chaos_proxy(run):
    clean = contract_case(run.manifest, "no-chaos", WHERE)
    assert clean.output.startswith("Thanks for reaching out! Order 1234 is shipped with DHL (tracking DH48213377)")
    assert [(c["status"], c["source"], c["model"]) for c in clean.llm_calls] == [(200, "live", "support-writer")]
    assert not [w for w in run.manifest.warnings if "one at a time" in w]  # {{port}}: instances ran in parallel


def test_a_rate_limited_model_is_retried_once_then_the_agent_sends_its_facts_unpolished(run):
    clean = contract_case(run.manifest, "no-chaos", WHERE)
    limited = contract_case(run.manifest, "model-rate-limited", WHERE)
    assert [c["status"] for c in limited.llm_calls] == [429, 429]
    assert sum(limited.fault_hits.values()) == 2
    assert limited.output == "Order 1234 is shipped with DHL (tracking DH48213377), expected Thursday."
    assert limited.output != clean.output
    assert invariant(clean, "polished-by-the-model") is True
    assert invariant(limited, "polished-by-the-model") is False


def test_a_truncated_completion_is_not_sent_to_the_customer(run):
    cut = contract_case(run.manifest, "model-truncated", CANADA)
    assert cut.faults_fired and cut.output.startswith("We ship to the US, Canada")


@pytest.mark.parametrize("scenario", ["orders-api-500", "orders-api-slow"])
def test_orders_api_faults_reach_the_agents_http_client_and_make_it_say_it_cannot_check(run, scenario):
    case = contract_case(run.manifest, scenario, WHERE)
    assert sum(case.fault_hits.values()) == 1
    assert "not responding" in case.output and "DH48213377" not in case.output
    assert invariant(case, "answers-from-live-order-data") is False
    assert invariant(case, "no-tracking-number-while-orders-are-down") is True
    if scenario == "orders-api-slow":
        assert case.latency_ms >= 1000  # the agent's own 1 s client timeout, not the 1.5 s injected delay
    untouched = contract_case(run.manifest, scenario, CANADA)
    assert untouched.fault_hits == {} and untouched.passed is None  # no orders call: not exercised


def test_every_fault_fires_and_the_contract_score_is_reported(run):
    counts = run.manifest.counts
    assert counts.faults_fired == counts.faults_configured == 4
    assert_scores_reported(run, ("overall", "contract"))
    assert run.manifest.verdict.passed


def test_the_agent_processes_and_their_backend_are_stopped_after_the_run(run):
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", BACKEND_PORT))  # raises if an agent instance still serves the backend
