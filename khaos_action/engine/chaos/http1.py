"""HTTP/1.1 on the wire for the chaos proxy: request and response heads parsed strictly, bodies framed by
Content-Length, chunked coding or the connection's end, and heads serialised.

Why by hand: the proxy only moves bytes between an agent and its upstream on loopback, and a parser
that does no more than that costs less per request than a general server and client. It is strict where a lenient
reading would let two parties disagree about where a message ends (request smuggling): one Content-Length of
digits, no Content-Length beside Transfer-Encoding, no obsolete line folding, CRLF line ends, bounded heads.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from http import HTTPStatus

MAX_HEAD = 64 * 1024
"""Request line (status line) and headers together; a longer head is answered 431 (the upstream's: 502)."""
MAX_BODY = 64 * 1024 * 1024
"""A request body the proxy holds in memory (faults and the cassette read it whole); a larger one is 413."""
CHUNK = 64 * 1024

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_TARGET = re.compile(r"[\x21-\x7e]+")
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_DIGITS = re.compile(r"[0-9]{1,18}")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")
# Hop-by-hop headers (RFC 9110 §7.6.1) and framing: each hop sets its own.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
                        "upgrade", "content-length", "expect"})


class BadMessage(Exception):
    """A message the proxy cannot read: `status` is what the agent is answered (the connection is then closed)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class Head:
    """One parsed head. `length` None with `chunked` False: a request without a body, or a response delimited by the
    connection's end."""

    start: tuple[str, str, str]  # request: method, target, version; response: version, status, reason
    headers: list[tuple[str, str]]
    length: int | None
    chunked: bool
    keep_alive: bool
    expect_continue: bool = False

    @property
    def method(self) -> str:
        return self.start[0]

    @property
    def target(self) -> str:
        return self.start[1]

    @property
    def status(self) -> int:
        return int(self.start[1])


def _fields(lines: list[str], status: int) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Header lines → (name, value) pairs in order, and the framing-relevant ones by lower-case name."""
    headers: list[tuple[str, str]] = []
    framing: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.partition(":")
        if not sep or not _TOKEN.fullmatch(name):  # also a line folded onto the previous one (starts with SP/HT)
            raise BadMessage(status, f"malformed header line {line[:80]!r}")
        value = value.strip(" \t")
        if _BAD_VALUE.search(value):
            raise BadMessage(status, f"control character in header {name!r}")
        headers.append((name, value))
        lower = name.lower()
        if lower in ("content-length", "transfer-encoding", "connection", "expect"):
            _frame(framing, lower, value, status)
    return headers, framing


def _frame(framing: dict[str, str], lower: str, value: str, status: int) -> None:
    """A framing header's value: repeated ones joined (a list), a second Content-Length only when equal."""
    if lower not in framing:
        framing[lower] = value
    elif lower != "content-length":
        framing[lower] = f"{framing[lower]}, {value}"
    elif framing[lower] != value:
        raise BadMessage(status, "conflicting Content-Length headers")


def _length(framing: dict[str, str], status: int) -> int | None:
    value = framing.get("content-length")
    if value is None:
        return None
    if not _DIGITS.fullmatch(value):
        raise BadMessage(status, f"bad Content-Length {value[:40]!r}")
    return int(value)


def _codings(framing: dict[str, str]) -> list[str]:
    return [c.strip().lower() for c in framing.get("transfer-encoding", "").split(",") if c.strip()]


def parse_request(raw: bytes) -> Head:
    """A request head without its final CRLF CRLF. Raises BadMessage (400, or 501 for a transfer coding the proxy
    does not know)."""
    lines = raw.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or not _TARGET.fullmatch(parts[1]) \
            or parts[2] not in ("HTTP/1.1", "HTTP/1.0"):
        raise BadMessage(400, f"malformed request line {lines[0][:80]!r}")
    headers, framing = _fields(lines[1:], 400)
    length = _length(framing, 400)
    codings = _codings(framing)
    if codings:
        if length is not None:
            raise BadMessage(400, "both Content-Length and Transfer-Encoding")
        if codings != ["chunked"]:
            raise BadMessage(501, f"unsupported Transfer-Encoding {framing['transfer-encoding'][:40]!r}")
    connection = framing.get("connection", "").lower()
    keep_alive = "close" not in connection if parts[2] == "HTTP/1.1" else "keep-alive" in connection
    return Head((parts[0], parts[1], parts[2]), headers, length, bool(codings), keep_alive,
                expect_continue=framing.get("expect", "").lower() == "100-continue")


