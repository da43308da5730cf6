"""One intercepted LLM call, from the request to the last byte of its reply: cassette lookup, stream observation,
telemetry on the case's `llm_calls` record, and the run's budget meter.

The interceptors (engine.chaos.intercept for in-process httpx/httpx2/requests, engine.chaos.proxy for agents in
other processes) call `begin_call` once they know a request is an LLM call, then exactly one of: `finish` (a fault
answered or the call failed), `replayed` (the cassette answered) or `finish_live` / `observer` (the provider
answered). Replies are observed as the agent reads them, so streaming keeps its timing and the agent's experience
is unchanged: nothing is buffered ahead of the agent except what a fault's transform already buffers.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from khaos_action.engine.context import CaseContext
from khaos_action.llm.budget import Meter
from khaos_action.llm.cassette import (
    Cassette,
    CassetteRequest,
    Recorded,
    cassette_request,
    credentials,
    endpoint_of,
)
from khaos_action.llm.pricing import Price, cost_usd, price_for
from khaos_action.llm.usage import call_usage, parse_body

if TYPE_CHECKING:  # imported where a reply is built: importing faults/ registers every built-in fault (pydantic
    # models), which the python worker does not pay for at start unless its agent makes an HTTP call
    from khaos_action.faults.effects import HttpRequestView, Reply

MISS_STATUS = 502


class LlmRuntime:
    """The run's LLM services, reached from a case through `ctx.llm` (set by `activate`, the engine's hook)."""

    def __init__(self, *, cassette: Cassette | None = None, meter: Meter | None = None,
                 prices: Mapping[str, Price] | None = None) -> None:
        self.cassette = cassette
        self.meter = meter
        self.prices = dict(prices or {})
        self._lock = threading.Lock()
        self.calls: list[dict[str, Any]] = []
        """Every finished call of the run (retried attempts included), for the run's totals."""

    @contextmanager
    def activate(self, ctx: CaseContext) -> Iterator[CaseContext]:
        ctx.llm = self
        yield ctx

    def finished(self, record: dict[str, Any], live_tokens: int | None, cost: float | None) -> None:
        with self._lock:
            self.calls.append(record)
        if self.meter is not None and live_tokens is not None:
            self.meter.add(tokens=live_tokens, cost_usd=cost)


_DEFAULT = LlmRuntime()


def _model_of(documents: list[Any]) -> str | None:
    """The model a reply names (its first document that says)."""
    return next((d.get("model") for d in documents if isinstance(d, dict) and isinstance(d.get("model"), str)), None)


def begin_call(ctx: CaseContext | None, decision: Any, view: HttpRequestView,
               sent_body: bytes | None = None) -> LlmCall | None:
    """An LlmCall when `decision` recorded an LLM request for `ctx`, else None (nothing to observe)."""
    if ctx is None or decision is None or decision.record is None:
        return None
    return LlmCall(ctx, decision.record, view, view.body if sent_body is None else sent_body)


