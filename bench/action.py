"""Benchmark: the GitHub Action from entrypoint start to PR comment posted, against the local GitHub stand-in.

Runs entrypoint.py as the runner would (INPUT_* from action.yml defaults, a pull_request event, output and summary
files) on the bundled demo agent with the real engine, with a baseline artifact to download and compare. The
evaluation is timed inside the process (this file, run with --as-action, starts the entrypoint with
`evaluate=timed_evaluate`, the real evaluate wrapped), so the action's own share is total minus evaluation.
Target: ≤ 10 s excluding the agent's time.

    python bench/action.py [--runs 3]
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

ROOT = Path(__file__).resolve().parents[1]


def timed_evaluate(request, *, services):  # type: ignore[no-untyped-def]
    """The real evaluate, timed; `python bench/action.py --as-action` hands it to the entrypoint."""
    from khaos_action.evaluate import evaluate

    started = time.perf_counter()
    result = evaluate(request, services=services)
    Path(services.environ["KHAOS_BENCH_TIMING"]).write_text(str(time.perf_counter() - started))
    return result


def one_run(api, workdir: Path) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from tests.end_to_end.test_action_entrypoint import runner_inputs

    ws = workdir / "ws"
    shutil.rmtree(ws, ignore_errors=True)
    ws.mkdir(parents=True)
    for path in (ROOT / "khaos_action" / "demo").iterdir():  # every file of the demo project
        if path.is_file() and path.name != "__init__.py":
            shutil.copy(path, ws / path.name)
    event = {"pull_request": {"number": 1, "base": {"ref": "main", "sha": "b", "repo": {"full_name": "o/r"}},
                              "head": {"ref": "f", "sha": "h", "repo": {"full_name": "o/r"}}},
             "repository": {"full_name": "o/r", "default_branch": "main"}}
    (workdir / "event.json").write_text(json.dumps(event))
    timing = workdir / "timing"
    env = {**os.environ, **runner_inputs(), "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'bench'}",
           "GITHUB_API_URL": api.api_url, "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_NAME": "pull_request",
           "GITHUB_EVENT_PATH": str(workdir / "event.json"), "GITHUB_RUN_ID": "1", "GITHUB_SHA": "h",
           "GITHUB_WORKSPACE": str(ws), "GITHUB_OUTPUT": str(workdir / "out"),
           "GITHUB_STEP_SUMMARY": str(workdir / "summary"), "KHAOS_BENCH_TIMING": str(timing)}
    api.log.clear()
    api.comments.clear()
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--as-action"], env=env, cwd=ws,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    posted = None
    while proc.poll() is None or posted is None:
        if posted is None and api.requests("POST", "/comments$"):
            posted = time.perf_counter() - started
        if proc.poll() is not None and posted is None:
            break
        time.sleep(0.005)
    total = time.perf_counter() - started
    if posted is None:
        raise SystemExit(f"no comment was posted (exit {proc.returncode}): {proc.stderr.read()[-2000:]}")
    evaluation = float(timing.read_text())
    return {"to_comment_s": posted, "process_s": total, "evaluate_s": evaluation,
            "action_overhead_s": posted - evaluation, "cases": len(json.loads(
                next(ws.glob(".khaos/runs/*/manifest.json")).read_text())["cases"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from khaos_action.manifest_read import load_manifest
    from tests.github_api import serve

    with serve() as api, tempfile.TemporaryDirectory() as tmp:
        # A baseline artifact from the base branch: the demo's own earlier run, so download + compare are timed too.
        first = one_run(api, Path(tmp) / "seed-run")
        manifest = load_manifest(next((Path(tmp) / "seed-run" / "ws").glob(".khaos/runs/*/manifest.json")))
        api.add_artifact(manifest=manifest, sha="b")
        results = [one_run(api, Path(tmp) / f"run{i}") for i in range(args.runs)]
        assert api.requests("GET", "^/blob/"), "the baseline artifact was downloaded"
    print(f"action bench: demo agent, {results[0]['cases']} cases, {args.runs} runs (+1 without baseline: "
          f"{first['to_comment_s']:.2f} s to comment)")
    for key in ("to_comment_s", "evaluate_s", "action_overhead_s", "process_s"):
        values = [r[key] for r in results]
        print(f"  {key:18s} median {statistics.median(values):6.2f}  min {min(values):6.2f}  max {max(values):6.2f}")
    overhead = statistics.median(r["action_overhead_s"] for r in results)
    print(f"  target: entrypoint start → comment posted, excluding evaluation, ≤ 10 s: "
          f"{'met' if overhead <= 10 else 'MISSED'} ({overhead:.2f} s)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--as-action"]:  # the entrypoint, as the runner starts it, with the timed evaluate
        import entrypoint

        sys.exit(entrypoint.launch([str(Path(__file__).resolve()), "--as-action"], timed_evaluate))
    main()
