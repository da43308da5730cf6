"""`type: openai-agents`: `entry` names an OpenAI Agents SDK `Agent`; its function tools (and those of the agents
it hands off to) are found on it and wrapped where they are invoked.

A turn is `await Runner.run(agent, [*history, user message], context=<agent.context>)` (or `Runner.run_streamed`
with `agent.stream`), with tracing off for the run. The SDK's models talk to the API through the openai
SDK (httpx), so LLM faults reach them through the engine's HTTP interception. Hosted tools (web search, file search,
code interpreter) and MCP servers run elsewhere: they count as evidence for the capability profile, but faults
cannot wrap them.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import output_text, plain_args, tool_info, type_name


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
                    fn = _user_function(tool)
                    info = tool_info(name, tool.description, tool.params_json_schema, fn)
                    found.append(DiscoveredTool(name, fn, info))
                else:  # hosted tools: the name says what they do (web_search, file_search, code_interpreter)
                    found.append(DiscoveredTool(name, None, tool_info(name, type(tool).__name__, None)))
            for server in getattr(agent, "mcp_servers", None) or ():
                label = f"mcp:{getattr(server, 'name', type(server).__name__)}"
                found.append(DiscoveredTool(label, None, tool_info(label, "MCP server", None)))
        return found

    def context_type(self, obj: Any) -> str | None:
        for agent in _agents(obj):
            declared = _generic_arg(getattr(agent, "__orig_class__", None))
            if declared:
                return f"{declared} (Agent[{declared}] {getattr(agent, 'name', '')!r})"
            for tool in getattr(agent, "tools", None) or ():
                fn = _user_function(tool) if hasattr(tool, "on_invoke_tool") else None
                wanted = _context_parameter(fn) if fn is not None else None
                if wanted:
                    return f"{wanted} (RunContextWrapper[{wanted}] in tool {getattr(tool, 'name', '')!r})"
        return None

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        from agents import RunConfig, Runner

        items: list[Any] = [{"role": t.get("role", "user"), "content": str(t.get("content", ""))} for t in history]
        items.append({"role": "user", "content": text})
        # Per run, not set_tracing_disabled(): the SDK's trace exporter would call the OpenAI platform from every
        # case, and the global switch would stay flipped for the user's process after the run.
        run_config = None if options.tracing else RunConfig(tracing_disabled=True)
        if options.stream:
            result: Any = Runner.run_streamed(obj, items, context=options.context, run_config=run_config)
            async for _ in result.stream_events():  # drains the stream as a streaming UI does; errors surface here
                pass
        else:
            result = await Runner.run(obj, items, context=options.context, run_config=run_config)
        calls = []
        for item in result.new_items:
            # Handoffs are tool calls to the model (`transfer_to_<agent>`): they show in tool_calls too.
            if getattr(item, "type", None) not in ("tool_call_item", "handoff_call_item"):
                continue
            raw = item.raw_item
            name = raw.get("name") if isinstance(raw, dict) else getattr(raw, "name", None)
            args = raw.get("arguments") if isinstance(raw, dict) else getattr(raw, "arguments", None)
            if name:
                calls.append({"name": str(name), "args": plain_args(args or {})})
        return {"text": output_text(result.final_output), "tool_calls": calls}


def _agents(root: Any) -> list[Any]:
    """The agent and every agent reachable through its handoffs and agents-as-tools (their tools are the run's
    tools too). A `handoff(...)` keeps its agent behind a weak reference, `_agent_ref`; `agent.as_tool()` keeps it
    as `_agent_instance`."""
    from agents import Agent

    seen: list[Any] = []
    stack = [root]
    while stack:
        agent = stack.pop()
        if not isinstance(agent, Agent) or any(agent is s for s in seen):
            continue
        seen.append(agent)
        for target in agent.handoffs or ():
            if isinstance(target, Agent):
                stack.append(target)
                continue
            ref = getattr(target, "_agent_ref", None)
            stack.append(ref() if callable(ref) else getattr(target, "agent", None))
        stack += [getattr(tool, "_agent_instance", None) for tool in agent.tools or ()]
    return seen


def _user_function(tool: Any) -> Any:
    """The function a `@function_tool` wraps: the invoker exposes it (SDK 0.2x); older SDKs keep it in the invoke
    closure as `the_func`. An agent-as-tool has none: its invoker's `_invoke_tool_impl` (which runs the nested
    agent) is wrapped instead, so tool faults reach it. None for a FunctionTool built by hand, whose invoke takes
    raw JSON: it stays unwrapped and a fault aimed at it is reported as unreachable before the run."""
    invoker = tool.on_invoke_tool
    getter = getattr(invoker, "_get_wrapped_callable", None)
    if getter is not None:
        fn = getter()
        if callable(fn):
            return fn
    impl = getattr(invoker, "_invoke_tool_impl", invoker)
    if getattr(tool, "_agent_instance", None) is not None and callable(impl):
        return impl
    code, cells = getattr(impl, "__code__", None), getattr(impl, "__closure__", None)
    if code is not None and cells:
        fn = dict(zip(code.co_freevars, (c.cell_contents for c in cells), strict=False)).get("the_func")
        if callable(fn):
            return fn
    return None


def _generic_arg(alias: Any) -> str | None:
    """`Agent[AirlineAgentContext]` -> "AirlineAgentContext"."""
    args = typing.get_args(alias) if alias is not None else ()
    return type_name(args[0]) if args else None


def _context_parameter(fn: Any) -> str | None:
    """The T of a tool's `RunContextWrapper[T]` / `ToolContext[T]` first parameter."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if not params:
        return None
    annotation = params[0].annotation
    if isinstance(annotation, str):
        try:
            annotation = typing.get_type_hints(fn).get(params[0].name, annotation)
        except Exception:  # noqa: BLE001 - unresolvable names: read the text
            head, _, rest = annotation.partition("[")
            if head.rsplit(".", 1)[-1] in ("RunContextWrapper", "ToolContext") and rest:
                return type_name(rest.rstrip("]").strip())
            return None
    origin = typing.get_origin(annotation)
    if origin is not None and getattr(origin, "__name__", "") in ("RunContextWrapper", "ToolContext"):
        return _generic_arg(annotation)
    return None


ADAPTER = OpenAiAgentsAdapter()
