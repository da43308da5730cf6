"""The standard library's urllib, intercepted in process as httpx and requests are: a dependency-free agent or tool
that calls its model or an API with `urlopen` meets the case's faults in urllib's own errors and responses, its
model calls are recorded, and outside a case or without a matching fault its requests reach a real server on
127.0.0.1 unchanged."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from functools import partial

import pytest
from test_chaos_fakes import ANSWER, FakeUpstream

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import activate, fault_hits
from tests import builders

MESSAGES = [{"role": "system", "content": "You are a support bot."}, {"role": "user", "content": "Where is 1234?"}]
make_ctx = partial(builders.make_ctx, numbered=True)


@pytest.fixture(scope="module")
def upstream():
    with FakeUpstream() as server:
        yield server


def chat(upstream, **extra) -> dict:
    """A chat completion the way a dependency-free agent asks for one."""
    body = json.dumps({"model": "gpt-test", "messages": MESSAGES, **extra}).encode()
    request = urllib.request.Request(upstream.url + "/v1/chat/completions", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer sk-t"})
    with urllib.request.urlopen(request, timeout=5) as reply:
        return json.loads(reply.read())


def get(url: str) -> tuple[int, bytes, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.read(), dict(reply.headers.items())
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers.items())


def test_a_model_rate_limit_is_urllibs_http_error_429_with_the_providers_body(upstream):
    ctx = make_ctx({"id": "rl", "target": "llm", "mode": "rate_limit", "retry_after_s": 2})
    before = len(upstream.requests)
    with http_interception(), activate(ctx), pytest.raises(urllib.error.HTTPError) as raised:
        chat(upstream)
    assert raised.value.code == 429 and raised.value.headers["retry-after"] == "2"
    assert json.loads(raised.value.read())["error"]["code"] == "rate_limit_exceeded"
    assert fault_hits(ctx) == {"rl": 1} and len(upstream.requests) == before
    assert [call["status"] for call in ctx.llm_calls] == [429]


def test_a_model_call_without_a_fault_reaches_the_model_and_is_recorded(upstream):
    ctx = make_ctx({"id": "tool", "target": "tool", "mode": "error"})  # a fault for something else
    with http_interception(), activate(ctx):
        answer = chat(upstream)
    assert answer["choices"][0]["message"]["content"] == ANSWER
    [call] = ctx.llm_calls
    assert call["status"] == 200 and call["model"] == "gpt-test" and call["source"] == "live"
    assert upstream.requests[-1]["json"]["messages"] == MESSAGES


def test_a_truncated_model_reply_reaches_the_agent_cut(upstream):
    ctx = make_ctx({"id": "cut", "target": "llm", "mode": "truncated_response", "max_tokens": 4})
    with http_interception(), activate(ctx):
        answer = chat(upstream)
    assert answer["choices"][0]["finish_reason"] == "length"
    assert answer["choices"][0]["message"]["content"] == "Your order 1234 has"
    assert fault_hits(ctx) == {"cut": 1}


def test_http_faults_surface_as_urllibs_own_errors(upstream):
    ctx = make_ctx({"id": "down", "target": "http", "mode": "http_error", "status_code": 503, "path": "^/api/orders"},
                   {"id": "reset", "target": "http", "mode": "connection_reset", "path": "^/v1/embeddings"},
                   {"id": "slow", "target": "http", "mode": "timeout", "delay_ms": 10, "path": "^/api/slow"})
    with http_interception(), activate(ctx):
        status, body, _ = get(upstream.url + "/api/orders/9")
        with pytest.raises(urllib.error.URLError) as reset:
            urllib.request.urlopen(urllib.request.Request(upstream.url + "/v1/embeddings", data=b"{}"), timeout=5)
        with pytest.raises(TimeoutError):
            urllib.request.urlopen(upstream.url + "/api/slow", timeout=5)
    assert status == 503 and json.loads(body) == {"error": "Service Unavailable"}
    assert isinstance(reset.value.reason, ConnectionResetError)
    assert fault_hits(ctx) == {"down": 1, "reset": 1, "slow": 1}


def test_a_malformed_payload_cuts_the_real_body_and_keeps_its_headers(upstream):
    ctx = make_ctx({"id": "bad", "target": "http", "mode": "malformed_payload", "host": "127.0.0.1"})
    with http_interception(), activate(ctx):
        status, body, headers = get(upstream.url + "/api/orders/12345")
    assert status == 200 and headers["x-custom"] == "kept"
    with pytest.raises(ValueError):
        json.loads(body)
    assert b'{"order_id": "12345"'.startswith(body[:12])
    assert fault_hits(ctx) == {"bad": 1}


def test_outside_a_case_and_without_a_matching_fault_the_real_answer_passes_untouched(upstream):
    ctx = make_ctx({"id": "down", "target": "http", "mode": "http_error", "status_code": 500, "path": "^/nowhere"})
    with http_interception():
        outside = get(upstream.url + "/api/orders/7")
        with activate(ctx):
            inside = get(upstream.url + "/api/orders/7")
    assert outside[:2] == inside[:2] == (200, b'{"order_id": "7", "status": "shipped"}')
    assert inside[2]["x-custom"] == "kept" and fault_hits(ctx) == {}


def test_the_patch_is_removed_after_the_run():
    original = urllib.request.AbstractHTTPHandler.do_open
    with http_interception() as traffic:
        assert urllib.request.AbstractHTTPHandler.do_open is not original
        assert "urllib" in traffic.clients
    assert urllib.request.AbstractHTTPHandler.do_open is original
