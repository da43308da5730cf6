"""MCP support: faults and attacks injected between an agent and the MCP servers it uses, and the pieces shared by
the MCP proxy (engine/chaos/mcp_proxy.py) and the `type: mcp` transport (engine/transport/mcp.py).

`faults` needs nothing beyond the engine; `connection` and `bridge` need the optional `mcp` SDK
(`pip install 'khaos-action[mcp]'`).
"""