def parse_response(raw: bytes, method: str) -> Head:
    """An upstream's response head (no final CRLF CRLF) to a request of `method`. Raises BadMessage(502)."""
    lines = raw.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    code, _, reason = rest.partition(" ")
    if version not in ("HTTP/1.1", "HTTP/1.0") or len(code) != 3 or not code.isdigit() or code[0] == "0":
        raise BadMessage(502, f"the upstream sent a malformed status line {lines[0][:80]!r}")
    headers, framing = _fields(lines[1:], 502)
    connection = framing.get("connection", "").lower()
    keep_alive = "close" not in connection if version == "HTTP/1.1" else "keep-alive" in connection
    status = int(code)
    if method == "HEAD" or status in (204, 304) or status < 200:
        return Head((version, code, reason), headers, 0, False, keep_alive)
    return Head((version, code, reason), headers, *_body_framing(framing, keep_alive))


def _body_framing(framing: dict[str, str], keep_alive: bool) -> tuple[int | None, bool, bool]:
    """(length, chunked, keep-alive) of a response with a body: chunked, read to the close, or of a length."""
    codings = _codings(framing)
    if codings and codings[-1] == "chunked":  # Transfer-Encoding overrides Content-Length (RFC 9112 §6.3)
        return None, True, keep_alive and codings == ["chunked"]
    if codings:
        return None, False, False
    length = _length(framing, 502)
    if length is None:
        return None, False, False
    return length, False, keep_alive


async def read_head(reader: asyncio.StreamReader, status: int) -> bytes:
    """Up to the blank line ending a head (the StreamReader's limit is MAX_HEAD). IncompleteReadError: the peer
    closed first."""
    try:
        return (await reader.readuntil(b"\r\n\r\n"))[:-4]
    except asyncio.LimitOverrunError:
        raise BadMessage(status, f"head larger than {MAX_HEAD // 1024} KiB") from None


async def read_request_head(reader: asyncio.StreamReader) -> bytes:
    """A request head, like `read_head`, but read line by line: a line that ends in a bare LF (the request line or
    a header field's) is a 400 at once, as a strict HTTP/1.1 server answers it, instead of a wait for a CRLF CRLF
    that such a client never sends (until MAX_HEAD or its close). A read per line comes from the buffer: cheap."""
    lines: list[bytes] = []
    size = 0
    try:
        while True:
            line = await reader.readuntil(b"\n")
            size += len(line)
            if size > MAX_HEAD:
                raise BadMessage(431, f"head larger than {MAX_HEAD // 1024} KiB")
            if line == b"\r\n":
                if lines:
                    return b"".join(lines)[:-2]
                continue  # an empty line before the request line is ignored (RFC 9112, section 2.2)
            if line[-2:-1] != b"\r":
                what = "header line" if lines else "request line"
                raise BadMessage(400, f"{what} {line[:80].decode('latin-1')!r} ends in a bare LF, not CRLF")
            lines.append(line)
    except asyncio.LimitOverrunError:
        raise BadMessage(431, f"head larger than {MAX_HEAD // 1024} KiB") from None


async def read_chunks(reader: asyncio.StreamReader, status: int) -> AsyncIterator[bytes]:
    """The data of a chunked body, chunk by chunk (trailers are read and dropped)."""
    while True:
        try:
            line = await reader.readuntil(b"\r\n")
        except asyncio.LimitOverrunError:
            raise BadMessage(status, "chunk-size line too long") from None
        size = line[:-2].split(b";", 1)[0].strip(b" \t")
        if not _HEX.fullmatch(size):
            raise BadMessage(status, f"bad chunk size {size[:20]!r}")
        remaining = int(size, 16)
        if remaining == 0:
            while (await read_line(reader, status)) != b"":
                pass  # trailer fields
            return
        while remaining:
            data = await reader.read(min(remaining, CHUNK))
            if not data:
                raise asyncio.IncompleteReadError(b"", remaining)
            remaining -= len(data)
            yield data
        if await reader.readexactly(2) != b"\r\n":
            raise BadMessage(status, "chunk data not followed by CRLF")


async def read_line(reader: asyncio.StreamReader, status: int) -> bytes:
    try:
        return (await reader.readuntil(b"\r\n"))[:-2]
    except asyncio.LimitOverrunError:
        raise BadMessage(status, "trailer line too long") from None


async def read_request_body(reader: asyncio.StreamReader, head: Head) -> bytes:
    """The whole request body (IncompleteReadError when the agent leaves mid-body)."""
    if head.chunked:
        parts: list[bytes] = []
        size = 0
        async for data in read_chunks(reader, 400):
            size += len(data)
            if size > MAX_BODY:
                raise BadMessage(413, f"request body larger than {MAX_BODY // 2**20} MiB")
            parts.append(data)
        return b"".join(parts)
    if not head.length:
        return b""
    if head.length > MAX_BODY:
        raise BadMessage(413, f"request body larger than {MAX_BODY // 2**20} MiB")
    return await reader.readexactly(head.length)


def serialize_head(first_line: str, headers: list[tuple[str, str]]) -> bytes:
    return (first_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n").encode("latin-1")


def status_line(status: int, reason: str | None = None) -> str:
    if reason is None:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = ""
    return f"HTTP/1.1 {status} {reason}"


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%b\r\n" % (len(data), data)


LAST_CHUNK = b"0\r\n\r\n"
