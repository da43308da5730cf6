"""Shared helpers for the examples' integration tests: run an example's khaos.yaml through the real engine and
look cases up in its manifest and reports. (No tests here; the name keeps it with the files it serves.)"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from khaos_action.manifest import CaseResult, Manifest
from khaos_action.run_api import EvaluateResult
from tests.builders import evaluate_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, out_dir: Path, **request: object) -> EvaluateResult:
    """`khaos-action run -c examples/<name>/khaos.yaml --out <out_dir>`, in-process."""
    return evaluate_project(EXAMPLES / name / "khaos.yaml", out_dir, **request)


def contract_case(manifest: Manifest, scenario: str, prompt: str) -> CaseResult:
    """The one contract cell for (scenario, golden prompt)."""
    found = [c for c in manifest.cases if c.phase == "contract" and c.scenario == scenario and c.input == prompt]
    assert len(found) == 1, f"expected one contract case for {scenario!r} / {prompt!r}, found {len(found)}"
    return found[0]


def invariant(case: CaseResult, invariant_id: str) -> bool | None:
    """The verdict of one invariant on one case (None: not exercised / not applicable)."""
    for result in case.invariants:
        if result.id == invariant_id:
            return result.passed
    raise AssertionError(f"case {case.id} has no invariant {invariant_id!r}: {[i.id for i in case.invariants]}")


def report_scores(report_md: str) -> dict[str, str]:
    """Score name -> value as shown in the Markdown report's score table ("not run" for null)."""
    table = report_md.split("| Score |", 1)[1].split("\n\n", 1)[0]
    return dict(re.findall(r"^\| (\w+) \| ([^|]+?) \|", table, flags=re.MULTILINE))


def junit_scores(junit_xml: str) -> dict[str, str]:
    """`score.<name>` properties of the first JUnit test suite."""
    suite = ET.fromstring(junit_xml).find("testsuite")
    assert suite is not None, "junit.xml has no testsuite"
    return {p.get("name", "")[len("score."):]: p.get("value", "")
            for p in suite.iter("property") if p.get("name", "").startswith("score.")}


def assert_scores_reported(result: EvaluateResult, pillars: tuple[str, ...]) -> None:
    """Each pillar has a score in the manifest, and the same number in report.md and junit.xml."""
    scores = result.manifest.scores.model_dump()
    md = report_scores((result.out_dir / "report.md").read_text())
    junit = junit_scores((result.out_dir / "junit.xml").read_text())
    for pillar in pillars:
        value = scores[pillar]
        assert value is not None, f"{pillar} did not run: {scores}"
        assert float(md[pillar]) == round(value, 1), (pillar, md.get(pillar), value)
        assert float(junit[pillar]) == round(value, 2), (pillar, junit.get(pillar), value)
