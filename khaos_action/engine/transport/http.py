"""The `http` transport: POST each input to the agent's server (which we may start and stop ourselves).

`start` (a shell command) is launched in `cwd` (default: the config folder) with a clean environment
(engine/sandbox.py) + agent.env + the engine's env, then `ready_url` is polled until it answers 2xx (or, without
ready_url, until `url` accepts TCP connections). If the server dies or never becomes ready, the AgentError carries
its exit code and stderr tail.

Request body: `agent.request` (default `{"input": "{{input}}"}`) with `{{input}}`, `{{session_id}}`, `{{case_id}}`
substituted in every string (a string that is exactly `{{history}}` becomes the history list). Reply text:
`response_path` (dotted, digits index lists) or, by default, the first of text/output/response/content/message,
else the whole body. Headers may use `${ENV_VAR}`. Each request carries a W3C `traceparent` derived from the case
id, for agents instrumented with OpenTelemetry.

Pool: when `start` contains `{{port}}`, `instances: N` servers are started, each on its own free port (substituted
into start, url, ready_url, reset_endpoint and agent.env); each serves one case at a time and `bind_instance` tells
the chaos proxy which case it serves. Without `{{port}}` there is one server, requests run concurrently and no
instance binding is possible (`exclusive` is False): the proxy then cannot tell concurrent cases apart.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

import httpx

from khaos_action.config.agents import HttpAgent
from khaos_action.engine.sandbox import expand_vars, limits_from, visible_environ
from khaos_action.engine.textsafe import decode_bytes
from khaos_action.engine.transport.base import (
    TEXT_KEYS,
    AgentCallError,
    BindInstance,
    EnvForInstance,
    OutputTail,
    TransportBase,
    describe_exit,
    has_port,
    normalise_reply,
    process_env,
    response,
    settle,
    spawn,
    substitute_port,
    terminate,
    trace_id,
)
from khaos_action.engine.transport.pool import InstancePool
from khaos_action.engine.transport.ports import BIND_RETRIES, reserve_ports, says_port_in_use
from khaos_action.engine.transport.streams import streamed_body_text, streamed_type
from khaos_action.errors import AgentError, ConfigError
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.services import Services
from khaos_action.transports import BuildOptions

DEFAULT_REQUEST = {"input": "{{input}}"}
HTTP_TEXT_KEYS = (*TEXT_KEYS, "message")


class _Instance:
    def __init__(self, index: int, url: str, ready_url: str | None, reset_url: str | None,
                 start: str | None, port: int | None) -> None:
        self.index, self.url, self.ready_url, self.reset_url = index, url, ready_url, reset_url
        self.start, self.port = start, port
        self.process: asyncio.subprocess.Process | None = None
        self.stderr, self.stdout = OutputTail(), OutputTail()
        self.drains: list[asyncio.Task[None]] = []


class HttpTransport(TransportBase):
    def __init__(self, agent: HttpAgent, *, base_dir: Path, services: Services,
                 env: Mapping[str, str] | None = None,
                 env_for_instance: EnvForInstance | None = None, bind_instance: BindInstance | None = None,
                 client: httpx.AsyncClient | None = None, poll_interval_s: float = 0.05) -> None:
        self.agent, self.services = agent, services
        self.cwd = Path(base_dir) / agent.cwd if agent.cwd else Path(base_dir)
        self.env, self.env_for_instance, self.bind_instance = env or {}, env_for_instance, bind_instance
        self.has_reset = agent.reset_endpoint is not None
        self.exclusive = has_port(agent.start)
        if not self.exclusive:
            for key, value in (("url", agent.url), ("ready_url", agent.ready_url),
                               ("reset_endpoint", agent.reset_endpoint)):
                if has_port(value):
                    raise ConfigError(f"agent.{key} uses {{{{port}}}} but agent.start does not: put {{{{port}}}} in "
                                      "`start` too (each instance then gets its own free port), or use a fixed port.")
        self.instance_count = agent.instances if self.exclusive else 1
        self.poll_interval_s = poll_interval_s
        self._client = client
        self._own_client = client is None
        self._instances: list[_Instance] = []
        self._pool: InstancePool[_Instance] | None = None
        self._headers: dict[str, str] = {}
        self._started = False

    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        environ = {**visible_environ(self.services.environ), **self.env}  # `${GITHUB_TOKEN}` in a PR's config: nothing
        self._headers = {k: expand_vars(v, environ, where=f"agent.headers.{k}") for k, v in self.agent.headers.items()}
        if self._client is None:
            # The engine's wait_for owns the timeout; this one only stops a leaked request from living forever.
            self._client = self.services.async_http(
                timeout=httpx.Timeout(self.agent.timeout_s + 30, connect=10),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64), trust_env=False)
        ports: list[int | None] = list(reserve_ports(self.instance_count)) if self.exclusive else [None]
        self._instances = [self._instance(i, p) for i, p in enumerate(ports)]
        try:
            await asyncio.gather(*(self._launch(inst) for inst in self._instances))
        except BaseException:
            await self.close()
            raise
        self._pool = InstancePool(self._instances, self.bind_instance)

    def _instance(self, index: int, port: int | None) -> _Instance:
        a = self.agent
        return _Instance(index, _port(a.url, port), _port(a.ready_url, port), _port(a.reset_endpoint, port),
                         _port(a.start, port), port)

    async def _launch(self, inst: _Instance) -> None:
        """Start one server; one that exits because its port was taken meanwhile is retried on a fresh port."""
        for attempt in range(1, BIND_RETRIES + 1):
            try:
                return await self._launch_once(inst)
            except AgentError as exc:
                if inst.port is None or attempt == BIND_RETRIES or not says_port_in_use(
                        f"{exc} {inst.stderr.text()} {inst.stdout.text()}"):
                    raise
            await terminate(inst.process)
            for task in inst.drains:
                task.cancel()
            fresh = self._instance(inst.index, reserve_ports(1)[0])
            inst.url, inst.ready_url, inst.reset_url, inst.start, inst.port = (
                fresh.url, fresh.ready_url, fresh.reset_url, fresh.start, fresh.port)
            inst.process, inst.stderr, inst.stdout, inst.drains = None, OutputTail(), OutputTail(), []

    async def _launch_once(self, inst: _Instance) -> None:
        if inst.start:
            extra = self.env_for_instance(inst.index) if self.env_for_instance else None
            env = process_env(self.agent.env, self.env, extra, environ=self.services.environ, port=inst.port,
                              pass_env=self.agent.pass_env)
            try:
                inst.process = await spawn(inst.start, environ=self.services.environ, cwd=self.cwd, env=env,
                                           stdin=asyncio.subprocess.DEVNULL,
                                           stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                           limits=limits_from(self.agent.limits))
            except OSError as exc:
                raise AgentError(f"agent.start {inst.start!r} could not be launched in {self.cwd}: {exc}") from exc
            inst.drains = [asyncio.create_task(inst.stderr.drain(inst.process.stderr)),
                           asyncio.create_task(inst.stdout.drain(inst.process.stdout))]
        if inst.ready_url or inst.start:
            await self._wait_ready(inst)

    async def _wait_ready(self, inst: _Instance) -> None:
        assert self._client is not None
        deadline = time.monotonic() + self.agent.ready_timeout_s
        last = "no answer yet"
        while True:
            if inst.process is not None and inst.process.returncode is not None:
                await settle(inst.drains)
                exited = describe_exit(inst.process.returncode, inst.stderr, inst.stdout)
                raise AgentError(f"the agent server (`{inst.start}`) {exited}")
            ready, last = await self._ready(inst, last)
            if ready:
                return
            if time.monotonic() >= deadline:
                self._not_ready(inst, last)
            await asyncio.sleep(self.poll_interval_s)

    async def _ready(self, inst: _Instance, last: str) -> tuple[bool, str]:
        """Whether the agent answers yet (its ready_url with a success, or its port accepting), and what it last
        said when not."""
        assert self._client is not None
        try:
            if inst.ready_url:
                answer = await self._client.get(inst.ready_url, timeout=2)
                return answer.is_success, last if answer.is_success else f"HTTP {answer.status_code}"
            return await _accepts(inst.url), last
        except httpx.HTTPError as exc:
            return False, f"{type(exc).__name__}: {exc}"

    def _not_ready(self, inst: _Instance, last: str) -> NoReturn:
        tail = inst.stderr.text() or inst.stdout.text()
        raise AgentError(
            f"the agent at {inst.ready_url or inst.url} was not ready within {self.agent.ready_timeout_s:g}s "
            f"(last: {last}). " + (f"Its stderr ends with:\n{tail}\n" if tail else "")
            + "Check `start`, `ready_url` and the port, or raise agent.ready_timeout_s.")

    async def send(self, message: AgentRequest) -> AgentResponse:
        if not self._started:
            await self.start()
        assert self._client is not None and self._pool is not None
        if not self.exclusive:
            return await self._post(self._instances[0], message)
        async with self._pool.serving(message.case_id) as inst:
            return await self._post(inst, message)

    async def _post(self, inst: _Instance, message: AgentRequest) -> AgentResponse:
        method = self.agent.method.upper()
        request = self._request(inst, method, message)
        limit = body_limit(self.agent.max_output_bytes)
        answer, raw, cut = await self._fetch(inst, method, request, limit)
        text, invalid = decode_bytes(raw)
        problem = status_problem(f"{method} {inst.url}", answer.status_code, text, answer.headers.get("location"))
        if problem is not None:
            raise AgentCallError(problem)
        reply = self._reply(f"{method} {inst.url}", text, answer.headers.get("content-type", ""), cut, limit)
        if invalid:
            reply["notes"].append("reply body was not valid UTF-8; invalid bytes replaced with U+FFFD")
        return response(reply)

    def _request(self, inst: _Instance, method: str, message: AgentRequest) -> httpx.Request:
        """The request the agent is sent: the configured body (or query, for GET, DELETE and HEAD) with the input
        put in, and a W3C traceparent naming the case."""
        assert self._client is not None
        case_id = message.case_id
        values = {"input": message.text, "session_id": message.session_id or case_id, "case_id": case_id}
        body = render(self.agent.request if self.agent.request is not None else DEFAULT_REQUEST, values,
                      message.history)
        headers = {**self._headers, "traceparent": f"00-{trace_id(case_id)}-{trace_id(case_id)[:16]}-01"}
        if method in ("GET", "DELETE", "HEAD"):
            return self._client.build_request(method, inst.url, params=query(body), headers=headers)
        if isinstance(body, str):
            return self._client.build_request(method, inst.url, content=body.encode(), headers=headers)
        return self._client.build_request(method, inst.url, json=body, headers=headers)

    async def _fetch(self, inst: _Instance, method: str, request: httpx.Request, limit: int
                     ) -> tuple[httpx.Response, bytes, bool]:
        """The answer and its body read up to `limit` bytes (whether it was cut there); a failed request is the
        agent's error, with how its server ended when it did."""
        assert self._client is not None
        try:
            answer = await self._client.send(request, stream=True)
            try:
                raw, cut = await read_capped(answer, limit)
            finally:
                await answer.aclose()
        except httpx.HTTPError as exc:
            died = ""
            if inst.process is not None and inst.process.returncode is not None:
                died = f"; the agent server {describe_exit(inst.process.returncode, inst.stderr, inst.stdout)}"
            raise AgentCallError(f"{method} {inst.url} failed: {type(exc).__name__}: {exc}{died}") from exc
        return answer, raw, cut

    def _reply(self, what: str, text: str, content_type: str, cut: bool, limit: int) -> dict[str, Any]:
        """The reply in a body: a stream's events, a cut body's text, or the body read by its content type."""
        streamed = streamed_type(text, content_type)
        if streamed is not None:  # Server-Sent Events or JSON lines: every event's text, joined
            path = self.agent.response_path
            reply = streamed_body_text(text, streamed, (lambda data: dig(data, path)) if path else None)
            if cut:
                reply["notes"].append(f"reply stream longer than {limit:,} bytes; reading stopped there "
                                      "(agent.max_output_bytes)")
            return reply
        if not cut:
            return extract_reply(text, content_type, self.agent.response_path)
        if _looks_json(text, content_type):
            raise AgentCallError(f"{what} answered more than {limit:,} bytes of JSON; reading "
                                 "stopped there (agent.max_output_bytes)")
        reply = normalise_reply(text)
        reply["notes"].append(f"reply body longer than {limit:,} bytes; reading stopped there "
                              "(agent.max_output_bytes)")
        return reply

    async def reset(self) -> None:
        if not self.has_reset:
            return
        if not self._started:
            await self.start()
        assert self._client is not None
        for inst in self._instances:
            assert inst.reset_url
            try:
                answer = await self._client.post(inst.reset_url)
            except httpx.HTTPError as exc:
                raise AgentCallError(f"reset_endpoint {inst.reset_url} failed: {type(exc).__name__}: {exc}") from exc
            if answer.status_code >= 400:
                raise AgentCallError(f"reset_endpoint {inst.reset_url} answered HTTP {answer.status_code}: "
                                     f"{_excerpt(answer.text)}")

    async def close(self) -> None:
        instances, self._instances = self._instances, []
        await asyncio.gather(*(terminate(inst.process) for inst in instances), return_exceptions=True)
        for inst in instances:
            for task in inst.drains:
                task.cancel()
        if self._own_client and self._client is not None:
            client, self._client = self._client, None
            await client.aclose()
        self._started = False


