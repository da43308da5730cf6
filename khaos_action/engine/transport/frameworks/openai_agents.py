"""`type: openai-agents`: `entry` names an OpenAI Agents SDK `Agent`; its function tools (and those of the agents
it hands off to) are found on it and wrapped where they are invoked.

A turn is `await Runner.run(agent, [*history, user message])`. The SDK's models talk to the API through the openai
SDK (httpx), so LLM faults reach them through the engine's HTTP interception. Hosted tools (web search, file search,
code interpreter) and MCP servers run elsewhere: they count as evidence for the capability profile, but faults
cannot wrap them.
"""

from __future__ import annotations

from typing import Any

from khaos_action.engine.transport.frameworks.base import (
    DiscoveredTool,
    output_text,
    plain_args,
    tool_info,
)


class OpenAiAgentsAdapter:
    agent_type = "openai-agents"
    extra = "openai-agents"
    module = "agents"
    package = "openai-agents"
    expects = "an OpenAI Agents SDK `agents.Agent`"

    def accepts(self, obj: Any) -> bool:
        from agents import Agent

        return isinstance(obj, Agent)

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        from agents import FunctionTool

        found: list[DiscoveredTool] = []
        for agent in _agents(obj):
            for tool in getattr(agent, "tools", None) or ():
                name = str(getattr(tool, "name", type(tool).__name__))
                if isinstance(tool, FunctionTool):
                    info = tool_info(name, tool.description, tool.params_json_schema)
                    found.append(DiscoveredTool(name, _user_function(tool), info))
                else:  # hosted tools: the name says what they do (web_search, file_search, code_interpreter)
                    found.append(DiscoveredTool(name, None, tool_info(name, type(tool).__name__, None)))
            for server in getattr(agent, "mcp_servers", None) or ():
                label = f"mcp:{getattr(server, 'name', type(server).__name__)}"
                found.append(DiscoveredTool(label, None, tool_info(label, "MCP server", None)))
        return found

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str) -> dict[str, Any]:
        from agents import Runner

        items: list[Any] = [{"role": t.get("role", "user"), "content": str(t.get("content", ""))} for t in history]
        items.append({"role": "user", "content": text})
        result = await Runner.run(obj, items)
        calls = []
        for item in result.new_items:
            if getattr(item, "type", None) != "tool_call_item":
                continue
            raw = item.raw_item
            name = raw.get("name") if isinstance(raw, dict) else getattr(raw, "name", None)
            args = raw.get("arguments") if isinstance(raw, dict) else getattr(raw, "arguments", None)
            if name:
                calls.append({"name": str(name), "args": plain_args(args or {})})
        return {"text": output_text(result.final_output), "tool_calls": calls}


def _agents(root: Any) -> list[Any]:
    """The agent and every agent reachable through its handoffs (a handoff target's tools are the run's tools too)."""
    from agents import Agent

    seen: list[Any] = []
    stack = [root]
    while stack:
        agent = stack.pop()
        if not isinstance(agent, Agent) or any(agent is s for s in seen):
            continue
        seen.append(agent)
        stack += [h if isinstance(h, Agent) else getattr(h, "agent", None) for h in agent.handoffs or ()]
    return seen


def _user_function(tool: Any) -> Any:
    """The function a `@function_tool` wraps: the invoker exposes it (SDK 0.2x); older SDKs keep it in the invoke
    closure as `the_func`. None for a FunctionTool built by hand, whose invoke takes raw JSON: it stays unwrapped and
    a fault aimed at it is reported as unreachable before the run."""
    invoker = tool.on_invoke_tool
    getter = getattr(invoker, "_get_wrapped_callable", None)
    if getter is not None:
        fn = getter()
        if callable(fn):
            return fn
    impl = getattr(invoker, "_invoke_tool_impl", invoker)
    code, cells = getattr(impl, "__code__", None), getattr(impl, "__closure__", None)
    if code is not None and cells:
        fn = dict(zip(code.co_freevars, (c.cell_contents for c in cells))).get("the_func")
        if callable(fn):
            return fn
    return None


ADAPTER = OpenAiAgentsAdapter()
