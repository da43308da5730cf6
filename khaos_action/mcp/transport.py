"""The `mcp` transport: the agent is an MCP server (stdio command or streamable-HTTP URL, `agent.mcp`), and each
input is one call of its tool, through the official `mcp` SDK.

Which tool and argument: `agent.mcp.tool` (default: the server's only tool, else one named `chat`) and
`agent.mcp.argument` (default: the tool's only required string parameter, else one named `input`), checked against
the server's listing when the run starts. Optional `session_argument` / `history_argument` carry the session id and
the conversation. The reply is the result's text content; a structured result with a text field (and optionally
`tool_calls`) is read like any agent reply. An error result (`isError`) fails the call with its text.

stdio: `agent.instances` server processes, each with its own environment (`agent.env`, chaos-proxy and MCP-proxy
addresses) and serving one case at a time, so dependency calls are attributed per instance. A process that dies is
restarted for the next call. URL: one shared server (started by `agent.start` when given, and waited for until it
completes the MCP handshake); calls run concurrently.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from khaos_action.config.agents import McpTypeAgent
from khaos_action.engine.sandbox import limits_from
from khaos_action.engine.transport.base import (
    TEXT_KEYS,
    AgentCallError,
    BindInstance,
    EnvForInstance,
    OutputTail,
    TransportBase,
    describe_exit,
    normalise_reply,
    process_env,
    response,
    settle,
    spawn,
    terminate,
)
from khaos_action.engine.transport.pool import InstancePool
from khaos_action.errors import AgentError, ConfigError
from khaos_action.mcp.connection import (
    McpConnectError,
    McpConnection,
    describe_error,
    require_sdk,
    result_texts,
)
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.services import Services
from khaos_action.transports import BuildOptions


class _Instance:
    def __init__(self, index: int) -> None:
        self.index = index
        self.connection: McpConnection | None = None
        self.restarts: list[str] = []
        self.served = 0
        """Calls answered since this connection (and its server) started."""
        self.broken = False
        """A call failed below the protocol (connection closed, timed out): replace the server before the next."""
        self.last_case: str | None = None


class McpTransport(TransportBase):
    def __init__(self, agent: McpTypeAgent, *, base_dir: Path, services: Services,
                 env: Mapping[str, str] | None = None,
                 env_for_instance: EnvForInstance | None = None, bind_instance: BindInstance | None = None,
                 connect_timeout_s: float = 30.0) -> None:
        self.agent, self.spec, self.environ = agent, agent.mcp, services.environ
        self.cwd = Path(base_dir) / agent.cwd if agent.cwd else Path(base_dir)
        self.env, self.env_for_instance, self.bind_instance = env or {}, env_for_instance, bind_instance
        self.has_reset = self.spec.reset_tool is not None
        self.exclusive = bool(self.spec.command)
        """stdio instances are separate processes, each serving one case at a time."""
        self.instance_count = agent.instances if self.exclusive else 1
        self.connect_timeout_s = connect_timeout_s
        self.tool: str = self.spec.tool or ""
        self.argument: str = self.spec.argument or ""
        self._instances = [_Instance(i) for i in range(self.instance_count)]
        self._pool: InstancePool[_Instance] | None = None
        self._server: asyncio.subprocess.Process | None = None
        self._server_log = OutputTail()
        self._drains: list[asyncio.Task[None]] = []
        self._started = False
        self._revive = asyncio.Lock()

    # ---- lifecycle --------------------------------------------------------------------------------------------------
    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        try:
            require_sdk()
            if self.spec.command:
                await asyncio.gather(*(self._connect(inst) for inst in self._instances))
            else:
                await self._start_url_server()
            await self._resolve_tool()
        except BaseException:
            await self.close()
            raise
        self._pool = InstancePool(self._instances, self.bind_instance)

    def _instance_env(self, index: int) -> dict[str, str]:
        extra = self.env_for_instance(index) if self.env_for_instance else None
        return process_env(self.agent.env, self.env, extra, environ=self.environ, pass_env=self.agent.pass_env)

    async def _connect(self, inst: _Instance) -> None:
        connection = McpConnection(command=self.spec.command, cwd=self.cwd, env=self._instance_env(inst.index),
                                   environ=self.environ,
                                   what="agent's MCP server")
        try:
            await connection.start(self.connect_timeout_s)
        except McpConnectError as exc:
            raise AgentError(f"{exc}. Check agent.mcp.command (run it by hand: it must speak MCP on stdio).") from exc
        inst.connection = connection
        inst.served, inst.last_case, inst.broken = 0, None, False

    async def _start_url_server(self) -> None:
        inst = self._instances[0]
        if self.agent.start:
            await self._launch_server()
        deadline = time.monotonic() + (self.agent.ready_timeout_s if self.agent.start else self.connect_timeout_s)
        while True:
            if self._server is not None and self._server.returncode is not None:
                await settle(self._drains)
                raise AgentError(f"the agent's MCP server (`{self.agent.start}`) "
                                 f"{describe_exit(self._server.returncode, self._server_log)}")
            connection = McpConnection(url=self.spec.url, environ=self.environ, what="agent's MCP server")
            try:
                await connection.start(max(1.0, deadline - time.monotonic()))
                inst.connection = connection
                inst.served, inst.last_case, inst.broken = 0, None, False
                return
            except McpConnectError as exc:
                if time.monotonic() >= deadline:
                    tail = self._server_log.text()
                    raise AgentError(f"{exc}" + (f"\nThe server's stderr ends with:\n{tail}" if tail else "")
                                     + "\nCheck agent.mcp.url (the MCP endpoint, usually ending in /mcp) and "
                                       "agent.start, or raise agent.ready_timeout_s.") from exc
            await asyncio.sleep(0.1)

    async def _launch_server(self) -> None:
        """`agent.start`: the process serving the MCP URL, its output drained."""
        try:
            self._server = await spawn(self.agent.start, environ=self.environ, cwd=self.cwd,
                                       env=self._instance_env(0), limits=limits_from(self.agent.limits),
                                       stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                                       stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            raise AgentError(f"agent.start {self.agent.start!r} could not be launched in {self.cwd}: {exc}") from exc
        self._drains = [asyncio.create_task(self._server_log.drain(self._server.stderr)),
                        asyncio.create_task(OutputTail().drain(self._server.stdout))]

    async def _resolve_tool(self) -> None:
        """Pick the input tool and argument from the listing, so a wrong name fails the run at once, not per case."""
        connection = self._instances[0].connection
        assert connection is not None and connection.client is not None
        tools = {t.name: t for t in (await connection.client.list_tools()).tools}
        self.tool = input_tool(list(tools), self.tool)
        self.argument = input_argument(self.tool, tools[self.tool].input_schema or {}, self.argument)

    # ---- calls ----------------------------------------------------------------------------------------------------
    async def send(self, message: AgentRequest) -> AgentResponse:
        if not self._started:
            await self.start()
        assert self._pool is not None
        if not self.exclusive:
            return await self._call(self._instances[0], message)
        async with self._pool.serving(message.case_id) as inst:
            return await self._call(inst, message)

    def _arguments(self, message: AgentRequest) -> dict[str, Any]:
        args: dict[str, Any] = {self.argument: message.text}
        if self.spec.session_argument:
            args[self.spec.session_argument] = message.session_id or message.case_id
        if self.spec.history_argument:
            args[self.spec.history_argument] = list(message.history)
        return args

    async def _call(self, inst: _Instance, message: AgentRequest) -> AgentResponse:
        result = await self._call_tool(inst, self.tool, self._arguments(message))
        inst.served += 1
        inst.last_case = message.case_id
        texts = result_texts(result)
        if result.is_error:
            raise AgentCallError(f"the agent's tool {self.tool!r} returned an error: {' '.join(texts)[:2000]}")
        structured = result.structured_content
        if isinstance(structured, dict) and any(k in structured for k in (*TEXT_KEYS, "tool_calls")):
            body = normalise_reply(structured)
        else:
            body = normalise_reply("\n".join(texts) if texts else structured)
        restarts, inst.restarts = inst.restarts, []
        body["notes"] += restarts
        return response(body)

    async def _call_tool(self, inst: _Instance, tool: str, arguments: dict[str, Any]) -> Any:
        """One tool call. A server that died is restarted first (the note names the case it last answered); one
        that dies on a call after having answered before is restarted and asked once more, so its exit is blamed on
        this case only if a fresh server dies on it too."""
        try:
            return await self._call_once(inst, tool, arguments)
        except AgentCallError:
            if inst.served == 0 or self._alive(inst):
                raise
            note = self._dead_note(inst)
            await self._revive_server(inst)
            result = await self._call_once(inst, tool, arguments)
            inst.restarts.append(note)
            return result

    def _alive(self, inst: _Instance) -> bool:
        server_dead = not self.exclusive and self._server is not None and self._server.returncode is not None
        return inst.connection is not None and inst.connection.alive and not server_dead and not inst.broken

    def _dead_note(self, inst: _Instance) -> str:
        dead = inst.connection
        if not self.exclusive and self._server is not None and self._server.returncode is not None:
            why = f"; it {describe_exit(self._server.returncode, self._server_log)}"
        elif inst.broken and dead is not None and dead.alive:
            why = " (its last call failed or timed out)"
        else:
            why = dead.stderr_tail(300) if dead else ""
        after = f" after answering case {inst.last_case}" if inst.last_case else ""
        return f"the agent's MCP server {inst.index} died{after} and was restarted before this call{why}"[:1500]

    async def _revive_server(self, inst: _Instance) -> None:
        async with self._revive:  # URL mode: concurrent calls restart the one shared server once
            if self._alive(inst):
                return
            dead, inst.connection = inst.connection, None
            if dead is not None:
                await dead.close()
            try:
                if self.exclusive:
                    await self._connect(inst)
                else:
                    if self._server is not None:
                        await terminate(self._server, grace_s=1.0)
                        for task in self._drains:
                            task.cancel()
                        self._server, self._drains, self._server_log = None, [], OutputTail()
                    await self._start_url_server()
            except AgentError as exc:
                raise AgentCallError(f"could not restart the agent's MCP server: {exc}") from exc

    async def _call_once(self, inst: _Instance, tool: str, arguments: dict[str, Any]) -> Any:
        if not self._alive(inst):
            if inst.connection is not None or self.exclusive:
                inst.restarts.append(self._dead_note(inst))
            await self._revive_server(inst)
        assert inst.connection is not None
        try:
            return await inst.connection.client.call_tool(tool, arguments)
        except asyncio.CancelledError:
            inst.broken = True  # timed out: a server still busy with it would hold up the next case
            raise
        except Exception as exc:
            # Errors the tool reports come back as results; an exception means the connection or the server is
            # gone (the SDK may not have noticed yet), so the next call starts on a fresh one.
            inst.broken = True
            raise AgentCallError(f"calling the agent's MCP tool {tool!r} failed: {describe_error(exc)}"
                                 f"{inst.connection.stderr_tail(1000) if inst.connection else ''}") from exc

    async def reset(self) -> None:
        if not self.has_reset:
            return
        if not self._started:
            await self.start()
        assert self._pool is not None and self.spec.reset_tool
        async with self._pool.all_instances() as taken:
            for inst in taken:
                result = await self._call_tool(inst, self.spec.reset_tool, {})
                if result.is_error:
                    raise AgentCallError(f"the reset tool {self.spec.reset_tool!r} failed: "
                                         f"{' '.join(result_texts(result))[:500]}")

    async def close(self) -> None:
        for inst in self._instances:
            if inst.connection is not None:
                await inst.connection.close()
                inst.connection = None
        await terminate(self._server, grace_s=2.0)
        for task in self._drains:
            task.cancel()
        await asyncio.gather(*self._drains, return_exceptions=True)
        self._server, self._drains = None, []
        self._started = False
        self._pool = None


def build(agent: McpTypeAgent, options: BuildOptions) -> McpTransport:
    """The `mcp` entry's builder (khaos_action/transports.py); its keys are `config.agents.McpTypeAgent`'s."""
    return McpTransport(agent, base_dir=options.base_dir, services=options.needed_services(agent.type),
                        env=options.env, env_for_instance=options.env_for_instance,
                        bind_instance=options.bind_instance)


def input_tool(names: list[str], chosen: str | None) -> str:
    """The tool that takes each input: `agent.mcp.tool`, else the server's only tool, else one named `chat`."""
    shown = ", ".join(sorted(names)) or "none"
    if not chosen:
        if len(names) == 1:
            return names[0]
        if "chat" in names:
            return "chat"
        raise ConfigError(f"the agent's MCP server has several tools ({shown}); say which one takes the "
                          "input with agent.mcp.tool.")
    if chosen not in names:
        raise ConfigError(f"agent.mcp.tool {chosen!r} is not a tool of the agent's MCP server (it lists: {shown}).")
    return chosen


def input_argument(tool: str, schema: dict[str, Any], chosen: str | None) -> str:
    """The argument of `tool` that carries the input: `agent.mcp.argument`, else its only required string
    parameter, else `input` (when it has one, or declares none)."""
    properties = schema.get("properties") or {}
    if chosen:
        if properties and chosen not in properties:
            raise ConfigError(f"agent.mcp.argument {chosen!r} is not a parameter of {tool!r} "
                              f"(it has {', '.join(properties)}).")
        return chosen
    required = _required_strings(schema, properties)
    if len(required) == 1:
        return required[0]
    if "input" in properties or not properties:
        return "input"
    raise ConfigError(f"cannot tell which argument of {tool!r} takes the input (it has "
                      f"{', '.join(properties)}); set agent.mcp.argument.")


def _required_strings(schema: dict[str, Any], properties: dict[str, Any]) -> list[str]:
    return [p for p in schema.get("required") or [] if (properties.get(p) or {}).get("type") == "string"]