# ---- pure helpers -------------------------------------------------------------------------------

def query(body: Any) -> dict[str, str] | None:
    """A request body as query parameters (for a method with no body): strings as they are, the rest as JSON."""
    if not isinstance(body, dict):
        return None
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}


def status_problem(what: str, status: int, text: str, location: str | None) -> str | None:
    """Why an answer with this HTTP status is not a reply (`what`: the method and URL), or None for a reply."""
    if status >= 400:
        return f"{what} answered HTTP {status}: {_excerpt(text)}"
    if 300 <= status < 400:
        # Not a reply: a 301's "<html>Moved</html>" must not be judged as the agent's answer (redirects are
        # not followed, so a redirect loop cannot spin either).
        return (f"{what} answered HTTP {status} (a redirect{f' to {location}' if location else ''}), not a reply; "
                "point agent.url at the final address")
    if status in (204, 205) or status < 200:
        return f"{what} answered HTTP {status} with no reply body"
    return None


def render(template: Any, values: Mapping[str, str], history: list[Any]) -> Any:
    """Deep-substitute `{{input}}`, `{{session_id}}`, `{{case_id}}` in every string of the template."""
    if isinstance(template, str):
        if template.strip() in ("{{history}}", "{{ history }}"):
            return list(history)
        for key, value in values.items():
            template = template.replace("{{" + key + "}}", value).replace("{{ " + key + " }}", value)
        return template
    if isinstance(template, Mapping):
        return {render(k, values, history): render(v, values, history) for k, v in template.items()}
    if isinstance(template, (list, tuple)):
        return [render(item, values, history) for item in template]
    return template


