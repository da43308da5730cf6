"""Frames between the engine and the python worker (engine/wire.py): the fast serialiser and parser give the same
values as the json path, and what they refuse still crosses."""

from __future__ import annotations

import math

import pytest

from khaos_action.engine.wire import FrameReader, WireError, decode, encode, encode_plain, reply_frame, reply_of
from khaos_action.messages import AgentResponse


@pytest.mark.parametrize("value", [
    {"op": "invoke", "payload": {"text": "Where is my order 000123?", "history": []}, "id": 7},
    {"text": "half a pair: \ud800 and a whole one: \ud83d\ude00"},  # lone surrogate: the json path
    {"deep": [[[["four levels"]]]]},
    {"big": 10**30, "ünïcode": "日本語", "none": None, "float": 0.1},
])
def test_a_frame_decodes_to_what_was_encoded_by_either_serialiser(value: dict) -> None:
    for frame in (encode(value), encode_plain(value)):
        assert decode(frame[4:]) == value


def test_nan_and_deep_nesting_past_the_fast_parsers_limit_still_cross() -> None:
    deep: list = []
    for _ in range(300):
        deep = [deep]
    decoded = decode(encode_plain({"x": float("nan"), "deep": deep})[4:])
    assert math.isnan(decoded["x"]) and decoded["deep"] == deep


def test_the_frame_reader_hands_over_every_whole_frame_and_reports_a_bad_one() -> None:
    frames: list[dict] = []
    ends: list[WireError | None] = []
    reader = FrameReader(frames.append, ends.append)
    data = encode({"id": 1}) + encode({"id": 2}) + encode({"id": 3})
    reader.data_received(data[:5])  # a header and one byte
    reader.data_received(data[5:-2])
    assert [f["id"] for f in frames] == [1, 2]
    reader.data_received(data[-2:])
    assert [f["id"] for f in frames] == [1, 2, 3] and ends == []
    reader.data_received(b"\x00\x00\x00\x02[]")  # not an object
    assert len(ends) == 1 and isinstance(ends[0], WireError)
    reader.data_received(encode({"id": 4}))  # nothing after the end
    reader.eof_received()
    assert [f["id"] for f in frames] == [1, 2, 3] and len(ends) == 1


def test_the_reader_reports_the_end_of_the_pipe_once_and_a_torn_frame_as_an_error() -> None:
    ends: list[WireError | None] = []
    FrameReader(lambda _: None, ends.append).eof_received()
    torn = FrameReader(lambda _: None, ends.append)
    torn.data_received(encode({"id": 1})[:6])
    torn.eof_received()
    torn.connection_lost(None)
    assert ends[0] is None and isinstance(ends[1], WireError) and len(ends) == 2


def test_an_agent_response_crosses_the_pipe_as_its_fields_and_reads_back_the_same() -> None:
    answer = AgentResponse(text="done", tool_calls=[{"name": "refund", "args": {"id": 3}}], notes=["n"],
                           notes_dropped=2, error="late", checks={"r": {"passed": True}}, extra={"pid": 41})
    frame = decode(encode(reply_frame(answer))[4:])
    assert reply_of(frame) == answer
    assert reply_frame(AgentResponse(text="hi", notes=[])) == {"text": "hi", "notes": []}  # only what it has
    assert reply_of({"text": "hi", "extra": ["not", "a", "dict"]}) == AgentResponse(text="hi")
    assert reply_of(None) is None and reply_of(["text"]) is None  # no answer: the pool says the worker sent none
