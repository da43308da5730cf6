"""httpx / httpx2 interception (intercept.py patches them): `HTTPTransport.handle_request` and
`AsyncHTTPTransport.handle_async_request` replaced by handlers that ask the current case's fault plan, record LLM
calls (telemetry, cassette, budget) and answer with the library's own Response and exceptions.
Imported when one of the two libraries is patched; `note` (intercept.py's Traffic) records each request a case
makes, for the "never fired" report.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from khaos_action.engine.chaos.egress import contain
from khaos_action.engine.chaos.plan import HttpDecision, decide_http, fault_answer, finish_http
from khaos_action.engine.context import case_now
from khaos_action.engine.llm_calls import begin_call, httpx_send, httpx_send_async
from khaos_action.faults.effects import HttpRequestView, Reply, rebuilt_headers


def _httpx_view(request: Any) -> HttpRequestView:
    try:
        body = request.content
    except Exception:  # noqa: BLE001 - a streaming upload not read yet: faults decide on method/url/headers alone
        body = b""
    url = request.url
    return HttpRequestView(method=request.method, url=str(url), host=url.host, path=url.path,
                           headers={k.lower(): v for k, v in request.headers.items()}, body=body)


def _httpx_rebuilt(mod: Any, request: Any, body: bytes) -> Any:
    headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "content-length"]
    return mod.Request(request.method, request.url, headers=headers, content=body, extensions=request.extensions)


def _httpx_error(mod: Any, kind: str, request: Any) -> Exception:
    if kind == "timeout":
        return mod.ReadTimeout("timed out (injected)", request=request)
    return mod.ReadError("[Errno 104] Connection reset by peer", request=request)


def _httpx_response(mod: Any, reply: Reply, request: Any) -> Any:
    return mod.Response(reply.status, headers=reply.headers, content=reply.body, request=request)


Note = Callable[[str, HttpRequestView], None]
"""Records a request seen inside a case: (client, request)."""


def _decide(request: Any, note: Note, client: str = "httpx") -> HttpDecision | Reply | None:
    """The fault plan's decision, or the local answer to a request an attack case contains (egress.py)."""
    ctx = case_now()
    if ctx is None:
        return None
    view = _httpx_view(request)
    note(client, view)
    return contain(ctx, view, client) or decide_http(ctx, view)


def _fault_answer(ctx: Any, decision: HttpDecision, call: Any, mod: Any, request: Any) -> Any:
    """The fault's own answer (raised error or canned reply) without reaching the network; None to send."""
    answer = fault_answer(ctx, decision, call)
    if isinstance(answer, str):
        raise _httpx_error(mod, answer, request)
    return _httpx_response(mod, answer, request) if answer is not None else None


def _transformed(ctx: Any, decision: HttpDecision, mod: Any, request: Any, response: Any) -> Any:
    """A fully read upstream response, rewritten by the fault (truncation, drift...), as a fresh response."""
    reply = Reply(response.status_code, dict(response.headers.items()), response.content)
    replacement = finish_http(ctx, decision, reply)
    if replacement is not None:
        return _httpx_response(mod, replacement, request)
    return _httpx_response(mod, Reply(reply.status, rebuilt_headers(reply.headers), reply.body), request)


def sync_handler(mod: Any, original: Any, note: Note) -> Any:
    def handle_request(self: Any, request: Any) -> Any:
        decision = _decide(request, note, mod.__name__)
        if decision is None:
            return original(self, request)
        if isinstance(decision, Reply):
            return _httpx_response(mod, decision, request)
        ctx = case_now()
        if decision.new_body is not None:
            request = _httpx_rebuilt(mod, request, decision.new_body)
        call = begin_call(ctx, decision, _httpx_view(request))  # LLM telemetry, cassette, budget (khaos_action.llm)
        effect = decision.effect
        if effect is not None and effect.delay_s:
            time.sleep(effect.delay_s)
        answered = _fault_answer(ctx, decision, call, mod, request)
        if answered is not None:
            return answered
        response = httpx_send(call, mod, original, self, request)
        if effect is not None and effect.transform is not None:
            response.read()
            response.close()
            return _transformed(ctx, decision, mod, request, response)
        finish_http(ctx, decision, None, status=response.status_code)
        return response

    handle_request.__wrapped__ = original  # type: ignore[attr-defined]
    return handle_request


def async_handler(mod: Any, original: Any, note: Note) -> Any:
    async def handle_async_request(self: Any, request: Any) -> Any:
        decision = _decide(request, note, mod.__name__)
        if decision is None:
            return await original(self, request)
        if isinstance(decision, Reply):
            return _httpx_response(mod, decision, request)
        ctx = case_now()
        if decision.new_body is not None:
            request = _httpx_rebuilt(mod, request, decision.new_body)
        call = begin_call(ctx, decision, _httpx_view(request))
        effect = decision.effect
        if effect is not None and effect.delay_s:
            await asyncio.sleep(effect.delay_s)
        answered = _fault_answer(ctx, decision, call, mod, request)
        if answered is not None:
            return answered
        response = await httpx_send_async(call, mod, original, self, request)
        if effect is not None and effect.transform is not None:
            await response.aread()
            await response.aclose()
            return _transformed(ctx, decision, mod, request, response)
        finish_http(ctx, decision, None, status=response.status_code)
        return response

    handle_async_request.__wrapped__ = original  # type: ignore[attr-defined]
    return handle_async_request
