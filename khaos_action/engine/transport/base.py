"""The transport seam: one small protocol every way of reaching an agent implements, and the helpers they share.

Like httpx's `BaseTransport`, a transport is a handful of methods; the engine never knows which one it talks to.
A failure of one call raises `AgentCallError` (the engine records it on the case and the run goes on); an agent
that cannot be started at all raises `AgentError` (exit 3). Timeouts are the engine's (`asyncio.wait_for`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shlex
import signal
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from khaos_action.engine.textsafe import (
    MAX_NOTES,
    MAX_STRING_CHARS,
    MAX_TOOL_CALLS,
    repr_type,
    safe_str,
    take_notes,
    type_name,
)
from khaos_action.messages import NOTES_DROPPED, AgentRequest, AgentResponse
from khaos_action.tool_info import ToolInfo

if TYPE_CHECKING:
    from khaos_action.engine.context import CaseContext

BindInstance = Callable[[int, "str | None"], None]
"""Told `(instance_index, case_id)` when an out-of-process instance starts serving a case, `(index, None)` after."""
EnvForInstance = Callable[[int], Mapping[str, str]]
"""Extra environment for agent instance `index` (e.g. its own chaos-proxy listener URLs)."""

TEXT_KEYS = ("text", "output", "response", "content")


class AgentCallError(Exception):
    """One call failed (the agent raised, answered a bad status or bad JSON, or died); recorded on the case."""


Seen = tuple[list[ToolInfo], "dict[str, Any] | None"]
"""What an in-process transport found when it imported the agent: its tools and its `@khaosagent` metadata."""


@runtime_checkable
class Transport(Protocol):
    """The four calls, then the traits the engine and the session read (`TransportBase` holds their defaults)."""

    has_reset: bool
    """True when `reset()` does something (the engine then resets per isolation group)."""
    concurrency: int | None
    """The number of cases at once the transport was built for, when it keeps a limit of its own."""
    ahead: int
    """Cases the engine may hand over beyond that concurrency, which the transport holds until the agent has room;
    used only when the engine runs at the transport's own concurrency."""
    exclusive: bool
    """True when each agent instance serves one case at a time, so the chaos proxy can tell cases apart; False (a
    shared server) makes the session run cases one at a time when faults need attribution."""
    runs_checks: bool
    """True when the transport answers an attack's state checks in the agent's process (engine/state_check.py)."""
    seen: Seen | None
    """What the agent's process reported of its tools once started; None: read them from the code."""

    async def start(self) -> None:
        """Launch processes / import the entry; raise AgentError when that is impossible."""

    async def send(self, message: AgentRequest) -> AgentResponse:
        """One call: the engine's request in, the agent's answer out (`response(normalise_reply(value))`)."""

    async def reset(self) -> None:
        """Clear agent state (agent.reset / reset_endpoint / reset line); no-op when none is configured."""

    async def close(self) -> None:
        """Stop everything `start` started; safe to call twice."""

    def case_scope(self, ctx: CaseContext) -> AbstractAsyncContextManager[Any]:
        """Entered around all of a case's turns (and its state checks): a worker held for the whole case."""


class TransportBase:
    """Every trait's default, so that a transport declares only where it differs (the engine reads attributes).

    A transport that does not extend this class (an extension's, written against the protocol alone) is given these
    defaults when it is built (factory.py, `declared`)."""

    has_reset: bool = False
    concurrency: int | None = None
    ahead: int = 0
    exclusive: bool = True
    runs_checks: bool = False
    seen: Seen | None = None
    # What the python worker (engine/worker/child.py) reads of a transport running the agent in its process:
    calls_sync: bool = False
    """Call the agent with `send_sync(request, run)` on the worker's main thread, one case at a time (a sync agent,
    an agent object holding one conversation), not `send` in a task per request."""
    tool_callables: Sequence[tuple[str, Any]] = ()
    """The agent's tools the transport found, as (name, callable), for the worker's tool wrappers."""
    spoiled: bool = False
    """A failed turn may have left the agent object broken: the worker retires after it."""

    def case_scope(self, ctx: CaseContext) -> AbstractAsyncContextManager[Any]:
        return nullcontext()

    async def reset(self) -> None:
        return None


