"""One agent session for a run: the transport, and the chaos machinery that reaches this kind of agent.

Which kind an agent is, its `agent.type` entry in the transport registry says (khaos_action/transports.py):
- in-process types (python and the frameworks) run in the python worker (engine/worker/pool.py): there their
  tools are wrapped (ToolPatcher, entered after the agent is imported so it wraps the very function objects the
  agent calls) and httpx/requests are intercepted. Framework agents (pydantic-ai, langgraph, openai-agents) run the
  same way; the tools their adapter found on the agent object are wrapped too.
- out-of-process types (http/command/mcp) run as their own processes. With `proxy` (every built-in one), a chaos
  proxy on 127.0.0.1 sits between them and their dependencies (agent.env `{{ llm_proxy }}` / `{{ proxy('…') }}`),
  one route per agent instance. When the agent is one shared server (no `{{port}}` in `start`), the proxy cannot
  tell concurrent cases apart, so cases with faults run one at a time and the report says so.

Above the engine and mcp/ (it assembles both), below the pipeline: not in engine/, which mcp/ builds on.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from khaos_action.config.agent_block import DEFAULT_LLM_UPSTREAM, InProcessAgent, ProcessAgent
from khaos_action.config.models import AgentConfig
from khaos_action.engine.chaos.hooks import FaultHooks
from khaos_action.engine.llm_runtime import LlmSettings
from khaos_action.engine.runner import InstanceBinder
from khaos_action.engine.transport.base import Transport
from khaos_action.errors import ConfigError
from khaos_action.extensions import Extension
from khaos_action.services import Services
from khaos_action.transports import TransportEntry, transport_entry

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class AgentSetup:
    """What starting the agent reads of the config (the config stage makes it)."""

    agent: AgentConfig
    base_dir: Path
    """The config's folder: the agent's entry, its working directory and the cassette are relative to it."""
    concurrency: int = 8
    llm: LlmSettings = LlmSettings()
    """The cassette and prices the python worker answers LLM calls with."""
    extensions: tuple[Extension, ...] = ()
    """The run's extension modules: the python worker imports them too."""


@dataclass(slots=True)
class AgentSession:
    transport: Transport
    hooks: FaultHooks
    patcher: Any = None
    proxy: Any = None
    serial: bool = False
    """True when fault attribution needs one case at a time (a shared out-of-process server)."""
    serial_note: str | None = None
    """Why cases run one at a time, when it is not the shared-server reason."""
    mcp: Any = None
    """The MCP proxy in front of agent.mcp_servers (khaos_action/mcp/wiring.py), if any."""
    traffic: Any = None
    """In-process agents: the HTTP clients intercepted and the requests cases made (chaos/intercept.py)."""
    notes: list[str] = field(default_factory=list)

    def check_reachable(self, fault_specs: Sequence[dict[str, Any]], agent_type: str) -> None:
        """Tool faults must be able to reach a tool before the run starts (never skipped silently)."""
        from khaos_action.engine.chaos.reach import check_tool_faults_reachable

        tool_faults = [f for f in fault_specs if f.get("target") == "tool"]
        if not tool_faults:
            return
        if self.patcher is None:
            raise ConfigError(
                f"tool faults are configured, but a {agent_type} agent's tools run in another process where they "
                f"cannot be wrapped. Route the tool's HTTP API through `{{{{ proxy('https://tool.api') }}}}` in "
                f"agent.env and use http_faults, or run the agent as `type: python`.")
        check_tool_faults_reachable(self.patcher.tool_names, tool_faults)

    def one_at_a_time(self, cases: Sequence[Any]) -> str | None:
        """Why `cases` run one at a time on this agent, or None: a shared out-of-process server cannot tell
        concurrent cases apart, so when a case needs its dependency calls attributed to it (a fault, a payload
        the MCP proxy delivers, an attack host the chaos proxy answers) they run serially."""
        if not self.serial:
            return None
        attributed = (any(case.faults for case in cases)
                      or (self.mcp is not None and any(case.injections for case in cases))
                      or (self.proxy is not None and _names_attack_hosts(cases)))
        if not attributed:
            return None
        return self.serial_note or ("the agent is one shared server, so cases ran one at a time to attribute each "
                                    "dependency call to its case; put `{{port}}` in agent.start to run "
                                    "agent.instances servers in parallel")

    def unreached(self, fault_specs: Sequence[dict[str, Any]], results: Sequence[Any] = ()) -> list[str]:
        """After the run: configured tools (and MCP servers) whose faults never had a call to fire on, and
        in-process http/llm faults that never fired, each with the reason the run shows."""
        from khaos_action.mcp.wiring import mcp_warnings

        missed = mcp_warnings(self.mcp, fault_specs)
        if self.patcher is None:
            return missed
        from khaos_action.engine.chaos.reach import (
            http_faults_never_fired,
            never_reached_message,
            unreached_tools,
        )

        tool_faults = [f for f in fault_specs if f.get("target") == "tool"]
        names = unreached_tools(self.patcher.reached, self.patcher.tool_names, tool_faults)
        missed += [never_reached_message(names, tool_faults, list(results))] if names else []
        return missed + http_faults_never_fired(list(fault_specs), list(results), self.traffic)


