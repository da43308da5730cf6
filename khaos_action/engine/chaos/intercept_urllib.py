"""urllib interception (intercept.py patches it): `urllib.request.AbstractHTTPHandler.do_open`, where the standard
library's `http` and `https` handlers open a connection, replaced by one that asks the current case's fault plan,
contains an attack's egress, records LLM calls (telemetry, cassette, budget) and answers with urllib's own response
object, so `urlopen`'s error handling (an `HTTPError` for a 4xx/5xx, redirects) runs on it as on a real one.
Imported when `urllib.request` is patched; `note` (intercept.py's Traffic) records each request a case makes, for the
"never fired" report.

An LLM reply read through urllib is read whole before the agent gets it (telemetry and the cassette need its body):
the bytes are the same, a streamed reply only arrives at once. The http.client connection urllib opens is not
intercepted a second time (`ABOVE`): `http.client` used directly has its own interception (intercept_httpclient.py).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

from khaos_action.engine.chaos.egress import contain
from khaos_action.engine.chaos.intercept_httpclient import ABOVE
from khaos_action.engine.chaos.plan import decide_http, fault_answer, finish_http, settle_read
from khaos_action.engine.context import case_now
from khaos_action.engine.llm_calls import begin_call, provider_errors
from khaos_action.faults.effects import HttpRequestView, Reply

CLIENT = "urllib"


def patched_do_open(original: Any, note: Callable[[str, HttpRequestView], None]) -> Any:
    def do_open(self: Any, http_class: Any, req: Any, **http_conn_args: Any) -> Any:
        ctx = case_now()
        if ctx is None:
            return original(self, http_class, req, **http_conn_args)
        view = _view(req)
        note(CLIENT, view)
        contained = contain(ctx, view, CLIENT)
        if contained is not None:
            return _response(contained, req)
        decision = decide_http(ctx, view)
        if decision is None:
            return _decided(original, self, http_class, req, **http_conn_args)
        if decision.new_body is not None:
            req.data = decision.new_body
            req.add_unredirected_header("Content-length", str(len(decision.new_body)))
        call = begin_call(ctx, decision, view, decision.new_body)
        effect = decision.effect
        if effect is not None and effect.delay_s:
            time.sleep(effect.delay_s)
        answer = fault_answer(ctx, decision, call)
        if isinstance(answer, str):
            raise _error(answer)
        if answer is not None:
            return _response(answer, req)
        replayed = call.replayed() if call is not None else None
        if replayed is not None:
            return _response(replayed, req)
        with provider_errors(call):
            response = _decided(original, self, http_class, req, **http_conn_args)
        transform = effect is not None and effect.transform is not None
        if call is None and not transform:
            finish_http(ctx, decision, None, status=response.status)
            return response
        return _response(settle_read(ctx, decision, call, _read(response)), req)

    do_open.__wrapped__ = original  # type: ignore[attr-defined]
    return do_open


def _decided(original: Any, *args: Any, **kwargs: Any) -> Any:
    """urllib's own `do_open` for a request decided here: the http.client connection it opens passes it as it is."""
    token = ABOVE.set(True)
    try:
        return original(*args, **kwargs)
    finally:
        ABOVE.reset(token)


def _view(req: Any) -> HttpRequestView:
    from urllib.parse import urlsplit

    url = req.get_full_url()
    parts = urlsplit(url)
    data = req.data
    body = data if isinstance(data, bytes) else (data.encode() if isinstance(data, str) else b"")
    return HttpRequestView(method=req.get_method(), url=url, host=parts.hostname or "", path=parts.path or "/",
                           headers={k.lower(): v for k, v in req.header_items()}, body=body)


def _read(response: Any) -> Reply:
    """A real response read whole (the http.client response is done with afterwards)."""
    try:
        body = response.read()
    finally:
        response.close()
    return Reply(response.status, {k.lower(): v for k, v in response.headers.items()}, body)


def _error(kind: str) -> Exception:
    """What urllib raises for the fault: a read that times out surfaces as the socket's own TimeoutError (urllib
    does not wrap errors raised while reading the response); a reset connection as the URLError `urlopen` gives."""
    from urllib.error import URLError

    if kind == "timeout":
        return TimeoutError("timed out (injected)")
    return URLError(ConnectionResetError(104, "Connection reset by peer"))


def _response(reply: Reply, req: Any) -> Any:
    """urllib's response object for `reply`, shaped as `do_open` returns a real one (`msg` is the reason phrase), so
    the handlers after it turn a 4xx/5xx into `HTTPError` as they do for a real answer."""
    from http import HTTPStatus
    from http.client import HTTPMessage
    from urllib.response import addinfourl

    headers = HTTPMessage()
    for name, value in reply.headers.items():
        if name.lower() not in ("content-length", "transfer-encoding"):
            headers[name] = value
    headers["Content-Length"] = str(len(reply.body))
    response = addinfourl(io.BytesIO(reply.body), headers, req.get_full_url(), reply.status)
    try:
        response.msg = HTTPStatus(reply.status).phrase
    except ValueError:
        response.msg = ""
    response.reason = response.msg
    return response
