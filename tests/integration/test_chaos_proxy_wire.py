"""The chaos proxy's own HTTP/1.1 forwarder on the wire: raw sockets on 127.0.0.1 on both sides, so malformed
input, odd framing and failing upstreams can be sent exactly; and the split between it (http:// upstreams) and
aiohttp's client (https:// upstreams)."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import random
import socket
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from khaos_action.engine.chaos.plan import bind_faults, fault_hits
from khaos_action.engine.chaos.proxy import ChaosProxy
from khaos_action.engine.context import CaseContext

Script = Callable[[bytes, bytes, asyncio.StreamWriter], Awaitable[bool]]


class RawUpstream:
    """An HTTP/1.1 server whose replies the test writes byte for byte. `script(head, body, writer)` answers one
    request and returns whether to keep the connection; `requests` and `connections` count what arrived."""

    def __init__(self, script: Script, tls: ssl.SSLContext | None = None) -> None:
        self.script = script
        self.tls = tls
        self.requests: list[tuple[bytes, bytes]] = []
        self.connections = 0

    async def __aenter__(self) -> RawUpstream:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n"))[:-4]
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")[1:]
                               if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length)
                self.requests.append((head, body))
                if not await self.script(head, body, writer):
                    break
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def ok(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
    reply = b"seen " + head.split(b" ")[1] + b" " + body
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%b" % (len(reply), reply))
    return True


async def exchange(port: int, data: bytes, *, until_close: bool = True) -> bytes:
    """Send raw bytes to the proxy and read what comes back (to EOF, or one reply head plus its sized body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    try:
        if until_close:
            return await asyncio.wait_for(reader.read(-1), 10)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        return head + await reader.readexactly(length)
    finally:
        writer.close()


def port_of(proxy: ChaosProxy) -> int:
    return int(proxy.base_url.rsplit(":", 1)[1])


def path_of(proxy: ChaosProxy, upstream: str, instance: int = 0) -> str:
    return proxy.url_for(upstream, instance)[len(proxy.base_url):]


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 30))


def test_malformed_requests_are_refused_and_closed_and_never_reach_the_upstream():
    async def body():
        async with RawUpstream(ok) as upstream:
            proxy = ChaosProxy()
            await proxy.start()
            try:
                port, path = port_of(proxy), path_of(proxy, upstream.url).encode()
                answers = [await exchange(port, raw) for raw in (
                    b"GET " + path + b"/x HTTP/1.1 extra\r\n\r\n",
                    b"GET " + path + b"/x HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n",
                    b"POST " + path + b"/x HTTP/1.1\r\nContent-Length: ten\r\n\r\n0123456789",
                    b"POST " + path + b"/x HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                    b"POST " + path + b"/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                )]
                # An agent that leaves in the middle of its body: nothing is forwarded, the proxy carries on.
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(b"POST " + path + b"/cut HTTP/1.1\r\nContent-Length: 1000\r\n\r\n0123456789")
                await writer.drain()
                writer.close()
                await asyncio.sleep(0.1)
                after = await exchange(port, b"GET " + path + b"/after HTTP/1.1\r\nConnection: close\r\n\r\n")
            finally:
                await proxy.stop()
            return answers, after, [head.split(b" ")[1] for head, _ in upstream.requests]

    answers, after, seen = run(body)
    assert [a.split(b" ")[1] for a in answers] == [b"400", b"431", b"400", b"400", b"400"]
    assert all(b"connection: close" in a and a.endswith(b"}") for a in answers)  # answered, then closed
    assert b"malformed request line" in answers[0] and b"64 KiB" in answers[1] and b"Content-Length" in answers[2]
    assert b"chunk size" in answers[4]
    assert after.startswith(b"HTTP/1.1 200 OK\r\n") and after.endswith(b"seen /after ")
    assert seen == [b"/after"]


