"""The chaos proxy: a local HTTP/1.1 forwarder that out-of-process agents (`http`, `command`) reach through rewired
base URLs, and that answers with the current case's faults.

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

Why by hand: the agent side is asyncio streams and engine.chaos.http1's parser (keep-alive,
pipelining-safe, strict about framing); the upstream side is engine.chaos.forward (its own keep-alive pool for
`http://` upstreams, aiohttp for TLS and for replies a fault decodes). General-purpose servers and clients cost
more per request than moving bytes on loopback needs (what was tried: docs/performance.md, "The chaos proxy").
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from khaos_action.engine.chaos.egress import contain
from khaos_action.engine.chaos.forward import (
    PlainPool,
    Upstream,
    UpstreamError,
    fetch_decoded,
    open_session,
    relay_aiohttp,
    relay_plain,
)
from khaos_action.engine.chaos.http1 import (
    MAX_HEAD,
    BadMessage,
    Head,
    parse_request,
    read_request_body,
    read_request_head,
    serialize_head,
    status_line,
)
from khaos_action.engine.chaos.plan import decide_http, finish_http
from khaos_action.engine.chaos.proxy_forward import forward_env, proxy_instance, proxy_url, tunnel
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.llm_calls import LlmCall, begin_call
from khaos_action.errors import ConfigError
from khaos_action.faults.effects import HttpRequestView, Reply, rebuilt_headers
from khaos_action.faults.llm import error_reply

_ROUTE = re.compile(r"^/i/(\d+)/([A-Za-z0-9_-]+)(/[^?]*)?(?:\?(.*))?$", re.S)


def upstream_key(upstream: str) -> str:
    return "u" + hashlib.sha256(upstream.rstrip("/").encode()).hexdigest()[:10]


class ChaosProxy:
    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, upstream_timeout_s: float = 300.0,
                 ssl: Any = None) -> None:
        """`ssl`: the SSLContext https:// upstreams are checked with (default: the system's trust store)."""
        self.host = host
        self._port = port
        self._socket: socket.socket | None = None
        self._upstreams: dict[str, Upstream] = {}
        self._bound: dict[int, CaseContext | None] = {}
        self._timeout = upstream_timeout_s
        self._ssl = ssl
        self._server: asyncio.Server | None = None
        self._pool = PlainPool(upstream_timeout_s)
        self._session: Any = None  # aiohttp's, opened on the first request that needs it
        self._connections: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}

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
        sock = self._listening_socket()
        try:
            self._server = await asyncio.start_server(self._serve, sock=sock, limit=MAX_HEAD, backlog=1024)
        except OSError as exc:
            raise ConfigError(f"the chaos proxy could not listen on {self.base_url}: {exc}") from None

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task, writer in list(self._connections.items()):
            writer.transport.abort()
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        self._pool.close()
        if self._session is not None:
            await self._session.close()
        if self._socket is not None:
            self._socket.close()
        self._server = self._session = self._socket = None

    # ---- routing and attribution -------------------------------------------------------------------------------------
    def url_for(self, upstream: str, instance: int = 0) -> str:
        """The base URL instance `instance` uses in place of `upstream` (keeps upstream's path prefix)."""
        try:
            parsed = Upstream.parse(upstream) if re.match(r"^https?://[^/?#]", upstream) else None
        except ValueError:  # a port that is not a number
            parsed = None
        if parsed is None or "?" in upstream or "#" in upstream:
            raise ConfigError(f"proxy({upstream!r}): the upstream must be an http(s) URL such as "
                              "'https://api.openai.com/v1'.")
        key = upstream_key(upstream)
        self._upstreams[key] = parsed
        return f"{self.base_url}/i/{instance}/{key}"

    def bind(self, instance: int, ctx: CaseContext | None) -> None:
        """Instance `instance` now serves `ctx` (None: between cases; its requests pass through)."""
        self._bound[instance] = ctx

    # ---- one agent connection -------------------------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Requests one after another on a kept-alive connection until the agent closes it, asks to, or sends
        something the proxy cannot read (answered 400/413/431/501, then closed)."""
        current_case.set(None)  # this task's own upstream calls must never be intercepted in-process
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            while await self._serve_one(reader, writer):
                pass
        except (ConnectionError, TimeoutError):
            return  # the agent went away while its reply was being written
        except asyncio.CancelledError:
            return  # stop() ends the connection; ending normally keeps asyncio's stream callback from logging it
        finally:
            self._connections.pop(task, None)
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One request on the connection; whether it can serve another."""
        request = await _read_request(reader, writer)
        if request is None:
            return False
        head, body = request
        if head.method == "CONNECT":  # HTTPS through the agent's HTTPS_PROXY (proxy_forward.py)
            await tunnel(head, reader, writer, self._case_of(head.headers), self._timeout)
            return False
        return await self._handle(head, body, writer) and head.keep_alive

    async def _handle(self, head: Head, body: bytes, out: asyncio.StreamWriter) -> bool:
        """Answer one request; whether the connection can serve another."""
        if head.target.lower().startswith("http://"):  # absolute form: the agent's HTTP_PROXY (forward proxy)
            return await self._forward(head, body, out)
        route = _ROUTE.match(head.target)
        if route is None or route.group(2) not in self._upstreams:
            return await _send(out, Reply.json_reply(
                404, {"error": "unknown chaos-proxy route; use the URL from `{{ llm_proxy }}` / `{{ proxy(...) }}`"}))
        instance, upstream = int(route.group(1)), self._upstreams[route.group(2)]
        query = "?" + route.group(4) if route.group(4) else ""
        return await self._answer(head, body, out, self._bound.get(instance), upstream, route.group(3) or "", query,
                                  head.headers)

    async def _answer(self, head: Head, body: bytes, out: asyncio.StreamWriter, ctx: CaseContext | None,
                      upstream: Upstream, rest: str, query: str, headers: list[tuple[str, str]]) -> bool:
        """One request for `upstream` + `rest` + `query`, on behalf of the case `ctx` (None: none is bound)."""
        url, path = upstream.url + rest + query, (upstream.prefix + rest) or "/"
        seen = _intercept(ctx, head, url, upstream.host, path, headers, body)
        if seen.contained is not None:  # an attack's host: answered here, never sent
            return await _send(out, seen.contained)
        effect = seen.decision.effect if seen.decision is not None else None
        if effect is not None:
            answered = await _fault_answer(effect, out, ctx, seen.decision, seen.call)
            if answered is not None:
                return answered
        replayed = seen.call.replayed() if seen.call is not None else None
        if replayed is not None:  # the LLM cassette answers; faults that rewrite replies still apply on top
            return await _send(out, finish_http(ctx, seen.decision, replayed) or replayed)
        return await self._onward(head, upstream, path + query, url, headers, seen, effect, out, ctx)

    async def _onward(self, head: Head, upstream: Upstream, target: str, url: str, headers: list[tuple[str, str]],
                      seen: _Intercepted, effect: Any, out: asyncio.StreamWriter, ctx: CaseContext | None) -> bool:
        """The request sent upstream: its reply rewritten by a fault, or relayed as it arrives."""
        if effect is not None and effect.transform is not None:
            return await self._rewrite(head.method, url, headers, seen.body, out, ctx, seen.decision, seen.call)
        return await self._relay(head, upstream, target, url, headers, seen.body, out, ctx, seen.decision,
                                 seen.call)

    async def _relay(self, head: Head, upstream: Upstream, target: str, url: str, headers: list[tuple[str, str]],
                     body: bytes, out: asyncio.StreamWriter, ctx: CaseContext | None, decision: Any,
                     call: LlmCall | None) -> bool:
        """The upstream's reply, relayed as it arrives (the forwarding path)."""
        observed: list[int] = []

        def start(status: int, reply_headers: dict[str, str]) -> Any:
            observed.append(status)
            if decision is not None:
                finish_http(ctx, decision, None, status=status)
            return call.observer(status, reply_headers) if call is not None else None

        http11 = head.start[2] == "HTTP/1.1"
        try:
            if upstream.plain:
                return await relay_plain(self._pool, upstream, head.method, target, headers, body, out,
                                         http11=http11, start=start)
            return await relay_aiohttp(self._aiohttp(), head.method, url, headers, body, out, http11=http11,
                                       start=start)
        except UpstreamError as exc:
            if call is not None:
                call.finish(None, source="error", error=str(exc))
            return await _send(out, Reply.json_reply(502, {"error": f"chaos proxy: upstream {url} failed: {exc}"}))
        except Exception:  # noqa: BLE001 — mid-reply (either side went away): the agent sees a cut-off reply
            out.transport.abort()
            return False
        finally:
            if call is not None and not call.done:
                call.finish_live(observed[0] if observed else 502, {}, None)  # the reply did not reach its end

    async def _rewrite(self, method: str, url: str, headers: list[tuple[str, str]], body: bytes,
                       out: asyncio.StreamWriter, ctx: CaseContext | None, decision: Any, call: LlmCall | None) -> bool:
        """A fault that rewrites the reply: read it whole and decoded (Reply holds decoded content), rewrite, send."""
        try:
            reply = await fetch_decoded(self._aiohttp(), method, url, headers, body)
        except UpstreamError as exc:
            if call is not None:
                call.finish(None, source="error", error=str(exc))
            return await _send(out, Reply.json_reply(502, {"error": f"chaos proxy: upstream {url} failed: {exc}"}))
        if call is not None:
            call.finish_live(reply.status, rebuilt_headers(reply.headers), reply.body)
        replacement = finish_http(ctx, decision, reply)
        return await _send(out, replacement or Reply(reply.status, rebuilt_headers(reply.headers), reply.body))

    # ---- forward proxy: what an agent's HTTP_PROXY / HTTPS_PROXY reach ------------------------------------------
    def proxy_url(self, instance: int) -> str:
        """The HTTP_PROXY value for instance `instance` (proxy_forward.py `proxy_url`)."""
        return proxy_url(self.base_url, instance)

    def _case_of(self, headers: list[tuple[str, str]]) -> CaseContext | None:
        instance = proxy_instance(headers)
        return self._bound.get(instance) if instance is not None else None

    async def _forward(self, head: Head, body: bytes, out: asyncio.StreamWriter) -> bool:
        """An `http://` request sent to us as a proxy: faults, telemetry and attack containment as on a route."""
        parts = urlsplit(head.target)
        try:
            upstream = Upstream.parse(f"{parts.scheme}://{parts.netloc}")
        except ValueError:
            return await _send(out, Reply.json_reply(400, {"error": "chaos proxy: malformed proxy request target"}))
        headers = [(k, v) for k, v in head.headers if k.lower() not in ("proxy-authorization", "proxy-connection")]
        query = f"?{parts.query}" if parts.query else ""
        return await self._answer(head, body, out, self._case_of(head.headers), upstream, parts.path or "/", query,
                                  headers)

    def _aiohttp(self) -> Any:
        if self._session is None:
            self._session = open_session(self._timeout, self._ssl)
        return self._session


