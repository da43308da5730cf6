"""MCP faults (target `mcp`) and how one MCP request is answered for a case: which fault fires, which indirect
payload rides along, and how descriptions and results are rewritten. Pure logic over plain data: the MCP proxy
turns the decisions into SDK objects, so this module does not import the `mcp` SDK.

Faults (listed under a scenario's `mcp_faults`, or in a pack phase with `target: mcp`; `server` and `tool` are
globs over `agent.mcp_servers[].name` and the MCP tool name):
- `tool_failure`: the call is answered with an error result (`isError: true`) without reaching
  the server.
- `tool_latency`: the call waits `delay_ms` (default 1000), then goes through.
- `tool_corruption`: the call goes through and its text content comes back garbled
  (`style: garble`, seeded per fault) or cut in half (`style: truncate`).
- `server_unavailable`: every request to the server (connect, list, call) is answered HTTP 503.
Each counts one hit per request it answered, on the case (manifest `faults_fired`).

Attacks: `mcp_tool_description` payloads are appended to the description of every tool the server lists (an
injection may name `server` / `tool` to narrow it); `tool_output` / `rag_document` / `file_content` /
`error_message` payloads reach tool results as they do through the tool wrappers (engine/chaos/injections.py).
"""

from __future__ import annotations

import fnmatch
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import Field

from khaos_action.engine.chaos.injections import embed, injections_for
from khaos_action.engine.chaos.registry import Fault, FaultParams, register_fault
from khaos_action.engine.messages import ToolCall

DESCRIPTION_CHANNEL = "mcp_tool_description"


@dataclass
class McpCall:
    server: str
    tool: str
    args: dict[str, Any]

    @cached_property
    def args_json(self) -> str:
        return json.dumps(self.args, sort_keys=True, default=str)


@dataclass
class McpEffect:
    """How one tools/call is answered. Order: wait `delay_s`; answer `error_text` as an error result without
    calling the server; or call it and pass its text contents through `transform`."""

    delay_s: float = 0.0
    error_text: str | None = None
    transform: Callable[[list[str]], list[str]] | None = None


class McpParams(FaultParams):
    server: str = "*"
    """The MCP server name (glob, from agent.mcp_servers) the fault applies to."""
    tool: str = "*"
    """The MCP tool name (glob) the fault applies to; ignored by `server_unavailable`."""


class McpFaultBase(Fault):
    Params = McpParams
    params: McpParams

    def applies_to_server(self, server: str) -> bool:
        return _glob(self.params.server, server)

    def applies_to(self, call: McpCall) -> bool:
        return self.applies_to_server(call.server) and _glob(self.params.tool, call.tool)

    def on_call(self, call: McpCall) -> McpEffect:
        raise NotImplementedError


def _glob(pattern: str, name: str) -> bool:
    return pattern == "*" or pattern == name or fnmatch.fnmatchcase(name, pattern)


class FailureParams(McpParams):
    message: str = "Tool execution failed: internal server error"


@register_fault("tool_failure", target="mcp")
class McpToolFailure(McpFaultBase):
    Params = FailureParams
    params: FailureParams

    def on_call(self, call: McpCall) -> McpEffect:
        return McpEffect(error_text=self.params.message)


class LatencyParams(McpParams):
    delay_ms: float = Field(1000.0, ge=0)


@register_fault("tool_latency", target="mcp")
class McpToolLatency(McpFaultBase):
    Params = LatencyParams
    params: LatencyParams

    def on_call(self, call: McpCall) -> McpEffect:
        return McpEffect(delay_s=self.params.delay_ms / 1000)


class CorruptionParams(McpParams):
    style: Literal["garble", "truncate"] = "garble"


@register_fault("tool_corruption", target="mcp")
class McpToolCorruption(McpFaultBase):
    """The real result, garbled: every other letter or digit replaced (seeded), or the text cut in half."""

    Params = CorruptionParams
    params: CorruptionParams

    def on_call(self, call: McpCall) -> McpEffect:
        return McpEffect(transform=lambda texts: [self._corrupt(t) for t in texts])

    def _corrupt(self, text: str) -> str:
        if self.params.style == "truncate":
            return text[: len(text) // 2]
        pool = string.ascii_letters + string.digits + "#%&?"
        rng = random.Random(f"{self.id}|{text}")  # the same text garbles the same way (text and structured agree)
        chars = list(text)
        for i, ch in enumerate(chars):
            if ch.isalnum() and i % 2 == 0:
                chars[i] = rng.choice(pool.replace(ch, ""))
        return "".join(chars) + "\ufffd"


class UnavailableParams(McpParams):
    status: int = Field(503, ge=400, le=599)


@register_fault("server_unavailable", target="mcp")
class McpServerUnavailable(McpFaultBase):
    """The whole server is down for the case: the proxy answers every HTTP request to it with `status`."""

    Params = UnavailableParams
    params: UnavailableParams

    def on_call(self, call: McpCall) -> McpEffect:  # calls never get this far: the request is refused first
        return McpEffect(error_text="server unavailable")


# ---- decisions for one case -------------------------------------------------------------------------------------

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
                and _glob(str(i.get("server") or "*"), server)]
    if not payloads:
        return descriptions
    changed = dict(descriptions)
    for name in descriptions:
        for injection in payloads:
            if _glob(str(injection.get("tool") or "*"), name):
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
