"""aiohttp client sessions meet the same faults as httpx/requests (a real server on 127.0.0.1, a real
ClientSession), and the run's Traffic says which clients were patched and which calls were seen."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest
from test_chaos_fakes import FakeUpstream

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import fault_hits
from tests import builders
from tests.builders import in_case

aiohttp = pytest.importorskip("aiohttp")


@pytest.fixture(scope="module")
def upstream():
    with FakeUpstream() as server:
        yield server


make_ctx = partial(builders.make_ctx, numbered=True)


async def get_order(base: str, order: str = "1234") -> tuple[int, str]:
    async with aiohttp.ClientSession(base_url=base) as session:
        async with session.get(f"/api/orders/{order}") as response:
            return response.status, await response.text()


def test_http_error_fault_answers_an_aiohttp_session_with_a_real_client_response(upstream):
    ctx = make_ctx({"id": "down", "target": "http", "mode": "http_error", "status_code": 503, "path": "^/api/orders"})
    before = len(upstream.requests)
    with http_interception():
        status, text = in_case(ctx, get_order, upstream.url)

        async def raising():
            async with aiohttp.ClientSession() as session:
                async with session.get(upstream.url + "/api/orders/1") as response:
                    response.raise_for_status()

        with pytest.raises(aiohttp.ClientResponseError) as raised:
            in_case(ctx, raising)
    assert (status, text) == (503, '{"error": "Service Unavailable"}')
    assert raised.value.status == 503
    assert fault_hits(ctx) == {"down": 2} and len(upstream.requests) == before  # never reached the server


def test_timeout_and_reset_raise_aiohttps_own_exceptions(upstream):
    with http_interception():
        with pytest.raises(asyncio.TimeoutError):  # aiohttp.ServerTimeoutError is one
            in_case(make_ctx({"id": "t", "target": "http", "mode": "timeout", "delay_ms": 1}), get_order,
                        upstream.url)
        with pytest.raises(aiohttp.ClientOSError):
            in_case(make_ctx({"id": "r", "target": "http", "mode": "connection_reset"}), get_order, upstream.url)


def test_malformed_payload_cuts_the_real_body_and_counts_one_hit(upstream):
    ctx = make_ctx({"id": "cut", "target": "http", "mode": "malformed_payload"})

    async def as_json():
        async with aiohttp.ClientSession() as session:
            async with session.get(upstream.url + "/api/orders/77") as response:
                return await response.json()

    with http_interception():
        with pytest.raises(ValueError):
            in_case(ctx, as_json)
    assert fault_hits(ctx) == {"cut": 1}


def test_untouched_calls_pass_through_and_are_seen_with_their_client(upstream):
    ctx = make_ctx({"id": "elsewhere", "target": "http", "mode": "http_error", "host": "api.tavily.com"})
    with http_interception() as traffic:
        assert in_case(ctx, get_order, upstream.url) == (200, '{"order_id": "1234", "status": "shipped"}')
        asyncio.run(get_order(upstream.url))  # outside any case: neither faulted nor counted
    assert fault_hits(ctx) == {}
    assert "aiohttp" in traffic.clients and "httpx" in traffic.clients
    assert traffic.seen == {("aiohttp", "GET", "127.0.0.1", "/api/orders/1234"): 1}


def test_outside_the_block_aiohttp_is_untouched():
    original = aiohttp.ClientSession._request
    with http_interception():
        assert aiohttp.ClientSession._request is not original
    assert aiohttp.ClientSession._request is original


async def chat(base: str) -> tuple[int, dict]:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Where is 1234?"}]}
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{base}/v1/chat/completions", json=body,
                                headers={"authorization": "Bearer sk-test"}) as response:
            return response.status, await response.json()


def test_llm_calls_over_aiohttp_are_recorded_and_meet_llm_faults(upstream):
    clean = make_ctx()
    limited = make_ctx({"id": "429", "target": "llm", "mode": "rate_limit", "retry_after_s": 1})
    with http_interception():
        status, answer = in_case(clean, chat, upstream.url)
        limited_status, error = in_case(limited, chat, upstream.url)
    assert status == 200 and answer["choices"][0]["message"]["content"]
    [call] = clean.llm_calls
    assert (call["status"], call["fault"], call["source"]) == (200, None, "live") and call["output_tokens"] > 0
    assert limited_status == 429 and "rate limit" in str(error).lower()
    assert fault_hits(limited) == {"429": 1} and limited.llm_calls[0]["status"] == 429
