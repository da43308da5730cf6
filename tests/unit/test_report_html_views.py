"""The pure view builders behind the HTML report: heat map, attack tables, fault firing, case status, comparison."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from khaos_action.manifest import OUTPUT_CAP, Scores
from khaos_action.report.html_views import (
    attack_breakdown,
    case_groups,
    case_status,
    case_view,
    clip,
    comparison_view,
    fault_firing,
    format_metric,
    format_p,
    heatmap,
)
from khaos_action.score.compare import CaseChange, Comparison, ScoreRow
from tests import builders

# A baseline case with nothing judged yet, in a small run, unless a test says more.
make_case = partial(builders.make_case, phase="baseline", input="hi", pillar=None, scenario=None, output="",
                    passed=None)
make_manifest = partial(builders.make_manifest, run_id="r1", seed=1, config_hash="h", started_at="t",
                        agent={"name": "a", "type": "python"}, scores=Scores())


def inv(id: str, passed: bool | None, severity: str = "medium") -> dict[str, Any]:
    return {"id": id, "passed": passed, "severity": severity}


@pytest.mark.parametrize(
    ("overrides", "status"),
    [
        ({"outcome": "BLOCKED"}, "blocked"),
        ({"outcome": "COMPROMISED", "passed": True}, "compromised"),
        ({"outcome": "UNCERTAIN", "error": "timeout"}, "uncertain"),
        ({"error": "boom", "passed": False}, "error"),
        ({"passed": True}, "pass"),
        ({"passed": False}, "fail"),
        ({"passed": None}, "not-exercised"),
    ],
)
def test_case_status_prefers_outcome_then_error_then_pass_fail(overrides: dict[str, Any], status: str) -> None:
    assert case_status(make_case(**overrides)) == status


def test_heatmap_folds_contract_cases_into_invariant_by_scenario_cells() -> None:
    cases = [
        make_case(id="a", pillar="contract", scenario="no-chaos",
                  invariants=[inv("pii", True, "critical"), inv("fast", True), inv("graceful", None)]),
        make_case(id="b", pillar="contract", scenario="no-chaos",
                  invariants=[inv("pii", True, "critical"), inv("fast", False), inv("graceful", None)]),
        make_case(id="c", pillar="contract", scenario="tool-down",
                  invariants=[inv("pii", False, "critical"), inv("fast", True), inv("graceful", True)]),
        # Mutation cases carry invariants too, but the heat map is the contract matrix only.
        make_case(id="m", pillar="mutation", scenario="tool-down", invariants=[inv("pii", False, "critical")]),
    ]
    heat = heatmap(cases)
    assert heat.scenarios == ["no-chaos", "tool-down"]
    table = {row.invariant: [(c.state, c.label, c.link) for c in row.cells] for row in heat.rows}
    assert table == {
        "pii": [("pass", "2/2", "a"), ("fail-critical", "0/1", "c")],
        "fast": [("fail", "1/2", "b"), ("pass", "1/1", "c")],
        "graceful": [("skip", "not exercised", "a"), ("pass", "1/1", "c")],
    }
    assert [row.severity for row in heat.rows] == ["critical", "medium", "medium"]


def test_heatmap_marks_an_invariant_absent_from_a_scenario_as_empty() -> None:
    cases = [
        make_case(id="a", pillar="contract", scenario="s1", invariants=[inv("x", True)]),
        make_case(id="b", pillar="contract", scenario="s2", invariants=[inv("y", True)]),
    ]
    cells = {row.invariant: [c.state for c in row.cells] for row in heatmap(cases).rows}
    assert cells == {"x": ["pass", "none"], "y": ["none", "pass"]}


def test_attack_breakdown_counts_each_outcome_by_category_and_by_every_owasp_id() -> None:
    cases = [
        make_case(id="1", attack_id="a1", category="prompt_injection", owasp=["LLM01:2025", "ASI01"],
                  outcome="BLOCKED", severity="high"),
        make_case(id="2", attack_id="a2", category="prompt_injection", owasp=["ASI01"], outcome="COMPROMISED",
                  severity="medium"),
        make_case(id="3", attack_id="a3", category="data_exfiltration", owasp=["ASI10", "ASI02"],
                  outcome="COMPROMISED", severity="critical"),
        make_case(id="4", attack_id="a4", category="jailbreak", owasp=["LLM01:2025"], outcome="UNCERTAIN"),
        make_case(id="5", attack_id="a5", category="jailbreak", owasp=[], outcome=None),
        make_case(id="6", passed=True),  # not an attack
    ]
    by_category, by_owasp = attack_breakdown(cases)
    rows = {r.key: (r.counts, r.unjudged, r.worst_compromised) for r in by_category}
    assert rows["prompt_injection"] == ({"blocked": 1, "compromised": 1, "uncertain": 0}, 0, "medium")
    assert rows["data_exfiltration"] == ({"blocked": 0, "compromised": 1, "uncertain": 0}, 0, "critical")
    assert rows["jailbreak"] == ({"blocked": 0, "compromised": 0, "uncertain": 1}, 1, None)
    # Most-compromised categories first; OWASP ids in natural order (ASI02 before ASI10).
    assert [r.key for r in by_category][-1] == "jailbreak"
    assert [r.key for r in by_owasp] == ["ASI01", "ASI02", "ASI10", "LLM01:2025"]
    owasp = {r.key: r for r in by_owasp}
    assert owasp["ASI01"].executed == 2 and owasp["ASI01"].block_rate == 0.5
    assert owasp["LLM01:2025"].title == "Prompt Injection"
    # UNCERTAIN is never counted as blocked.
    assert {r.key: r.block_rate for r in by_category}["jailbreak"] == 0.0


def test_fault_firing_counts_scheduled_fired_and_hits_with_never_fired_first() -> None:
    cases = [
        make_case(id="1", fault_ids=["tool-503", "llm-slow"], faults_fired=["tool-503"], fault_hits={"tool-503": 2}),
        make_case(id="2", fault_ids=["tool-503"], faults_fired=["tool-503"], fault_hits={"tool-503": 1}),
        make_case(id="3", fault_ids=["llm-slow"], faults_fired=[], fault_hits={}),
        make_case(id="4", fault_ids=[], faults_fired=["stray"], fault_hits={"stray": 4}),
    ]
    rows = [(r.fault_id, r.configured, r.fired, r.hits) for r in fault_firing(cases)]
    assert rows == [("llm-slow", 2, 0, 0), ("stray", 0, 0, 4), ("tool-503", 2, 2, 3)]


def test_case_view_clips_input_output_and_attempts_to_the_manifest_cap() -> None:
    long = "x" * (OUTPUT_CAP + 500)
    view = case_view(make_case(input=long, output=long,
                               attempts=[{"input": long, "output": "short"}], tool_calls=[{"args": long}]))
    assert len(view.input) == len(view.output) == OUTPUT_CAP
    assert view.input_truncated and view.output_truncated
    assert len(view.attempts[0]["input"]) == OUTPUT_CAP and view.attempts[0]["truncated"]
    assert view.tool_calls.endswith("… (truncated)") and len(view.tool_calls) < 2100
    assert clip("abc", 3) == ("abc", False) and clip(None) == ("", False)


def test_case_view_keeps_the_engines_truncation_flag() -> None:
    assert case_view(make_case(output="short", output_truncated=True)).output_truncated


def test_case_groups_follow_the_pipeline_and_put_problems_first() -> None:
    cases = [
        make_case(id="s1", phase="security", attack_id="a", outcome="BLOCKED"),
        make_case(id="b1", phase="baseline", passed=True),
        make_case(id="b2", phase="baseline", passed=False),
        make_case(id="x1", phase="custom", passed=True),
        make_case(id="b3", phase="baseline", error="boom"),
    ]
    groups = case_groups(cases)
    assert [g.phase for g in groups] == ["baseline", "security", "custom"]
    assert [v.case.id for v in groups[0].cases] == ["b2", "b3", "b1"]
    assert groups[0].statuses == {"fail": 1, "error": 1, "pass": 1} and groups[0].problems == 2


def test_case_groups_drill_down_at_most_the_limit_problems_first_and_count_the_rest() -> None:
    cases = [make_case(id=f"p{i}", phase="baseline", passed=True) for i in range(5)]
    cases.insert(3, make_case(id="f1", phase="baseline", passed=False))
    (group,) = case_groups(cases, limit=3)
    assert [v.case.id for v in group.cases] == ["f1", "p0", "p1"]
    assert group.not_shown == 3 and group.statuses == {"fail": 1, "pass": 5}
    manifest = make_manifest(cases)
    view = comparison_view(comparison(fixed=[change("p0"), change("p4")]), manifest, {v.case.id for v in group.cases})
    assert [(c.id, c.anchor) for c in view["fixed"]] == [("p0", True), ("p4", False)]  # p4 has no drill-down


def comparison(**fields: Any) -> Comparison:
    return Comparison(base_run_id="base-1", head_run_id="head-1", base_config_hash="cfg", head_config_hash="cfg",
                      **fields)


def change(case_id: str, phase: str = "baseline", **fields: Any) -> CaseChange:
    return CaseChange(id=case_id, phase=phase, base="pass", head="fail", **fields)


def test_comparison_view_takes_the_typed_comparison_and_links_known_cases() -> None:
    manifest = make_manifest([make_case(id="k1", phase="contract", scenario="tool-down", input="Where is 1234?")])
    drop = ScoreRow(name="overall", base=80, head=70, delta=-10, pairs=12, broke=6, fixed=0, p_value=0.03125,
                    significant=True, direction="drop")
    newly = [change("k1", "contract", scenario="tool-down", input="Where is 1234?"), change("gone", "security")]
    view = comparison_view(comparison(newly_failing=newly, scores=[drop], paired=12), manifest)
    first, second = view["newly_failing"]
    assert (first.id, first.where, first.input, first.anchor) == ("k1", "contract · tool-down", "Where is 1234?", True)
    assert (second.id, second.anchor, second.where) == ("gone", False, "security")  # not in the head run: no link
    row = view["scores"][0]
    assert row["worse"] and row["significant"] and row["p_value"] == 0.03125 and (row["broke"], row["fixed"]) == (6, 0)
    assert view["flaky"] == [] and view["warnings"] == []
    assert view["counts"] == {"paired": 12, "unjudged": 0, "only_in_base": 0, "only_in_head": 0}


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "—"), (1.0, "1"), (0.6667, "0.667"), (3120.4, "3,120"), (0.05, "0.05"), (5000.0, "5,000")],
)
def test_format_metric(value: float | None, text: str) -> None:
    assert format_metric(value) == text


def test_format_p() -> None:
    assert (format_p(None), format_p(0.0004), format_p(0.0312)) == ("—", "<0.001", "0.0312")
