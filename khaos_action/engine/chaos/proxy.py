"""The chaos proxy: a local HTTP forwarder (uvicorn + a plain ASGI app, httpx upstream) that out-of-process agents
(`http`, `command`) reach through rewired base URLs, and that answers with the current case's faults.

Attribution under concurrency. The engine runs out-of-process agents as N instances, each serving one case at a
time. Every instance gets its own routes: `url_for(upstream, instance)` returns
`http://127.0.0.1:<port>/i/<instance>/<upstream key>`, and `agent.env` templates (`{{ llm_proxy }}`,
`{{ proxy('https://api.example.com') }}`) are rendered per instance by `render_env`. So the path names the instance,
and `bind(instance, ctx)` (called by the engine when an instance starts and finishes a case) names the case.
A request carrying a W3C `traceparent` whose trace id was registered with `bind_trace` is attributed to that
case first: OpenTelemetry-instrumented agents propagate it, which also separates concurrent cases that share one
agent process. A request whose instance serves no case is forwarded untouched.

No fault → the request is forwarded as is and the upstream reply streams back unchanged (status, headers, raw
body bytes, server-sent events as they arrive). Faults: errors and failures are answered by the proxy; `timeout`
holds the request for its delay and then answers 504; `connection_reset` closes the connection mid-response;
reply mutations buffer the upstream reply, rewrite it and send it with fresh framing headers.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import socket
from typing import Any

import httpx

from khaos_action.engine.chaos.effects import (
    FRAMING_HEADERS,
    HttpRequestView,
    Reply,
    rebuilt_headers,
)
from khaos_action.engine.chaos.faults_llm import error_reply
from khaos_action.engine.chaos.plan import decide_http, finish_http
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.errors import ConfigError
from khaos_action.llm.calls import LlmCall, begin_call

_ROUTE = re.compile(r"^/i/(\d+)/([A-Za-z0-9_-]+)(/.*)?$")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")
_DROP_REQUEST = FRAMING_HEADERS | {"host"}
_DROP_RESPONSE = FRAMING_HEADERS - {"content-length", "content-encoding"}


class _InjectedReset(Exception):
    """Raised after the response started, so uvicorn drops the connection (a reset as the client sees it)."""


class _QuietInjectedResets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], _InjectedReset))


def upstream_key(upstream: str) -> str:
    return "u" + hashlib.sha256(upstream.rstrip("/").encode()).hexdigest()[:10]


class ChaosProxy:
    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, upstream_timeout_s: float = 300.0) -> None:
        self.host = host
        self._port = port
        self._socket: socket.socket | None = None
        self._upstreams: dict[str, str] = {}
        self._bound: dict[int, CaseContext | None] = {}
        self._traces: dict[str, CaseContext] = {}
        self._timeout = upstream_timeout_s
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._client: httpx.AsyncClient | None = None
        self.requests = 0
        """Requests served (forwarded or faulted)."""

    # ---- lifecycle ------------------------------------------------------------------------------------------------
    def _listening_socket(self) -> socket.socket:
        if self._socket is None:
            # proto=IPPROTO_TCP: asyncio only sets TCP_NODELAY on accepted sockets whose proto says TCP; without it
            # Nagle + delayed ACKs add ~40 ms to every response written in two parts.
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
        import uvicorn

        sock = self._listening_socket()
        config = uvicorn.Config(self.app, interface="asgi3", lifespan="off", log_config=None, access_log=False,
                                proxy_headers=False,
                                server_header=False, date_header=False, timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        self._server.install_signal_handlers = lambda: None  # type: ignore[method-assign]  # the engine owns signals
        logging.getLogger("uvicorn.error").addFilter(_QuietInjectedResets())
        self._client = httpx.AsyncClient(timeout=self._timeout, follow_redirects=False, trust_env=False)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # surfaces the startup error
                raise ConfigError(f"the chaos proxy could not listen on {self.base_url}")
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            await self._task
        if self._client is not None:
            await self._client.aclose()
        if self._socket is not None:
            self._socket.close()
        self._server = self._task = self._client = self._socket = None

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

    def bind_trace(self, trace_id: str, ctx: CaseContext | None) -> None:
        """Requests whose `traceparent` carries `trace_id` belong to `ctx` (None removes the mapping)."""
        if ctx is None:
            self._traces.pop(trace_id, None)
        else:
            self._traces[trace_id] = ctx

    def _case_for(self, instance: int, headers: dict[str, str]) -> CaseContext | None:
        match = _TRACEPARENT.match(headers.get("traceparent", "").strip().lower())
        if match and match.group(1) in self._traces:
            return self._traces[match.group(1)]
        return self._bound.get(instance)

    # ---- the ASGI app ------------------------------------------------------------------------------------------------
    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        current_case.set(None)  # this task's own upstream calls must never be intercepted in-process
        self.requests += 1
        raw_path = scope.get("raw_path") or scope["path"].encode()
        route = _ROUTE.match(raw_path.decode("latin-1"))
        if route is None or route.group(2) not in self._upstreams:
            await _send_reply(send, Reply.json_reply(404, {"error": "unknown chaos-proxy route; use the URL from "
                                                                    "`{{ llm_proxy }}` / `{{ proxy(...) }}`"}))
            return
        instance, upstream = int(route.group(1)), self._upstreams[route.group(2)]
        url = upstream + (route.group(3) or "")
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        body = await _read_body(receive)
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        lower = {k.lower(): v for k, v in headers}
        ctx = self._case_for(instance, lower)
        target = httpx.URL(url)
        view = HttpRequestView(method=scope["method"], url=url, host=target.host, path=target.path,
                               headers=lower, body=body)
        decision = decide_http(ctx, view) if ctx is not None else None
        if decision is not None and decision.new_body is not None:
            body = decision.new_body
        call = begin_call(ctx, decision, view, body)  # LLM telemetry, cassette, budget (khaos_action.llm)
        effect = decision.effect if decision is not None else None
        if effect is not None:
            if effect.delay_s:
                await asyncio.sleep(effect.delay_s)
            if effect.error == "timeout":
                reply = error_reply(decision.record and decision.record["provider"], 504, "timeout",
                                    "Gateway timeout: the upstream did not answer in time.")
                finish_http(ctx, decision, reply)
                call and call.finish(reply, source="fault")
                await _send_reply(send, reply)
                return
            if effect.error == "connection_reset":
                finish_http(ctx, decision, None)
                call and call.finish(None, source="fault")
                await send({"type": "http.response.start", "status": 200,
                            "headers": [(b"content-type", b"application/json"), (b"content-length", b"4096")]})
                await send({"type": "http.response.body", "body": b'{"id": "', "more_body": True})
                raise _InjectedReset("connection reset (injected)")
            if effect.reply is not None:
                finish_http(ctx, decision, effect.reply)
                call and call.finish(effect.reply, source="fault")
                await _send_reply(send, effect.reply)
                return
        replayed = call.replayed() if call is not None else None
        if replayed is not None:  # the LLM cassette answers; faults that rewrite replies still apply on top
            await _send_reply(send, finish_http(ctx, decision, replayed) or replayed)
            return
        await self._forward(scope["method"], url, headers, body, send, ctx, decision, call)

    async def _forward(self, method: str, url: str, headers: list[tuple[str, str]], body: bytes, send: Any,
                       ctx: CaseContext | None, decision: Any, call: LlmCall | None = None) -> None:
        assert self._client is not None, "ChaosProxy.start() was not awaited"
        outgoing = [(k, v) for k, v in headers if k.lower() not in _DROP_REQUEST]
        request = self._client.build_request(method, url, headers=outgoing, content=body)
        sent = {k.lower() for k, _ in outgoing}
        for name in ("accept", "accept-encoding", "user-agent", "connection"):
            if name not in sent and name in request.headers:
                del request.headers[name]  # forward what the agent sent, not httpx's defaults
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as exc:
            if call is not None:
                call.finish(None, source="error")
            await _send_reply(send, Reply.json_reply(502, {"error": f"chaos proxy: upstream {url} failed: "
                                                                    f"{type(exc).__name__}: {exc}"}))
            return
        try:
            if decision is not None and decision.effect is not None and decision.effect.transform is not None:
                await response.aread()
                reply = Reply(response.status_code, {k.lower(): v for k, v in response.headers.items()},
                              response.content)
                if call is not None:
                    call.finish_live(reply.status, rebuilt_headers(reply.headers), reply.body)
                replacement = finish_http(ctx, decision, reply)
                await _send_reply(send, replacement or Reply(reply.status, rebuilt_headers(reply.headers),
                                                             reply.body))
                return
            if decision is not None:
                finish_http(ctx, decision, None, status=response.status_code)
            raw_headers = [(k, v) for k, v in response.headers.raw if k.decode("latin-1").lower() not in _DROP_RESPONSE]
            observer = call.observer(response.status_code, response.headers) if call is not None else None
            await send({"type": "http.response.start", "status": response.status_code, "headers": raw_headers})
            async for chunk in response.aiter_raw():
                if observer is not None:
                    observer.feed(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            if observer is not None:
                observer.close(True)
        finally:
            if call is not None and not call.done:
                call.finish_live(response.status_code, {}, None)  # the agent went away mid-reply
            await response.aclose()


async def _read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def _send_reply(send: Any, reply: Reply) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in rebuilt_headers(reply.headers).items()]
    headers.append((b"content-length", str(len(reply.body)).encode()))
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": reply.body, "more_body": False})


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

