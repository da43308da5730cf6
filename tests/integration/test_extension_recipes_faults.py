"""The "Add a fault", "Add an invariant" and "Add a mutation type" recipes (docs/architecture.md) hold: a module
outside the package (tests/fixtures/extensions/khaos_recipe_ext.py, importing only `khaos_action.plugins`)
registers an LLM fault the scheduler has never heard of, a new invariant type and a new mutation type, and a real run
of a python agent (the public run API, the real engine and worker, a real LLM server on 127.0.0.1) plans, fires and
judges them, all visible in the manifest. Nothing else in the package names them."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
import yaml

from khaos_action.checkers import CHECKERS
from khaos_action.config.errors import ConfigFileError
from khaos_action.config.loader import load_config
from khaos_action.faults import FAULTS
from khaos_action.mutation import MUTATORS
from tests.builders import evaluate_project, write_project
from tests.integration.test_llm_fakes import LlmServer

EXTENSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "extensions"

AGENT = '''
import sys

import httpx

sys.path.insert(0, {extensions!r})
import khaos_recipe_ext  # noqa: E402,F401  # the agent's process (the worker) must know the fault it intercepts

BASE = {base!r}


def handle(message: str) -> str:
    reply = httpx.post(BASE + "/chat/completions", timeout=5,
                       json={{"model": "gpt-4o-mini", "messages": [{{"role": "user", "content": message}}]}})
    if reply.status_code != 200:
        return f"Sorry, the model is overloaded right now, please try again later ({{reply.status_code}})."
    return reply.json()["choices"][0]["message"]["content"]
'''

PACK = {
    "name": "overload", "version": "1", "inputs": [{"text": "Cancel order 4321"}],
    # A pack names the fault by mode only: its target comes from the registry, not from a list in the scheduler.
    "phases": [{"type": "resilience", "faults": [{"mode": "overloaded", "status": 503}]}],
}


@pytest.fixture
def extension(monkeypatch: pytest.MonkeyPatch):
    """Import the extension as a user's code would (registering its entries); forget it afterwards."""
    monkeypatch.syspath_prepend(str(EXTENSIONS))
    assert "llm:overloaded" not in FAULTS and "max_words" not in CHECKERS and "shouted" not in MUTATORS
    module = importlib.import_module("khaos_recipe_ext")
    yield module
    FAULTS.pop("llm:overloaded", None)
    CHECKERS.pop("max_words", None)
    MUTATORS.pop("shouted", None)
    sys.modules.pop("khaos_recipe_ext", None)


def recipe_project(folder: Path, base: str, *, limit: object = 7, mutation: dict | None = None) -> Path:
    config = {
        "version": 1, "seed": 7, "concurrency": 1,
        "agent": {"name": "recipe-bot", "type": "python", "entry": "agent.py:handle", "timeout_s": 10},
        "golden_prompts": ["Where is my order 1234?"],
        "packs": ["overload.yaml"],
        "contract": {"invariants": [
            {"id": "short", "type": "max_words", "limit": limit, "severity": "high"},
            {"id": "answers", "type": "output_not_empty"}]},
        "chaos_matrix": [{"name": "no-chaos"},
                         {"name": "overloaded", "llm_faults": [{"mode": "overloaded"}]}],
        **({"mutation": mutation} if mutation else {}),
    }
    return write_project(folder, config, {"agent.py": AGENT.format(extensions=str(EXTENSIONS), base=base),
                                          "overload.yaml": yaml.safe_dump(PACK, sort_keys=False)})


def test_a_fault_and_an_invariant_registered_outside_the_package_run_end_to_end(extension, tmp_path: Path):
    with LlmServer() as server:
        config = recipe_project(tmp_path, server.url + "/v1", mutation={"types": ["shouted"], "per_prompt": 1})
        manifest = evaluate_project(config, tmp_path / "out", formats=("md",)).manifest
    cases = {(c.phase, c.scenario): c for c in manifest.cases}

    calm = cases[("contract", "no-chaos")]
    assert calm.output == "Echo: Where is my order 1234?" and not calm.faults_fired
    [short] = [i for i in calm.invariants if i.id == "short"]
    assert (short.type, short.passed, short.detail) == ("max_words", True, "6 words ≤ 7")
    assert short.spec == {"id": "short", "type": "max_words", "severity": "high", "limit": 7}

    stormy = cases[("contract", "overloaded")]
    [fired] = stormy.faults_fired
    assert fired.startswith("llm:overloaded:") and stormy.fault_hits[fired] == 1
    assert stormy.output.endswith("(529).")
    assert [call["status"] for call in stormy.llm_calls] == [529]
    [short] = [i for i in stormy.invariants if i.id == "short"]
    assert (short.passed, short.detail) == (False, "12 words > 7")

    [resilience] = [c for c in manifest.cases if c.phase == "resilience"]
    assert resilience.fault_ids[0].startswith("llm:overloaded:")  # the registry targeted the pack's bare mode
    assert resilience.faults_fired == resilience.fault_ids and resilience.output.endswith("(503).")
    # The fault answered its calls itself: only the cases without it reached the model.
    live = [call for c in manifest.cases for call in c.llm_calls if call["source"] == "live"]
    assert len(live) == len(server.requests) and all(call["fault"] is None for call in live)
    assert all(call["source"] == "fault" for c in (stormy, resilience) for call in c.llm_calls)

    [mutated] = [c for c in manifest.cases if c.phase == "mutation"]
    assert mutated.mutation == "shouted" and mutated.input.startswith("WHERE IS MY ORDER 1234!")
    assert mutated.output == f"Echo: {mutated.input}"


def test_the_new_invariant_validates_its_own_parameters_with_the_config_error_format(extension, tmp_path: Path):
    config = recipe_project(tmp_path, "http://127.0.0.1:9/v1", limit="many")
    error = pytest.raises(ConfigFileError, load_config, config).value
    [issue] = error.issues
    assert issue.key_path == "contract.invariants[0].limit" and issue.line is not None
    assert "expected an integer" in issue.message and "'many'" in issue.message

    text = config.read_text().replace("limit: many", "limt: 7")
    config.write_text(text)
    missing, unknown = pytest.raises(ConfigFileError, load_config, config).value.issues
    assert (missing.key_path, missing.message) == ("contract.invariants[0].limit", "missing required key `limit`")
    assert missing.hint == "Add `limit:` (the most words the reply may have)"  # the entry's field docs
    assert (unknown.key_path, unknown.message, unknown.hint) == (
        "contract.invariants[0].limt", "unknown key `limt`", "Did you mean `limit`?")


def test_without_the_extension_the_names_are_unknown_and_the_errors_list_the_registered_ones(tmp_path: Path):
    config = recipe_project(tmp_path, "http://127.0.0.1:9/v1")
    error = pytest.raises(ConfigFileError, load_config, config).value
    text = str(error)
    assert "contract.invariants[0].type: expected one of 'contains'" in text and "found 'max_words'" in text
