"""How a run reaches the MCP servers an agent uses (`agent.mcp_servers`): start the MCP proxy, hand its addresses
to the agent (`env_for(instance)`, added to the agent process's environment: the python worker's or each
out-of-process instance's; never our own os.environ), and bind it alongside the chaos proxy when an agent instance
starts or finishes a case.

A python / framework agent's worker processes all get instance 0's addresses, so the proxy could not tell their
concurrent cases apart: such runs go one case at a time whenever a case carries faults or payloads (the run says so).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from khaos_action.config.models import AgentConfig
from khaos_action.engine.context import CaseContext
from khaos_action.messages import AgentRequest

SERIAL_NOTE = ("the agent's worker processes reach its MCP servers at one address, so cases ran one at a time "
               "to attribute each MCP request to its case; run the agent as `type: command` with "
               "`instances: N` to run cases in parallel")


async def start_mcp_proxy(stack: AsyncExitStack, agent: AgentConfig, base_dir: Path,
                          environ: Mapping[str, str]) -> Any:
    """The started McpProxy (stopped by `stack`), or None when the agent declares no MCP servers. The caller puts
    `proxy.env_for(instance)` in the agent's environment."""
    if not agent.mcp_servers:
        return None
    from khaos_action.mcp.proxy import McpProxy

    proxy = McpProxy(list(agent.mcp_servers), base_dir, environ=environ)
    stack.push_async_callback(proxy.stop)
    await proxy.start()
    return proxy


class WithMcp:
    """The run's FaultHooks, plus binding the MCP proxy's instance routes to the case they serve."""

    def __init__(self, hooks: Any, proxy: Any) -> None:
        self.hooks, self.mcp = hooks, proxy

    def bind_faults(self, specs: Sequence[dict[str, Any]], rng: random.Random) -> list[Any]:
        return self.hooks.bind_faults(specs, rng)

    def transform_request(self, request: AgentRequest, ctx: CaseContext) -> AgentRequest:
        return self.hooks.transform_request(request, ctx)

    def instance_bound(self, instance: int, ctx: CaseContext | None) -> None:
        self.hooks.instance_bound(instance, ctx)
        self.mcp.bind(instance, ctx)


def with_mcp(hooks: Any, proxy: Any) -> Any:
    return hooks if proxy is None else WithMcp(hooks, proxy)


def mcp_warnings(proxy: Any, fault_specs: Sequence[dict[str, Any]]) -> list[str]:
    """After the run: MCP servers that MCP faults target but that the agent never reached through the proxy."""
    if proxy is None:
        return []
    import fnmatch

    incidents = list(getattr(proxy, "incidents", []))  # a server the agent uses died mid-run: always reported

    targeted = {name for name in proxy.servers for spec in fault_specs if spec.get("target") == "mcp"
                and fnmatch.fnmatchcase(name, str(spec.get("server") or "*"))}
    missed = sorted(targeted & set(proxy.unreached()))
    if not missed:
        return incidents
    variables = ", ".join(proxy.servers[name].env_var for name in missed)
    message = (f"MCP faults target {', '.join(missed)}, but the agent never reached "
               f"{'it' if len(missed) == 1 else 'them'} through the MCP proxy: make the agent read its server "
               f"address from {variables} (set by khaos-action for the run).")
    return [*incidents, message]
