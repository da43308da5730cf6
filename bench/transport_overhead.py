"""Median per-invocation overhead of the transports against no-op agents (targets: python <= 0.5 ms incl. the
engine, command <= 2 ms). Run: `python bench/transport_overhead.py [CALLS]`."""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from khaos_action.config.models import AgentConfig
from khaos_action.engine.transport.factory import build_transport
from khaos_action.engine.worker.pool import WorkerTransport
from khaos_action.messages import AgentRequest
from khaos_action.services import Services

NOOP_PY = '''
def sync_noop(text: str) -> str:
    return text


async def async_noop(text: str) -> str:
    return text
'''

NOOP_CMD = '''
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    sys.stdout.write(json.dumps({"id": message["id"], "output": message["input"]}) + "\\n")
    sys.stdout.flush()
'''


async def measure(agent: AgentConfig, base_dir: Path, calls: int, worker: bool = False) -> list[float]:
    # worker=True: what a run uses for python agents (a worker process, JSON frames over pipes); False: the
    # in-process transport the worker hosts.
    environ = dict(os.environ)
    transport = WorkerTransport(agent, base_dir=base_dir, environ=environ, concurrency=1) if worker else \
        build_transport(agent, base_dir=base_dir, services=Services(environ=environ))
    await transport.start()
    samples = []
    try:
        for i in range(calls + 50):
            message = AgentRequest("where is order 1234?", [], f"s{i}", case_id=f"c{i}")
            started = time.perf_counter()
            reply = await transport.send(message)
            if i >= 50:  # warm-up: imports, first thread, process start
                samples.append((time.perf_counter() - started) * 1000)
            assert reply.text == "where is order 1234?", reply
    finally:
        await transport.close()
    return samples


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "noop.py").write_text(textwrap.dedent(NOOP_PY))
        (base / "noop_cmd.py").write_text(textwrap.dedent(NOOP_CMD))
        cases = [
            ("python worker, sync agent", AgentConfig(type="python", entry="noop.py:sync_noop"), 0.5, True),
            ("python worker, async agent", AgentConfig(type="python", entry="noop.py:async_noop"), 0.5, True),
            ("in-worker transport, sync", AgentConfig(type="python", entry="noop.py:sync_noop"), 0.5, False),
            ("in-worker transport, async", AgentConfig(type="python", entry="noop.py:async_noop"), 0.5, False),
            ("command (JSON lines)", AgentConfig(type="command", command=f"{sys.executable} noop_cmd.py"), 2.0,
             False),
        ]
        print(f"per-invocation overhead, median of {calls} calls against a no-op agent")
        for label, agent, target, worker in cases:
            samples = asyncio.run(measure(agent, base, calls, worker))
            median = statistics.median(samples)
            p95 = statistics.quantiles(samples, n=20)[-1]
            verdict = "ok" if median <= target else "OVER TARGET"
            print(f"  {label:28s} median {median:.3f} ms  p95 {p95:.3f} ms  (target <= {target} ms: {verdict})")


if __name__ == "__main__":
    main()
