"""requests interception (intercept.py patches it): `requests.adapters.HTTPAdapter.send` replaced by one that asks
the current case's fault plan, records LLM calls (telemetry, cassette, budget) and answers with requests' own
Response and exceptions. Imported when requests is patched; `note` (intercept.py's Traffic) records each request a
case makes, for the "never fired" report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from khaos_action.engine.chaos.egress import contain
from khaos_action.engine.chaos.plan import decide_http, fault_answer, finish_http
from khaos_action.engine.context import case_now
from khaos_action.engine.llm_calls import begin_call, requests_send
from khaos_action.faults.effects import HttpRequestView, Reply


def patched_send(original: Any, note: Callable[[str, HttpRequestView], None]) -> Any:
    def send(self: Any, request: Any, **kwargs: Any) -> Any:
        ctx = case_now()
        if ctx is None:
            return original(self, request, **kwargs)
        view = _view(request)
        note("requests", view)
        contained = contain(ctx, view, "requests")
        if contained is not None:
            return _requests_response(self, contained, request)
        decision = decide_http(ctx, view)
        if decision is None:
            return original(self, request, **kwargs)
        if decision.new_body is not None:
            request = request.copy()
            request.body = decision.new_body
            request.headers["Content-Length"] = str(len(decision.new_body))
        call = begin_call(ctx, decision, view, decision.new_body)
        canned = _fault_reply(ctx, decision, call, request)
        if canned is not None:
            return _requests_response(self, canned, request)
        response = requests_send(call, original, self, request, kwargs, _requests_response)
        return _finish(ctx, decision, response, self, request)

    send.__wrapped__ = original  # type: ignore[attr-defined]
    return send


def _view(request: Any) -> HttpRequestView:
    from urllib.parse import urlsplit

    parts = urlsplit(request.url)
    body = request.body if isinstance(request.body, bytes) else (
        request.body.encode() if isinstance(request.body, str) else b"")
    return HttpRequestView(method=request.method or "GET", url=request.url, host=parts.hostname or "",
                           path=parts.path or "/", headers={k.lower(): v for k, v in request.headers.items()},
                           body=body)


def _fault_reply(ctx: Any, decision: Any, call: Any, request: Any) -> Reply | None:
    """The fault's own reply, after its delay; its timeout or reset is raised as requests' own error. None: the
    request goes out (the LLM cassette may still answer it, in `requests_send`)."""
    effect = decision.effect
    if effect is not None and effect.delay_s:
        time.sleep(effect.delay_s)
    answer = fault_answer(ctx, decision, call)
    if isinstance(answer, str):
        raise _requests_error(answer, request)
    return answer


def _finish(ctx: Any, decision: Any, response: Any, adapter: Any, request: Any) -> Any:
    """The real response, or what a transforming fault makes of it."""
    effect = decision.effect
    if effect is None or effect.transform is None:
        finish_http(ctx, decision, None, status=response.status_code)
        return response
    reply = Reply(response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.content)
    replacement = finish_http(ctx, decision, reply)
    return _requests_response(adapter, replacement, request) if replacement is not None else response


def _requests_error(kind: str, request: Any) -> Exception:
    from requests import exceptions

    if kind == "timeout":
        return exceptions.ReadTimeout("Read timed out. (injected)", request=request)
    return exceptions.ConnectionError(ConnectionResetError(104, "Connection reset by peer"), request=request)


def _requests_response(adapter: Any, reply: Reply, request: Any) -> Any:
    from http import HTTPStatus

    from requests import Response
    from requests.structures import CaseInsensitiveDict
    from requests.utils import get_encoding_from_headers

    response = Response()
    response.status_code = reply.status
    response.headers = CaseInsensitiveDict({**reply.headers, "content-length": str(len(reply.body))})
    response._content = reply.body
    response._content_consumed = True
    response.encoding = get_encoding_from_headers(response.headers)
    try:
        response.reason = HTTPStatus(reply.status).phrase
    except ValueError:
        response.reason = ""
    response.url = request.url
    response.request = request
    response.connection = adapter
    return response
