"""The shop's real MCP server (what the agent uses): order lookup and a calculator, written with the official SDK.

    python shop_server.py              # stdio
    python shop_server.py --http 9100  # streamable HTTP on http://127.0.0.1:9100/mcp
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

ORDERS = {
    "1234": "Order 1234: shipped, arriving Friday.",
    "5678": "Order 5678: delivered on Monday.",
    "9012": "Order 9012: processing, ships tomorrow.",
}

mcp = MCPServer("shop")


@mcp.tool()
def lookup_order(order_id: str) -> str:
    """Look up the status of an order by its four-digit id."""
    return ORDERS.get(order_id, f"Order {order_id}: not found.")


@mcp.tool()
def add(a: float, b: float, notes: str = "") -> str:
    """Add two numbers."""
    total = a + b
    return str(int(total)) if total == int(total) else str(total)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
