"""The chaos proxy: a local HTTP forwarder (aiohttp server and client session) that out-of-process agents
(`http`, `command`) reach through rewired base URLs, and that answers with the current case's faults.

Attribution under concurrency. The engine runs out-of-process agents as N instances, each serving one case at a
time. Every instance gets its own routes: `url_for(upstream, instance)` returns
`http://127.0.0.1:<port>/i/<instance>/<upstream key>`, and `agent.env` templates (`{{ llm_proxy }}`,
`{{ proxy('https://api.example.com') }}`) are rendered per instance by `render_env`. So the path names the instance,
and `bind(instance, ctx)` (called by the engine when an instance starts and finishes a case) names the case.
A request whose instance serves no case is forwarded untouched. (One shared agent process has one instance, so
the engine runs its cases with faults one at a time.)

No fault → the request is forwarded as is and the upstream reply streams back unchanged (status, headers, raw
body bytes, server-sent events as they arrive). Faults: errors and failures are answered by the proxy; `timeout`
holds the request for its delay and then answers 504; `connection_reset` closes the connection mid-response;
reply mutations buffer the upstream reply, rewrite it and send it with fresh framing headers.

Why aiohttp on both sides (issue 19): with uvicorn (h11) in front and httpx behind, 60% of the proxy's CPU went to
httpcore's connection-pool scan and the proxy served fewer requests/s at concurrency 32 than at 1. aiohttp parses
HTTP in C on both sides and keeps a keep-alive pool without that scan.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
import socket
from typing import Any
from urllib.parse import urlsplit

from khaos_action.engine.chaos.plan import decide_http, finish_http
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.llm_calls import LlmCall, begin_call
from khaos_action.errors import ConfigError
from khaos_action.faults.effects import (
    FRAMING_HEADERS,
    HttpRequestView,
    Reply,
    rebuilt_headers,
)
from khaos_action.faults.llm import error_reply

_ROUTE = re.compile(r"^/i/(\d+)/([A-Za-z0-9_-]+)(/[^?]*)?(?:\?(.*))?$", re.S)
_DROP_REQUEST = FRAMING_HEADERS | {"host"}
_DROP_RESPONSE = FRAMING_HEADERS - {"content-length", "content-encoding"}
# What aiohttp's client would add on its own: the agent's request goes out with the agent's headers only.
_NO_AUTO_HEADERS = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")


def upstream_key(upstream: str) -> str:
    return "u" + hashlib.sha256(upstream.rstrip("/").encode()).hexdigest()[:10]


class ChaosProxy:
    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, upstream_timeout_s: float = 300.0) -> None:
        self.host = host
        self._port = port
        self._socket: socket.socket | None = None
        self._upstreams: dict[str, str] = {}
        self._bound: dict[int, CaseContext | None] = {}
        self._timeout = upstream_timeout_s
        self._runner: Any = None
        self._session: Any = None

    # ---- lifecycle ------------------------------------------------------------------------------------------------
    def _listening_socket(self) -> socket.socket:
        if self._socket is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self._port))
            sock.set_inheritable(True)
            self._socket = sock
        return self._socket

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self._listening_socket().getsockname()[1]}"

    async def start(self) -> None:
        import aiohttp
        from aiohttp import web

        sock = self._listening_socket()
        # No pool limit (the agents' concurrency is the limit), no total timeout on streams that are still moving:
        # only connecting and each read are bounded. trust_env=False: never route through the runner's own proxy.
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self._timeout, sock_read=self._timeout),
            auto_decompress=False, trust_env=False, skip_auto_headers=_NO_AUTO_HEADERS,
        )
        server = web.Server(self._handle, access_log=None, handler_cancellation=True)
        self._runner = web.ServerRunner(server, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        try:
            await web.SockSite(self._runner, sock).start()
        except OSError as exc:
            raise ConfigError(f"the chaos proxy could not listen on {self.base_url}: {exc}") from None

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()
        if self._socket is not None:
            self._socket.close()
        self._runner = self._session = self._socket = None

    # ---- routing and attribution -------------------------------------------------------------------------------------
    def url_for(self, upstream: str, instance: int = 0) -> str:
        """The base URL instance `instance` uses in place of `upstream` (keeps upstream's path prefix)."""
        if not re.match(r"^https?://", upstream):
            raise ConfigError(f"proxy({upstream!r}): the upstream must be an http(s) URL such as "
                              "'https://api.openai.com/v1'.")
        key = upstream_key(upstream)
        self._upstreams[key] = upstream.rstrip("/")
        return f"{self.base_url}/i/{instance}/{key}"

    def bind(self, instance: int, ctx: CaseContext | None) -> None:
        """Instance `instance` now serves `ctx` (None: between cases; its requests pass through)."""
        self._bound[instance] = ctx

    # ---- the request handler -------------------------------------------------------------------------------------
    async def _handle(self, request: Any) -> Any:
        current_case.set(None)  # this task's own upstream calls must never be intercepted in-process
        route = _ROUTE.match(request.raw_path)
        if route is None or route.group(2) not in self._upstreams:
            return await _send_reply(request, Reply.json_reply(
                404, {"error": "unknown chaos-proxy route; use the URL from `{{ llm_proxy }}` / `{{ proxy(...) }}`"}))
        instance, upstream = int(route.group(1)), self._upstreams[route.group(2)]
        url = upstream + (route.group(3) or "")
        if route.group(4):
            url += "?" + route.group(4)
        body = await request.read()
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.raw_headers]
        lower = {k.lower(): v for k, v in headers}
        ctx = self._bound.get(instance)
        decision = None
        if ctx is not None:
            target = urlsplit(url)
            view = HttpRequestView(method=request.method, url=url, host=target.hostname or "",
                                   path=target.path or "/", headers=lower, body=body)
            decision = decide_http(ctx, view)
            if decision is not None and decision.new_body is not None:
                body = decision.new_body
            call = begin_call(ctx, decision, view, body)  # LLM telemetry, cassette, budget (khaos_action.llm)
        else:
            call = None
        effect = decision.effect if decision is not None else None
        if effect is not None:
            if effect.delay_s:
                await asyncio.sleep(effect.delay_s)
            if effect.error == "timeout":
                reply = error_reply(decision.record and decision.record["provider"], 504, "timeout",
                                    "Gateway timeout: the upstream did not answer in time.")
                finish_http(ctx, decision, reply)
                call and call.finish(reply, source="fault")
                return await _send_reply(request, reply)
            if effect.error == "connection_reset":
                finish_http(ctx, decision, None)
                call and call.finish(None, source="fault")
                return await _reset(request)
            if effect.reply is not None:
                finish_http(ctx, decision, effect.reply)
                call and call.finish(effect.reply, source="fault")
                return await _send_reply(request, effect.reply)
        replayed = call.replayed() if call is not None else None
        if replayed is not None:  # the LLM cassette answers; faults that rewrite replies still apply on top
            return await _send_reply(request, finish_http(ctx, decision, replayed) or replayed)
        return await self._forward(request, url, headers, body, ctx, decision, call)

    async def _forward(self, request: Any, url: str, headers: list[tuple[str, str]], body: bytes,
                       ctx: CaseContext | None, decision: Any, call: LlmCall | None = None) -> Any:
        import aiohttp
        from aiohttp import web
        from multidict import CIMultiDict
        from yarl import URL

        assert self._session is not None, "ChaosProxy.start() was not awaited"
        outgoing = CIMultiDict((k, v) for k, v in headers if k.lower() not in _DROP_REQUEST)
        transform = decision is not None and decision.effect is not None and decision.effect.transform is not None
        try:
            # A reply a fault rewrites is read decoded (Reply holds decoded content); all others pass through raw.
            response = await self._session.request(request.method, URL(url, encoded=True), headers=outgoing,
                                                   data=body or None, allow_redirects=False, auto_decompress=transform)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            if call is not None:
                call.finish(None, source="error", error=f"{type(exc).__name__}: {exc}")
            return await _send_reply(request, Reply.json_reply(
                502, {"error": f"chaos proxy: upstream {url} failed: {type(exc).__name__}: {exc}"}))
        try:
            if transform:
                content = await response.read()
                reply = Reply(response.status, {k.lower(): v for k, v in response.headers.items()}, content)
                if call is not None:
                    call.finish_live(reply.status, rebuilt_headers(reply.headers), reply.body)
                replacement = finish_http(ctx, decision, reply)
                return await _send_reply(request, replacement or Reply(reply.status, rebuilt_headers(reply.headers),
                                                                       reply.body))
            if decision is not None:
                finish_http(ctx, decision, None, status=response.status)
            # A reply of known length leaves in one write with its first bytes (aiohttp's own web.Response does
            # this): a separate send of the headers cost a third of the proxy's time per request on loopback (issue
            # 19). A stream (no length: server-sent events) gets its headers at once, before any event.
            sized = response.headers.get("content-length") is not None
            out = (_sized_response() if sized else web.StreamResponse)(status=response.status, reason=response.reason)
            out.headers.clear()  # exactly upstream's headers (no Content-Type/Server/Date of our own)
            for k, v in response.raw_headers:
                name = k.decode("latin-1")
                if name.lower() not in _DROP_RESPONSE:
                    out.headers.add(name, v.decode("latin-1"))
            if "content-length" not in out.headers and response.status not in (204, 304) \
                    and request.method != "HEAD":
                out.enable_chunked_encoding()
            observer = call.observer(response.status, response.headers) if call is not None else None
            await out.prepare(request)
            async for chunk in response.content.iter_any():
                if observer is not None:
                    observer.feed(chunk)
                await out.write(chunk)
            await out.write_eof()
            if observer is not None:
                observer.close(True)
            return out
        finally:
            if call is not None and not call.done:
                call.finish_live(response.status, {}, None)  # the agent went away mid-reply
            response.release()


