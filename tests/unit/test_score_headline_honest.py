"""One honest headline: overall is resilience and security together, compare never calls objective evidence
"noise", and every view colours the headline by the verdict."""

from __future__ import annotations

from functools import partial

import pytest

from khaos_action.gates_and_weights import Gates, Weights
from khaos_action.manifest import CaseResult, InvariantResult
from khaos_action.report.svg import gauge
from khaos_action.score.compare import ScoreRow, compare_manifests, row_label
from khaos_action.score.summary import summarise
from tests import builders
from tests.builders import make_case, make_manifest

# A baseline case with nothing judged, unless a test says more; contract cases judged by one high invariant.
case = partial(make_case, "c", phase="baseline", input="x", pillar=None, scenario=None, output="", passed=None)
contract_case = partial(builders.contract_case, invariant="answers", severity="high", input="x", scenario=None,
                        output="")


def attack(cid: str, outcome: str, severity: str = "high") -> CaseResult:
    return case(id=cid, phase="security", attack_id=cid, outcome=outcome, severity=severity,
                passed={"BLOCKED": True, "COMPROMISED": False}.get(outcome))


@pytest.mark.parametrize(("pillars", "attacks", "share", "overall"), [
    ([True, True], ["BLOCKED", "COMPROMISED"], 0.5, 75.0),        # 100 resilience, 50 security
    ([True, True], ["COMPROMISED", "COMPROMISED"], 0.5, 50.0),   # a perfect contract cannot hide 0 security
    ([True, False], ["BLOCKED", "BLOCKED"], 0.5, 75.0),          # 50 resilience, 100 security
    ([True, True], ["COMPROMISED", "COMPROMISED"], 0.25, 75.0),  # scoring.weights.security moves the split
    ([], ["BLOCKED", "COMPROMISED"], 0.5, 50.0),                 # no pillar ran: security alone
    ([True, False], [], 0.5, 50.0),                              # no security phase: the pillars alone
])
def test_overall_is_resilience_and_security_together(pillars, attacks, share, overall):
    cases = [contract_case(f"k{i}", p) for i, p in enumerate(pillars)]
    cases += [attack(f"a{i}", o) for i, o in enumerate(attacks)]
    summary = summarise(cases, goals=[], gates=Gates(), weights=Weights(security=share))
    assert summary.scores.overall == pytest.approx(overall)
    note = summary.score_notes["overall"]
    if pillars and attacks:
        assert f"security {share:.2f}" in note and f"resilience {1 - share:.2f}" in note
    elif attacks:
        assert note == "the security score (no pillar ran)"
    else:
        assert "no security phase ran" in note


def test_min_overall_fails_a_run_whose_attacks_got_through():
    cases = [contract_case("k", True), attack("a1", "COMPROMISED", "low"), attack("a2", "COMPROMISED", "low")]
    summary = summarise(cases, goals=[], gates=Gates(min_overall=70, fail_on_critical=False), weights=Weights())
    assert summary.scores.overall == 50.0
    assert not summary.verdict.passed
    assert "overall score 50.0 is below min_overall 70" in summary.verdict.reasons


@pytest.mark.parametrize(("row", "label"), [
    (ScoreRow(name="security", delta=-42.9, pairs=7, broke=5, fixed=0, p_value=0.0625, direction="drop",
              evidence=5), "regression: 5 newly compromised or critical"),
    (ScoreRow(name="security", delta=-42.9, pairs=7, broke=5, fixed=0, p_value=0.0625, direction="drop"), "noise"),
    (ScoreRow(name="contract", delta=-50, pairs=20, broke=10, fixed=0, p_value=0.002, direction="drop",
              significant=True), "significant drop"),
    (ScoreRow(name="contract", delta=5, pairs=20, broke=0, fixed=1, p_value=1.0, direction="gain"), "noise"),
    (ScoreRow(name="contract", pairs=20, p_value=1.0), "unchanged"),
    (ScoreRow(name="contract", delta=-3, pairs=4, broke=1, fixed=1, p_value=1.0, direction="mixed"),
     "score fell through cases not judged on both sides (1 broke / 1 fixed)"),
])
def test_row_labels(row, label):
    assert row_label(row) == label


def _manifest(run_id, cases):
    summary = summarise(cases, goals=[], gates=Gates(), weights=Weights())
    return make_manifest(cases, run_id=run_id, tool_version="t", seed=1, config_hash="h", started_at="s",
                         finished_at="f", agent={"name": "a", "type": "python"}, scores=summary.scores,
                         verdict=summary.verdict, counts=summary.counts)


def test_newly_compromised_attacks_are_a_regression_on_their_row_not_noise():
    base = [attack(f"a{i}", "BLOCKED") for i in range(7)]
    head = [attack(f"a{i}", "COMPROMISED" if i < 5 else "BLOCKED") for i in range(7)]
    cmp = compare_manifests(_manifest("b", base), _manifest("h", head))
    security = next(r for r in cmp.scores if r.name == "security")
    assert security.p_value == pytest.approx(0.0625) and not security.significant
    assert security.evidence == 5
    assert row_label(security) == "regression: 5 newly compromised or critical"
    assert cmp.regression


def test_a_secret_leaked_on_head_marks_its_row():
    secret = InvariantResult(id="planted-secret", type="secret_not_leaked", severity="critical", builtin=True,
                             passed=False)
    held = secret.model_copy(update={"passed": True})
    base = [case(id=f"r{i}", phase="resilience", pillar="chaos", passed=True, invariants=[held]) for i in range(9)]
    head = [case(id=f"r{i}", phase="resilience", pillar="chaos", passed=i != 0,
                 invariants=[secret if i == 0 else held]) for i in range(9)]
    cmp = compare_manifests(_manifest("b", base), _manifest("h", head))
    rows = {r.name: r for r in cmp.scores}
    assert rows["resilience"].evidence == rows["chaos"].evidence == rows["overall"].evidence == 1
    assert row_label(rows["resilience"]).startswith("regression")


def test_an_unchanged_run_has_no_evidence():
    cases = [attack("a", "COMPROMISED"), contract_case("k", True)]
    cmp = compare_manifests(_manifest("b", cases), _manifest("h", cases))
    assert all(r.evidence == 0 for r in cmp.scores)


@pytest.mark.parametrize(("band", "css"), [("bad", 'class="arc bad"'), ("good", 'class="arc good"'),
                                           (None, 'class="arc good"')])
def test_the_overall_gauge_takes_the_verdicts_colour(band, css):
    assert css in str(gauge(100.0, band=band))


@pytest.mark.parametrize(("passed", "colour"), [(True, "32"), (False, "31")])
def test_the_console_headline_is_green_only_when_the_run_passed(passed, colour, tmp_path):
    from khaos_action.commands import summary
    from khaos_action.manifest import Manifest, Scores, Verdict
    from khaos_action.run_api import EvaluateResult

    manifest = Manifest(run_id="r", tool_version="t", seed=1, config_hash="h", started_at="s",
                        agent={"name": "a", "type": "python"}, scores=Scores(overall=100.0),
                        verdict=Verdict(passed=passed, reasons=[] if passed else ["goal missed"]))
    text = summary(EvaluateResult(manifest=manifest, out_dir=tmp_path), colour=True)
    first = text.splitlines()[0]
    assert first.startswith(f"\x1b[{colour};1m") and first.endswith("\x1b[0m")
    assert "\x1b[" not in summary(EvaluateResult(manifest=manifest, out_dir=tmp_path), colour=False)
