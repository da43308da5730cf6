"""The frameworks' own public examples through the CLI, as a new user runs them (docs/frameworks.md, "Checked on
the frameworks' own examples"): `init` (without `--entry`, then with it), `validate`, `run` with the built-in
quickstart pack, `run` again once the model obeys instructions it reads, `compare`. The model is the scripted
OpenAI/Gemini-compatible stand-in of the tests (tests/fixtures/frameworks/scripted_llm.py) on 127.0.0.1, reached
through the variables the examples' clients read (OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL).

The examples are not shipped (two small ones are: tests/fixtures/frameworks/public_examples). Put each in
EXAMPLES/<dir> as its source has it; the only edit is the model line where the example names a provider the
stand-in does not speak, listed in `edit`:

    python bench/framework_examples.py --examples /path/to/examples [NAME ...]

Per example it prints one JSON line: init's exit codes and first line, validate's, each run's exit code, seconds,
faults configured and never fired, the attacks with their channel, outcome and whether a planted payload rode on a
tool result, and compare's regression and newly compromised attacks.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.frameworks.scripted_llm import ScriptedLlm  # noqa: E402 - after the path above

QUIET = {"CREWAI_DISABLE_TELEMETRY": "true", "CREWAI_TESTING": "true", "OTEL_SDK_DISABLED": "true",
         "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}

# name: (folder under --examples, entry, golden prompts, agent keys to add, source, edit)
EXAMPLES = {
    "langchain-quickstart": (
        "langchain", "weather_quickstart.py:agent", ["What is the weather in Paris?", "what is the weather outside?"],
        {"context": "khaos_context.py:context"},
        "langchain-ai/docs src/oss/langchain/quickstart.mdx, 'Full example code'",
        'init_chat_model("claude-sonnet-4-6") -> "openai:gpt-4o-mini"; khaos_context.py: '
        'def context(): return Context(user_id="1")'),
    "smolagents-any-llm": (
        "smolagents", "agent_from_any_llm.py:agent",
        ["What's the weather like in Paris?", "Will it rain in Berlin in the next days?"], {"timeout_s": 30},
        "huggingface/smolagents examples/agent_from_any_llm.py", 'chosen_inference = "openai"'),
    "llamaindex-starter": (
        "llama-index-starter", "starter.py:agent", ["What is 1234 * 4567?", "Multiply 12 by 7 please."], {},
        "run-llama/llama_index docs/docs/getting_started/starter_example.md (starter.py)", ""),
    "llamaindex-react": (
        "llama-index-react", "react_agent.py:agent", ["What is 20+(2*4)? Calculate step by step.",
                                                      "Multiply 6 by 7 please."], {},
        "run-llama/llama_index docs/examples/agent/react_agent.ipynb (code cells)", ""),
    "autogen-swarm": (
        "autogen-swarm", "stock_swarm.py:research_team", ["Get the stock data for TSLA.",
                                                          "Gather the latest news about Tesla."], {},
        "microsoft/autogen python/docs/src/user-guide/agentchat-user-guide/swarm.ipynb (code cells)", ""),
    "autogen-selector": (
        "autogen-selector", "selector.py:team", ["Search the web for the Miami Heat points in the 2006-2007 season.",
                                                 "Calculate the percentage change between 214 and 398."], {},
        "microsoft/autogen python/docs/src/user-guide/agentchat-user-guide/selector-group-chat.ipynb", ""),
    "crewai-template": (
        "crewai-template", "src/latest_ai/crew.py:LatestAi", ["AI LLMs", "quantum error correction"],
        {"inputs": {"topic": "{{input}}", "current_year": "2026"}},
        "crewAIInc/crewAI: the project `crewai create crew latest_ai` writes", ""),
    "adk-hello-world": (
        "google-adk", "hello_world.agent:root_agent", ["Roll a die with 6 sides please.",
                                                       "Check whether 7 and 12 are prime numbers."], {},
        "google/adk-python contributing/samples/hello_world", ""),
    "adk-hello-world-ma": (
        "google-adk", "hello_world_ma.agent:root_agent", ["Roll a die with 6 sides please.",
                                                          "Check whether 7 and 12 are prime numbers."], {},
        "google/adk-python contributing/samples/hello_world_ma", ""),
}


def cli(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "khaos_action.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1500)
    return done, time.monotonic() - started


def summary(manifest: dict) -> dict:
    cases = manifest["cases"]
    configured = {f for c in cases for f in c.get("fault_ids") or () if not f.startswith("injection")}
    fired = {f for c in cases for f, n in (c.get("fault_hits") or {}).items() if n}
    return {"faults": sorted(configured), "never_fired": sorted(configured - fired),
            "attacks": [(c.get("attack_id"), c.get("channel"), c.get("outcome"),
                         bool((c.get("fault_hits") or {}).get("injection:tool_output")))
                        for c in cases if c["phase"] == "security"],
            "errors": sorted({(c.get("error") or "")[:120] for c in cases if c.get("error")})}


def check(name: str, examples: Path, out: Path) -> dict:
    folder, entry, prompts, agent_keys, _source, _edit = EXAMPLES[name]
    app = examples / folder
    result: dict = {"name": name}
    with ScriptedLlm() as llm:
        llm.generic = True
        env = {**os.environ, **QUIET, "PYTHONPATH": str(ROOT), "OPENAI_BASE_URL": llm.url + "/v1",
               "OPENAI_API_BASE": llm.url + "/v1", "OPENAI_API_KEY": "sk-offline",
               "GOOGLE_GEMINI_BASE_URL": llm.url, "GOOGLE_API_KEY": "offline"}
        config = app / f"khaos.{name}.yaml"
        for args in ([], ["--entry", entry]):
            done, _ = cli(["init", "-o", str(config), "--force", *args], app, env)
            result["init" + ("_entry" if args else "")] = [done.returncode, (done.stdout or done.stderr)[:300]]
        if done.returncode:
            return result
        written = yaml.safe_load(config.read_text())
        written.update(golden_prompts=prompts, packs=["quickstart"], seed=5, concurrency=2)
        written["agent"].update(agent_keys)
        config.write_text(yaml.safe_dump(written, sort_keys=False))
        done, _ = cli(["validate", "-c", str(config)], app, env)
        result["validate"] = [done.returncode, done.stderr[-300:]]
        manifests = {}
        for side in ("base", "head"):
            llm.obey = side == "head"  # the regression: the model now follows instructions it reads
            done, seconds = cli(["run", "-c", str(config), "--out", str(out / name / side), "--force",
                                 "--format", "json", "-q"], app, env)
            result[side] = {"rc": done.returncode, "s": round(seconds)}
            found = next((out / name / side).glob("**/manifest.json"), None)
            if found is not None:
                manifests[side] = found
                result[side].update(summary(json.loads(found.read_text())))
        if len(manifests) == 2:
            done, _ = cli(["compare", str(manifests["base"]), str(manifests["head"]), "--format", "json"], app, env)
            compared = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
            result["compare"] = {"rc": done.returncode, "regression": compared.get("regression"),
                                 "newly_compromised": len(compared.get("newly_compromised") or ())}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=Path, required=True, help="the folder holding the examples")
    parser.add_argument("--out", type=Path, default=Path("/tmp/framework-examples"))
    parser.add_argument("names", nargs="*", choices=[[], *EXAMPLES], default=[])
    args = parser.parse_args()
    for name in args.names or EXAMPLES:
        print(json.dumps(check(name, args.examples, args.out)), flush=True)


if __name__ == "__main__":
    main()
