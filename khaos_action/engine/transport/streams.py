"""Streamed replies read as streams: what an agent yields chunk by chunk is joined into its reply text.

A python entry may return a generator, an async generator, any iterator or async iterable (an SDK's stream object:
the `openai` SDK's `Stream` of chunks, a LangChain `.stream()`); an http agent may answer Server-Sent Events or
JSON lines; a command agent may send `delta` lines before its reply. Each chunk is text, bytes, a dict with its
text under `text` / `content` / `delta` / `output` / `response` (or an OpenAI chunk's `choices[0].delta.content`), or
an object with such an attribute. A chunk with none of these is an error naming its type, never a reply; so is a
reply that is only an object's repr (`<async_generator object handle at 0x7f…>`): the text a judge would otherwise
score as the agent's answer while the agent never ran.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterator, Mapping
from typing import Any

from khaos_action.engine.textsafe import type_name
from khaos_action.engine.transport.base import AgentCallError

MAX_CHARS = 8_000_000
"""A stream is read until it ends or this many characters have arrived (the run keeps at most
agent.max_output_bytes of it anyway); the rest is closed unread."""
TEXT_KEYS = ("text", "content", "delta", "output", "response")
_PLAIN = (str, bytes, bytearray, memoryview, Mapping, list, tuple, set, frozenset)


def is_stream(value: Any) -> bool:
    """Whether `value` is read chunk by chunk: a generator, an iterator, an async iterable (not a str, a dict, a
    list: those are replies; not a pydantic model, which iterates its fields but is no iterator)."""
    if isinstance(value, _PLAIN):
        return False
    return isinstance(value, (Iterator, AsyncIterable))


def is_async_stream(value: Any) -> bool:
    return isinstance(value, AsyncIterable)


class Joined:
    """The chunks of one stream, joined as they arrive (bounded by MAX_CHARS)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.parts: list[str] = []
        self.size = 0
        self.chunks = 0
        self.full = False

    def add(self, chunk: Any) -> bool:
        """Take one chunk; False once MAX_CHARS have arrived (stop reading)."""
        text = chunk_text(chunk)
        if text is None:
            raise AgentCallError(f"the agent's stream ({self.what}) yielded a {type_name(chunk)} chunk with no text: "
                                 "yield str, bytes, {'text': ...} / {'content': ...} dicts or objects with a .text or "
                                 ".content attribute")
        self.chunks += 1
        self.parts.append(text)
        self.size += len(text)
        self.full = self.size >= MAX_CHARS
        return not self.full

    def reply(self) -> dict[str, Any]:
        note = f"agent streamed its reply ({self.what}): {self.chunks} chunk(s) joined"
        if self.full:
            note += f"; reading stopped after {self.size:,} characters"
        return {"text": "".join(self.parts), "tool_calls": [], "notes": [note]}


def read_sync(stream: Any) -> dict[str, Any]:
    """Consume a sync stream (on the thread the agent runs on: its chunks may run the agent's code)."""
    joined = Joined(type_name(stream))
    iterator = iter(stream)
    try:
        for chunk in iterator:
            if not joined.add(chunk):
                break
    except AgentCallError:
        raise
    except Exception as exc:
        raise AgentCallError(f"agent's stream ({joined.what}) raised {type(exc).__name__}: {exc}") from exc
    finally:
        _close(iterator)
    return joined.reply()


async def read_async(stream: Any) -> dict[str, Any]:
    """Consume an async stream (an async generator, an SDK's async stream)."""
    joined = Joined(type_name(stream))
    iterator: AsyncIterator[Any] = stream.__aiter__()
    try:
        async for chunk in iterator:
            if not joined.add(chunk):
                break
    except AgentCallError:
        raise
    except Exception as exc:
        raise AgentCallError(f"agent's stream ({joined.what}) raised {type(exc).__name__}: {exc}") from exc
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:  # noqa: BLE001, S110 - closing a stream we stopped reading: its error is not the reply
                pass
    return joined.reply()


