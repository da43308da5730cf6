"""In-process HTTP interception: for a run, outbound calls made through httpx (and httpx2, which the current
OpenAI SDK uses), sync and async, through requests, and through aiohttp client sessions (intercept_aiohttp.py) are
answered by the current case's fault plan. A library already imported is patched when the block is entered, one
imported later (by the agent, during a case) the moment its module has run: the interception never imports an HTTP
library an agent does not use (issue 19: importing all four cost every python-agent run ~0.5 s of CPU).

We patch the transport seam each library exposes (`HTTPTransport.handle_request`,
`AsyncHTTPTransport.handle_async_request`, `requests.adapters.HTTPAdapter.send`), so an SDK's own client, retry
and error code run on a real response object (status, `retry-after`, provider error body, cut JSON). Outside a
case (`current_case` is None) or when no fault applies, the original method runs untouched; the added cost is a
ContextVar lookup plus, inside a case, a path check (see bench/interception.py).
Custom transports (httpx.MockTransport, ASGITransport) are not intercepted: they do not reach the network.
"""

from __future__ import annotations

import asyncio
import importlib.abc
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from khaos_action.engine.chaos.plan import HttpDecision, decide_http, finish_http
from khaos_action.engine.context import current_case
from khaos_action.engine.llm_calls import (
    begin_call,
    httpx_send,
    httpx_send_async,
    requests_send,
)
from khaos_action.faults.effects import HttpRequestView, Reply, rebuilt_headers

HTTPX_LIKE = ("httpx", "httpx2")
"""Modules with httpx's transport API; each one imported is patched."""
LIBRARIES = (*HTTPX_LIKE, "requests.adapters", "aiohttp")

_lock = threading.Lock()
_depth = 0
_restore: list[tuple[Any, str, Any]] = []

_SEEN_KEYS = 200
"""Distinct (client, method, host, path) kept for the report: enough to tell a wrong host from a missing client."""


@dataclass
class Traffic:
    """What the interception saw in a run: which HTTP clients it patched and which requests cases made through
    them, so an http_faults entry that never fired can be explained (wrong host/path vs. an unpatched client)."""

    clients: list[str] = field(default_factory=list)
    seen: Counter = field(default_factory=Counter)
    """(client, method, host, path) -> requests made inside a case."""

    def note(self, client: str, view: HttpRequestView) -> None:
        key = (client, view.method, view.host, view.path)
        if key in self.seen or len(self.seen) < _SEEN_KEYS:
            self.seen[key] += 1


TRAFFIC = Traffic()


@contextmanager
def http_interception() -> Iterator[Traffic]:
    """Patch httpx / httpx2 / requests / aiohttp for the duration of the block. Re-entrant; yields the run's
    Traffic (shared by nested blocks)."""
    global _depth
    with _lock:
        _depth += 1
        if _depth == 1:
            TRAFFIC.clients.clear()
            TRAFFIC.seen.clear()
            _install()
    try:
        yield TRAFFIC
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _uninstall()


def _install() -> None:
    for name in LIBRARIES:
        if name in sys.modules:
            _patch_library(name, sys.modules[name])
    if any(name not in sys.modules for name in LIBRARIES):
        sys.meta_path.insert(0, _ON_IMPORT)


