"""A stand-in OpenAI-compatible model on the fixed local port 18941 (stdlib, deterministic, offline).

In production this is your provider; khaos.yaml names it as `agent.llm_upstream`, and the agent reaches it only
through the chaos proxy (`OPENAI_BASE_URL: "{{ llm_proxy }}"`). Each agent process calls `ensure_running()` at
start: the first to bind the port serves it from a daemon thread, the others find it answering.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PORT = 18941
MARKER = "nimbus-example-model"


def reply_to(body: dict[str, Any]) -> dict[str, Any]:
    """The "model": a friendly reply written around the FACTS the agent sends."""
    prompt = str((body.get("messages") or [{}])[-1].get("content") or "")
    facts = prompt.split("FACTS:", 1)[-1].strip()
    text = f"Happy to help! {facts} Have a great day."
    return {"id": "chatcmpl-local", "object": "chat.completion", "created": 0, "model": body.get("model", "local"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split()),
                      "total_tokens": len(prompt.split()) + len(text.split())}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms Nagle/delayed-ACK stall

    def do_GET(self) -> None:
        self._send(200 if self.path == "/health" else 404, {"service": MARKER})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if self.path.endswith("/chat/completions"):
            self._send(200, reply_to(body))
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass  # stdout/stderr belong to the JSON-lines protocol and its diagnostics


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def ensure_running(port: int = PORT) -> None:
    """Serve the model on 127.0.0.1:`port` unless another agent process already does."""
    try:
        server = _Server(("127.0.0.1", port), _Handler)
    except OSError:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
            if json.load(answer).get("service") != MARKER:
                raise RuntimeError(f"port {port} is taken by another service; free it to run this example") from None
        return
    threading.Thread(target=server.serve_forever, daemon=True, name="model").start()
