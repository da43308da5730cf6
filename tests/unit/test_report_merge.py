"""merge: shards of one run combine into the run; anything else is refused."""

from __future__ import annotations

import pytest

from khaos_action.manifest import (
    AgentInfo,
    BudgetState,
    CaseResult,
    InvariantResult,
    Manifest,
    ManifestError,
    Telemetry,
    Verdict,
)
from khaos_action.policy import Gates, Weights
from khaos_action.report.merge import merge, merge_manifests
from khaos_action.reporters import REPORTERS, default_formats


def manifest(run_id, cases, shard=None, config_hash="h1", seed=42, coverage=None):
    return Manifest(run_id=run_id, tool_version="0", seed=seed, config_hash=config_hash, started_at="t0",
                    agent=AgentInfo(name="a", type="python"), verdict=Verdict(passed=True), cases=cases,
                    shard=shard, coverage=coverage or {})


def contract_case(cid, passed):
    return CaseResult(id=cid, phase="contract", pillar="contract", input=cid, scenario="s",
                      invariants=[InvariantResult(id="i", severity="critical", passed=passed)], passed=passed)


def test_merged_shards_rescore_from_the_union_of_cases():
    merged = merge([manifest("r-1", [contract_case("a", True)], shard="1/2"),
                    manifest("r-2", [contract_case("b", False)], shard="2/2")], gates=Gates(), weights=Weights())
    assert sorted(c.id for c in merged.cases) == ["a", "b"]
    assert merged.scores.contract == 50.0
    assert not merged.verdict.passed and "critical invariant failed" in merged.verdict.reasons[0]
    assert merged.shard is None and merged.warnings == []


def test_a_missing_shard_is_a_warning():
    merged = merge([manifest("r-1", [contract_case("a", True)], shard="1/3")], gates=Gates(), weights=Weights())
    assert "merged 1 of 3 shards" in merged.warnings[0]


def test_shards_of_different_configs_or_seeds_are_refused():
    with pytest.raises(ManifestError, match="one config and seed"):
        merge([manifest("r-1", [], config_hash="h1"), manifest("r-2", [], config_hash="h2")],
              gates=Gates(), weights=Weights())


def test_the_same_case_twice_is_refused():
    with pytest.raises(ManifestError, match="more than one manifest"):
        merge([manifest("r-1", [contract_case("a", True)]), manifest("r-2", [contract_case("a", True)])],
              gates=Gates(), weights=Weights())


def test_coverage_executed_counts_add_up_across_shards():
    def table(executed):
        row = {"selected": 4, "executed": executed, "not_executed": 3 - executed, "not_applicable": 1}
        return {"totals": row, "categories": {"jailbreak": row},
                "owasp": {"ASI01": row, "ASI02": dict(row, executed=0)},
                "not_applicable_reasons": {}, "uncovered_owasp": []}

    merged = merge([manifest("r-1", [contract_case("a", True)], shard="1/2", coverage=table(1)),
                    manifest("r-2", [contract_case("b", True)], shard="2/2", coverage=table(2))],
                   gates=Gates(), weights=Weights())
    assert merged.coverage["totals"] == {"selected": 4, "executed": 3, "not_applicable": 1, "not_executed": 0}
    assert merged.coverage["uncovered_owasp"] == ["ASI02"]


def test_not_run_cases_and_llm_usage_are_merged_from_every_shard():
    def shard(name, cid, calls, not_run):
        case = contract_case(cid, True)
        case.llm_calls = [{"source": "live", "model": "m", "provider": "openai", "latency_ms": 10.0,
                           "input_tokens": 5, "output_tokens": 7, "cost_usd": 0.001}] * calls
        m = manifest(name, [case], shard=f"{name[-1]}/2")
        m.not_run = not_run
        m.telemetry = Telemetry(budget=BudgetState(exhausted=None))
        return m

    merged = merge([shard("r-1", "a", 2, ["x"]), shard("r-2", "b", 3, ["y"])], gates=Gates(), weights=Weights())
    assert merged.not_run == ["x", "y"] and merged.counts.not_run == 2
    assert merged.telemetry is not None and merged.telemetry.calls == 5
    assert merged.telemetry.shard_budgets is not None and len(merged.telemetry.shard_budgets) == 2


def test_merge_writes_every_report_a_run_writes_by_default(tmp_path):
    # The default used to be md/junit/sarif/json: a merged run had no report.html although each shard had one.
    paths = []
    for name, case, shard in (("r-1", contract_case("a", True), "1/2"), ("r-2", contract_case("b", False), "2/2")):
        path = tmp_path / name / "manifest.json"
        path.parent.mkdir()
        manifest(name, [case], shard=shard).write(path)
        paths.append(path)
    result = merge_manifests(paths, out_dir=tmp_path / "merged")
    assert "html" in default_formats() and set(result.reports) == set(default_formats())
    for kind in default_formats():
        assert (tmp_path / "merged" / REPORTERS[kind].file).stat().st_size > 0, kind
    assert "<html" in (tmp_path / "merged" / "report.html").read_text().lower()
