"""A tiny, deterministic OpenAI-compatible chat-completions server on 127.0.0.1 (stdlib only), started by the agent.

It behaves like a tool-calling model: for a customer question it answers with a `tool_calls` message
(`lookup_order` / `search_docs`), and once the tool results are in the conversation it writes the answer from them.
Serving it over real HTTP is the point: the `openai` SDK sends real requests, so khaos-action's LLM faults (429,
503, truncated completions...) reach the SDK through its in-process HTTP interception.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOPICS = ("return", "refund", "ship", "warranty")
_ORDER_ID = re.compile(r"\b(\d{4})\b")
_lock = threading.Lock()
_url: str | None = None


def complete(body: dict[str, Any]) -> dict[str, Any]:
    """One chat completion for a request body (the model's whole behaviour, as a pure function)."""
    messages = body.get("messages") or [{}]
    last = messages[-1]
    if last.get("role") == "tool":
        calls = {c["id"]: c["function"] for m in messages if m.get("role") == "assistant"
                 for c in m.get("tool_calls") or []}
        results = []
        for message in reversed(messages):
            if message.get("role") != "tool":
                break
            results.insert(0, message)
        text = " ".join(answer(calls.get(m.get("tool_call_id"), {}), m.get("content") or "") for m in results)
        return _completion(body, {"role": "assistant", "content": text}, "stop")
    question = str(last.get("content") or "")
    order = _ORDER_ID.search(question)
    topic = next((t for t in TOPICS if t in question.lower()), None)
    if order or topic:
        name, args = ("lookup_order", {"order_id": order.group(1)}) if order else ("search_docs", {"query": topic})
        call = {"id": f"call_{name}_{len(messages)}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}
        return _completion(body, {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    return _completion(body, {"role": "assistant", "content": "I can help with order status, returns, refunds, "
                              "shipping and warranty. What is your 4-digit order number?"}, "stop")


def answer(function: dict[str, Any], content: str) -> str:
    try:
        args = json.loads(function.get("arguments") or "{}")
        result = json.loads(content)
    except ValueError:
        args, result = {}, content
    if function.get("name") == "lookup_order":
        order_id = args.get("order_id", "")
        if isinstance(result, dict) and "error" in result:
            if "not found" in str(result["error"]):
                return f"I couldn't find order {order_id}. Could you double-check the order number?"
            return (f"I'm sorry, our order system is not responding right now, so I can't check order {order_id}. "
                    "Please try again in a few minutes.")
        if not isinstance(result, dict) or "status" not in result:
            return f"I'm sorry, I got an unreadable answer from our order system for order {order_id}."
        line = f"Your order {order_id} is {result['status']}"
        if result.get("carrier"):
            line += f" with {result['carrier']} (tracking {result['tracking']})"
        if result.get("eta"):
            line += f", expected {result['eta']}"
        return line + "."
    topic = args.get("query", "that")
    if not isinstance(result, str) or not result.strip():
        return f"I'm sorry, I can't reach our help centre right now. For {topic} questions, see nimbus.example/help."
    return f"Here is our {topic} policy: {result.strip().split('. ')[0].rstrip('.')}."


def _completion(body: dict[str, Any], message: dict[str, Any], finish: str) -> dict[str, Any]:
    prompt = sum(len(str(m.get("content") or "").split()) for m in body.get("messages") or [])
    completion = len(str(message.get("content") or "").split())
    return {"id": "chatcmpl-local", "object": "chat.completion", "created": 0,
            "model": body.get("model", "local-support-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops concurrent connects, which then retry after a full second


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the SDK reuses its pooled connection

    def setup(self) -> None:
        super().setup()
        # Without TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to every small response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        self._send(200, complete(body))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def serve(port: int = 0) -> ThreadingHTTPServer:
    """Start a server on 127.0.0.1:`port` (0: any free port) in a daemon thread."""
    server = _Server(("127.0.0.1", port), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True, name="local-chat-model").start()
    return server


def base_url() -> str:
    """Start the server once per process and return its OpenAI base URL."""
    global _url
    with _lock:
        if _url is None:
            _url = f"http://127.0.0.1:{serve().server_address[1]}/v1"
        return _url

