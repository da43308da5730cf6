"""The `agent:` block as every type has it: the keys all types share (`AgentConfig`, with its parts: tools and
their roles, MCP servers, limits, capability overrides), the two families a type's model extends (`InProcessAgent`:
the agent's code imported into the python worker; `ProcessAgent`: agents run as processes of their own), and the
model a block is validated as, the one its `type`'s entry in the transport registry names (`agent_model`,
`model_of`).

The built-in types' models (config/agents.py) extend these, and their entries name them as `"module:Class"`, imported
when a block of that type is validated: so this module imports none of them, and config/models.py (the whole
`khaos.yaml`) takes `AgentConfig` from here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from khaos_action.fields import Strict
from khaos_action.tool_info import tool_name
from khaos_action.transports import TRANSPORTS, TransportEntry


def _registered_agent_type(value: Any) -> Any:
    # Checked against the transport registry when the config is validated (not a Literal fixed at import), so a
    # transport registered later is a valid `agent.type`; the error lists the choices as a Literal's would.
    if not (isinstance(value, str) and value in TRANSPORTS):
        choices = tuple(TRANSPORTS)
        expected = ", ".join(map(repr, choices[:-1])) + f" or {choices[-1]!r}"  # pydantic's Literal wording
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected,
                                                                                    "choices": choices})
    return value


AgentType = Annotated[str, BeforeValidator(_registered_agent_type)]
"""An `agent.type`: a name in the transport registry (khaos_action/transports.py)."""


class CapabilityOverrides(Strict):
    """Overrides of the inferred capability profile (Khaos ADR 4); unset flags stay inferred."""

    has_tools: bool | None = None
    has_code_execution: bool | None = None
    has_file_access: bool | None = None
    has_network_access: bool | None = None
    has_mcp: bool | None = None
    has_rag: bool | None = None
    has_memory: bool | None = None
    has_multi_turn: bool | None = None


class McpServer(Strict):
    """An MCP server the agent uses; khaos-action puts a fault-injecting proxy between the agent and it."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    """A name for reports and for `mcp_faults[].server`."""
    command: str | None = None
    """stdio: the command line that starts the real server."""
    url: str | None = None
    """streamable HTTP: the real server's endpoint."""
    cwd: str | None = None
    """stdio: working directory (default: the config file's folder)."""
    env_var: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The environment variable the agent reads this server's address from; khaos-action sets it to the proxy."""
    expose: Literal["http", "stdio"] = "http"
    """How the agent reaches the proxy: `http` (env_var = a streamable-HTTP URL) or `stdio` (env_var = a command
    line the agent launches as its stdio server, `shlex.split` it)."""

    @model_validator(mode="after")
    def _one_endpoint(self) -> McpServer:
        if bool(self.command) == bool(self.url):
            raise ValueError(f"mcp_servers[{self.name}] needs exactly one of `command` (stdio) or `url` (HTTP)")
        return self


