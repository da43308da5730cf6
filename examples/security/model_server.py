"""A stand-in LLM API on 127.0.0.1: OpenAI `POST /v1/chat/completions`, answered by the obedient or robust policy.

The agents talk to it with the real `openai` SDK over real HTTP, so khaos-action sees their LLM calls exactly as it
sees calls to a hosted model: it intercepts them, plants `memory` payloads in the conversation and
`mcp_tool_description` payloads in the tool definitions. `model` picks the policy: "obedient" or "robust".
Served by a stdlib threading server (no extra dependency); `serve()` starts one per process, on a free port.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import obedient
import robust
from conversation import parse_request

POLICIES = {"obedient": obedient.respond, "robust": robust.respond}
_ids = itertools.count(1)
_server: _Server | None = None
_lock = threading.Lock()


def complete(body: dict[str, Any]) -> dict[str, Any]:
    """One chat completion in the OpenAI response shape."""
    model = str(body.get("model", "robust"))
    if model not in POLICIES:
        raise LookupError(f"model {model!r} is not served here; use one of {sorted(POLICIES)}")
    policy = POLICIES[model]
    answer = policy(parse_request(body))
    message: dict[str, Any] = {"role": "assistant", "content": answer.get("content")}
    finish = "stop"
    if answer.get("tool_calls"):
        message["tool_calls"] = [
            {"id": f"call_{next(_ids)}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
            for name, args in answer["tool_calls"]]
        message["content"] = None
        finish = "tool_calls"
    return {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: Nagle + delayed ACK would add 40 ms

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                raise LookupError(f"no route {self.path}")
            status, reply = 200, complete(body)
        except LookupError as exc:
            status, reply = 404, {"error": {"message": str(exc), "type": "invalid_request_error"}}
        except Exception as exc:  # noqa: BLE001 - a stand-in server answers every request
            status, reply = 500, {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "server_error"}}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 resets connections when many cases start at once


def serve() -> str:
    """Start the server once per process (daemon thread) and return its base URL, e.g. http://127.0.0.1:PORT/v1."""
    global _server
    with _lock:
        if _server is None:
            _server = _Server(("127.0.0.1", 0), _Handler)
            threading.Thread(target=_server.serve_forever, name="stand-in-llm", daemon=True).start()
        return f"http://127.0.0.1:{_server.server_address[1]}/v1"
