"""Ports for agent servers we start (`start: ... {{port}}`): chosen so that nothing else takes them before the agent
binds them, and a clash is retried rather than failing the run.

Binding port 0 hands out an *ephemeral* port, the same range the kernel uses for the local end of outgoing
connections; with `instances: 64` our own client connections (and the chaos proxy's) grabbed ports chosen for
agents before they bound them ("Address already in use", 3 runs in 12). So ports come from below the ephemeral
range, are test-bound all at once (distinct), and released only when the agents are about to start; a server that
still reports EADDRINUSE is restarted on a fresh port (http.py).
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

FALLBACK_RANGE = (32768, 60999)
LOWEST = 10_000
BIND_RETRIES = 3
"""Launch attempts for a server that exits saying its port is in use."""
IN_USE_WORDS = ("address already in use", "eaddrinuse", "errno 98", "errno 48", "port is already")


def ephemeral_range(path: Path = Path("/proc/sys/net/ipv4/ip_local_port_range")) -> tuple[int, int]:
    try:
        low, high = (int(part) for part in path.read_text().split())
        return low, high
    except (OSError, ValueError):
        return FALLBACK_RANGE


def reserve_ports(count: int, *, rng: random.Random | None = None, host: str = "127.0.0.1") -> list[int]:
    """`count` distinct ports free right now, outside the ephemeral range when there is room below it."""
    rng = rng or random.Random()
    low, _ = ephemeral_range()
    held: list[socket.socket] = []
    ports: list[int] = []
    try:
        attempts = 0
        while len(ports) < count and low - LOWEST > 1000 and attempts < count * 50:
            attempts += 1
            port = rng.randrange(LOWEST, low)
            if port in ports:
                continue
            sock = _try_bind(host, port)
            if sock is not None:
                held.append(sock)
                ports.append(port)
        while len(ports) < count:  # no room below the ephemeral range: the kernel's choice, still held distinct
            sock = _try_bind(host, 0)
            if sock is None:
                raise OSError("no free TCP port on 127.0.0.1")
            held.append(sock)
            ports.append(sock.getsockname()[1])
    finally:
        for sock in held:
            sock.close()
    return ports


def _try_bind(host: str, port: int) -> socket.socket | None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        return None
    return sock


def says_port_in_use(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in IN_USE_WORDS)
