"""`type: command` entry: the shop assistant speaking JSON lines on stdin/stdout, keeping one MCP connection.

With `expose: stdio` in khaos.yaml, SHOP_MCP_COMMAND is a stdio server command line (khaos-action's bridge to its
MCP proxy); the agent launches it once and keeps the session for every input, as agents that spawn their MCP
servers do.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import Client
from shop_agent import handle, server


async def main() -> None:
    loop = asyncio.get_running_loop()
    async with Client(server(), cache=None) as client:
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            request = json.loads(line)
            output = await handle(str(request.get("input", "")), client)
            print(json.dumps({"id": request.get("id"), "output": output}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
