"""A chat message's content as text, written once (khaos_action/chat.py) for the attacker, LLM mutation, the LLM
judge and the LangGraph adapter: a string, or a list of parts whose text parts are the text."""

from __future__ import annotations

from typing import Any

import pytest

from khaos_action.chat import NotAChatCompletion, content_text, reply_content


@pytest.mark.parametrize(("content", "text"), [
    ("plain", "plain"),
    ("", ""),
    ([{"type": "text", "text": "Hello, "}, {"type": "text", "text": "world"}], "Hello, world"),
    (["as ", "strings"], "as strings"),
    ([{"text": "no type is text"}], "no type is text"),
    ([{"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": "only this"}], "only this"),
    ([{"type": "tool_use", "id": "t1"}], ""),  # parts, none of them text
    ([], ""),
    (None, None),
    ({"text": "a dict is not content"}, None),
    (42, None),
])
def test_content_as_text(content: Any, text: str | None) -> None:
    assert content_text(content) == text


def test_the_reply_content_of_a_completion_and_what_is_not_one() -> None:
    parts = [{"type": "text", "text": "hi"}]
    assert reply_content({"choices": [{"message": {"role": "assistant", "content": parts}}]}) is parts
    assert reply_content({"choices": [{"message": {"content": None}}]}) is None
    for body in ({}, {"choices": []}, {"choices": [{}]}, {"choices": [{"message": "x"}]}, [], "text", None):
        with pytest.raises(NotAChatCompletion):
            reply_content(body)
    assert issubclass(NotAChatCompletion, ValueError)  # callers catch it beside json's errors
