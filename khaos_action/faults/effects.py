"""What a fault sees (a tool call, an outbound request) and what it asks for instead, independent of the client.

Faults return effects; the tool wrappers (sync or async), the httpx / requests interceptors and the chaos proxy
each carry them out in their own terms. That keeps one decision path and no sync/async twins of the fault logic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

NO_RESULT: Any = object()
"""Sentinel: the fault does not replace the tool's result (the real tool runs)."""


@dataclass
class ToolInvocation:
    name: str
    args: dict[str, Any]

    @cached_property
    def args_json(self) -> str:
        """The arguments as canonical JSON, the text a `match` pattern searches."""
        return json.dumps(self.args, sort_keys=True, default=str)


@dataclass
class ToolEffect:
    """How one tool call is answered. Order: wait `delay_s`; raise `error`, or return `result`, or call the tool
    and pass its result through `transform`."""

    delay_s: float = 0.0
    error: BaseException | None = None
    result: Any = NO_RESULT
    transform: Callable[[Any], Any] | None = None


@dataclass
class HttpRequestView:
    """An outbound request as faults see it (built from httpx, requests or the proxy's ASGI scope)."""

    method: str
    url: str
    host: str
    path: str
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes = b""

    @cached_property
    def json(self) -> Any:
        """The body parsed as JSON, or None when it is not JSON."""
        if not self.body:
            return None
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            return None


@dataclass
class Reply:
    """An HTTP response body in client-neutral form (decoded content, no content-encoding)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @classmethod
    def json_reply(cls, status: int, payload: Any, headers: dict[str, str] | None = None) -> Reply:
        merged = {"content-type": "application/json", **(headers or {})}
        return cls(status, merged, json.dumps(payload).encode())

    @property
    def is_event_stream(self) -> bool:
        return self.headers.get("content-type", "").startswith("text/event-stream")


@dataclass
class HttpEffect:
    """How one outbound request is answered. Order: wait `delay_s`; raise `error`; answer `reply` without calling
    upstream; or call upstream and pass the reply through `transform` (None from it = not applicable, no hit)."""

    delay_s: float = 0.0
    error: Literal["timeout", "connection_reset"] | None = None
    reply: Reply | None = None
    transform: Callable[[Reply], Reply | None] | None = None


# Hop-by-hop and framing headers: never copied from a decoded body onto a rebuilt response.
FRAMING_HEADERS = frozenset({
    "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive",
    "proxy-connection", "te", "trailer", "upgrade",
})


def rebuilt_headers(headers: dict[str, str]) -> dict[str, str]:
    """Headers to send with a rebuilt (decoded, possibly resized) body."""
    return {k: v for k, v in headers.items() if k.lower() not in FRAMING_HEADERS}
