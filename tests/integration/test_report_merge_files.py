"""`merge` on shard files (merge_manifests): a shard's digest is checked, naming the file; a merged manifest carries
its own; every default report is written; shards of older manifest versions merge as they did. merge writes its
reports from a forked child on a machine with two cores or more: these tests start that process."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from khaos_action.manifest import (
    ManifestError,
    check_digest,
)
from khaos_action.manifest_read import load_manifest
from khaos_action.report.merge import merge_manifests
from khaos_action.reporters import REPORTERS, default_formats
from tests.builders import contract_case, make_shard
from tests.signed import signed_copy


def written_shards(tmp_path, shards):
    paths = []
    for name, case, shard in shards:
        path = tmp_path / name / "manifest.json"
        path.parent.mkdir()
        make_shard(name, [case], shard=shard).write(path)
        paths.append(path)
    return paths


def test_a_shard_edited_after_the_run_is_refused_naming_it(tmp_path):
    paths = written_shards(tmp_path, [("r-1", contract_case("a", True), "1/2"),
                                      ("r-2", contract_case("b", False), "2/2")])
    raw = paths[1].read_bytes()
    assert raw.count(b'"passed":false') == 2  # the case and its invariant
    paths[1].write_bytes(raw.replace(b'"passed":false', b'"passed":true'))
    with pytest.raises(ManifestError, match=re.escape(f"{paths[1]}: its digest does not match its content")):
        merge_manifests(paths, out_dir=tmp_path / "merged")
    assert not (tmp_path / "merged" / "manifest.json").exists()


@pytest.mark.parametrize("edit", ["dropped", "pretty-printed", "cut short"])
def test_a_shard_without_its_digest_is_refused_naming_it(tmp_path, edit):
    paths = written_shards(tmp_path, [("r-1", contract_case("a", True), "1/2"),
                                      ("r-2", contract_case("b", False), "2/2")])
    data = json.loads(paths[0].read_text())
    if edit == "dropped":
        paths[0].write_text(json.dumps({k: v for k, v in data.items() if k != "digest"}, separators=(",", ":")))
    elif edit == "pretty-printed":
        paths[0].write_text(json.dumps(data, indent=2))
    else:
        paths[0].write_bytes(paths[0].read_bytes()[:-10])
    with pytest.raises(ManifestError, match=re.escape(f"{paths[0]}: no digest at its end")):
        merge_manifests(paths, out_dir=tmp_path / "merged")


def test_a_digest_covers_the_config_hash_and_seed(tmp_path):
    paths = written_shards(tmp_path, [("r-1", contract_case("a", True), "1/2")])
    raw = paths[0].read_bytes()
    for before, after in ((b'"seed":42', b'"seed":43'), (b'"config_hash":"h1"', b'"config_hash":"h2"')):
        paths[0].write_bytes(raw.replace(before, after))
        with pytest.raises(ManifestError, match="its digest does not match"):
            merge_manifests(paths, out_dir=tmp_path / "merged", allow_partial=True)


def test_a_merged_manifest_carries_its_own_digest(tmp_path):
    paths = written_shards(tmp_path, [("r-1", contract_case("a", True), "1/2"),
                                      ("r-2", contract_case("b", True), "2/2")])
    merge_manifests(paths, out_dir=tmp_path / "merged", formats=("json",))
    check_digest((tmp_path / "merged" / "manifest.json").read_bytes(), source="merged")


def test_merge_writes_every_report_a_run_writes_by_default(tmp_path):
    # The default used to be md/junit/sarif/json: a merged run had no report.html although each shard had one.
    paths = []
    for name, case, shard in (("r-1", contract_case("a", True), "1/2"), ("r-2", contract_case("b", False), "2/2")):
        path = tmp_path / name / "manifest.json"
        path.parent.mkdir()
        make_shard(name, [case], shard=shard).write(path)
        paths.append(path)
    result = merge_manifests(paths, out_dir=tmp_path / "merged")
    assert "html" in default_formats() and set(result.reports) == set(default_formats())
    for kind in default_formats():
        assert (tmp_path / "merged" / REPORTERS[kind].file).stat().st_size > 0, kind
    assert "<html" in (tmp_path / "merged" / "report.html").read_text().lower()


V2 = Path(__file__).parent.parent / "fixtures" / "manifests" / "v2_sections"


def test_merging_the_version_2_shards_gives_the_manifest_the_previous_version_merged(tmp_path: Path) -> None:
    shards = [signed_copy(V2 / name, tmp_path) for name in ("shard1.json", "shard2.json")]  # written unsigned
    result = merge_manifests(shards, out_dir=tmp_path, formats=("json",))
    written = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert written.pop("digest").startswith("sha256:")
    assert written == json.loads((V2 / "merged.json").read_text(encoding="utf-8"))
    assert result.manifest.telemetry is not None and result.manifest.telemetry.shard_budgets == [
        s.telemetry.budget for s in map(load_manifest, (V2 / "shard1.json", V2 / "shard2.json"))
        if s.telemetry is not None]


PREVIOUS = Path(__file__).parent.parent / "fixtures" / "manifests" / "previous"


def test_merge_of_previous_shards_decides_with_their_gates_and_merges_their_llm_usage(tmp_path: Path) -> None:
    shards = [load_manifest(PREVIOUS / name) for name in ("shard1.json", "shard2.json")]
    assert not shards[1].verdict.passed  # alone, shard 2 has no baseline to measure its goal on
    with pytest.raises(ManifestError, match="shard1.json: no digest at its end"):
        merge_manifests([PREVIOUS / "shard1.json", PREVIOUS / "shard2.json"], out_dir=tmp_path, formats=("json",))
    # Written before manifests carried a digest: merge reads them once they carry one.
    signed = [signed_copy(PREVIOUS / name, tmp_path) for name in ("shard1.json", "shard2.json")]
    merged = merge_manifests(signed, out_dir=tmp_path / "merged", formats=("json",)).manifest
    # Their gates say compromised attacks do not fail the run (with the default gates they would), but overall now
    # takes security in: 100 on the pillars and 0 on security is no longer above their min_overall of 99.
    assert merged.gates.fail_on_critical is False and merged.counts.compromised > 0
    assert merged.verdict.reasons == ["overall score 50.0 is below min_overall 99"]
    assert merged.merged_from == ["s1", "s2"] and len(merged.cases) == 10
    assert merged.telemetry is not None
    assert merged.telemetry.calls == sum(len(c.llm_calls) for s in shards for c in s.cases) > 0
    assert merged.telemetry.shard_budgets == [s.telemetry.budget for s in shards if s.telemetry is not None]
    assert merged.config_lines == shards[0].config_lines
