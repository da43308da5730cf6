"""A real OpenAI-/Anthropic-compatible LLM server on 127.0.0.1 (uvicorn in a thread) for the LLM economics tests,
plus checks that it answers the way the real APIs do. Other test_llm_* modules import `LlmServer` from here.

Answers are deterministic: "Echo: <last user text>". Usage blocks count words, except for models whose name
starts with `no-usage` (no usage block at all, so tokens must be estimated). `gzip=True` compresses JSON replies.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from typing import Any

import httpx
import openai

from tests.asgi_server import AsgiServer


class LlmServer(AsgiServer):
    """Serves /v1/chat/completions, /v1/completions, /v1/responses (JSON and SSE) and /v1/messages (JSON and SSE).
    `requests` keeps every request's (path, headers, json body)."""

    name = "LLM server"

    def __init__(self, *, gzip_replies: bool = False, delay_s: float = 0.0, leak_key: bool = False) -> None:
        self.requests: list[dict[str, Any]] = []
        self.gzip_replies = gzip_replies
        self.delay_s = delay_s
        self.leak_key = leak_key
        super().__init__()

    async def handle(self, scope: dict[str, Any], body: bytes, send: Any) -> None:
        data = json.loads(body) if body else {}
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        path = scope["path"]
        self.requests.append({"path": path, "headers": headers, "json": data, "query": scope["query_string"]})
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        prompt = last_user_text(data)
        answer = f"Echo: {prompt}"
        if self.leak_key:
            answer += f" (key {headers.get('authorization', '')})"
        model = str(data.get("model", "m"))
        usage = not model.startswith("no-usage")
        n_in, n_out = len(prompt.split()) + 10, len(answer.split())
        stream = bool(data.get("stream"))
        if path.endswith("/chat/completions"):
            if stream:
                include = usage and bool((data.get("stream_options") or {}).get("include_usage"))
                await _sse(send, _chat_chunks(model, answer, (n_in, n_out) if include else None))
                return
            reply = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": answer}}]}
            if usage:
                reply["usage"] = {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out}
            await self._json(send, headers, 200, reply)
        elif path.endswith("/responses"):
            done = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": model,
                    "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                                "content": [{"type": "output_text", "text": answer, "annotations": []}]}],
                    "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
            if usage:
                done["usage"] = {"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out,
                                 "input_tokens_details": {"cached_tokens": 0},
                                 "output_tokens_details": {"reasoning_tokens": 0}}
            if stream:
                await _sse(send, [{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                                   "content_index": 0, "delta": answer, "sequence_number": 1},
                                  {"type": "response.completed", "response": done, "sequence_number": 2}])
                return
            await self._json(send, headers, 200, done)
        elif path.endswith("/messages"):
            if stream:
                events = [{"type": "message_start", "message": {
                              "id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": [],
                              "usage": {"input_tokens": n_in, "output_tokens": 1}}},
                          {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                          {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": answer}},
                          {"type": "content_block_stop", "index": 0},
                          {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                           "usage": {"output_tokens": n_out}},
                          {"type": "message_stop"}]
                await _sse(send, events, named=True)
                return
            reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                     "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn"}
            if usage:
                reply["usage"] = {"input_tokens": n_in, "output_tokens": n_out}
            await self._json(send, headers, 200, reply)
        elif path.endswith("/completions"):
            reply = {"id": "cmpl-1", "object": "text_completion", "model": model,
                     "choices": [{"index": 0, "text": answer, "finish_reason": "stop"}]}
            if usage:
                reply["usage"] = {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out}
            await self._json(send, headers, 200, reply)
        else:
            await self._json(send, headers, 404, {"error": {"message": "not found"}})

    async def _json(self, send: Any, request_headers: dict[str, str], status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        raw = [(b"content-type", b"application/json")]
        if self.gzip_replies and "gzip" in request_headers.get("accept-encoding", ""):
            body = gzip.compress(body)
            raw.append((b"content-encoding", b"gzip"))
        raw.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": body})


def last_user_text(data: dict[str, Any]) -> str:
    if isinstance(data.get("input"), str):
        return data["input"]
    if isinstance(data.get("prompt"), str):
        return data["prompt"]
    for message in reversed(data.get("messages") or data.get("input") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content)
    return ""


def _chat_chunks(model: str, answer: str, usage: tuple[int, int] | None) -> list[dict[str, Any]]:
    words = answer.split(" ")
    deltas = [{"role": "assistant", "content": ""}] + [{"content": (" " if i else "") + w} for i, w in enumerate(words)]
    chunks = [{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model,
               "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    chunks.append({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model,
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if usage is not None:
        chunks.append({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model, "choices": [],
                       "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                 "total_tokens": sum(usage)}})
    return chunks


async def _sse(send: Any, events: list[dict[str, Any]], named: bool = False) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream; charset=utf-8")]})
    for event in events:
        line = (f"event: {event['type']}\n" if named else "") + f"data: {json.dumps(event)}\n\n"
        await send({"type": "http.response.body", "body": line.encode(), "more_body": True})
    tail = b"" if named else b"data: [DONE]\n\n"
    await send({"type": "http.response.body", "body": tail, "more_body": False})


def test_llm_server_answers_like_the_openai_api_through_the_real_sdk():
    with LlmServer() as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "Echo: hi" and reply.usage.completion_tokens == 2
        streamed = list(client.chat.completions.create(model="gpt-4o-mini", stream=True,
                                                       stream_options={"include_usage": True},
                                                       messages=[{"role": "user", "content": "hi"}]))
        assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == "Echo: hi"
        assert streamed[-1].usage.prompt_tokens == 11
        response = client.responses.create(model="gpt-4o-mini", input="hello there")
        assert response.output_text == "Echo: hello there" and response.usage.output_tokens == 3
        anthropic = httpx.post(server.url + "/v1/messages", json={"model": "claude-3-5-haiku", "max_tokens": 10,
                                                                  "messages": [{"role": "user", "content": "yo"}]})
        assert anthropic.json()["content"][0]["text"] == "Echo: yo"
