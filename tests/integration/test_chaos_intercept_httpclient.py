"""The standard library's http.client used directly, intercepted as urllib is: a dependency-free agent or tool that
talks to its model or an API through `HTTPConnection` meets the case's faults as real `HTTPResponse`s and the
socket's own errors, its model calls are recorded, and a request urllib or requests makes (over the same
connection classes or subclasses of them) is decided once, not twice."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from functools import partial
from urllib.parse import urlsplit

import pytest
import requests
from test_chaos_fakes import ANSWER, FakeUpstream

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import activate, fault_hits
from tests import builders

MESSAGES = [{"role": "user", "content": "Where is 1234?"}]
make_ctx = partial(builders.make_ctx, numbered=True)


@pytest.fixture(scope="module")
def upstream():
    with FakeUpstream() as server:
        yield server


def call(upstream, method: str, path: str, body: bytes | None = None,
         headers: dict | None = None) -> http.client.HTTPResponse:
    parts = urlsplit(upstream.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    connection.request(method, path, body=body, headers=headers or {})
    return connection.getresponse()


def chat(upstream) -> http.client.HTTPResponse:
    body = json.dumps({"model": "gpt-test", "messages": MESSAGES}).encode()
    return call(upstream, "POST", "/v1/chat/completions", body,
                {"Content-Type": "application/json", "Authorization": "Bearer sk-t"})


def test_an_api_fault_is_a_real_http_response_and_the_server_is_never_asked(upstream):
    ctx = make_ctx({"id": "down", "target": "http", "mode": "http_error", "status_code": 503, "path": "^/api/orders"})
    before = len(upstream.requests)
    with http_interception(), activate(ctx):
        reply = call(upstream, "GET", "/api/orders/9")
        assert isinstance(reply, http.client.HTTPResponse)
        status, body = reply.status, reply.read()
    assert status == 503 and reply.reason == "Service Unavailable"
    assert json.loads(body) == {"error": "Service Unavailable"}
    assert len(upstream.requests) == before and fault_hits(ctx) == {"down": 1}


def test_a_timeout_and_a_reset_are_the_sockets_own_errors(upstream):
    ctx = make_ctx({"id": "slow", "target": "http", "mode": "timeout", "delay_ms": 10, "path": "^/api/slow"},
                   {"id": "reset", "target": "http", "mode": "connection_reset", "path": "^/v1/embeddings"})
    with http_interception(), activate(ctx):
        with pytest.raises(TimeoutError):
            call(upstream, "GET", "/api/slow")
        with pytest.raises(ConnectionResetError):
            call(upstream, "POST", "/v1/embeddings", b"{}")
    assert fault_hits(ctx) == {"slow": 1, "reset": 1}


def test_a_model_call_is_recorded_and_a_rate_limit_carries_the_providers_answer(upstream):
    live = make_ctx({"id": "tool", "target": "tool", "mode": "error"})  # a fault for something else
    with http_interception(), activate(live):
        answer = json.loads(chat(upstream).read())
    assert answer["choices"][0]["message"]["content"] == ANSWER
    [recorded] = live.llm_calls
    assert recorded["status"] == 200 and recorded["model"] == "gpt-test" and recorded["source"] == "live"

    limited = make_ctx({"id": "rl", "target": "llm", "mode": "rate_limit", "retry_after_s": 2})
    with http_interception(), activate(limited):
        reply = chat(upstream)
        body = json.loads(reply.read())
    assert reply.status == 429 and reply.getheader("retry-after") == "2"
    assert body["error"]["code"] == "rate_limit_exceeded"
    assert fault_hits(limited) == {"rl": 1} and [c["status"] for c in limited.llm_calls] == [429]


def test_a_malformed_payload_cuts_the_real_body_and_keeps_its_headers(upstream):
    ctx = make_ctx({"id": "bad", "target": "http", "mode": "malformed_payload", "host": "127.0.0.1"})
    with http_interception(), activate(ctx):
        reply = call(upstream, "GET", "/api/orders/12345")
        body = reply.read()
    assert reply.status == 200 and reply.getheader("x-custom") == "kept"
    with pytest.raises(ValueError):
        json.loads(body)
    assert fault_hits(ctx) == {"bad": 1}


def test_outside_a_case_and_without_a_matching_fault_the_real_answer_passes_untouched(upstream):
    ctx = make_ctx({"id": "down", "target": "http", "mode": "http_error", "status_code": 500, "path": "^/nowhere"})
    with http_interception():
        outside = call(upstream, "GET", "/api/orders/7")
        outside = (outside.status, outside.read(), outside.getheader("x-custom"))
        with activate(ctx):
            inside = call(upstream, "GET", "/api/orders/7")
            inside = (inside.status, inside.read(), inside.getheader("x-custom"))
    assert outside == inside == (200, b'{"order_id": "7", "status": "shipped"}', "kept")
    assert fault_hits(ctx) == {}


def test_urllib_and_requests_requests_are_decided_once(upstream):
    """urllib opens a plain HTTPConnection and requests a subclass of it: each request meets the fault once, and
    is recorded once, by its own client's interception."""
    ctx = make_ctx({"id": "down", "target": "http", "mode": "http_error", "status_code": 503, "path": "^/api/orders"})
    with http_interception() as traffic, activate(ctx):
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(upstream.url + "/api/orders/1", timeout=5)
        assert requests.get(upstream.url + "/api/orders/2", timeout=5).status_code == 503
        assert call(upstream, "GET", "/api/orders/3").status == 503
        seen = sorted(client for client, *_ in traffic.seen)
    assert fault_hits(ctx) == {"down": 3}
    assert seen == ["http.client", "requests", "urllib"]


def test_the_patch_is_removed_after_the_run():
    request, getresponse = http.client.HTTPConnection.request, http.client.HTTPConnection.getresponse
    with http_interception() as traffic:
        assert http.client.HTTPConnection.request is not request
        assert "http.client" in traffic.clients
    assert http.client.HTTPConnection.request is request
    assert http.client.HTTPConnection.getresponse is getresponse


def closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("client", ["http.client", "urllib"])
def test_a_model_that_cannot_be_reached_is_recorded_as_a_call_with_no_answer(client):
    port = closed_port()
    body = json.dumps({"model": "gpt-test", "messages": MESSAGES}).encode()
    ctx = make_ctx({"id": "tool", "target": "tool", "mode": "error"})  # a fault for something else
    with http_interception(), activate(ctx), pytest.raises(OSError):
        if client == "http.client":
            http.client.HTTPConnection("127.0.0.1", port, timeout=5).request("POST", "/v1/chat/completions", body)
        else:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=body),
                                   timeout=5)
    [recorded] = ctx.llm_calls
    assert recorded["source"] == "error" and "Connection refused" in recorded["error"]
