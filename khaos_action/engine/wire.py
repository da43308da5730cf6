"""What crosses the pipe between the engine and the python agent worker: length-prefixed JSON frames, the case
context in both directions, and the agent's answer (an `AgentResponse`) on the way back.

JSON, not pickle: the worker runs untrusted code, and unpickling what it sends would run its code in our process.
A frame is a 4-byte big-endian length and a UTF-8 JSON object; frames above `MAX_FRAME` are refused (a hostile
worker must not make us allocate without bound). Measured: encoding and decoding a typical invoke/reply pair costs
a few tens of microseconds (bench/transport_overhead.py, `python-worker`).
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from pydantic_core import from_json, to_json

from khaos_action.engine.context import CaseContext
from khaos_action.messages import AgentResponse, ToolCall

MAX_FRAME = 64 * 1024 * 1024
_HEADER = struct.Struct(">I")


class WireError(Exception):
    """The other side sent something that is not a frame (or closed the pipe mid-frame)."""


def encode(obj: dict[str, Any]) -> bytes:
    # surrogatepass: a reply may hold a lone surrogate ("\ud800"); it crosses as is and the engine's textsafe
    # step replaces it (noted on the case) like any other text it receives, instead of killing the worker here.
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=_fallback)
    except Exception:  # noqa: BLE001 - whatever the agent's objects raise while being encoded
        # What the agent returned is not JSON-able as is (a 5000-digit dict key, a cycle, 5000 levels): send the
        # JSON-safe copy the engine would keep anyway (engine/textsafe.py) rather than lose the worker.
        from khaos_action.engine.textsafe import json_safe

        safe = json_safe(obj, depth=64, items=1_000_000, chars=MAX_FRAME)
        text = json.dumps(safe, ensure_ascii=False, separators=(",", ":"), default=_fallback)
    body = text.encode("utf-8", "surrogatepass")
    if len(body) > MAX_FRAME:
        raise WireError(f"a frame of {len(body):,} bytes is over the {MAX_FRAME:,}-byte limit")
    return _HEADER.pack(len(body)) + body


def encode_plain(obj: dict[str, Any]) -> bytes:
    """`encode` for the frames the engine builds from plain data (its requests): pydantic-core's serializer, in
    Rust, several times faster than json.dumps on a request; what it refuses (a lone surrogate in an attacker's
    text) goes through `encode`."""
    try:
        body = to_json(obj, inf_nan_mode="constants")
    except Exception:  # noqa: BLE001 - PydanticSerializationError and anything the value raises: the slow path
        return encode(obj)
    if len(body) > MAX_FRAME:
        raise WireError(f"a frame of {len(body):,} bytes is over the {MAX_FRAME:,}-byte limit")
    return _HEADER.pack(len(body)) + body


def decode(body: bytes) -> dict[str, Any]:
    # pydantic-core's parser first (several times faster than json.loads on a reply); it refuses what json.loads still
    # reads (lone surrogates, nesting past 200 levels), which is read again as before.
    try:
        obj = from_json(body)
    except ValueError:
        try:
            obj = json.loads(body.decode("utf-8", "surrogatepass"))
        except ValueError as exc:
            raise WireError(f"not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise WireError("a frame must hold a JSON object")
    return obj


def frame_length(header: bytes) -> int:
    (length,) = _HEADER.unpack(header)
    if length > MAX_FRAME:
        raise WireError(f"a frame of {length:,} bytes is over the {MAX_FRAME:,}-byte limit")
    return length


class FrameReader(asyncio.Protocol):
    """The read end of a pipe as an asyncio protocol: every complete frame in what arrived is handed to
    `on_frame` in order (several replies that arrive together cost one wake-up, not one task step each), a bad frame
    or the end of the pipe to `on_end` (with the WireError, or None at end of file), once."""

    def __init__(self, on_frame: Callable[[dict[str, Any]], None],
                 on_end: Callable[[WireError | None], None]) -> None:
        self.on_frame, self.on_end = on_frame, on_end
        self._buffer = bytearray()
        self._ended = False

    def data_received(self, data: bytes) -> None:
        if self._ended:
            return
        buffer = self._buffer
        buffer += data
        start, size = 0, len(buffer)
        try:
            while size - start >= 4:
                length = frame_length(buffer[start:start + 4])
                if size - start - 4 < length:
                    break
                body = bytes(buffer[start + 4:start + 4 + length])
                start += 4 + length
                self.on_frame(decode(body))
        except WireError as exc:
            self._end(exc)
        finally:
            del buffer[:start]

    def eof_received(self) -> bool:
        self._end(WireError("the pipe closed in the middle of a frame") if self._buffer else None)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(None)

    def _end(self, error: WireError | None) -> None:
        if not self._ended:
            self._ended = True
            self.on_end(error)


class FrameWriter:
    """The write end of a pipe. `batch`: frames written during one turn of the event loop leave in one write at its
    end (the worker's replies that complete together wake the engine once); else each leaves at once (the engine's
    requests: a request held until the engine has handled every reply that arrived with it waits that long)."""

    def __init__(self, transport: asyncio.WriteTransport, *, batch: bool = False, plain: bool = False) -> None:
        self.transport = transport
        self.batch = batch
        self._encode = encode_plain if plain else encode
        """`plain`: the frames are our own plain data (`encode_plain`), not the agent's."""
        self._pending: list[bytes] = []

    def send(self, obj: dict[str, Any]) -> None:
        data = self._encode(obj)
        if not self.batch:
            if not self.transport.is_closing():
                self.transport.write(data)
            return
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        self._pending.append(data)

    def send_now(self, obj: dict[str, Any]) -> None:
        """`send`, leaving at once with whatever is pending: a frame the other side must have even if this process
        blocks or dies right after (the worker's reports of what a case observed)."""
        self._pending.append(self._encode(obj))
        self._flush()

    def _flush(self) -> None:
        data, self._pending = b"".join(self._pending), []
        if data and not self.transport.is_closing():
            self.transport.write(data)

    def close(self) -> None:
        self._pending = []
        self.transport.close()


