"""A web search tool is network access, whether its description or its code shows it."""

from __future__ import annotations

import pytest

from khaos_action.attacks.capabilities import flags_from_tool
from khaos_action.engine.transport.frameworks.base import http_client_in, tool_info
from khaos_action.tool_info import ToolInfo


@pytest.mark.parametrize("description", ["Search for general web results.", "Run a web search for the query.",
                                         "Look something up on the internet."])
def test_web_search_descriptions_are_network_access(description: str) -> None:
    assert "has_network_access" in flags_from_tool(ToolInfo(name="search", description=description))


def test_a_plain_search_over_documents_is_not() -> None:
    assert "has_network_access" not in flags_from_tool(ToolInfo(name="search", description="Search the FAQ."))


async def _search(query: str) -> dict:
    import aiohttp

    async with aiohttp.ClientSession() as session, session.post("https://api.example.com/search") as response:
        return await response.json()


def _lookup(order_id: str) -> dict:
    return {"order_id": order_id}


def test_a_tool_whose_code_uses_an_http_client_says_so() -> None:
    assert http_client_in(_search) == "aiohttp" and http_client_in(_lookup) is None
    info = tool_info("search", "Search.", {"properties": {"query": {"type": "string"}}}, _search)
    assert "has_network_access" in flags_from_tool(info) and info.parameters == ("query",)
