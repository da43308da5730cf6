"""The backstop under the HTTP interceptions (intercept.py patches it): `socket.getaddrinfo`, through which every
Python client resolves a host name before it connects (`socket.create_connection`: http.client, smtplib, ftplib;
urllib3 and the rest), and asyncio's `loop.getaddrinfo` (`asyncio.open_connection` and every asyncio client) refuse,
during an attack case, to resolve a host the attack names, and record the attempt on the case (egress.py). So a
client no interception knows cannot reach the attacker's host, and a lookup that carries the data in the name
(`<canary>.hooks.example`) is seen: it never reaches the resolver.

httpx, requests, aiohttp and urllib answer such requests before they resolve anything (with the request's path and
body as evidence); what reaches this is everything else, recorded with the host alone (`method` "DNS", `via`
"socket"). A socket connected to an address without a name, `socket.connect((name, port))` (it resolves in C), and
a resolver outside Python (libcurl's, a subprocess's) are not seen (docs/sandbox.md).
"""

from __future__ import annotations

import socket
from typing import Any

from khaos_action.engine.chaos.egress import is_contained, record
from khaos_action.engine.context import case_now

CLIENT = "socket"


def patched_getaddrinfo(original: Any) -> Any:
    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        refuse(host, port)
        return original(host, port, *args, **kwargs)

    getaddrinfo.__wrapped__ = original  # type: ignore[attr-defined]
    return getaddrinfo


def patched_loop_getaddrinfo(original: Any) -> Any:
    """asyncio's `loop.getaddrinfo`: it runs `socket.getaddrinfo` on an executor thread, which does not carry the
    case's context, so the name is checked here, in the task's."""

    async def getaddrinfo(self: Any, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        refuse(host, port)
        return await original(self, host, port, *args, **kwargs)

    getaddrinfo.__wrapped__ = original  # type: ignore[attr-defined]
    return getaddrinfo


def refuse(host: Any, port: Any) -> None:
    """Raise `socket.gaierror` for a host the current attack case contains, the attempt recorded on the case."""
    ctx = case_now()
    if ctx is None or not ctx.contain or not host:
        return
    name = host.decode("idna", "replace") if isinstance(host, (bytes, bytearray)) else str(host)
    if is_contained(ctx.contain, name, _port(port)):
        record(ctx, host=name, method="DNS", path="", body=b"", via=CLIENT)
        raise socket.gaierror(socket.EAI_NONAME, f"Name or service not known: {name} (an attack's host, "
                                                 "contained by khaos-action)")


def _port(port: Any) -> int | None:
    if isinstance(port, int):
        return port
    text = port.decode() if isinstance(port, (bytes, bytearray)) else str(port or "")
    return int(text) if text.isdigit() else None
