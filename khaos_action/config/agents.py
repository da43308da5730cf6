"""The `agent:` keys of each built-in `agent.type`: one model per type, a subclass of `AgentConfig` (the keys every
type shares) whose fields are the type's own keys, named by its entry in the transport registry (`params`).

Families share a base (config/agent_block.py, with `AgentConfig`): `InProcessAgent` (the agent's code imported into
the python worker: python and the frameworks; an `in_process` extension type extends it too) and `ProcessAgent`
(agents run as processes of their own: http, command, mcp). A reader of a type's key narrows to the model that owns
it (`isinstance(agent, InProcessAgent)`), never probes an attribute. In config/, not beside the transports in
engine/: the config is validated through these models, and the engine (with its imports) is built on the config.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from khaos_action.config.agent_block import InProcessAgent, ProcessAgent
from khaos_action.fields import Strict


class McpAgent(Strict):
    """`type: mcp`: the agent is exposed as an MCP server; each input is one call of one of its tools."""

    command: str | None = None
    """stdio: the command line that starts the agent's MCP server (one long-lived process per instance)."""
    url: str | None = None
    """streamable HTTP: the agent's MCP endpoint, e.g. `http://127.0.0.1:8000/mcp` (started by `agent.start`)."""
    tool: str | None = None
    """The tool that takes the input (default: the server's only tool, else `chat`)."""
    argument: str | None = None
    """The tool argument that gets the input text (default: the tool's only required string parameter, else
    `input`)."""
    session_argument: str | None = None
    """Optional argument that gets the case's session id."""
    history_argument: str | None = None
    """Optional argument that gets the conversation history (a list of {role, content})."""
    reset_tool: str | None = None
    """Optional tool called (without arguments) before each isolation group to clear agent state."""

    @model_validator(mode="after")
    def _one_endpoint(self) -> McpAgent:
        if bool(self.command) == bool(self.url):
            raise ValueError("agent.mcp needs exactly one of `command` (stdio) or `url` (streamable HTTP)")
        return self


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
