"""Added cost per httpx call of the in-process interception when no fault applies (target: <= 0.2 ms).
Run: `python bench/interception.py [CALLS]`.

Calls go to a real uvicorn server on 127.0.0.1 through a keep-alive httpx.Client. The three modes are interleaved
call by call so drift in the machine's load hits all of them equally; the figure is the difference of medians.
The per-call decision work (the part interception adds) is also timed alone, without the network.
"""

from __future__ import annotations

import random
import socket
import statistics
import sys
import threading
import time

import httpx
import uvicorn

from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.intercept_httpx import _decide
from khaos_action.engine.chaos.plan import activate, bind_faults
from khaos_action.engine.context import CaseContext


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")]})
    await send({"type": "http.response.body", "body": b'{"ok": true}'[:11]})


def serve() -> tuple[str, uvicorn.Server]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY on accepted sockets
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, interface="asgi3", lifespan="off", log_config=None,
                                           access_log=False))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server


def main(calls: int) -> None:
    url, server = serve()
    rng = random.Random(1)
    # Faults that do not apply to this call: a tool fault, an LLM fault (not an LLM route), an http fault elsewhere.
    ctx = CaseContext("bench", rng, faults=bind_faults([
        {"target": "tool", "mode": "error", "tool": "lookup"},
        {"target": "llm", "mode": "rate_limit"},
        {"target": "http", "mode": "http_error", "host": "api.example.com"},
    ], rng))
    samples: dict[str, list[float]] = {"plain": [], "intercepted, no case": [], "intercepted, case with faults": []}
    with httpx.Client() as client:
        for _ in range(50):
            client.post(url + "/api/items", json={"q": 1})
        for _ in range(calls):
            start = time.perf_counter()
            client.post(url + "/api/items", json={"q": 1})
            samples["plain"].append(time.perf_counter() - start)
            with http_interception():
                start = time.perf_counter()
                client.post(url + "/api/items", json={"q": 1})
                samples["intercepted, no case"].append(time.perf_counter() - start)
                with activate(ctx):
                    start = time.perf_counter()
                    client.post(url + "/api/items", json={"q": 1})
                    samples["intercepted, case with faults"].append(time.perf_counter() - start)
    assert not ctx.hits, "no fault should have applied"
    base = statistics.median(samples["plain"])
    print(f"httpx calls to 127.0.0.1, {calls} per mode, interleaved")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"  {name:32s} median {median * 1000:7.3f} ms   added {(median - base) * 1000:+7.3f} ms")
    request = httpx.Request("POST", url + "/api/items", json={"q": 1})
    with activate(ctx):
        start = time.perf_counter()
        for _ in range(calls * 10):
            _decide(request)
        decision_ms = (time.perf_counter() - start) / (calls * 10) * 1000
    print(f"  decision work alone (case active, no fault applies): {decision_ms * 1000:.1f} µs per call")
    print("target: added <= 0.2 ms per call")
    server.should_exit = True


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
