"""Stand-ins for the agent's two upstream services, on one fixed local port: an OpenAI-compatible chat model
(`/v1/chat/completions`) and the shop's orders API (`/orders/<id>`). Deterministic and offline.

In production these are api.openai.com and an internal API. khaos.yaml names this port as the upstream
(`agent.llm_upstream`, `proxy('http://127.0.0.1:18931')`), and the agent reaches it only through the chaos proxy.
Each agent instance calls `ensure_running()` at start: the first one to bind the port serves it from a daemon
thread, the others find it answering. (A fixed port is what makes the upstream nameable in khaos.yaml.)
"""

from __future__ import annotations

import json
import re
import socket
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PORT = 18931
MARKER = "nimbus-example-backend"
ORDERS = {
    "1234": {"status": "shipped", "carrier": "DHL", "tracking": "DH48213377", "eta": "Thursday"},
    "5678": {"status": "processing", "carrier": None, "tracking": None, "eta": "next week"},
    "9012": {"status": "delivered", "carrier": "UPS", "tracking": "1Z999AA10123456784", "eta": None},
}


def write_answer(body: dict[str, Any]) -> str:
    """The "model": turns the FACTS the agent sends into a friendly reply (deterministic)."""
    prompt = str((body.get("messages") or [{}])[-1].get("content") or "")
    facts = prompt.split("FACTS:", 1)[-1].strip()
    return f"Thanks for reaching out! {facts} Is there anything else I can help you with?"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms Nagle/delayed-ACK stall

    def do_GET(self) -> None:
        order = re.fullmatch(r"/orders/(\w+)", self.path)
        if self.path == "/health":
            self._send(200, {"service": MARKER})
        elif order and order.group(1) in ORDERS:
            self._send(200, {"order_id": order.group(1), **ORDERS[order.group(1)]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        text = write_answer(body)
        self._send(200, {"id": "chatcmpl-local", "object": "chat.completion", "model": body.get("model", "local"),
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": text}}]})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def ensure_running(port: int = PORT) -> None:
    """Serve the backend on 127.0.0.1:`port` unless another agent instance already does."""
    try:
        server = _Server(("127.0.0.1", port), _Handler)
    except OSError:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
            if json.load(answer).get("service") != MARKER:
                raise RuntimeError(f"port {port} is taken by another service; free it to run this example") from None
        return
    threading.Thread(target=server.serve_forever, daemon=True, name="backend").start()
