"""Engine benchmarks and their targets.

1. Harness overhead per invocation against a no-op in-process agent (python transport + engine + events.jsonl):
   target median ≤ 0.5 ms.
2. 64 cases against an agent that sleeps 100 ms, concurrency 8: target wall ≤ 1.15 × the ideal 0.8 s.

Run: python bench/engine.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from khaos_action.engine.events import EventLog
from khaos_action.engine.runner import Engine, EngineSettings
from khaos_action.engine.transport.python import PythonTransport
from khaos_action.plan.cases import Case, case_id


def agent_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="khaos-bench-"))
    (folder / "agents.py").write_text(textwrap.dedent("""
        import time

        def noop(text: str) -> str:
            return text

        async def anoop(text: str) -> str:
            return text

        def sleepy(text: str) -> str:
            time.sleep(0.1)
            return text
    """))
    return folder


async def run(entry: str, folder: Path, n: int, concurrency: int) -> tuple[float, list[float]]:
    transport = PythonTransport(entry, base_dir=folder, concurrency=concurrency)
    await transport.start()
    events = EventLog(folder / f"events-{entry.replace(':', '_')}-{n}.jsonl")
    engine = Engine(transport, settings=EngineSettings(concurrency=concurrency), events=events)
    cases = [Case(id=case_id(entry, i), phase="baseline", input=f"input {i}") for i in range(n)]
    started = time.perf_counter()
    results = await engine.run(cases)
    wall = time.perf_counter() - started
    events.close()
    await transport.close()
    return wall, [r.latency_ms for r in results]


def main() -> int:
    folder = agent_dir()
    for entry in ("agents.py:noop", "agents.py:anoop"):
        asyncio.run(run(entry, folder, 200, 1))  # warm-up: imports, thread pool
        wall, _ = asyncio.run(run(entry, folder, 5000, 1))
        per_call = wall / 5000 * 1000
        print(f"overhead {entry:<16} {per_call:.3f} ms per invocation (sequential, 5000 calls, incl. events.jsonl)"
              f"  target <= 0.5 ms")
    walls = [asyncio.run(run("agents.py:sleepy", folder, 64, 8))[0] for _ in range(3)]
    wall = statistics.median(walls)
    print(f"64 x 100 ms at concurrency 8: {wall:.3f} s wall, {wall / 0.8:.3f} x ideal 0.8 s  target <= 1.15 x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
