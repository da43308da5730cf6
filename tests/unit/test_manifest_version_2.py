"""Schema-version-2 manifests written before the manifest's sections had models (gates, weights and telemetry were
plain dicts) load into the typed sections, are written again byte for byte, and compare and merge as before (merge:
tests/integration/test_report_merge_files.py).

tests/fixtures/manifests/v2_sections/ was written by khaos-action at commit 4f938a9: `run --shard 1/2` and
`--shard 2/2` of khaos.yaml there (the bundled demo agent and model with the small pack v2-shape.yaml; gates
`min_overall: 50`, `fail_on_critical: false`, `fail_on_regression: false`; weights 0.1/0.4/0.4/0.1; a recording
`llm_cache`, a `budget` and a price for the demo model), then `merge` of the two shards (merged.json).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from khaos_action.github.gates import decide
from khaos_action.manifest import SCHEMA_VERSION, BudgetState, ManifestError, Telemetry, check_digest
from khaos_action.manifest_read import load_manifest, parse_manifest
from khaos_action.score.compare import compare_manifests
from tests.signed import without_digest

V2 = Path(__file__).parent.parent / "fixtures" / "manifests" / "v2_sections"


def test_the_json_shape_is_unchanged_so_the_version_stays_2() -> None:
    assert SCHEMA_VERSION == 2


def test_a_version_2_manifest_reads_its_sections_into_their_models() -> None:
    shard = load_manifest(V2 / "shard1.json")
    assert shard.schema_version == 2
    assert (shard.gates.min_overall, shard.gates.fail_on_critical, shard.gates.fail_on_regression) == (50, False, False)
    assert (shard.weights.mutation, shard.weights.chaos, shard.weights.contract) == (0.1, 0.4, 0.4)
    telemetry = shard.telemetry
    assert isinstance(telemetry, Telemetry) and telemetry.calls == sum(telemetry.by_source.values()) > 0
    assert telemetry.cassette is not None and telemetry.cassette.mode == "record"
    assert telemetry.budget is not None and telemetry.budget.limits == {"max_llm_calls": 5000, "max_cost_usd": 5.0}
    assert isinstance(telemetry.budget.limits["max_llm_calls"], int)  # written as 5000, not 5000.0
    assert telemetry.budget.spent.llm_calls == telemetry.by_source["live"] and telemetry.shard_budgets is None
    assert [m.model for m in telemetry.models] == ["demo-model"] and telemetry.models[0].cost_usd is not None
    merged = load_manifest(V2 / "merged.json")
    assert merged.telemetry is not None and merged.telemetry.shard_budgets is not None
    assert all(isinstance(b, BudgetState) for b in merged.telemetry.shard_budgets)


def test_a_version_2_manifest_is_written_again_byte_for_byte(tmp_path: Path) -> None:
    for name in ("shard1.json", "shard2.json", "merged.json"):
        load_manifest(V2 / name).write(tmp_path / name)
        written = (tmp_path / name).read_bytes()
        check_digest(written, source=name)  # what is new: the digest at its end
        assert without_digest(written) == (V2 / name).read_bytes(), name


def test_compare_pairs_version_2_runs_and_the_recorded_gates_switch_the_regression_gate_off() -> None:
    base, head = load_manifest(V2 / "merged.json"), load_manifest(V2 / "shard1.json")
    head.cases[0].passed, head.cases[0].outcome = False, None  # a case that passed on base fails on head
    assert base.cases[0].passed
    comparison = compare_manifests(base, head)
    assert not comparison.config_mismatch and comparison.regression and comparison.new_failures == 1
    decision = decide(head, comparison, fail_on=("critical", "regression"), min_score=None)
    # khaos.yaml said `fail_on_regression: false`: the regression is shown, and ignored
    assert not decision.failing and any(f.gate == "regression" for f in decision.ignored)


def test_sections_stay_lenient_about_keys_a_newer_tool_wrote_and_default_what_an_older_one_left_out() -> None:
    data = json.loads((V2 / "shard1.json").read_text(encoding="utf-8"))
    data["gates"]["max_flaky_rate"] = 0.1  # a gate this version does not know
    data["telemetry"]["by_tool"] = {"search": 3}
    data["telemetry"]["models"][0]["region"] = "eu"
    shard = parse_manifest(data)
    assert shard.gates.min_overall == 50 and "max_flaky_rate" not in shard.gates.model_dump()
    assert shard.telemetry is not None and shard.telemetry.models[0].model == "demo-model"
    for key in ("gates", "weights", "telemetry"):
        del data[key]
    older = parse_manifest(data)
    assert older.gates.fail_on_regression and older.weights.chaos == 0.35 and older.telemetry is None
    data["weights"] = {"mutation": 0.5, "chaos": 0.5, "contract": 0.5, "replay": 0.5}
    with pytest.raises(ManifestError, match="weights: .*must sum to 1.0"):
        parse_manifest(data, source="broken.json")
