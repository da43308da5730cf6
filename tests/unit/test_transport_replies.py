"""Pure tables: reply normalisation, request templates, response paths, call styles."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest

from khaos_action.engine.transport.base import (
    AgentCallError,
    normalise_reply,
    normalise_tool_calls,
    process_env,
)
from khaos_action.engine.transport.http import dig, extract_reply, render
from khaos_action.engine.transport.python import call_style
from khaos_action.errors import AgentError


@dataclass
class Result:
    output: str


@pytest.mark.parametrize("value, text, note", [
    ("plain", "plain", None),
    (None, "", "agent returned None"),
    (b"caf\xc3\xa9", "café", "bytes"),
    ({"text": "t"}, "t", None),
    ({"output": "o", "response": "r"}, "o", None),
    ({"response": "r"}, "r", None),
    ({"content": "c"}, "c", None),
    ({"output": None}, "", "`output` was NoneType"),
    ({"output": {"text": "inner"}}, "inner", "`output` was dict"),
    ({"answer": 1}, '{"answer": 1}', "without text/output/response/content"),
    (Result("framework"), "framework", "used .output"),
    (3.5, "3.5", "float"),
])
def test_normalise_reply(value: Any, text: str, note: str | None):
    reply = normalise_reply(value)
    assert reply["text"] == text
    assert isinstance(reply["tool_calls"], list)
    if note is None:
        assert reply["notes"] == []
    else:
        assert any(note in n for n in reply["notes"]), reply["notes"]


def test_normalise_reply_keeps_extra_keys_and_agent_notes():
    reply = normalise_reply({"text": "t", "sources": ["a"], "notes": "cached", "tool_calls": []})
    assert reply == {"text": "t", "sources": ["a"], "notes": ["cached"], "tool_calls": []}


@pytest.mark.parametrize("calls, expected", [
    ([{"name": "lookup", "args": {"id": 1}}], [{"name": "lookup", "args": {"id": 1}}]),
    ([{"function": {"name": "lookup", "arguments": '{"id": 1}'}}], [{"name": "lookup", "args": {"id": 1}}]),
    ([{"name": "lookup", "arguments": "not json"}], [{"name": "lookup", "args": {"raw": "not json"}}]),
    ({"name": "single"}, [{"name": "single", "args": {}}]),
    ([{"name": "kb", "args": {"q": "leave"}, "result": "25 days"}],  # the result the agent saw, for the judge
     [{"name": "kb", "args": {"q": "leave"}, "result": "25 days"}]),
    ([{"args": {}}], []),
    (None, []),
])
def test_normalise_tool_calls(calls: Any, expected: list):
    assert normalise_tool_calls(calls) == expected


def test_render_substitutes_deeply_and_keeps_other_values():
    template = {"input": "{{input}}", "n": 3, "meta": [{"s": "{{ session_id }}"}, "case={{case_id}}"],
                "history": "{{history}}", "{{case_id}}": True}
    values = {"input": "hi", "session_id": "s1", "case_id": "c1"}
    assert render(template, values, [{"role": "user", "content": "x"}]) == {
        "input": "hi", "n": 3, "meta": [{"s": "s1"}, "case=c1"], "history": [{"role": "user", "content": "x"}],
        "c1": True}


@pytest.mark.parametrize("data, path, expected", [
    ({"output": "x"}, "output", "x"),
    ({"choices": [{"message": {"content": "c"}}]}, "choices.0.message.content", "c"),
    ({"items": ["a", "b"]}, "items.-1", "b"),
])
def test_dig(data: Any, path: str, expected: Any):
    assert dig(data, path) == expected


@pytest.mark.parametrize("data, path, message", [
    ({"output": "x"}, "text", r"no 'text' in the response \(it has keys output\)"),
    ({"choices": []}, "choices.0.message", "is a list of 0, no index 0"),
    ({"a": "str"}, "a.b", "no 'b' in a .it has a str"),
])
def test_dig_errors_say_what_is_there(data: Any, path: str, message: str):
    with pytest.raises(AgentCallError, match=message):
        dig(data, path)


@pytest.mark.parametrize("body, path, text", [
    ('{"output": "o"}', None, "o"),
    ('{"message": "m", "id": 1}', None, "m"),
    ('{"data": {"x": 1}}', None, '{"data": {"x": 1}}'),
    ('"just a json string"', None, "just a json string"),
    ("plain text", None, "plain text"),
    ('{"result": {"answer": "deep"}}', "result.answer", "deep"),
])
def test_extract_reply(body: str, path: str | None, text: str):
    assert extract_reply(body, "application/json", path)["text"] == text


class Msg(TypedDict):
    text: str


def _str(text: str) -> str: ...
def _bare(x): ...
def _dict(m: dict) -> str: ...
def _dict_generic(m: dict[str, Any]) -> str: ...
def _mapping(m: Mapping[str, Any]) -> str: ...
def _typed(m: Msg) -> str: ...
def _named(request): ...
def _string_annotation(m: dict[str, object]): ...
def _unresolvable(m: SomeUnknownDict): ...  # noqa: F821
def _extras(text: str, history=None, session_id=None): ...
def _star(*args): ...


PAYLOAD = {"text": "hi", "history": [{"role": "user", "content": "a"}], "session_id": "s"}


@pytest.mark.parametrize("fn, args, kwargs", [
    (_str, ("hi",), {}),
    (_bare, ("hi",), {}),
    (_dict, (PAYLOAD,), {}),
    (_dict_generic, (PAYLOAD,), {}),
    (_mapping, (PAYLOAD,), {}),
    (_typed, (PAYLOAD,), {}),
    (_named, (PAYLOAD,), {}),
    (_string_annotation, (PAYLOAD,), {}),
    (_unresolvable, ("hi",), {}),
    (_extras, ("hi",), {"history": PAYLOAD["history"], "session_id": "s"}),
    (_star, ("hi",), {}),
    (len, ("hi",), {}),
])
def test_call_style_reads_the_signature(fn: Any, args: tuple, kwargs: dict):
    assert call_style(fn, "x.py:f")(PAYLOAD) == (args, kwargs)


def test_env_renders_port_and_vars_and_rejects_unrendered_templates():
    environ = {"KHAOS_UNIT_HOST": "127.0.0.1", "PATH": "/usr/bin"}  # the run's environment, as the shell hands it
    env = process_env({"URL": "http://${KHAOS_UNIT_HOST}:{{port}}/v1"}, {"A": "engine"}, {"B": "instance"},
                      environ=environ, port=81)
    assert (env["URL"], env["A"], env["B"]) == ("http://127.0.0.1:81/v1", "engine", "instance")
    rendered = process_env({"OPENAI_BASE_URL": "{{ llm_proxy }}"}, None, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
                           environ=environ)
    assert rendered["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"
    with pytest.raises(AgentError, match="still holds a template"):
        process_env({"OPENAI_BASE_URL": "{{ llm_proxy }}"}, None, None, environ=environ)