def _patch_library(name: str, mod: Any) -> None:
    if name in HTTPX_LIKE:
        _patch(mod.HTTPTransport, "handle_request", _sync_httpx(mod, mod.HTTPTransport.handle_request))
        _patch(mod.AsyncHTTPTransport, "handle_async_request",
               _async_httpx(mod, mod.AsyncHTTPTransport.handle_async_request))
        TRAFFIC.clients.append(name)
    elif name == "requests.adapters":
        _patch(mod.HTTPAdapter, "send", _requests_send(mod.HTTPAdapter.send))
        TRAFFIC.clients.append("requests")
    else:
        from khaos_action.engine.chaos.intercept_aiohttp import CLIENT, patched_request

        session = mod.ClientSession
        _patch(session, "_request", patched_request(session._request, TRAFFIC.note))
        TRAFFIC.clients.append(CLIENT)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """First on sys.meta_path inside the block: finds one of LIBRARIES through the other finders and wraps its loader
    so that the module is patched as soon as it has run, before the importer gets it."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in LIBRARIES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, fullname)
                return spec
        return None


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.name = name

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.inner.exec_module(module)
        if _ON_IMPORT in sys.meta_path:  # still inside the block
            _patch_library(self.name, module)

    def __getattr__(self, attr: str) -> Any:  # get_resource_reader, is_package, ...: the real loader's
        return getattr(self.inner, attr)


_ON_IMPORT = _PatchOnImport()


def _patch(owner: Any, attr: str, replacement: Any) -> None:
    _restore.append((owner, attr, owner.__dict__[attr]))
    setattr(owner, attr, replacement)


def _uninstall() -> None:
    while _ON_IMPORT in sys.meta_path:
        sys.meta_path.remove(_ON_IMPORT)
    while _restore:
        owner, attr, original = _restore.pop()
        setattr(owner, attr, original)


# ---- httpx / httpx2 ----------------------------------------------------------------------------------------------

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


def _decide(request: Any, client: str = "httpx") -> HttpDecision | None:
    ctx = current_case.get()
    if ctx is None:
        return None
    view = _httpx_view(request)
    TRAFFIC.note(client, view)
    return decide_http(ctx, view)


def _fault_answer(ctx: Any, decision: HttpDecision, call: Any, mod: Any, request: Any) -> Any:
    """The fault's own answer (raised error or canned reply) without reaching the network; None to send."""
    effect = decision.effect
    if effect is None:
        return None
    if effect.error:
        finish_http(ctx, decision, None, status=None)
        call and call.finish(None, source="fault")
        raise _httpx_error(mod, effect.error, request)
    if effect.reply is not None:
        finish_http(ctx, decision, effect.reply)
        call and call.finish(effect.reply, source="fault")
        return _httpx_response(mod, effect.reply, request)
    return None


def _transformed(ctx: Any, decision: HttpDecision, mod: Any, request: Any, response: Any) -> Any:
    """A fully read upstream response, rewritten by the fault (truncation, drift...), as a fresh response."""
    reply = Reply(response.status_code, dict(response.headers.items()), response.content)
    replacement = finish_http(ctx, decision, reply)
    if replacement is not None:
        return _httpx_response(mod, replacement, request)
    return _httpx_response(mod, Reply(reply.status, rebuilt_headers(reply.headers), reply.body), request)


def _sync_httpx(mod: Any, original: Any) -> Any:
    def handle_request(self: Any, request: Any) -> Any:
        decision = _decide(request, mod.__name__)
        if decision is None:
            return original(self, request)
        ctx = current_case.get()
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


def _async_httpx(mod: Any, original: Any) -> Any:
    async def handle_async_request(self: Any, request: Any) -> Any:
        decision = _decide(request, mod.__name__)
        if decision is None:
            return await original(self, request)
        ctx = current_case.get()
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


# ---- requests ----------------------------------------------------------------------------------------------------

def _requests_send(original: Any) -> Any:
    def send(self: Any, request: Any, **kwargs: Any) -> Any:
        ctx = current_case.get()
        if ctx is None:
            return original(self, request, **kwargs)
        from urllib.parse import urlsplit

        parts = urlsplit(request.url)
        body = request.body if isinstance(request.body, bytes) else (
            request.body.encode() if isinstance(request.body, str) else b"")
        view = HttpRequestView(method=request.method or "GET", url=request.url, host=parts.hostname or "",
                               path=parts.path or "/", headers={k.lower(): v for k, v in request.headers.items()},
                               body=body)
        TRAFFIC.note("requests", view)
        decision = decide_http(ctx, view)
        if decision is None:
            return original(self, request, **kwargs)
        if decision.new_body is not None:
            request = request.copy()
            request.body = decision.new_body
            request.headers["Content-Length"] = str(len(decision.new_body))
        call = begin_call(ctx, decision, view, decision.new_body)
        effect = decision.effect
        if effect is not None:
            if effect.delay_s:
                time.sleep(effect.delay_s)
            if effect.error:
                finish_http(ctx, decision, None)
                call and call.finish(None, source="fault")
                raise _requests_error(effect.error, request)
            if effect.reply is not None:
                finish_http(ctx, decision, effect.reply)
                call and call.finish(effect.reply, source="fault")
                return _requests_response(self, effect.reply, request)
        response = requests_send(call, original, self, request, kwargs, _requests_response)
        if effect is not None and effect.transform is not None:
            reply = Reply(response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.content)
            replacement = finish_http(ctx, decision, reply)
            if replacement is not None:
                return _requests_response(self, replacement, request)
            return response
        finish_http(ctx, decision, None, status=response.status_code)
        return response

    send.__wrapped__ = original  # type: ignore[attr-defined]
    return send


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
