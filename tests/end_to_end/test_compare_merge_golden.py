"""`compare` and `merge` write the same bytes as before they were made fast: every output of the CLI on
version 1 and version 2 manifests (Markdown, JSON, each report file, stdout, stderr, exit code) equals what
khaos-action wrote at commit 4f938a9, before manifest loading, compare and merge were reworked for 50k cases.

tests/fixtures/manifests/v2/ was written at 4f938a9: `run`, `run --shard 1/2` and `--shard 2/2` of the demo config,
and head_regressed.json (the version 1 fixture loaded and written again). The expected outputs in
tests/fixtures/manifests/golden/ were recorded at 4f938a9 by `python -m tests.end_to_end.test_compare_merge_golden`
(report files are kept as sha256 digests: the HTML report alone is 300 kB); record again only for a change that
means to alter these outputs, and say so in its commit.

Manifests now end with a digest, which merge checks: the workspace's merge inputs are signed as a run would have
written them (tests/signed.py), and a merged manifest.json is recorded without its digest (which is checked), so the
outputs recorded at 4f938a9 still hold. Recorded since, on purpose: `v2_one_shard` (a missing shard fails the merged
run) and the entries that check the digest, `--expect` and `--allow-partial`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from khaos_action.demo import demo_config_path
from khaos_action.manifest import check_digest
from tests.fixtures.cli.harness import khaos
from tests.signed import signed, without_digest

MANIFESTS = Path(__file__).resolve().parent.parent / "fixtures" / "manifests"
REPORT = Path(__file__).resolve().parent.parent / "fixtures" / "report"
GOLDEN = MANIFESTS / "golden"

INPUTS = {
    "v1_base.json": MANIFESTS / "base.json",
    "v1_head.json": MANIFESTS / "head_regressed.json",
    "v1_other.json": MANIFESTS / "head_other_config.json",
    "v1_rep_base.json": MANIFESTS / "repeats_base.json",
    "v1_rep_head.json": MANIFESTS / "repeats_head.json",
    "v1_run.json": MANIFESTS / "previous" / "run.json",
    "v1_shard1.json": MANIFESTS / "previous" / "shard1.json",
    "v1_shard2.json": MANIFESTS / "previous" / "shard2.json",
    "v1_mixed.json": REPORT / "mixed_run.json",
    "v1_minimal.json": REPORT / "minimal_baseline.json",
    "v2_run.json": MANIFESTS / "v2" / "run.json",
    "v2_shard1.json": MANIFESTS / "v2" / "shard1.json",
    "v2_shard2.json": MANIFESTS / "v2" / "shard2.json",
    "v2_head.json": MANIFESTS / "v2" / "head_regressed.json",
}

COMPARES = {
    "v1_regressed": ("v1_base.json", "v1_head.json"),
    "v1_other_config": ("v1_base.json", "v1_other.json"),
    "v1_repeats": ("v1_rep_base.json", "v1_rep_head.json"),
    "v1_previous_subset": ("v1_run.json", "v1_shard1.json"),
    "v1_mixed_minimal": ("v1_mixed.json", "v1_minimal.json"),
    "v2_subset": ("v2_run.json", "v2_shard1.json"),
    "v2_broken": ("v2_run.json", "v2_broken.json"),
    "v2_same": ("v2_run.json", "v2_run.json"),
    "v1_base_v2_head": ("v1_base.json", "v2_head.json"),
    "v2_base_v1_head": ("v2_head.json", "v1_head.json"),
    "v1_v2_other_config": ("v1_run.json", "v2_run.json"),
    "error_missing": ("v1_base.json", "nope.json"),
    "error_bad_value": ("v1_base.json", "bad_value.json"),
    "error_bad_case": ("bad_case.json", "v1_base.json"),
    "error_not_json": ("not_json.json", "v1_base.json"),
    "error_newer": ("v1_base.json", "newer.json"),
    "error_no_run_id": ("v1_base.json", "no_run_id.json"),
}

MERGES = {
    "v1_shards": (["v1_shard1.json", "v1_shard2.json"], []),
    "v2_shards": (["v2_shard1.json", "v2_shard2.json"], []),
    "v2_shards_reversed": (["v2_shard2.json", "v2_shard1.json"], []),
    "v2_one_shard": (["v2_shard1.json"], []),
    "v2_md_json": (["v2_shard1.json", "v2_shard2.json"], ["--format", "md,json"]),
    "v2_broken_alone": (["v2_broken.json"], ["--format", "md,junit,sarif"]),
    "v2_config_gates": (["v2_shard1.json", "v2_shard2.json"], ["-c", "demo/khaos.yaml"]),
    "v1_v2_shards": (["v1_shard1.json", "v2_shard2.json"], []),
    "error_twice": (["v2_shard1.json", "v2_shard1.json"], []),
    "error_bad_value": (["v2_shard1.json", "bad_value.json"], []),
    "error_bad_shard": (["bad_shard.json", "v2_shard2.json"], []),
    "v2_one_shard_partial": (["v2_shard1.json"], ["--allow-partial"]),
    "v2_shards_expect": (["v2_shard1.json", "v2_shard2.json"], ["--expect", "2"]),
    "error_expect": (["v2_shard1.json", "v2_shard2.json"], ["--expect", "3"]),
    "error_unsigned": (["v2_shard1.json", "unsigned_shard2.json"], []),
    "error_edited": (["v2_shard1.json", "edited_shard2.json"], []),
}
SIGNED = {name for inputs, _ in MERGES.values() for name in inputs} - {"unsigned_shard2.json", "edited_shard2.json"}
"""Merge inputs signed as a run signs its manifest; the other two are refused for their digest."""


def _derived(folder: Path) -> None:
    """Inputs made from the fixtures by fixed edits: a broken head, and manifests that are wrong in one place."""
    run = json.loads((folder / "v2_run.json").read_text(encoding="utf-8"))
    for index, case in enumerate(run["cases"]):
        if index % 5 == 0 and case["passed"] is not None:
            case["passed"] = False
            for inv in case["invariants"]:
                inv["passed"] = False if inv["passed"] is not None else None
        if case["outcome"] == "BLOCKED" and index % 3 == 0:
            case["outcome"] = "COMPROMISED"
            case["passed"] = False
    run["run_id"] = "broken"
    run["scores"] = {name: (None if value is None else value - 7.5) for name, value in run["scores"].items()}
    (folder / "v2_broken.json").write_text(json.dumps(run), encoding="utf-8")

    base = json.loads((folder / "v1_base.json").read_text(encoding="utf-8"))
    base["cases"][3]["invariants"][0]["passed"] = "maybe"
    (folder / "bad_value.json").write_text(json.dumps(base), encoding="utf-8")
    base = json.loads((folder / "v1_base.json").read_text(encoding="utf-8"))
    del base["cases"][2]["phase"]
    (folder / "bad_case.json").write_text(json.dumps(base), encoding="utf-8")
    shard = json.loads((folder / "v2_shard1.json").read_text(encoding="utf-8"))
    shard["cases"][5]["latency_ms"] = "fast"
    (folder / "bad_shard.json").write_text(json.dumps(shard), encoding="utf-8")
    (folder / "not_json.json").write_text('{"run_id": "x", "cases": [', encoding="utf-8")
    (folder / "newer.json").write_text(json.dumps({**base, "schema_version": 3}), encoding="utf-8")
    (folder / "no_run_id.json").write_text(json.dumps({"cases": []}), encoding="utf-8")
    shutil.copy(folder / "v2_shard2.json", folder / "unsigned_shard2.json")
    for name in SIGNED:
        (folder / name).write_bytes(signed((folder / name).read_bytes()))
    # Shard 2 with a failing case turned into a pass, its digest left as it was.
    raw = (folder / "v2_shard2.json").read_bytes()
    assert raw.count(b'"passed":false') > 0
    (folder / "edited_shard2.json").write_bytes(raw.replace(b'"passed":false', b'"passed":true', 1))


def _workspace(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in INPUTS.items():
        shutil.copy(source, folder / name)
    shutil.copytree(demo_config_path().parent, folder / "demo")
    _derived(folder)
    return folder


def _run_compare(ws: Path, name: str) -> dict[str, str]:
    base, head = COMPARES[name]
    out = {}
    for fmt in ("md", "json"):
        ran = khaos("compare", base, head, "--format", fmt, cwd=ws)
        out[f"{fmt}.exit"] = str(ran.code)
        out[f"{fmt}.stdout"] = ran.stdout
        out[f"{fmt}.stderr"] = ran.stderr
    return out


def _run_merge(ws: Path, name: str) -> dict[str, str]:
    inputs, options = MERGES[name]
    target = ws / f"merged-{name}"
    ran = khaos("merge", *inputs, "--out", target.name, *options, cwd=ws)
    out = {"exit": str(ran.code), "stdout": ran.stdout, "stderr": ran.stderr}
    if target.is_dir():
        for path in sorted(target.iterdir()):
            raw = path.read_bytes()
            if path.name == "manifest.json":
                check_digest(raw, source=str(path))
                raw = without_digest(raw)
            out[f"sha256 {path.name}"] = hashlib.sha256(raw).hexdigest()
    return out


def _expected(kind: str, name: str) -> dict[str, str]:
    return json.loads((GOLDEN / f"{kind}-{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    return _workspace(tmp_path_factory.mktemp("golden"))


@pytest.mark.parametrize("name", sorted(COMPARES))
def test_compare_writes_what_it_wrote_before(ws: Path, name: str) -> None:
    assert _run_compare(ws, name) == _expected("compare", name)


@pytest.mark.parametrize("name", sorted(MERGES))
def test_merge_writes_what_it_wrote_before(ws: Path, name: str) -> None:
    assert _run_merge(ws, name) == _expected("merge", name)


def record(folder: Path, names: list[str]) -> None:
    """Write the expected outputs (run only at the commit they describe; see the module docstring); `names`: only
    these (`compare-NAME` or `merge-NAME`), else all."""
    ws = _workspace(folder)
    GOLDEN.mkdir(exist_ok=True)
    for kind, table, run in (("compare", COMPARES, _run_compare), ("merge", MERGES, _run_merge)):
        for name in table:
            if names and f"{kind}-{name}" not in names:
                continue
            text = json.dumps(run(ws, name), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            (GOLDEN / f"{kind}-{name}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    record(Path(tempfile.mkdtemp(prefix="khaos-golden-")), sys.argv[1:])
    sys.exit(0)
