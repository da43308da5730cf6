"""The `agent:` keys of each built-in `agent.type`: one model per type, a subclass of `AgentConfig` (the keys every
type shares) whose fields are the type's own keys, named by its entry in the transport registry (`params`).

Families share a base: `InProcessAgent` (the agent's code imported into the python worker: python and the
frameworks; an `in_process` extension type extends it too) and `ProcessAgent` (agents run as processes of their
own: http, command, mcp). A reader of a type's key narrows to the model that owns it (`isinstance(agent,
InProcessAgent)`), never probes an attribute. In config/, not beside the transports in engine/: the config is
validated through these models, and the engine (with its imports) is built on the config.
"""

from __future__ import annotations

import functools
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, create_model, field_validator

from khaos_action.config.models import AgentConfig, McpAgent
from khaos_action.transports import TransportEntry


class InProcessAgent(AgentConfig):
    """An agent whose own code is imported into the python worker (engine/worker/pool.py)."""

    entry: str
    """python: `path/to/file.py:function` or `package.module:function`. A framework type: the framework's own agent
    object, e.g. `agent.py:agent` (a pydantic-ai or openai-agents Agent, a compiled LangGraph graph, a smolagents
    agent, a LlamaIndex FunctionAgent or AgentWorkflow, an AutoGen agent or team, a CrewAI Crew or Agent, a Google ADK
    agent or Runner)."""
    tool_registry: str | None = None
    """python: an object (`module:attr`) that maps tool names to callables (dict-like); wrapped for tool faults."""
    context: str | None = None
    """python / pydantic-ai / langgraph / openai-agents: a factory (`file.py:factory` or `module:factory`, a class
    works) called once per case; its return value is the run's context object: pydantic-ai `deps`, openai-agents
    `context`, LangGraph `context`, or the `context` keyword of a python function that accepts one."""
    reset: str | None = None
    """A callable (`file.py:func` or `module:func`) run before each isolation group to clear agent state."""
    python: str | None = None
    """python / framework agents: the interpreter their worker process runs with (e.g. `.venv/bin/python`);
    default: the venv the action's `install` populated, else khaos-action's own interpreter."""

    def resets(self) -> bool:
        return self.reset is not None


class PythonAgent(InProcessAgent):
    """`type: python`: a callable, `entry(message[, history])`, called in the python worker."""


class FrameworkAgent(InProcessAgent):
    """A framework type (`pydantic-ai`, `langgraph`, `openai-agents`, `smolagents`, `llama-index`, `autogen`,
    `crewai`, `google-adk`): the framework's own agent object, run through its adapter."""

    stream: bool = False
    """Run the agent through its framework's streaming API (pydantic-ai `run_stream`, LangGraph `astream`,
    openai-agents `Runner.run_streamed`, smolagents `run(stream=True)`, LlamaIndex `stream_events`, AutoGen
    `run_stream`, ADK SSE streaming; CrewAI has none), as an app that streams does."""
    tracing: bool = False
    """Leave the framework's trace and telemetry export on during the run (off by default: openai-agents,
    LangSmith and CrewAI would send every case's trace over the network)."""


class CrewAiAgent(FrameworkAgent):
    """`type: crewai`: a CrewAI `Crew` (run with `kickoff(inputs=...)`) or `Agent` (run with `kickoff(messages)`)."""

    inputs: dict[str, str] = {}
    """crewai: the Crew's `kickoff` inputs, `{{input}}` in a value standing for the case's message, e.g.
    `{topic: "{{input}}", year: "2025"}`. Default: the one `{placeholder}` of the crew's tasks and agents gets the
    message."""


DEFAULT_LLM_UPSTREAM = "https://api.openai.com/v1"


class ProcessAgent(AgentConfig):
    """An agent run as processes of its own, with the chaos proxy between it and its dependencies."""

    cwd: str | None = None
    """Working directory for `start`/`command` (default: the config file's folder)."""
    instances: int = Field(1, ge=1, le=64)
    """http/command/mcp: how many agent processes to run (each serves one case at a time)."""
    llm_upstream: str = DEFAULT_LLM_UPSTREAM
    """The real LLM API that `{{ llm_proxy }}` in agent.env forwards to through the chaos proxy."""


