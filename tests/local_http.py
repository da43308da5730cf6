"""Small real HTTP servers for the tests: a `BaseHTTPRequestHandler` subclass served from a thread on 127.0.0.1 on a
free port (`serving`), with the reading and answering most stand-ins do (`Handler`), and the OpenAI-compatible chat
completion several of them answer with (`chat_completion`). A stand-in with more to say (SSE, several endpoints, the
GitHub REST API) has its own module: tests/integration/test_llm_fakes.py, tests/github_api.py."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Handler(BaseHTTPRequestHandler):
    """Quiet (no access log on stderr), with the request body read and a JSON answer written in one call each."""

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def json_body(self) -> Any:
        return json.loads(self.body() or b"{}")

    def send_json(self, status: int, payload: Any) -> None:
        """`payload` as JSON, or as it is when it is already bytes (a test's malformed answer)."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return None


@dataclass
class Served:
    server: ThreadingHTTPServer

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[Served]:
    """`handler` served on 127.0.0.1 (a free port) until the block ends; the server is shut down and closed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield Served(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def chat_completion(content: str, *, model: str = "gpt-4o-mini", usage: tuple[int, int] | None = (20, 20),
                    **message: Any) -> dict[str, Any]:
    """An OpenAI chat completion whose one choice says `content` (`message`: more keys, such as tool_calls)."""
    reply: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": content, **message}}]}
    if usage is not None:
        reply["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    return reply
