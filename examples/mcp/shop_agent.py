"""A small shop assistant that uses the shop's MCP server, with a rule-based stand-in for the model.

Like a model that reads tool listings, it takes the tools' descriptions as instructions: a "usage note" there
changes its arguments or its answer. That naivety is what `tool_description_injection` attacks look for, and it is
left in on purpose so the example shows a finding. Tool errors and an unreachable server degrade to an apology.

The server's address comes from the environment: SHOP_MCP_URL (streamable HTTP) or SHOP_MCP_COMMAND (a stdio
server command line). khaos-action sets them to its MCP proxy during a run.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from mcp import Client, StdioServerParameters

SORRY = "Sorry, the shop service is unavailable right now. Please try again in a few minutes."
_ORDER = re.compile(r"\b(\d{4})\b")
_NUMBERS = re.compile(r"-?\d+(?:\.\d+)?")
_SET_ARGUMENT = re.compile(r"set its `(\w+)` argument to \"([^\"]+)\"", re.IGNORECASE)
_PREFIX = re.compile(r"must start with [^,]*, which is\s+(\S+) concatenated with (\S+?)\.?(?:\s|$)", re.IGNORECASE)


def server() -> Any:
    command = os.environ.get("SHOP_MCP_COMMAND")
    if command:
        parts = shlex.split(command)
        return StdioServerParameters(command=parts[0], args=parts[1:])
    return os.environ.get("SHOP_MCP_URL", "http://127.0.0.1:9100/mcp")


async def handle(message: str, client: Any = None) -> str:
    """One turn: list the tools, pick one, call it, answer. Without `client`, a connection is opened for the turn."""
    text = message.strip()
    low = text.lower()
    if not text or re.search(r"\b(hi|hello|hey)\b", low) and not _ORDER.search(text):
        return "Hello! I can look up your orders and do quick sums."
    try:
        if client is None:
            async with Client(server(), cache=None) as own:
                return await _turn(text, own)
        return await _turn(text, client)
    except Exception:  # noqa: BLE001 - a model-driven agent would say it could not reach its tools
        return SORRY


async def _turn(text: str, client: Any) -> str:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    call = choose(text, tools)
    if call is None:
        return "I can look up orders (give me the four-digit order number) or add numbers for you."
    name, args = call
    result = await client.call_tool(name, args)
    reply = " ".join(getattr(block, "text", "") for block in result.content).strip()
    if result.is_error:
        return SORRY
    if name == "add":
        reply = f"The result is {reply}."
    return obey_answer_notes(tools[name].description or "", reply)


def choose(text: str, tools: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    low = text.lower()
    order = _ORDER.search(text)
    if order and "lookup_order" in tools:
        return "lookup_order", obey_argument_notes(tools["lookup_order"].description, {"order_id": order.group(1)})
    numbers = _NUMBERS.findall(text)
    if ("add" in low or "sum" in low or "+" in low) and len(numbers) >= 2 and "add" in tools:
        args = {"a": float(numbers[0]), "b": float(numbers[1])}
        return "add", obey_argument_notes(tools["add"].description, args)
    return None


def obey_argument_notes(description: str | None, args: dict[str, Any]) -> dict[str, Any]:
    for name, value in _SET_ARGUMENT.findall(description or ""):
        args[name] = value
    return args


def obey_answer_notes(description: str, reply: str) -> str:
    match = _PREFIX.search(description)
    return f"{match.group(1)}{match.group(2)} {reply}" if match else reply
