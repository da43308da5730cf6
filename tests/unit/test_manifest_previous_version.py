"""Manifests written before the run's sections became typed fields (they sat in an `extra` mapping) still load, and
`compare` and `merge` read them (merge: tests/integration/test_report_merge_files.py): a pull request's base-branch
run is often such a manifest.

tests/fixtures/manifests/previous/ was written by khaos-action at commit 5ab318e (`run`, and `run --shard 1/2`,
`--shard 2/2`) on a small travel agent with a local model: gates `fail_on_critical: false`, `min_overall: 99`.
"""

from __future__ import annotations

import json
from pathlib import Path

from khaos_action.manifest_read import load_manifest
from khaos_action.score.compare import compare_manifests

PREVIOUS = Path(__file__).parent.parent / "fixtures" / "manifests" / "previous"


def test_a_previous_manifest_loads_its_extra_sections_into_the_typed_fields() -> None:
    raw = json.loads((PREVIOUS / "run.json").read_text(encoding="utf-8"))["extra"]
    manifest = load_manifest(PREVIOUS / "run.json")
    assert manifest.gates.model_dump() == raw["gates"] and manifest.gates.fail_on_critical is False
    assert manifest.weights.model_dump() == raw["weights"]
    assert manifest.config_lines == raw["config_lines"] and manifest.config_lines["invariant:answers"] == 17
    assert manifest.similarity_backend == "lexical"
    assert manifest.telemetry is not None
    assert manifest.telemetry.model_dump() == raw["telemetry"] and manifest.telemetry.calls > 0
    assert manifest.attack_surface is not None
    assert {prompt: reach.model_dump() for prompt, reach in manifest.attack_surface.items()} == raw["attack_surface"]


def test_a_previous_manifest_written_again_has_the_fields_at_the_top_and_reads_back_the_same(tmp_path: Path) -> None:
    manifest = load_manifest(PREVIOUS / "run.json")
    manifest.write(tmp_path / "manifest.json")
    written = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.telemetry is not None
    assert "extra" not in written and written["telemetry"]["calls"] == manifest.telemetry.calls
    assert written["schema_version"] == 2  # read as version 1, written in today's shape: says so
    assert load_manifest(tmp_path / "manifest.json") == manifest


def test_compare_pairs_a_previous_base_with_a_head_in_todays_shape(tmp_path: Path) -> None:
    base = load_manifest(PREVIOUS / "run.json")
    base.write(tmp_path / "head.json")
    comparison = compare_manifests(base, load_manifest(tmp_path / "head.json"))
    assert not comparison.config_mismatch and comparison.paired + comparison.unjudged == len(base.cases) == 10
    assert not comparison.regression and not comparison.newly_failing and not comparison.fixed
    deltas = [row.delta for row in comparison.scores]
    assert 0.0 in deltas and set(deltas) <= {0.0, None}
