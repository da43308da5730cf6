"""The `python` transport: import the agent's callable and call it in-process, sync or async.

Entries are `path/to/file.py:func` (relative to the config folder) or `package.module:func`, imported by
engine/code_ref.py (as every code reference is). The call style is read from the signature, so `str -> str` needs
no boilerplate: one positional parameter annotated `str` (or unannotated) gets the input text; a parameter annotated
as a dict/Mapping, or named `message`/`request`/`payload`/`msg`, gets the payload dict
`{"text", "history", "session_id"}`. Optional keyword parameters named `history` / `session_id` are filled too.

Sync agents run in a dedicated pool of `concurrency` daemon threads (threads.py; asyncio's default executor has
only cpu+4 workers), each call inside a copy of the caller's contextvars context, because tool wrappers and HTTP
interceptors find their case through the `current_case` ContextVar. The engine's `asyncio.wait_for` timeout cancels
the wait, not the thread: a hung sync agent keeps its worker until it returns (Python cannot kill a thread), so a
run with many hanging calls has fewer workers left; the workers are daemons, so a hung call does not keep the
process alive after the run. Async agents are cancelled properly.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.engine.code_ref import load_callable
from khaos_action.engine.state_check import is_check, run_checks
from khaos_action.engine.transport import streams
from khaos_action.engine.transport.base import AgentCallError, TransportBase, normalise_reply, response
from khaos_action.engine.transport.threads import DaemonThreadPool
from khaos_action.errors import AgentError
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.transports import BuildOptions

if TYPE_CHECKING:  # for the annotation only: the zygote preloads this module (worker/start.py PRELOAD)
    from khaos_action.config.agents import PythonAgent

_PAYLOAD_NAMES = {"message", "request", "payload", "msg"}
HISTORY_NAMES = ("history", "messages", "chat_history")
"""A parameter (after the input) by one of these names gets the conversation so far ({role, content} dicts)."""


class PythonTransport(TransportBase):
    runs_checks = True
    """It answers an attack's state checks itself (engine/state_check.py)."""

    def __init__(self, entry: str, *, base_dir: Path, reset: str | None = None, concurrency: int = 8,
                 context: str | None = None) -> None:
        self.entry = entry
        self.context_spec = context
        self._context: Any = None
        self.base_dir = Path(base_dir)
        self.reset_spec = reset
        self.concurrency = concurrency
        self.has_reset = reset is not None
        self._fn: Callable[..., Any] | None = None
        self._call: Callable[[dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]] | None = None
        self._is_async = False
        self._reset_fn: Callable[[], Any] | None = None
        self._pool: DaemonThreadPool | None = None

    async def start(self) -> None:
        if self._fn is not None:
            return
        fn = load_callable(self.entry, self.base_dir, what="agent.entry")
        self._call = call_style(fn, self.entry)
        if self.context_spec:
            from khaos_action.engine.transport.agent_context import ContextFactory

            if not _accepts_keyword(fn, "context"):
                raise AgentError(f"agent.context is set, but agent.entry {self.entry!r} has no `context` parameter "
                                 "to receive it; add `context=None` to its signature or remove agent.context.")
            self._context = ContextFactory(self.context_spec, self.base_dir)
        self._is_async = is_async_callable(fn)
        self._fn = fn
        if self.reset_spec:
            self._reset_fn = load_callable(self.reset_spec, self.base_dir, what="agent.reset")
        self._pool = DaemonThreadPool(max_workers=self.concurrency, thread_name_prefix="khaos-agent")

    async def send(self, message: AgentRequest) -> AgentResponse:
        if self._fn is None or self._call is None:
            await self.start()
        assert self._fn is not None and self._call is not None
        payload = message.payload  # the dict an agent taking the whole payload is handed
        if is_check(payload):  # the attack's state checks, after the case's last turn (engine/state_check.py)
            return response(await self._checks(payload))
        args, kwargs = self._call(payload)
        if self._context is not None:
            kwargs["context"] = await self._context.for_case(str(payload.get("session_id") or ""))
        try:
            if self._is_async:
                value = await self._fn(*args, **kwargs)
            else:  # a sync stream is read on the agent's thread too: its chunks run the agent's code
                value = await self._in_thread(functools.partial(_read_sync, self._fn, args, kwargs))
            if inspect.isawaitable(value):  # a sync wrapper around a coroutine function
                value = await value
            if streams.is_stream(value):
                return response(await streams.read_async(value) if streams.is_async_stream(value)
                                else await self._in_thread(functools.partial(streams.read_sync, value)))
        except asyncio.CancelledError:
            raise
        except AgentCallError:
            raise
        except Exception as exc:
            raise AgentCallError(f"agent raised {type(exc).__name__}: {exc}") from exc
        return response(normalise_reply(value))

    @property
    def calls_sync(self) -> bool:
        """A started sync agent: the worker process calls it with `send_sync` on its main thread, outside any event
        loop (no thread hop per call; the agent may run its own loop, e.g. pydantic-ai's `run_sync`)."""
        return self._fn is not None and not self._is_async

    def send_sync(self, message: AgentRequest, run: Callable[[Any], Any]) -> AgentResponse:
        """`send` for a sync agent on the calling thread; `run(awaitable)` finishes a coroutine it returns."""
        assert self._fn is not None and self._call is not None
        payload = message.payload
        if is_check(payload):
            return response(run(self._checks(payload)))
        args, kwargs = self._call(payload)
        if self._context is not None:  # the case's `agent.context` object, as `send` gives it
            kwargs["context"] = run(self._context.for_case(str(payload.get("session_id") or "")))
        try:
            value = self._fn(*args, **kwargs)
            if inspect.isawaitable(value):  # a sync wrapper around a coroutine function
                value = run(value)
            if streams.is_stream(value):
                return response(run(streams.read_async(value)) if streams.is_async_stream(value)
                                else streams.read_sync(value))
        except AgentCallError:
            raise
        except Exception as exc:
            raise AgentCallError(f"agent raised {type(exc).__name__}: {exc}") from exc
        return response(normalise_reply(value))

    async def _checks(self, payload: dict[str, Any]) -> dict[str, Any]:
        context = self._context.for_case if self._context is not None else None
        return await run_checks(payload, base_dir=self.base_dir, context=context)

    async def reset(self) -> None:
        if self._reset_fn is None:
            if self.reset_spec and self._fn is None:
                await self.start()
            if self._reset_fn is None:
                return
        try:
            if is_async_callable(self._reset_fn):
                await self._reset_fn()
            else:
                value = await self._in_thread(self._reset_fn)
                if inspect.isawaitable(value):
                    await value
        except Exception as exc:
            raise AgentCallError(f"agent.reset {self.reset_spec} raised {type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            # wait=False: a hung agent thread must not hang the end of the run (it dies with the interpreter).
            pool.shutdown(wait=False, cancel_futures=True)

    def _in_thread(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        ctx = contextvars.copy_context()
        return asyncio.get_running_loop().run_in_executor(self._pool, ctx.run, fn)


def _read_sync(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`fn(*args, **kwargs)`, a sync stream it returns read to its end (on the calling thread)."""
    value = fn(*args, **kwargs)
    if streams.is_stream(value) and not streams.is_async_stream(value):
        return streams.read_sync(value)
    return value


# ---- call style ---------------------------------------------------------------------------------

def is_async_callable(fn: Any) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    # an instance whose `async def __call__` makes it an async agent
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004


CallArgs = tuple[tuple[Any, ...], dict[str, Any]]


def call_style(fn: Callable[..., Any], entry: str) -> Callable[[dict[str, Any]], CallArgs]:
    """How to call `fn` with a payload: returns payload -> (args, kwargs), decided once from the signature."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins and some C callables: assume str -> str
        return lambda payload: ((payload.get("text", ""),), {})
    params = list(signature.parameters.values())
    positional = _positional_parameters(params, entry)
    first = positional[0] if positional else None
    wants_payload = _wants_payload(fn, first)
    history = history_parameter(signature, first)
    extras = _extra_keywords(signature, first, history)
    if any(p.default is p.empty and p.name not in extras for p in positional[1:]):
        names = ", ".join(p.name for p in params)
        raise AgentError(f"agent.entry {entry!r} requires more than one argument ({names}); "
                         "give it one input parameter (str or the message dict) and defaults for the rest.")

    def build(payload: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        arg = dict(payload) if wants_payload else payload.get("text", "")
        kwargs = {name: payload.get("history" if name == history else name) for name in extras}
        if history in kwargs and kwargs[history] is None:
            kwargs[history] = []
        return (arg,), kwargs

    return build


def _positional_parameters(params: list[inspect.Parameter], entry: str) -> list[inspect.Parameter]:
    """The entry's positional parameters; an entry that can take no positional argument cannot be given the input."""
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not positional and not any(p.kind is p.VAR_POSITIONAL for p in params):
        raise AgentError(f"agent.entry {entry!r} takes no positional argument; it must accept the input, e.g. "
                         "`def handle(text: str) -> str`.")
    return positional


def _wants_payload(fn: Callable[..., Any], first: inspect.Parameter | None) -> bool:
    """Whether the entry's input parameter takes the whole message dict rather than its text."""
    if first is None:
        return False
    annotation = _annotation(fn, first)
    # An explicit `str` annotation wins over the parameter's name: `def handle(message: str)` wants the text.
    if annotation is str or annotation == "str":
        return False
    return first.name in _PAYLOAD_NAMES or _is_mapping(annotation)


def _extra_keywords(signature: inspect.Signature, first: inspect.Parameter | None, history: str | None) -> list[str]:
    """The keyword arguments the entry is given beside its input: its history parameter and `session_id`."""
    def given(name: str | None) -> bool:
        return bool(name) and name in signature.parameters and (first is None or name != first.name) \
            and signature.parameters[name].kind is not inspect.Parameter.POSITIONAL_ONLY

    return [name for name in (history, "session_id") if given(name)]


def _accepts_keyword(fn: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    param = params.get(name)
    if param is not None:
        return param.kind is not inspect.Parameter.POSITIONAL_ONLY
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def history_parameter(signature: inspect.Signature, first: inspect.Parameter | None) -> str | None:
    """The entry's parameter that receives the conversation history (HISTORY_NAMES, after the input), if any."""
    for name in HISTORY_NAMES:
        param = signature.parameters.get(name)
        if param is not None and param is not first and param.kind is not inspect.Parameter.POSITIONAL_ONLY:
            return name
    return None


def entry_signature(fn: Any) -> tuple[str, str | None] | None:
    """How an entry reads (`handle(text, history=None)`) and its history parameter, for the capability profile;
    None when it has no signature to read."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
    first = next((p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)), None)
    shown = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}"[:60] for p in params)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return f"{name}({shown})", history_parameter(signature, first)


def _annotation(fn: Callable[..., Any], param: inspect.Parameter) -> Any:
    annotation = param.annotation
    if isinstance(annotation, str):  # `from __future__ import annotations`
        try:
            hints = typing.get_type_hints(fn)
            annotation = hints.get(param.name, annotation)
        except Exception:  # noqa: BLE001 - unresolved names: judge by the text
            return annotation
    return annotation


def _is_mapping(annotation: Any) -> bool:
    if annotation is inspect.Parameter.empty or annotation is str:
        return False
    if isinstance(annotation, str):
        head = annotation.replace(" ", "").split("[", 1)[0].rsplit(".", 1)[-1]
        return head in {"dict", "Dict", "Mapping", "MutableMapping"}
    origin = typing.get_origin(annotation) or annotation
    if isinstance(origin, type):
        return issubclass(origin, Mapping) or typing.is_typeddict(origin)
    return False


def build(agent: PythonAgent, options: BuildOptions) -> PythonTransport:
    """The `python` entry's builder (khaos_action/transports.py); its keys are `config.agents.PythonAgent`'s."""
    return PythonTransport(agent.entry, base_dir=options.base_dir, reset=agent.reset, concurrency=options.concurrency,
                           context=agent.context)
