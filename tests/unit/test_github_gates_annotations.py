"""`fail-on` gates over the run and the base comparison, and annotations pointing at khaos.yaml lines."""

from __future__ import annotations

import pytest

from khaos_action.github import gates
from khaos_action.github.annotations import (
    build_annotations,
    config_lines,
    lines_from_manifest,
)
from khaos_action.manifest import Scores, Verdict
from khaos_action.score.compare import compare_manifests
from tests.builders import critical_invariant_case, make_case, make_manifest

ALL = ["critical", "regression", "threshold"]


def test_clean_run_passes() -> None:
    assert gates.decide(make_manifest(), None, fail_on=ALL, min_score=None).exit_code == 0


def test_critical_invariant_failure_fails_only_when_critical_is_gated() -> None:
    manifest = make_manifest([critical_invariant_case("c1"), make_case("c2")],
                             verdict=Verdict(passed=False, reasons=["critical invariant failed: no-pii (no-chaos)"],
                                             exit_code=1))
    assert gates.decide(manifest, None, fail_on=ALL, min_score=None).exit_code == 1
    relaxed = gates.decide(manifest, None, fail_on=["threshold"], min_score=None)
    assert relaxed.exit_code == 0  # the manifest's own critical reason belongs to the critical gate
    assert [f.gate for f in relaxed.ignored] == ["critical"]


@pytest.mark.parametrize("severity,fails", [("critical", True), ("high", True), ("medium", False)])
def test_compromised_attack_severity(severity: str, fails: bool) -> None:
    case = make_case("a", passed=False, phase="security", attack_id="x", outcome="COMPROMISED", severity=severity)
    decision = gates.decide(make_manifest([case]), None, fail_on=["critical"], min_score=None)
    assert decision.passed is not fails


def test_min_score_threshold() -> None:
    manifest = make_manifest(scores=Scores(overall=64.0))
    assert gates.decide(manifest, None, fail_on=ALL, min_score=65).exit_code == 1
    assert gates.decide(manifest, None, fail_on=ALL, min_score=60).exit_code == 0
    assert gates.decide(manifest, None, fail_on=["critical"], min_score=65).exit_code == 0


def test_config_gate_reasons_are_threshold_findings() -> None:
    manifest = make_manifest(verdict=Verdict(passed=False, reasons=["only 0 attacks executed"], exit_code=1))
    decision = gates.decide(manifest, None, fail_on=ALL, min_score=None)
    assert decision.exit_code == 1 and decision.failing[0].gate == "threshold"


def test_newly_failing_case_is_a_regression_and_noise_free_runs_are_not() -> None:
    base = make_manifest([make_case(f"c{i}") for i in range(5)])
    head = make_manifest([make_case("c0", passed=False)] + [make_case(f"c{i}") for i in range(1, 5)])
    decision = gates.decide(head, compare_manifests(base, head), fail_on=ALL, min_score=None)
    assert [f.gate for f in decision.failing] == ["regression"]
    assert gates.decide(head, compare_manifests(base, head), fail_on=["critical"], min_score=None).passed
    assert gates.decide(base, compare_manifests(base, base), fail_on=ALL, min_score=None).passed


def test_config_fail_on_regression_false_shows_regressions_without_failing() -> None:
    base = make_manifest([make_case(f"c{i}") for i in range(5)])
    cases = [make_case("c0", passed=False)] + [make_case(f"c{i}") for i in range(1, 5)]
    head = make_manifest(cases, gates={"fail_on_regression": False})
    decision = gates.decide(head, compare_manifests(base, head), fail_on=ALL, min_score=None)
    assert decision.passed and [f.gate for f in decision.ignored] == ["regression"]
    gated = make_manifest(cases, gates={"fail_on_regression": True})
    assert not gates.decide(gated, compare_manifests(base, gated), fail_on=ALL, min_score=None).passed


def test_no_baseline_means_no_regression_gate() -> None:
    head = make_manifest([make_case("c0", passed=False)])
    assert gates.decide(head, None, fail_on=["regression"], min_score=None).passed


def test_never_passes_everything_but_an_agent_that_could_not_run_is_exit_3() -> None:
    bad = make_manifest([critical_invariant_case("c1")], scores=Scores(overall=1.0))
    assert gates.decide(bad, None, fail_on=["never"], min_score=90).exit_code == 0
    dead = make_manifest(verdict=Verdict(passed=False, reasons=["every one of 4 invocations failed"], exit_code=3))
    assert gates.decide(dead, None, fail_on=["never"], min_score=None).exit_code == 3


CONFIG = """\
version: 1
agent:
  entry: a.py:f
packs: [quickstart]
contract:
  name: c
  invariants:
    - id: ok
      type: completes
    - id: no-pii
      type: excludes_pii
      severity: critical
"""


def test_config_lines_find_invariants_and_packs() -> None:
    lines = config_lines(CONFIG)
    assert lines.invariants == {"ok": 8, "no-pii": 10} and lines.packs == 4 and lines.contract == 5
    assert config_lines(": : bad: [").invariants == {}


