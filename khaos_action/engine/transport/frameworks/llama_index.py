"""`type: llama-index`: `entry` names a LlamaIndex workflow agent (`FunctionAgent`, `ReActAgent`, `CodeActAgent`) or
an `AgentWorkflow` of several; the tools of every agent are found on it (FunctionTool objects wrapped in place,
plain functions by reference, before the agent turns them into tools).

A turn is `handler = agent.run(user_msg=text, memory=..., ctx=...)`, awaited: the case's workflow `Context` (its
state) and its chat memory. A case's first turn gets new ones, the memory seeded with the case's opening history
(`chat_history`); its next turns the same ones. The agent object itself keeps no conversation, so cases run
concurrently. With `agent.stream` the events are read as a streaming UI reads them and the reply is the text the
`AgentStream` deltas carried. LlamaIndex's OpenAI LLMs talk to the API through the openai SDK (httpx): LLM faults
reach them through the engine's interception.
"""

from __future__ import annotations

from typing import Any

from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import Sessions, plain_args


class LlamaIndexAdapter:
    agent_type = "llama-index"
    extra = "llama-index"
    module = "llama_index.core"
    package = "llama-index-core"
    expects = "a LlamaIndex `FunctionAgent`, `ReActAgent` or `AgentWorkflow`"

    def __init__(self) -> None:
        self.sessions = Sessions()

    def accepts(self, obj: Any) -> bool:
        from llama_index.core.agent.workflow import AgentWorkflow, BaseWorkflowAgent

        return isinstance(obj, (BaseWorkflowAgent, AgentWorkflow))

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        from khaos_action.engine.chaos.tool_kinds import describe_tool

        found: dict[str, DiscoveredTool] = {}
        for agent in _agents(obj):
            for tool in getattr(agent, "tools", None) or ():
                info = describe_tool(tool)  # a FunctionTool's metadata, or a function's name and docstring
                found.setdefault(info.name, DiscoveredTool(info.name, tool, info))
        return list(found.values())

    def context_type(self, obj: Any) -> str | None:
        return None

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        from llama_index.core.agent.workflow import AgentStream, ToolCallResult
        from llama_index.core.llms import ChatMessage
        from llama_index.core.memory import ChatMemoryBuffer
        from llama_index.core.workflow import Context

        kept = self.sessions.resume(obj, session_id, history)
        opening = None
        if kept is None:
            # The memory is handed over with each run: a Context carries its state from run to run, not its memory.
            kept = (Context(obj), ChatMemoryBuffer.from_defaults())
            opening = [ChatMessage(role=_role(t.get("role")), content=str(t.get("content", ""))) for t in history]
        ctx, memory = kept
        handler = obj.run(user_msg=text, chat_history=opening or None, memory=memory, ctx=ctx)
        calls: list[dict[str, Any]] = []
        streamed: list[str] = []
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                calls.append({"name": event.tool_name, "args": plain_args(event.tool_kwargs)})
            elif isinstance(event, AgentStream) and options.stream:
                streamed.append(event.delta)
        result = await handler
        self.sessions.keep(obj, session_id, history, kept)
        message = getattr(result, "response", None)
        final = str(getattr(message, "content", None) or "") if message is not None else str(result)
        return {"text": "".join(streamed) or final if options.stream else final,
                "tool_calls": [c for c in calls if c["name"] != "handoff"]}


def _agents(root: Any) -> list[Any]:
    """A workflow's agents, or the agent itself."""
    agents = getattr(root, "agents", None)
    return list(agents.values()) if isinstance(agents, dict) else [root]


def _role(role: Any) -> str:
    return role if role in ("user", "assistant", "system") else "user"


ADAPTER = LlamaIndexAdapter()
