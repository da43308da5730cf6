"""Streamed replies are read chunk by chunk and joined; a chunk or a reply that is no text is an error naming its type,
never a reply (engine/transport/streams.py, textsafe.repr_type, transport.base.normalise_reply)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from khaos_action.engine.textsafe import repr_type
from khaos_action.engine.transport.base import AgentCallError, normalise_reply
from khaos_action.engine.transport.streams import (
    chunk_text,
    is_stream,
    read_async,
    read_sync,
    streamed_body_text,
    streamed_type,
)


class Itinerary:
    """A framework-ish result object with no text attribute."""


def gen():
    yield "Day 1: "
    yield {"text": "Alfama. "}
    yield SimpleNamespace(content="Day 2: Belem.")


async def agen():
    for part in ("Runbook: ", {"content": "restart the "}, b"payments pod"):
        await asyncio.sleep(0)
        yield part


@pytest.mark.parametrize("chunk, text", [
    ("plain", "plain"),
    (b"bytes \xc3\xa9", "bytes é"),
    (None, ""),
    ({"text": "t"}, "t"),
    ({"content": "c"}, "c"),
    ({"delta": {"content": "d"}}, "d"),
    ({"content": None}, ""),
    ({"choices": [{"delta": {"content": "openai dict"}}]}, "openai dict"),
    (SimpleNamespace(choices=[SimpleNamespace(delta=SimpleNamespace(content="openai object"))]), "openai object"),
    (SimpleNamespace(choices=[SimpleNamespace(delta=SimpleNamespace(content=None))]), ""),  # a role-only chunk
    (SimpleNamespace(choices=[]), ""),  # the usage chunk at the end
    (SimpleNamespace(content=[{"type": "text", "text": "block "}, {"type": "text", "text": "two"}]), "block two"),
    (SimpleNamespace(text="attr"), "attr"),
    ({"token": "x"}, None),
    (Itinerary(), None),
    (42, None),
])
def test_the_text_of_a_chunk(chunk, text) -> None:
    assert chunk_text(chunk) == text


def test_what_is_read_as_a_stream() -> None:
    assert is_stream(gen()) and is_stream(agen()) and is_stream(iter(["a"]))
    assert not any(is_stream(v) for v in ("text", b"x", {"text": "x"}, ["a", "b"], ("a",), Itinerary(), None))


def test_sync_and_async_streams_are_joined_with_a_note() -> None:
    reply = read_sync(gen())
    assert reply["text"] == "Day 1: Alfama. Day 2: Belem."
    assert reply["notes"] == ["agent streamed its reply (generator): 3 chunk(s) joined"]
    reply = asyncio.run(read_async(agen()))
    assert reply["text"] == "Runbook: restart the payments pod"
    assert "async_generator" in reply["notes"][0]


def test_a_chunk_without_text_names_its_type_and_closes_the_stream() -> None:
    closed = []

    def stream():
        try:
            yield "fine "
            yield Itinerary()
            yield "never read"
        finally:
            closed.append(True)

    with pytest.raises(AgentCallError, match=r"stream \(generator\) yielded a .*Itinerary chunk with no text"):
        read_sync(stream())
    assert closed == [True]


def test_a_stream_that_raises_is_the_agents_error() -> None:
    def stream():
        yield "Paging "
        raise ConnectionError("pager API down")

    with pytest.raises(AgentCallError, match="agent's stream .generator. raised ConnectionError: pager API down"):
        read_sync(stream())


@pytest.mark.parametrize("text, kind", [
    ("<async_generator object handle at 0x7f3a2c1d9b40>", "async_generator"),
    ("  <generator object plan_trip at 0x10f0c1a80>\n", "generator"),
    ("<openai.Stream object at 0x7fdeadbeef00>", "openai.Stream"),
    ("<coroutine object Agent.run at 0x7f00aa11bb22>", "coroutine"),
    ("<function handle at 0x7f00aa11bb22>", "function"),
    ("<bound method Bot.reply of <Bot object at 0x7f00aa11bb22>>", "method"),
    ("<Bot object at 0x7f00aa11bb22> and <Bot object at 0x7f00aa11bb23>", None),
    ("Your booking <ref at 0x1> is confirmed", None),
    ("<b>bold</b>", None),
    ("Call me at 0x7f3a2c1d9b40", None),
])
def test_a_reply_that_is_only_a_repr(text: str, kind: str | None) -> None:
    assert repr_type(text) == kind


def test_an_entry_returning_an_object_with_no_text_is_an_agent_error_naming_the_type() -> None:
    with pytest.raises(AgentCallError, match=r"agent returned a .*Itinerary object, not text"):
        normalise_reply(Itinerary())
    with pytest.raises(AgentCallError, match="agent returned a generator object"):
        normalise_reply({"text": gen()})
    assert normalise_reply(3.5)["text"] == "3.5"  # a value whose str() is text stays a reply


SSE = (
    'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n'
    'data: {"choices":[{"delta":{"content":"Gate "}}]}\n\n'
    ': keep-alive\n\n'
    'event: message\ndata: {"choices":[{"delta":{"content":"B12"}}]}\n\n'
    'data: [DONE]\n\n'
)


def test_server_sent_events_and_json_lines_are_joined() -> None:
    reply = streamed_body_text(SSE, "text/event-stream")
    assert reply["text"] == "Gate B12" and reply["notes"] == [
        "agent streamed its reply (text/event-stream): 3 event(s) joined"]
    plain = streamed_body_text("data: Flight \n\ndata: delayed\n\n", "text/event-stream")
    assert plain["text"] == "Flight delayed"
    lines = streamed_body_text('{"text": "On call: "}\n{"text": "Sam"}\n', "application/x-ndjson")
    assert lines["text"] == "On call: Sam"


def test_a_response_path_picks_each_events_text() -> None:
    body = 'data: {"out": {"t": "a"}}\n\ndata: {"usage": 3}\n\ndata: {"out": {"t": "b"}}\n\n'
    from khaos_action.engine.transport.http import dig

    assert streamed_body_text(body, "text/event-stream", lambda d: dig(d, "out.t"))["text"] == "ab"


def test_events_with_no_readable_text_are_an_error_naming_the_setting() -> None:
    with pytest.raises(AgentCallError, match="agent.response_path"):
        streamed_body_text('data: {"token": "a"}\n\ndata: {"token": "b"}\n\n', "text/event-stream")


@pytest.mark.parametrize("body, content_type, kind", [
    ("data: x\n\n", "text/event-stream; charset=utf-8", "text/event-stream"),
    ("data: x\n\n", "text/plain", "text/event-stream"),
    ('{"a": 1}\n{"a": 2}\n', "application/x-ndjson", "application/x-ndjson"),
    ('{"output": "x"}', "application/json", None),
    ("plain text", "text/plain", None),
])
def test_which_http_bodies_are_streams(body: str, content_type: str, kind: str | None) -> None:
    assert streamed_type(body, content_type) == kind


def test_langchain_message_chunks_are_read_as_text() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    stream = iter([messages.AIMessageChunk(content="Gate "), messages.AIMessageChunk(content=""),
                   messages.AIMessageChunk(content=[{"type": "text", "text": "B12"}])])
    assert read_sync(stream)["text"] == "Gate B12"


def test_openai_sdk_chunks_are_read_as_text() -> None:
    chunk = pytest.importorskip("openai.types.chat").ChatCompletionChunk
    parts = [chunk.model_validate({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                   "choices": [{"index": 0, "delta": delta}]})
             for delta in ({"role": "assistant"}, {"content": "On call: "}, {"content": "Sam"}, {})]
    assert read_sync(iter(parts))["text"] == "On call: Sam"