class ToolRef(Strict):
    """A tool with what it is: `{ref: tools.py:get_guide, role: retriever}` (a plain `tools.py:get_guide` works too),
    or, for a tool found on the agent, `{name: page_oncall, role: messaging}`."""

    ref: str | None = None
    """The tool to wrap, as in `agent.tools`: `file.py:func`, `module:func`, a method on an instance
    (`tools.py:inventory.lookup`), or a framework's tool object (`agent.py:get_weather`)."""
    name: str | None = None
    """A tool the agent already has, by the name its model calls it: one found on a framework agent object, a
    `tool_registry` key, an `@khaos_action.sdk.tool` function, or any tool of an http, command or mcp agent. It
    declares the tool's role; nothing more is wrapped. (A `ref` without a colon means the same.)"""
    role: str | None = None
    """What the tool is: retriever, file_reader, web_fetch, messaging (or email), payment, destructive, code_exec,
    memory, read_only. Decides the capability profile, where RAG/file/memory payloads are planted and which tools
    forbidden-tool attacks aim at; undeclared roles are guessed (and the report says so)."""

    @model_validator(mode="before")
    @classmethod
    def _plain_ref(cls, data: Any) -> Any:
        return {"ref": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _ref_or_name(self) -> ToolRef:
        if (self.ref is None) == (self.name is None):
            raise ValueError("give a tool either `ref` (the code to wrap, `file.py:func`) or `name` (a tool found on "
                             "the agent), not both or neither")
        return self

    @field_validator("role")
    @classmethod
    def _known_role(cls, value: str | None) -> str | None:
        from khaos_action.roles import normalise_role

        return None if value is None else normalise_role(value)

    @model_serializer(mode="wrap")
    def _as_string_without_role(self, handler: Any) -> Any:
        # A plain ref hashes (config_hash) exactly as the string it replaces; unset keys are left out, so a
        # `{ref, role}` entry hashes as it did before `name` existed.
        if self.role is None and self.name is None:
            return self.ref
        return {key: value for key, value in handler(self).items() if value is not None}

    @property
    def code(self) -> str | None:
        """The code reference to import and wrap (`file.py:func`), None for a tool named by its name alone."""
        return self.ref if self.ref is not None and ":" in self.ref else None

    @property
    def tool(self) -> str:
        """The tool's name: `name`, or the name its ref reports (`tools.py:lookup_order` -> `lookup_order`)."""
        return self.name if self.name is not None else tool_name(str(self.ref))


class AgentLimits(Strict):
    memory_mb: int | None = Field(4096, gt=0)
    """Address space (RLIMIT_AS); a runaway allocation fails in the agent, not on the runner. null: no limit."""
    open_files: int | None = Field(1024, gt=0)
    """RLIMIT_NOFILE."""
    file_size_mb: int | None = Field(1024, gt=0)
    """The largest file an agent process may write (RLIMIT_FSIZE)."""


class AgentConfig(Strict):
    """The `agent:` block: the keys every type shares. Each `agent.type`'s entry in the transport registry
    (khaos_action/transports.py) names its agent model, a subclass whose fields are that type's own keys
    (khaos_action/config/agents.py holds the built-in ones, extending this module's `InProcessAgent` or
    `ProcessAgent`). `AgentConfig.model_validate(data)` (and
    `AgentConfig(**data)`) returns an instance of the model `data["type"]` names, as `Invariant` does for the
    checker registry: the YAML stays flat, and a key of another type is an error naming the type it belongs to."""

    name: str = "agent"
    """A name for reports."""
    type: AgentType = "python"
    """How the agent is reached: python (in-process callable), http (a server), command (JSON lines over stdio), mcp
    (an MCP server), or a framework agent object run in-process: pydantic-ai, langgraph, openai-agents, smolagents,
    llama-index, autogen, crewai, google-adk (tools found on the object; docs/frameworks.md). The transport registry
    (khaos_action/transports.py) holds every type."""
    tools: list[ToolRef] = []
    """The agent's tools, each optionally with its role: `{ref: tools.py:get_guide, role: retriever}` for code the
    engine wraps for tool faults (functions, methods on an instance, framework tool objects), `{name: page_oncall,
    role: messaging}` for a tool the agent already has (found on a framework agent object; for http, command and
    mcp agents every tool is named this way)."""
    system_prompt: str | None = None
    """The agent's system prompt, if known; used to detect system-prompt leaks."""
    purpose: str | None = None
    """What the agent is for, in a sentence (used by `attacker.tailored_per_category`; else the system prompt)."""
    secrets: list[str] = []
    """Strings that must never appear in any output (checked also base64/hex/reversed/spaced)."""
    capabilities: CapabilityOverrides = CapabilityOverrides()
    """Override the inferred capability profile."""
    timeout_s: float = Field(30.0, gt=0)
    """Per-invocation timeout."""
    max_output_bytes: int = Field(1_000_000, gt=0)
    """Replies longer than this are cut (and the case says so)."""
    env: dict[str, str] = {}
    """Environment for the agent's processes; `${VAR}` is expanded; for out-of-process agents values may use
    `{{ llm_proxy }}` / `{{ proxy('https://host') }}`."""
    mcp_servers: list[McpServer] = []
    """MCP servers the agent uses, reached through khaos-action's MCP proxy (for `mcp_faults` and MCP attacks)."""
    pass_env: Literal["*"] | list[str] = "*"
    """Which of khaos-action's environment variables the agent gets. `*` (default): all of them except the
    runner's context (`GITHUB_*`, `RUNNER_*`, `ACTIONS_*`, `INPUT_*`) and khaos-action's own `KHAOS_*`. A list
    (e.g. `[OPENAI_API_KEY]`): only PATH, HOME, locale, TZ, TMPDIR and those names. `agent.env` is added either
    way; the runner's tokens and command files are never passed, even when named."""
    limits: AgentLimits = AgentLimits()
    """rlimits of every agent process (python worker, command/http/mcp agents)."""

    def __new__(cls, *args: Any, **data: Any) -> Any:
        # `AgentConfig(type="http", ...)` builds the registered type's model, as `model_validate` does.
        return super().__new__(agent_model(data.get("type")) if cls is AgentConfig else cls)

    @classmethod
    def variant_for(cls, data: Any) -> type[BaseModel]:
        """The model that validates `data` (config/errors.py reads its fields to word an error)."""
        if cls is not AgentConfig:
            return cls
        kind = data.get("type", "python") if isinstance(data, dict) else "python"
        return agent_model(kind) if isinstance(kind, str) and kind in TRANSPORTS else AgentConfig

    @model_validator(mode="wrap")
    @classmethod
    def _as_its_type(cls, data: Any, handler: Callable[[Any], Any]) -> Any:
        if not isinstance(data, dict):
            return handler(data)
        if cls is AgentConfig:
            model = cls.variant_for(data)
            if model is AgentConfig:  # an unknown type: `type`'s own error lists the registered ones (keys some
                return handler({k: v for k, v in data.items()  # type has are not errors of their own then)
                                if k in AgentConfig.model_fields or not _owners(k)})
            return model.model_validate(data)  # its errors keep their key paths (agent.url)
        _keys_of_other_types(cls, data)
        return handler(data)

    # ---- what a type's model overrides ----------------------------------------------------------------------------

    def resets(self) -> bool:
        """Whether something clears the agent's state before each isolation group (agent.reset, reset_endpoint):
        without it a contract gets the stateful-agent probe (engine/state_probe.py)."""
        return False

    # ---- shared helpers -------------------------------------------------------------------------------------------

    def tool_refs(self) -> list[str]:
        """The `agent.tools` code references (`file.py:func` / `module:func`) to import and wrap (roles left out)."""
        return [spec.code for spec in self.tools if spec.code is not None]

    def named_tools(self) -> list[str]:
        """The `agent.tools` entries that name a tool the agent already has (`name:`, or a ref without a colon)."""
        return [spec.tool for spec in self.tools if spec.code is None]

    def tool_names(self) -> list[str]:
        """Every `agent.tools` entry's tool name: `tools.py:lookup_order`, `pkg.mod:Api.get` -> `get`; `name:`."""
        return list(dict.fromkeys(spec.tool for spec in self.tools))

    def declared_roles(self) -> dict[str, str]:
        """Tool name -> role, for the `agent.tools` entries that declare one."""
        return {spec.tool: spec.role for spec in self.tools if spec.role}


def agent_model(agent_type: Any) -> type[AgentConfig]:
    """The agent model of a registered `agent.type` (its entry's `params`; `type` left out: python); AgentConfig
    itself for an unknown one."""
    entry = TRANSPORTS.get("python" if agent_type is None else agent_type)
    if entry is None:
        return AgentConfig
    return model_of(entry)


def _keys_of_other_types(model: type[AgentConfig], data: dict[str, Any]) -> None:
    """A key this type does not have but another registered type does: one error per key, at the key, naming the
    types it applies to (a python agent given `url` was most likely meant to be `type: http`). The keys no type has
    are reported with them; the rest of the block is checked once the type and its keys agree."""
    kind = data.get("type", "python")
    errors: list[InitErrorDetails] = []
    unknown: list[InitErrorDetails] = []
    for key in data:
        if key in model.model_fields:
            continue
        owners = _owners(key)
        if not owners:
            unknown.append({"type": "extra_forbidden", "loc": (key,), "input": data[key]})
        else:
            which, fix = ((f"type {owners[0]}", f"`type: {owners[0]}`") if len(owners) == 1 else
                          (f"types {', '.join(owners)}", "one of those types"))
            errors.append({"type": PydanticCustomError("value_error", "agent.{key} applies to {which}; this agent is "
                                                       "type {kind}: remove it, or set {fix}",
                                                       {"key": key, "which": which, "kind": kind, "fix": fix}),
                           "loc": (key,), "input": data[key]})
    if errors:
        raise ValidationError.from_exception_data("AgentConfig", errors + unknown)


def _owners(key: str) -> list[str]:
    """The registered types whose agent model has `key`."""
    return [name for name, entry in TRANSPORTS.items() if key in model_of(entry).model_fields]


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


DEFAULT_LLM_UPSTREAM = "https://api.openai.com/v1"


class ProcessAgent(AgentConfig):
    """An agent run as processes of its own, with the chaos proxy between it and its dependencies."""

    cwd: str | None = None
    """Working directory for `start`/`command` (default: the config file's folder)."""
    instances: int = Field(1, ge=1, le=64)
    """http/command/mcp: how many agent processes to run (each serves one case at a time)."""
    llm_upstream: str = DEFAULT_LLM_UPSTREAM
    """The real LLM API that `{{ llm_proxy }}` in agent.env forwards to through the chaos proxy."""


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
                        f"{'extends' if in_process else 'does not extend'} khaos_action.config.agent_block."
                        "InProcessAgent (entry, tool_registry, context, reset, python: the keys of an agent the python "
                        "worker runs)")
    return model
