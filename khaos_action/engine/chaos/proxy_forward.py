"""The chaos proxy as its agents' HTTP_PROXY / HTTPS_PROXY (proxy.py serves it): the environment that makes an
out-of-process agent's HTTP clients use it, the instance a request comes from (the proxy user name: written into
the proxy URL here, read back here), and CONNECT tunnels, refused for a host the current attack names
(engine/chaos/egress.py; docs/sandbox.md). It knows the proxy only by its base URL, so proxy.py imports it and not
the other way round."""

from __future__ import annotations

import asyncio
import base64
import binascii
from typing import TYPE_CHECKING

from khaos_action.engine.chaos.egress import is_contained, record
from khaos_action.engine.chaos.http1 import Head, serialize_head, status_line
from khaos_action.faults.effects import Reply, rebuilt_headers

if TYPE_CHECKING:
    from khaos_action.engine.context import CaseContext

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
LOCAL_HOSTS = "localhost,127.0.0.1,::1"


def forward_env(base_url: str | None, instance: int, env: dict[str, str]) -> dict[str, str]:
    """HTTP_PROXY / HTTPS_PROXY for an out-of-process agent's instance, through the chaos proxy at `base_url` (None:
    no proxy, nothing to set): it forwards (or tunnels) what the agent's HTTP clients send elsewhere, and answers
    locally what goes to a host the current attack names. Loopback stays direct (NO_PROXY), and an agent.env that
    sets any proxy variable keeps its own."""
    if base_url is None or any(name in env for name in (*PROXY_VARIABLES, "NO_PROXY", "no_proxy")):
        return {}
    url = proxy_url(base_url, instance)
    return {**dict.fromkeys(PROXY_VARIABLES, url), "NO_PROXY": LOCAL_HOSTS, "no_proxy": LOCAL_HOSTS}


def proxy_url(base_url: str, instance: int) -> str:
    """The HTTP_PROXY value for instance `instance` of the proxy at `base_url`: its number travels as the proxy user
    name (clients send it as Proxy-Authorization, `proxy_instance` reads it), so a request is attributed to the case
    that instance serves."""
    return f"http://i{instance}:khaos@{base_url.removeprefix('http://')}"


def proxy_instance(headers: list[tuple[str, str]]) -> int | None:
    """The instance number in a Proxy-Authorization header (`Basic base64("i3:khaos")` → 3), or None."""
    for name, value in headers:
        if name.lower() != "proxy-authorization":
            continue
        scheme, _, token = value.partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user = base64.b64decode(token.strip(), validate=True).decode("latin-1").partition(":")[0]
        except (binascii.Error, ValueError):
            return None
        return int(user[1:]) if user[:1] == "i" and user[1:].isdigit() else None
    return None


async def tunnel(head: Head, reader: asyncio.StreamReader, out: asyncio.StreamWriter, ctx: CaseContext | None,
                 timeout: float) -> None:
    """CONNECT host:port (HTTPS through HTTPS_PROXY): refused for a host the current attack names (the attempt
    recorded: only its host is visible, the request is inside TLS); otherwise a byte-for-byte tunnel."""
    host, _, port_text = head.target.rpartition(":")
    host = host.strip("[]")
    port = int(port_text) if port_text.isdigit() else 443
    if ctx is not None and ctx.contain and is_contained(ctx.contain, host, port):
        record(ctx, host=host, method="CONNECT", path=f":{port}", body=b"", via="proxy")
        await _refuse(out, 403, "this host is named by the attack under test; the connection stays inside the run")
        return
    try:
        async with asyncio.timeout(timeout):
            up_reader, up_writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError) as exc:
        await _refuse(out, 502, f"{host}:{port}: {exc}")
        return
    out.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
    await out.drain()
    try:
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, out))
    finally:
        up_writer.close()


async def _refuse(out: asyncio.StreamWriter, status: int, why: str) -> None:
    reply = Reply.json_reply(status, {"error": f"chaos proxy: {why}"})
    headers = [*rebuilt_headers(reply.headers).items(), ("content-length", str(len(reply.body))),
               ("connection", "close")]
    out.write(serialize_head(status_line(status), headers) + reply.body)
    await out.drain()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy bytes until `source` ends, then half-close `sink` (a tunnel's two directions end on their own)."""
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
        if sink.can_write_eof():
            sink.write_eof()
    except (ConnectionError, OSError):
        sink.close()
