"""The chaos proxy against a real upstream on 127.0.0.1 and real agent subprocesses."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from functools import partial
from pathlib import Path

import httpx
import openai
import pytest
from test_chaos_fakes import ANSWER, FakeUpstream

from khaos_action.engine.chaos.plan import fault_hits
from khaos_action.engine.chaos.proxy import ChaosProxy, render_env
from khaos_action.engine.context import CaseContext
from khaos_action.errors import ConfigError
from tests import builders

AGENT = '''
import json, os, sys
import httpx

base = os.environ["OPENAI_BASE_URL"]
for line in sys.stdin:
    question = json.loads(line)["text"]
    response = httpx.post(base + "/chat/completions", timeout=10,
                          json={"model": "gpt-test", "messages": [{"role": "user", "content": question}]})
    if response.status_code != 200:
        print(json.dumps({"status": response.status_code, "error": response.json()}), flush=True)
    else:
        print(json.dumps({"status": 200, "text": response.json()["choices"][0]["message"]["content"]}), flush=True)
'''


@pytest.fixture(scope="module")
def upstream():
    with FakeUpstream() as server:
        yield server


make_ctx = partial(builders.make_ctx, seed=3)


async def with_proxy(body):
    proxy = ChaosProxy()
    await proxy.start()
    try:
        return await body(proxy)
    finally:
        await proxy.stop()


def test_each_agent_instance_gets_the_fault_of_the_case_it_is_bound_to(upstream, tmp_path: Path):
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    limited = make_ctx({"id": "rl", "target": "llm", "mode": "rate_limit"}, case_id="a")
    cut = make_ctx({"id": "cut", "target": "llm", "mode": "truncated_response", "max_tokens": 2}, case_id="b")
    clean = make_ctx(case_id="c")

    async def body(proxy: ChaosProxy):
        agents = []
        for instance in range(3):
            env = render_env({"OPENAI_BASE_URL": "{{ llm_proxy }}"}, proxy, instance, upstream.url + "/v1")
            assert env["OPENAI_BASE_URL"].startswith(f"{proxy.base_url}/i/{instance}/")
            agents.append(await asyncio.create_subprocess_exec(
                sys.executable, str(script), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                env={**env, "PATH": "/usr/bin:/bin"}))

        async def ask(instance: int, ctx: CaseContext | None) -> dict:
            proxy.bind(instance, ctx)
            agent = agents[instance]
            agent.stdin.write(json.dumps({"text": "where is 1234?"}).encode() + b"\n")
            await agent.stdin.drain()
            line = await asyncio.wait_for(agent.stdout.readline(), 20)
            proxy.bind(instance, None)
            return json.loads(line)

        try:
            first = await asyncio.gather(ask(0, limited), ask(1, cut), ask(2, clean))
            unbound = await ask(0, None)  # between cases the instance passes through
        finally:
            for agent in agents:
                agent.stdin.close()
                await agent.wait()
        return first, unbound

    (limited_reply, cut_reply, clean_reply), unbound = asyncio.run(with_proxy(body))
    assert limited_reply["status"] == 429 and limited_reply["error"]["error"]["code"] == "rate_limit_exceeded"
    assert cut_reply == {"status": 200, "text": "Your order"}
    assert clean_reply == unbound == {"status": 200, "text": ANSWER}
    assert fault_hits(limited) == {"rl": 1} and fault_hits(cut) == {"cut": 1} and fault_hits(clean) == {}
    assert [c["status"] for c in cut.llm_calls] == [200] and limited.llm_calls[0]["fault"] == "rl"


def test_without_a_fault_status_headers_and_body_pass_through_unchanged(upstream):
    async def body(proxy: ChaosProxy):
        base = proxy.url_for(upstream.url)
        proxy.bind(0, make_ctx({"id": "t", "target": "tool", "mode": "error"}))
        async with httpx.AsyncClient() as http:
            direct = await http.get(upstream.url + "/api/orders/5?x=1", headers={"x-trace": "abc"})
            proxied = await http.get(base + "/api/orders/5?x=1", headers={"x-trace": "abc"})
            missing = await http.get(upstream.url + "/nope")
            missing_proxied = await http.get(base + "/nope")
        return direct, proxied, missing, missing_proxied

    direct, proxied, missing, missing_proxied = asyncio.run(with_proxy(body))
    assert proxied.status_code == direct.status_code == 200
    assert proxied.content == direct.content

    def comparable(r: httpx.Response):
        return [(k, v) for k, v in r.headers.multi_items() if k != "date"]

    assert comparable(proxied) == comparable(direct)
    assert upstream.requests[-3]["query"] == "x=1" and upstream.requests[-3]["headers"]["x-trace"] == "abc"
    assert (missing_proxied.status_code, missing_proxied.content) == (missing.status_code, missing.content)


def test_a_stream_passes_through_as_it_is_produced(upstream):
    async def body(proxy: ChaosProxy):
        base = proxy.url_for(upstream.url)
        async with httpx.AsyncClient() as http:
            started = time.perf_counter()
            arrivals = []
            async with http.stream("GET", base + "/slow-stream") as response:
                async for chunk in response.aiter_bytes():
                    arrivals.append((time.perf_counter() - started, chunk))
        return arrivals

    arrivals = asyncio.run(with_proxy(body))
    assert b"".join(c for _, c in arrivals) == b"data: 0\n\ndata: 1\n\ndata: 2\n\n"
    assert arrivals[0][0] < 0.25 and arrivals[-1][0] >= 0.55  # the first event did not wait for the last


def test_sdk_through_the_proxy_sees_truncation_timeouts_and_resets(upstream):
    async def body(proxy: ChaosProxy):
        base = proxy.url_for(upstream.url + "/v1")
        sdk = openai.AsyncOpenAI(api_key="sk", base_url=base, max_retries=0)
        messages = [{"role": "user", "content": "hi"}]
        proxy.bind(0, make_ctx({"id": "cut", "target": "llm", "mode": "truncated_response", "max_tokens": 3}))
        cut = await sdk.chat.completions.create(model="gpt-test", messages=messages)
        stream = await sdk.chat.completions.create(model="gpt-test", messages=messages, stream=True)
        streamed = [chunk async for chunk in stream]
        proxy.bind(0, make_ctx({"id": "t", "target": "llm", "mode": "timeout", "delay_ms": 10}))
        with pytest.raises(openai.APIStatusError) as timed_out:
            await sdk.chat.completions.create(model="gpt-test", messages=messages)
        reset_ctx = make_ctx({"id": "r", "target": "http", "mode": "connection_reset"})
        proxy.bind(0, reset_ctx)
        with pytest.raises(httpx.RemoteProtocolError):
            async with httpx.AsyncClient() as http:
                await http.get(proxy.url_for(upstream.url) + "/api/orders/1")
        return cut, streamed, timed_out.value, reset_ctx

    cut, streamed, timed_out, reset_ctx = asyncio.run(with_proxy(body))
    assert cut.choices[0].message.content == "Your order 1234" and cut.choices[0].finish_reason == "length"
    assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == "Your order 1234"
    assert timed_out.status_code == 504
    assert fault_hits(reset_ctx) == {"r": 1}


def test_the_instance_route_names_the_case_and_an_unknown_upstream_is_404(upstream):
    down = make_ctx({"id": "down", "target": "http", "mode": "http_error", "status_code": 502}, case_id="down")

    async def body(proxy: ChaosProxy):
        proxy.bind(5, down)
        async with httpx.AsyncClient() as http:
            hit = await http.get(proxy.url_for(upstream.url, instance=5) + "/api/orders/1")
            other = await http.get(proxy.url_for(upstream.url, instance=6) + "/api/orders/1")
            proxy.bind(5, None)
            after = await http.get(proxy.url_for(upstream.url, instance=5) + "/api/orders/1")
            unknown = await http.get(f"{proxy.base_url}/i/0/nope/x")
        return hit, other, after, unknown

    hit, other, after, unknown = asyncio.run(with_proxy(body))
    assert (hit.status_code, other.status_code, after.status_code) == (502, 200, 200)
    assert unknown.status_code == 404 and "llm_proxy" in unknown.json()["error"]
    assert fault_hits(down) == {"down": 1}


def test_render_env_rewires_base_urls_per_instance_and_keeps_other_values():
    proxy = ChaosProxy()
    env = {
        "OPENAI_BASE_URL": "{{ llm_proxy }}",
        "TOOLS_URL": "{{ proxy('https://api.example.com/v2') }}",
        "PLAIN": "x",
        "PORT_URL": "http://127.0.0.1:{{port}}/",
        "KEY": "${OPENAI_KEY}",
    }
    first = render_env(env, proxy, 0, "https://api.openai.com/v1")
    second = render_env(env, proxy, 1, "https://api.openai.com/v1")
    assert first["OPENAI_BASE_URL"] != second["OPENAI_BASE_URL"]
    assert first["TOOLS_URL"].startswith(proxy.base_url + "/i/0/")
    assert (
        first["PLAIN"] == "x" and first["PORT_URL"] == "http://127.0.0.1:{{port}}/" and first["KEY"] == "${OPENAI_KEY}"
    )
    bare = render_env(env, None, 0, "https://api.openai.com/v1")
    assert bare["OPENAI_BASE_URL"] == "https://api.openai.com/v1"
    assert bare["TOOLS_URL"] == "https://api.example.com/v2"
    with pytest.raises(ConfigError, match="agent.env.X.*llm_proxy"):
        render_env({"X": "{{ llm_proxi }}"}, proxy, 0)
    with pytest.raises(ConfigError, match="http"):
        render_env({"X": "{{ proxy('api.example.com') }}"}, proxy, 0)
    with pytest.raises(ConfigError):
        render_env({"X": "{{ ''.__class__.__mro__ }}"}, proxy, 0)
    proxy._listening_socket().close()