def _close(iterator: Any) -> None:
    close = getattr(iterator, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001, S110 - see read_async
            pass


def chunk_text(chunk: Any) -> str | None:
    """The text of one chunk ("" for a chunk that carries none, such as an OpenAI chunk with only a role or usage);
    None when the chunk has no recognisable text at all."""
    if chunk is None:
        return ""
    if isinstance(chunk, str):
        return chunk
    if isinstance(chunk, (bytes, bytearray, memoryview)):
        return bytes(chunk).decode("utf-8", "replace")
    if isinstance(chunk, Mapping):
        return _mapping_text(chunk)
    if isinstance(chunk, (list, tuple)):  # content blocks: their text parts
        texts = [chunk_text(item) for item in chunk]
        return None if any(t is None for t in texts) else "".join(t for t in texts if t)
    return _object_text(chunk)


def _mapping_text(chunk: Mapping[Any, Any]) -> str | None:
    for key in TEXT_KEYS:
        if key in chunk:
            inner = chunk[key]
            return "" if inner is None else inner if isinstance(inner, str) else chunk_text(inner)
    choices = chunk.get("choices")
    if isinstance(choices, list):  # an OpenAI chat completion chunk as a dict
        return "".join(chunk_text(c) or "" for c in choices)
    return None


def _object_text(chunk: Any) -> str | None:
    for attr in TEXT_KEYS:
        inner = _attribute(chunk, attr)
        if isinstance(inner, str):
            return inner
        if isinstance(inner, list) or (attr == "delta" and inner is not None):  # content blocks, a nested delta
            return chunk_text(inner)
    choices = _attribute(chunk, "choices")
    if isinstance(choices, list):  # openai's ChatCompletionChunk: choices[i].delta.content
        return "".join(chunk_text(getattr(c, "delta", None)) or "" for c in choices)
    if hasattr(chunk, "content") and _attribute(chunk, "content", 0) is None:
        return ""  # a delta with no content (a role, a tool call's start)
    return None


def _attribute(chunk: Any, name: str, default: Any = None) -> Any:
    try:
        return getattr(chunk, name, default)
    except Exception:  # noqa: BLE001 - a property that raises: no such text
        return default


# ---- streamed HTTP bodies -------------------------------------------------------------------------------------------

STREAMED_TYPES = ("text/event-stream", "application/x-ndjson", "application/jsonl", "application/x-jsonlines")


def streamed_type(body: str, content_type: str) -> str | None:
    """The streamed format of an HTTP reply body: its content type when it is one of STREAMED_TYPES, else
    `text/event-stream` for a body that is plainly Server-Sent Events under another type; None otherwise."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind in STREAMED_TYPES:
        return kind
    head = body.lstrip()[:6]
    return "text/event-stream" if head.startswith(("data:", "event:")) else None


def body_chunks(body: str, content_type: str) -> list[str]:
    """The data of each event of a Server-Sent Events body (`[DONE]` left out), or each line of a JSON-lines body."""
    if "event-stream" not in content_type.lower():
        return [line for line in body.splitlines() if line.strip()]
    chunks: list[str] = []
    for event in re.split(r"\r?\n\r?\n", body):
        data = [line[5:].removeprefix(" ") for line in event.splitlines() if line.startswith("data:")]
        if data and "\n".join(data).strip() != "[DONE]":
            chunks.append("\n".join(data))
    return chunks


def streamed_body_text(body: str, content_type: str, pick: Any = None) -> dict[str, Any]:
    """An SSE or JSON-lines reply joined: each chunk's JSON read like a streamed chunk (`pick(data)` instead, when
    agent.response_path is set: chunks it finds nothing in are skipped), plain text taken as is; events without
    text (a start or usage event) are skipped."""
    chunks = body_chunks(body, content_type)
    parts: list[str] = []
    unread = 0
    for raw in chunks:
        try:
            data = json.loads(raw)
        except ValueError:
            parts.append(raw)
            continue
        if pick is not None:
            try:
                data = pick(data)
            except AgentCallError:
                unread += 1
                continue
        text = chunk_text(data) if not isinstance(data, (int, float, bool)) else str(data)
        unread += text is None
        if text:
            parts.append(text)
    if unread and not parts:
        raise AgentCallError(f"the agent streamed {len(chunks)} {content_type} event(s) and none had text under "
                             f"{'agent.response_path' if pick else '/'.join(TEXT_KEYS)}: set agent.response_path to "
                             f"where each event's text is (e.g. choices.0.delta.content)")
    note = f"agent streamed its reply ({content_type}): {len(chunks)} event(s) joined"
    return {"text": "".join(parts), "tool_calls": [], "notes": [note]}
