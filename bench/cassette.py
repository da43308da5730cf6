"""What the LLM cassette costs (target: replay adds <= 1 ms per LLM call; a replayed demo run takes about the same
time as one against a zero-latency LLM). Run: `python bench/cassette.py [CALLS] [RUNS]`.

1. Per call, with the real openai SDK (httpx2) inside a case: a live call to a zero-latency OpenAI-compatible
   stand-in on 127.0.0.1 (the demo's model server), intercepted with telemetry, versus the same call replayed from
   the cassette (no network). Modes are interleaved call by call; figures are medians. The replay figure is the
   whole client-side call (SDK + interception + lookup), so it bounds what replay adds.
2. The bundled demo (`khaos-action demo`, ~100 LLM calls) run end to end: without a cassette (the stand-in answers
   with zero latency), recording, and replaying with the stand-in's answers coming from the cassette.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import openai

from khaos_action.demo import demo_config_path
from khaos_action.demo.model import model_url
from khaos_action.engine.chaos.intercept import http_interception
from khaos_action.engine.chaos.plan import activate
from khaos_action.engine.context import CaseContext
from khaos_action.engine.llm_calls import LlmRuntime
from khaos_action.evaluate import evaluate
from khaos_action.llm.cassette import Cassette
from khaos_action.run_api import EvaluateRequest
from khaos_action.services import Services

MESSAGES = [{"role": "system", "content": "You are Acme's support assistant."},
            {"role": "user", "content": "Polish for the customer. DRAFT:\nYour order 1234 has shipped."}]


def per_call(calls: int, folder: Path) -> None:
    client = openai.OpenAI(api_key="sk-bench", base_url=model_url(), max_retries=0)
    replay = LlmRuntime(cassette=Cassette(folder, "auto"))  # one cassette per run, as in a real run
    modes = ("not intercepted (live)", "intercepted in a case, telemetry (live)", "replayed from the cassette")
    samples: dict[str, list[float]] = {mode: [] for mode in modes}

    def create() -> float:
        start = time.perf_counter()
        client.chat.completions.create(model="demo-model", messages=MESSAGES)
        return (time.perf_counter() - start) * 1000

    with http_interception(), activate(_ctx(replay)):
        create()  # records the entry
    for _ in range(30):
        create()  # warm up
    for _ in range(calls):  # interleaved, so drift in the machine's load hits every mode alike
        samples[modes[0]].append(create())
        with http_interception():
            with activate(_ctx(LlmRuntime())):
                samples[modes[1]].append(create())
            ctx = _ctx(replay)
            with activate(ctx):
                samples[modes[2]].append(create())
            assert ctx.llm_calls[0]["source"] == "cassette", ctx.llm_calls
    print(f"Per LLM call through the openai SDK (httpx2), median of {calls} (ms):")
    for label, values in samples.items():
        print(f"  {label:45s} {statistics.median(values):7.3f}   p95 {_p95(values):7.3f}")
    print(f"  {'replay path alone (key, lookup, response)':45s} {_replay_path(folder, calls * 4):7.3f}")


def _replay_path(folder: Path, n: int) -> float:
    """What replay adds inside the interceptor: telemetry record, cassette key and lookup, building the reply."""
    import httpx2

    from khaos_action.engine.chaos.plan import decide_http
    from khaos_action.engine.llm_calls import begin_call, httpx_send

    runtime = LlmRuntime(cassette=Cassette(folder, "replay"))
    body = json.dumps({"messages": MESSAGES, "model": "demo-model"}).encode()
    request = httpx2.Request("POST", model_url() + "/chat/completions", content=body,
                             headers={"content-type": "application/json", "authorization": "Bearer sk-bench"})
    from khaos_action.engine.chaos.intercept_httpx import _httpx_view

    start = time.perf_counter()
    for _ in range(n):
        ctx = _ctx(runtime)
        view = _httpx_view(request)
        call = begin_call(ctx, decide_http(ctx, view), view)
        response = httpx_send(call, httpx2, None, None, request)
        response.read()
    assert ctx.llm_calls[0]["source"] == "cassette"
    return (time.perf_counter() - start) * 1000 / n


def demo_runs(runs: int, folder: Path) -> None:
    work = folder / "demo"
    shutil.copytree(demo_config_path().parent, work, ignore=shutil.ignore_patterns("__pycache__"))
    config = work / "khaos.yaml"
    plain = config.read_text()
    times: dict[str, list[float]] = {"no cassette (zero-latency LLM)": [], "record": [], "replay": []}
    calls: dict[str, int] = {}
    variants = [("no cassette (zero-latency LLM)", ""), ("record", "llm_cache: {mode: record, path: cassettes}\n"),
                ("replay", "llm_cache: {mode: replay, path: cassettes}\n")]
    for index in range(runs):
        order = variants[index % 3:] + variants[:index % 3]  # rotate so no variant always runs first
        if index % 3 == 2:
            order = [variants[1], variants[2], variants[0]]  # replay needs a recording made before it
        for label, extra in order:
            config.write_text(plain + extra)
            start = time.perf_counter()
            manifest = evaluate(EvaluateRequest(config_path=config, out_dir=folder / f"run-{label[:6]}-{index}",
                                                formats=("md",)), services=Services(environ=dict(os.environ))).manifest
            times[label].append(time.perf_counter() - start)
            telemetry = manifest.telemetry
            assert telemetry is not None and (label != "replay" or telemetry.cassette is not None)
            calls[label] = telemetry.calls
            if label == "replay" and telemetry.cassette is not None:
                assert telemetry.by_source["live"] == 0, telemetry  # replay never goes to the network
                misses = telemetry.cassette.misses
    print(f"\nDemo run end to end, median of {runs} (s), with its LLM calls:")
    for label, values in times.items():
        print(f"  {label:45s} {statistics.median(values):7.3f}   ({calls[label]} LLM calls)")
    print(f"  replay misses in the last run: {misses}")


def _ctx(runtime: LlmRuntime) -> CaseContext:
    ctx = CaseContext("bench", random.Random(1))
    ctx.llm = runtime
    return ctx


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main(calls: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        per_call(calls, folder / "calls")
        demo_runs(runs, folder)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500, int(sys.argv[2]) if len(sys.argv) > 2 else 3)
