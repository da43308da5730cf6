"""aiohttp interception (client sessions, as LangChain integrations such as Tavily search use): the same fault
decisions and hit counting as httpx/requests (intercept.py), at `ClientSession._request`, the coroutine every
`session.get/post/request(...)` and `async with session.get(...)` goes through.

A fault's own answer (http_error, rate_limit, a cassette reply) is a real `ClientResponse` built from the reply, so
`raise_for_status()`, `.json()` and `async with` behave as with a server; timeouts and resets raise aiohttp's own
exceptions. Transforms (malformed_payload, truncation) read the whole real body and replace what `.read()`,
`.text()`, `.json()` and `response.content` give. Recording an LLM call never reads the body the agent's client
reads: its bytes are observed as the connection feeds them to `response.content` (`tap`), so a client that reads
`content` itself after us (LiteLLM's aiohttp transport) or streams it gets every byte, at the same pace.
Imported only when aiohttp is importable: khaos-action does not depend on it.
"""

from __future__ import annotations

import asyncio
import errno
import inspect
import json
from typing import Any

from khaos_action.engine.chaos.egress import contain
from khaos_action.engine.chaos.plan import HttpDecision, decide_http, fault_answer, finish_http
from khaos_action.engine.context import case_now
from khaos_action.engine.llm_calls import begin_call
from khaos_action.faults.effects import HttpRequestView, Reply, rebuilt_headers

CLIENT = "aiohttp"


def patched_request(original: Any, note: Any) -> Any:
    """A replacement for `ClientSession._request` (calls outside a case pass through untouched); `note` records each
    request seen inside a case (for the "never fired" report)."""

    async def _request(self: Any, method: str, str_or_url: Any, **kwargs: Any) -> Any:
        ctx = case_now()
        if ctx is None:
            return await original(self, method, str_or_url, **kwargs)
        view = _view(self, method, str_or_url, kwargs)
        note(CLIENT, view)
        contained = contain(ctx, view, CLIENT)
        if contained is not None:
            return response_from(self, method, view.url, contained, kwargs)
        decision = decide_http(ctx, view)
        if decision is None:
            return await original(self, method, str_or_url, **kwargs)
        if decision.new_body is not None:  # context attacks rewrote an LLM request body
            kwargs = {**{k: v for k, v in kwargs.items() if k not in ("json", "data")}, "data": decision.new_body}
        call = begin_call(ctx, decision, view, decision.new_body)
        canned = await _canned(ctx, decision, call)
        if canned is not None:
            return response_from(self, method, view.url, canned, kwargs)
        try:
            response = await original(self, method, str_or_url, **kwargs)
        except BaseException:
            call and call.finish(None, source="error")
            raise
        return await _finish(ctx, decision, call, response)

    _request.__wrapped__ = original  # type: ignore[attr-defined]
    return _request


async def _canned(ctx: Any, decision: HttpDecision, call: Any) -> Reply | None:
    """The answer that stands in for the server's, after the fault's delay: the fault's own reply, or the LLM
    cassette's; a fault's timeout or reset is raised as aiohttp's own error. None: the request goes out."""
    effect = decision.effect
    if effect is not None and effect.delay_s:
        await asyncio.sleep(effect.delay_s)
    answer = fault_answer(ctx, decision, call)
    if isinstance(answer, str):
        raise _error(answer)
    if answer is not None:
        return answer
    return call.replayed() if call is not None else None


async def _finish(ctx: Any, decision: HttpDecision, call: Any, response: Any) -> Any:
    effect = decision.effect
    if effect is not None and effect.transform is not None:
        body = await response.read()  # a transform needs the whole reply: the fault buffers it, then hands it back
        replacement = finish_http(ctx, decision, Reply(response.status, _headers(response), body))
        refill(response, replacement.body if replacement is not None else body)
        call and call.finish_live(response.status, _headers(response), body)
        return response
    finish_http(ctx, decision, None, status=response.status)
    if call is not None:
        tap(response, call)
    return response


def refill(response: Any, body: bytes) -> None:
    """Make every way of reading `response` give `body`: read()/text()/json() (its cached body) and a client that
    reads `response.content` itself (LiteLLM's aiohttp transport, `iter_chunked`, `async for line in content`)."""
    response._body = body
    response.content = _fed_stream(body)


def tap(response: Any, call: Any) -> None:
    """Observe the body as the connection delivers it, without reading it: the agent's client reads
    `response.content` (or `read()`) exactly as it would without us, and the call is recorded when the body ends
    (usage, cassette) or when the response is released first (a partial call)."""
    content = response.content
    decoded = getattr(content, "total_compressed_bytes", None) is not None  # aiohttp decompresses as it feeds
    headers = {k: v for k, v in _headers(response).items() if not (decoded and k == "content-encoding")}
    observer = call.observer(response.status, headers)
    if not _unread(content, observer):
        return
    for chunk in content._buffer:  # what arrived with the head, still unread
        observer.feed(bytes(chunk))
    if content.is_eof():
        observer.close(True)
        return
    content.__class__ = _teeing(observer)
    content.on_eof(lambda: observer.close(True))


