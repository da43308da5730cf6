"""Nimbus Outdoor's support agent as an HTTP service: `POST /chat {"message"} -> {"output"}`, `GET /health`.

Started by khaos-action (`python server.py --port {{port}}`, two instances). Its dependencies are reached through
URLs from the environment, as a twelve-factor service would: `ORDERS_API_URL` (the orders API) and
`OPENAI_BASE_URL` (an OpenAI-compatible model). khaos.yaml points both at the chaos proxy. Every dependency failure
degrades to an honest answer: the orders API failing → "can't check right now"; the model failing → the facts
the agent already has, unpolished.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import backend
import httpx

ORDERS_API_URL = os.environ.get("ORDERS_API_URL", f"http://127.0.0.1:{backend.PORT}").rstrip("/")
OPENAI_BASE_URL = os.environ.get("OPENAI_BASE_URL", f"http://127.0.0.1:{backend.PORT}/v1").rstrip("/")
FAQ = {
    "return": "You can return any unused item within 30 days of delivery.",
    "ship": "We ship to the US, Canada and the EU; standard delivery takes 3-7 business days.",
    "warranty": "Tents and backpacks carry a 2-year warranty covering manufacturing defects.",
}
_ORDER_ID = re.compile(r"\b(\d{4})\b")
_client = httpx.Client(timeout=1.0)  # short: a slow dependency must not hold the customer for long


def answer(message: str) -> str:
    return polish(facts_for(message))


def facts_for(message: str) -> str:
    """What the agent knows for this message, from the orders API or the FAQ."""
    order = _ORDER_ID.search(message)
    if order:
        return order_facts(order.group(1))
    for topic, text in FAQ.items():
        if topic in message.lower():
            return text
    return "I can help with order status, returns, shipping and warranty; what is your 4-digit order number?"


def order_facts(order_id: str) -> str:
    try:
        response = _client.get(f"{ORDERS_API_URL}/orders/{order_id}")
        if response.status_code == 404:
            return f"I couldn't find order {order_id}; could you double-check the number?"
        response.raise_for_status()
        order = response.json()
        status = order["status"]
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return (f"I'm sorry, our order system is not responding right now, so I can't check order {order_id}. "
                "Please try again in a few minutes.")
    line = f"Order {order_id} is {status}"
    if order.get("carrier"):
        line += f" with {order['carrier']} (tracking {order['tracking']})"
    return line + (f", expected {order['eta']}." if order.get("eta") else ".")


def polish(facts: str) -> str:
    """Have the model write the reply; on any model failure, send the facts themselves."""
    body = {"model": "support-writer", "messages": [
        {"role": "system", "content": "Write a short, friendly support reply using only the FACTS."},
        {"role": "user", "content": f"FACTS: {facts}"}]}
    for attempt in range(2):
        try:
            response = _client.post(f"{OPENAI_BASE_URL}/chat/completions", json=body)
        except httpx.HTTPError:
            return facts
        if response.status_code == 429 and attempt == 0:
            time.sleep(min(float(response.headers.get("retry-after", "0") or 0), 0.2))
            continue
        try:
            choice = response.json()["choices"][0]
            text = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return facts
        if response.status_code != 200 or choice.get("finish_reason") != "stop" or not str(text).strip():
            return facts
        return str(text)
    return facts


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        if self.path == "/health":
            self._send(200, {"ok": True})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/chat":
            self._send(404, {"error": "not found"})
            return
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
            message = str(request["message"])
        except (ValueError, KeyError):
            self._send(400, {"error": 'send {"message": "..."}'})
            return
        self._send(200, {"output": answer(message)})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    port = parser.parse_args().port
    backend.ensure_running()
    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    server.daemon_threads = True
    print(f"nimbus support agent on http://127.0.0.1:{port}/chat", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
