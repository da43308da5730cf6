"""replay export: failing cases of a manifest become sessions that load back and check the same thing."""

from __future__ import annotations

import json
from pathlib import Path

from khaos_action.checkers import Invariant
from khaos_action.manifest import Manifest
from khaos_action.manifest_read import load_manifest
from khaos_action.replay.export import export_report, export_sessions
from khaos_action.replay.sessions import load_sessions, parse_sessions

FIXTURES = Path(__file__).parent.parent / "fixtures" / "manifests"
CONTRACT = [
    Invariant(id="mentions-order", type="contains", value="88213", severity="high", when="tool_faults_active"),
    Invariant(id="no-pii", type="excludes_pii", severity="critical"),
    Invariant(id="graceful", type="output_not_empty"),
]


def test_failing_contract_case_becomes_a_session_with_its_tool_responses_and_failed_checks():
    result = export_report(load_manifest(FIXTURES / "base.json"), invariants=CONTRACT)
    (session,) = result.sessions
    assert session["id"] == "c0ffee000005"
    assert session["input"] == "Can I get a refund for order 88213?"
    # the faulted tool answer is what the agent failed under: it is replayed
    assert session["tool_responses"] == [{"tool": "lookup_order", "error": "HTTP 503"}]
    checks = {inv["id"]: inv for inv in session["expect"]["invariants"]}
    assert set(checks) == {"mentions-order", "graceful"}  # only the failed ones; no-pii passed
    assert "when" not in checks["mentions-order"] and checks["mentions-order"]["value"] == "88213"
    assert session["source"]["run_id"] == "20240611T101500Z-base" and session["source"]["scenario"] == "tool-down"
    # attacks are not exported, and say why
    assert dict(result.skipped)["5ec000000004"].startswith("attack case")


def test_exported_sessions_load_back_through_the_sessions_reader(tmp_path):
    contract = [Invariant(id="mentions-order", type="contains", value="1234", severity="high"), *CONTRACT[1:]]
    sessions = export_sessions(load_manifest(FIXTURES / "head_regressed.json"), invariants=contract)
    path = tmp_path / "replay.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in sessions), encoding="utf-8")
    loaded, problems = load_sessions(path, known_tools={"lookup_order"})
    assert problems == []
    assert [s.id for s in loaded] == [s["id"] for s in sessions]
    assert {s.source["mutation"] for s in loaded} == {"typos", "leetspeak", "homoglyphs", "base64_wrap", "format_json",
                                                      "tone_shift", "injection_suffix"}


def test_specs_recorded_in_the_manifest_need_no_contract():
    data = load_manifest(FIXTURES / "base.json").model_dump()
    for case in data["cases"]:
        for inv in case["invariants"]:
            if inv["id"] == "mentions-order":
                inv["spec"] = {"id": "mentions-order", "type": "contains", "value": "88213", "when": "any_chaos_active"}
    (session,) = export_sessions(Manifest.model_validate(data))
    assert session["expect"]["invariants"] == [{"id": "mentions-order", "type": "contains", "value": "88213"}]


def test_unknown_invariant_definitions_are_skipped_with_a_reason():
    result = export_report(load_manifest(FIXTURES / "base.json"))
    assert result.sessions == []
    reason = dict(result.skipped)["c0ffee000005"]
    assert "mentions-order: definition unknown" in reason and "graceful" in reason


def test_behavior_unchanged_auto_becomes_similarity_to_the_no_chaos_reply():
    data = load_manifest(FIXTURES / "base.json").model_dump()
    for case in data["cases"]:
        if case["id"] == "c0ffee000002":  # tool-down cell of "Where is my order 1234?"
            case["passed"] = False
            case["output"] = "Something went wrong."
            case["invariants"] = [{"id": "same", "severity": "high", "passed": False, "type": "behavior_unchanged"}]
    inv = Invariant(id="same", type="behavior_unchanged", similarity_threshold=0.7, severity="high")
    sessions = export_sessions(Manifest.model_validate(data), invariants={"same": inv})
    (session,) = [s for s in sessions if s["id"] == "c0ffee000002"]
    (check,) = session["expect"]["invariants"]
    assert check == {"id": "same", "severity": "high", "type": "similarity", "threshold": 0.7,
                     "expected": "Your order 1234 is on its way."}
    parse_sessions([json.dumps(session)], known_tools=None)  # and it is a valid session


def test_repeats_export_one_session_per_case_id():
    data = load_manifest(FIXTURES / "repeats_head.json").model_dump()
    for case in data["cases"]:
        for inv in case["invariants"]:
            inv["spec"] = {"id": inv["id"], "type": "contains", "value": "x"}
    sessions = export_sessions(Manifest.model_validate(data))
    assert [s["id"] for s in sessions] == ["r00000000001", "r00000000002"]


def test_a_passing_run_exports_nothing():
    data = load_manifest(FIXTURES / "repeats_base.json").model_dump()
    data["cases"] = [c for c in data["cases"] if c["passed"]]
    assert export_sessions(Manifest.model_validate(data), invariants=CONTRACT) == []