@functools.cache
def _sized_response() -> Any:
    """StreamResponse that sends its headers with the first body bytes (built on first use: aiohttp is imported only
    when a proxy runs)."""
    from aiohttp import web

    class SizedResponse(web.StreamResponse):
        _send_headers_immediately = False

    return SizedResponse


async def _reset(request: Any) -> Any:
    """Start a 4 kB JSON reply, send 8 bytes of it and drop the connection: a reset as the client sees it."""
    from aiohttp import web

    out = web.StreamResponse(status=200, headers={"content-type": "application/json", "content-length": "4096"})
    await out.prepare(request)
    await out.write(b'{"id": "')
    request.transport.abort()
    return out


async def _send_reply(request: Any, reply: Reply) -> Any:
    from aiohttp import web
    from multidict import CIMultiDict

    out = web.Response(status=reply.status, body=reply.body)
    out.headers.clear()
    out.headers.extend(CIMultiDict(rebuilt_headers(reply.headers)))
    out.headers["content-length"] = str(len(reply.body))
    return out


# ---- agent.env templates ---------------------------------------------------------------------------------------------

def render_env(env: dict[str, str], proxy: ChaosProxy | None, instance: int,
               llm_upstream: str = "https://api.openai.com/v1") -> dict[str, str]:
    """Render `{{ llm_proxy }}` and `{{ proxy('https://host') }}` in agent.env values for one instance (jinja2
    sandbox; no other names are available). Without a proxy they render to the upstream itself, so the agent
    runs unfaulted rather than with a broken URL. `{{ port }}` is left for the transport to fill in."""
    from jinja2 import StrictUndefined, TemplateError
    from jinja2.sandbox import SandboxedEnvironment

    sandbox = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
    route = (lambda url: proxy.url_for(url, instance)) if proxy is not None else (lambda url: str(url).rstrip("/"))
    names = {"llm_proxy": route(llm_upstream), "proxy": route, "port": "{{port}}"}
    rendered = {}
    for key, value in env.items():
        value = str(value)
        if "{{" not in value and "{%" not in value:
            rendered[key] = value
            continue
        try:
            rendered[key] = sandbox.from_string(value).render(names)
        except (TemplateError, ConfigError) as exc:
            raise ConfigError(f"agent.env.{key} = {value!r} cannot be rendered: {exc}. Available: "
                              "`{{ llm_proxy }}`, `{{ proxy('https://api.example.com') }}`, `{{ port }}`.") from None
    return rendered

