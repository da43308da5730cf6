"""An offline stand-in for an OpenAI-compatible chat model, served on 127.0.0.1 from a daemon thread.

It "polishes" the draft it is given, deterministically. It exists so the demo agent makes real HTTP calls to a
model, which is what lets khaos-action's LLM faults (429, 503, truncation...) reach it without a key or a network.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_lock = threading.Lock()
_url: str | None = None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops concurrent connects, which then retry after a full second


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        prompt = body.get("messages", [{}])[-1].get("content", "")
        draft = prompt.split("DRAFT:", 1)[-1].strip()
        reply = {
            "id": "chatcmpl-demo", "object": "chat.completion", "model": body.get("model", "demo-model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": draft}}],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(draft.split()),
                      "total_tokens": len(prompt.split()) + len(draft.split())},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def model_url() -> str:
    """Start the stand-in once per process and return its base URL."""
    global _url
    with _lock:
        if _url is None:
            server = _Server(("127.0.0.1", 0), _Handler)
            threading.Thread(target=server.serve_forever, daemon=True, name="demo-model").start()
            _url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        return _url
