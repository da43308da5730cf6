"""How the chaos proxy reaches an upstream and relays its reply to the agent: its own HTTP/1.1 keep-alive pool for
`http://` upstreams, aiohttp's client for everything else.

The split. Plain HTTP/1.1 to an `http://` upstream (a local model server, a service stand-in, every
benchmark) goes over asyncio streams with the proxy's own parser (engine.chaos.http1): per request that costs a
fraction of a general-purpose client. aiohttp keeps what a small forwarder should not re-implement: TLS to
`https://` upstreams (certificate checks, SNI, ALPN) and decoding a compressed reply that a fault rewrites
(`fetch_decoded`). Both relay the reply the same way: status and headers as the upstream sent them (hop-by-hop
headers dropped, framing re-done for this hop), body bytes unchanged and forwarded as they arrive.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from khaos_action.engine.chaos.http1 import (
    CHUNK,
    HOP_BY_HOP,
    LAST_CHUNK,
    MAX_HEAD,
    BadMessage,
    chunk,
    parse_response,
    read_chunks,
    read_head,
    serialize_head,
    status_line,
)
from khaos_action.faults.effects import FRAMING_HEADERS, Reply

# Kept from the upstream's reply: Content-Length (when the body is relayed at that length) and Content-Encoding
# (the body is relayed still encoded).
_DROP_RESPONSE = FRAMING_HEADERS - {"content-length", "content-encoding"}
_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})

Start = Callable[[int, dict[str, str]], Any]
"""Called once the upstream's status and headers are in, before any byte goes to the agent; returns the stream
observer (`feed(bytes)`, `close(exhausted)`) or None."""


class UpstreamError(Exception):
    """The upstream could not be reached or gave no readable reply head; the agent gets a 502."""


@dataclass(frozen=True, slots=True)
class Upstream:
    url: str  # without a trailing slash
    scheme: str
    host: str
    port: int
    netloc: str  # the Host header
    prefix: str  # the path every request's path is appended to

    @classmethod
    def parse(cls, url: str) -> Upstream:
        url = url.rstrip("/")
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return cls(url, parts.scheme, parts.hostname or "", port, parts.netloc.rpartition("@")[2], parts.path)

    @property
    def plain(self) -> bool:
        """Served by the proxy's own HTTP/1.1 forwarder (else by aiohttp)."""
        return self.scheme == "http"


@dataclass(slots=True)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    reused: bool = False

    def close(self) -> None:
        self.writer.close()


@dataclass
class PlainPool:
    """Idle keep-alive connections per `http://` upstream. No limit: the agents' concurrency is the limit."""

    timeout: float
    _idle: dict[tuple[str, int], list[_Connection]] = field(default_factory=dict)

    async def acquire(self, upstream: Upstream) -> _Connection:
        idle = self._idle.get((upstream.host, upstream.port))
        while idle:
            conn = idle.pop()
            if not conn.reader.at_eof() and not conn.writer.is_closing():  # the upstream may have closed it
                conn.reused = True
                return conn
            conn.close()
        try:
            async with asyncio.timeout(self.timeout):
                reader, writer = await asyncio.open_connection(upstream.host, upstream.port, limit=MAX_HEAD)
        except (OSError, TimeoutError) as exc:
            raise UpstreamError(_describe(exc, self.timeout)) from None
        return _Connection(reader, writer)

    def release(self, upstream: Upstream, conn: _Connection) -> None:
        self._idle.setdefault((upstream.host, upstream.port), []).append(conn)

    def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()