def _reply_bytes(reply: Reply, *, close: bool = False) -> bytes:
    headers = list(rebuilt_headers(reply.headers).items()) + [("content-length", str(len(reply.body)))]
    if close:
        headers.append(("connection", "close"))
    return serialize_head(status_line(reply.status), headers) + reply.body


async def _send(out: asyncio.StreamWriter, reply: Reply) -> bool:
    out.write(_reply_bytes(reply))
    await out.drain()
    return True


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
    return {**forward_env(proxy.base_url if proxy is not None else None, instance, env), **rendered}


async def _read_request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple[Head, bytes] | None:
    """The next request's head and body; None when the agent closed the connection or sent what cannot be read
    (answered with its status first)."""
    try:
        head = parse_request(await read_request_head(reader))
        if head.expect_continue and (head.length or head.chunked):
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        return head, await read_request_body(reader, head)
    except BadMessage as exc:
        writer.write(_reply_bytes(Reply.json_reply(exc.status, {"error": f"chaos proxy: {exc}"}), close=True))
        return None
    except asyncio.IncompleteReadError:
        return None  # the agent closed its connection, between requests or in the middle of one


@dataclass(frozen=True, slots=True)
class _Intercepted:
    """What the case's faults, containment and LLM bookkeeping made of one request."""

    contained: Reply | None
    """The local answer to a request for an attack's host (it is never sent)."""
    decision: Any
    call: LlmCall | None
    body: bytes
    """The body to send: a fault may have rewritten it."""


