"""A run at scale: N cases × a 5 ms async agent at concurrency 32, contract of 3 invariants × 1 scenario.

Each repetition is a fresh `python` process that runs `khaos_action.evaluate.evaluate` with every report format and
reports its wall time, CPU time (user+sys; the agent's worker processes apart: on Linux the bench is their subreaper,
so workers their zygote did not reap are counted too), peak RSS and the time of each
phase; the parent prints the median and range over the repetitions beside the ideal (N × 5 ms / 32) and the
machine's load average.

Phases (measured by wrapping the stages `evaluate` calls; no timing code lives in the product), each with its wall
time and the CPU time of the run's own process (the workers' CPU is only known once the zygote has reaped them):
  startup   interpreter start and `import khaos_action.evaluate`
  config    config and packs loaded and checked (the config stage)
  execute   `Engine.run`: every case sent to the agent (the part with an ideal)
  judge     the rest of the async run: planning, judging, warnings (everything in `asyncio.run` but `Engine.run`)
  manifest  scores and the manifest model
  reports   manifest.json, report.md, junit.xml, results.sarif, report.html

Targets at 50k cases: execute ≤ 1.15 × ideal, whole run ≤ 14 s, peak RSS ≤ 400 MiB, reports ≤ 2 s.
Also times `compare` and `merge` (2 shards) on the 50k-case manifests the runs wrote (targets ≤ 2 s each).

Run: `python bench/scale.py [--cases 50000] [--repeat 3] [--agent-ms 5] [--concurrency 32] [--no-compare]`
`--manifests FOLDER` skips the runs and times `compare` and `merge` on the manifests an earlier run left in FOLDER
(it prints its folder), to work on those two alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = '''
import asyncio

async def handle(text: str) -> str:
    await asyncio.sleep({delay})
    return "Your order " + text[-6:] + " shipped on Monday; tracking is in your account."
'''

CONFIG_HEAD = """version: 1
agent: {{name: scale, type: python, entry: "agent.py:handle", timeout_s: 30}}
concurrency: {concurrency}
contract:
  invariants:
    - {{id: answers, type: output_not_empty, severity: critical}}
    - {{id: no-fake-tracking, type: excludes_pattern, pattern: "\\\\b1Z[0-9A-Z]{{8,}}", severity: critical}}
    - {{id: mentions-order, type: contains, value: "order", severity: medium}}
chaos_matrix:
  - {{name: no-chaos}}
golden_prompts:
"""

CHILD = r'''
import asyncio, json, os, resource, sys, time
t0 = time.perf_counter()
import khaos_action.evaluate as evaluate
import khaos_action.pipeline.config as config_stage
import khaos_action.pipeline.manifest as manifest_stage
from khaos_action.engine.runner import Engine
from khaos_action.run_api import EvaluateRequest
from khaos_action.services import Services
phases = {"startup": time.perf_counter() - t0 + float(sys.argv[3])}

cpu = {}

def cpu_now():
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system

def add(name, wall, cpu0):
    phases[name] = phases.get(name, 0.0) + time.perf_counter() - wall
    own, workers = cpu_now()
    mine, theirs = cpu.get(name, (0.0, 0.0))
    cpu[name] = (mine + own - cpu0[0], theirs + workers - cpu0[1])

def timed(name, fn):
    def wrapper(*args, **kwargs):
        start, cpu0 = time.perf_counter(), cpu_now()
        try:
            return fn(*args, **kwargs)
        finally:
            add(name, start, cpu0)
    return wrapper

engine_run = Engine.run
running = []  # the runs in flight and when the first began: runs overlap (the state probe beside the plan), and
              # execute is the time any of them ran, not the sum of theirs
async def run(self, cases):
    if not running:
        opened = (time.perf_counter(), cpu_now())
    else:
        opened = running[0]
    running.append(opened)
    try:
        return await engine_run(self, cases)
    finally:
        running.pop()
        if not running:
            add("execute", *opened)
Engine.run = run
config_stage.load_run = timed("config", config_stage.load_run)
manifest_stage.build_manifest = timed("manifest", manifest_stage.build_manifest)
evaluate.write_reports = timed("reports", evaluate.write_reports)
evaluate.run_async = timed("async", evaluate.run_async)
result = evaluate.evaluate(EvaluateRequest(config_path=__import__("pathlib").Path(sys.argv[1]),
                                       out_dir=__import__("pathlib").Path(sys.argv[2])),
                       services=Services(environ=dict(os.environ)))
phases["judge"] = phases.pop("async") - phases["execute"]
whole = cpu.pop("async")
cpu["judge"] = (whole[0] - cpu["execute"][0], whole[1] - cpu["execute"][1])
times = os.times()
print(json.dumps({"phases": phases, "phase_cpu": cpu, "cpu": times.user + times.system,
                  "workers_cpu": times.children_user + times.children_system,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "cases": len(result.manifest.cases), "passed": result.manifest.verdict.passed}))
sys.stdout.flush()
os._exit(0)  # as `khaos-action run` ends (gc_freeze.hold): the results are not freed one by one on the way out
'''


def write_project(folder: Path, cases: int, agent_ms: float, concurrency: int) -> Path:
    (folder / "agent.py").write_text(AGENT.format(delay=agent_ms / 1000))
    lines = [CONFIG_HEAD.format(concurrency=concurrency)]
    lines += [f'  - "Where is my order {i:06d}?"\n' for i in range(cases)]
    config = folder / "khaos.yaml"
    config.write_text("".join(lines))
    return config


def one_run(config: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    started = time.perf_counter()
    # The child's interpreter start is measured here and handed down, so "startup" includes it.
    probe = subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
    interpreter = time.perf_counter() - started
    assert probe.returncode == 0
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(config), str(out), f"{interpreter:.4f}"],
                          capture_output=True, text=True, cwd=config.parent, env=env)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"run failed:\n{proc.stderr[-3000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data["wall"] = wall
    if SUBREAPER:  # every process the run started has been reaped by now (ours or its), so its CPU is counted
        reap_orphans()
        after = os.times()
        everything = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        data["workers_cpu"] = everything - data["cpu"]
    return data


def become_subreaper() -> bool:
    """Linux: orphaned descendants of the run (workers whose zygote ended before reaping them) become our children,
    so their CPU time is counted when we reap them; without this it is lost with them."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def reap_orphans() -> None:
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