def _describe(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"TimeoutError: no answer within {timeout:g} s"
    return f"{type(exc).__name__}: {exc}"


def _client_head(status: int, reason: str, headers: list[tuple[str, str]], length: int | None,
                 http11: bool) -> tuple[bytes, str]:
    """The reply head for the agent, and how its body is framed: sized, chunked or (HTTP/1.0 agent) to the close."""
    kept = [(k, v) for k, v in headers if k.lower() not in _DROP_RESPONSE]
    if length is not None:
        mode = "sized"
    else:
        kept = [(k, v) for k, v in kept if k.lower() != "content-length"]
        mode = "chunked" if http11 else "close"
        if http11:
            kept.append(("Transfer-Encoding", "chunked"))
    return serialize_head(status_line(status, reason), kept), mode


async def relay_plain(pool: PlainPool, upstream: Upstream, method: str, target: str,
                      headers: list[tuple[str, str]], body: bytes, out: asyncio.StreamWriter, *, http11: bool,
                      start: Start) -> bool:
    """Send the request to an `http://` upstream over a pooled connection and relay the reply to `out`. Returns
    whether the agent's connection can serve another request. UpstreamError before anything was relayed."""
    conn, head = await _exchange(pool, upstream, method, _upstream_request(upstream, method, target, headers, body))
    keep = head.keep_alive
    client_head, mode = _client_head(head.status, head.start[2], head.headers, head.length, http11)
    observer = start(head.status, {k.lower(): v for k, v in head.headers})
    try:
        await _relay_body(conn.reader, head, client_head, mode, out, observer, pool.timeout)
    except BaseException:
        conn.close()
        raise
    if observer is not None:
        observer.close(True)
    if keep:
        pool.release(upstream, conn)
    else:
        conn.close()
    return mode != "close"


def _upstream_request(upstream: Upstream, method: str, target: str, headers: list[tuple[str, str]],
                      body: bytes) -> bytes:
    """The request as sent upstream: its own Host, no hop-by-hop headers, the body's length when it has one."""
    sent = [("Host", upstream.netloc), *((k, v) for k, v in headers if k.lower() not in HOP_BY_HOP and
                                         k.lower() != "host")]
    if body or method in _WITH_BODY:
        sent.append(("Content-Length", str(len(body))))
    return serialize_head(f"{method} {target} HTTP/1.1", sent) + body


async def _relay_body(reader: asyncio.StreamReader, head: Any, client_head: bytes, mode: str,
                      out: asyncio.StreamWriter, observer: Any, timeout: float) -> None:
    """The reply's head and body to the agent: a small sized body read whole and written with the head, any other
    streamed as it arrives."""
    if mode == "sized" and head.length is not None and head.length <= CHUNK:
        async with asyncio.timeout(timeout):
            data = await reader.readexactly(head.length) if head.length else b""
        out.write(client_head + data)  # one write: a separate head costs a round of syscalls per request
        if observer is not None:
            observer.feed(data)
    else:
        out.write(client_head)
        await _relay_stream(reader, head.length, head.chunked, out, mode, observer, timeout)
    await out.drain()


async def _exchange(pool: PlainPool, upstream: Upstream, method: str, request: bytes) -> tuple[_Connection, Any]:
    for attempt in range(2):
        conn = await pool.acquire(upstream)
        try:
            conn.writer.write(request)
            async with asyncio.timeout(pool.timeout):
                head = parse_response(await read_head(conn.reader, 502), method)
                while 100 <= head.status < 200:  # interim replies (103 Early Hints) are not relayed
                    if head.status == 101:
                        raise BadMessage(502, "the upstream switched protocols; the chaos proxy relays HTTP/1.1")
                    head = parse_response(await read_head(conn.reader, 502), method)
            return conn, head
        except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError) as exc:
            conn.close()
            # A kept-alive connection the upstream had already closed: nothing was read, ask again on a new one.
            if conn.reused and attempt == 0 and not getattr(exc, "partial", b""):
                continue
            raise UpstreamError("the upstream closed the connection without answering") from None
        except (OSError, TimeoutError, BadMessage) as exc:
            conn.close()
            raise UpstreamError(_describe(exc, pool.timeout)) from None
    raise AssertionError("unreachable")