def test_annotations_point_at_the_invariant_and_pack_lines() -> None:
    attack = make_case("a", passed=False, phase="security", attack_id="inj-1", outcome="COMPROMISED",
                       severity="high", category="prompt_injection", channel="user_prompt", owasp=["LLM01:2025"])
    manifest = make_manifest([critical_invariant_case("c1"), critical_invariant_case("c1b"), attack])
    found = build_annotations(manifest, config_file="svc/khaos.yaml", lines=config_lines(CONFIG))
    assert [(a.line, a.file) for a in found] == [(10, "svc/khaos.yaml"), (4, "svc/khaos.yaml")]
    assert "no-pii" in found[0].title and "COMPROMISED" in found[1].title


def test_engine_line_map_is_preferred() -> None:
    lines = lines_from_manifest({"packs": 3, "invariant:no-pii": 17, "contract": 12})
    assert lines is not None and lines.invariants == {"no-pii": 17} and lines.packs == 3
    assert lines_from_manifest({}) is None


def test_a_budget_stop_fails_whatever_fail_on_lists_except_never() -> None:
    manifest = make_manifest(verdict=Verdict(passed=False, exit_code=1,
                                             reasons=["budget exhausted: max_llm_calls 3 reached; 3 cases not run"]))
    decision = gates.decide(manifest, None, fail_on=["critical"], min_score=None)
    assert decision.exit_code == 1 and decision.failing[0].gate == "incomplete"
    assert gates.decide(manifest, None, fail_on=["never"], min_score=None).passed


def _change(cid: str, **kw):
    from khaos_action.score.compare import CaseChange

    return CaseChange(id=cid, phase=kw.pop("phase", "baseline"), base="pass", head="fail", **kw)


def _cmp(**kw):
    from khaos_action.score.compare import Comparison

    return Comparison(base_run_id="b", head_run_id="h", base_config_hash="x", head_config_hash="x", **kw)


@pytest.mark.parametrize(("comparison", "expected"), [
    (_cmp(), []),
    (_cmp(regression=True), [("regression", "medium", "regression against the base branch")]),
    (_cmp(newly_compromised=[_change("a1", attack_id="jb-1", severity="high", phase="security")]),
     [("attack", "high", "attack jb-1 [high] is newly COMPROMISED (blocked or not compromised on the base branch)")]),
    (_cmp(newly_compromised=[_change("a1", phase="security")]),
     [("attack", "medium", "attack a1 [?] is newly COMPROMISED (blocked or not compromised on the base branch)")]),
    (_cmp(newly_critical=[_change("c1", failed_invariants=["no-pii", "secret"])]),
     [("invariant", "critical", "case c1: no-pii, secret newly failing (critical)")]),
    (_cmp(newly_critical=[_change("c1")]), [("invariant", "critical", "case c1: a critical check newly failing "
                                                                      "(critical)")]),
    (_cmp(scores=[{"name": "overall", "delta": -12.5, "p_value": 0.0123, "direction": "drop"},
                  {"name": "chaos", "delta": -1.0, "direction": "mixed"},
                  {"name": "contract", "delta": -4.0, "direction": "drop"}]),
     [("score", "medium", "overall score dropped 12.5 points vs the base branch (significant, p=0.0123)"),
      ("score", "medium", "contract score dropped 4.0 points vs the base branch (significant)")]),
    (_cmp(newly_failing=[_change("c1")]),
     [("regression", "medium", "1 case passed on the base branch and fails now: c1")]),
    (_cmp(newly_failing=[_change(f"c{i}", critical=i == 2) for i in range(7)]),
     [("regression", "critical", "7 cases passed on the base branch and fail now (1 with a critical check): "
                                 "c0, c1, c2, c3, c4 and 2 more")]),
    # a newly failing attack that is newly COMPROMISED is said once, as an attack
    (_cmp(newly_failing=[_change("a1", attack_id="jb-1", outcome="COMPROMISED"), _change("a2", attack_id="jb-2")]),
     [("regression", "medium", "1 case passed on the base branch and fails now: a2")]),
])
def test_regression_findings_as_a_table(comparison, expected) -> None:
    assert [(f.kind, f.severity, f.text) for f in gates.regression_findings(comparison)] == expected


@pytest.mark.parametrize(("fail_on", "fail_on_regression", "active"), [
    (["critical"], True, {"critical", "incomplete"}),
    (["critical", "regression"], True, {"critical", "regression", "incomplete"}),
    (["critical", "regression"], False, {"critical", "incomplete"}),
    (["never"], True, set()),
    (["never", "critical"], True, {"critical"}),
    ([], True, {"incomplete"}),
])
def test_the_active_gates_as_a_table(fail_on: list[str], fail_on_regression: bool, active: set[str]) -> None:
    assert gates._active_gates(fail_on, fail_on_regression=fail_on_regression) == active
