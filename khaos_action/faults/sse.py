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
    rewrite = _Rewrite(fn)
    out, found = [], False
    for raw in (chunk for chunk in _EVENT_SPLIT.split(body) if chunk.strip()):
        lines, data_lines, event = _decode(raw)
        if isinstance(event, dict) and _rewrite_event(event, provider, rewrite, finish):
            found = True
            kept_lines = [line for line, d in zip(lines, data_lines) if d is None]
            lines = kept_lines + ["data: " + json.dumps(event)]
        out.append("\n".join(lines))
    if not found:
        return None
    return ("\n\n".join(out) + "\n\n").encode()


class _Rewrite:
    """`rewrite(key, piece)`: the part of `fn`'s rewrite of the stream's text so far (per choice or block `key`)
    that was not emitted yet."""

    def __init__(self, fn: Callable[[str], str]) -> None:
        self.fn = fn
        self.seen: dict[Any, str] = {}
        self.emitted: dict[Any, str] = {}

    def __call__(self, key: Any, piece: str) -> str:
        self.seen[key] = self.seen.get(key, "") + piece
        kept = self.fn(self.seen[key])
        before = self.emitted.get(key, "")
        self.emitted[key] = kept
        return kept[len(before):] if kept.startswith(before) else ""


def _decode(raw: bytes) -> tuple[list[str], list[str | None], Any]:
    """An event's lines, the data of each `data:` line (None for the others), and the JSON they carry (None for
    `[DONE]`, no data or no JSON)."""
    lines = raw.decode("utf-8", "replace").splitlines()
    data_lines = [line[5:].lstrip() if line.startswith("data:") else None for line in lines]
    payload = "\n".join(d for d in data_lines if d is not None)
    if not payload or payload == "[DONE]":
        return lines, data_lines, None
    try:
        return lines, data_lines, json.loads(payload)
    except ValueError:
        return lines, data_lines, None


def _rewrite_event(event: dict[str, Any], provider: str, rewrite: Callable[[Any, str], str],
                   finish: str | None) -> bool:
    """Rewrite one decoded event in place; True when it carried assistant text or a finish reason."""
    if provider == "gemini":
        return map_gemini_texts(event, lambda text: text, finish if event_finishes(event) else None, rewrite)
    if provider == "anthropic":
        return _rewrite_anthropic(event, rewrite, finish)
    touched = False
    for choice in event.get("choices") or []:
        if isinstance(choice, dict):
            touched = _rewrite_choice(choice, rewrite, finish) or touched
    return touched


def _rewrite_anthropic(event: dict[str, Any], rewrite: Callable[[Any, str], str], finish: str | None) -> bool:
    delta = event.get("delta")
    if not isinstance(delta, dict):
        return False
    if event.get("type") == "content_block_delta" and "text" in delta:
        delta["text"] = rewrite(("a", event.get("index", 0)), delta["text"] or "")
        return True
    if event.get("type") == "message_delta" and finish:
        delta["stop_reason"] = finish
        return True
    return False


def _rewrite_choice(choice: dict[str, Any], rewrite: Callable[[Any, str], str], finish: str | None) -> bool:
    touched = False
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
    parts; `finish` sets each candidate's finishReason (once any text so far was found, or where it had one).
    False if it has none."""
    found = False
    for candidate in body.get("candidates") or []:
        if not isinstance(candidate, dict):
            continue
        found = _map_gemini_parts(candidate, fn, rewrite) or found
        if finish and (found or candidate.get("finishReason")):
            candidate["finishReason"], found = finish, True
    return found


def _map_gemini_parts(candidate: dict[str, Any], fn: Callable[[str], str],
                      rewrite: Callable[[Any, str], str] | None) -> bool:
    key = ("g", candidate.get("index", 0))
    found = False
    for part in _gemini_text_parts(candidate):
        part["text"], found = (rewrite(key, part["text"]) if rewrite else fn(part["text"])), True
    return found


def _gemini_text_parts(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """The candidate's answer text parts (a thinking model's thought parts are not the answer)."""
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    return [part for part in parts or [] if isinstance(part, dict) and isinstance(part.get("text"), str)
            and not part.get("thought")]
