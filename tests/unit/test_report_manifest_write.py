"""manifest.json is written compact and streamed (cases a thousand at a time): the same document as one
serialisation, across batch boundaries, with and without cases, ending with its digest, readable by load_manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from khaos_action.manifest import AgentInfo, CaseResult, InvariantResult, Manifest, Scores, check_digest
from khaos_action.manifest_read import load_manifest
from tests.builders import make_manifest


def manifest(n: int) -> Manifest:
    cases = [CaseResult(id=f"c{i}", phase="contract", input=f"prompt {i} ✓ \"quoted\"", output="x" * (i % 7),
                        invariants=[InvariantResult(id="inv", passed=i % 3 != 0)]) for i in range(n)]
    return make_manifest(cases, run_id="r", tool_version="0", seed=1, config_hash="h", started_at="t",
                         agent=AgentInfo(name="a", type="python"), scores=Scores(),
                         telemetry={"cases": []})  # a nested "cases" key must not confuse anything


@pytest.mark.parametrize("n", [0, 1, 999, 1000, 1001, 2500])
def test_the_streamed_manifest_is_the_one_document(tmp_path: Path, n: int) -> None:
    original = manifest(n)
    path = tmp_path / "manifest.json"
    original.write(path)
    text = path.read_text(encoding="utf-8")
    assert "\n" not in text  # compact
    written = json.loads(text)
    assert list(written)[-1] == "digest" and written.pop("digest").startswith("sha256:")
    assert written == json.loads(original.model_dump_json())
    check_digest(path.read_bytes(), source=str(path))
    assert load_manifest(path) == original