def normalise_reply(value: Any) -> dict[str, Any]:
    """Whatever an agent returned -> `{"text": str, "tool_calls": [...], "notes": [...], ...extra keys}`.

    Agents return str, dicts in many shapes, None, bytes or framework objects; the judge needs one shape. Anything
    that is not plainly text is converted and a note says how, so a surprising reply is visible in the report.
    """
    if isinstance(value, str):
        return {"text": value, "tool_calls": [], "notes": []}
    if value is None:
        return {"text": "", "tool_calls": [], "notes": ["agent returned None"]}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"text": bytes(value).decode("utf-8", "replace"), "tool_calls": [],
                "notes": [f"agent returned {type(value).__name__}; decoded as UTF-8"]}
    if isinstance(value, Mapping):
        return _mapping_reply(value)
    return _object_reply(value)


def _mapping_reply(value: Mapping[Any, Any]) -> dict[str, Any]:
    """A dict's reply: its first text key (TEXT_KEYS), its notes up to the cap, its tool calls and other keys."""
    reply = {str(k): v for k, v in value.items()}
    notes, more = take_notes(reply.pop("notes", None), MAX_NOTES)  # 100k notes must not cost 100k strings
    if more:
        reply[NOTES_DROPPED] = more  # counted into the case's "… N more notes dropped" by the runner
    tool_calls = normalise_tool_calls(reply.pop("tool_calls", None))
    text_key = next((k for k in TEXT_KEYS if k in reply), None)
    if text_key is None:
        notes.append("agent returned a dict without text/output/response/content; shown as JSON")
        text = _json_or_str(value)
    else:
        raw = reply.pop(text_key)
        text = raw if isinstance(raw, str) else normalise_reply(raw)["text"]
        if not isinstance(raw, str):
            notes.append(f"`{text_key}` was {type(raw).__name__}, not a string")
    return {**reply, "text": text, "tool_calls": tool_calls, "notes": notes}


def _object_reply(value: Any) -> dict[str, Any]:
    """Any other object's reply: its text attribute, or its str() unless that is a bare repr."""
    for attr in ("output", "text", "content"):  # framework results (pydantic-ai's `.output`, LangChain `.content`)
        inner = getattr(value, attr, None)
        if isinstance(inner, str):
            return {"text": inner, "tool_calls": [], "notes": [f"agent returned {type(value).__name__}; used .{attr}"]}
    text = safe_str(value, 1 << 62)
    if text[:1] == "<" and repr_type(text) is not None:  # nothing but `<Itinerary object at 0x7f…>`: no reply at all
        raise AgentCallError(f"agent returned a {type_name(value)} object, not text ({safe_str(text, 120)}): return "
                             "a string, a dict with `text`, or a stream of text chunks")
    return {"text": text, "tool_calls": [], "notes": [f"agent returned {type(value).__name__}; converted with str()"]}


def normalise_tool_calls(value: Any) -> list[dict[str, Any]]:
    """Tool calls an agent reports -> `[{"name", "args"}]` (dicts, OpenAI-style `function` dicts or objects), with the
    call's `result` when the agent reports one: the judge checks a reply under a fault against what the tools
    returned."""
    calls: list[dict[str, Any]] = []
    for item in _as_list(value)[: MAX_TOOL_CALLS + 1]:  # one past the cap, so the runner can say some were dropped
        try:
            name, args = _call_parts(item)
            if name:
                # Arguments stay as given here; the runner makes them JSON-safe (an `object()` becomes its str()).
                call = {"name": safe_str(name, 200),
                        "args": dict(args) if isinstance(args, Mapping) else {"value": args}}
                result = item.get("result") if isinstance(item, Mapping) else getattr(item, "result", None)
                calls.append({**call, "result": result} if result is not None else call)
        except Exception as exc:  # noqa: BLE001 - a hostile tool-call object is recorded, not fatal
            calls.append({"name": "<unreadable tool call>", "args": {"error": safe_str(exc, 200)}})
    return calls


