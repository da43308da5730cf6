"""A real OpenAI-/Anthropic-compatible HTTP server on 127.0.0.1 (uvicorn in a thread) for the chaos tests, plus a
check that it answers like the real APIs do. Other test_chaos_* modules import `FakeUpstream` from here."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.asgi_server import AsgiServer

ANSWER = "Your order 1234 has shipped and will arrive on Friday morning by courier."


class FakeUpstream(AsgiServer):
    """Serves /v1/chat/completions (JSON and SSE), /v1/messages, /v1/embeddings, /api/orders/<id>, /slow-stream.
    `requests` keeps every received (method, path, headers, json body)."""

    name = "fake upstream"

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        super().__init__()

    async def handle(self, scope: dict[str, Any], body: bytes, send: Any) -> None:
        data = json.loads(body) if body else None
        path = scope["path"]
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        self.requests.append({"method": scope["method"], "path": path, "headers": headers, "json": data,
                              "query": scope["query_string"].decode()})
        if path.endswith("/chat/completions"):
            if data.get("stream"):
                await self._stream_chat(send, data)
                return
            await _json(send, 200, chat_completion(data), {"x-upstream": "fake", "x-request-id": "req_123"})
        elif path.endswith("/messages"):
            await _json(send, 200, {"id": "msg_1", "type": "message", "role": "assistant", "model": data["model"],
                                    "content": [{"type": "text", "text": ANSWER}], "stop_reason": "end_turn",
                                    "usage": {"input_tokens": 5, "output_tokens": 13}})
        elif path.endswith("/embeddings"):
            await _json(send, 200, {"object": "list", "data": [{"object": "embedding", "index": 0,
                                                                 "embedding": [0.1, 0.2]}], "model": "e"})
        elif path.startswith("/api/orders/"):
            await _json(send, 200, {"order_id": path.rsplit("/", 1)[1], "status": "shipped"},
                        {"set-cookie": "a=1", "x-custom": "kept"})
        elif path == "/slow-stream":
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})
            for index in range(3):
                await send({"type": "http.response.body", "body": f"data: {index}\n\n".encode(), "more_body": True})
                await asyncio.sleep(0.3)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            await _json(send, 404, {"error": "not found"})

    async def _stream_chat(self, send: Any, data: dict[str, Any]) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream; charset=utf-8")]})
        words = ANSWER.split(" ")
        chunks = [{"role": "assistant", "content": ""}] + [{"content": (" " if i else "") + w}
                                                           for i, w in enumerate(words)]
        for index, delta in enumerate(chunks + [{}]):
            event = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": data["model"],
                     "choices": [{"index": 0, "delta": delta,
                                  "finish_reason": "stop" if index == len(chunks) else None}]}
            await send({"type": "http.response.body", "body": f"data: {json.dumps(event)}\n\n".encode(),
                        "more_body": True})
        await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": False})


def chat_completion(data: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": data.get("model", "m"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 13, "total_tokens": 18}}


async def _json(send: Any, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
    body = json.dumps(payload).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def test_fake_upstream_answers_like_the_openai_api():
    import openai

    with FakeUpstream() as upstream:
        client = openai.OpenAI(api_key="sk-test", base_url=upstream.url + "/v1", max_retries=0)
        reply = client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == ANSWER
        assert reply.choices[0].finish_reason == "stop"
        streamed = client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}],
                                                  stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == ANSWER
        assert httpx.get(upstream.url + "/api/orders/7").json() == {"order_id": "7", "status": "shipped"}