def read_frame(fd: int) -> dict[str, Any] | None:
    """Blocking read of one frame from `fd` (the worker side); None at end of file."""
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    body = _read_exactly(fd, frame_length(header))
    if body is None:
        raise WireError("the pipe closed in the middle of a frame")
    return decode(body)


def write_frame(fd: int, obj: dict[str, Any]) -> None:
    data = memoryview(encode(obj))
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            if left == size:
                return None
            raise WireError("the pipe closed in the middle of a frame")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _fallback(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if hasattr(value, "model_dump"):
        try:
            return value.model_dump(mode="json")
        except Exception:  # noqa: BLE001 - a record must never break a reply
            pass
    try:
        return repr(value)[:2000]
    except Exception:  # noqa: BLE001 - an agent's object whose __repr__ raises is still recorded
        from khaos_action.engine.textsafe import safe_str

        return safe_str(value, 2000)


# ---- the agent's answer --------------------------------------------------------------------------------------------

_REPLY_FIELDS = ("text", "tool_calls", "notes", "notes_dropped", "error", "checks")


def reply_frame(reply: AgentResponse) -> dict[str, Any]:
    """The worker's transport's answer as the reply frame carries it: its fields by name, those it has."""
    frame = {name: value for name in _REPLY_FIELDS if (value := getattr(reply, name)) is not None}
    if reply.extra:
        frame["extra"] = reply.extra
    return frame


def reply_of(frame: Any) -> AgentResponse | None:
    """The answer a reply frame carries; None when it carries none (the worker's reply is untrusted data: each field
    is checked by the engine as any transport's answer is)."""
    if not isinstance(frame, dict):
        return None
    get = frame.get
    extra = get("extra")
    return AgentResponse(text=get("text"), tool_calls=get("tool_calls"), notes=get("notes"),
                         notes_dropped=get("notes_dropped"), error=get("error"), checks=get("checks"),
                         extra=extra if isinstance(extra, dict) else {})


# ---- the case context ---------------------------------------------------------------------------------------------

def case_setup(ctx: CaseContext) -> dict[str, Any]:
    """What the worker needs to rebuild `ctx`: its faults cross as plain entries and are bound again there from the
    same entries and seed (parsed back by the registry: the pipe is a process boundary)."""
    setup: dict[str, Any] = {"case_id": ctx.case_id, "seed": ctx.seed}
    if ctx.fault_specs:
        setup["faults"] = [f.as_dict() for f in ctx.fault_specs]
    if ctx.injections:
        setup["injections"] = ctx.injections
    if ctx.tool_responses:
        setup["tool_responses"] = [r.model_dump() for r in ctx.tool_responses]
    if ctx.contain:
        setup["contain"] = list(ctx.contain)
    return setup


def case_state(ctx: CaseContext) -> dict[str, Any]:
    """What the worker's tool wrappers and interceptors observed during the case, to merge into the engine's (only
    what is there: most cases of a run at scale observe nothing)."""
    state: dict[str, Any] = {}
    for key, present, take in _OBSERVED:
        value = getattr(ctx, key)
        if present(value):
            state[key] = take(value)
    return state


def _tool_call_state(calls: list[ToolCall]) -> list[dict[str, Any]]:
    return [{"name": c.name, "args": c.args, "result": c.result, "error": c.error, "fault": c.fault,
             "error_source": c.error_source} for c in calls]


def _same(value: Any) -> Any:
    return value


_OBSERVED: tuple[tuple[str, Callable[[Any], bool], Callable[[Any], Any]], ...] = (
    ("hits", bool, dict), ("calls", bool, dict), ("notes", bool, list),
    ("error", lambda error: error is not None, _same), ("llm_calls", bool, _same), ("tool_errors", bool, list),
    ("egress", bool, _same), ("tool_calls", bool, _tool_call_state))
"""What case_state reports of the context, in order: the field, whether it has anything, and what is sent of it."""


def merge_state(ctx: CaseContext, state: dict[str, Any]) -> list[dict[str, Any]]:
    """Add the worker's observations to the engine's context; returns the LLM call records (for the run's meter)."""
    if not state:
        return []
    for counter in ("hits", "calls"):
        _add_counts(getattr(ctx, counter), state.get(counter))
    for key, add in _MERGED_LISTS:
        add(getattr(ctx, key), state.get(key) or ())
    error = state.get("error")
    if error and ctx.error is None:
        ctx.error = str(error)[:2000]
    return _dicts(state.get("llm_calls") or ())


def _add_counts(into: Counter, counts: Any) -> None:
    if counts:
        into.update(Counter({str(k): int(v) for k, v in counts.items()}))


def _dicts(values: Iterable[Any]) -> list[dict[str, Any]]:
    return [value for value in values if isinstance(value, dict)]


def _add_texts(into: list[str], values: Iterable[Any]) -> None:
    into += [str(value) for value in values]


def _add_dicts(into: list[dict[str, Any]], values: Iterable[Any]) -> None:
    into += _dicts(values)


def _add_tool_calls(into: list[ToolCall], calls: Iterable[Any]) -> None:
    """The worker's tool calls, as the engine's ToolCalls (one without a name is no call)."""
    for call in calls:
        if isinstance(call, dict) and call.get("name"):
            into.append(ToolCall(name=str(call["name"]), args=dict(call.get("args") or {}),
                                 result=call.get("result"), error=call.get("error"),
                                 fault=call.get("fault"), error_source=call.get("error_source")))


_MERGED_LISTS: tuple[tuple[str, Callable[[Any, Iterable[Any]], None]], ...] = (
    ("notes", _add_texts), ("tool_calls", _add_tool_calls), ("tool_errors", _add_texts), ("egress", _add_dicts),
    ("llm_calls", _add_dicts))
"""The context's lists the worker's state adds to, in the order they are merged, and how each item is taken."""
