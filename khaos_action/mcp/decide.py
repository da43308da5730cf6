"""How one MCP request is answered for a case: which MCP fault fires (khaos_action/faults/mcp.py), which indirect
payload rides along, and how descriptions and results are rewritten. Pure logic over plain data: the MCP proxy
turns the decisions into SDK objects, so this module does not import the `mcp` SDK.

Attacks: `mcp_tool_description` payloads are appended to the description of every tool the server lists (an
injection may name `server` / `tool` to narrow it); `tool_output` / `rag_document` / `file_content` /
`error_message` payloads reach tool results as they do through the tool wrappers (faults/injections.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from khaos_action.faults.injections import embed, injections_for
from khaos_action.faults.mcp import McpCall, McpEffect, McpFaultBase, McpServerUnavailable, glob_match
from khaos_action.messages import ToolCall

DESCRIPTION_CHANNEL = "mcp_tool_description"


def server_down(ctx: Any, server: str) -> McpServerUnavailable | None:
    """The `server_unavailable` fault that refuses this request to `server` (counted as a hit), if any."""
    for fault in ctx.faults:
        if isinstance(fault, McpServerUnavailable) and fault.applies_to_server(server) and fault.fires(ctx):
            fault.hit(ctx)
            return fault
    return None


def poison_descriptions(ctx: Any, server: str, descriptions: dict[str, str]) -> dict[str, str]:
    """tool name -> description, with the case's `mcp_tool_description` payloads appended (one hit per listing
    that carried a payload)."""
    payloads = [i for i in ctx.injections if i.get("channel") == DESCRIPTION_CHANNEL
                and glob_match(str(i.get("server") or "*"), server)]
    if not payloads:
        return descriptions
    changed = dict(descriptions)
    for name in descriptions:
        for injection in payloads:
            if glob_match(str(injection.get("tool") or "*"), name):
                changed[name] = f"{changed[name]}\n\n{injection.get('payload', '')}".lstrip()
    if changed != descriptions:
        ctx.hits[f"injection:{DESCRIPTION_CHANNEL}"] += 1
    return changed


@dataclass
class McpDecision:
    call: McpCall
    effect: McpEffect = field(default_factory=McpEffect)
    fault_id: str | None = None
    injections: list[dict[str, Any]] = field(default_factory=list)


def decide_call(ctx: Any, call: McpCall, known_tools: list[str]) -> McpDecision:
    """The first MCP tool fault that applies and fires answers the call; tool-channel payloads ride along."""
    ctx.calls[f"mcp:{call.server}:{call.tool}"] += 1
    decision = McpDecision(call=call)
    for fault in ctx.faults:
        if (isinstance(fault, McpFaultBase) and not isinstance(fault, McpServerUnavailable)
                and fault.applies_to(call) and fault.fires(ctx)):
            fault.hit(ctx)
            decision.effect, decision.fault_id = fault.on_call(call), fault.id
            break
    decision.injections = injections_for(call.tool, ctx.injections, known_tools)
    if decision.fault_id is None:
        for injection in decision.injections:
            if injection.get("channel") == "error_message":
                # The attacker controls an error text the agent reads.
                decision.effect.error_text = str(injection.get("payload", ""))
                ctx.hits["injection:error_message"] += 1
                break
    return decision


def finish_call(ctx: Any, decision: McpDecision, texts: list[str], is_error: bool,
                structured: Any = None) -> tuple[list[str], Any]:
    """The text contents (and structured content) the agent receives: the fault's transform, then the indirect
    payloads embedded. Structured content is rewritten alike, string by string, so it stays valid against the
    tool's output schema and cannot contradict the text. The call is recorded on the case (tool_called invariants
    and forbidden-tool objectives read it)."""
    transform = decision.effect.transform
    if transform is not None and not is_error:
        texts = transform(texts)
        structured = _map_strings(structured, lambda text: transform([text])[0])
    for injection in [] if is_error else decision.injections:
        channel = injection.get("channel", "tool_output")
        if channel == "error_message":
            continue
        payload = str(injection.get("payload", ""))
        last = texts[-1] if texts else ""
        texts = [*texts[:-1], embed(last, payload, channel)]
        if structured is not None:
            structured = _embed_structured(structured, payload, channel)
        ctx.hits[f"injection:{channel}"] += 1
    call = decision.call
    joined = "\n".join(texts)[:2000]
    ctx.tool_calls.append(ToolCall(name=call.tool, args=dict(call.args), result=joined,
                                   error=joined if is_error else None, fault=decision.fault_id))
    return texts, structured


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    return value


def _embed_structured(value: dict[str, Any], payload: str, channel: str) -> dict[str, Any]:
    """The payload appended to the last top-level string field (schema-valid), else embedded as a new field."""
    keys = [k for k, v in value.items() if isinstance(v, str)]
    if keys:
        return {**value, keys[-1]: embed(value[keys[-1]], payload, channel)}
    return embed(value, payload, channel)
