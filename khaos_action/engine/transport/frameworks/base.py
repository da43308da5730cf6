"""What every framework adapter shares (its seam, the protocol and the types it trades in, is adapter.py): the
framework's lazy import, the agent object loaded and checked, helpers for tool definitions, results and kept
sessions, and the transport that runs an agent object in-process.

A framework agent runs in this process like a `type: python` agent, so the same chaos reaches it: the session
hands the tools the adapter discovered to the ToolPatcher (tool faults and indirect payloads), and the httpx
interception sees the framework's LLM SDK calls (LLM faults). The adapter only translates: input and history
into the framework's terms, and its result back into `{text, tool_calls}`.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.engine.state_check import run_checks
from khaos_action.engine.transport.base import AgentCallError, TransportBase, normalise_reply, response
from khaos_action.engine.transport.frameworks.adapter import DiscoveredTool, FrameworkAdapter, RunOptions
from khaos_action.errors import AgentError, ConfigError
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.tool_info import ToolInfo
from khaos_action.transports import BuildOptions

if TYPE_CHECKING:  # for the annotation only: the zygote preloads this module (worker.py PRELOAD)
    from khaos_action.config.agents import FrameworkAgent


class Sessions:
    """A framework's own conversation state (an ADK session, a LlamaIndex Context, a smolagents memory...) per case:
    made fresh for a case's first turn, kept for its next turns. The engine sends every turn with the case's history
    so far; a kept state is resumed only if it has seen exactly that history, else the adapter starts a new one from
    the history (a case that starts with a conversation, a state lost with a worker)."""

    def __init__(self, limit: int = 256) -> None:
        self._kept: OrderedDict[tuple[int, str], tuple[Any, int]] = OrderedDict()
        self._limit = limit

    def resume(self, obj: Any, session_id: str, history: list[dict[str, str]]) -> Any | None:
        key = (id(obj), session_id)
        kept = self._kept.get(key)
        if kept is None or kept[1] != len(history):
            return None
        self._kept.move_to_end(key)
        return kept[0]

    def keep(self, obj: Any, session_id: str, history: list[dict[str, str]], state: Any) -> None:
        """After a turn: `state` has now seen the history and this turn (its message and the reply)."""
        self._kept[(id(obj), session_id)] = (state, len(history) + 2)
        self._kept.move_to_end((id(obj), session_id))
        while len(self._kept) > self._limit:  # cases end without telling: the oldest are long finished
            self._kept.popitem(last=False)


def require_framework(adapter: FrameworkAdapter) -> Any:
    """Import the adapter's framework or say exactly how to install it."""
    try:
        return importlib.import_module(adapter.module)
    except ImportError as exc:
        raise AgentError(
            f"agent.type {adapter.agent_type!r} needs the {adapter.package} package, which is not installed "
            f"({exc}). Install it with `pip install 'khaos-action[{adapter.extra}]'` (or add {adapter.package} to "
            f"the agent's requirements, e.g. through the action's `install` input).") from exc


def load_agent_object(adapter: FrameworkAdapter, entry: str, base_dir: Path) -> Any:
    """Import `entry` and check it is the adapter's kind of agent. An adapter may turn what the entry names into
    the agent it runs (`resolve(obj)`: a `@CrewBase` class into its Crew)."""
    from khaos_action.engine.code_ref import load_object

    require_framework(adapter)
    obj = load_object(entry, base_dir, what="agent.entry")
    resolve = getattr(adapter, "resolve", None)
    obj = resolve(obj) if resolve is not None else obj
    if not adapter.accepts(obj):
        raise AgentError(f"agent.entry {entry!r} is a {type(obj).__module__}.{type(obj).__qualname__}, but "
                         f"`type: {adapter.agent_type}` needs {adapter.expects}. Point `entry` at that object "
                         f"(e.g. `agent.py:agent`), or use `type: python` for a plain function.")
    return obj