class LlmCall:
    def __init__(self, ctx: CaseContext, record: dict[str, Any], view: HttpRequestView, body: bytes) -> None:
        self.started = time.perf_counter()
        self.ctx = ctx
        self.runtime: LlmRuntime = ctx.llm if isinstance(ctx.llm, LlmRuntime) else _DEFAULT
        self.record = record
        self.view = view
        self.body = body
        self.done = False
        parts = urlsplit(view.url)
        self.query = parts.query
        # The record ends up in the manifest: never with a credential in its URL.
        record["url"] = urlunsplit((parts.scheme, parts.netloc, parts.path, endpoint_of("", parts.query)[1:], ""))
        self._request: CassetteRequest | None = None

    @property
    def request(self) -> CassetteRequest:
        if self._request is None:
            self._request = cassette_request(self.view.method, self.view.path, self.query, self.body)
        return self._request

    # ---- cassette ------------------------------------------------------------------------------------------------
    def replayed(self) -> Reply | None:
        """The cassette's reply (or, in replay mode, the miss reply that fails the case); None: ask the provider."""
        cassette = self.runtime.cassette
        if cassette is None:
            return None
        from khaos_action.faults.effects import Reply

        found = cassette.lookup(self.request)
        self.record["cassette"] = self.request.key
        if found is not None:
            reply = Reply(found.status, dict(found.headers), found.body)
            self.finish(reply, source="cassette")
            return reply
        if cassette.mode != "replay":
            return None
        message = (f"llm_cache replay miss: {self.request.describe()} is not in {cassette.directory}; the agent "
                   f"asked something new. Record it on the default branch (llm_cache.mode: record or auto, "
                   f"or KHAOS_LLM_CACHE=record) and commit the cassette")
        if self.ctx.error is None:
            self.ctx.error = message
        reply = Reply.json_reply(MISS_STATUS, {"error": {"message": message, "type": "khaos_cassette_miss",
                                                         "code": "cassette_miss", "param": None}},
                                 {"x-should-retry": "false"})
        self.finish(reply, source="cassette_miss")
        return reply

    # ---- ending a call ---------------------------------------------------------------------------------------------
    def finish(self, reply: Reply | None, *, source: str, live: bool = False, partial: bool = False,
               error: str | None = None) -> None:
        """Fill the record: latency, tokens (metered or estimated), cost, who answered. Once per call."""
        if self.done:
            return
        self.done = True
        record = self.record
        if error is not None:
            record["error"] = error[:300]  # why the provider could not be reached (llm.health reports it)
        record["latency_ms"] = round((time.perf_counter() - self.started) * 1000, 3)
        record["source"] = source
        documents = parse_body(reply.body, reply.headers.get("content-type", "")) if reply is not None else []
        tokens_in, tokens_out, estimated = self._tokens(reply, source, documents)
        model = record.get("model") or _model_of(documents)
        cost = cost_usd(price_for(model, self.runtime.prices), tokens_in, tokens_out)
        record.update(input_tokens=tokens_in, output_tokens=tokens_out, tokens_estimated=estimated,
                      cost_usd=None if cost is None else round(cost, 8))
        if partial:
            record["partial"] = True
        self.runtime.finished(record, tokens_in + tokens_out if live else None, cost)
        self.ctx.changed()  # the record is whole: a case that then times out keeps it (engine/worker/child.py)

    def _tokens(self, reply: Reply | None, source: str, documents: list[Any]) -> tuple[int, int, bool]:
        """(input, output, estimated) tokens of a model's answer; none for a fault or an error reply (providers
        bill no model output)."""
        if reply is not None and source in ("live", "cassette") and reply.status < 400:
            usage = call_usage(self.view.json, documents)
            return usage.input_tokens, usage.output_tokens, usage.estimated
        return 0, 0, False

    def finish_live(self, status: int, headers: Mapping[str, str], body: bytes | None, *,
                    complete: bool = True) -> None:
        """The provider answered with this (decoded) body; None: unreadable (unknown content-encoding, a body the
        agent streams itself). Only complete answers are recorded into the cassette."""
        from khaos_action.faults.effects import Reply

        lower = {k.lower(): v for k, v in headers.items()}
        complete = complete and body is not None
        cassette = self.runtime.cassette
        if complete and cassette is not None and cassette.wants(status) and not self.done:
            secrets = credentials(self.view.headers, self.query)
            cassette.store(self.request, Recorded(status, lower, body or b""), secrets)
        self.finish(Reply(status, lower, body or b""), source="live", live=True, partial=not complete)

    def observer(self, status: int, headers: Mapping[str, str]) -> StreamObserver:
        return StreamObserver(self, status, headers)


