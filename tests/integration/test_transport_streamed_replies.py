"""Streamed replies of out-of-process agents, read as streams: an http agent answering Server-Sent Events, JSON lines
or a chunked plain-text body (a real server process on 127.0.0.1, writing its chunks with pauses), and a command
agent sending `delta` lines before it says it is done."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from khaos_action.config.models import AgentConfig
from khaos_action.engine.transport.base import AgentCallError
from khaos_action.engine.transport.factory import build_transport
from khaos_action.messages import AgentRequest, AgentResponse
from tests import shell

SERVER = r'''
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATUS = ["Flight TP1234 ", "boards at gate B12 ", "at 18:05."]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        kind = self.path.strip("/")
        if kind == "sse":
            events = [": warming up", "event: start\ndata: {\"type\": \"start\"}"]
            events += [f"data: {json.dumps({'choices': [{'delta': {'content': p}}]})}" for p in STATUS]
            events += ["data: [DONE]"]
            self.stream("text/event-stream", [e + "\n\n" for e in events])
        elif kind == "ndjson":
            self.stream("application/x-ndjson", [json.dumps({"text": p}) + "\n" for p in STATUS])
        elif kind == "plain":
            self.stream("text/plain; charset=utf-8", STATUS)
        else:  # events whose text is under a key nobody reads
            self.stream("text/event-stream", [f"data: {json.dumps({'token': p})}\n\n" for p in STATUS])

    def stream(self, content_type, pieces):
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for piece in pieces:
            data = piece.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
            time.sleep(0.02)
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
'''

COMMAND = r'''
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    rid = request["id"]
    if "unreadable" in request["input"]:
        print(json.dumps({"id": rid, "delta": {"token": "x"}}), flush=True)
        print(json.dumps({"id": rid, "done": True}), flush=True)
        continue
    print("thinking...", flush=True)
    for piece in ["Sev-2: ", "page the ", "database on-call."]:
        print(json.dumps({"id": rid, "delta": piece}), flush=True)
    if "final" in request["input"]:
        print(json.dumps({"id": rid, "output": "Sev-2 confirmed."}), flush=True)
    else:
        print(json.dumps({"id": rid, "done": True}), flush=True)
'''


def _invoke(text: str) -> AgentRequest:
    return AgentRequest(text, [], "s-1", case_id="case-1")


async def _send(config: AgentConfig, base: Path, *texts: str) -> list[AgentResponse | str]:
    transport = build_transport(config, base_dir=base, services=shell.services())
    await transport.start()
    out: list[AgentResponse | str] = []
    try:
        for text in texts:
            try:
                out.append(await transport.send(_invoke(text)))
            except AgentCallError as exc:
                out.append(str(exc))
    finally:
        await transport.close()
    return out


@pytest.mark.parametrize("path, note", [
    ("sse", "agent streamed its reply (text/event-stream): 4 event(s) joined"),
    ("ndjson", "agent streamed its reply (application/x-ndjson): 3 event(s) joined"),
])
def test_an_http_agents_streamed_events_are_joined(tmp_path: Path, path: str, note: str) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    config = AgentConfig(type="http", url=f"http://127.0.0.1:{{{{port}}}}/{path}",
                         start=f"{sys.executable} server.py {{{{port}}}}")
    [reply] = asyncio.run(_send(config, tmp_path, "Is TP1234 on time?"))
    assert reply.text == "Flight TP1234 boards at gate B12 at 18:05."
    assert reply.notes == [note]


def test_an_http_agents_chunked_plain_text_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    config = AgentConfig(type="http", url="http://127.0.0.1:{{port}}/plain",
                         start=f"{sys.executable} server.py {{{{port}}}}")
    [reply] = asyncio.run(_send(config, tmp_path, "Is TP1234 on time?"))
    assert reply.text == "Flight TP1234 boards at gate B12 at 18:05."


def test_events_nobody_can_read_are_an_error_and_response_path_reads_them(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    start = f"{sys.executable} server.py {{{{port}}}}"
    config = AgentConfig(type="http", url="http://127.0.0.1:{{port}}/tokens", start=start)
    [error] = asyncio.run(_send(config, tmp_path, "Is TP1234 on time?"))
    assert "none had text" in error and "agent.response_path" in error
    config = AgentConfig(type="http", url="http://127.0.0.1:{{port}}/tokens", start=start, response_path="token")
    [reply] = asyncio.run(_send(config, tmp_path, "Is TP1234 on time?"))
    assert reply.text == "Flight TP1234 boards at gate B12 at 18:05."


def test_a_command_agents_delta_lines_are_its_reply(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(COMMAND, encoding="utf-8")
    config = AgentConfig(type="command", command=f"{sys.executable} agent.py")
    streamed, final, unreadable = asyncio.run(
        _send(config, tmp_path, "db latency alert", "db latency alert, final", "unreadable"))
    assert streamed.text == "Sev-2: page the database on-call."
    assert "agent streamed its reply: 3 delta line(s) joined" in streamed.notes
    assert final.text == "Sev-2 confirmed."  # an `output` line is the reply, whatever streamed before
    assert "delta of type dict with no text" in unreadable
