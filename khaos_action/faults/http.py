"""Built-in HTTP faults for any outbound request (http_latency, http_error, timeout, malformed_payload,
connection_reset), and the host/path matching that LLM faults share."""

from __future__ import annotations

import fnmatch
import json
from typing import Any

from pydantic import Field, field_validator

from khaos_action import regexes
from khaos_action.faults.effects import (
    HttpEffect,
    HttpRequestView,
    Reply,
    rebuilt_headers,
)
from khaos_action.faults.registry import Fault, FaultParams, register_fault
from khaos_action.fields import RegexPattern


class HttpParams(FaultParams):
    host: str | None = None
    """Only requests to this host (glob, e.g. `*.example.com`); default any host."""
    path: RegexPattern | None = None
    """Only requests whose path matches this regular expression."""



class HttpFaultBase(Fault):
    """Base of faults on outbound requests; subclasses implement `on_request`."""

    Params = HttpParams
    params: HttpParams

    def __init__(self, id: str, params: HttpParams, rng: Any = None) -> None:
        super().__init__(id, params, rng)

    def matches_location(self, view: HttpRequestView) -> bool:
        host = self.params.host
        if host is not None and not fnmatch.fnmatchcase(view.host.lower(), host.lower()):
            return False
        return self.params.path is None or regexes.found(self.params.path, view.path)

    def applies_to(self, view: HttpRequestView, provider: str | None) -> bool:
        return self.matches_location(view)

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        raise NotImplementedError


class LatencyParams(HttpParams):
    delay_ms: float = Field(1000.0, ge=0)


@register_fault("http_latency", target="http", aliases=("latency",))
class HttpLatency(HttpFaultBase):
    Params = LatencyParams
    params: LatencyParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        return HttpEffect(delay_s=self.params.delay_ms / 1000)


class ErrorParams(HttpParams):
    status_code: int = Field(503, ge=400, le=599)
    body: Any = None
    """Response body (JSON value or text); default `{"error": "<reason phrase>"}`."""
    headers: dict[str, str] = Field(default_factory=dict)
    retry_after_s: float | None = Field(None, ge=0)

    @field_validator("headers")
    @classmethod
    def _lower(cls, value: dict[str, str]) -> dict[str, str]:
        return {k.lower(): v for k, v in value.items()}


@register_fault("http_error", target="http", aliases=("error",))
class HttpError(HttpFaultBase):
    Params = ErrorParams
    params: ErrorParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        p = self.params
        headers = dict(p.headers)
        if p.retry_after_s is not None:
            headers["retry-after"] = f"{p.retry_after_s:g}"
        if isinstance(p.body, str):
            reply = Reply(p.status_code, {"content-type": "text/plain; charset=utf-8", **headers}, p.body.encode())
        else:
            body = p.body if p.body is not None else {"error": _phrase(p.status_code)}
            reply = Reply.json_reply(p.status_code, body, headers)
        return HttpEffect(reply=reply)


def _phrase(code: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return f"HTTP {code}"


class TimeoutParams(HttpParams):
    delay_ms: float = Field(50.0, ge=0)
    """How long the call hangs before the client sees a timeout (kept short; the proxy answers 504 then)."""


@register_fault("timeout", target="http")
class HttpTimeout(HttpFaultBase):
    Params = TimeoutParams
    params: TimeoutParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        return HttpEffect(delay_s=self.params.delay_ms / 1000, error="timeout")


@register_fault("connection_reset", target="http")
class HttpConnectionReset(HttpFaultBase):
    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        return HttpEffect(error="connection_reset")


@register_fault("malformed_payload", target="http", aliases=("malformed",))
class HttpMalformedPayload(HttpFaultBase):
    """Calls upstream, then cuts the body in half (broken JSON with the real status and headers)."""

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        return HttpEffect(transform=truncate_body)


def truncate_body(reply: Reply) -> Reply | None:
    if not reply.body:
        return None
    body = reply.body[: max(1, len(reply.body) // 2)]
    try:
        json.loads(body)
    except ValueError:
        pass
    else:  # a 1-byte body can still parse ("1"); make sure it no longer does
        body += b"{"
    return Reply(reply.status, rebuilt_headers(reply.headers), body)
