"""`type: mcp`: which tool of the agent's MCP server takes each input, and which of its arguments carries it."""

from __future__ import annotations

import pytest

from khaos_action.errors import ConfigError
from khaos_action.mcp.transport import input_argument, input_tool


@pytest.mark.parametrize(("names", "chosen", "picked"), [
    (["ask"], None, "ask"),  # the only tool
    (["search", "chat"], None, "chat"),
    (["search", "chat"], "search", "search"),
    (["ask"], "ask", "ask"),
])
def test_the_input_tool_as_a_table(names: list[str], chosen: str | None, picked: str) -> None:
    assert input_tool(names, chosen) == picked


@pytest.mark.parametrize(("names", "chosen", "message"), [
    (["search", "lookup"], None, r"several tools \(lookup, search\); say which one takes the input with "
                                 r"agent\.mcp\.tool"),
    ([], None, r"several tools \(none\)"),
    (["search"], "chat", r"agent\.mcp\.tool 'chat' is not a tool of the agent's MCP server \(it lists: search\)"),
])
def test_a_tool_that_cannot_be_told_is_a_config_error(names: list[str], chosen: str | None, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        input_tool(names, chosen)


_TEXT = {"type": "string"}


@pytest.mark.parametrize(("schema", "chosen", "picked"), [
    ({"properties": {"q": _TEXT, "n": {"type": "integer"}}, "required": ["q", "n"]}, None, "q"),
    ({"properties": {"input": _TEXT, "lang": _TEXT}, "required": ["input", "lang"]}, None, "input"),
    ({"properties": {"input": _TEXT, "lang": _TEXT}}, None, "input"),
    ({}, None, "input"),  # declares nothing: the conventional name
    ({"properties": {"q": _TEXT, "lang": _TEXT}}, "lang", "lang"),
    ({}, "whatever", "whatever"),  # nothing declared to check it against
])
def test_the_input_argument_as_a_table(schema: dict, chosen: str | None, picked: str) -> None:
    assert input_argument("ask", schema, chosen) == picked


@pytest.mark.parametrize(("schema", "chosen", "message"), [
    ({"properties": {"q": _TEXT, "lang": _TEXT}}, None,
     r"cannot tell which argument of 'ask' takes the input \(it has q, lang\); set agent\.mcp\.argument"),
    ({"properties": {"q": _TEXT}}, "text", r"agent\.mcp\.argument 'text' is not a parameter of 'ask' \(it has q\)"),
])
def test_an_argument_that_cannot_be_told_is_a_config_error(schema: dict, chosen: str | None, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        input_argument("ask", schema, chosen)