class HttpAgent(ProcessAgent):
    """`type: http`: a server the inputs are POSTed to."""

    url: str
    """http: the URL inputs are POSTed to."""
    method: str = "POST"
    """http: request method."""
    start: str | None = None
    """http: a shell command that starts the agent server; stopped at the end of the run."""
    ready_url: str | None = None
    """http: polled until it answers 2xx before any input is sent."""
    ready_timeout_s: float = Field(30.0, gt=0)
    """http: how long to wait for `ready_url`."""
    request: Any = None
    """http: request body template; strings `{{input}}`, `{{session_id}}`, `{{case_id}}` are substituted."""
    response_path: str | None = None
    """http: dotted path of the reply text in the JSON response (e.g. `output` or `choices.0.message.content`)."""
    headers: dict[str, str] = {}
    """http: request headers; `${ENV_VAR}` references are expanded."""
    reset_endpoint: str | None = None
    """http: a URL POSTed to before each isolation group to clear agent state."""

    def resets(self) -> bool:
        return self.reset_endpoint is not None

    @field_validator("url", "ready_url", "reset_endpoint")
    @classmethod
    def _a_url(cls, value: str | None) -> str | None:
        return value if value is None else checked_url(value)


def checked_url(value: str) -> str:
    """An http(s) URL whose port parses once `{{port}}` (the port of an agent server we start) is filled in: caught
    here, with the fix, instead of as a crash at the first request."""
    parts = urlsplit(value.replace("{{port}}", "1"))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value!r} is not an http(s) URL; write it like http://127.0.0.1:8000/chat")
    try:
        parts.port  # noqa: B018 - parsing it is the check
    except ValueError:
        port = parts.netloc.rpartition(":")[2]
        hint = " (the placeholder for a started server's port is {{port}}, with two braces)" if "{" in port else ""
        raise ValueError(f"{value!r} has a port that is not a number: {port!r}{hint}") from None
    return value


class CommandAgent(ProcessAgent):
    """`type: command`: a long-lived process speaking JSON lines on stdin/stdout."""

    command: str
    """command: the long-lived process speaking JSON lines on stdin/stdout."""
    reset: Literal["line", "restart"] | None = None
    """command: `line` (send the `{"type": "reset"}` line) or `restart` (restart the agent processes) before each
    isolation group, to clear agent state."""

    def resets(self) -> bool:
        return self.reset is not None


class McpTypeAgent(ProcessAgent):
    """`type: mcp`: an MCP server; each input is one call of one of its tools."""

    mcp: McpAgent
    """mcp: how to reach the agent's MCP server and which tool takes the input."""
    start: str | None = None
    """mcp (streamable HTTP): a shell command that starts the agent's MCP server; stopped at the end of the run."""
    ready_timeout_s: float = Field(30.0, gt=0)
    """mcp: how long to wait for the server `start` launched."""


def model_of(entry: TransportEntry) -> type[AgentConfig]:
    """The agent model of a registry entry: its `params` (imported when named as `"module:Class"`), or, for an
    entry without keys of its own, a model with only the shared ones (and the in-process ones: `in_process`)."""
    return _model(entry.name, entry.params, entry.in_process)


@functools.cache
def _model(name: str, params: Any, in_process: bool) -> type[AgentConfig]:
    if params is None:
        base = InProcessAgent if in_process else AgentConfig
        return create_model(name.title().replace("-", "") + "Agent", __base__=base, __doc__=base.__doc__)  # type: ignore[call-overload]
    model = TransportEntry.resolve(params) if isinstance(params, str) else params
    if not (isinstance(model, type) and issubclass(model, AgentConfig)) or model is AgentConfig:
        raise TypeError(f"agent.type {name!r}: params must be an AgentConfig subclass (its fields are the type's own "
                        f"keys), not {model!r}")
    if in_process != issubclass(model, InProcessAgent):  # readers narrow on the model: the two must agree
        raise TypeError(f"agent.type {name!r}: an entry with in_process={in_process} has a params model that "
                        f"{'extends' if in_process else 'does not extend'} khaos_action.config.agents.InProcessAgent "
                        "(entry, tool_registry, context, reset, python: the keys of an agent the python worker runs)")
    return model