def extract_reply(body: str, content_type: str, response_path: str | None) -> dict[str, Any]:
    try:
        data: Any = json.loads(body)
    except ValueError:
        if response_path:
            raise AgentCallError(f"response_path {response_path!r} is set but the agent answered non-JSON "
                                 f"({content_type or 'no content-type'}): {_excerpt(body)}") from None
        return normalise_reply(body)
    if response_path:
        return normalise_reply(dig(data, response_path))
    if isinstance(data, dict):
        return _object_reply(data, body)
    return normalise_reply(data if isinstance(data, str) else body)


def _object_reply(data: dict[str, Any], body: str) -> dict[str, Any]:
    """A JSON object's reply: its first text key (HTTP_TEXT_KEYS), or the whole body with the object's tool calls."""
    for key in HTTP_TEXT_KEYS:
        if isinstance(data.get(key), str):
            return normalise_reply({**data, "text": data[key]} if key != "text" else data)
    reply = normalise_reply(body)
    reply["tool_calls"] = normalise_reply(data)["tool_calls"]
    return reply


def dig(data: Any, path: str) -> Any:
    """`choices.0.message.content` -> the value; AgentCallError naming the missing step and what was there."""
    current = data
    for i, step in enumerate(path.split(".")):
        here = ".".join(path.split(".")[:i]) or "the response"
        if isinstance(current, list) and step.lstrip("-").isdigit():
            index = int(step)
            if not -len(current) <= index < len(current):
                raise AgentCallError(f"response_path {path!r}: {here} is a list of {len(current)}, no index {index}")
            current = current[index]
        elif isinstance(current, dict) and step in current:
            current = current[step]
        else:
            seen = f"keys {', '.join(map(str, list(current)[:15]))}" if isinstance(current, dict) \
                else f"a {type(current).__name__}"
            raise AgentCallError(f"response_path {path!r}: no {step!r} in {here} (it has {seen})")
    return current


