"""`python -m khaos_action.mcp.bridge URL`: a stdio MCP server that relays tools/list and tools/call to the MCP
proxy at URL. Agents that launch their MCP servers as subprocesses (`expose: stdio`) run this in place of the real
server, so their calls still pass through the proxy, where the case's faults and payloads are applied.

A refused request (the proxy answering `server_unavailable`) reaches the agent as an MCP error.
"""

from __future__ import annotations

import sys
from typing import Any


async def serve(url: str) -> None:
    import mcp_types as types
    from mcp import Client
    from mcp.server import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError

    from khaos_action.mcp.connection import describe_error

    async def relay(call: Any) -> Any:
        # One short connection per request: the proxy is stateless, and a fresh connection sees an injected outage
        # the way a client sees a server that is down.
        try:
            async with Client(url, cache=None) as client:
                return await call(client)
        except MCPError:
            raise
        except Exception as exc:
            raise MCPError(code=types.INTERNAL_ERROR, message=f"MCP server unreachable: {describe_error(exc)}") from exc

    async def list_tools(ctx: Any, params: Any) -> Any:
        listed = await relay(lambda c: c.list_tools(cursor=getattr(params, "cursor", None) if params else None))
        return types.ListToolsResult(tools=listed.tools, next_cursor=listed.next_cursor, ttl_ms=0,
                                     cache_scope="private")

    async def call_tool(ctx: Any, params: Any) -> Any:
        return await relay(lambda c: c.call_tool(params.name, dict(params.arguments or {})))

    server = Server("khaos-mcp-bridge", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.clear()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(argv: list[str] | None = None) -> int:
    import anyio

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m khaos_action.mcp.bridge http://127.0.0.1:PORT/i/0/NAME/mcp", file=sys.stderr)
        return 2
    anyio.run(serve, args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
