"""`type: autogen`: `entry` names an AutoGen AgentChat agent (`AssistantAgent`, any `BaseChatAgent`) or a team
(`RoundRobinGroupChat`, `SelectorGroupChat`, `Swarm`); the tools of every participant are found on it (its
workbenches' tools, agents and teams used as tools included) and wrapped in place at `run_json`.

A turn is `await agent.run(task=...)` (`run_stream` with `agent.stream`). AgentChat agents and teams keep the
conversation themselves (an agent's model context, a team's state): a case's first turn resets them (`on_reset` /
`reset()`) and hands over the conversation the case opens with as the task's first messages; its next turns continue
them. Since the object holds the conversation, its worker serves one case at a time, and after a turn that raised
it serves no other case (a team that raised stays broken after `reset()`). AutoGen's OpenAI client talks
through the openai SDK (httpx): LLM faults reach it through the engine's interception; a sync tool runs on a thread
AutoGen starts without the case's context, which the one-case worker attributes to the case.
"""

from __future__ import annotations

from typing import Any

from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import Sessions, plain_args


class AutogenAdapter:
    agent_type = "autogen"
    extra = "autogen"
    module = "autogen_agentchat"
    package = "autogen-agentchat"
    expects = "an AutoGen AgentChat agent (`AssistantAgent(...)`) or team (`RoundRobinGroupChat(...)`)"
    one_case_at_a_time = True  # agents and teams hold the conversation
    # A team whose run raised (a model error inside a participant) stays broken after `reset()`: its next run stops
    # after the first hand-off ("The group chat is stopped."), so a later case would be judged on a team no user
    # has. After a failed turn the next case gets a worker that imports the agent afresh.
    spoiled_by_errors = True

    def __init__(self) -> None:
        self.sessions = Sessions()

    def accepts(self, obj: Any) -> bool:
        from autogen_agentchat.base import ChatAgent, Team

        return isinstance(obj, (ChatAgent, Team))

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        from khaos_action.engine.chaos.tool_kinds import describe_tool

        found: dict[str, DiscoveredTool] = {}
        for agent in _participants(obj):
            for tool in _tools(agent):
                info = describe_tool(tool)
                found.setdefault(info.name, DiscoveredTool(info.name, tool, info))
        return list(found.values())

    def context_type(self, obj: Any) -> str | None:
        return None

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        from autogen_agentchat.base import TaskResult

        task: Any = text
        if self.sessions.resume(obj, session_id, history) is None:
            await _reset(obj)
            task = await _open(obj, history, text)
        if options.stream:
            result = None
            async for item in obj.run_stream(task=task):  # events and messages as a console shows them
                result = item if isinstance(item, TaskResult) else result
        else:
            result = await obj.run(task=task)
        self.sessions.keep(obj, session_id, history, obj)
        return _reply(result, team=_is_team(obj))


def _is_team(obj: Any) -> bool:
    from autogen_agentchat.base import Team

    return isinstance(obj, Team)


async def _reset(obj: Any) -> None:
    if _is_team(obj):
        await obj.reset()
        return
    from autogen_core import CancellationToken

    await obj.on_reset(CancellationToken())


async def _open(obj: Any, history: list[dict[str, str]], text: str) -> Any:
    """The task of a case's first turn. The conversation it opens with goes into an agent's model context as the
    user's and its own messages; a team gets it as the task's first messages."""
    from autogen_agentchat.messages import TextMessage
    from autogen_core.models import AssistantMessage, UserMessage

    if not history:
        return text
    speaker = str(getattr(obj, "name", None) or "assistant")
    context = getattr(obj, "model_context", None)
    if context is not None and not _is_team(obj):
        for turn in history:
            content = str(turn.get("content", ""))
            said = turn.get("role") == "assistant"
            await context.add_message(AssistantMessage(content=content, source=speaker) if said
                                      else UserMessage(content=content, source="user"))
        return text
    return [*(TextMessage(content=str(t.get("content", "")), source=speaker if t.get("role") == "assistant" else "user")
              for t in history), TextMessage(content=text, source="user")]


def _participants(root: Any) -> list[Any]:
    """The agent, or every participant of a team (nested teams included)."""
    seen: list[Any] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if any(node is s for s in seen):
            continue
        seen.append(node)
        stack += list(getattr(node, "_participants", None) or ())
    return seen


def _tools(agent: Any) -> list[Any]:
    """An agent's tools: those of its static workbenches (what `tools=[...]` made), else its own list."""
    tools = [tool for bench in (getattr(agent, "_workbench", None) or ()) for tool in getattr(bench, "_tools", ())]
    return tools or list(getattr(agent, "_tools", None) or ())


def _reply(result: Any, *, team: bool) -> dict[str, Any]:
    """The reply: an agent's last message; a team's messages of this run, each with its speaker (what a team's
    console shows). Tool calls: the function calls the model requested."""
    from autogen_agentchat.messages import BaseChatMessage, ToolCallRequestEvent

    messages = list(getattr(result, "messages", None) or ())
    task_end = max((i for i, m in enumerate(messages) if getattr(m, "source", None) == "user"), default=-1)
    messages = messages[task_end + 1:]  # this turn's, not the task nor the conversation it opened with
    said = [m for m in messages if isinstance(m, BaseChatMessage)]
    if team:
        text = "\n".join(f"{m.source}: {m.to_text()}" for m in said)
    else:
        text = said[-1].to_text() if said else ""
    calls = [{"name": call.name, "args": plain_args(call.arguments)}
             for m in messages if isinstance(m, ToolCallRequestEvent) for call in m.content]
    return {"text": text, "tool_calls": calls}


ADAPTER = AutogenAdapter()