def free_port() -> int:
    """One free port outside the ephemeral range (tests and callers that need a single port)."""
    return reserve_ports(1)[0]


def body_limit(max_output_bytes: int) -> int:
    """Bytes read from a reply body: the output cap plus room for a JSON envelope and escapes (\\uXXXX is 6 bytes
    per character); a body past this is not read further, so a 1 GB reply costs at most this much memory."""
    return max_output_bytes * 6 + 64 * 1024


async def read_capped(answer: httpx.Response, limit: int) -> tuple[bytes, bool]:
    """The body, read as it streams, stopping at `limit` bytes: (bytes, whether it was cut)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in answer.aiter_bytes():  # decompressed as it streams: a gzip bomb is capped too
        room = limit - size
        if len(chunk) >= room + 1:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def _looks_json(text: str, content_type: str) -> bool:
    return "json" in content_type.lower() or text.lstrip()[:1] in ("{", "[")


def _port(text: str | None, port: int | None) -> str | None:
    return substitute_port(text, port) if text is not None and port is not None else text


async def _accepts(url: str) -> bool:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname or "127.0.0.1", port), 2)
    except (OSError, asyncio.TimeoutError):
        return False
    writer.close()
    return True


def _excerpt(text: str, limit: int = 500) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} chars)"


def build(agent: HttpAgent, options: BuildOptions) -> HttpTransport:
    """The `http` entry's builder (khaos_action/transports.py); its keys are `config.agents.HttpAgent`'s."""
    return HttpTransport(agent, base_dir=options.base_dir, services=options.needed_services(agent.type),
                         env=options.env, env_for_instance=options.env_for_instance,
                         bind_instance=options.bind_instance)