async def _relay_stream(reader: asyncio.StreamReader, length: int | None, chunked: bool, out: asyncio.StreamWriter,
                        mode: str, observer: Any, timeout: float) -> None:
    """Body bytes as they arrive (server-sent events event by event); each read waits at most `timeout`."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(loop.time() + timeout) as deadline:
        pieces: Any = read_chunks(reader, 502) if chunked else _read_raw(reader, length)
        await _copy_body(pieces, out, mode, observer, lambda: deadline.reschedule(loop.time() + timeout))


async def _copy_body(pieces: Any, out: asyncio.StreamWriter, mode: str, observer: Any,
                     on_piece: Any = None) -> None:
    """Each piece of the upstream's body to the client as it arrives, re-framed for the client (`mode`), and to the
    fault's observer; `on_piece()` runs after each read (the pool's per-read deadline)."""
    async for data in pieces:
        if on_piece is not None:
            on_piece()
        if observer is not None:
            observer.feed(data)
        out.write(chunk(data) if mode == "chunked" else data)
        await out.drain()
    if mode == "chunked":
        out.write(LAST_CHUNK)


async def _read_raw(reader: asyncio.StreamReader, length: int | None) -> Any:
    remaining = length
    while remaining is None or remaining > 0:
        data = await reader.read(CHUNK if remaining is None else min(remaining, CHUNK))
        if not data:
            if remaining is None:
                return  # delimited by the connection's end
            raise asyncio.IncompleteReadError(b"", remaining)
        if remaining is not None:
            remaining -= len(data)
        yield data


# ---- aiohttp: https:// upstreams and replies a fault rewrites -------------------------------------------------------

def open_session(timeout: float, ssl: Any = None) -> Any:
    """aiohttp's client as the proxy uses it: no pool limit, no total timeout on streams that are still moving (only
    connecting and each read are bounded), never the runner's own proxy (trust_env=False), and only the agent's
    headers (no Accept/User-Agent of its own). `ssl`: an SSLContext for upstreams a private CA signs."""
    import aiohttp

    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300, ssl=True if ssl is None else ssl),
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=timeout, sock_read=timeout),
        auto_decompress=False, trust_env=False,
        skip_auto_headers=("Accept", "Accept-Encoding", "User-Agent", "Content-Type"),
    )


async def _request(session: Any, method: str, url: str, headers: list[tuple[str, str]], body: bytes,
                   decompress: bool) -> Any:
    import aiohttp
    from multidict import CIMultiDict
    from yarl import URL

    outgoing = CIMultiDict((k, v) for k, v in headers if k.lower() not in HOP_BY_HOP and k.lower() != "host")
    try:
        return await session.request(method, URL(url, encoded=True), headers=outgoing, data=body or None,
                                     allow_redirects=False, auto_decompress=decompress)
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
        raise UpstreamError(f"{type(exc).__name__}: {exc}") from None


async def fetch_decoded(session: Any, method: str, url: str, headers: list[tuple[str, str]], body: bytes) -> Reply:
    """The whole reply, content-decoded, for a fault to rewrite."""
    import aiohttp

    response = await _request(session, method, url, headers, body, decompress=True)
    try:
        content = await response.read()
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
        raise UpstreamError(f"{type(exc).__name__}: {exc}") from None
    finally:
        response.release()
    return Reply(response.status, {k.lower(): v for k, v in response.headers.items()}, content)


async def relay_aiohttp(session: Any, method: str, url: str, headers: list[tuple[str, str]], body: bytes,
                        out: asyncio.StreamWriter, *, http11: bool, start: Start) -> bool:
    """As relay_plain, through aiohttp's client (TLS upstreams)."""
    response = await _request(session, method, url, headers, body, decompress=False)
    try:
        raw = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.raw_headers]
        status = response.status
        length: int | None = None
        if method == "HEAD" or status in (204, 304):
            length = 0
        elif response.headers.get("content-length") is not None and "transfer-encoding" not in response.headers:
            length = int(response.headers["content-length"])
        client_head, mode = _client_head(status, response.reason or "", raw, length, http11)
        observer = start(status, {k.lower(): v for k, v in raw})
        out.write(client_head)
        await _copy_body(response.content.iter_any(), out, mode, observer)
        await out.drain()
        if observer is not None:
            observer.close(True)
        return mode != "close"
    finally:
        response.release()
