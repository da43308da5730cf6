"""LLM faults against the real `anthropic` SDK (over httpx, intercepted in process) and an Anthropic-compatible
Messages API on 127.0.0.1: each fault reaches the SDK in Anthropic's own error shape, so it raises its own typed
errors and runs its own retries; a cut reply, JSON or streamed, ends with Anthropic's `max_tokens` stop reason."""

from __future__ import annotations

from functools import partial

import pytest
from test_llm_fakes import LlmServer

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import activate, fault_hits
from tests import builders

anthropic = pytest.importorskip("anthropic")

PROMPT = "Which trails are open above 2,000 metres?"
ANSWER = f"Echo: {PROMPT}"
make_ctx = partial(builders.make_ctx, numbered=True)


@pytest.fixture(scope="module")
def server():
    with LlmServer() as served:
        yield served


def client(server, retries: int = 0):
    return anthropic.Anthropic(api_key="sk-ant-test", base_url=server.url, max_retries=retries)


def ask(server, retries: int = 0):
    return client(server, retries).messages.create(model="claude-test", max_tokens=200,
                                                   messages=[{"role": "user", "content": PROMPT}])


def test_a_rate_limit_is_anthropics_rate_limit_error_and_the_sdk_retries_it(server):
    ctx = make_ctx({"id": "rl", "target": "llm", "mode": "rate_limit", "retry_after_s": 0.01})
    before = len(server.requests)
    with http_interception(), activate(ctx), pytest.raises(anthropic.RateLimitError) as raised:
        ask(server, retries=2)
    assert raised.value.status_code == 429 and raised.value.body["error"]["type"] == "rate_limit_error"
    assert fault_hits(ctx) == {"rl": 3} and len(server.requests) == before  # the call and two retries, answered here
    assert [call["status"] for call in ctx.llm_calls] == [429, 429, 429]


def test_an_unavailable_model_is_an_overloaded_error_and_a_timeout_the_sdks_own(server):
    down = make_ctx({"id": "down", "target": "llm", "mode": "model_unavailable"})
    with http_interception(), activate(down), pytest.raises(anthropic.APIStatusError) as raised:
        ask(server)
    assert raised.value.status_code == 503 and raised.value.body["error"]["type"] == "overloaded_error"
    slow = make_ctx({"id": "slow", "target": "llm", "mode": "timeout", "delay_ms": 10})
    with http_interception(), activate(slow), pytest.raises(anthropic.APITimeoutError):
        ask(server)
    assert fault_hits(down) == {"down": 1} and fault_hits(slow) == {"slow": 1}


def test_a_truncated_reply_stops_on_max_tokens_whole_or_streamed(server):
    ctx = make_ctx({"id": "cut", "target": "llm", "mode": "truncated_response", "max_tokens": 2})
    with http_interception(), activate(ctx):
        whole = ask(server)
        with client(server).messages.stream(model="claude-test", max_tokens=200,
                                            messages=[{"role": "user", "content": PROMPT}]) as stream:
            streamed = "".join(stream.text_stream)
            final = stream.get_final_message()
    assert whole.stop_reason == final.stop_reason == "max_tokens"
    assert ANSWER.startswith(whole.content[0].text) and len(whole.content[0].text) < len(ANSWER)
    assert ANSWER.startswith(streamed) and len(streamed) < len(ANSWER)
    assert fault_hits(ctx) == {"cut": 2}


def test_without_a_fault_the_reply_passes_unchanged_and_its_usage_is_recorded(server):
    ctx = make_ctx({"id": "tool", "target": "tool", "mode": "error"})  # a fault for something else
    with http_interception(), activate(ctx):
        reply = ask(server)
    assert reply.content[0].text == ANSWER and reply.stop_reason == "end_turn"
    [call] = ctx.llm_calls
    assert (call["provider"], call["model"], call["status"], call["source"]) == ("anthropic", "claude-test", 200,
                                                                                 "live")
    assert call["output_tokens"] == len(ANSWER.split()) and not call["tokens_estimated"]
