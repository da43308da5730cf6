"""Tables: token usage read from each provider's reply shape (JSON and streams), estimates, and prices."""

from __future__ import annotations

import json

import pytest

from khaos_action.llm.pricing import PRICES, Price, cost_usd, price_for
from khaos_action.llm.usage import Usage, call_usage, estimate_tokens, parse_body


def sse(*events: dict, done: bool = True) -> bytes:
    text = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    return (text + ("data: [DONE]\n\n" if done else "")).encode()


REQUEST = {"model": "m", "messages": [{"role": "system", "content": "Be brief."},
                                      {"role": "user", "content": "Where is my order?"}]}


@pytest.mark.parametrize("body, content_type, expected", [
    (json.dumps({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 7}}).encode(),
     "application/json", Usage(12, 7, False)),
    (json.dumps({"object": "response", "usage": {"input_tokens": 30, "output_tokens": 4}}).encode(),
     "application/json", Usage(30, 4, False)),
    (json.dumps({"type": "message", "usage": {"input_tokens": 9, "cache_read_input_tokens": 100,
                                              "cache_creation_input_tokens": 1, "output_tokens": 3}}).encode(),
     "application/json", Usage(110, 3, False)),
    (json.dumps({"object": "list", "data": [], "usage": {"prompt_tokens": 8, "total_tokens": 8}}).encode(),
     "application/json", Usage(8, 0, False)),
    (sse({"choices": [{"delta": {"content": "Hi"}}]}, {"choices": [], "usage": {"prompt_tokens": 5,
                                                                             "completion_tokens": 1}}),
     "text/event-stream", Usage(5, 1, False)),
    (sse({"type": "message_start", "message": {"usage": {"input_tokens": 21, "output_tokens": 1}}},
         {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "Hello"}},
         {"type": "message_delta", "usage": {"output_tokens": 15}}, done=False),
     "text/event-stream", Usage(21, 15, False)),
    (sse({"type": "response.output_text.delta", "delta": "Hi"},
         {"type": "response.completed", "response": {"usage": {"input_tokens": 40, "output_tokens": 2}}}),
     "text/event-stream; charset=utf-8", Usage(40, 2, False)),
])
def test_usage_is_read_from_every_provider_shape(body, content_type, expected):
    assert call_usage(REQUEST, parse_body(body, content_type)) == expected


def test_without_usage_both_sides_are_estimated_from_their_text_only():
    body = sse({"choices": [{"delta": {"role": "assistant", "content": ""}}]},
               {"choices": [{"delta": {"content": "Your order has shipped."}, "finish_reason": "stop"}]})
    usage = call_usage(REQUEST, parse_body(body, "text/event-stream"))
    # "Be brief." + "Where is my order?" = 27 chars; "Your order has shipped." = 23 chars; roles are not text
    assert usage == Usage(7, 6, True)


def test_an_unreadable_body_estimates_the_request_and_no_output():
    assert call_usage(REQUEST, parse_body(b"<html>502</html>", "text/html")) == Usage(7, 0, True)
    assert estimate_tokens("") == 0 and estimate_tokens("abcde") == 2


@pytest.mark.parametrize("model, expected", [
    ("gpt-4o-mini", PRICES["gpt-4o-mini"]),
    ("gpt-4o-mini-2024-07-18", PRICES["gpt-4o-mini"]),  # longest prefix, not gpt-4o
    ("gpt-4o-2024-08-06", PRICES["gpt-4o"]),
    ("openai/gpt-4.1-nano", PRICES["gpt-4.1-nano"]),
    ("claude-3-5-haiku-20241022", PRICES["claude-3-5-haiku"]),
    ("claude-sonnet-4-20250514", PRICES["claude-sonnet-4"]),
    ("GPT-4O", PRICES["gpt-4o"]),
    ("gpt-4.5-preview", None),  # not gpt-4: a version is not a snapshot suffix
    ("gpt-4omni", None),
    ("llama3", None),
    (None, None),
])
def test_models_find_their_price_by_exact_name_or_snapshot_prefix(model, expected):
    assert price_for(model) == expected


def test_config_prices_override_and_extend_the_table():
    overrides = {"gpt-4o": Price(1.0, 2.0), "my-model": Price(0.5, 0.0)}
    assert price_for("gpt-4o-2024-08-06", overrides) == Price(1.0, 2.0)
    assert price_for("my-model-v2", overrides) == Price(0.5, 0.0)
    assert price_for("gpt-4o-mini", overrides) == PRICES["gpt-4o-mini"]  # built-in longer prefix still applies


def test_cost_is_per_million_tokens_and_none_without_a_price():
    assert cost_usd(Price(2.5, 10.0), 1_000_000, 500_000) == pytest.approx(7.5)
    assert cost_usd(None, 10, 10) is None
