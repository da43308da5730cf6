"""Phases and outcomes are typed (`Phase`, `Outcome`) in every result this version builds and in every manifest it
reads back; a manifest's words are converted in one place (manifest.py's `ManifestPhase`, `ManifestOutcome`), the
JSON written is the same bytes as when they were plain strings, and a phase this version does not know is kept and
shown in a group of its own, never refused."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from khaos_action.manifest import AgentInfo, CaseResult, GoalResult, Manifest, Scores
from khaos_action.manifest_read import Outcomes, load_manifest, manifest_from_bytes
from khaos_action.outcome import ATTACK_PASSED, Outcome, Phase, UnknownPhase
from khaos_action.report.html_views import case_groups
from khaos_action.score.compare import compare_manifests
from tests.builders import make_manifest

MANIFESTS = Path(__file__).parent.parent / "fixtures" / "manifests"


def _manifest(cases: list[CaseResult]) -> Manifest:
    return make_manifest(cases, run_id="r", tool_version="0", seed=1, config_hash="h", started_at="t",
                         agent=AgentInfo(name="a", type="python"), scores=Scores())


def _bytes(manifest: Manifest) -> bytes:
    out = io.BytesIO()
    manifest.write_to(out)
    return out.getvalue()


@pytest.mark.parametrize("member", [*Phase, *Outcome])
def test_a_member_is_shown_and_written_as_its_word(member: Phase | Outcome) -> None:
    word = member.value
    assert member == word and hash(member) == hash(word) and {word: 1}[member] == 1
    assert (str(member), f"{member}", f"{member:>12}", json.dumps(member)) == (word, word, f"{word:>12}", f'"{word}"')


def test_the_manifest_written_from_typed_results_is_the_bytes_plain_strings_gave() -> None:
    def case(phase: str, outcome: str | None) -> CaseResult:
        return CaseResult(id=f"{phase}-{outcome}", phase=phase, input="x", outcome=outcome,
                          passed=ATTACK_PASSED.get(outcome) if outcome else True)

    typed = [case(Phase.SECURITY, Outcome.COMPROMISED), case(Phase.BASELINE, None)]
    plain = [case("security", "COMPROMISED"), case("baseline", None)]
    goals = [GoalResult(phase=Phase.SECURITY, metric="block_rate", operator="gte", threshold=0.8)]
    as_typed, as_plain = _manifest(typed), _manifest(plain)
    as_typed.goals, as_plain.goals = goals, [GoalResult(phase="security", metric="block_rate", operator="gte",
                                                        threshold=0.8)]
    assert _bytes(as_typed) == _bytes(as_plain)
    assert as_plain.cases[0].phase is Phase.SECURITY and as_plain.cases[0].outcome is Outcome.COMPROMISED


def test_a_manifest_read_back_carries_this_versions_types() -> None:
    for path in (MANIFESTS / "base.json", MANIFESTS / "previous" / "run.json", MANIFESTS / "v2" / "run.json"):
        manifest = load_manifest(path)
        assert {type(c.phase) for c in manifest.cases} == {Phase}, path
        assert {type(c.outcome) for c in manifest.cases} <= {Outcome, type(None)}, path
        assert {type(g.phase) for g in manifest.goals} <= {Phase}, path
        outcomes = load_manifest(path, Outcomes)  # compare's reading: the same conversion
        assert {type(c["phase"]) for c in outcomes.cases} == {Phase}, path


def _foreign(tmp_path: Path) -> Path:
    """A manifest from a version with a phase and an outcome this one does not know."""
    manifest = _manifest([CaseResult(id="a", phase="security", input="x", outcome="BLOCKED", passed=True),
                          CaseResult(id="t", phase="triage", input="y", outcome="DEFLECTED", passed=False),
                          CaseResult(id="b", phase="baseline", input="z", passed=True)])
    path = tmp_path / "manifest.json"
    manifest.write(path)
    return path


def test_a_phase_this_version_does_not_know_is_kept_as_unknown_and_written_back_as_it_was(tmp_path: Path) -> None:
    path = _foreign(tmp_path)
    manifest = load_manifest(path)
    triage = manifest.cases[1]
    assert type(triage.phase) is UnknownPhase and triage.phase == "triage" and not isinstance(triage.phase, Phase)
    assert triage.outcome == "DEFLECTED" and not isinstance(triage.outcome, Outcome)  # an unknown outcome: its word
    assert repr(triage.phase) == "UnknownPhase('triage')"
    assert _bytes(manifest) == path.read_bytes()  # written back byte for byte
    assert manifest_from_bytes(path.read_bytes(), source="m") == manifest


def test_the_html_report_groups_an_unknown_phase_after_the_known_ones(tmp_path: Path) -> None:
    groups = case_groups(load_manifest(_foreign(tmp_path)).cases)
    assert [g.phase for g in groups] == ["baseline", "security", "triage"]


def test_compare_pairs_a_case_of_an_unknown_phase(tmp_path: Path) -> None:
    manifest = load_manifest(_foreign(tmp_path))
    comparison = compare_manifests(manifest, manifest)
    assert comparison.paired + comparison.unjudged == 3 and not comparison.regression
