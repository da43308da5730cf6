"""A real HTTP server for tests: an ASGI app served by uvicorn from a thread on 127.0.0.1.

Subclasses implement `handle(scope, body, send)`; the body is read whole. The socket is created with IPPROTO_TCP so
asyncio sets TCP_NODELAY on it (a plain socket costs every response ~40 ms of Nagle delay).
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


class AsgiServer:
    name = "test server"

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.app, lifespan="off", log_config=None, access_log=False, interface="asgi3")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self):
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline, f"{self.name} did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await self.handle(scope, body, send)

    async def handle(self, scope: dict[str, Any], body: bytes, send: Any) -> None:
        raise NotImplementedError
