"""`type: smolagents`: `entry` names a smolagents agent (`ToolCallingAgent`, `CodeAgent`); its tools (and those of
its managed agents) are found on it and wrapped in place: the agent keeps its own Tool objects.

A turn is `agent.run(text, reset=False)` on the agent's own memory (`stream=True` with `agent.stream`): a case's
first turn starts from an empty memory, seeded with the history the case opens with; its next turns continue it.
The agent object holds that memory, so its worker serves one case at a time. The agent runs synchronously, in a
thread that carries the case (asyncio.to_thread), as in the user's own code. Its model classes talk HTTP through
the openai SDK (OpenAIServerModel), LiteLLM (LiteLLMModel) or huggingface_hub: LLM faults reach them through the
engine's interception. A CodeAgent's code runs in its own executor: that is the agent's code execution (listed as
the `python_interpreter` tool), and the tools its code calls go through their wrappers.
"""

from __future__ import annotations

import asyncio
from typing import Any

from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, RunOptions
from khaos_action.engine.transport.frameworks.base import Sessions, output_text, plain_args
from khaos_action.tool_info import ToolInfo

# smolagents' own tools: how the model answers (final_answer), and the code action of a CodeAgent.
_ANSWER = "final_answer"
_CODE = "python_interpreter"


class SmolagentsAdapter:
    agent_type = "smolagents"
    extra = "smolagents"
    module = "smolagents"
    package = "smolagents"
    expects = "a smolagents agent (`ToolCallingAgent(...)` or `CodeAgent(...)`)"
    one_case_at_a_time = True  # the agent object holds the conversation (agent.memory)

    def __init__(self) -> None:
        self.sessions = Sessions()

    def accepts(self, obj: Any) -> bool:
        from smolagents.agents import MultiStepAgent

        return isinstance(obj, MultiStepAgent)

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        from smolagents.agents import CodeAgent

        from khaos_action.engine.chaos.tool_kinds import describe_tool

        found: dict[str, DiscoveredTool] = {}
        for agent in _agents(obj):
            for name, tool in (getattr(agent, "tools", None) or {}).items():
                if name != _ANSWER:
                    found.setdefault(str(name), DiscoveredTool(str(name), tool, describe_tool(tool)))
            for name, managed in (getattr(agent, "managed_agents", None) or {}).items():
                # A managed agent is called like a tool; its own tools are found (and wrapped) themselves.
                info = ToolInfo(name=str(name), description=str(getattr(managed, "description", "") or ""))
                found.setdefault(str(name), DiscoveredTool(str(name), None, info))
            if isinstance(agent, CodeAgent):
                info = ToolInfo(name=_CODE, description="executes the Python code the model writes",
                                parameters=("code",))
                found.setdefault(_CODE, DiscoveredTool(_CODE, None, info))
        return list(found.values())

    def context_type(self, obj: Any) -> str | None:
        return None

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        return await asyncio.to_thread(self._turn, obj, text, history, session_id, options.stream)

    def _turn(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
              stream: bool) -> dict[str, Any]:
        if self.sessions.resume(obj, session_id, history) is None:
            obj.memory.reset()
            obj.monitor.reset()
            _seed(obj, history)
        before = len(obj.memory.steps)
        if stream:
            output = None
            for step in obj.run(text, stream=True, reset=False):  # the steps as a streaming UI shows them
                if type(step).__name__ == "FinalAnswerStep":
                    output = step.output
        else:
            output = obj.run(text, reset=False)
            output = output.output if type(output).__name__ == "RunResult" else output  # return_full_result=True
        self.sessions.keep(obj, session_id, history, obj.memory)
        return {"text": output_text(output), "tool_calls": _calls(obj.memory.steps[before:])}


def _agents(root: Any) -> list[Any]:
    """The agent and its managed agents, recursively."""
    seen: list[Any] = []
    stack = [root]
    while stack:
        agent = stack.pop()
        if any(agent is s for s in seen):
            continue
        seen.append(agent)
        stack += list((getattr(agent, "managed_agents", None) or {}).values())
    return seen


def _seed(obj: Any, history: list[dict[str, str]]) -> None:
    """A conversation the case opens with, as smolagents' memory keeps one: each user turn a task, each reply a
    step whose model output it was."""
    from smolagents.memory import ActionStep, TaskStep
    from smolagents.monitoring import Timing

    for index, turn in enumerate(history):
        content = str(turn.get("content", ""))
        if turn.get("role") == "assistant":
            obj.memory.steps.append(ActionStep(step_number=index + 1, timing=Timing(start_time=0.0, end_time=0.0),
                                               model_output=content, is_final_answer=True))
        else:
            obj.memory.steps.append(TaskStep(task=content))


def _calls(steps: list[Any]) -> list[dict[str, Any]]:
    """The tool calls of this turn's steps, as the model made them (not the answer itself, nor a CodeAgent's code
    action: the tools its code calls are recorded by their wrappers)."""
    return [{"name": str(call.name), "args": plain_args(call.arguments)}
            for step in steps for call in (getattr(step, "tool_calls", None) or ())
            if call.name not in (_ANSWER, _CODE)]


ADAPTER = SmolagentsAdapter()