def _intercept(ctx: CaseContext | None, head: Head, url: str, host: str, path: str, headers: list[tuple[str, str]],
               body: bytes) -> _Intercepted:
    if ctx is None:
        return _Intercepted(None, None, None, body)
    view = HttpRequestView(method=head.method, url=url, host=host, path=path,
                           headers={k.lower(): v for k, v in headers}, body=body)
    contained = contain(ctx, view, "proxy")
    if contained is not None:
        return _Intercepted(contained, None, None, body)
    decision = decide_http(ctx, view)
    if decision is not None and decision.new_body is not None:
        body = decision.new_body
    return _Intercepted(None, decision, begin_call(ctx, decision, view, body), body)  # LLM telemetry, cassette


async def _fault_answer(effect: Any, out: asyncio.StreamWriter, ctx: CaseContext | None, decision: Any,
                        call: LlmCall | None) -> bool | None:
    """A fault that answers the request itself (after its delay): a timeout, a reset connection or its own reply;
    None when the request goes on (a delay alone, or a fault that rewrites the real reply)."""
    if effect.delay_s:
        await asyncio.sleep(effect.delay_s)
    if effect.error == "timeout":
        reply = error_reply(decision.record and decision.record["provider"], 504, "timeout",
                            "Gateway timeout: the upstream did not answer in time.")
    elif effect.error == "connection_reset":
        return await _reset(out, ctx, decision, call)
    elif effect.reply is not None:
        reply = effect.reply
    else:
        return None
    finish_http(ctx, decision, reply)
    if call is not None:
        call.finish(reply, source="fault")
    return await _send(out, reply)


async def _reset(out: asyncio.StreamWriter, ctx: CaseContext | None, decision: Any, call: LlmCall | None) -> bool:
    finish_http(ctx, decision, None)
    if call is not None:
        call.finish(None, source="fault")
    # Start a 4 kB JSON reply, send 8 bytes of it and drop the connection: a reset as the client sees it.
    out.write(serialize_head(status_line(200), [("content-type", "application/json"), ("content-length", "4096")])
              + b'{"id": "')
    await out.drain()
    out.transport.abort()
    return False