def _unread(content: Any, observer: Any) -> bool:
    """Whether `content` is a reader nothing has read yet (else the observer is closed with what can be said)."""
    from aiohttp import StreamReader

    if type(content) is not StreamReader:  # no body (EmptyStreamReader), or a reader we do not know
        observer.close(content is None or content.at_eof())
        return False
    if content._cursor or content._buffer_offset:  # something read it already: what we saw would be partial
        observer.close(False)
        return False
    return True


def _teeing(observer: Any) -> type:
    """A StreamReader subclass (same layout, so an open reader can take it as its class) whose `feed_data` shows
    each chunk to `observer` before the reader buffers it; an error or an early release closes the observer."""
    from aiohttp import StreamReader

    class TeeingStreamReader(StreamReader):
        __slots__ = ()

        def feed_data(self, data: bytes, *args: Any, **kwargs: Any) -> Any:
            if data:
                observer.feed(bytes(data))
            return super().feed_data(data, *args, **kwargs)

        def set_exception(self, *args: Any, **kwargs: Any) -> None:
            observer.close(self.is_eof())
            super().set_exception(*args, **kwargs)

    return TeeingStreamReader


def _fed_stream(body: bytes) -> Any:
    from aiohttp import StreamReader

    content = StreamReader(_NoProtocol(), 2**16, loop=asyncio.get_running_loop())
    content.feed_data(body)
    content.feed_eof()
    return content


def _view(session: Any, method: str, str_or_url: Any, kwargs: dict[str, Any]) -> HttpRequestView:
    url = _url(session, str_or_url)
    headers = {str(k).lower(): str(v) for k, v in dict(getattr(session, "headers", None) or {}).items()}
    headers.update({str(k).lower(): str(v) for k, v in dict(kwargs.get("headers") or {}).items()})
    return HttpRequestView(method=method.upper(), url=str(url), host=url.host or "", path=url.path or "/",
                           headers=headers, body=_body(kwargs, headers))


def _url(session: Any, str_or_url: Any) -> Any:
    from yarl import URL

    url = URL(str_or_url) if not isinstance(str_or_url, URL) else str_or_url
    build = getattr(session, "_build_url", None)
    if build is not None:
        try:
            url = build(str_or_url)  # a relative URL against the session's base_url
        except Exception:  # noqa: BLE001 - an unusual URL: match on what was given
            pass
    return url


def _body(kwargs: dict[str, Any], headers: dict[str, str]) -> bytes:
    """The request body as sent (a JSON body also sets its content type in `headers`)."""
    data = kwargs.get("data")
    if kwargs.get("json") is not None:
        headers.setdefault("content-type", "application/json")
        return json.dumps(kwargs["json"]).encode()
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if isinstance(data, str):
        return data.encode()
    return b""  # form fields or a stream: faults decide on method, URL and headers


def _headers(response: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items()}


def _error(kind: str) -> Exception:
    import aiohttp

    if kind == "timeout":
        return aiohttp.ServerTimeoutError("Timeout on reading data from socket (injected)")
    return aiohttp.ClientOSError(errno.ECONNRESET, "Connection reset by peer")


def response_from(session: Any, method: str, url: str, reply: Reply, kwargs: dict[str, Any]) -> Any:
    """A real `aiohttp.ClientResponse` holding `reply`, as if a server had sent it."""
    from http import HTTPStatus

    from aiohttp import ClientResponse, RequestInfo
    from aiohttp.helpers import TimerNoop
    from multidict import CIMultiDict, CIMultiDictProxy
    from yarl import URL

    loop = asyncio.get_running_loop()
    target = URL(url)
    sent = {str(k): str(v) for k, v in dict(kwargs.get("headers") or {}).items()}
    request_headers = CIMultiDictProxy(CIMultiDict(sent))
    offered = {"writer": None, "continue100": None, "timer": TimerNoop(), "traces": [], "loop": loop,
               "session": session, "stream_writer": _NoWriter(),
               "request_info": RequestInfo(target, method.upper(), request_headers, target)}
    accepted = inspect.signature(ClientResponse.__init__).parameters
    response = ClientResponse(method.upper(), target, **{k: v for k, v in offered.items() if k in accepted})
    headers = rebuilt_headers(reply.headers)
    headers["content-length"] = str(len(reply.body))
    response._headers = CIMultiDictProxy(CIMultiDict(headers))
    response._raw_headers = tuple((k.encode(), v.encode()) for k, v in headers.items())
    response.status = reply.status
    try:
        response.reason = HTTPStatus(reply.status).phrase
    except ValueError:
        response.reason = ""
    refill(response, reply.body)
    return response


class _NoWriter:
    """The request writer a ClientResponse asks how much was sent; a canned reply sent nothing."""

    output_size = 0
    buffer_size = 0


class _NoProtocol:
    """The flow-control protocol a StreamReader pauses and resumes; a canned body has no socket behind it."""

    _reading_paused = False

    def pause_reading(self, *args: Any, **kwargs: Any) -> None:
        pass

    def resume_reading(self, *args: Any, **kwargs: Any) -> None:
        pass