def _names_attack_hosts(cases: Sequence[Any]) -> bool:
    """Whether the chaos proxy answers attack hosts for some case (the hosts an attack's text names)."""
    from khaos_action.engine.chaos.egress import attack_hosts

    return any(attack_hosts(case) for case in cases)


def worker_extensions(extensions: Sequence[Extension], entry: TransportEntry) -> tuple[Extension, ...]:
    """What the python worker imports before it builds the transport: the run's extensions, and the module of an
    extension entry registered by a caller of the run API who imported it without naming it."""
    found = list(extensions)
    for part in (entry.build, entry.params):
        module = getattr(part, "__module__", None) if not isinstance(part, str) else None
        if module and module.split(".")[0] != "khaos_action" and module != "__main__":
            found.append(Extension.of(module))
    return tuple(dict.fromkeys(found))


async def alongside(work: Awaitable[T], meanwhile: Callable[[], None] | None) -> T:
    """`work`, with `meanwhile` run on a thread until both are done: the agent's processes start, or answer, on the
    other core while this one would only wait for them (the run's imports go there)."""
    if meanwhile is None:
        return await work
    # The loop's thread must not wait 5 ms (the default switch interval) for the GIL at each step of the start
    # while the other thread imports: spawning the worker alone would wait several times over.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    side = asyncio.get_running_loop().run_in_executor(None, meanwhile)
    try:
        return await work
    finally:
        try:
            await side
        finally:
            sys.setswitchinterval(interval)


@asynccontextmanager
async def agent_session(setup: AgentSetup, binder: InstanceBinder, services: Services,
                        meanwhile: Callable[[], None] | None = None,
                        early: Any = None) -> AsyncIterator[AgentSession]:
    """The agent, started, with the chaos machinery around it; `services.environ` is the environment its processes
    are given (through engine/sandbox.py) and `${VAR}` in agent.env is read from. `meanwhile`: work of the caller's
    (its imports) run on a thread while the agent starts, after this process has done its own share of the start.
    `early`: the python worker's zygote as engine/transport/early.py started it, adopted when it is the one this
    session would start."""
    from khaos_action.engine.transport.factory import build_transport

    agent, base_dir = setup.agent, setup.base_dir
    entry = transport_entry(agent.type)
    async with AsyncExitStack() as stack:
        from khaos_action.mcp.wiring import SERIAL_NOTE, start_mcp_proxy, with_mcp

        mcp = await start_mcp_proxy(stack, agent, base_dir, services.environ)
        if isinstance(agent, InProcessAgent):  # the entry's in_process (config/agents.py keeps the two agreeing)
            from khaos_action.engine.llm_runtime import worker_llm_setup
            from khaos_action.engine.worker.pool import WorkerTransport
            from khaos_action.engine.worker.start import python_worker

            transport = WorkerTransport(
                agent, base_dir=base_dir, environ=services.environ, concurrency=setup.concurrency,
                **python_worker(agent, services.environ, mcp.env_for(0) if mcp is not None else None),
                llm=worker_llm_setup(setup.llm, base_dir, services.environ),
                extensions=worker_extensions(setup.extensions, entry), early=early)
            stack.push_async_callback(transport.close)
            await alongside(transport.start(), meanwhile)
            hooks = with_mcp(FaultHooks(), mcp)
            binder.chaos = hooks
            # The worker wraps the tools; the transport reports their names, which ones were reached, and the
            # HTTP traffic its interception saw.
            yield AgentSession(transport=transport, hooks=hooks, patcher=transport, mcp=mcp, serial=mcp is not None,
                               serial_note=SERIAL_NOTE if mcp is not None else None, traffic=transport.traffic)
            return
        from khaos_action.engine.chaos.proxy import ChaosProxy, render_env

        proxy = None
        if entry.proxy:
            proxy = ChaosProxy()
            await proxy.start()
            stack.push_async_callback(proxy.stop)
        upstream = agent.llm_upstream if isinstance(agent, ProcessAgent) else DEFAULT_LLM_UPSTREAM
        transport = build_transport(
            agent, base_dir=base_dir, services=services, concurrency=setup.concurrency, bind_instance=binder,
            # Without a proxy, agent.env's `{{ llm_proxy }}` renders to the upstream itself (unfaulted).
            env_for_instance=lambda i: {**render_env(agent.env, proxy, i, upstream),
                                        **(mcp.env_for(i) if mcp is not None else {})},
        )
        stack.push_async_callback(transport.close)
        await alongside(transport.start(), meanwhile)
        hooks = with_mcp(FaultHooks(proxy), mcp)
        binder.chaos = hooks
        serial = not transport.exclusive
        yield AgentSession(transport=transport, hooks=hooks, proxy=proxy, serial=serial, mcp=mcp)
