"""http.client interception (intercept.py patches it): `HTTPConnection.request` and `getresponse`, for an agent or
tool that talks HTTP with the standard library's connection objects directly, without urllib. The request is
decided when it is made, as the other interceptions decide theirs (fault plan, egress containment, LLM telemetry and
cassette); a fault's own answer is never sent to the server and comes back from `getresponse` as a real
`HTTPResponse` parsed from bytes, its timeout or reset as the socket's own `TimeoutError` or `ConnectionResetError`.

Only `http.client.HTTPConnection` and `HTTPSConnection` themselves are intercepted: libraries that subclass them
(urllib3, so requests; httplib2) are either intercepted at their own seam or not at all, and urllib, which uses them
as they are, is intercepted at `do_open` and marks its requests `ABOVE` so they are decided once. The low-level API
(`putrequest`, `putheader`, `endheaders`, `send`) is not intercepted (docs/sandbox.md).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from khaos_action.engine.chaos.egress import contain
from khaos_action.engine.chaos.plan import decide_http, fault_answer, finish_http, settle_read
from khaos_action.engine.context import case_now
from khaos_action.engine.llm_calls import begin_call, provider_errors
from khaos_action.faults.effects import HttpRequestView, Reply

CLIENT = "http.client"
ABOVE: ContextVar[bool] = ContextVar("khaos_http_decided_above", default=False)
"""Set while an interception above http.client (urllib) sends a request it has already decided."""
_PENDING = "_khaos_pending"
"""The connection's attribute holding what `request` decided, for its `getresponse`."""


def patched_request(original: Any, note: Callable[[str, HttpRequestView], None]) -> Any:
    from http.client import HTTPConnection, HTTPSConnection

    ours = (HTTPConnection, HTTPSConnection)

    def request(self: Any, method: str, url: str, body: Any = None, headers: Any = None, **kwargs: Any) -> None:
        ctx = case_now()
        headers = {} if headers is None else headers
        if ctx is None or type(self) not in ours or ABOVE.get():
            return original(self, method, url, body, headers, **kwargs)
        view = _view(self, method, url, body, headers)
        note(CLIENT, view)
        contained = contain(ctx, view, CLIENT)
        if contained is not None:
            setattr(self, _PENDING, (method, contained))
            return None
        decision = decide_http(ctx, view)
        if decision is None:
            return original(self, method, url, body, headers, **kwargs)
        if decision.new_body is not None:
            body = decision.new_body
            headers = {k: v for k, v in dict(headers).items() if k.lower() != "content-length"}
        call = begin_call(ctx, decision, view, decision.new_body)
        effect = decision.effect
        if effect is not None and effect.delay_s:
            time.sleep(effect.delay_s)
        answer = fault_answer(ctx, decision, call)
        replayed = call.replayed() if call is not None and answer is None else None
        if answer is not None or replayed is not None:
            setattr(self, _PENDING, (method, answer if answer is not None else replayed))
            return None
        with provider_errors(call):  # connecting and sending happen here, not in getresponse
            original(self, method, url, body, headers, **kwargs)
        setattr(self, _PENDING, (method, (ctx, decision, call)))
        return None

    request.__wrapped__ = original  # type: ignore[attr-defined]
    return request


def patched_getresponse(original: Any) -> Any:
    def getresponse(self: Any) -> Any:
        pending = self.__dict__.pop(_PENDING, None)
        if pending is None:
            return original(self)
        method, answer = pending
        if isinstance(answer, str):
            raise _error(answer)
        if isinstance(answer, Reply):
            return _response(answer, method)
        ctx, decision, call = answer
        with provider_errors(call):
            response = original(self)
        transform = decision.effect is not None and decision.effect.transform is not None
        if call is None and not transform:
            finish_http(ctx, decision, None, status=response.status)
            return response
        reply = Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        return _response(settle_read(ctx, decision, call, reply), method)

    getresponse.__wrapped__ = original  # type: ignore[attr-defined]
    return getresponse


def _view(conn: Any, method: str, url: str, body: Any, headers: Any) -> HttpRequestView:
    from http.client import HTTPSConnection
    from urllib.parse import urlsplit

    if "://" not in url:
        scheme = "https" if isinstance(conn, HTTPSConnection) else "http"
        url = f"{scheme}://{conn.host}:{conn.port}{url if url.startswith('/') else '/' + url}"
    parts = urlsplit(url)
    data = body if isinstance(body, bytes) else (body.encode() if isinstance(body, str) else b"")
    return HttpRequestView(method=method, url=url, host=parts.hostname or "", path=parts.path or "/",
                           headers={str(k).lower(): str(v) for k, v in dict(headers).items()}, body=data)


def _error(kind: str) -> Exception:
    """What http.client raises for the fault: the socket's own timeout, or the peer's reset."""
    if kind == "timeout":
        return TimeoutError("timed out (injected)")
    return ConnectionResetError(104, "Connection reset by peer")


class _Wire:
    """A socket's `makefile` over bytes already in hand: an `HTTPResponse` parses them as it would a server's."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def makefile(self, mode: str, *args: Any, **kwargs: Any) -> io.BytesIO:
        return io.BytesIO(self._data)


def _response(reply: Reply, method: str) -> Any:
    """A real `HTTPResponse` for `reply`, begun: status, reason, headers and a body of the length it says."""
    from http import HTTPStatus
    from http.client import HTTPResponse

    try:
        reason = HTTPStatus(reply.status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {reply.status} {reason}"]
    lines += [f"{name}: {value}" for name, value in reply.headers.items()
              if name.lower() not in ("content-length", "transfer-encoding", "connection")]
    lines += [f"Content-Length: {len(reply.body)}", "Connection: close"]
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    response = HTTPResponse(_Wire(head + reply.body), method=method)  # type: ignore[arg-type]
    response.begin()
    return response
