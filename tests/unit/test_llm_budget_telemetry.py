"""Tables: which budget limit is reached first, the thread-safe meter, and the run's telemetry summary."""

from __future__ import annotations

import threading

import pytest

from khaos_action.llm.budget import Limits, Meter, Spent, first_exhausted
from khaos_action.llm.telemetry import summarise_calls, usage_line


@pytest.mark.parametrize("limits, spent, reason", [
    (Limits(), Spent(calls=10**6, tokens=10**9, cost_usd=1e6, wall_s=1e6), None),
    (Limits(max_llm_calls=10), Spent(calls=9), None),
    (Limits(max_llm_calls=10), Spent(calls=10), "max_llm_calls 10 reached (10 live LLM calls)"),
    (Limits(max_tokens=1000), Spent(tokens=1500), "max_tokens 1,000 reached (1,500 tokens)"),
    (Limits(max_cost_usd=0.5), Spent(cost_usd=0.49), None),
    (Limits(max_cost_usd=0.5), Spent(cost_usd=0.5), "max_cost_usd $0.5 reached ($0.5000 spent)"),
    (Limits(max_wall_s=60), Spent(wall_s=61), "max_wall_s 60s reached (61.0s)"),
    (Limits(max_llm_calls=5, max_tokens=10), Spent(calls=5, tokens=10), "max_llm_calls 5 reached (5 live LLM calls)"),
])
def test_the_first_limit_reached_is_the_reason(limits, spent, reason):
    assert first_exhausted(limits, spent) == reason


def test_the_meter_counts_from_many_threads_and_its_reason_sticks():
    now = [0.0]
    meter = Meter(Limits(max_tokens=10_000, max_wall_s=100), clock=lambda: now[0])
    threads = [threading.Thread(target=lambda: [meter.add(tokens=1, cost_usd=0.001) for _ in range(1000)])
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spent = meter.spent()
    assert (spent.calls, spent.tokens) == (8000, 8000) and spent.cost_usd == pytest.approx(8.0)
    assert meter.exhausted() is None
    now[0] = 100.0
    assert meter.exhausted() == "max_wall_s 100s reached (100.0s)"
    now[0] = 0.0
    assert meter.exhausted() == "max_wall_s 100s reached (100.0s)"  # a run never becomes un-exhausted
    meter.add(tokens=0, cost_usd=None)
    assert meter.spent().unpriced_calls == 1


CALLS = [
    {"provider": "openai", "model": "gpt-4o-mini", "source": "live", "latency_ms": 100.0, "input_tokens": 10,
     "output_tokens": 5, "tokens_estimated": False, "cost_usd": 0.002},
    {"provider": "openai", "model": "gpt-4o-mini", "source": "cassette", "latency_ms": 0.2, "input_tokens": 10,
     "output_tokens": 5, "tokens_estimated": False, "cost_usd": 0.002},
    {"provider": "openai", "model": "gpt-4o-mini", "source": "fault", "latency_ms": 0.1, "input_tokens": 0,
     "output_tokens": 0, "tokens_estimated": False, "cost_usd": 0.0},
    {"provider": "anthropic", "model": "house-model", "source": "live", "latency_ms": 300.0, "input_tokens": 7,
     "output_tokens": 3, "tokens_estimated": True, "cost_usd": None},
    {"provider": "openai", "model": "gpt-4o-mini", "status": None},  # a stream nobody finished reading
]


def test_the_summary_splits_spent_from_replayed_cost_and_never_prices_the_unknown_as_free():
    summary = summarise_calls(CALLS)
    assert summary.calls == 5 and summary.by_source == {"live": 2, "cassette": 1, "fault": 1, "error": 0,
                                                        "cassette_miss": 0, "unfinished": 1}
    assert (summary.input_tokens, summary.output_tokens, summary.estimated_calls) == (27, 13, 1)
    assert summary.cost_usd == 0.002 and summary.cost_usd_replayed == 0.002
    assert summary.unpriced_models == ["house-model"]
    assert summary.latency_p50_ms == 100.0 and summary.latency_p95_ms == 300.0  # faults are not latency
    [mini, house] = summary.models
    assert (mini.model, mini.calls, mini.cost_usd) == ("gpt-4o-mini", 4, 0.004)
    assert (house.provider, house.cost_usd, house.estimated_calls) == ("anthropic", None, 1)


def test_the_usage_line_says_who_answered_and_what_was_estimated():
    line = usage_line(summarise_calls(CALLS))
    assert line == ("5 LLM calls (2 live, 1 cassette, 1 fault) · 27 in / 13 out tokens (1 calls estimated) · "
                    "p50 100 ms / p95 300 ms · $0.0020 spent ($0.0020 replayed from the cassette); "
                    "unpriced: house-model")
    assert usage_line(summarise_calls([])) == "0 LLM calls · 0 in / 0 out tokens · $0.0000 spent"
