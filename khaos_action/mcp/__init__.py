"""Everything MCP in one package: the MCP proxy between an agent and its MCP servers (`proxy`, wired into a run by
`wiring`), the `type: mcp` transport (`transport`), the SDK connection and bridge both use (`connection`,
`bridge`), and which MCP fault answers a request (`decide`; the MCP faults themselves are in faults/mcp.py).

`decide` needs nothing beyond the faults; `connection` and `bridge` need the optional `mcp` SDK
(`pip install 'khaos-action[mcp]'`).
"""
