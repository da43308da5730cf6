"""Median overhead per request of the chaos proxy versus calling the upstream directly (target: <= 2 ms).
Run: `python bench/chaos_proxy.py [REQUESTS]`.

The upstream is a uvicorn server on 127.0.0.1 answering a chat-completion-sized JSON body; the proxy runs in its
own event loop thread, as it does beside the engine. Direct and proxied requests are interleaved (keep-alive
clients both), once with no case bound and once with a bound case whose faults do not apply.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import statistics
import sys
import threading
import time

import httpx
import uvicorn

from khaos_action.engine.chaos.plan import bind_faults
from khaos_action.engine.chaos.proxy import ChaosProxy
from khaos_action.engine.context import CaseContext

BODY = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "word " * 150}, "finish_reason": "stop"}]}).encode()


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]})
    await send({"type": "http.response.body", "body": BODY})


def serve() -> tuple[str, uvicorn.Server]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY on accepted sockets
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, interface="asgi3", lifespan="off", log_config=None,
                                           access_log=False))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server


def main(requests: int) -> None:
    upstream, server = serve()
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    proxy = ChaosProxy()
    asyncio.run_coroutine_threadsafe(proxy.start(), loop).result(10)
    proxied = proxy.url_for(upstream + "/v1")
    rng = random.Random(1)
    ctx = CaseContext("bench", rng, faults=bind_faults([{"target": "tool", "mode": "error"},
                                                        {"target": "http", "mode": "http_error",
                                                         "host": "api.example.com"}], rng))
    payload = {"model": "m", "messages": [{"role": "user", "content": "hello " * 50}]}
    samples: dict[str, list[float]] = {"direct": [], "proxied, no case": [], "proxied, case bound": []}
    with httpx.Client() as client:
        for _ in range(50):
            client.post(upstream + "/v1/chat/completions", json=payload)
            client.post(proxied + "/chat/completions", json=payload)
        for _ in range(requests):
            start = time.perf_counter()
            client.post(upstream + "/v1/chat/completions", json=payload)
            samples["direct"].append(time.perf_counter() - start)
            proxy.bind(0, None)
            start = time.perf_counter()
            response = client.post(proxied + "/chat/completions", json=payload)
            samples["proxied, no case"].append(time.perf_counter() - start)
            proxy.bind(0, ctx)
            start = time.perf_counter()
            client.post(proxied + "/chat/completions", json=payload)
            samples["proxied, case bound"].append(time.perf_counter() - start)
    assert response.content == BODY and not ctx.hits
    base = statistics.median(samples["direct"])
    print(f"chat-completion POSTs to 127.0.0.1 ({len(BODY)} B replies), {requests} per mode, interleaved")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"  {name:22s} median {median * 1000:7.3f} ms   overhead {(median - base) * 1000:+7.3f} ms")
    print("target: overhead <= 2 ms median per proxied request")
    asyncio.run_coroutine_threadsafe(proxy.stop(), loop).result(10)
    server.should_exit = True


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
