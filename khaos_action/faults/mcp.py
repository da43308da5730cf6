"""Built-in MCP faults (target `mcp`): what an MCP tool call or server answers instead. Pure logic over plain data
(mcp/decide.py picks the fault for one request, the MCP proxy turns effects into SDK objects), so this module
does not import the `mcp` SDK.

Faults (listed under a scenario's `mcp_faults`, or in a pack phase with `target: mcp`; `server` and `tool` are
globs over `agent.mcp_servers[].name` and the MCP tool name):
- `tool_failure`: the call is answered with an error result (`isError: true`) without reaching
  the server.
- `tool_latency`: the call waits `delay_ms` (default 1000), then goes through.
- `tool_corruption`: the call goes through and its text content comes back garbled
  (`style: garble`, seeded per fault) or cut in half (`style: truncate`).
- `server_unavailable`: every request to the server (connect, list, call) is answered HTTP 503.
Each counts one hit per request it answered, on the case (manifest `faults_fired`).
"""

from __future__ import annotations

import fnmatch
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from pydantic import Field

from khaos_action.faults.registry import Fault, FaultParams, register_fault


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
        return glob_match(self.params.server, server)

    def applies_to(self, call: McpCall) -> bool:
        return self.applies_to_server(call.server) and glob_match(self.params.tool, call.tool)

    def on_call(self, call: McpCall) -> McpEffect:
        raise NotImplementedError


def glob_match(pattern: str, name: str) -> bool:
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
