"""`type: langgraph`: `entry` names a compiled LangGraph graph over a `messages` state (a `StateGraph(...).compile()`
or a `create_react_agent` / `langchain.agents.create_agent` result); its tools are found in its ToolNodes.

A turn is `await graph.ainvoke({"messages": [*history, user message]}, context=<agent.context>)` (or `astream`
with `agent.stream`). A graph compiled with a checkpointer gets
a fresh `thread_id` per turn: the engine sends the whole history each time, and a remembered thread would repeat it
(and carry one case's conversation into the next).
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import replace
from typing import Any

from khaos_action.chat import content_text
from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import output_text, plain_args, type_name
from khaos_action.errors import AgentError


class LangGraphAdapter:
    agent_type = "langgraph"
    extra = "langgraph"
    module = "langgraph"
    package = "langgraph"
    expects = "a compiled graph (`StateGraph(...).compile()` or a `create_react_agent(...)` result)"

    def accepts(self, obj: Any) -> bool:
        from langgraph.pregel import Pregel

        return isinstance(obj, Pregel)

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        """The tools of every ToolNode, each a LangChain tool object: wrapped in place (its `func`/`coroutine`, or
        the `_run`/`_arun` a BaseTool subclass defines), so the graph keeps calling its own tool."""
        from khaos_action.engine.chaos.tool_kinds import describe_tool, kind_of

        found: list[DiscoveredTool] = []
        for graph in _graphs(obj):
            for node in (getattr(graph, "nodes", None) or {}).values():
                for name, tool in _tools_by_name(getattr(node, "bound", node)).items():
                    info = replace(describe_tool(tool), name=str(name))
                    found.append(DiscoveredTool(str(name), tool if kind_of(tool) is not None else None, info))
        return found

    def context_type(self, obj: Any) -> str | None:
        declared = type_name(getattr(obj, "context_schema", None))
        return f"{declared} (context_schema of the graph)" if declared else None

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        if "messages" not in (getattr(obj, "channels", None) or {}):
            raise AgentError("the graph's state has no `messages` key; `type: langgraph` sends the conversation as "
                             "`{\"messages\": [...]}` (MessagesState). For another state shape, wrap the graph in a "
                             "function and use `type: python`.")
        sent = [{"role": t.get("role", "user"), "content": str(t.get("content", ""))} for t in history]
        sent.append({"role": "user", "content": text})
        with _tracing(options.tracing):
            state = await _final_state(obj, {"messages": sent}, _run_kwargs(obj, session_id, options), options.stream)
        messages = state.get("messages") if isinstance(state, dict) else None
        if not isinstance(messages, list):
            return {"text": output_text(state), "tool_calls": [],
                    "notes": ["the graph returned no `messages`; its whole output is shown as JSON"]}
        return _reply(messages[len(sent):])


def _run_kwargs(obj: Any, session_id: str, options: RunOptions) -> dict[str, Any]:
    """The graph's config (a thread of its own per turn when it has a checkpointer) and agent.context."""
    config = None
    if getattr(obj, "checkpointer", None) is not None:
        config = {"configurable": {"thread_id": f"khaos-{session_id}-{uuid.uuid4().hex[:8]}"}}
    return {"config": config} if options.context is None else {"config": config, "context": options.context}


async def _final_state(obj: Any, state: dict[str, Any], kwargs: dict[str, Any], stream: bool) -> Any:
    if not stream:
        return await obj.ainvoke(state, **kwargs)
    final: Any = None
    async for chunk in obj.astream(state, stream_mode="values", **kwargs):
        final = chunk  # each chunk is the whole state so far; the last is the final state
    return final


def _reply(new: list[Any]) -> dict[str, Any]:
    """The turn's reply from the messages the graph added: the last AI message's text and every tool call."""
    calls = [{"name": call.get("name"), "args": plain_args(call.get("args", {}))}
             for message in new for call in (getattr(message, "tool_calls", None) or ()) if call.get("name")]
    answers = [m for m in new if getattr(m, "type", None) == "ai"]
    return {"text": _text(answers[-1].content) if answers else "", "tool_calls": calls}


def _tracing(enabled: bool) -> Any:
    """LangSmith tracing (LANGSMITH_TRACING in the environment) off for this turn only, unless `agent.tracing`:
    a context variable, so nothing of the user's process is changed after the run."""
    try:
        from langsmith.run_helpers import tracing_context
    except ImportError:
        return contextlib.nullcontext()
    return contextlib.nullcontext() if enabled else tracing_context(enabled=False)


def _graphs(obj: Any) -> list[Any]:
    try:
        return [obj, *(sub for _, sub in obj.get_subgraphs(recurse=True))]
    except Exception:  # noqa: BLE001 - subgraph discovery is best effort; the top graph's tools still count
        return [obj]


def _tools_by_name(bound: Any) -> dict[str, Any]:
    for attr in ("tools_by_name", "_tools_by_name"):
        value = getattr(bound, attr, None)
        if isinstance(value, dict):
            return value
    return {}


def _text(content: Any) -> str:
    """An AIMessage's content as text (providers return a string or a list of content blocks)."""
    text = content_text(content)
    return output_text(content) if text is None else text


ADAPTER = LangGraphAdapter()
