"""Reading a manifest validates each distinct invariant result once and shares it between the cases that hold it
(as the judge shared them when it wrote them); results that differ stay apart, errors are located as before, and
what is written back is the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from khaos_action.manifest import AgentInfo, CaseResult, InvariantResult, Manifest, ManifestError, Scores
from khaos_action.manifest_read import Interned, load_manifest
from tests.builders import make_manifest

SPEC = {"id": "mentions-order", "type": "contains", "value": "order"}


def manifest(details: list[str], spec: dict | None = None) -> Manifest:
    cases = [CaseResult(id=f"c{n}", phase="contract", input="where?", invariants=[
        InvariantResult(id="mentions-order", passed=True, detail=detail, spec=spec or SPEC),
        InvariantResult(id="answers", passed=True, detail="answered")]) for n, detail in enumerate(details)]
    return make_manifest(cases, run_id="r", tool_version="0", seed=1, config_hash="h", started_at="t",
                         agent=AgentInfo(name="a", type="python"), scores=Scores())


def test_repeated_results_are_one_object_and_different_ones_are_not(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    manifest(["contains 'order'"] * 3 + ["contains 'Order'"]).write(path)
    loaded = load_manifest(path)
    first, second, third, fourth = (case.invariants for case in loaded.cases)
    assert first[0] is second[0] is third[0] and first[1] is fourth[1]
    assert fourth[0] is not first[0] and fourth[0].detail == "contains 'Order'"
    assert first[0].spec == SPEC
    again = tmp_path / "again.json"
    loaded.write(again)
    assert again.read_bytes() == path.read_bytes()


def test_a_result_with_the_same_verdict_but_another_spec_is_its_own(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    document = json.loads(manifest(["contains 'order'"] * 2).model_dump_json())
    document["cases"][1]["invariants"][0]["spec"]["value"] = "parcel"  # hand-edited: the key alone would match
    path.write_text(json.dumps(document))
    first, second = (case.invariants[0] for case in load_manifest(path).cases)
    assert first is not second and (first.spec["value"], second.spec["value"]) == ("order", "parcel")


@pytest.mark.parametrize(("field", "value", "where"), [
    ("passed", "perhaps", "cases.2.invariants.0.passed"),
    ("detail", ["a", "list"], "cases.2.invariants.0.detail"),
    ("spec", ["not", "a", "dict"], "cases.2.invariants.0.spec"),
])
def test_an_invalid_result_is_located_as_before(tmp_path: Path, field: str, value: object, where: str) -> None:
    path = tmp_path / "bad.json"
    document = json.loads(manifest(["contains 'order'"] * 4).model_dump_json())
    document["cases"][2]["invariants"][0][field] = value
    path.write_text(json.dumps(document))
    with pytest.raises(ManifestError, match=rf"bad.json: invalid manifest at {where.replace('.', chr(92) + '.')}:"):
        load_manifest(path)


def test_it_stops_looking_when_results_do_not_repeat() -> None:
    interned = Interned()
    items = [{"id": "latency", "passed": True, "detail": f"{n} ms"} for n in range(Interned.TRIES + 10)]
    calls = []

    def validate(batch: list) -> list:
        calls.append(len(batch))
        return [InvariantResult.model_validate(item) for item in batch]

    for item in items:
        if interned.worth_it():
            interned.results_of([item], validate)
    assert interned.tries == Interned.TRIES and not interned.worth_it()
    repeated = Interned()
    for _ in range(Interned.TRIES):
        repeated.results_of([{"id": "answers", "passed": True, "detail": "answered"}], validate)
    assert repeated.worth_it() and len(repeated.results) == 1
