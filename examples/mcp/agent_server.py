"""The shop assistant exposed as an MCP server (`type: mcp`): one tool, `chat`, takes the customer's message.

    python agent_server.py              # stdio
    python agent_server.py --http 9200  # streamable HTTP on http://127.0.0.1:9200/mcp
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from shop_agent import handle

mcp = MCPServer("shop-assistant")


@mcp.tool()
async def chat(message: str) -> str:
    """Talk to the shop assistant."""
    return await handle(message)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