class StreamObserver:
    """Collects the raw (possibly compressed) bytes of a reply as the agent reads them."""

    def __init__(self, call: LlmCall, status: int, headers: Mapping[str, str]) -> None:
        self.call = call
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.chunks: list[bytes] = []
        self.closed = False

    def feed(self, chunk: bytes) -> None:
        self.chunks.append(chunk)

    def close(self, exhausted: bool) -> None:
        """`exhausted`: the agent read to the end. SDKs often stop at a stream's terminal event and close without
        reading the (empty) end, so a body whose own framing says it is whole counts as complete too."""
        if self.closed:
            return
        self.closed = True
        body = decode(b"".join(self.chunks), self.headers.get("content-encoding", ""))
        headers = {k: v for k, v in self.headers.items() if k not in ("content-encoding", "content-length")}
        complete = body is not None and (exhausted or looks_complete(body, headers.get("content-type", "")))
        self.call.finish_live(self.status, headers, body, complete=complete)


_TERMINAL_EVENTS = (b"data: [DONE]", b'"message_stop"', b'"response.completed"', b'"response.incomplete"',
                    b'"response.failed"')


def looks_complete(body: bytes, content_type: str) -> bool:
    """Whether a reply read only partly is nonetheless whole: parseable JSON, or an event stream that reached
    its provider's terminal event."""
    if "event-stream" in content_type:
        return any(marker in body for marker in _TERMINAL_EVENTS)
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def decode(raw: bytes, encoding: str) -> bytes | None:
    """The body without its content-encoding (httpx's own decoders); None for an encoding we cannot read."""
    codings = [c.strip().lower() for c in encoding.split(",") if c.strip() and c.strip().lower() != "identity"]
    if not codings:
        return raw
    from httpx._decoders import (
        SUPPORTED_DECODERS,  # the decoders httpx itself uses; no second copy of them
    )

    body = raw
    for coding in reversed(codings):
        if coding not in SUPPORTED_DECODERS:
            return None
        decoder = SUPPORTED_DECODERS[coding]()
        try:
            body = decoder.decode(body) + decoder.flush()
        except Exception:  # noqa: BLE001 - a cut compressed stream: no usage to read, nothing to record
            return None
    return body


# ---- httpx / httpx2 streams ------------------------------------------------------------------------------------------

_tees: dict[Any, tuple[type, type]] = {}


def _tee_classes(mod: Any) -> tuple[type, type]:
    if mod not in _tees:
        class SyncTee(mod.SyncByteStream):  # type: ignore[misc, name-defined]
            def __init__(self, inner: Any, observer: StreamObserver) -> None:
                self.inner, self.observer = inner, observer

            def __iter__(self) -> Iterator[bytes]:
                try:
                    for chunk in self.inner:
                        self.observer.feed(chunk)
                        yield chunk
                except BaseException:
                    self.observer.close(False)
                    raise
                self.observer.close(True)

            def close(self) -> None:
                try:
                    self.inner.close()
                finally:
                    self.observer.close(False)

        class AsyncTee(mod.AsyncByteStream):  # type: ignore[misc, name-defined]
            def __init__(self, inner: Any, observer: StreamObserver) -> None:
                self.inner, self.observer = inner, observer

            async def __aiter__(self) -> Any:
                try:
                    async for chunk in self.inner:
                        self.observer.feed(chunk)
                        yield chunk
                except BaseException:
                    self.observer.close(False)
                    raise
                self.observer.close(True)

            async def aclose(self) -> None:
                try:
                    await self.inner.aclose()
                finally:
                    self.observer.close(False)

        _tees[mod] = (SyncTee, AsyncTee)
    return _tees[mod]


def _replayed_response(mod: Any, reply: Reply, request: Any) -> Any:
    return mod.Response(reply.status, headers=reply.headers, content=reply.body, request=request)


@contextmanager
def provider_errors(call: LlmCall | None) -> Iterator[None]:
    """Around sending `call`'s request: an exception means the provider could not be reached, a call with no answer
    (llm.health reports its error); it is re-raised for the agent."""
    try:
        yield
    except BaseException as exc:
        if call is not None:
            call.finish(None, source="error", error=f"{type(exc).__name__}: {exc}")
        raise


