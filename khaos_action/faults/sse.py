"""Rewriting the assistant text inside a server-sent-events LLM stream (OpenAI chat/completions chunks, Anthropic
message events, Gemini streamGenerateContent chunks), so truncation and blanking faults also reach agents that
stream; and inside a Gemini reply, whose chunks and whole replies share one shape."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_EVENT_SPLIT = re.compile(rb"\r?\n\r?\n")


def map_stream_texts(body: bytes, provider: str, fn: Callable[[str], str], finish: str | None) -> bytes | None:
    """Rewrite a buffered SSE body. `fn(cumulative_text) -> kept_text` must be prefix-stable (each result extends
    the previous one). None when the stream carries no assistant text this module understands."""
    raw_events = [chunk for chunk in _EVENT_SPLIT.split(body) if chunk.strip()]
    seen: dict[Any, str] = {}
    emitted: dict[Any, str] = {}
    found = False

    def rewrite(key: Any, piece: str) -> str:
        seen[key] = seen.get(key, "") + piece
        kept = fn(seen[key])
        before = emitted.get(key, "")
        emitted[key] = kept
        return kept[len(before):] if kept.startswith(before) else ""

    out = []
    for raw in raw_events:
        lines = raw.decode("utf-8", "replace").splitlines()
        data_lines = [line[5:].lstrip() if line.startswith("data:") else None for line in lines]
        payload = "\n".join(d for d in data_lines if d is not None)
        try:
            event = json.loads(payload) if payload and payload != "[DONE]" else None
        except ValueError:
            event = None
        if isinstance(event, dict) and _rewrite_event(event, provider, rewrite, finish):
            found = True
            kept_lines = [line for line, d in zip(lines, data_lines) if d is None]
            lines = kept_lines + ["data: " + json.dumps(event)]
        out.append("\n".join(lines))
    if not found:
        return None
    return ("\n\n".join(out) + "\n\n").encode()


def _rewrite_event(event: dict[str, Any], provider: str, rewrite: Callable[[Any, str], str],
                   finish: str | None) -> bool:
    """Rewrite one decoded event in place; True when it carried assistant text or a finish reason."""
    touched = False
    if provider == "gemini":
        return map_gemini_texts(event, lambda text: text, finish if event_finishes(event) else None, rewrite)
    if provider == "anthropic":
        delta = event.get("delta")
        if event.get("type") == "content_block_delta" and isinstance(delta, dict) and "text" in delta:
            delta["text"] = rewrite(("a", event.get("index", 0)), delta["text"] or "")
            touched = True
        elif event.get("type") == "message_delta" and isinstance(delta, dict) and finish:
            delta["stop_reason"] = finish
            touched = True
        return touched
    for choice in event.get("choices") or []:
        if not isinstance(choice, dict):
            continue
        index = choice.get("index", 0)
        delta = choice.get("delta")
        if isinstance(delta, dict) and isinstance(delta.get("content"), str):
            delta["content"] = rewrite(index, delta["content"])
            touched = True
        elif isinstance(choice.get("text"), str):
            choice["text"] = rewrite(index, choice["text"])
            touched = True
        if finish and choice.get("finish_reason"):
            choice["finish_reason"] = finish
            touched = True
    return touched


def event_finishes(event: dict[str, Any]) -> bool:
    """A Gemini chunk that ends its candidate (carries a finishReason)."""
    return any(isinstance(c, dict) and c.get("finishReason") for c in event.get("candidates") or [])


def map_gemini_texts(body: dict[str, Any], fn: Callable[[str], str], finish: str | None,
                     rewrite: Callable[[Any, str], str] | None = None) -> bool:
    """A Gemini reply (or one chunk of its stream, through `rewrite(key, piece)`): `fn` on every candidate's text
    parts; `finish` sets each candidate's finishReason. False if it has none."""
    found = False
    for candidate in body.get("candidates") or []:
        if not isinstance(candidate, dict):
            continue
        parts = (candidate.get("content") or {}).get("parts") if isinstance(candidate.get("content"), dict) else None
        for part in parts or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
                key = ("g", candidate.get("index", 0))
                part["text"], found = (rewrite(key, part["text"]) if rewrite else fn(part["text"])), True
        if finish and (found or candidate.get("finishReason")):
            candidate["finishReason"], found = finish, True
    return found