def tool_info(name: str, description: str | None, schema: Mapping[str, Any] | None,
              function: Callable[..., Any] | None = None) -> ToolInfo:
    """A ToolInfo from a framework's tool definition: parameter names from its JSON schema, and the parameters'
    own descriptions appended to the tool's (a `url` parameter described as "the page to fetch" is evidence).
    A tool whose code uses an HTTP client says so too: "Search for general web results" over aiohttp is network
    access even though no word of its description proves it."""
    properties = (schema or {}).get("properties") or {}
    params = tuple(str(k) for k in properties) if isinstance(properties, Mapping) else ()
    notes = [str(p.get("description")) for p in properties.values()
             if isinstance(p, Mapping) and p.get("description")] if isinstance(properties, Mapping) else []
    client = http_client_in(function) if function is not None else None
    if client:
        notes.append(f"(its code makes HTTP requests: {client})")
    text = " ".join([description or "", *notes]).strip()
    return ToolInfo(name=name, description=text, parameters=params)


# Names in a tool's code that show it talks HTTP: client modules, their session classes, and response handling.
_HTTP_NAMES = ("aiohttp", "httpx", "requests", "urllib", "urllib3", "urlopen", "ClientSession", "AsyncClient",
               "raise_for_status")


def http_client_in(function: Callable[..., Any]) -> str | None:
    """The first HTTP-client name the function's code (nested functions included) refers to, or None."""
    try:
        code = inspect.unwrap(function).__code__
    except (AttributeError, ValueError):
        return None
    stack, names = [code], set()
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack += [c for c in current.co_consts if inspect.iscode(c)]
    return next((name for name in _HTTP_NAMES if name in names), None)


