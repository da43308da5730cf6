"""`type: pydantic-ai`: `entry` names a pydantic-ai `Agent`; its function tools are found in its toolsets.

A turn is `await agent.run(text, message_history=..., deps=<agent.context>)` (`run_stream` with
`agent.stream`). pydantic-ai adds the agent's system prompt only to a run without history, so a multi-turn case
would lose it; the adapter puts the resolved system prompt parts in front of
the history, as a real conversation (started without history, continued with `all_messages()`) would have it.
LLM faults reach real models (OpenAI, Anthropic, ... over httpx) through the engine's HTTP interception.
"""

from __future__ import annotations

from typing import Any

from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import output_text, plain_args, tool_info, type_name

# pydantic-ai's output tools (structured output) are named `final_result` / `final_result_<Type>`: they are how the
# model answers, not tool calls an attack could make.
_OUTPUT_TOOL_PREFIX = "final_result"


class PydanticAiAdapter:
    agent_type = "pydantic-ai"
    extra = "pydantic-ai"
    module = "pydantic_ai"
    package = "pydantic-ai-slim"
    expects = "a pydantic_ai.Agent"

    def accepts(self, obj: Any) -> bool:
        from pydantic_ai.agent import AbstractAgent

        return isinstance(obj, AbstractAgent)

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        found: dict[str, DiscoveredTool] = {}
        for toolset in getattr(obj, "toolsets", ()) or ():
            for name, tool in _function_tools(toolset):
                schema = getattr(tool.function_schema, "json_schema", None)
                found.setdefault(name, DiscoveredTool(name, tool.function,
                                                      tool_info(name, tool.description, schema, tool.function)))
            if _is_mcp(toolset):
                # Tools behind an MCP server run in another process: no function to wrap, but evidence of MCP.
                name = f"mcp:{getattr(toolset, 'id', None) or type(toolset).__name__}"
                found.setdefault(name, DiscoveredTool(name, None, tool_info(name, "MCP server toolset", None)))
        return list(found.values())

    def context_type(self, obj: Any) -> str | None:
        declared = type_name(getattr(obj, "deps_type", None))
        return f"{declared} (deps_type of the pydantic-ai Agent)" if declared else None

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        from pydantic_ai.messages import ModelResponse, ToolCallPart

        messages = await _history(obj, text, history, options.context)
        # infer_name=False: pydantic-ai names an unnamed agent after the caller's variable holding it, which here
        # would rename the user's agent to `obj` for good.
        kwargs = {"message_history": messages or None, "deps": options.context, "infer_name": False}
        if options.stream:
            async with obj.run_stream(text, **kwargs) as result:
                output = await result.get_output()
        else:
            result = await obj.run(text, **kwargs)
            output = result.output
        calls = [{"name": part.tool_name, "args": plain_args(part.args)}
                 for message in result.new_messages() if isinstance(message, ModelResponse)
                 for part in message.parts
                 if isinstance(part, ToolCallPart) and not part.tool_name.startswith(_OUTPUT_TOOL_PREFIX)]
        return {"text": output_text(output), "tool_calls": calls}


def _function_tools(toolset: Any, depth: int = 0) -> list[tuple[str, Any]]:
    """(name the model calls it by, tool) for the function tools of a toolset, looking through combined and wrapper
    toolsets (filtered, prepared, ...); a prefixed toolset's tools are called `<prefix>_<name>`, a renamed one's by
    their new names."""
    if depth > 8:
        return []
    tools = getattr(toolset, "tools", None)
    if isinstance(tools, dict):
        return [(str(t.name), t) for t in tools.values() if callable(getattr(t, "function", None))]
    out: list[tuple[str, Any]] = []
    for child in getattr(toolset, "toolsets", None) or ():
        out += _function_tools(child, depth + 1)
    wrapped = getattr(toolset, "wrapped", None)
    if wrapped is not None:
        inner = _function_tools(wrapped, depth + 1)
        prefix = getattr(toolset, "prefix", None)
        renamed = getattr(toolset, "name_map", None)
        if isinstance(prefix, str) and prefix:
            inner = [(f"{prefix}_{name}", tool) for name, tool in inner]
        elif isinstance(renamed, dict):  # new name -> original name
            new_names = {original: new for new, original in renamed.items()}
            inner = [(new_names.get(name, name), tool) for name, tool in inner]
        out += inner
    return out


def _is_mcp(toolset: Any) -> bool:
    return any("MCP" in klass.__name__ for klass in type(toolset).__mro__)


async def _history(obj: Any, text: str, history: list[dict[str, str]], deps: Any) -> list[Any]:
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        UserPromptPart,
    )

    messages: list[Any] = []
    for turn in history:
        role, content = turn.get("role"), str(turn.get("content", ""))
        if role == "assistant":
            messages.append(ModelResponse(parts=[TextPart(content)]))
        elif role == "system":
            messages.append(ModelRequest(parts=[SystemPromptPart(content)]))
        else:
            messages.append(ModelRequest(parts=[UserPromptPart(content)]))
    resolve = getattr(obj, "system_prompt_parts", None)
    if messages and resolve is not None and not any(isinstance(m, ModelRequest) and any(
            isinstance(p, SystemPromptPart) for p in m.parts) for m in messages):
        parts = await resolve(deps=deps, prompt=text)
        if parts:
            messages.insert(0, ModelRequest(parts=list(parts)))
    return messages


ADAPTER = PydanticAiAdapter()
