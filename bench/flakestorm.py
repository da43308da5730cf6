"""Side by side with flakestorm: the same behavioral contract against the same 100 ms Python agent.

The contract: 3 invariants (contains, latency, regex) × 2 chaos-matrix scenarios without faults × 4 golden prompts.
Both tools load the same `agent.py`, which appends a line to a file per call, so "agent calls" is counted at the
agent, not taken from either tool's report. Each tool runs as its CLI would in CI (`khaos-action contract run`,
`flakestorm contract run`), fresh processes, rounds interleaved; wall time includes interpreter start-up, CPU time
(user + system) counts every process each tool waited for (our worker zygote and workers too).

flakestorm is not a dependency: point FLAKESTORM at its `flakestorm` script (e.g. in a separate venv:
`python -m venv /tmp/fs && /tmp/fs/bin/pip install flakestorm`). Target: ≤ 0.2 × flakestorm's wall time with the
same or fewer agent calls.

`--baseline DIR` also runs the khaos-action of another checkout (e.g. a worktree of main), interleaved: an A/B of fixed
costs on a shared machine.

Run: `FLAKESTORM=/tmp/fs/bin/flakestorm python bench/flakestorm.py [--rounds 3] [--baseline DIR]`
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROMPTS = ["Where is my order 1234?", "Can I return my shoes?", "When does order 77 arrive?", "Cancel order 5"]

AGENT = '''
import asyncio, os

async def handle(text: str) -> str:
    await asyncio.sleep(0.1)
    with open(os.environ["AGENT_CALLS"], "a") as calls:
        calls.write("1\\n")
    return "Your order is on its way and ships Monday."
'''

INVARIANTS = [
    {"id": "mentions-order", "type": "contains", "value": "order", "severity": "high"},
    {"id": "fast", "type": "latency", "max_ms": 2000, "severity": "medium"},
    {"id": "no-tracking", "type": "regex", "pattern": "ships", "severity": "critical"},
]


def flow(items: list[dict]) -> str:
    return "\n".join("    - {" + ", ".join(f"{k}: {v!r}" for k, v in item.items()) + "}" for item in items)


def write_project(folder: Path) -> None:
    (folder / "agent.py").write_text(AGENT)
    prompts = "\n".join(f"  - {p!r}" for p in PROMPTS)
    (folder / "khaos.yaml").write_text(f"""version: 1
agent: {{name: bench, type: python, entry: "agent.py:handle"}}
concurrency: 8
golden_prompts:
{prompts}
contract:
  invariants:
{flow(INVARIANTS)}
chaos_matrix:
  - {{name: calm}}
  - {{name: calm-again}}
""")
    (folder / "flakestorm.yaml").write_text(f"""version: '2.0'
agent: {{endpoint: "agent:handle", type: python}}
golden_prompts:
{prompts}
invariants:  # flakestorm requires top-level invariants even when only the contract runs
{flow([{k: v for k, v in i.items() if k not in ("id", "severity")} for i in INVARIANTS])}
contract:
  name: bench
  invariants:
{flow(INVARIANTS)}
  chaos_matrix:
    - {{name: calm}}
    - {{name: calm-again}}
output: {{format: json, path: ./fs-reports}}
""")


def run(argv: list[str], folder: Path, env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall time, CPU time (user + system of the tool and every process it waited for: our worker zygote and
    workers included), agent calls, and the output's tail when the run failed."""
    calls = folder / "calls.txt"
    calls.write_text("")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=folder, env={**env, "AGENT_CALLS": str(calls)}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    made = len(calls.read_text().splitlines())
    tail = "" if proc.returncode in (0, 1) and made else (proc.stdout + proc.stderr)[-1500:]
    return wall, cpu, made, tail


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout's khaos-action to run too")
    args = parser.parse_args()
    flakestorm = os.environ.get("FLAKESTORM") or shutil.which("flakestorm")
    root = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp(prefix="khaos-vs-flakestorm-"))
    write_project(folder)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(folder)])}
    khaos = [sys.executable, "-m", "khaos_action.cli", "contract", "run", "--out", str(folder / "out"), "--force"]
    tools = {"khaos-action contract run": khaos}
    envs = {"khaos-action contract run": env}
    if args.baseline is not None:
        name = f"baseline ({args.baseline.name})"
        tools[name] = khaos
        envs[name] = {**env, "PYTHONPATH": os.pathsep.join([str(args.baseline.resolve()), str(folder)])}
    if flakestorm:
        tools["flakestorm contract run"] = [flakestorm, "contract", "run", "-c", "flakestorm.yaml"]
    else:
        print("flakestorm not found (set FLAKESTORM): measuring khaos-action alone")
    print(f"3 invariants × 2 scenarios × {len(PROMPTS)} prompts, 100 ms async agent, {args.rounds} rounds; "
          f"load average {os.getloadavg()[0]:.2f} at start")
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in tools}
    for _ in range(args.rounds):
        for name, argv in tools.items():
            wall, cpu, calls, error = run(argv, folder, envs.get(name, env))
            if error:
                raise SystemExit(f"{name} failed:\n{error}")
            results[name].append((wall, cpu, calls))
    for name, runs in results.items():
        walls = [w for w, _, _ in runs]
        print(f"  {name:28s} wall {statistics.median(walls):6.2f} s ({min(walls):.2f}–{max(walls):.2f})  "
              f"cpu {statistics.median(c for _, c, _ in runs):5.2f} s  agent calls {sorted({n for _, _, n in runs})}")
    if flakestorm:
        ratios = [k[0] / f[0] for k, f in zip(results["khaos-action contract run"],
                                              results["flakestorm contract run"], strict=True)]
        print(f"  khaos-action / flakestorm wall: {statistics.median(ratios):.2f} × ({min(ratios):.2f}–"
              f"{max(ratios):.2f})   target ≤ 0.2 ×, same or fewer calls")
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
