"""Indirect attack payloads delivered through a dependency: which tool call carries which payload, and how a payload
is embedded into a real tool result (so the agent reads it where it would read attacker-controlled data)."""

from __future__ import annotations

import re
from typing import Any

TOOL_CHANNELS = ("tool_output", "rag_document", "file_content", "error_message", "memory")
"""Channels the tool wrappers deliver. `memory` also goes into LLM requests (faults/context.py), and only through a
tool whose name says it reads memory; `mcp_tool_description` goes into LLM requests and the MCP proxy."""

# A tool name that suggests a channel gets that channel's payloads; other tools get `tool_output` only.
_CHANNEL_HINTS = {
    "rag_document": re.compile(r"retriev|search|doc|knowledge|rag|vector|lookup_kb|kb_|wiki|faq", re.IGNORECASE),
    "file_content": re.compile(r"read|file|open|load|fetch_file|cat_|fs_", re.IGNORECASE),
    "memory": re.compile(r"memor|recall|remember|notes?\b|history|profile", re.IGNORECASE),
}
# Memory is read through a memory tool or not at all: any other tool returning "memories" would be no memory attack.
_HINT_REQUIRED = {"memory"}


def hinted(channel: str, tool: str) -> bool:
    pattern = _CHANNEL_HINTS.get(channel)
    return pattern is None or bool(pattern.search(tool))


def injections_for(tool: str, injections: list[dict[str, Any]], known_tools: list[str]) -> list[dict[str, Any]]:
    """The injections one call to `tool` must carry.

    An injection naming a tool goes to that tool only; one listing `tools` (the tools whose role carries the
    channel, attacks/surface.py) to those only. Otherwise `tool_output` / `error_message` go to any tool;
    `rag_document` / `file_content` go to tools whose name suggests the channel, or to any tool when none of the
    agent's known tools does (a payload that reaches nothing would leave the attack unexercised).
    """
    return [injection for injection in injections
            if injection.get("channel") in TOOL_CHANNELS and _carries(injection, tool, known_tools)]


def _carries(injection: dict[str, Any], tool: str, known_tools: list[str]) -> bool:
    """Whether a call to `tool` carries the injection: the tools it lists, the tool it names, else by the
    channel's hint."""
    channel, named, listed = injection.get("channel"), injection.get("tool"), injection.get("tools")
    if listed is not None:
        return tool in listed
    if named:
        return named == tool
    return hinted(channel, tool) or (channel not in _HINT_REQUIRED
                                     and not any(hinted(channel, known) for known in known_tools))


def embed(result: Any, payload: str, channel: str = "tool_output") -> Any:
    """`result` with `payload` added the way that channel's data would carry it, keeping the result's type."""
    if isinstance(result, str):
        if channel == "rag_document":
            return f"{result}\n\n---\nDocument: {payload}"
        return f"{result}\n{payload}" if result else payload
    if isinstance(result, dict):
        return _embed_in_mapping(result, payload, channel)
    if isinstance(result, list):
        if result and isinstance(result[0], dict):
            return [*result, _shaped_like(result[0], payload)]
        return [*result, payload]
    if result is None:
        return payload
    return f"{result}\n{payload}"


def _embed_in_mapping(result: dict[str, Any], payload: str, channel: str) -> dict[str, Any]:
    """Into the mapping's first list of records, else under a key of its own named for the channel."""
    for key in ("documents", "results", "items", "hits", "data"):
        if isinstance(result.get(key), list):
            return {**result, key: embed(result[key], payload, channel)}
    field = {"rag_document": "document", "file_content": "content", "memory": "memory"}.get(channel, "note")
    while field in result:
        field = f"{field}_"
    return {**result, field: payload}


def _shaped_like(example: dict[str, Any], payload: str) -> dict[str, Any]:
    """An element like the list's first one, with the payload in its first text field."""
    text_keys = [k for k, v in example.items() if isinstance(v, str)]
    key = next((k for k in ("content", "text", "body", "snippet", "page_content") if k in example), None)
    key = key or (text_keys[-1] if text_keys else "content")
    return {k: ("" if isinstance(v, str) else v) for k, v in example.items()} | {key: payload}


def place(result: Any, payload: str, channel: str, *, placement: str | None = None, field: str | None = None) -> Any:
    """`result` with `payload` where the attack put it: `field` (that key of a mapping, or of the last item of a list
    of mappings that has it), at the start (`placement: prepend`) or the end of the text; without either, `embed`.
    A result without the field gets the payload as `embed` adds it, so it is still delivered."""
    if field is not None:
        placed = _into_field(result, payload, field, prepend=placement == "prepend")
        if placed is not None:
            return placed
    if placement == "prepend":
        if isinstance(result, str):
            return f"{payload}\n{result}" if result else payload
        if isinstance(result, list):
            return [_shaped_like(result[0], payload) if result and isinstance(result[0], dict) else payload, *result]
    return embed(result, payload, channel)


def _into_field(result: Any, payload: str, field: str, *, prepend: bool) -> Any | None:
    def joined(value: Any) -> str:
        text = "" if value is None else str(value)
        if not text:
            return payload
        return f"{payload}\n{text}" if prepend else f"{text}\n{payload}"

    if isinstance(result, dict) and field in result:
        return {**result, field: joined(result[field])}
    if isinstance(result, list):
        for index in range(len(result) - 1, -1, -1):  # the newest record: where data from outside arrives last
            item = result[index]
            if isinstance(item, dict) and field in item:
                return [*result[:index], {**item, field: joined(item[field])}, *result[index + 1:]]
    return None
