"""Public examples of two frameworks, as their authors wrote them (tests/fixtures/frameworks/public_examples, each
file's header names its source and licence), through the CLI as a new user runs them: `init` with no `--entry`
finds the agent and its tools and writes its type, `validate` passes, `run` fires every fault init configured and
delivers the planted instructions through the example's own tools. The model is the offline stand-in on 127.0.0.1,
reached through the OpenAI variables the examples' clients read; nothing in the examples is changed but the
smolagents example's own `chosen_inference` switch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests import frameworks as fw
from tests.fixtures.frameworks.scripted_llm import ScriptedLlm

pytestmark = pytest.mark.slow

EXAMPLES = fw.APPS / "public_examples"
CASES = {
    "llama_index_starter": ("llama_index.core", "llama-index", {"multiply"},
                            ["What is 1234 * 4567?", "Multiply 12 by 7 please."]),
    "smolagents_any_llm": ("smolagents", "smolagents", {"get_weather"},
                           ["What's the weather like in Paris?", "Will it rain in Berlin in the next days?"]),
}


@pytest.fixture(scope="module")
def model():
    with ScriptedLlm() as llm, pytest.MonkeyPatch.context() as env:
        llm.generic = True  # it reads the examples' own tools from their schemas
        for key, value in {"OPENAI_BASE_URL": llm.url + "/v1", "OPENAI_API_BASE": llm.url + "/v1",
                           "OPENAI_API_KEY": "sk-offline", **fw.QUIET}.items():
            env.setenv(key, value)
        yield llm


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_public_example_runs_through_init_validate_and_run(model, name: str, tmp_path: Path) -> None:
    module, agent_type, tools, prompts = CASES[name]
    pytest.importorskip(module, reason=f"the {agent_type} extra is not installed")
    app = tmp_path / name
    shutil.copytree(EXAMPLES / name, app)
    done = fw.cli("init", cwd=app)  # no --entry: found by reading the source
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"({agent_type})" in done.stdout and all(f"tool {t}:" in done.stdout for t in tools), done.stdout
    config = yaml.safe_load((app / "khaos.yaml").read_text())
    config["golden_prompts"] = prompts
    config["packs"] = [str(fw.APPS / "indirect.pack.yaml")]
    config["agent"]["timeout_s"] = 15  # smolagents waits 60 s before it retries a 429
    (app / "khaos.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    done = fw.cli("validate", cwd=app)
    assert done.returncode == 0, done.stdout + done.stderr
    done = fw.cli("run", "--out", str(tmp_path / "out"), "--format", "json", "-q", cwd=app)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    manifest = json.loads(next((tmp_path / "out").glob("**/manifest.json")).read_text())
    configured = {f for c in manifest["cases"] for f in c["fault_ids"]}
    fired = {f for c in manifest["cases"] for f, n in c["fault_hits"].items() if n}
    assert any(f.startswith("llm:") for f in configured) and any(f.split(":")[0] in tools for f in configured)
    assert configured <= fired, configured - fired
    attacks = [c for c in manifest["cases"] if c["phase"] == "security" and c.get("channel") == "tool_output"]
    assert attacks and all(c["fault_hits"].get("injection:tool_output") for c in attacks), \
        [(c.get("attack_id"), c.get("error")) for c in attacks] or manifest.get("skipped")
    assert all({t["name"] for t in c["tool_calls"]} & tools for c in attacks)
