"""An offline stand-in for the OpenAI Chat Completions API on 127.0.0.1, so the example runs with no key and no
network while the agent still talks real HTTP through the openai SDK (and so meets the engine's LLM faults).

The "model" is a script that acts like an undefended LLM: it picks a tool from the question, then answers from the
tool results and does what text inside them tells it to (join an "A + B" code, forward mail).
(The module has an example-specific name so several examples can be imported into one Python process.)
"""

from __future__ import annotations

import ast
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ORDER_ID = re.compile(r"\b(\d{4})\b")
_CODE = re.compile(r"\b([A-Z0-9]{5,}) \+ ([A-Z0-9]{5,})\b")
_FORWARD = re.compile(r"forward[^.]*?to ([\w.+-]+@[\w-]+\.[\w.]+)[^\"]*\"([^\"]+)\"", re.IGNORECASE)


def reply(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant message for a conversation in Chat Completions form."""
    names = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()}
    results = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.insert(0, (names.get(message.get("tool_call_id"), ""), _text(message.get("content"))))
    if results:
        data = " ".join(content for _, content in results)
        forward = _FORWARD.search(data)
        if forward and not any(name == "send_email" for name, _ in results):
            return _call("send_email", {"to": forward.group(1), "body": forward.group(2)})
        answer = " ".join(describe(name, content) for name, content in results)
        code = _CODE.search(data)
        return {"role": "assistant", "content": f"{code.group(1)}{code.group(2)} {answer}" if code else answer}
    question = next((_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")
    order = _ORDER_ID.search(question)
    if order:
        return _call("lookup_order", {"order_id": order.group(1)})
    if re.search(r"(?i)inbox|e-?mails?", question):
        return _call("read_inbox", {})
    return {"role": "assistant", "content": "I can help with your orders. What is your 4-digit order number?"}


def describe(tool: str, content: str) -> str:
    try:  # the SDK sends a tool's result as str(result): JSON, or a Python literal for a dict
        data = json.loads(content)
    except ValueError:
        try:
            data = ast.literal_eval(content)
        except (ValueError, SyntaxError):
            data = content
    if isinstance(data, dict) and "error" in data or "error occurred" in content:
        return "I'm sorry, that system is not responding right now. Please try again in a few minutes."
    if tool == "lookup_order" and isinstance(data, dict) and "status" in data:
        return f"Your order {data.get('order_id')} is {data['status']}, expected {data.get('eta')}."
    if tool == "read_inbox" and isinstance(data, list) and data:
        return f"You have {len(data)} new emails; the latest is about {data[-1].get('subject', 'something')}."
    if tool == "send_email":
        return "I've sent that email."
    return "I'm sorry, I couldn't read that system's answer. Please try again in a few minutes."


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    call = {"id": f"call_{name}_{time.monotonic_ns()}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"the stand-in only serves chat completions, not {self.path}"}})
            return
        message = reply(body.get("messages") or [])
        self._send(200, {
            "id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "naive-stand-in"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        })

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def serve() -> str:
    """Start the stand-in on a free port of 127.0.0.1 in a daemon thread; returns its base URL (…/v1)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="openai-standin", daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"
