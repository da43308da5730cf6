"""`type: google-adk`: `entry` names a Google ADK agent (`Agent` / `LlmAgent`, a workflow agent over sub-agents),
an `App` around one (its plugins and settings kept: it is run by an in-memory Runner made from it), or a `Runner`
(its session service is then the one used); the tools of the agent and its sub-agents
are found on it (plain functions by reference, `FunctionTool`s in place at `func`).

A turn is `runner.run_async(user_id, session_id, new_message)`, its events read: the function calls the model made
and the final response's text. Each case has its own ADK session (created on its first turn, with the conversation
the case opens with appended as events, and kept for its next turns), so cases run concurrently on one agent. With
`agent.stream` the run uses ADK's SSE streaming mode and the partial events are read as they come. ADK reaches
models through google-genai or LiteLLM (`LiteLlm("openai/...")`): LLM faults reach them through the engine's
HTTP interception (httpx, aiohttp).
"""

from __future__ import annotations

import uuid
from typing import Any

from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import Sessions, plain_args
from khaos_action.tool_info import ToolInfo

_USER = "khaos-action"


class GoogleAdkAdapter:
    agent_type = "google-adk"
    extra = "google-adk"
    module = "google.adk"
    package = "google-adk"
    expects = "a Google ADK agent (`Agent(...)`, `LlmAgent(...)`), an `App` or a `Runner` around one"

    def __init__(self) -> None:
        self.sessions = Sessions()
        self._runners: dict[int, Any] = {}

    def accepts(self, obj: Any) -> bool:
        from google.adk.agents import BaseAgent
        from google.adk.runners import Runner

        return isinstance(obj, (BaseAgent, Runner)) or _is_app(obj)

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        from khaos_action.engine.chaos.tool_kinds import describe_tool, kind_of

        found: dict[str, DiscoveredTool] = {}
        for agent in _agents(_root(obj)):
            for tool in getattr(agent, "tools", None) or ():
                if kind_of(tool) is not None:  # a function, or a FunctionTool
                    info = describe_tool(tool)
                    found.setdefault(info.name, DiscoveredTool(info.name, tool, info))
                else:  # an agent as a tool (its agent's tools are found below), built-in or MCP tools: evidence
                    name = str(getattr(tool, "name", None) or type(tool).__name__)
                    info = ToolInfo(name=name, description=str(getattr(tool, "description", "") or type(tool).__name__))
                    found.setdefault(name, DiscoveredTool(name, None, info))
        return list(found.values())

    def context_type(self, obj: Any) -> str | None:
        return None

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        from google.adk.agents.run_config import RunConfig, StreamingMode
        from google.genai import types

        runner = self._runner(obj)
        session = self.sessions.resume(obj, session_id, history)
        if session is None:
            session = await runner.session_service.create_session(
                app_name=runner.app_name, user_id=_USER, session_id=f"khaos-{session_id}-{uuid.uuid4().hex[:8]}")
            await _seed(runner, session, history, _root(obj))
        config = RunConfig(streaming_mode=StreamingMode.SSE) if options.stream else None
        message = types.Content(role="user", parts=[types.Part(text=text)])
        calls: list[dict[str, Any]] = []
        answer: list[str] = []
        async for event in runner.run_async(user_id=_USER, session_id=session.id, new_message=message,
                                            run_config=config):
            calls += [{"name": call.name, "args": plain_args(call.args or {})}
                      for call in event.get_function_calls() or ()]
            if event.is_final_response() and not getattr(event, "partial", False) and event.content:
                answer += [part.text for part in event.content.parts or () if part.text and not part.thought]
        self.sessions.keep(obj, session_id, history, session)
        return {"text": "\n".join(answer), "tool_calls": calls}

    def _runner(self, obj: Any) -> Any:
        """The entry's own Runner, or an in-memory one made once for an agent object or an App."""
        from google.adk.runners import InMemoryRunner, Runner

        if isinstance(obj, Runner):
            return obj
        runner = self._runners.get(id(obj))
        if runner is None:
            made = InMemoryRunner(app=obj) if _is_app(obj) else InMemoryRunner(agent=obj, app_name=str(obj.name))
            runner = self._runners[id(obj)] = made
        return runner


def _is_app(obj: Any) -> bool:
    """An ADK `App` (google.adk.apps, ADK 1.14 and later: the agent with its plugins and settings)."""
    try:
        from google.adk.apps import App
    except ImportError:  # an ADK without apps
        return False
    return isinstance(obj, App)


def _root(obj: Any) -> Any:
    """The agent a Runner runs (ADK 2 wraps it into an App), an App's root agent, or the agent itself."""
    if _is_app(obj):
        return obj.root_agent
    app = getattr(obj, "app", None)
    return getattr(obj, "agent", None) or getattr(app, "root_agent", None) or obj


def _agents(root: Any) -> list[Any]:
    """The agent, its sub-agents and the agents behind its agent tools, recursively."""
    seen: list[Any] = []
    stack = [root]
    while stack:
        agent = stack.pop()
        if agent is None or any(agent is s for s in seen):
            continue
        seen.append(agent)
        stack += list(getattr(agent, "sub_agents", None) or ())
        stack += [getattr(tool, "agent", None) for tool in getattr(agent, "tools", None) or ()]
    return seen


async def _seed(runner: Any, session: Any, history: list[dict[str, str]], root: Any) -> None:
    """The conversation a case opens with, as the session's first events: the user's turns and the agent's."""
    from google.adk.events import Event
    from google.genai import types

    for turn in history:
        said = turn.get("role") == "assistant"
        content = types.Content(role="model" if said else "user", parts=[types.Part(text=str(turn.get("content", "")))])
        await runner.session_service.append_event(session, Event(author=str(root.name) if said else "user",
                                                                 content=content))


ADAPTER = GoogleAdkAdapter()
