"""In-process HTTP interception: for a run, outbound calls made through httpx (and httpx2, which the current
OpenAI SDK uses), sync and async, through requests, through aiohttp client sessions and through the standard
library's urllib and http.client are answered by the current case's fault plan. A library already imported is
patched when the block is entered, one imported later (by the agent, during a case) the moment its module has run:
the interception never imports an HTTP library an agent does not use (importing them all is a cost every
python-agent run would pay: docs/performance.md).

We patch the transport seam each library exposes (`HTTPTransport.handle_request`,
`AsyncHTTPTransport.handle_async_request`, `requests.adapters.HTTPAdapter.send`, aiohttp's `ClientSession._request`,
urllib's `AbstractHTTPHandler.do_open`, http.client's `HTTPConnection.request` and `getresponse`), so an SDK's own
client, retry and error code run on a real response object (status, `retry-after`, provider error body, cut JSON).
Outside a case (`current_case` is None) or when no fault applies, the original method runs untouched; the added
cost is a ContextVar lookup plus, inside a case, a path check (see bench/interception.py).
Custom transports (httpx.MockTransport, ASGITransport) are not intercepted: they do not reach the network. Under
them all, `socket.getaddrinfo` and asyncio's `loop.getaddrinfo` refuse an attack case's named hosts to any other
client (intercept_socket.py).

This module is the hook and the Traffic record, standard library only; the replacements live beside it
(intercept_httpx.py, intercept_requests.py, intercept_aiohttp.py, intercept_urllib.py, intercept_httpclient.py),
each handed `Traffic.note` to record what it sees (they import nothing of this module), and are imported when their
library is patched, with the fault machinery they decide through: a python worker whose agent makes no HTTP call
never imports it (the faults' models are a large part of a worker's start).
"""

from __future__ import annotations

import importlib.abc
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from khaos_action.faults.effects import HttpRequestView

HTTPX_LIKE = ("httpx", "httpx2")
"""Modules with httpx's transport API; each one imported is patched."""
LIBRARIES = (*HTTPX_LIKE, "requests.adapters", "aiohttp", "urllib.request", "http.client")

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
    """Patch httpx / httpx2 / requests / aiohttp / urllib / http.client for the duration of the block. Re-entrant;
    yields the run's Traffic (shared by nested blocks)."""
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
    import asyncio.base_events
    import socket

    from khaos_action.engine.chaos.intercept_socket import patched_getaddrinfo, patched_loop_getaddrinfo

    # the egress backstop for clients no replacement knows
    _patch(socket, "getaddrinfo", patched_getaddrinfo(socket.getaddrinfo))
    loop = asyncio.base_events.BaseEventLoop
    _patch(loop, "getaddrinfo", patched_loop_getaddrinfo(loop.getaddrinfo))
    for name in LIBRARIES:
        if name in sys.modules:
            _patch_library(name, sys.modules[name])
    if any(name not in sys.modules for name in LIBRARIES):
        sys.meta_path.insert(0, _ON_IMPORT)


def _patch_library(name: str, mod: Any) -> None:
    if name in HTTPX_LIKE:
        from khaos_action.engine.chaos.intercept_httpx import async_handler, sync_handler

        _patch(mod.HTTPTransport, "handle_request", sync_handler(mod, mod.HTTPTransport.handle_request, TRAFFIC.note))
        _patch(mod.AsyncHTTPTransport, "handle_async_request",
               async_handler(mod, mod.AsyncHTTPTransport.handle_async_request, TRAFFIC.note))
        TRAFFIC.clients.append(name)
    elif name == "requests.adapters":
        from khaos_action.engine.chaos.intercept_requests import patched_send

        _patch(mod.HTTPAdapter, "send", patched_send(mod.HTTPAdapter.send, TRAFFIC.note))
        TRAFFIC.clients.append("requests")
    elif name == "http.client":
        from khaos_action.engine.chaos.intercept_httpclient import CLIENT, patched_getresponse, patched_request

        conn = mod.HTTPConnection
        _patch(conn, "request", patched_request(conn.request, TRAFFIC.note))
        _patch(conn, "getresponse", patched_getresponse(conn.getresponse))
        TRAFFIC.clients.append(CLIENT)
    elif name == "urllib.request":
        from khaos_action.engine.chaos.intercept_urllib import CLIENT, patched_do_open

        handler = mod.AbstractHTTPHandler
        _patch(handler, "do_open", patched_do_open(handler.do_open, TRAFFIC.note))
        TRAFFIC.clients.append(CLIENT)
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
