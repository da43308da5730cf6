"""`merge` forks its writer's child before it parses the shards: both processes parse the same bytes, the child
writes manifest.json's cases and junit.xml's testcases while this one scores. The files are the bytes one process
writes from the merged manifest, whatever the shards hold (a case's repeats in two shards, empty shards, a case
without time); shards refused after the fork stop both processes with the error one process gives, nothing written;
and no process is left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from khaos_action.manifest import DIGEST_KEY, AgentInfo, CaseResult, InvariantResult, Manifest, ManifestError, Scores
from khaos_action.manifest_read import load_manifest
from khaos_action.report.merge import merge, merge_manifests
from khaos_action.report.writers import write_all
from khaos_action.reporters import default_formats
from tests.builders import make_case, make_manifest
from tests.signed import signed


def shard(index: int, total: int, cases: list[CaseResult]) -> Manifest:
    return make_manifest(cases, run_id=f"r-shard{index}", tool_version="0", seed=1, config_hash="h",
                         started_at=f"t{index}", agent=AgentInfo(name="a", type="python"), scores=Scores(),
                         shard=f"{index}/{total}")


def case(case_id: str, passed: bool, repeat: int = 0, latency_ms: float = 1.5) -> CaseResult:
    return make_case(case_id, input=f"prompt {case_id} · é", scenario="s", output="reply <b>&amp;</b>", passed=passed,
                     repeat=repeat, latency_ms=latency_ms,
                     invariants=[InvariantResult(id=f"inv-{n}", severity="high", passed=passed or n > 0)
                                 for n in range(3)])


def written(shards: list[Manifest], tmp_path: Path, name: str) -> list[Path]:
    paths = []
    for index, manifest in enumerate(shards, start=1):
        path = tmp_path / f"{name}-shard{index}.json"
        manifest.write(path)
        paths.append(path)
    return paths


def children() -> set[int]:
    """This process's children, zombies included (pytest may have others of its own: a session's dockerd)."""
    return {int(pid) for task in Path("/proc/self/task").iterdir()
            for pid in (task / "children").read_text().split()}


def assert_one_process_bytes(paths: list[Path], merged_dir: Path, tmp_path: Path) -> None:
    manifests = [load_manifest(p) for p in paths]
    one = write_all(merge(manifests, gates=manifests[0].gates, weights=manifests[0].weights), tmp_path / "one",
                    default_formats())
    for kind, path in one.items():
        assert (merged_dir / path.name).read_bytes() == path.read_bytes(), kind
    assert sorted(os.listdir(merged_dir)) == sorted(p.name for p in one.values())  # no part or temp file left


def test_three_shards_merge_to_the_bytes_one_process_writes_and_leave_no_process(tmp_path):
    shards = [shard(i, 3, [case(f"s{i}c{n}", passed=(n + i) % 4 != 0, latency_ms=0.0 if n % 5 == 0 else 1.5)
                           for n in range(30)]) for i in (1, 2, 3)]
    paths = written(shards, tmp_path, "three")
    before = children()
    result = merge_manifests(paths, out_dir=tmp_path / "merged")
    assert children() == before  # the writer's child reaped
    assert result.manifest.counts.cases == 90
    assert_one_process_bytes(paths, tmp_path / "merged", tmp_path)


def test_repeats_in_two_shards_that_disagree_are_flagged_flaky_in_the_child_written_manifest(tmp_path):
    # Not what `--shard` does (it keeps a case's repeats together), but a merge of any shards must flag them.
    shards = [shard(1, 2, [case("a", True, repeat=0), case("b", True)]),
              shard(2, 2, [case("a", False, repeat=1), case("c", True)])]
    paths = written(shards, tmp_path, "split")
    result = merge_manifests(paths, out_dir=tmp_path / "merged")
    assert result.manifest.flaky == ["a"]
    assert [c.flaky for c in load_manifest(tmp_path / "merged" / "manifest.json").cases] == [True, False, True, False]
    assert_one_process_bytes(paths, tmp_path / "merged", tmp_path)


def test_empty_shards_merge_to_the_bytes_one_process_writes(tmp_path):
    shards = [shard(1, 3, []), shard(2, 3, [case("a", True), case("b", False)]), shard(3, 3, [])]
    paths = written(shards, tmp_path, "empty")
    merge_manifests(paths, out_dir=tmp_path / "merged")
    assert_one_process_bytes(paths, tmp_path / "merged", tmp_path)


@pytest.mark.parametrize(("second", "error"), [
    (lambda: shard(2, 2, [case("a", True)]), "more than one manifest"),
    (lambda: shard(2, 2, [case("z", True)]).model_copy(update={"seed": 7}), "one config and seed"),
    (None, "invalid manifest at verdict.passed"),
])
def test_shards_refused_after_the_fork_write_nothing_and_leave_no_process(tmp_path, second, error):
    first = written([shard(1, 2, [case("a", True)])], tmp_path, "first")[0]
    other = tmp_path / "second.json"
    if second is None:  # parsed (and refused) only after the fork: the bytes are JSON, the cases are not cases
        edited = first.read_bytes().replace(b'"passed":true', b'"passed":"perhaps"', 1)
        other.write_bytes(signed(edited[:edited.rindex(DIGEST_KEY)] + b"}"))
    else:
        second().write(other)
    (tmp_path / "merged").mkdir()
    before = children()
    with pytest.raises(ManifestError, match=error):
        merge_manifests([first, other], out_dir=tmp_path / "merged")
    assert children() == before
    assert os.listdir(tmp_path / "merged") == []  # no report, no temp file


def test_without_a_temp_file_to_share_through_the_child_writes_every_case(tmp_path, monkeypatch):
    """The parent makes the last cases' JSON and hands it over in an unlinked temp file; with no temp directory to
    make one in, the child makes that JSON too, and the bytes are the same."""
    shards = [shard(i, 2, [case(f"s{i}c{n}", passed=n % 3 != 0) for n in range(40)]) for i in (1, 2)]
    paths = written(shards, tmp_path, "noshare")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "no-such-dir"))
    before = children()
    merge_manifests(paths, out_dir=tmp_path / "merged")
    assert children() == before
    monkeypatch.undo()
    assert_one_process_bytes(paths, tmp_path / "merged", tmp_path)