def _call_parts(item: Any) -> tuple[Any, Any]:
    """A reported tool call's name and arguments (a JSON string of them parsed)."""
    if isinstance(item, Mapping):
        function = item.get("function") if isinstance(item.get("function"), Mapping) else item
        name = function.get("name")
        args = function.get("args", function.get("arguments", {}))
    else:
        name, args = getattr(item, "name", None), getattr(item, "args", {})
    if isinstance(args, str):  # OpenAI sends arguments as a JSON string
        try:
            args = json.loads(args) if len(args) <= MAX_STRING_CHARS * 10 else {"raw": args}
        except (ValueError, RecursionError):
            args = {"raw": args}
    return name, args


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _json_or_str(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def response(payload: Mapping[str, Any]) -> AgentResponse:
    """The `AgentResponse` a reply dict describes (`normalise_reply`'s, with what the transport added to it)."""
    return AgentResponse.of(payload)


def answered(reply: object) -> AgentResponse:
    """`reply`, which a transport's `send` returned, when it is an `AgentResponse`; else a TypeError that says what
    a transport returns (an extension's transport answering the old way, a dict, a string: the call fails with it)."""
    if isinstance(reply, AgentResponse):
        return reply
    raise TypeError(f"the transport's send returned {type(reply).__name__}, not an AgentResponse: a transport "
                    "returns `response(normalise_reply(value))` (khaos_action.plugins)")


def trace_id(case_id: str) -> str:
    """A W3C trace id derived from the case id, sent as `traceparent` so an OpenTelemetry-instrumented agent's
    traces name the case (the chaos proxy attributes by instance route, not by this header)."""
    return hashlib.sha256(case_id.encode()).hexdigest()[:32]


# ---- environment and processes (shared by the http and command transports) ----------------------

_TEMPLATE = re.compile(r"\{\{\s*[^}]*\}\}")


def process_env(agent_env: Mapping[str, str], base: Mapping[str, str] | None, extra: Mapping[str, str] | None,
                *, environ: Mapping[str, str], port: int | None = None,
                pass_env: Sequence[str] | str = "*") -> dict[str, str]:
    """The sandbox's clean environment of `environ` (the run's; `pass_env`, engine/sandbox.py) + agent.env (with
    `{{port}}` and `${VAR}` expanded from `environ` minus the runner's secrets) + the engine's env + the
    instance's env.

    A value still holding a `{{ ... }}` template after that (e.g. `{{ llm_proxy }}` with no chaos proxy running)
    would reach the agent as a literal base URL, so it is an error that says what to do.
    """
    from khaos_action.engine import sandbox
    from khaos_action.errors import AgentError

    env = sandbox.clean_env(environ=environ, pass_env=pass_env)
    env.update(base or {})
    lookup = {**sandbox.visible_environ(environ), **(base or {})}
    rendered: dict[str, str] = {}
    for key, value in agent_env.items():
        value = str(value)
        if port is not None:
            value = substitute_port(value, port)
        rendered[key] = sandbox.expand_vars(value, lookup, where=f"agent.env.{key}")
    env.update({k: v for k, v in rendered.items() if not sandbox.never_passed(k)})
    env.update(base or {})
    env.update(extra or {})
    for key in agent_env:
        if _TEMPLATE.search(env[key]):
            raise AgentError(f"agent.env.{key} = {env[key]!r} still holds a template: nothing rendered it. "
                             "`{{ llm_proxy }}` / `{{ proxy(...) }}` need the chaos proxy (faults for an http or "
                             "command agent); use a plain value otherwise.")
    env.setdefault("PYTHONUNBUFFERED", "1")  # a Python agent's prints and replies must not sit in a block buffer
    return env


_PORT = re.compile(r"\{\{\s*port\s*\}\}")


def has_port(text: str | None) -> bool:
    return bool(text and _PORT.search(text))


def substitute_port(text: str, port: int) -> str:
    return _PORT.sub(str(port), text)


class OutputTail:
    """The last `limit` bytes a process wrote to a stream, drained continuously so a chatty agent never blocks."""

    def __init__(self, limit: int = 8192) -> None:
        self.limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0

    def add(self, chunk: bytes) -> None:
        self._chunks.append(chunk)
        self._size += len(chunk)
        while self._size > self.limit and len(self._chunks) > 1:
            self._size -= len(self._chunks.popleft())

    def text(self, limit: int = 2048) -> str:
        return b"".join(self._chunks)[-limit:].decode("utf-8", "replace").strip()

    async def drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(65536):
            self.add(chunk)


async def settle(tasks: list[asyncio.Task[None]] | tuple[asyncio.Task[None], ...], timeout_s: float = 1.0) -> None:
    """Let output drains finish after an exit, but not forever: a grandchild may still hold the pipe open."""
    if tasks:
        await asyncio.wait(tasks, timeout=timeout_s)


def exit_status(returncode: int | None) -> str:
    """`exited with code N` / `was killed by SIGTERM` / `is still running`."""
    if returncode is None:
        return "is still running"
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def describe_exit(returncode: int | None, stderr: OutputTail, stdout: OutputTail | None = None) -> str:
    """`exit_status`, then the stderr tail (or stdout's, if stderr is empty)."""
    head = exit_status(returncode)
    tail = stderr.text() or (stdout.text() if stdout else "")
    return f"{head}: {tail}" if tail else f"{head} (no output on stderr)"


_SHELL_CHARS = frozenset("|&;<>()$`\\\"'*?[]#~=%{}\n")


async def spawn(command: str, *, environ: Mapping[str, str], limits: Any = None,
                **kwargs: Any) -> asyncio.subprocess.Process:
    """Start `command` through the sandbox (its own process group, so terminate() reaches everything it spawns;
    `limits`; the agent user when the run's `environ` names one); through a shell only when it uses shell syntax.

    Without a shell a missing program fails here with a clear OSError, and the agent is our direct child.
    """
    from khaos_action.engine import sandbox

    identity = sandbox.agent_identity(environ)
    kwargs.update(sandbox.spawn_kwargs(limits=limits, identity=identity))
    if "env" in kwargs:
        kwargs["env"] = sandbox.env_for(dict(kwargs["env"]), identity)
    if _SHELL_CHARS.isdisjoint(command):
        return await asyncio.create_subprocess_exec(*shlex.split(command), **kwargs)
    return await asyncio.create_subprocess_shell(command, **kwargs)


async def terminate(process: asyncio.subprocess.Process | None, *, grace_s: float = 3.0) -> None:
    """SIGTERM the process's whole group (a shell's children too); SIGKILL what is left after `grace_s`."""
    if process is None:
        return
    group = process.pid  # started with start_new_session=True: pid == pgid
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        if process.returncode is not None and not _group_alive(group):
            return
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            return
        except PermissionError:
            process.send_signal(sig)
        deadline = asyncio.get_running_loop().time() + wait
        while asyncio.get_running_loop().time() < deadline:
            if process.returncode is None:
                try:
                    await asyncio.wait_for(process.wait(), 0.05)
                except asyncio.TimeoutError:
                    continue
            if not _group_alive(group):
                return
            await asyncio.sleep(0.01)


def _group_alive(group: int) -> bool:
    """Whether any non-zombie process is left in the group (orphans of a shell are reaped by init, not by us)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(group) and fields[0] != "Z":
            return True
    return False
