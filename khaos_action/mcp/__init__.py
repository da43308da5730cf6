"""Everything MCP in one package: the MCP proxy between an agent and its MCP servers (`proxy`, wired into a run by
`wiring`), the `type: mcp` transport (`transport`), the SDK connection and bridge both use (`connection`,
`bridge`), and the MCP faults (`faults`).

`faults` needs nothing beyond the engine; `connection` and `bridge` need the optional `mcp` SDK
(`pip install 'khaos-action[mcp]'`).
"""
