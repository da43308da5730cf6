"""Token usage of one LLM call, read from the provider's reply (JSON or server-sent events), or estimated.

Shapes read (each provider's documented `usage` block):
- OpenAI chat / completions / embeddings: `usage.prompt_tokens`, `usage.completion_tokens`; streamed, the last
  chunk carries it when the request set `stream_options.include_usage`.
- OpenAI responses: `usage.input_tokens`, `usage.output_tokens`; streamed, in the `response.completed` event.
- Anthropic messages: `usage.input_tokens` (+ cache creation / cache read input tokens), `usage.output_tokens`;
  streamed, `message_start.message.usage` then cumulative `message_delta.usage.output_tokens`.
When the reply has no usage block, tokens are estimated at ~4 characters per token of the request's and the reply's
text, and the call is marked `tokens_estimated` so nobody mistakes the figure for a metered one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4.0
_INPUT_KEYS = ("prompt_tokens", "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_OUTPUT_KEYS = ("completion_tokens", "output_tokens")
_REQUEST_TEXT_KEYS = frozenset({"content", "text", "input", "prompt", "system", "instructions", "arguments"})
_REPLY_TEXT_KEYS = frozenset({"content", "text", "delta", "arguments", "refusal", "thinking"})
_NOT_TEXT = frozenset({"role", "type", "id", "model", "object", "finish_reason", "stop_reason", "name", "index"})


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int
    output_tokens: int
    estimated: bool


def parse_body(body: bytes, content_type: str = "") -> list[Any]:
    """The reply as JSON documents: one for a JSON body, one per `data:` event for an event stream."""
    text = body.decode("utf-8", "replace")
    if "event-stream" in content_type or (text.lstrip().startswith(("data:", "event:")) and "\n" in text):
        return list(_sse_events(text))
    try:
        return [json.loads(text)] if text.strip() else []
    except ValueError:
        return []


def _sse_events(text: str) -> Iterator[Any]:
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if not data or data == "[DONE]":
            continue
        try:
            yield json.loads(data)
        except ValueError:
            continue


def reported_usage(documents: list[Any]) -> tuple[int, int] | None:
    """(input, output) tokens from the usage blocks in the reply, or None when it has none.
    Streams repeat or grow the counts (Anthropic's output_tokens is cumulative), so the largest seen wins."""
    found = False
    tokens_in = tokens_out = 0
    for doc in documents:
        for usage in _usage_blocks(doc):
            found = True
            tokens_in = max(tokens_in, sum(_int(usage.get(k)) for k in _INPUT_KEYS))
            tokens_out = max(tokens_out, sum(_int(usage.get(k)) for k in _OUTPUT_KEYS))
    return (tokens_in, tokens_out) if found else None


def _usage_blocks(doc: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(doc, dict):
        return
    for holder in (doc, doc.get("response"), doc.get("message")):
        if isinstance(holder, dict) and isinstance(holder.get("usage"), dict):
            yield holder["usage"]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def texts(value: Any, keys: frozenset[str], *, under: bool = False) -> Iterator[str]:
    """Strings found under any of `keys` (at any depth) — the prose of a request or a reply."""
    if isinstance(value, str):
        if under:
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in _NOT_TEXT:
                continue
            yield from texts(item, keys, under=under or key in keys)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item, keys, under=under)


def call_usage(request_json: Any, documents: list[Any]) -> Usage:
    """Metered usage when the reply reports it, else an estimate from the texts of request and reply."""
    reported = reported_usage(documents)
    if reported is not None:
        return Usage(reported[0], reported[1], estimated=False)
    prompt = "".join(texts(request_json, _REQUEST_TEXT_KEYS))
    answer = "".join(t for doc in documents for t in texts(doc, _REPLY_TEXT_KEYS))
    return Usage(estimate_tokens(prompt), estimate_tokens(answer), estimated=True)
