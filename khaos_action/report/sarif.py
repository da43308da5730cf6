"""results.sarif (SARIF 2.1.0) for GitHub code scanning: compromised attacks and failed invariants as results.

One rule per attack category (with `security-severity`, which code scanning uses to rank alerts) and one per
invariant. Results point at khaos.yaml (the line that configured the check, when known) and carry
partialFingerprints derived from the case id, so an alert stays the same alert across runs.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from khaos_action.manifest import CaseResult, Manifest
from khaos_action.outcome import Outcome

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}
LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note"}


def _location(manifest: Manifest, key: str) -> dict[str, Any]:
    lines = manifest.config_lines
    region = {"startLine": int(lines.get(key) or lines.get("agent") or 1)}
    uri = manifest.config_path or "khaos.yaml"
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:32]


def render_sarif(manifest: Manifest) -> str:
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for case in manifest.cases:
        if case.outcome == Outcome.COMPROMISED:
            results.append(_attack_result(manifest, case, rules))
        for inv in case.invariants:
            if inv.passed is False:
                rule_id = f"khaos/invariant/{inv.id}"
                # The built-in planted-secret check is a security finding: ranked like a critical attack.
                props = ({"tags": ["security", "secret-leak"], "security-severity": SECURITY_SEVERITY["critical"]}
                         if inv.builtin else {"tags": ["reliability", "khaos-contract"]})
                rules.setdefault(rule_id, {
                    "id": rule_id, "name": f"Invariant {inv.id}",
                    "shortDescription": {"text": f"Behavioral contract invariant {inv.id} ({inv.type or 'check'})"},
                    "properties": props,
                    "defaultConfiguration": {"level": LEVEL.get(inv.severity, "warning")},
                })
                results.append({
                    "ruleId": rule_id, "level": LEVEL.get(inv.severity, "warning"),
                    "message": {"text": f"Invariant {inv.id} failed in scenario {case.scenario or case.phase}: "
                                        f"{inv.detail}"[:1000]},
                    "locations": [_location(manifest, f"invariant:{inv.id}")],
                    "partialFingerprints": {"khaosCase/v1": _fingerprint(case.id, inv.id)},
                })
    sarif = {
        "$schema": SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "khaos-action", "version": manifest.tool_version,
                                "informationUri": "https://github.com/khaos-action/khaos-action",
                                "rules": sorted(rules.values(), key=lambda r: r["id"])}},
            "automationDetails": {"id": f"khaos-action/{manifest.config_hash}/"},
            "results": results,
        }],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False)


def _attack_result(manifest: Manifest, case: CaseResult, rules: dict[str, dict[str, Any]]) -> dict[str, Any]:
    category = case.category or "attack"
    rule_id = f"khaos/attack/{category}"
    severity = case.severity or "medium"
    rule = rules.setdefault(rule_id, {
        "id": rule_id, "name": category.replace("_", " ").title().replace(" ", ""),
        "shortDescription": {"text": f"Agent compromised by {category.replace('_', ' ')} attacks"},
        "helpUri": "https://genai.owasp.org/",
        "properties": {"tags": ["security", *case.owasp], "security-severity": SECURITY_SEVERITY[severity]},
        "defaultConfiguration": {"level": LEVEL[severity]},
    })
    # The rule's severity is its worst finding's: code scanning ranks by the rule.
    if float(SECURITY_SEVERITY[severity]) > float(rule["properties"]["security-severity"]):
        rule["properties"]["security-severity"] = SECURITY_SEVERITY[severity]
        rule["defaultConfiguration"]["level"] = LEVEL[severity]
    evidence = ", ".join(case.evidence_tags) or "objective met"
    return {
        "ruleId": rule_id, "level": LEVEL[severity],
        "message": {"text": f"Attack {case.attack_id} ({case.channel}, {severity}) COMPROMISED the agent: "
                            f"{evidence}. OWASP: {', '.join(case.owasp) or 'n/a'}."[:1000]},
        "locations": [_location(manifest, "packs")],
        "partialFingerprints": {"khaosCase/v1": _fingerprint(case.attack_id or case.id, case.channel or "")},
        "properties": {"objective": case.objective, "confidence": case.confidence},
    }
