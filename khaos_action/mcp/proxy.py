"""The MCP proxy: an MCP server on 127.0.0.1 (streamable HTTP, built with the official SDK) that stands between the
agent and each real MCP server it uses (`agent.mcp_servers`), forwards tools/list and tools/call, and answers with
the current case's MCP faults and attack payloads (khaos_action/mcp/decide.py, khaos_action/faults/mcp.py).

The agent finds the proxy through the environment variable each server names (`env_var`): a URL
`http://127.0.0.1:<port>/i/<instance>/<server>/mcp`, or with `expose: stdio` a command line that runs the stdio
bridge (khaos_action/mcp/bridge.py) to that URL. Attribution works like the chaos proxy's: the path names the agent
instance, and `bind(instance, ctx)` (called by the engine around each case) names the case it serves. A request
from an instance that serves no case is forwarded untouched.

Upstream servers are connected once for the run (a stdio server is started by the proxy, in the config folder).
Listings are answered with `ttlMs: 0` so clients do not cache a description rewritten for another case.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import shlex
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from khaos_action.config.agent_block import McpServer
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.errors import ConfigError
from khaos_action.faults.mcp import McpCall
from khaos_action.mcp.connection import (
    McpConnectError,
    McpConnection,
    describe_error,
    require_sdk,
    result_texts,
)
from khaos_action.mcp.decide import (
    decide_call,
    finish_call,
    poison_descriptions,
    server_down,
)

_ROUTE = re.compile(r"^/i/(\d+)/([A-Za-z0-9_-]+)(?:/mcp)?/?$")
_SCOPE_KEY = "khaos.mcp_route"


_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
"""The folder `khaos_action` is imported from (site-packages, or a checkout)."""
_BRIDGE = "import sys; sys.path.insert(0, sys.argv.pop(1)); from khaos_action.mcp.bridge import main; sys.exit(main())"
"""`python -c` of the bridge: its first argument (the package's folder) goes first on sys.path, the URL stays."""


class McpProxyError(ConfigError):
    """An upstream MCP server could not be started or reached before the run."""


class McpProxy:
    def __init__(self, servers: list[McpServer], base_dir: Path, *, environ: Mapping[str, str],
                 host: str = "127.0.0.1", connect_timeout_s: float = 30.0) -> None:
        """`environ`: the run's environment, which the servers it starts get a clean copy of."""
        names = [s.name for s in servers]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ConfigError(f"agent.mcp_servers: duplicate name(s) {', '.join(duplicates)}; give each server its "
                              "own `name` (mcp_faults select servers by name).")
        self.servers = {s.name: s for s in servers}
        self.base_dir = Path(base_dir)
        self.environ = environ
        self.host = host
        self.connect_timeout_s = connect_timeout_s
        self.upstreams: dict[str, McpConnection] = {}
        self.known_tools: dict[str, list[str]] = {}
        self.calls: dict[str, int] = {name: 0 for name in self.servers}
        """server -> MCP requests seen (a server the agent never reached is reported after the run)."""
        self._bound: dict[int, CaseContext | None] = {}
        self.incidents: list[str] = []
        """Upstream servers that died during the run (reported as warnings; the server is restarted)."""
        self._revive: dict[str, asyncio.Lock] = {}
        self._socket: socket.socket | None = None
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._manager: Any = None
        self._manager_cm: Any = None

    # ---- lifecycle --------------------------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._socket is not None, "McpProxy.start() was not awaited"
        return f"http://{self.host}:{self._socket.getsockname()[1]}"

    async def start(self) -> None:
        require_sdk()
        import uvicorn
        from mcp.server import Server
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        try:
            for name in self.servers:
                self.upstreams[name] = self._connection(name)
                await self.upstreams[name].start(self.connect_timeout_s)
        except McpConnectError as exc:
            await self.stop()
            raise McpProxyError(f"agent.mcp_servers: {exc}. Check its `command` / `url`.") from exc
        server = Server("khaos-mcp-proxy", on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        server.middleware.clear()  # no OpenTelemetry span per proxied message
        # Stateless + JSON answers: every request stands alone, so a case's faults apply per request and no session
        # outlives the case that opened it. DNS-rebinding protection is for browsers; the proxy only serves agents.
        self._manager = StreamableHTTPSessionManager(
            app=server, stateless=True, json_response=True,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self._manager_cm = self._manager.run()
        await self._manager_cm.__aenter__()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY (see proxy.py)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, 0))
        self._socket = sock
        config = uvicorn.Config(self.app, interface="asgi3", lifespan="off", log_config=None, access_log=False,
                                server_header=False, date_header=False, timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        self._server.install_signal_handlers = lambda: None  # type: ignore[method-assign]  # the engine owns signals
        logging.getLogger("mcp").setLevel(logging.WARNING)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise McpProxyError(f"the MCP proxy could not listen on {self.host}")
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        if self._manager_cm is not None:
            with contextlib.suppress(Exception):  # shutting down; nothing left to report to
                await self._manager_cm.__aexit__(None, None, None)
        for connection in self.upstreams.values():
            await connection.close()
        if self._socket is not None:
            self._socket.close()
        self._server = self._task = self._manager = self._manager_cm = self._socket = None

    def _connection(self, name: str) -> McpConnection:
        spec = self.servers[name]
        return McpConnection(command=spec.command, url=spec.url, environ=self.environ,
                             cwd=self.base_dir / spec.cwd if spec.cwd else self.base_dir, what=f"MCP server `{name}`")

    # ---- addresses and attribution ----------------------------------------------------------------------------------
    def url_for(self, server: str, instance: int = 0) -> str:
        return f"{self.base_url}/i/{instance}/{server}/mcp"

    def bridge_command(self, server: str, instance: int = 0) -> str:
        """A stdio MCP server command line (for agents that launch their servers) that relays to the proxy.

        It names the folder our package is imported from: an agent's MCP client starts its servers with an
        environment of its own (often without PYTHONPATH), and the bridge must be this very version of the package,
        also when it runs from a checkout that is not installed. `-I`: the agent's folder and PYTHON* variables
        cannot put another `khaos_action` in its place."""
        return shlex.join([sys.executable, "-I", "-c", _BRIDGE, _PACKAGE_ROOT, self.url_for(server, instance)])

    def env_for(self, instance: int) -> dict[str, str]:
        """The variables instance `instance` reads its MCP servers' addresses from."""
        return {spec.env_var: self.bridge_command(name, instance) if spec.expose == "stdio"
                else self.url_for(name, instance) for name, spec in self.servers.items()}

    def bind(self, instance: int, ctx: CaseContext | None) -> None:
        self._bound[instance] = ctx

    def unreached(self) -> list[str]:
        return sorted(name for name, count in self.calls.items() if count == 0)

    # ---- HTTP: route, attribute, refuse when the server is "down" ----------------------------------------------------
    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        current_case.set(None)
        route = _ROUTE.match(scope.get("path", ""))
        if route is None or route.group(2) not in self.servers:
            await _json(send, 404, {"error": f"unknown MCP proxy route {scope.get('path')!r}; use the address "
                                             f"khaos-action put in the agent's environment"})
            return
        instance, name = int(route.group(1)), route.group(2)
        self.calls[name] += 1
        ctx = self._bound.get(instance)
        if ctx is not None:
            down = server_down(ctx, name)
            if down is not None:
                await _json(send, down.params.status, {"error": f"MCP server {name!r} is unavailable "
                                                                f"(injected fault {down.id})"})
                return
        inner = dict(scope, path="/mcp", raw_path=b"/mcp")
        inner[_SCOPE_KEY] = (instance, name)
        await self._manager.handle_request(inner, receive, send)

    def _route(self, request_ctx: Any) -> tuple[CaseContext | None, str]:
        instance, name = request_ctx.request.scope[_SCOPE_KEY]
        return self._bound.get(instance), name

    # ---- MCP handlers ------------------------------------------------------------------------------------------------
    async def _list_tools(self, request_ctx: Any, params: Any) -> Any:
        import mcp_types as types

        ctx, name = self._route(request_ctx)
        upstream = await self._client(name, ctx)
        try:
            listed = await upstream.list_tools(cursor=getattr(params, "cursor", None) if params else None)
        except Exception:
            self._died_during(name, ctx)
            raise
        tools = list(listed.tools)
        self.known_tools[name] = sorted({*self.known_tools.get(name, []), *(t.name for t in tools)})
        if ctx is not None:
            original = {t.name: t.description or "" for t in tools}
            rewritten = poison_descriptions(ctx, name, original)
            tools = [t.model_copy(update={"description": rewritten[t.name]}) if rewritten[t.name] != original[t.name]
                     else t for t in tools]
        return types.ListToolsResult(tools=tools, next_cursor=listed.next_cursor, ttl_ms=0, cache_scope="private")

    async def _call_tool(self, request_ctx: Any, params: Any) -> Any:

        import mcp_types as types

        ctx, name = self._route(request_ctx)
        arguments = dict(params.arguments or {})
        try:
            upstream = await self._client(name, ctx)
            return await self._forward(upstream, ctx, name, params, arguments)
        except Exception as exc:  # noqa: BLE001 - the agent gets a tool error, the run a report (no SDK traceback)
            self._died_during(name, ctx)
            text = f"MCP server {name!r} failed: {describe_error(exc)}"
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)

    async def _forward(self, upstream: Any, ctx: CaseContext | None, name: str, params: Any,
                       arguments: dict[str, Any]) -> Any:
        import mcp_types as types

        if ctx is None:
            return await upstream.call_tool(params.name, arguments)
        decision = decide_call(ctx, McpCall(server=name, tool=params.name, args=arguments),
                               self.known_tools.get(name, []))
        effect = decision.effect
        if effect.delay_s:
            await asyncio.sleep(effect.delay_s)
        if effect.error_text is not None:
            texts, _ = finish_call(ctx, decision, [effect.error_text], is_error=True)
            return types.CallToolResult(content=[types.TextContent(type="text", text=t) for t in texts],
                                        is_error=True)
        result = await upstream.call_tool(params.name, arguments)
        original = result_texts(result)
        texts, structured = finish_call(ctx, decision, original, bool(result.is_error), result.structured_content)
        if texts == original and structured == result.structured_content:
            return result
        blocks = [b for b in result.content if getattr(b, "type", "") != "text"]
        return types.CallToolResult(content=[types.TextContent(type="text", text=t) for t in texts] + blocks,
                                    structured_content=structured, is_error=result.is_error)

    async def _client(self, name: str, ctx: CaseContext | None) -> Any:
        """The upstream's client; a server that died is reported and restarted (once at a time) for this call."""
        connection = self.upstreams[name]
        if connection.alive and not getattr(connection, "_suspect", False):
            return connection.client
        async with self._revive.setdefault(name, asyncio.Lock()):
            connection = self.upstreams[name]
            if connection.alive and not getattr(connection, "_suspect", False):
                return connection.client
            self._report_death(name, connection, ctx, "before this call")
            await connection.close()
            fresh = self._connection(name)
            try:
                await fresh.start(self.connect_timeout_s)
            except McpConnectError as exc:
                raise RuntimeError(f"the MCP server {name!r} died and could not be restarted: {exc}") from exc
            self.upstreams[name] = fresh
            return fresh.client

    def _died_during(self, name: str, ctx: CaseContext | None) -> None:
        """A call failed below the protocol (tool errors come back as results): the server or its connection is
        gone, even if the SDK has not noticed yet. An incident of this case; the server is restarted on next use."""
        connection = self.upstreams[name]
        connection._suspect = True  # type: ignore[attr-defined]
        self._report_death(name, connection, ctx, "during this call")

    def _report_death(self, name: str, connection: McpConnection, ctx: CaseContext | None, when: str) -> None:
        if getattr(connection, "_reported", False):
            return
        connection._reported = True  # type: ignore[attr-defined]
        if ctx is None:
            where = "not attributed to a case"
        else:
            where = f"case {ctx.case_id}; {'no chaos was active' if not ctx.faults else 'faults were active'}"
        note = (f"the MCP server `{name}` (`{connection.target}`) the agent uses died {when} ({where}); "
                f"khaos-action restarts it for the next call{connection.stderr_tail(300)}")[:1500]
        self.incidents.append(note)
        if ctx is not None:
            ctx.notes.append(note)


async def _json(send: Any, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


__all__ = ["McpProxy", "McpProxyError", "describe_error"]
