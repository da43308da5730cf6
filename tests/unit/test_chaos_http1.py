"""The chaos proxy's HTTP/1.1 parser: what it accepts, and how it refuses what two parties could read differently."""

from __future__ import annotations

import pytest

from khaos_action.engine.chaos.http1 import BadMessage, parse_request, parse_response


def test_a_request_head_gives_method_target_headers_and_framing():
    head = parse_request(b"POST /i/0/u1/v1/chat?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n"
                         b"X-Trace:  abc \r\nExpect: 100-continue")
    assert (head.method, head.target, head.length, head.chunked) == ("POST", "/i/0/u1/v1/chat?x=1", 12, False)
    assert head.headers == [("Host", "a"), ("Content-Length", "12"), ("X-Trace", "abc"), ("Expect", "100-continue")]
    assert head.keep_alive and head.expect_continue
    chunked = parse_request(b"PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close")
    assert chunked.chunked and chunked.length is None and not chunked.keep_alive
    assert not parse_request(b"GET / HTTP/1.0").keep_alive
    assert parse_request(b"GET / HTTP/1.0\r\nConnection: keep-alive").keep_alive
    assert parse_request(b"GET / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 5").length == 5


@pytest.mark.parametrize(("raw", "status", "says"), [
    (b"GET /", 400, "request line"),
    (b"GET  / HTTP/1.1", 400, "request line"),
    (b"GET / HTTP/2.0", 400, "request line"),
    (b"G{T / HTTP/1.1", 400, "request line"),
    (b"GET /a\x01b HTTP/1.1", 400, "request line"),
    (b"", 400, "request line"),
    (b"GET / HTTP/1.1\r\nHost a", 400, "header line"),
    (b"GET / HTTP/1.1\r\nHost : a", 400, "header line"),
    (b"GET / HTTP/1.1\r\nX-A: 1\r\n folded", 400, "header line"),
    (b"GET / HTTP/1.1\r\nX-A: 1\x00", 400, "control character"),
    (b"POST / HTTP/1.1\r\nContent-Length: -1", 400, "Content-Length"),
    (b"POST / HTTP/1.1\r\nContent-Length: 1x", 400, "Content-Length"),
    (b"POST / HTTP/1.1\r\nContent-Length: 1, 1", 400, "Content-Length"),
    (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2", 400, "conflicting"),
    (b"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked", 400, "both"),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked", 501, "Transfer-Encoding"),
])
def test_a_malformed_or_ambiguous_request_is_refused_with_a_status(raw: bytes, status: int, says: str):
    with pytest.raises(BadMessage, match=says) as refused:
        parse_request(raw)
    assert refused.value.status == status


def test_a_response_is_framed_by_length_chunks_or_the_connections_end():
    sized = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 3", "GET")
    assert (sized.status, sized.length, sized.chunked, sized.keep_alive) == (200, 3, False, True)
    chunked = parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3", "GET")
    assert chunked.chunked and chunked.length is None  # Transfer-Encoding wins (RFC 9112 section 6.3)
    to_close = parse_response(b"HTTP/1.0 200 OK", "GET")
    assert to_close.length is None and not to_close.chunked and not to_close.keep_alive
    assert parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 9", "HEAD").length == 0
    assert parse_response(b"HTTP/1.1 204 No Content", "GET").length == 0
    assert parse_response(b"HTTP/1.1 200", "GET").start == ("HTTP/1.1", "200", "")
    for bad in (b"HTTP/1.1 2000 OK", b"ICY 200 OK", b"HTTP/1.1 abc", b"HTTP/1.1 200 OK\r\nContent-Length: x"):
        with pytest.raises(BadMessage) as refused:
            parse_response(bad, "GET")
        assert refused.value.status == 502
