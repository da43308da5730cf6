"""`type: crewai`: `entry` names a CrewAI `Crew`, an `Agent`, or a `@CrewBase` class (or instance) whose `crew()`
builds the crew; the tools of every agent and task are found on it and wrapped in place at `_run` (the crew's
agents call them through the structured tools they make from them).

A Crew runs tasks, not a conversation: a turn is `crew.kickoff(inputs=...)`, the case's message filling the crew's
`{placeholder}` (its only one, or those `agent.inputs` maps to `{{input}}`); a conversation the case carries does
not reach it (a note says so). An `Agent` entry is a chat: a turn is `agent.kickoff([*history, message])`.
Kickoff mutates the crew (task outputs, usage, the tool results its agents cache), so its worker serves one case at
a time, and a case's first turn drops the tool results cached before it; it runs synchronously, in a thread that
carries the case. A crew created with `stream=True` is read as a stream. With `agent.tracing` off,
CrewAI's telemetry and trace export are switched off in the agent's worker's environment (they would send every case
over the network). CrewAI's LLM class reaches OpenAI-compatible models through the openai SDK or
LiteLLM: LLM faults reach them through the engine's HTTP interception.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import Sessions, output_text
from khaos_action.errors import ConfigError

_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)\}")
INPUT = "{{input}}"


class CrewAiAdapter:
    agent_type = "crewai"
    extra = "crewai"
    module = "crewai"
    package = "crewai"
    expects = "a CrewAI `Crew`, an `Agent`, or a `@CrewBase` class (its `crew()` builds the crew)"
    one_case_at_a_time = True  # kickoff mutates the crew
    settings = ("inputs",)

    def __init__(self) -> None:
        self.sessions = Sessions()

    # Set in the agent's worker while agent.tracing is off (engine/worker/start.py quiet_env): its telemetry
    # and trace export would post every case to crewai.com; CREWAI_TESTING: no first-run "view your traces? [y/N]"
    # prompt (it waits 20 s on the console).
    quiet_env = {"CREWAI_DISABLE_TELEMETRY": "true", "CREWAI_TRACING_ENABLED": "false", "OTEL_SDK_DISABLED": "true",
                 "CREWAI_TESTING": "true"}

    def resolve(self, obj: Any) -> Any:
        """A `@CrewBase` class or instance: the Crew its `crew()` builds (once)."""
        if getattr(obj, "is_crew_class", False) and callable(getattr(obj, "crew", None)):
            return (obj() if isinstance(obj, type) else obj).crew()
        return obj

    def accepts(self, obj: Any) -> bool:
        from crewai import Agent, Crew

        return isinstance(obj, (Crew, Agent))

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        from khaos_action.engine.chaos.tool_kinds import describe_tool, kind_of

        found: dict[str, DiscoveredTool] = {}
        holders = [obj, *(getattr(obj, "agents", None) or ()), *(getattr(obj, "tasks", None) or ())]
        for holder in holders:
            for tool in getattr(holder, "tools", None) or ():
                info = describe_tool(tool)
                found.setdefault(info.name, DiscoveredTool(info.name, tool if kind_of(tool) else None, info))
        return list(found.values())

    def context_type(self, obj: Any) -> str | None:
        return None

    def check_settings(self, obj: Any, settings: dict[str, Any]) -> None:
        """A crew whose message has nowhere to go (several `{placeholders}` and no `agent.inputs`, or none): a
        config error before any case."""
        if not isinstance(obj, _agent_class()):
            kickoff_inputs(obj, "", settings.get("inputs") or {})

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        from crewai import Agent

        if self.sessions.resume(obj, session_id, history) is None:
            _forget_tool_results(obj)
        self.sessions.keep(obj, session_id, history, obj)
        if isinstance(obj, Agent):
            messages = [{"role": t.get("role", "user"), "content": str(t.get("content", ""))} for t in history]
            result = await asyncio.to_thread(obj.kickoff, [*messages, {"role": "user", "content": text}])
            return {"text": output_text(getattr(result, "raw", result)), "tool_calls": []}
        inputs = kickoff_inputs(obj, text, options.settings.get("inputs") or {})
        result = await asyncio.to_thread(_kickoff, obj, inputs)
        notes = ["a CrewAI Crew runs tasks: the conversation before this message did not reach it"] if history else []
        return {"text": output_text(getattr(result, "raw", result)), "tool_calls": [], "notes": notes}


def _agent_class() -> type:
    from crewai import Agent

    return Agent


def _forget_tool_results(obj: Any) -> None:
    """A case's first turn: the tool results CrewAI cached during other cases are dropped (its agents answer a
    repeated tool call from the cache, so a later case would never reach the tool, its faults or its payloads)."""
    agents = [obj, *(getattr(obj, "agents", None) or ())]
    handlers = [getattr(obj, "_cache_handler", None), *(getattr(a, "cache_handler", None) for a in agents),
                *(getattr(getattr(a, "tools_handler", None), "cache", None) for a in agents)]
    for handler in handlers:
        cache = getattr(handler, "_cache", None)
        if isinstance(cache, dict):
            cache.clear()


def _kickoff(crew: Any, inputs: dict[str, str]) -> Any:
    result = crew.kickoff(inputs=inputs)
    if hasattr(result, "get_full_text") or type(result).__name__ == "CrewStreamingOutput":
        for _ in result:  # a crew made with stream=True: its chunks, as its app reads them
            pass
        result = result.result
    return result


def placeholders(crew: Any) -> list[str]:
    """The `{names}` of the crew's tasks and agents, in order: what `kickoff(inputs=...)` fills. Read from the
    templates CrewAI keeps (`_original_description`...): a kickoff interpolates the texts themselves in place."""
    texts = [_template(task, attr) for task in getattr(crew, "tasks", None) or ()
             for attr in ("description", "expected_output")]
    texts += [_template(agent, attr) for agent in getattr(crew, "agents", None) or ()
              for attr in ("role", "goal", "backstory")]
    return list(dict.fromkeys(name for text in texts for name in _PLACEHOLDER.findall(str(text))))


def _template(obj: Any, attr: str) -> str:
    return str(getattr(obj, f"_original_{attr}", None) or getattr(obj, attr, None) or "")


def kickoff_inputs(crew: Any, text: str, configured: dict[str, str]) -> dict[str, str]:
    """`agent.inputs` with `{{input}}` replaced by the message; without it, the crew's one placeholder gets it."""
    if configured:
        return {str(k): str(v).replace(INPUT, text) for k, v in configured.items()}
    names = placeholders(crew)
    if len(names) == 1:
        return {names[0]: text}
    if not names:
        raise ConfigError("the crew's tasks take no input (no `{placeholder}` in their descriptions), so the case's "
                          "message cannot reach it: add one (e.g. `{question}` in the first task's description), or "
                          "point agent.entry at one of its Agents")
    raise ConfigError(f"the crew takes several inputs ({', '.join(names)}): say which gets the case's message with "
                      f"`agent.inputs`, e.g. `inputs: {{{names[0]}: \"{INPUT}\"}}` (the others: fixed values)")


ADAPTER = CrewAiAdapter()