def plain_args(args: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict (frameworks give dicts, JSON strings or pydantic models)."""
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return {"raw": args}
    if hasattr(args, "model_dump"):
        args = args.model_dump(mode="json")
    return dict(args) if isinstance(args, Mapping) else {"value": args}


def output_text(value: Any) -> str:
    """A framework's final output as text: strings as they are, structured output as JSON."""
    if isinstance(value, str):
        return value
    if hasattr(value, "model_dump_json"):
        return value.model_dump_json()
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def type_name(value: Any) -> str | None:
    """A declared context type's name; None for "no context" (None, NoneType, object, Any)."""
    if value is None or value is type(None) or value is object or value is Any:
        return None
    if isinstance(value, str):
        return value
    return getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or str(value)


class FrameworkTransport(TransportBase):
    """The transport for a framework agent object: `send` runs one turn through the adapter in this process.

    `tool_callables` (after `start`) are the discovered tools, for the session's ToolPatcher."""

    runs_checks = True
    """It answers an attack's state checks itself (engine/state_check.py)."""

    def __init__(self, adapter: FrameworkAdapter, entry: str, *, base_dir: Path, reset: str | None = None,
                 context: str | None = None, stream: bool = False, tracing: bool = False,
                 settings: Mapping[str, Any] | None = None) -> None:
        self.adapter = adapter
        self.settings = dict(settings or {})
        self.entry = entry
        self.base_dir = Path(base_dir)
        self.reset_spec = reset
        self.has_reset = reset is not None
        self.context_spec = context
        self.stream = stream
        self.tracing = tracing
        self.tools: list[DiscoveredTool] = []
        self._obj: Any = None
        self._reset_fn: Callable[[], Any] | None = None
        self._contexts: Any = None
        self.spoiled = False
        """A turn failed on an adapter whose object a failure can leave broken (`spoiled_by_errors`): the python
        worker then serves no further case with it."""

    @property
    def tool_callables(self) -> list[tuple[str, Any]]:
        return [(tool.name, tool.target) for tool in self.tools if tool.target is not None]

    async def start(self) -> None:
        if self._obj is not None:
            return
        obj = load_agent_object(self.adapter, self.entry, self.base_dir)
        check_context(self.adapter, obj, self.entry, self.context_spec)
        check_settings(self.adapter, obj, self.settings)
        self.tools = self.adapter.discover(obj)
        if self.context_spec:
            from khaos_action.engine.transport.agent_context import ContextFactory

            self._contexts = ContextFactory(self.context_spec, self.base_dir)
        if self.reset_spec:
            from khaos_action.engine.code_ref import load_callable

            self._reset_fn = load_callable(self.reset_spec, self.base_dir, what="agent.reset")
        self._obj = obj

    async def send(self, message: AgentRequest) -> AgentResponse:
        if self._obj is None:
            await self.start()
        if message.checks is not None:  # the attack's state checks, after the case's last turn (state_check.py)
            answer = await run_checks(message.payload, base_dir=self.base_dir,
                                      context=self._contexts.for_case if self._contexts is not None else None)
            return response(answer)
        session_id = message.session_id
        context = await self._contexts.for_case(session_id) if self._contexts is not None else None
        options = RunOptions(context=context, stream=self.stream, tracing=self.tracing, settings=self.settings)
        try:
            reply = await self.adapter.run(self._obj, message.text, list(message.history), session_id, options)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.spoiled = self.spoiled or bool(getattr(self.adapter, "spoiled_by_errors", False))
            raise AgentCallError(f"{self.adapter.agent_type} agent raised {type(exc).__name__}: {exc}") from exc
        # The engine merges these with the calls its tool wrappers recorded, so each call is counted once.
        return response(normalise_reply(reply))

    @property
    def calls_sync(self) -> bool:
        """An agent object holding a conversation of its own: the python worker serves it one case at a time, on
        its main thread (`send_sync`), so no two cases share its state."""
        return self._obj is not None and bool(getattr(self.adapter, "one_case_at_a_time", False))

    def send_sync(self, message: AgentRequest, run: Callable[[Any], Any]) -> AgentResponse:
        """`send` on the worker's own event loop (`run(awaitable)` runs it to the end)."""
        return run(self.send(message))

    async def reset(self) -> None:
        if self._reset_fn is None:
            return
        try:
            # asyncio.to_thread copies the context, as the python transport's worker threads do
            value = self._reset_fn() if inspect.iscoroutinefunction(self._reset_fn) else await asyncio.to_thread(
                self._reset_fn)
            if inspect.isawaitable(value):
                await value
        except Exception as exc:
            raise AgentCallError(f"agent.reset {self.reset_spec} raised {type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        self._obj = None


def check_context(adapter: FrameworkAdapter, obj: Any, entry: str, context_spec: str | None) -> None:
    """A ConfigError naming the type when the agent declares a context and `agent.context` is not set: without
    it every case would fail inside the agent (`'NoneType' object has no attribute ...`)."""
    needed = adapter.context_type(obj)
    if needed and not context_spec:
        kind = needed.split(" (", 1)[0]
        raise ConfigError(f"agent.entry {entry!r} needs a context object: {needed}, but agent.context is not set. "
                          f"Add `context: file.py:factory` to the agent block, naming a function (or the class) "
                          f"that returns a {kind}; it is called once per case.")


def discover_tools(agent_type: str, entry: str, base_dir: Path) -> list[DiscoveredTool]:
    """The tools of the agent object `entry` names (imports it; for the capability profile)."""
    from khaos_action.engine.transport.frameworks import adapter_for

    adapter = adapter_for(agent_type)
    return adapter.discover(load_agent_object(adapter, entry, base_dir))


def check_settings(adapter: FrameworkAdapter, obj: Any, settings: Mapping[str, Any]) -> None:
    """A ConfigError when the type's own `agent:` keys cannot work with this object (a crew with several
    `{placeholders}` and no `agent.inputs`): said once, before any case, not as every case's failure."""
    check = getattr(adapter, "check_settings", None)
    if check is not None:
        check(obj, settings)


def agent_settings(adapter: FrameworkAdapter, agent: Any) -> dict[str, Any]:
    """The type's own `agent:` keys (`adapter.settings`) read from the agent block."""
    return {name: getattr(agent, name, None) for name in getattr(adapter, "settings", ())}


def check_agent_object(agent_type: str, entry: str, base_dir: Path, context_spec: str | None,
                       settings: Mapping[str, Any] | None = None) -> str | None:
    """For `validate`: import the agent object and check it gets the context it declares and that the type's own
    settings suit it; returns the context it declares (None: no context)."""
    from khaos_action.engine.transport.frameworks import adapter_for

    adapter = adapter_for(agent_type)
    obj = load_agent_object(adapter, entry, base_dir)
    check_context(adapter, obj, entry, context_spec)
    check_settings(adapter, obj, settings or {})
    return adapter.context_type(obj)


def build(agent: FrameworkAgent, options: BuildOptions) -> FrameworkTransport:
    """The builder of every framework entry (khaos_action/transports.py): the entry names the adapter."""
    from khaos_action.engine.transport.frameworks import adapter_for

    adapter = adapter_for(agent.type)
    settings = agent_settings(adapter, agent)
    return FrameworkTransport(adapter, agent.entry, base_dir=options.base_dir, reset=agent.reset,
                              context=agent.context, stream=agent.stream, tracing=agent.tracing, settings=settings)