def httpx_send(call: LlmCall | None, mod: Any, original: Any, transport: Any, request: Any) -> Any:
    """`original(transport, request)`, or the cassette's answer; the live reply's stream is observed."""
    if call is None:
        return original(transport, request)
    reply = call.replayed()
    if reply is not None:
        return _replayed_response(mod, reply, request)
    with provider_errors(call):
        response = original(transport, request)
    response.stream = _tee_classes(mod)[0](response.stream, call.observer(response.status_code, response.headers))
    return response


async def httpx_send_async(call: LlmCall | None, mod: Any, original: Any, transport: Any, request: Any) -> Any:
    if call is None:
        return await original(transport, request)
    reply = call.replayed()
    if reply is not None:
        return _replayed_response(mod, reply, request)
    with provider_errors(call):
        response = await original(transport, request)
    response.stream = _tee_classes(mod)[1](response.stream, call.observer(response.status_code, response.headers))
    return response


def requests_send(call: LlmCall | None, original: Any, adapter: Any, request: Any, kwargs: dict[str, Any],
                  make_response: Any) -> Any:
    """requests' `HTTPAdapter.send`, or the cassette's answer built by `make_response(adapter, reply, request)`."""
    if call is None:
        return original(adapter, request, **kwargs)
    reply = call.replayed()
    if reply is not None:
        return make_response(adapter, reply, request)
    with provider_errors(call):
        response = original(adapter, request, **kwargs)
    if kwargs.get("stream"):  # the agent reads it (iter_content, iter_lines, raw.read): observed as it does
        response.raw = RawTee(response.raw, call, response.status_code, dict(response.headers.items()))
        return response
    # Not streamed: requests' Session reads the whole body right after `send` anyway (it caches `content`), so
    # reading it here first changes nothing the agent sees.
    call.finish_live(response.status_code, dict(response.headers.items()), response.content)
    return response


class RawTee:
    """urllib3's response behind a `stream=True` requests reply: `stream()` and `read()` hand the agent exactly
    what they return, and show each chunk to the call's observer (decoded chunks: the observer is told there is
    no content-encoding left); everything else is the real object's."""

    def __init__(self, raw: Any, call: LlmCall, status: int, headers: Mapping[str, str]) -> None:
        self._raw, self._call, self._status, self._headers = raw, call, status, headers
        self._observer: StreamObserver | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)

    def _see(self, chunk: bytes, decode_content: bool | None) -> None:
        if self._observer is None:
            decoded = bool(decode_content if decode_content is not None else getattr(self._raw, "decode_content",
                                                                                      False))
            headers = {k: v for k, v in self._headers.items() if not (decoded and k.lower() == "content-encoding")}
            self._observer = self._call.observer(self._status, headers)
        if chunk:
            self._observer.feed(chunk)

    def _end(self, exhausted: bool) -> None:
        if self._observer is None:
            self._see(b"", None)
        assert self._observer is not None
        self._observer.close(exhausted)

    def stream(self, amt: int | None = 2**16, decode_content: bool | None = None) -> Iterator[bytes]:
        try:
            for chunk in self._raw.stream(amt, decode_content=decode_content):
                self._see(chunk, decode_content)
                yield chunk
        except BaseException:
            self._end(False)
            raise
        self._end(True)

    def read(self, amt: int | None = None, decode_content: bool | None = None, **kwargs: Any) -> bytes:
        try:
            data = self._raw.read(amt, decode_content=decode_content, **kwargs)
        except BaseException:
            self._end(False)
            raise
        self._see(data, decode_content)
        if amt is None or not data:
            self._end(True)
        return data

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            self._end(False)

    def release_conn(self) -> None:
        try:
            self._raw.release_conn()
        finally:
            self._end(False)