SUBREAPER = False


def timed_cli(args: list[str], cwd: Path) -> tuple[float, float, str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "khaos_action.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, proc.stderr[-2000:] if proc.returncode not in (0, 1) else ""


def spread(values: list[float], unit: str = "s", digits: int = 2) -> str:
    if len(values) == 1:
        return f"{values[0]:.{digits}f} {unit}"
    return f"{statistics.median(values):.{digits}f} {unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--agent-ms", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--no-compare", action="store_true")
    parser.add_argument("--manifests", type=Path, default=None, help="time compare and merge on FOLDER/run0, run1")
    args = parser.parse_args()
    global SUBREAPER
    SUBREAPER = become_subreaper()
    if args.manifests is not None:
        time_compare_and_merge(args.manifests, args.repeat)
        return 0
    folder = Path(tempfile.mkdtemp(prefix="khaos-scale-"))
    config = write_project(folder, args.cases, args.agent_ms, args.concurrency)
    ideal = args.cases * args.agent_ms / 1000 / args.concurrency
    print(f"{args.cases:,} cases × {args.agent_ms:g} ms async agent, concurrency {args.concurrency}, contract 3 "
          f"invariants × 1 scenario, all report formats; {args.repeat} fresh processes; load average "
          f"{os.getloadavg()[0]:.2f} at start")
    runs = []
    for index in range(args.repeat):
        runs.append(one_run(config, folder / f"run{index}"))
        r = runs[-1]
        print(f"  run {index + 1}: wall {r['wall']:.2f} s, cpu {r['cpu']:.2f} s, peak RSS {r['rss_mib']:.0f} MiB, "
              + ", ".join(f"{k} {v:.2f}" for k, v in r["phases"].items()) + f" (load {os.getloadavg()[0]:.2f})")
    assert all(r["cases"] >= args.cases for r in runs), [r["cases"] for r in runs]
    execute = [r["phases"]["execute"] for r in runs]
    print(f"ideal execute {ideal:.2f} s")
    print(f"{'whole run (wall)':18s} {spread([r['wall'] for r in runs])}   target ≤ 14 s at 50k")
    print(f"{'CPU (user+sys)':18s} {spread([r['cpu'] for r in runs])}")
    print(f"{'  agent workers':18s} {spread([r['workers_cpu'] for r in runs])}   (the python agent's worker processes)")
    print(f"{'peak RSS':18s} {spread([r['rss_mib'] for r in runs], 'MiB', 0)}   target ≤ 400 MiB at 50k")
    for phase in ("startup", "config", "execute", "judge", "manifest", "reports"):
        values = [r["phases"].get(phase, 0.0) for r in runs]
        extra = (f"   = {statistics.median(values) / ideal:.2f} × ideal (target ≤ 1.15 ×)" if phase == "execute"
                 else "   target ≤ 2 s" if phase == "reports" else "")
        if phase in runs[0]["phase_cpu"]:
            extra = f"   CPU {spread([r['phase_cpu'][phase][0] for r in runs])}" + extra
        print(f"  {phase:16s} {spread(values)}{extra}")
    del execute
    if not args.no_compare and len(runs) >= 2:
        time_compare_and_merge(folder, args.repeat)
    print(f"load average at end {os.getloadavg()[0]:.2f}; manifests kept in {folder} (--manifests)")
    return 0


def time_compare_and_merge(folder: Path, repeat: int) -> None:
    base, head = folder / "run0" / "manifest.json", folder / "run1" / "manifest.json"
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu, error = timed_cli(["compare", str(base), str(head), "--format", "json"], folder)
        assert not error, error
        walls.append(wall)
        cpus.append(cpu)
    print(f"{'compare (CLI)':18s} {spread(walls)}, CPU {spread(cpus)}   target ≤ 2 s")
    shards = split_manifest(base, folder)
    walls, cpus = [], []
    for index in range(repeat):
        target = folder / f"merged{index}"
        if target.exists():
            shutil.rmtree(target)
        wall, cpu, error = timed_cli(["merge", *map(str, shards), "--out", str(target)], folder)
        assert not error, error
        walls.append(wall)
        cpus.append(cpu)
    print(f"{'merge 2 shards':18s} {spread(walls)}, CPU {spread(cpus)}   target ≤ 2 s (every default format)")


def split_manifest(path: Path, folder: Path) -> list[Path]:
    """Two shard manifests of one run (cases halved), as `--shard 1/2` and `2/2` would have written them (by the
    manifest's own writer: merge checks the digest it ends with)."""
    from khaos_action.manifest_read import load_manifest

    run = load_manifest(path)
    out = []
    for index, part in enumerate((run.cases[::2], run.cases[1::2]), start=1):
        target = folder / f"shard{index}.json"
        run.model_copy(update={"cases": part, "shard": f"{index}/2", "run_id": f"{run.run_id}-shard{index}"}).write(
            target)
        out.append(target)
    return out


if __name__ == "__main__":
    sys.exit(main())
