"""LLM telemetry and the cassette on intercepted calls: the real openai SDK (httpx2), httpx sync/async, requests and
the chaos proxy, against the real LLM server of test_llm_fakes on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path

import httpx
import openai
import pytest
import requests
from test_llm_fakes import LlmServer

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import activate, fault_hits
from khaos_action.engine.chaos.proxy import ChaosProxy
from khaos_action.engine.context import CaseContext
from khaos_action.engine.llm_calls import LlmRuntime
from khaos_action.llm.budget import Limits, Meter
from khaos_action.llm.cassette import Cassette
from tests import builders

ASK = [{"role": "user", "content": "where is my order"}]


@pytest.fixture(scope="module")
def server():
    with LlmServer() as running:
        yield running


make_ctx = partial(builders.make_ctx, seed=5)


def sdk(server: LlmServer, **kw) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test-SECRET-0123456789", base_url=server.url + "/v1", **kw)


def test_a_chat_completion_is_recorded_with_metered_tokens_latency_and_cost(server):
    ctx = make_ctx()
    with http_interception(), activate(ctx):
        reply = sdk(server).chat.completions.create(model="gpt-4o-mini", messages=ASK)
    assert reply.choices[0].message.content == "Echo: where is my order"
    [call] = ctx.llm_calls
    assert call["provider"] == "openai" and call["model"] == "gpt-4o-mini" and call["status"] == 200
    assert (call["input_tokens"], call["output_tokens"], call["tokens_estimated"]) == (14, 5, False)
    assert call["source"] == "live" and call["fault"] is None and call["latency_ms"] > 0
    assert call["cost_usd"] == pytest.approx((14 * 0.15 + 5 * 0.60) / 1e6)


def test_streamed_usage_is_read_from_the_last_chunk_without_changing_what_the_sdk_sees(server):
    ctx = make_ctx()
    with http_interception(), activate(ctx):
        chunks = list(sdk(server).chat.completions.create(model="gpt-4o", messages=ASK, stream=True,
                                                          stream_options={"include_usage": True}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Echo: where is my order"
    [call] = ctx.llm_calls
    assert call["stream"] is True and (call["input_tokens"], call["output_tokens"]) == (14, 5)
    assert call["tokens_estimated"] is False


def test_without_a_usage_block_tokens_are_estimated_and_marked_so(server):
    ctx = make_ctx()
    with http_interception(), activate(ctx):
        list(sdk(server).chat.completions.create(model="no-usage-model", messages=ASK, stream=True))
    [call] = ctx.llm_calls
    assert call["tokens_estimated"] is True
    assert call["input_tokens"] == 5  # "where is my order" = 17 characters ≈ 5 tokens
    assert call["output_tokens"] == 6  # "Echo: where is my order"
    assert call["cost_usd"] is None  # an unknown model is unpriced, never free


def test_responses_api_and_anthropic_messages_streams_report_their_usage(server):
    ctx = make_ctx()

    async def anthropic_stream() -> str:
        body = {"model": "claude-3-5-haiku-20241022", "max_tokens": 50, "stream": True, "messages": ASK}
        async with httpx.AsyncClient() as client, client.stream(
                "POST", server.url + "/v1/messages", headers={"x-api-key": "sk-ant-xyz123"}, json=body) as response:
            return (await response.aread()).decode()

    with http_interception(), activate(ctx):
        streamed = sdk(server).responses.create(model="gpt-4.1-mini", input="hello there", stream=True)
        texts = [e.delta for e in streamed if e.type == "response.output_text.delta"]
        text = asyncio.run(anthropic_stream())
    assert texts == ["Echo: hello there"] and "message_stop" in text
    responses, messages = ctx.llm_calls
    assert (responses["input_tokens"], responses["output_tokens"]) == (12, 3)
    assert messages["provider"] == "anthropic" and (messages["input_tokens"], messages["output_tokens"]) == (14, 5)
    assert messages["cost_usd"] == pytest.approx((14 * 0.80 + 5 * 4.00) / 1e6)


def test_gzip_replies_and_the_requests_library_are_measured_too():
    with LlmServer(gzip_replies=True) as zipped:
        ctx = make_ctx()
        with http_interception(), activate(ctx):
            first = httpx.post(zipped.url + "/v1/chat/completions", json={"model": "gpt-4o-mini", "messages": ASK})
            second = requests.post(zipped.url + "/v1/chat/completions", timeout=5,
                                   json={"model": "gpt-4o-mini", "messages": ASK})
        assert first.headers["content-encoding"] == "gzip" and first.json() == second.json()
    assert [(c["input_tokens"], c["output_tokens"], c["tokens_estimated"]) for c in ctx.llm_calls] == \
        [(14, 5, False), (14, 5, False)]


def test_a_call_answered_by_a_fault_costs_nothing_and_names_the_fault(server):
    ctx = make_ctx({"id": "429", "target": "llm", "mode": "rate_limit", "retry_after_s": 0})
    with http_interception(), activate(ctx), pytest.raises(openai.RateLimitError):
        sdk(server, max_retries=1).chat.completions.create(model="gpt-4o-mini", messages=ASK)
    assert [(c["fault"], c["source"], c["status"], c["input_tokens"]) for c in ctx.llm_calls] == \
        [("429", "fault", 429, 0)] * 2


def test_record_then_replay_without_the_server_gives_the_same_answers(tmp_path: Path):
    recorded = make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, "record")))
    with LlmServer() as live:
        base = live.url + "/v1"
        with http_interception(), activate(recorded):
            first = sdk(live).chat.completions.create(model="gpt-4o-mini", messages=ASK).model_dump()
            streamed = [c.model_dump() for c in sdk(live).chat.completions.create(
                model="gpt-4o-mini", messages=ASK, stream=True, stream_options={"include_usage": True})]
            again = sdk(live).chat.completions.create(model="gpt-4o-mini", messages=ASK).model_dump()
        reached = len(live.requests)
    assert reached == 2  # the repeat within the run is answered from what was just recorded
    assert again == first and len(list(tmp_path.glob("gpt-4o-mini-*.json"))) == 2

    replayed = make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, "replay")))
    with http_interception(), activate(replayed):
        client = openai.OpenAI(api_key="sk-other", base_url=base, max_retries=0)  # nothing listens there now
        assert client.chat.completions.create(model="gpt-4o-mini", messages=ASK).model_dump() == first
        assert [c.model_dump() for c in client.chat.completions.create(
            model="gpt-4o-mini", messages=ASK, stream=True, stream_options={"include_usage": True})] == streamed
    assert [c["source"] for c in replayed.llm_calls] == ["cassette", "cassette"]
    assert [c["input_tokens"] for c in replayed.llm_calls] == [14, 14] and replayed.error is None


def test_a_replay_miss_fails_the_case_naming_the_request_and_never_goes_live(tmp_path: Path, server):
    ctx = make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, "replay")))
    before = len(server.requests)
    with http_interception(), activate(ctx), pytest.raises(openai.APIStatusError) as raised:
        sdk(server, max_retries=2).chat.completions.create(model="gpt-4o-mini", messages=ASK)
    assert raised.value.status_code == 502 and len(server.requests) == before
    assert len(ctx.llm_calls) == 1  # told not to retry
    assert ctx.error.startswith("llm_cache replay miss: POST /v1/chat/completions model=gpt-4o-mini")


def test_faults_still_apply_on_top_of_replayed_replies(tmp_path: Path, server):
    with http_interception():
        with activate(make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, "record")))):
            sdk(server).chat.completions.create(model="gpt-4o-mini", messages=ASK)
        ctx = make_ctx({"id": "cut", "target": "llm", "mode": "truncated_response", "max_tokens": 2},
                       llm=LlmRuntime(cassette=Cassette(tmp_path, "replay")))
        with activate(ctx):
            reply = sdk(server).chat.completions.create(model="gpt-4o-mini", messages=ASK)
    assert reply.choices[0].finish_reason == "length" and reply.choices[0].message.content == "Echo: where"
    assert fault_hits(ctx) == {"cut": 1} and ctx.llm_calls[0]["source"] == "cassette"


def test_credentials_are_never_written_into_a_cassette(tmp_path: Path):
    with LlmServer(leak_key=True) as leaky:
        ctx = make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, "auto")))
        with http_interception(), activate(ctx):
            sdk(leaky).chat.completions.create(model="gpt-4o-mini", messages=ASK)
            httpx.post(leaky.url + "/v1/chat/completions?key=AIzaQUERYSECRET99&api-version=2024", headers={
                "api-key": "azure-SECRET-777"}, json={"model": "gpt-4o-mini", "messages": ASK})
    written = "".join(p.read_text() for p in tmp_path.glob("*.json"))
    assert "[REDACTED]" in written  # the server echoed the bearer token into its answer
    for secret in ("sk-test-SECRET-0123456789", "AIzaQUERYSECRET99", "azure-SECRET-777", "authorization"):
        assert secret not in written.lower() if secret == "authorization" else secret not in written
    assert '"endpoint": "/v1/chat/completions?api-version=2024"' in written
    assert all("key=" not in c["url"] for c in ctx.llm_calls)


def test_volatile_fields_do_not_change_the_cassette_key(tmp_path: Path, server):
    with http_interception():
        with activate(make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, "record")))):
            sdk(server).chat.completions.create(model="gpt-4o-mini", messages=ASK, user="alice")
        replay = make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, "replay")))
        with activate(replay):
            sdk(server).chat.completions.create(model="gpt-4o-mini", messages=ASK, user="bob")
            with pytest.raises(openai.APIStatusError):
                sdk(server, max_retries=0).chat.completions.create(model="gpt-4o-mini", messages=ASK, temperature=0)
    assert [c["source"] for c in replay.llm_calls] == ["cassette", "cassette_miss"]


def test_live_calls_feed_the_budget_meter_and_replays_do_not(tmp_path: Path, server):
    meter = Meter(Limits(max_llm_calls=2))
    runtime = LlmRuntime(cassette=Cassette(tmp_path, "auto"), meter=meter)
    with http_interception(), activate(make_ctx(llm=runtime)):
        for _ in range(3):
            sdk(server).chat.completions.create(model="gpt-4o-mini", messages=ASK)
        assert meter.exhausted() is None  # one live call, two replays
        sdk(server).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "other"}])
    assert meter.spent().calls == 2 and meter.spent().tokens == 19 + 13
    assert meter.exhausted() == "max_llm_calls 2 reached (2 live LLM calls)"
    assert len(runtime.calls) == 4


def test_the_chaos_proxy_records_and_replays_for_agents_in_other_processes(tmp_path: Path):
    body = {"model": "gpt-4o-mini", "messages": ASK}

    async def through_proxy(upstream: str, mode: str, stream: bool = False) -> tuple[CaseContext, str]:
        proxy = ChaosProxy()
        await proxy.start()
        try:
            ctx = make_ctx(llm=LlmRuntime(cassette=Cassette(tmp_path, mode)))
            proxy.bind(0, ctx)
            async with httpx.AsyncClient() as client:
                response = await client.post(proxy.url_for(upstream, 0) + "/chat/completions",
                                             json={**body, "stream": stream})
            return ctx, response.text
        finally:
            await proxy.stop()

    with LlmServer(gzip_replies=True) as live:
        upstream = live.url + "/v1"
        recorded, text = asyncio.run(through_proxy(upstream, "record"))
        recorded_stream, streamed = asyncio.run(through_proxy(upstream, "record", stream=True))
    replayed, again = asyncio.run(through_proxy(upstream, "replay"))
    replayed_stream, streamed_again = asyncio.run(through_proxy(upstream, "replay", stream=True))
    assert json.loads(again) == json.loads(text) and streamed_again == streamed
    assert recorded.llm_calls[0]["input_tokens"] == 14 and recorded.llm_calls[0]["source"] == "live"
    assert recorded_stream.llm_calls[0]["tokens_estimated"] is True  # no include_usage: estimated from the text
    assert [replayed.llm_calls[0]["source"], replayed_stream.llm_calls[0]["source"]] == ["cassette", "cassette"]
    assert replayed.error is None and replayed_stream.error is None