def test_a_request_or_header_line_ending_in_a_bare_lf_is_answered_400_at_once():
    """A strict HTTP/1.1 server refuses a bare-LF line end at once, in the request line or a header field's;
    waiting for CRLF CRLF would hold the client's connection until 64 KiB or its close. The client here keeps its
    socket open and waits for the answer. An empty line before the request line is ignored (RFC 9112, 2.2)."""
    def ask(port: int, raw: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(raw)
            answer = b""
            while chunk := sock.recv(65536):  # the proxy answers and closes; a timeout here is the bug
                answer += chunk
            return answer

    async def body():
        async with RawUpstream(ok) as upstream:
            proxy = ChaosProxy()
            await proxy.start()
            try:
                port, path = port_of(proxy), path_of(proxy, upstream.url).encode()
                bare = await asyncio.to_thread(ask, port, b"GET " + path + b"/x HTTP/1.1\nHost: a\n\n")
                lone = await asyncio.to_thread(ask, port, b"GET " + path + b"/y HTTP/1.1\n")
                header = await asyncio.to_thread(ask, port, b"GET " + path + b"/w HTTP/1.1\r\nHost: a\nX: b\n\n")
                # a request without header fields still reads as one (the line, then CRLF at once)
                plain = await asyncio.to_thread(ask, port, b"GET " + path + b"/z HTTP/1.0\r\n\r\n")
                led = await asyncio.to_thread(ask, port, b"\r\nGET " + path + b"/v HTTP/1.0\r\nHost: a\r\n\r\n")
            finally:
                await proxy.stop()
            return bare, lone, header, plain, led, [head.split(b" ")[1] for head, _ in upstream.requests]

    bare, lone, header, plain, led, seen = run(body)
    for answer in (bare, lone, header):
        assert answer.startswith(b"HTTP/1.1 400 ") and b"connection: close" in answer, answer
        assert b"ends in a bare LF" in answer
    assert b"request line 'GET " in bare and b"header line 'Host: a" in header
    assert plain.startswith(b"HTTP/1.1 200 OK\r\n") and plain.endswith(b"seen /z ")
    assert led.startswith(b"HTTP/1.1 200 OK\r\n") and led.endswith(b"seen /v ")
    assert seen == [b"/z", b"/v"]


async def chunked_echo(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 999\r\nTransfer-Encoding: chunked\r\nX-Kept: yes\r\n\r\n")
    for at in range(0, len(body), 700_000):
        piece = body[at:at + 700_000]
        writer.write(b"%x; ext=1\r\n%b\r\n" % (len(piece), piece))
        await writer.drain()
    writer.write(b"0\r\nX-Trailer: dropped\r\n\r\n")
    return True


def test_chunked_and_large_bodies_pass_intact_both_ways():
    payload = bytes(range(256)) * 12_000  # 3 MB

    async def body():
        async with RawUpstream(chunked_echo) as upstream:
            proxy = ChaosProxy()
            await proxy.start()
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port_of(proxy))
                writer.write(b"POST " + path_of(proxy, upstream.url).encode() + b"/echo HTTP/1.1\r\n"
                             b"Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
                await writer.drain()
                interim = await reader.readuntil(b"\r\n\r\n")  # the agent may now send its body
                for at in range(0, len(payload), 1_000_000):
                    piece = payload[at:at + 1_000_000]
                    writer.write(b"%x\r\n%b\r\n" % (len(piece), piece))
                writer.write(b"0\r\n\r\n")
                head = await reader.readuntil(b"\r\n\r\n")
                received = bytearray()
                while True:  # de-chunk what the proxy relays
                    size = int((await reader.readuntil(b"\r\n"))[:-2], 16)
                    if size == 0:
                        await reader.readexactly(2)
                        break
                    received += await reader.readexactly(size)
                    await reader.readexactly(2)
                writer.close()
            finally:
                await proxy.stop()
            return interim, head, bytes(received), upstream.requests

    interim, head, received, requests = run(body)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"X-Kept: yes" in head
    assert b"Transfer-Encoding: chunked" in head and b"999" not in head  # framing re-done for this hop
    assert received == payload
    sent_head, sent_body = requests[0]
    assert sent_body == payload and b"Content-Length: %d" % len(payload) in sent_head
    assert b"chunked" not in sent_head.lower() and b"expect" not in sent_head.lower()


def test_keep_alive_pipelining_and_an_upstream_that_closes_idle_connections():
    async def close_after_reply(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        await ok(head, body, writer)
        return b"/last" not in head  # then closes without saying so (an idle timeout on a kept-alive connection)

    async def body():
        async with RawUpstream(close_after_reply) as upstream:
            proxy = ChaosProxy()
            await proxy.start()
            try:
                path = path_of(proxy, upstream.url).encode()
                # Three pipelined requests in one write: three replies, in order, over one upstream connection.
                reader, writer = await asyncio.open_connection("127.0.0.1", port_of(proxy))
                writer.write(b"".join(b"POST " + path + b"/%d HTTP/1.1\r\nContent-Length: 1\r\n\r\n%d" % (i, i)
                                      for i in range(3)))
                replies = [await reader.readuntil(b"seen /%d %d" % (i, i)) for i in range(3)]
                pooled = upstream.connections
                writer.write(b"GET " + path + b"/last HTTP/1.1\r\n\r\n")
                await reader.readuntil(b"seen /last ")
                await asyncio.sleep(0.1)  # the upstream has closed that connection by now
                writer.write(b"GET " + path + b"/again HTTP/1.1\r\nConnection: close\r\n\r\n")
                again = await asyncio.wait_for(reader.read(-1), 10)
                writer.close()
            finally:
                await proxy.stop()
            return replies, pooled, again, upstream.connections

    replies, pooled, again, connections = run(body)
    assert all(r.startswith(b"HTTP/1.1 200 OK\r\n") for r in replies) and pooled == 1
    assert again.startswith(b"HTTP/1.1 200 OK\r\n") and again.endswith(b"seen /again ") and connections == 2


def test_upstream_failures_are_answered_502_and_a_cut_reply_is_cut_for_the_agent():
    async def misbehave(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        path = head.split(b" ")[1]
        if path.endswith(b"/silent-close"):
            return False
        if path.endswith(b"/hang"):
            await asyncio.sleep(5)
        if path.endswith(b"/garbage"):
            writer.write(b"HTTP/1.1 abc\r\n\r\n")
        if path.endswith(b"/cut"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 10)
            await writer.drain()
            return False
        return await ok(head, body, writer)

    async def body():
        closed = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        refused = f"http://127.0.0.1:{closed.sockets[0].getsockname()[1]}"
        closed.close()
        await closed.wait_closed()
        async with RawUpstream(misbehave) as upstream:
            proxy = ChaosProxy(upstream_timeout_s=0.3)
            await proxy.start()
            try:
                port, path = port_of(proxy), path_of(proxy, upstream.url).encode()
                answers = {}
                for name, target in (("refused", path_of(proxy, refused).encode() + b"/x"),
                                     ("silent-close", path + b"/silent-close"), ("hang", path + b"/hang"),
                                     ("garbage", path + b"/garbage")):
                    answers[name] = await exchange(port, b"GET " + target + b" HTTP/1.1\r\n\r\n", until_close=False)
                answers["cut"] = await exchange(port, b"GET " + path + b"/cut HTTP/1.1\r\n\r\n")
                answers["fine"] = await exchange(port, b"GET " + path + b"/fine HTTP/1.1\r\n\r\n", until_close=False)
            finally:
                await proxy.stop()
            return answers

    answers = run(body)
    for name, says in (("refused", b"ConnectionRefusedError"), ("silent-close", b"without answering"),
                       ("hang", b"TimeoutError: no answer within 0.3 s"), ("garbage", b"malformed status line")):
        assert answers[name].startswith(b"HTTP/1.1 502 Bad Gateway\r\n") and says in answers[name], name
    assert answers["cut"].startswith(b"HTTP/1.1 200 OK\r\n") and answers["cut"].endswith(b"\r\n\r\nxxxxxxxxxx")
    assert answers["fine"].endswith(b"seen /fine ")


def tls_pair(tmp_path: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A self-signed certificate for 127.0.0.1: the upstream's context and a client context that trusts it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "khaos test upstream")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert_file, key_file)
    return server, ssl.create_default_context(cafile=str(cert_file))


def test_https_upstreams_go_through_aiohttp_and_http_upstreams_never_do(tmp_path: Path):
    server_tls, client_tls = tls_pair(tmp_path)
    down_ctx = CaseContext(case_id="c", rng=random.Random(1), faults=bind_faults(
        [{"id": "down", "target": "http", "mode": "http_error", "status_code": 503, "probability": 1.0}]))

    async def body():
        async with RawUpstream(ok) as plain, RawUpstream(ok, tls=server_tls) as secure:
            proxy = ChaosProxy(ssl=client_tls)
            untrusting = ChaosProxy()  # the system's trust store does not know the test's certificate
            await proxy.start()
            await untrusting.start()
            try:
                port = port_of(proxy)
                via_plain = await exchange(port, b"GET " + path_of(proxy, plain.url).encode() + b"/p HTTP/1.1\r\n\r\n",
                                           until_close=False)
                aiohttp_after_plain = proxy._session is not None
                via_tls = await exchange(port, b"POST " + path_of(proxy, secure.url).encode() +
                                         b"/s?q=1 HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi", until_close=False)
                proxy.bind(3, down_ctx)
                faulted = await exchange(port, b"GET " + path_of(proxy, secure.url, 3).encode() +
                                         b"/f HTTP/1.1\r\n\r\n", until_close=False)
                refused = await exchange(port_of(untrusting), b"GET " + path_of(untrusting, secure.url).encode() +
                                         b"/s HTTP/1.1\r\n\r\n", until_close=False)
                aiohttp_after_tls = proxy._session is not None
            finally:
                await proxy.stop()
                await untrusting.stop()
            return via_plain, aiohttp_after_plain, via_tls, faulted, refused, aiohttp_after_tls, secure.requests

    via_plain, aiohttp_after_plain, via_tls, faulted, refused, aiohttp_after_tls, secure_seen = run(body)
    assert via_plain.endswith(b"seen /p ") and not aiohttp_after_plain
    assert via_tls.startswith(b"HTTP/1.1 200 OK\r\n") and via_tls.endswith(b"seen /s?q=1 hi") and aiohttp_after_tls
    assert faulted.startswith(b"HTTP/1.1 503 ") and fault_hits(down_ctx) == {"down": 1}
    assert refused.startswith(b"HTTP/1.1 502 ") and b"certificate" in refused.lower()
    assert len(secure_seen) == 1  # the faulted request never left the proxy


@pytest.mark.parametrize("version", ["HTTP/1.0", "HTTP/1.1"])
def test_a_reply_without_length_is_chunked_for_http11_agents_and_ends_with_the_connection_for_http10(version: str):
    async def until_close(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\ndata: 2\n\n")
        return False

    async def body():
        async with RawUpstream(until_close) as upstream:
            proxy = ChaosProxy()
            await proxy.start()
            try:
                return await exchange(port_of(proxy), f"GET {path_of(proxy, upstream.url)}/s {version}\r\n"
                                                      "Connection: close\r\n\r\n".encode())
            finally:
                await proxy.stop()

    reply = run(body)
    if version == "HTTP/1.1":
        assert b"Transfer-Encoding: chunked" in reply and reply.endswith(b"12\r\ndata: 1\n\ndata: 2\n\n\r\n0\r\n\r\n")
    else:
        assert b"Transfer-Encoding" not in reply and reply.endswith(b"\r\n\r\ndata: 1\n\ndata: 2\n\n")
