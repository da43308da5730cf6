"""Recording an LLM call never consumes the body the agent's own client reads: a consumer that reads after us
(LiteLLM's aiohttp transport, httpx's iter_bytes/aiter_lines, requests' iter_content/iter_lines, aiohttp's
`response.content`) gets every byte, streamed or not, the call's usage is still recorded, and faults still fire.
Real clients against a real OpenAI-compatible stand-in on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
from functools import partial

import httpx
import pytest
import requests
from test_chaos_fakes import ANSWER, FakeUpstream

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import activate, fault_hits
from khaos_action.engine.context import CaseContext
from tests import builders

aiohttp = pytest.importorskip("aiohttp")
BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Is the lab report ready?"}]}


@pytest.fixture(scope="module")
def upstream():
    with FakeUpstream() as server:
        yield server


case = partial(builders.make_ctx, case_id="c", seed=3, numbered=True)


def in_case(ctx: CaseContext, fn, *args):
    with http_interception():
        return builders.in_case(ctx, fn, *args)


def sse_text(raw: str) -> str:
    text = ""
    for line in raw.splitlines():
        if line.startswith("data: {"):
            delta = json.loads(line[6:])["choices"][0]["delta"]
            text += delta.get("content") or ""
    return text


def assert_recorded(ctx: CaseContext, *, streamed: bool) -> None:
    [call] = ctx.llm_calls
    assert (call["status"], call["source"], call["stream"]) == (200, "live", streamed)
    assert call["output_tokens"] > 0 and not call.get("partial")
    if not streamed:
        assert (call["input_tokens"], call["output_tokens"], call["tokens_estimated"]) == (5, 13, False)


# ---- LiteLLM (its aiohttp transport reads `response.content` after us) ---------------------------------------------

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no download of LiteLLM's price list at import
try:
    import litellm
except ImportError:  # the test extra installs it
    litellm = None
needs_litellm = pytest.mark.skipif(litellm is None, reason="litellm is not installed (pip install -e '.[test]')")


async def litellm_async(url: str, stream: bool) -> str:
    reply = await litellm.acompletion(model="openai/gpt-4o-mini", api_base=url + "/v1", api_key="sk-local",
                                      messages=BODY["messages"], stream=stream, num_retries=0, max_retries=0)
    if stream:
        return "".join([chunk.choices[0].delta.content or "" async for chunk in reply])
    return reply.choices[0].message.content


def litellm_sync(url: str, stream: bool) -> str:
    reply = litellm.completion(model="openai/gpt-4o-mini", api_base=url + "/v1", api_key="sk-local",
                               messages=BODY["messages"], stream=stream, num_retries=0, max_retries=0)
    if stream:
        return "".join(chunk.choices[0].delta.content or "" for chunk in reply)
    return reply.choices[0].message.content


@needs_litellm
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("call", [litellm_async, litellm_sync], ids=["acompletion", "completion"])
def test_litellm_reads_the_whole_reply_after_we_recorded_it(upstream, call, stream):
    ctx = case()
    assert in_case(ctx, call, upstream.url, stream) == ANSWER
    assert_recorded(ctx, streamed=stream)


@needs_litellm
def test_litellm_acompletion_goes_through_the_aiohttp_interception(upstream):
    with http_interception() as traffic:
        ctx = case()

        async def inside():
            with activate(ctx):
                return await litellm_async(upstream.url, False)
        asyncio.run(inside())
    assert [client for client, *_ in traffic.seen] == ["aiohttp"]


@needs_litellm
@pytest.mark.parametrize("call", [litellm_async, litellm_sync], ids=["acompletion", "completion"])
def test_llm_faults_reach_litellm(upstream, call):
    limited = case({"target": "llm", "mode": "rate_limit", "retry_after_s": 1})
    with pytest.raises(litellm.RateLimitError):
        in_case(limited, call, upstream.url, False)
    assert fault_hits(limited) == {"f0": 1}
    cut = case({"target": "llm", "mode": "truncated_response", "max_tokens": 3})
    assert in_case(cut, call, upstream.url, False) == " ".join(ANSWER.split()[:3])
    assert fault_hits(cut) == {"f0": 1}


# ---- httpx: sync and async, iter_bytes / aiter_lines -------------------------------------------------------------

def httpx_iter_bytes(url: str, stream: bool) -> str:
    with httpx.Client() as client, client.stream("POST", url + "/v1/chat/completions",
                                                 json={**BODY, "stream": stream}) as reply:
        return b"".join(reply.iter_bytes(chunk_size=7)).decode()


async def httpx_aiter_lines(url: str, stream: bool) -> str:
    async with httpx.AsyncClient() as client, client.stream("POST", url + "/v1/chat/completions",
                                                            json={**BODY, "stream": stream}) as reply:
        return "\n".join([line async for line in reply.aiter_lines()])


# ---- requests: stream=True with iter_content / iter_lines, and a plain post ------------------------------------------

def requests_iter_content(url: str, stream: bool) -> str:
    with requests.post(url + "/v1/chat/completions", json={**BODY, "stream": stream}, stream=True,
                       timeout=5) as reply:
        return b"".join(reply.iter_content(chunk_size=5)).decode()


def requests_iter_lines(url: str, stream: bool) -> str:
    with requests.post(url + "/v1/chat/completions", json={**BODY, "stream": stream}, stream=True,
                       timeout=5) as reply:
        return "\n".join(line.decode() for line in reply.iter_lines())


def requests_plain(url: str, stream: bool) -> str:
    return requests.post(url + "/v1/chat/completions", json={**BODY, "stream": stream}, timeout=5).text


# ---- aiohttp: the client reads `response.content` itself ---------------------------------------------------------

async def aiohttp_iter_chunked(url: str, stream: bool) -> str:
    async with aiohttp.ClientSession() as session, session.post(url + "/v1/chat/completions",
                                                                json={**BODY, "stream": stream}) as reply:
        return b"".join([chunk async for chunk in reply.content.iter_chunked(6)]).decode()


async def aiohttp_lines(url: str, stream: bool) -> str:
    async with aiohttp.ClientSession() as session, session.post(url + "/v1/chat/completions",
                                                                json={**BODY, "stream": stream}) as reply:
        return "".join([line.decode() async for line in reply.content])


async def aiohttp_read(url: str, stream: bool) -> str:
    async with aiohttp.ClientSession() as session, session.post(url + "/v1/chat/completions",
                                                                json={**BODY, "stream": stream}) as reply:
        return await reply.text()


READERS = {f.__name__: f for f in (httpx_iter_bytes, httpx_aiter_lines, requests_iter_content, requests_iter_lines,
                                   requests_plain, aiohttp_iter_chunked, aiohttp_lines, aiohttp_read)}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_client_reading_after_us_gets_every_byte_and_the_call_is_recorded(upstream, reader, stream):
    ctx = case()
    text = in_case(ctx, READERS[reader], upstream.url, stream)
    if stream:
        assert sse_text(text) == ANSWER and text.rstrip().endswith("data: [DONE]")
    else:
        assert json.loads(text)["choices"][0]["message"]["content"] == ANSWER
    assert_recorded(ctx, streamed=stream)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_faults_still_fire_through_every_reader(upstream, reader):
    failing = case({"target": "llm", "mode": "model_unavailable"})
    text = in_case(failing, READERS[reader], upstream.url, False)
    assert "error" in text.lower() and fault_hits(failing) == {"f0": 1}
    blank = case({"target": "llm", "mode": "empty"})
    text = in_case(blank, READERS[reader], upstream.url, False)
    assert json.loads(text)["choices"][0]["message"]["content"] == "" and fault_hits(blank) == {"f0": 1}
